"""Numbers computed once and shared give what each computation gives on its own.

* one heading series per clip feeds the speed's arc factor, the net yaw and the loop
  checks' travelling frame: on a quarter-circle walk the shared path gives the analytic
  arc length and exactly the numbers of the stand-alone functions;
* a rig resolved from its skeleton alone is reused for the next file with the same
  skeleton: the same roles and legs as resolving it afresh, and a copy of its own;
* the standing height reads the hips' and feet's chains of the judged grid: the
  hand-computed height, and the full-skeleton pose's number.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.core import legs as legs_mod
from animsmith.core import quat
from animsmith.core.analysis import ClipAnalysis
from animsmith.core.legs import resolve_rig
from animsmith.core.pose import pose_grid
from animsmith.core.seam import loop_continuity
from animsmith.core.trajectory import cycle_transform, root_speed, yaw_accumulation_deg
from animsmith.core.units import standing_height_m
from animsmith.model import Asset, Channel, Clip, Skeleton
from builders import biped_asset, biped_skeleton, gait_clip

RADIUS_M = 2.0
FRAMES = 31
DURATION_S = 1.0


def quarter_circle_walk() -> Clip:
    """The root walks a quarter circle of radius 2 m about (0, 0, 0) from (2, 0, 0) to (0, 0, 2)
    in 1 s, turning with the path: its +Z axis follows the path's tangent, heading 0° (+Z) to
    −90° (−X); feet bob as in builders.gait_clip."""
    base = gait_clip("turn", frames=FRAMES, duration_s=DURATION_S)
    t = np.linspace(0.0, DURATION_S, FRAMES)
    a = (math.pi / 2.0) * t / DURATION_S
    pos = np.stack([RADIUS_M * np.cos(a), np.zeros_like(a), RADIUS_M * np.sin(a)], axis=1)
    # the +Z axis turns from heading 0° (toward +Z) to heading −90° (toward −X): the path's tangent
    rot = quat.from_axis_angle(np.tile([0.0, 1.0, 0.0], (FRAMES, 1)), -a)
    feet = [ch for ch in base.channels if ch.bone != 0]
    return Clip(name="turn", channels=[Channel.make(0, "translation", t, pos), Channel.make(0, "rotation", t, rot)] + feet)


def turning_analysis() -> ClipAnalysis:
    asset = biped_asset([quarter_circle_walk()])
    roles = resolve_rig(asset)
    return ClipAnalysis(asset, asset.clips[0], roles)


def test_shared_heading_gives_the_arc_length_of_a_quarter_circle():
    a = turning_analysis()
    assert a.travel.bone == 0
    yaw, why = a.yaw_deg
    assert why is None and yaw == pytest.approx(-90.0, abs=1e-9)
    # chord 2·√2 m, arc factor (π/4)/sin(π/4): the arc's length π·R/2 over 1 s
    assert a.speed.distance_m == pytest.approx(math.pi * RADIUS_M / 2.0, rel=1e-9)
    assert a.speed.speed_mps == pytest.approx(math.pi * RADIUS_M / 2.0 / DURATION_S, rel=1e-9)


def test_shared_heading_equals_the_stand_alone_functions():
    a = turning_analysis()
    grid, bone = a.grid, a.travel.bone
    alone = root_speed(grid, a.travel)  # computes its own heading series
    shared = a.speed
    assert (shared.distance_m, shared.speed_mps, shared.heading_deg) == (alone.distance_m, alone.speed_mps, alone.heading_deg)
    assert a.yaw_deg == yaw_accumulation_deg(grid, bone)
    for open_cycle in (False, True):
        own, _ = cycle_transform(grid, bone, open_cycle, a.skeleton.parents)
        via, _ = cycle_transform(grid, bone, open_cycle, a.skeleton.parents, a.heading_series)
        assert via.yaw_deg == own.yaw_deg
        assert np.array_equal(via.offset_m, own.offset_m)
    # the loop checks' travelling frame against the stand-alone cycle transform and continuity
    lc = a.loop_continuity_for(True)
    own, _ = cycle_transform(a.loop_grid, bone, lc.open_cycle, a.skeleton.parents)
    assert lc.cycle.yaw_deg == own.yaw_deg and abs(own.yaw_deg) > 80.0
    assert np.array_equal(lc.position_delta_m, loop_continuity(a.loop_grid, own, lc.open_cycle).position_delta_m)


def test_a_rig_is_resolved_once_per_skeleton_and_each_file_gets_its_own_copy():
    legs_mod.RIG_CACHE.clear()
    first = resolve_rig(Asset(skeleton=biped_skeleton(), clips=[gait_clip("a")]))
    assert len(legs_mod.RIG_CACHE) == 1
    second = resolve_rig(Asset(skeleton=biped_skeleton(), clips=[gait_clip("b", offset_cycles=0.25)]))
    assert len(legs_mod.RIG_CACHE) == 1  # the same skeleton: no second entry
    # the hand-known roles of builders.biped_skeleton: Hips 1, feet 2 and 3
    for roles in (first, second):
        assert (roles.get("hips"), roles.get("left_foot"), roles.get("right_foot")) == (1, 2, 3)
        assert [(leg.side, leg.foot) for leg in roles.legs.legs] == [("left", 2), ("right", 3)]
    assert second is not first and second.legs is not first.legs
    second.bones["hips"] = 0  # a caller changing its copy changes nothing for the next file
    second.names["hips"] = "x"
    second.unresolved["root"] = "x"
    second.legs.legs[0].foot = 3
    second.legs.legs.append(second.legs.legs[0])
    second.legs.notes.append("x")
    second.legs.no_legs.append(0)
    third = resolve_rig(Asset(skeleton=biped_skeleton(), clips=[]))
    assert third.get("hips") == 1 and third.names["hips"] == "Hips" and third.unresolved.get("root") != "x"
    assert [(leg.side, leg.foot) for leg in third.legs.legs] == [("left", 2), ("right", 3)]
    assert "x" not in third.legs.notes and 0 not in third.legs.no_legs
    legs_mod.RIG_CACHE.clear()
    assert resolve_rig(Asset(skeleton=biped_skeleton(), clips=[])).to_json() == third.to_json()


def test_another_rest_pose_or_setting_is_another_rig():
    legs_mod.RIG_CACHE.clear()
    resolve_rig(Asset(skeleton=biped_skeleton(), clips=[]))
    moved = Skeleton.build(["root", "Hips", "LeftFoot", "RightFoot"], [-1, 0, 1, 1],
                           [[0, 0, 0], [0, 1.0, 0], [0.2, -0.9, 0], [-0.2, -0.9, 0]])
    resolve_rig(Asset(skeleton=moved, clips=[]))
    resolve_rig(Asset(skeleton=biped_skeleton(), clips=[]), profile="none")
    assert len(legs_mod.RIG_CACHE) == 3
    legs_mod.RIG_CACHE.clear()


def test_legs_found_by_shape_are_not_kept():
    """Names that say nothing: the shape rule reads the clips' first frame and strides, so
    the result belongs to the file, not to the skeleton."""
    legs_mod.RIG_CACHE.clear()
    sk = Skeleton.build(["n0", "n1", "n2", "n3", "n4", "n5"], [-1, 0, 1, 2, 1, 4],
                        [[0, 0, 0], [0, 1.0, 0], [0.1, -0.45, 0], [0, -0.45, 0.05], [-0.1, -0.45, 0], [0, -0.45, 0.05]])
    roles = resolve_rig(Asset(skeleton=sk, clips=[]))
    assert roles.legs.legs and all(leg.found_by == "shape" for leg in roles.legs.legs)
    assert len(legs_mod.RIG_CACHE) == 0


def test_standing_height_from_the_chains_equals_the_full_pose():
    asset = biped_asset([gait_clip("walk")])
    roles = resolve_rig(asset)
    grid = pose_grid(asset.skeleton, asset.clips[0])
    height, why = standing_height_m(grid, roles)
    # hips 1 m above the root; feet 0.9 m below the hips at t = 0 (sin 0 = 0)
    assert why is None and height == pytest.approx(0.9, abs=1e-6)  # keys stored as float32
    full = pose_grid(asset.skeleton, asset.clips[0])
    pos, _ = full.model_pose_at([0])
    y = pos[0, [1, 2, 3], 1]
    assert height == float(y[0] - y[1:].min())
