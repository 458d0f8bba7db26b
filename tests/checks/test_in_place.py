"""in-place: a clip whose root travels against its declared movement owner.

Fixtures: tests/support/treadmill_clips.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from animsmith.model import Channel

from checks_support import run_check
from treadmill_clips import treadmill


def test_in_place_not_armed_without_owner():
    assert run_check("in-place", treadmill(travel_m=2.0), expect={"speed_mps": 2.0}) == ([], [])


def test_in_place_gameplay_but_travelling():
    findings, _ = run_check("in-place", treadmill(travel_m=2.0), expect={"movement_owner_xz": "gameplay"})
    assert len(findings) == 1
    f = findings[0]
    assert (f.clip, f.bone, f.measured, f.expected) == ("run", "pelvis", pytest.approx(2.0), 0.0)
    assert "glide" in f.message
    assert run_check("in-place", treadmill(), expect={"movement_owner_xz": "gameplay"}) == ([], [])


def test_in_place_animation_but_stationary():
    findings, _ = run_check("in-place", treadmill(), expect={"movement_owner_xz": "animation"})
    assert len(findings) == 1 and "run in place" in findings[0].message and findings[0].measured == 0.0
    assert run_check("in-place", treadmill(travel_m=2.0), expect={"movement_owner_xz": "animation"}) == ([], [])


def test_a_slow_root_motion_gait_is_told_about_the_threshold():
    """A root that travels, only slower than the 0.5 m/s threshold (the fox walks at 0.375):
    the message says which option to lower; a root that does not travel gets no such hint."""
    slow, _ = run_check("in-place", treadmill(travel_m=0.375), expect={"movement_owner_xz": "animation"})
    assert len(slow) == 1 and slow[0].measured == pytest.approx(0.375)
    assert "set [checks.in-place] travel_threshold_mps below its speed" in slow[0].message
    still, _ = run_check("in-place", treadmill(travel_m=0.04), expect={"movement_owner_xz": "animation"})
    assert len(still) == 1 and "travel_threshold_mps" not in still[0].message
    lowered, _ = run_check("in-place", treadmill(travel_m=0.375), expect={"movement_owner_xz": "animation"},
                           options={"travel_threshold_mps": 0.1})
    assert lowered == []


def test_in_place_threshold_exact():
    below = float(np.nextafter(np.float32(0.5), np.float32(0)))
    # 0.5 m/s travels (≥), the float32 below does not
    assert len(run_check("in-place", treadmill(travel_m=0.5), expect={"movement_owner_xz": "gameplay"})[0]) == 1
    assert run_check("in-place", treadmill(travel_m=below), expect={"movement_owner_xz": "gameplay"})[0] == []
    assert run_check("in-place", treadmill(travel_m=0.5), expect={"movement_owner_xz": "animation"})[0] == []
    assert len(run_check("in-place", treadmill(travel_m=below), expect={"movement_owner_xz": "animation"})[0]) == 1


def test_in_place_gaps():
    _, gaps = run_check("in-place", treadmill(names=("a", "b", "c")), expect={"movement_owner_xz": "gameplay"})
    assert [(g.code, g.scope, g.subjects) for g in gaps] == [("roles_unresolved", "travel_mode", ["run"])]
    assert "root/hips role not resolved" in gaps[0].message
    # hips translation overflowing float32 range → non-finite displacement
    big = np.finfo(np.float32).max
    asset = treadmill()
    asset.clips[0].channels.append(Channel.make(0, "translation", [0, 1], [[0, 1, -big], [0, 1, big]]))
    findings, gaps = run_check("in-place", asset, expect={"movement_owner_xz": "gameplay"})
    # speed either measures (float64 holds 2·f32max) or is a gap — never a silent pass
    assert len(findings) + len(gaps) == 1
