"""Root speed, heading, yaw and loop continuity on hand-built pose grids."""

import math

import numpy as np
import pytest

from animsmith.core import quat
from animsmith.core.roles import RoleMap
from animsmith.core.seam import loop_continuity
from animsmith.core.trajectory import TravelBone, root_speed, travel_bone_of_clip, yaw_accumulation_deg
from animsmith.model import Channel, Clip, PoseGrid, Skeleton


def grid_of(positions, rotations=None, times=None):
    p = np.asarray(positions, float)
    n, b = p.shape[:2]
    t = np.linspace(0.0, 1.0, n) if times is None else np.asarray(times, float)
    if rotations is None:
        rotations = np.zeros((n, b, 4))
        rotations[..., 3] = 1.0
    r = np.asarray(rotations, float)
    return PoseGrid(
        times_s=t,
        local_translation=p,
        local_rotation=r,
        local_scale=np.ones((n, b, 3)),
        model_matrix=np.tile(np.eye(4), (n, b, 1, 1)),
        model_position_m=p,
        model_rotation=r,
        duration_s=float(t[-1]),
    )


ROOT_HIPS = TravelBone(0, "Root", "root", "root 'Root' is the highest node above the hips this clip animates")
HIPS_ONLY = TravelBone(1, "Hips", "hips", "no node above the hips is animated in this clip; using hips")
NO_TRAVEL = TravelBone(None, None, None, "neither root nor hips role resolved")


def straight_line(velocity, n=31, duration=1.5):
    t = np.linspace(0, duration, n)
    p = np.zeros((n, 2, 3))
    p[:, 0] = np.outer(t, velocity)
    p[:, 1] = p[:, 0] + [0, 1.0, 0]
    return grid_of(p, times=t)


CHAIN = Skeleton.build(["RootNode", "Armature", "Hips", "Foot"], [-1, 0, 1, 2], [[0, 0, 0], [0, 0, 0], [0, 1, 0], [0, -1, 0]])
CHAIN_ROLES = RoleMap(profile="t", bones={"root": 0, "hips": 2}, names={"root": "RootNode", "hips": "Hips"})


def _clip_animating(*bones, path="translation", static=()):
    t = np.array([0.0, 0.5, 1.0])
    chans = []
    for b in bones:
        v = np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2]], float) if path == "translation" else quat.from_axis_angle(
            np.tile([0.0, 1.0, 0.0], (3, 1)), np.radians([0.0, 10.0, 20.0]))
        chans.append(Channel.make(b, path, t, v))
    for b in static:  # a channel that holds one value (float noise of 1e-7 included)
        chans.append(Channel.make(b, "translation", t, np.array([[0, 0, 0], [1e-7, 0, 0], [0, 0, 0]], float)))
    return Clip(name="c", channels=chans)


def test_travel_bone_is_the_highest_animated_node_above_the_hips():
    # nothing above the hips animated: the hips, and a static root role never travels
    tb = travel_bone_of_clip(CHAIN, _clip_animating(2, static=(0, 1)), CHAIN_ROLES)
    assert (tb.bone, tb.name, tb.role) == (2, "Hips", "hips")
    assert tb.reason == "root 'RootNode' is not animated in this clip; using hips"
    # an animated container between them wins over the hips (rotation counts too)
    tb = travel_bone_of_clip(CHAIN, _clip_animating(1, path="rotation"), CHAIN_ROLES)
    assert (tb.bone, tb.role) == (1, "ancestor") and "root 'RootNode' is not animated" in tb.reason
    # the animated root itself
    tb = travel_bone_of_clip(CHAIN, _clip_animating(0, 2), CHAIN_ROLES)
    assert (tb.bone, tb.name, tb.role) == (0, "RootNode", "root")
    # per clip: another clip of the same rig that animates nothing above the hips uses the hips
    assert travel_bone_of_clip(CHAIN, _clip_animating(2), CHAIN_ROLES).bone == 2
    # no roles at all
    tb = travel_bone_of_clip(CHAIN, _clip_animating(0), RoleMap())
    assert tb.bone is None and "root" in tb.reason


def test_a_node_travels_when_either_its_translation_or_its_rotation_animates():
    t = np.array([0.0, 0.5, 1.0])
    turn = quat.from_axis_angle(np.tile([0.0, 1.0, 0.0], (3, 1)), np.radians([0.0, 10.0, 20.0]))
    noise = np.array([[0, 0, 0], [1e-7, 0, 0], [0, 0, 0]], float)  # one value, float noise on it
    walk = np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2]], float)
    hold = np.tile([0.0, 0.0, 0.0, 1.0], (3, 1))

    def clip(bone, translation, rotation):
        chans = [Channel.make(bone, "translation", t, translation), Channel.make(bone, "rotation", t, rotation)]
        return Clip(name="c", channels=chans + [Channel.make(2, "translation", t, walk)])

    # the Armature (1) turns with a still translation, walks with a still rotation, or does neither
    assert travel_bone_of_clip(CHAIN, clip(1, noise, turn), CHAIN_ROLES).bone == 1
    assert travel_bone_of_clip(CHAIN, clip(1, walk, hold), CHAIN_ROLES).bone == 1
    assert travel_bone_of_clip(CHAIN, clip(1, noise, hold), CHAIN_ROLES).bone == 2
    # without a hips role the root role's bone travels when it turns in place
    roles = RoleMap(profile="t", bones={"root": 0}, names={"root": "RootNode"})
    tb = travel_bone_of_clip(CHAIN, clip(0, noise, turn), roles)
    assert (tb.bone, tb.role) == (0, "root")
    assert travel_bone_of_clip(CHAIN, clip(0, noise, hold), roles).bone is None


def test_root_moving_plus_x_at_2mps_heads_90():
    s = root_speed(straight_line([2.0, 0.0, 0.0]), ROOT_HIPS)
    assert s.speed_mps == pytest.approx(2.0)
    assert s.heading_deg == pytest.approx(90.0)
    assert s.distance_m == pytest.approx(3.0)
    assert s.duration_s == pytest.approx(1.5)
    assert s.travel_bone == "Root" and s.source_role == "root"


@pytest.mark.parametrize(
    "vel,heading",
    [([0, 0, 1.0], 0.0), ([-1.0, 0, 0], -90.0), ([0, 0, -1.0], 180.0), ([1.0, 0, 1.0], 45.0)],
)
def test_heading_convention(vel, heading):
    s = root_speed(straight_line(vel), ROOT_HIPS)
    assert s.heading_deg == pytest.approx(heading)
    assert s.speed_mps == pytest.approx(math.hypot(vel[0], vel[2]))


def test_vertical_motion_is_not_speed_and_in_place_has_no_heading():
    s = root_speed(straight_line([0, 3.0, 0]), HIPS_ONLY)
    assert s.speed_mps == 0.0 and s.source_role == "hips"
    assert s.heading_deg is None and "in place" in s.heading_deg_unavailable


def test_no_travel_bone_reason():
    s = root_speed(straight_line([1, 0, 0]), NO_TRAVEL)
    assert s.speed_mps is None and "root" in s.speed_mps_unavailable


def yaw_grid(angles_deg, axis=(0, 1, 0)):
    a = np.radians(np.asarray(angles_deg, float))
    q = quat.from_axis_angle(np.tile(axis, (len(a), 1)), a)[:, None, :]
    return grid_of(np.zeros((len(a), 1, 3)), q)


def test_yaw_counts_full_turns():
    # a bone spinning 2 full turns about +Y in 10° steps
    g = yaw_grid(np.arange(0, 721, 10))
    yaw, why = yaw_accumulation_deg(g, 0)
    assert why is None and yaw == pytest.approx(720.0)
    g2 = yaw_grid(np.linspace(0, -30, 7))
    assert yaw_accumulation_deg(g2, 0)[0] == pytest.approx(-30.0)


def test_yaw_uses_y_axis_when_bone_lies_down():
    # a Z-up style bone: rotated -90° about X, so local +Z points down (-Y)... its +Y
    # axis is horizontal along +Z; then turning about model Y by 40°
    base = quat.from_axis_angle(np.array([1.0, 0, 0]), np.radians(90.0))
    turns = quat.from_axis_angle(np.tile([0, 1.0, 0], (5, 1)), np.radians(np.linspace(0, 40, 5)))
    q = quat.multiply(turns, np.broadcast_to(base, turns.shape))[:, None, :]
    yaw, why = yaw_accumulation_deg(grid_of(np.zeros((5, 1, 3)), q), 0)
    assert why is None and yaw == pytest.approx(40.0)


def test_yaw_refuses_when_projection_is_lost():
    # the bone pitches so every axis... here: tilt local +Z from horizontal to vertical
    a = np.radians(np.linspace(0, 90, 4))
    q = quat.from_axis_angle(np.tile([1.0, 0, 0], (4, 1)), -a)[:, None, :]
    yaw, why = yaw_accumulation_deg(grid_of(np.zeros((4, 1, 3)), q), 0)
    assert yaw is None and "horizontal projection" in why


def test_loop_continuity_reference_example():
    # bone 0: C0 gap 0.01 m along X; bone 1: angular velocity +20°/s about X on the
    # way out and +20°/s about Y on the way in -> |Δω| = 20√2 °/s
    n = 5
    t = np.linspace(0, 1, n)  # dt = 0.25
    p = np.zeros((n, 2, 3))
    p[-1, 0, 0] = 0.01
    r = np.zeros((n, 2, 4))
    r[..., 3] = 1.0
    step = np.radians(20.0 * 0.25)
    r[1, 1] = quat.from_axis_angle(np.array([1.0, 0, 0]), step)
    r[-2, 1] = quat.from_axis_angle(np.array([0, 1.0, 0]), -step)
    lc = loop_continuity(grid_of(p, r, t))
    assert lc.unavailable is None
    assert lc.position_delta_m[0] == pytest.approx(0.01)
    # velocity out 0, in = 0.01 / 0.25 = 0.04 m/s
    assert lc.seam_velocity_delta_mps[0] == pytest.approx(0.04)
    assert lc.rotation_delta_deg[1] == pytest.approx(0.0, abs=1e-9)
    assert lc.seam_angular_velocity_delta_degps[1] == pytest.approx(20.0 * math.sqrt(2), rel=1e-9)
    assert lc.worst("position_delta_m") == (0, pytest.approx(0.01))


def test_rotation_delta_is_shortest_path():
    n = 4
    r = np.zeros((n, 1, 4))
    r[..., 3] = 1.0
    r[-1, 0] = quat.from_axis_angle(np.array([0, 0, 1.0]), np.radians(350.0))
    lc = loop_continuity(grid_of(np.zeros((n, 1, 3)), r))
    assert lc.rotation_delta_deg[0] == pytest.approx(10.0)


def test_loop_continuity_needs_three_samples():
    lc = loop_continuity(grid_of(np.zeros((2, 1, 3))))
    assert lc.position_delta_m is None and "at least 3" in lc.unavailable


def test_speed_is_endpoint_displacement_not_path_length():
    # docs/measure.md: out-and-back measures ~0. Root z 0 -> 1 -> 0 over 1 s: nothing net.
    p = np.zeros((3, 2, 3))
    p[:, 0, 2] = [0.0, 1.0, 0.0]
    s = root_speed(grid_of(p), ROOT_HIPS)
    assert (s.speed_mps, s.distance_m) == (0.0, 0.0)
    assert s.heading_deg is None and "in place" in s.heading_deg_unavailable
    # an L: +1 m along x, then +1 m along z (path 2 m): displacement (1, 1) -> √2 m, atan2(1, 1) = 45°
    p = np.zeros((3, 2, 3))
    p[1:, 0, 0] = 1.0
    p[2, 0, 2] = 1.0
    s = root_speed(grid_of(p), ROOT_HIPS)
    assert s.distance_m == pytest.approx(math.sqrt(2), rel=1e-12)
    assert s.speed_mps == pytest.approx(math.sqrt(2), rel=1e-12)  # over 1 s
    assert s.heading_deg == pytest.approx(45.0, abs=1e-12)


def test_a_180_degree_step_is_refused_179_9_is_measured():
    # docs/measure.md: null when an adjacent step is within 1e-4° of 180 (its direction is ambiguous)
    yaw, why = yaw_accumulation_deg(yaw_grid([0.0, 180.0]), 0)
    assert yaw is None and "180°" in why and "ambiguous" in why
    yaw, why = yaw_accumulation_deg(yaw_grid([0.0, 180.0 - 5e-5]), 0)
    assert yaw is None and "ambiguous" in why
    yaw, why = yaw_accumulation_deg(yaw_grid([0.0, 179.9]), 0)
    assert why is None and yaw == pytest.approx(179.9, abs=1e-9)
    yaw, why = yaw_accumulation_deg(yaw_grid([0.0, -179.9]), 0)
    assert why is None and yaw == pytest.approx(-179.9, abs=1e-9)


@pytest.mark.parametrize("origin_x", [0.0, 1000.0])
def test_heading_noise_floor_scales_with_the_endpoint_coordinates(origin_x):
    # docs/measure.md: no heading when the distance is at most 1e-6 × max(1, largest endpoint
    # coordinate): 1e-6 m at the origin, 1e-3 m for a root standing 1 km out on x
    floor = 1e-6 * max(1.0, origin_x)
    for step, has_heading in ((0.5 * floor, False), (2 * floor, True)):
        p = np.zeros((3, 2, 3))
        p[:, 0, 0] = origin_x
        p[-1, 0, 2] = step  # +Z: heading 0
        s = root_speed(grid_of(p), ROOT_HIPS)
        assert s.distance_m == pytest.approx(step, rel=1e-9)
        if has_heading:
            assert s.heading_deg == pytest.approx(0.0, abs=1e-9)
        else:
            assert s.heading_deg is None and "in place" in s.heading_deg_unavailable


def test_travelling_frame_removes_the_walk_and_keeps_the_step():
    """Bone 0 a static container, bone 1 (the travel bone) walks +X 0.1 m per sample, bone 2
    rides 1 m above it. Open cycle: the next cycle starts one more step on (offset 0.3 + 0.1),
    so the wrap of bones 1 and 2 is an ordinary 0.1 m step at the walking velocity; bone 0
    does not travel and stays put."""
    from animsmith.core.trajectory import cycle_transform

    n = 4
    t = np.linspace(0.0, 0.3, n)  # dt = 0.1 s: 1 m/s
    p = np.zeros((n, 3, 3))
    p[:, 1, 0] = 0.1 * np.arange(n)
    p[:, 2] = p[:, 1] + [0.0, 1.0, 0.0]
    g = grid_of(p, times=t)
    parents = [-1, 0, 1]
    cyc, why = cycle_transform(g, 1, open_cycle=True, parents=parents)
    assert why is None and cyc.yaw_deg == 0.0
    assert cyc.offset_m == pytest.approx([0.4, 0.0, 0.0])
    assert list(cyc.moves) == [False, True, True]
    lc = loop_continuity(g, cyc, open_cycle=True)
    assert lc.position_delta_m == pytest.approx([0.0, 0.1, 0.1])
    assert lc.neighbour_step_m == pytest.approx([0.0, 0.1, 0.1])
    assert lc.seam_velocity_delta_mps == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
    # in model space the same open cycle wraps 0.3 m back: −3 m/s after +1 m/s steps
    plain = loop_continuity(g, None, open_cycle=True)
    assert plain.position_delta_m == pytest.approx([0.0, 0.3, 0.3])
    assert plain.seam_velocity_delta_mps == pytest.approx([0.0, 4.0, 4.0])
    # closed (the last sample is the next cycle's first): no step is added
    closed, _ = cycle_transform(g, 1, open_cycle=False, parents=parents)
    assert closed.offset_m == pytest.approx([0.3, 0.0, 0.0])
    assert loop_continuity(g, closed).position_delta_m == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)
