"""Loops whose keys start after 0 s, as Blender (an export range from frame 1: first key at
1/30 s), COLLADA2GLTF (CesiumMan: 1/24 s) and engine exports cut from a longer take (0.5 s)
write them.

A clip's cycle is its keys: shifting every key by the same time changes nothing in the motion
between the first and the last key, so the loop checks must judge a shifted clean loop as
clean and a shifted seam pop as the same pop (metamorphic expectations, the unshifted files
being the reference: tests/core/test_travel_bone.py proves those by hand). What a shift does add
is a hold: a runtime plays from 0 s and clamps before the first key, so the first pose is
held for exactly the shift on every cycle — ``duplicate-loop-endpoint`` says so, once.
"""

from __future__ import annotations

import numpy as np
import pytest

from builders import fbx2gltf_walk
from animsmith.model import Channel
from test_travel_bone import LOOP_ANIMATION, lint_json, loop_findings, write_walks


def shifted(clip, shift_s):
    clip.channels = [
        Channel.make(c.bone, c.path, np.asarray(c.times, np.float64) + shift_s, c.values, interpolation=c.interpolation)
        for c in clip.channels
    ]
    return clip


def hold_findings(doc):
    return [f for f in doc["findings"] if f["check_id"] == "duplicate-loop-endpoint" and "starts at" in f["message"]]


@pytest.mark.parametrize("shift_s", [1 / 30, 1 / 24, 0.5])
def test_a_clean_loop_keyed_late_has_no_seam_and_one_hold_warning(tmp_path, capsys, shift_s):
    path = write_walks(
        tmp_path,
        shifted(fbx2gltf_walk("Walk"), shift_s),
        shifted(fbx2gltf_walk("Open", open_cycle=True, frames=30), shift_s),
        shifted(fbx2gltf_walk("Turn", turn_deg=60.0), shift_s),
    )
    for contract in (LOOP_ANIMATION, '[clips."*"]\nloop = true\nmovement_owner_xz = "gameplay"\n'
                     '[clips.Walk]\nmovement_owner_xz = "animation"\n[clips.Open]\nmovement_owner_xz = "animation"\n'
                     '[clips.Turn]\nmovement_owner_xz = "animation"\n'):
        doc = lint_json(tmp_path, capsys, path, contract)
        assert loop_findings(doc) == [], loop_findings(doc)
        holds = hold_findings(doc)
        assert sorted(f["clip"] for f in holds) == ["Open", "Turn", "Walk"]
        for f in holds:
            assert f["severity"] == "warning"
            assert f["measured"] == pytest.approx(shift_s, abs=1e-6)
            assert f["time_s"] == pytest.approx(shift_s, abs=1e-6)
            assert f"holds the first pose for {shift_s:.3f}s on every cycle" in f["message"]


def test_a_seam_pop_keyed_late_is_the_same_pop(tmp_path, capsys):
    kink = 22.35  # tests/core/test_travel_bone.py: a 3x angular-velocity pop at the wrap
    ref = lint_json(tmp_path, capsys, write_walks(tmp_path, fbx2gltf_walk("Pop", arm_kink_deg=kink), name="ref.glb"),
                    LOOP_ANIMATION)
    late = lint_json(tmp_path, capsys, write_walks(tmp_path, shifted(fbx2gltf_walk("Pop", arm_kink_deg=kink), 0.5),
                                                   name="late.glb"), LOOP_ANIMATION)
    (a,) = [f for f in loop_findings(ref) if f["check_id"] == "loop-seam-rot"]
    (b,) = [f for f in loop_findings(late) if f["check_id"] == "loop-seam-rot"]
    assert b["bone"] == a["bone"] == "mixamorig:LeftArm" and b["severity"] == "error"
    assert b["measured"] == pytest.approx(a["measured"], rel=1e-3)
    assert b["expected"] == pytest.approx(a["expected"], rel=1e-3)
    assert b["time_s"] == pytest.approx(1.5)


def test_a_loop_keyed_from_zero_has_no_hold_warning(tmp_path, capsys):
    doc = lint_json(tmp_path, capsys, write_walks(tmp_path, fbx2gltf_walk("Walk")), LOOP_ANIMATION)
    assert hold_findings(doc) == []
