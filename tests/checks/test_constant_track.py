"""constant-track: one note per clip and channel kind, listing the bones; JSON keeps every bone.

A rig shaped like an exporter that baked every bone: 12 bones, each with a constant
translation, a constant scale and a rotation; rotations move on bones 0-3 and stay on 4-11.
Expected by hand: translation 12 bones, rotation 8 bones (4..11), scale 12 bones.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton
from checks_support import run_check
from transform_builders import run_cli
import math
from mechanical_clips import yrot, make_asset

NAMES = [f"bone{i:02d}" for i in range(12)]


def baked_asset() -> Asset:
    sk = Skeleton.build(NAMES, [-1] + list(range(11)), [[0, 0.1, 0]] * 12)
    t = [0.0, 0.5, 1.0]
    chans = []
    for b in range(12):
        chans.append(Channel.make(b, "translation", t, [[0, 0.1, 0]] * 3))
        a = 0.3 * (b < 4)
        q = [[0, 0, 0, 1], [np.sin(a / 2), 0, 0, np.cos(a / 2)], [0, 0, 0, 1]]
        chans.append(Channel.make(b, "rotation", t, q))
        chans.append(Channel.make(b, "scale", t, [[1, 1, 1]] * 3))
    return Asset(skeleton=sk, clips=[Clip(name="idle", channels=chans)])


def test_one_note_per_channel_kind_listing_the_bones():
    findings, gaps = run_check("constant-track", baked_asset())
    assert gaps == []
    assert [f.message.split(" tracks")[0] for f in findings] == ["translation", "rotation", "scale"]
    tr, rot, sc = findings
    assert tr.message == (
        "translation tracks of 12 bones have 3 keys but never move — export bloat: "
        "bone00, bone01, bone02, bone03, bone04, … +7 more"
    )
    assert rot.message.endswith("bone04, bone05, bone06, bone07, bone08, … +3 more")
    assert [m["bone"] for m in tr.members] == NAMES
    assert [m["bone"] for m in rot.members] == NAMES[4:]
    assert all(m["keys"] == 3 and m["measured"] == 0.0 for f in findings for m in f.members)
    assert tr.bone is None and tr.clip == "idle" and tr.expected == "> 0.0001 m"


def test_a_single_constant_channel_keeps_its_bone():
    sk = Skeleton.build(["hips", "spine"], [-1, 0])
    t = [0.0, 1.0]
    asset = Asset(skeleton=sk, clips=[Clip(name="c", channels=[
        Channel.make(1, "rotation", t, [[0, 0, 0, 1]] * 2),
        Channel.make(0, "rotation", t, [[0, 0, 0, 1], [0, 0.1, 0, 0.995]]),
    ])])
    (f,) = run_check("constant-track", asset)[0]
    assert f.bone == "spine" and f.message == "rotation track has 2 keys but never moves — export bloat"
    assert f.members == [{"bone": "spine", "keys": 2, "measured": 0.0}]


def test_json_keeps_every_bone(tmp_path, capsys):
    from animsmith.io.write import write_glb

    path = str(tmp_path / "baked.glb")
    write_glb(baked_asset(), path)
    rc, out, err = run_cli(capsys, "lint", path, "--format", "json")
    notes = [f for f in json.loads(out)["files"][0]["findings"] if f["check_id"] == "constant-track"]
    assert len(notes) == 3
    assert sorted(len(f["members"]) for f in notes) == [8, 12, 12]
    assert {m["bone"] for f in notes for m in f["members"]} == set(NAMES)
    rc, text, err = run_cli(capsys, "lint", path)
    assert text.count("note[constant-track]") == 3 and "… +7 more" in text


def test_translation_ranges_are_judged_in_metres():
    """A bone under an Armature scaled 0.01: a range of 0.005 units is 0.05 mm (constant, within the
    0.1 mm default); 0.02 units is 0.2 mm (moves). A root-level bone on a rig declared in
    centimetres: the same 0.005 units is constant, and without the setting 5 mm moves."""
    t = [0.0, 0.5, 1.0]

    def asset(span, scale, units=1.0):
        sk = Skeleton.build(["Armature", "hips"], [-1, 0], [[0, 0, 0], [0, 100, 0]], None, [[scale] * 3, [1, 1, 1]])
        ch = Channel.make(1, "translation", t, [[0, 100, 0], [span, 100, 0], [0, 100, 0]])
        return Asset(skeleton=sk, clips=[Clip(name="c", channels=[ch])]).in_units(units)

    (note,) = run_check("constant-track", asset(0.005, 0.01))[0]
    assert note.bone == "hips" and note.measured == pytest.approx(float(np.float32(0.005)) * 0.01, rel=1e-12)
    assert run_check("constant-track", asset(0.02, 0.01))[0] == []
    assert len(run_check("constant-track", asset(0.005, 1.0, units=0.01))[0]) == 1
    assert run_check("constant-track", asset(0.005, 1.0))[0] == []  # 5 mm as metres: it moves


def test_constant_translation_and_rotation_notes():
    tv = [[0, 1, 0]] * 3
    findings, _ = run_check("constant-track", make_asset(tr_values=tv))
    assert [(f.severity, f.bone) for f in findings] == [("note", "hips")]
    assert "translation track has 3 keys but never moves" in findings[0].message
    findings, _ = run_check("constant-track", make_asset(rot_values=yrot([0.3, 0.3, 0.3])))
    assert [f.bone for f in findings] == ["spine"]


def test_constant_vector_threshold_exact():
    eps = 2.0**-13
    at = [[0, 1, 0], [0, 1 + 0, eps], [0, 1, 0]]
    assert len(run_check("constant-track", make_asset(tr_values=at), options={"vector_epsilon": eps})[0]) == 1
    past = [[0, 1, 0], [0, 1, eps + 2.0**-30], [0, 1, 0]]
    assert run_check("constant-track", make_asset(tr_values=past), options={"vector_epsilon": eps})[0] == []


def test_constant_rotation_threshold_default():
    # within 1e-3 rad of key 0 (0.9e-3) is constant; 1.1e-3 moves
    assert len(run_check("constant-track", make_asset(rot_values=yrot([0.0, 0.9e-3, 0.0])))[0]) == 1
    assert run_check("constant-track", make_asset(rot_values=yrot([0.0, 1.1e-3, 0.0])))[0] == []
    # sign-invariant: q and -q are the same orientation
    q = yrot([0.2, 0.2, 0.2])
    q[1] = -q[1]
    assert len(run_check("constant-track", make_asset(rot_values=q))[0]) == 1


def test_cubic_flat_keys_with_tangents_move():
    ch = Channel.make(0, "scale", [0, 1], [[1, 1, 1], [1, 1, 1]], interpolation="CUBICSPLINE",
                      out_tangents=[[0, 0.5, 0], [0, 0, 0]])
    assert run_check("constant-track", make_asset(extra=[ch]))[0] == []
    flat = Channel.make(0, "scale", [0, 1], [[1, 1, 1], [1, 1, 1]], interpolation="CUBICSPLINE")
    assert len(run_check("constant-track", make_asset(extra=[flat]))[0]) == 1


def test_single_key_track_is_not_constant_track():
    one = Channel.make(1, "scale", [0.0], [[1, 1, 1]])
    assert run_check("constant-track", make_asset(extra=[one]))[0] == []


def stored_angle_rad(q):
    """Angle between two float32-stored quaternions, by an independent formula:
    2·atan2(|vector part of q̂0*·q̂1|, |scalar part|) in float64 (well conditioned
    for small angles, unlike acos near 1)."""
    a, b = (np.asarray(x, dtype=np.float32).astype(np.float64) for x in q)
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    w = a[3] * b[3] + a[:3] @ b[:3]
    v = a[3] * b[:3] - b[3] * a[:3] - np.cross(a[:3], b[:3])
    return 2.0 * math.atan2(np.linalg.norm(v), abs(w))


@pytest.mark.parametrize("rel, constant", [(-1e-5, True), (1e-5, False)])
def test_constant_rotation_default_epsilon_within_1e5_relative(rel, constant):
    # the middle key sits 1e-3 rad × (1 ± 1e-5) from key 0: the float32 storage of the
    # keys moves the angle by ~1e-7 relative, far less than the 1e-5 margin
    q = yrot([0.0, 1e-3 * (1 + rel), 0.0])
    angle = stored_angle_rad((q[0], q[1]))
    assert (angle <= 1e-3) == constant  # the stored keys really are on that side
    findings = run_check("constant-track", make_asset(rot_values=q))[0]
    assert [f.bone for f in findings] == (["spine"] if constant else [])
