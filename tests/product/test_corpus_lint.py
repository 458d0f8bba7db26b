"""Real-file sanity: lint the four corpus files with no config and pin what they report.

Every finding was looked at; each is a real defect of that export:

* ``khr_CesiumMan.glb`` — 2 ``constant-track`` notes (37 channels, one note per
  channel kind): COLLADA2GLTF baked a translation and a scale channel with 48
  keys for every joint although they never move (ranges ≤ 1.4e-6); only
  rotations animate. Export bloat.
* ``khr_Fox.glb`` — 1 ``constant-track`` note (2 channels) on clip ``Survey``: the hips
  (``b_Hip_01``) and first spine bone rotations carry 83 keys that stay within
  1e-6 rad. Walk/Run are clean.
* ``khr_RiggedFigure.glb`` — 3 ``constant-track`` notes (53 channels): every joint has
  2-key translation/rotation/scale channels and only a few rotations (arms,
  neck) change; the rest are duplicates of the bind pose. Export bloat.
* ``three_RobotExpressive.glb`` — 7 ``quat-flip`` warnings: FBX2glTF wrote
  adjacent rotation keys with dot ≈ −0.85..−0.999 (the same orientation
  ±5..60°, sign-negated), which an engine interpolating components without a
  shortest-path correction plays as a near-360° spin (clips Dance, Jump,
  Running, WalkJump; mostly ``UpperArm.L``). 4 ``constant-track`` notes (5 channels):
  ``Dance`` ``Body`` translation (81 identical keys), ``Sitting``/``Standing``
  ``Head`` rotation, ``Walking`` ``PoleTarget.L/R`` (IK targets baked but
  never moved).

The expected channel sets are computed INDEPENDENTLY of our loader and checks:
the files are decoded with pygltflib and the constant / hemisphere-flip rules
are re-implemented here with different arithmetic (acos of |dot| instead of the
quaternion-product angle). Only findings of the per-clip checks are pinned
(group and bind-pose checks have their own tests).
"""

from __future__ import annotations

import math
import os
from collections import Counter

import numpy as np
import pytest

from animsmith.config import default_contract
from animsmith.lint import run as run_lint

from conftest import DATA

PER_CLIP_CHECKS = {
    "nan", "time-monotonic", "quat-norm", "quat-flip", "duration-sanity", "constant-track", "fps",
    "loop-seam", "loop-closure", "loop-seam-vel", "loop-seam-rot", "duplicate-loop-endpoint",
    "in-place", "root-motion-speed", "foot-slide", "missing-bones", "required-bones",
}

FILES = ["khr_CesiumMan.glb", "khr_Fox.glb", "khr_RiggedFigure.glb", "three_RobotExpressive.glb"]

PINNED_COUNTS = {
    "khr_CesiumMan.glb": {("constant-track", "note"): 2},
    "khr_Fox.glb": {("constant-track", "note"): 1},
    "khr_RiggedFigure.glb": {("constant-track", "note"): 3},
    "three_RobotExpressive.glb": {("constant-track", "note"): 4, ("quat-flip", "warning"): 7},
}


@pytest.fixture(scope="module")
def lint_result():
    return run_lint([os.path.join(DATA, f) for f in FILES], default_contract())


def _ours(file_result):
    return [f for f in file_result.findings if f.check_id in PER_CLIP_CHECKS]


def _decode_channels(path):
    """[(clip name, bone name, path, times (K,), values (K, C))] via pygltflib (float accessors only)."""
    import pygltflib

    g = pygltflib.GLTF2().load(path)
    blob = g.binary_blob()

    def read(index):
        acc = g.accessors[index]
        assert acc.componentType == 5126 and not acc.normalized
        view = g.bufferViews[acc.bufferView]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc.type]
        assert view.byteStride in (None, 4 * width)
        start = (view.byteOffset or 0) + (acc.byteOffset or 0)
        return np.frombuffer(blob, dtype="<f4", count=acc.count * width, offset=start).reshape(acc.count, width)

    out = []
    for i, anim in enumerate(g.animations):
        name = anim.name or f"animation{i}"
        for ch in anim.channels:
            if ch.target.path not in ("translation", "rotation", "scale"):
                continue
            sampler = anim.samplers[ch.sampler]
            assert sampler.interpolation == "LINEAR"
            bone = g.nodes[ch.target.node].name
            out.append((name, bone, ch.target.path, read(sampler.input)[:, 0], read(sampler.output).astype(np.float64)))
    return out


def _independent_constant(path_kind, values):
    if values.shape[0] < 2:
        return False
    if path_kind == "rotation":
        q = values / np.linalg.norm(values, axis=1, keepdims=True)
        dots = np.clip(np.abs(q @ q[0]), 0.0, 1.0)
        return bool(np.all(2 * np.arccos(dots) <= 1e-3))
    return bool(np.all(np.ptp(values, axis=0) <= 1e-4))


def _independent_flips(values):
    return int(np.sum(np.einsum("ij,ij->i", values[:-1], values[1:]) < 0))


@pytest.mark.parametrize("name", FILES)
def test_corpus_file_reports_pinned_counts(lint_result, name):
    fr = next(f for f in lint_result.files if f.path.endswith(name))
    assert fr.error is None
    assert Counter((f.check_id, f.severity) for f in _ours(fr)) == PINNED_COUNTS[name]
    assert [g for g in fr.coverage_gaps if g.check_id in PER_CLIP_CHECKS] == []  # nothing armed needs a gap


@pytest.mark.parametrize("name", FILES)
def test_corpus_findings_match_independent_decoding(lint_result, name):
    fr = next(f for f in lint_result.files if f.path.endswith(name))
    channels = _decode_channels(os.path.join(DATA, name))
    expected_constant = Counter(
        (clip, bone, kind) for clip, bone, kind, _, v in channels if _independent_constant(kind, v)
    )
    notes = [f for f in _ours(fr) if f.check_id == "constant-track"]
    # one note per clip and channel kind; its members list every constant bone
    got_constant = Counter((f.clip, m["bone"], f.message.split(" track", 1)[0]) for f in notes for m in f.members)
    assert got_constant == expected_constant
    assert len(notes) == len({(clip, kind) for clip, _, kind in expected_constant})
    expected_flips = {(clip, bone): _independent_flips(v) for clip, bone, kind, _, v in channels if kind == "rotation"}
    expected_flips = {k: n for k, n in expected_flips.items() if n}
    got_flips = {(f.clip, f.bone): f.measured for f in _ours(fr) if f.check_id == "quat-flip"}
    assert got_flips == expected_flips
    # every finding names its clip and bone; quat-flip also the time of its first flip
    for f in _ours(fr):
        assert f.clip and (f.bone or (f.check_id == "constant-track" and len(f.members) > 1))
        if f.check_id == "quat-flip":
            assert f.time_s is not None and math.isfinite(f.time_s)


def test_robot_expressive_flip_details(lint_result):
    fr = next(f for f in lint_result.files if f.path.endswith("three_RobotExpressive.glb"))
    flips = {(f.clip, f.bone): f for f in _ours(fr) if f.check_id == "quat-flip"}
    head = flips[("Dance", "Head")]
    # keys 51 -> 52 at 24 fps: the flip is reported at key 52's time
    assert "first between keys 51 and 52" in head.message
    assert head.time_s == pytest.approx(52 / 24, abs=1e-6)
    assert sum(f.measured for f in flips.values()) == 15
