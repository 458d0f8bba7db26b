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
