"""Model-space poses against three.js (r187 AnimationMixer via the `oracles` sampler).

(a) synthetic GLBs written with ``asset_to_glb`` covering LINEAR, STEP and
CUBICSPLINE (translation and rotation, non-zero tangents, uneven key
intervals) under an animated, rotated, scaled non-joint parent; (b) every clip
of every corpus file in tests/data. Positions must agree within 1e-5 of the
file's units (the issue's bound, absolute: corpus worst cases are ~6e-6 on
the centimetre-scale Fox, ~5e-7 elsewhere); synthetic rigs within
1e-5 x max(1, extent of the file's positions); rotations (|dot| ~ 1) are
compared where the model matrix has no shear or non-uniform scale, since
three.js's ``decompose()`` only approximates them there.
"""

import glob
import json
import math
import os
import subprocess

import numpy as np
import pytest

from animsmith.core.pose import sample_pose
from animsmith.io.write import asset_to_glb
from animsmith.model import Asset, Channel, Clip, Skeleton

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = sorted(glob.glob(os.path.join(HERE, "data", "*.glb")))


def three_poses(oracles, path, clip_index, times_s):
    """{node index: (positions (T,3), quaternions (T,4))} from three.js, every default-scene node."""
    cmd = [
        "node", os.path.join(oracles, "sample.mjs"), str(path),
        "--clip", f"#{clip_index}", "--all-nodes", "--rename-nodes",
        "--times", ",".join(repr(float(t)) for t in times_s),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    out = {}
    for node in doc["nodes"]:
        key = node["key"]
        pos = np.array([s["nodes"][key]["position"] for s in doc["samples"]], float)
        quat = np.array([s["nodes"][key]["quaternion"] for s in doc["samples"]], float)
        out[int(node["index"])] = (pos, quat)
    assert [s["t"] for s in doc["samples"]] == pytest.approx(list(times_s), abs=0)
    return out


def rigid_uniform(matrices):
    """(T,4,4) -> (T,) bool: linear part is σ·R with σ > 0 (no shear, uniform scale, no mirror)."""
    lin = matrices[:, :3, :3]
    gram = np.einsum("tki,tkj->tij", lin, lin)
    s2 = np.trace(gram, axis1=1, axis2=2) / 3
    off = np.abs(gram - s2[:, None, None] * np.eye(3)).max(axis=(1, 2))
    return (off <= 1e-6 * s2) & (np.linalg.det(lin) > 0)


def compare_with_three(oracles, path, skeleton, clip, clip_index, times_s, abs_tol=None):
    """Assert our model positions/rotations equal three.js's at ``times_s``; returns max errors.

    Position tolerance: ``abs_tol`` in the file's units when given, else
    1e-5 x max(1, extent of the file's positions).
    """
    ref = three_poses(oracles, path, clip_index, times_s)
    assert ref, "three.js reported no nodes"
    grid = sample_pose(skeleton, clip, times_s)
    extent = max(float(np.abs(p).max()) for p, _ in ref.values())
    tol = abs_tol if abs_tol is not None else 1e-5 * max(1.0, extent)
    worst_pos = worst_rot = 0.0
    for node, (pos, quat) in ref.items():
        b = skeleton.bone_of_node(node)
        ours = grid.model_position_m[:, b]
        err = float(np.abs(ours - pos).max())
        worst_pos = max(worst_pos, err)
        assert err <= tol, f"node {node} ({skeleton.names[b]}): position off by {err:g} (tol {tol:g})"
        ok = rigid_uniform(grid.model_matrix[:, b])
        if ok.any():
            dots = np.abs(np.einsum("ti,ti->t", grid.model_rotation[ok, b], quat[ok] / np.linalg.norm(quat[ok], axis=1, keepdims=True)))
            rot_err = float((1.0 - dots).max())
            worst_rot = max(worst_rot, rot_err)
            assert rot_err < 1e-6, f"node {node} ({skeleton.names[b]}): rotation off (1-|dot| = {rot_err:g})"
    return worst_pos, worst_rot


# ---------------------------------------------------------------- (a) synthetic


def qaxis(axis, deg):
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    h = math.radians(deg) / 2
    return np.array([*(a * math.sin(h)), math.cos(h)])


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ])


def synthetic_asset():
    """A leg under an animated, rotated, scaled non-joint parent; three clips."""
    names = ["Armature", "hips", "thigh", "shin", "foot", "toe", "Z_UP", "prop", "squash", "tip"]
    parents = [-1, 0, 1, 2, 3, 4, -1, 6, 1, 8]
    rest_t = [[0.2, 0, 0.1], [0, 2, 0], [0.3, -0.2, 0], [0, -0.8, 0.05], [0, -0.9, 0],
              [0, -0.05, 0.2], [1, 0, 0], [0, 0, 1.5], [0, 0.5, 0], [0.4, 0.3, -0.2]]
    rest_r = [qaxis([0, 1, 0], 30), qaxis([1, 0, 0], 5), qaxis([0, 0, 1], 10), [0, 0, 0, 1],
              qaxis([1, 0, 0], -20), [0, 0, 0, 1], qaxis([1, 0, 0], -90), [0, 0, 0, 1],
              qaxis([0, 1, 1], 40), [0, 0, 0, 1]]
    rest_s = [[0.5] * 3, [1] * 3, [1] * 3, [1] * 3, [1] * 3, [1] * 3, [1] * 3, [1] * 3, [1, 2.5, 0.6], [1] * 3]
    sk0 = Skeleton.build(names, parents, rest_t, rest_r, rest_s)
    mats = sk0.rest_matrix.copy()
    has_matrix = np.zeros(len(names), bool)
    has_matrix[6] = True  # a Z-up conversion node given as a matrix (rotation + translation)
    is_joint = np.array([False, True, True, True, True, True, False, True, False, True])
    sk = Skeleton.build(names, parents, rest_t, rest_r, rest_s, rest_matrix=mats,
                        has_matrix=has_matrix, is_joint=is_joint)

    fps = 30.0
    t31 = np.arange(31) / fps
    ph = 2 * np.pi * t31
    # LINEAR: hips translation, hips rotation with sign flips between keys,
    # animated non-joint parent rotation, toe rotation with > 90 deg steps.
    hips_t = np.stack([0.1 * np.sin(ph), 2 + 0.05 * np.cos(2 * ph), 0.3 * t31], axis=1)
    hips_r = np.array([qaxis([0, 1, 0], 25 * math.sin(p)) * (-1 if i % 3 == 1 else 1) for i, p in enumerate(ph)])
    arm_r = np.array([qaxis([0, 1, 0], 30 + 40 * tt) for tt in t31])
    toe_t = np.array([0.0, 0.4, 0.5, 1.0])
    toe_r = np.array([qaxis([1, 0, 0], 0), qaxis([1, 0, 0], 120), qaxis([1, 1, 0], 200), qaxis([0, 0, 1], 10)])
    # CUBICSPLINE, uneven intervals, non-zero tangents.
    ct = np.array([0.0, 0.25, 0.7, 1.0])
    thigh_v = np.array([qaxis([1, 0, 0], a) for a in (0, 35, -20, 5)])
    rng = np.random.default_rng(7)
    thigh_in = rng.normal(0, 0.6, (4, 4))
    thigh_out = rng.normal(0, 0.6, (4, 4))
    shin_v = np.array([[0, -0.8, 0.05], [0.1, -0.7, 0.0], [-0.05, -0.85, 0.2], [0, -0.8, 0.05]])
    shin_in = rng.normal(0, 1.0, (4, 3))
    shin_out = rng.normal(0, 1.0, (4, 3))
    # STEP: foot rotation and squash scale (non-uniform) and prop translation.
    st = np.arange(8) / fps * 4  # 0, 4/30, ... float32-rounded when stored
    foot_r = np.array([qaxis([1, 0, 0], -20 + 7 * k) for k in range(8)])
    squash_s = np.array([[1, 1 + 0.2 * k, 1 - 0.05 * k] for k in range(8)])
    prop_t = np.array([[0.1 * k, 0, 1.5 - 0.1 * k] for k in range(8)])

    mixed = Clip("mixed", [
        Channel.make(0, "rotation", t31, arm_r),
        Channel.make(1, "translation", t31, hips_t),
        Channel.make(1, "rotation", t31, hips_r),
        Channel.make(2, "rotation", ct, thigh_v, "CUBICSPLINE", thigh_in, thigh_out),
        Channel.make(3, "translation", ct, shin_v, "CUBICSPLINE", shin_in, shin_out),
        Channel.make(4, "rotation", st, foot_r, "STEP"),
        Channel.make(5, "rotation", toe_t, toe_r),
        Channel.make(8, "scale", st, squash_s, "STEP"),
        Channel.make(7, "translation", st, prop_t, "STEP"),
    ])
    step_only = Clip("step", [
        Channel.make(1, "translation", st, prop_t + [0, 2, 0], "STEP"),
        Channel.make(2, "rotation", st, foot_r, "STEP"),
    ])
    shift = Clip("late_start", [
        Channel.make(1, "translation", ct + 0.5, shin_v, "CUBICSPLINE", shin_in, shin_out),
        Channel.make(4, "rotation", np.array([0.3, 0.9]), [qaxis([0, 0, 1], 0), qaxis([0, 0, 1], -170)]),
    ])
    clips = [mixed, step_only, shift]
    for i, c in enumerate(clips):
        c.index = i
    return Asset(skeleton=sk, clips=clips)


def synthetic_times(clip):
    d = clip.duration_s
    grid = np.linspace(-0.1, d + 0.1, 37)
    keys = np.unique(np.concatenate([ch.times for ch in clip.channels]).astype(np.float64))
    between = (keys[:-1] + keys[1:]) / 2
    # float32 key times as float64: both sides compare equal values (STEP picks that key);
    # k·4/30 in float64 can sit just below its float32 key (STEP still holds key k−1).
    exact = np.arange(8) * 4 / 30
    return np.concatenate([grid, keys, between, exact])


@pytest.fixture(scope="module")
def synthetic_glb(tmp_path_factory):
    asset = synthetic_asset()
    path = tmp_path_factory.mktemp("oracle") / "synthetic.glb"
    path.write_bytes(asset_to_glb(asset))
    return asset, path


@pytest.mark.parametrize("clip_index", [0, 1, 2])
def test_synthetic_clip_matches_threejs(oracles, synthetic_glb, clip_index):
    asset, path = synthetic_glb
    clip = asset.clips[clip_index]
    pos_err, _ = compare_with_three(oracles, path, asset.skeleton, clip, clip_index, synthetic_times(clip))
    assert pos_err < 1e-5


def test_oracle_comparison_catches_unscaled_tangents(oracles, synthetic_glb):
    """Negative control: a sampler that forgets the key interval must fail the comparison."""
    asset, path = synthetic_glb
    clip = asset.clips[0]
    wrong = Clip("wrong", [])
    for ch in clip.channels:
        if ch.interpolation == "CUBICSPLINE":
            seg = np.diff(ch.times.astype(np.float64), append=np.nan)[:, None]
            seg[-1] = 1.0
            prev = np.diff(ch.times.astype(np.float64), prepend=0.0)[:, None]
            prev[0] = 1.0
            ch = Channel.make(ch.bone, ch.path, ch.times, ch.values, "CUBICSPLINE",
                              ch.in_tangents / prev, ch.out_tangents / seg)
        wrong.channels.append(ch)
    with pytest.raises(AssertionError):
        compare_with_three(oracles, path, asset.skeleton, wrong, 0, synthetic_times(clip))


def test_synthetic_glb_round_trips_through_our_loader(oracles, synthetic_glb):
    read = pytest.importorskip("animsmith.io.gltf")
    asset, path = synthetic_glb
    loaded = read.load_asset(str(path))
    for clip in loaded.clips:
        compare_with_three(oracles, path, loaded.skeleton, clip, clip.index, synthetic_times(clip))


# ---------------------------------------------------------------- (b) corpus


def corpus_times(duration_s):
    d = duration_s
    return [-0.05, 0.0, 0.137 * d, 0.5 * d + 0.0123 * min(d, 1.0), 0.7071 * d, 0.9 * d, d, d + 0.25]


@pytest.mark.parametrize("path", CORPUS, ids=[os.path.basename(p) for p in CORPUS])
def test_corpus_file_matches_threejs(oracles, path):
    read = pytest.importorskip("animsmith.io.gltf")
    asset = read.load_asset(path)
    assert asset.clips, "corpus files are animated"
    for clip in asset.clips:
        compare_with_three(oracles, path, asset.skeleton, clip, clip.index, corpus_times(clip.duration_s), abs_tol=1e-5)
