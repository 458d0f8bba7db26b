"""Pure math of the simulator: IK, FABRIK, attitude functions, terrain casts."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from animsmith.sim import attitude as att
from animsmith.sim.ik import KNEE_POLES, REACH_EPSILON_M, fabrik, initial_chain, two_bone
from animsmith.sim.terrain import Terrain, cast_down

# --------------------------------------------------------------------------
# height_offset / tilt_for (the Roblox seed's stated behaviour)
# --------------------------------------------------------------------------


def test_height_offset_empty_is_zero():
    assert att.height_offset([], 6.0) == 0.0


def test_height_offset_averages():
    assert att.height_offset([0.1, 0.3, -0.1], 6.0) == pytest.approx(0.1)


def test_height_offset_clamps_both_ways():
    assert att.height_offset([10.0, 20.0], 6.0) == 6.0
    assert att.height_offset([-10.0], 0.5) == -0.5


def test_tilt_banks_into_lateral_acceleration():
    # facing +Z: right = forward x up = (-1, 0, 0); accelerating toward -X at 2 m/s^2
    bank, pitch = att.tilt_for([-1.0, 0, 0], [0, 0, 0], [0, 0, 1], 0.5, 0.15, 0.1, 12.0)
    assert bank == pytest.approx(2.0 * 0.15)
    assert pitch == 0.0


def test_tilt_zero_pitch_without_forward_acceleration():
    # constant forward speed, lateral change only
    _, pitch = att.tilt_for([0.3, 0, 2.0], [0, 0, 2.0], [0, 0, 1], 0.1, 0.15, 0.1, 12.0)
    assert pitch == 0.0


def test_tilt_pitch_from_forward_acceleration_and_clamp():
    _, pitch = att.tilt_for([0, 0, 1.0], [0, 0, 0], [0, 0, 1], 1.0, 0.15, 0.1, 12.0)
    assert pitch == pytest.approx(-0.1)
    _, hard = att.tilt_for([0, 0, 1000.0], [0, 0, 0], [0, 0, 1], 0.01, 0.15, 0.1, 12.0)
    assert hard == -12.0
    bank, _ = att.tilt_for([1000.0, 0, 0], [0, 0, 0], [0, 0, 1], 0.01, 0.15, 0.1, 12.0)
    assert bank == -12.0


def test_tilt_zero_for_zero_facing_or_bad_dt():
    assert att.tilt_for([0, 0, 0], [0, 0, 0], [0, 0, 0], 0.1, 0.15, 0.1, 12) == (0.0, 0.0)
    assert att.tilt_for([5, 0, 0], [0, 0, 0], [0, 1, 0], 0.1, 0.15, 0.1, 12) == (0.0, 0.0)  # facing straight up: no flat facing
    assert att.tilt_for([5, 0, 5], [0, 0, 0], [0, 0, 1], 0.0, 0.15, 0.1, 12) == (0.0, 0.0)
    assert att.tilt_for([5, 0, 5], [0, 0, 0], [0, 0, 1], -0.1, 0.15, 0.1, 12) == (0.0, 0.0)


def test_tilt_sign_flips_left_right():
    left, _ = att.tilt_for([1.0, 0, 0], [0, 0, 0], [0, 0, 1], 0.1, 0.15, 0.1, 12)
    right, _ = att.tilt_for([-1.0, 0, 0], [0, 0, 0], [0, 0, 1], 0.1, 0.15, 0.1, 12)
    assert left == -right and left != 0.0


def test_tilt_batch_matches_scalar():
    rng = np.random.default_rng(3)
    v, lv, f = rng.normal(size=(20, 3)), rng.normal(size=(20, 3)), rng.normal(size=(20, 3))
    dt = rng.uniform(-0.05, 0.2, size=20)
    got = att.tilt_for_batch(v, lv, f, dt, 0.15, 0.1, 12.0)
    for i in range(20):
        assert tuple(got[i]) == pytest.approx(att.tilt_for(v[i], lv[i], f[i], dt[i], 0.15, 0.1, 12.0))


# --------------------------------------------------------------------------
# smoothing, fades, springs, root composition
# --------------------------------------------------------------------------


def test_exp_approach_never_overshoots():
    assert att.exp_approach(0.0, 1.0, 6.0, 1 / 60) == pytest.approx(0.1)
    assert att.exp_approach(0.0, 1.0, 6.0, 1.0) == 1.0  # dt*rate >= 1 snaps, no overshoot


def test_fade_weight_linear_over_plant_smoothing():
    w = att.fade_weight(0.0, 1.0, 0.1, 0.05)
    assert w == pytest.approx(0.5)
    assert att.fade_weight(w, 1.0, 0.1, 0.2) == 1.0
    assert att.fade_weight(1.0, 0.0, 0.1, 0.025) == pytest.approx(0.75)


def test_critical_spring_matches_closed_form_and_does_not_overshoot():
    omega, x, v = 5.0, np.array(1.0), np.array(0.0)
    xs = []
    for _ in range(200):
        x, v = att.critical_spring_step(x, v, 0.0, omega, 0.01)
        xs.append(float(x))
    t = 2.0
    assert xs[-1] == pytest.approx((1 + omega * t) * math.exp(-omega * t), rel=1e-9)
    assert min(xs) > 0.0 and all(a >= b for a, b in zip(xs, xs[1:]))


def test_root_composer_never_accumulates():
    base = np.eye(4)
    base[0, 3] = 0.25
    off = att.offset_matrix(0.1, 3.0, -2.0)
    comp = att.RootComposer()
    live = base.copy()
    for _ in range(60):
        live = comp.compose(live, off)  # nothing else writes the joint
    assert np.allclose(live, off @ base, atol=1e-15)
    # hand-computed: T(0, 0.1, 0)·Rx(3°)·Rz(−2°) applied once to the point (0.25, 0, 0)
    p, r = math.radians(3.0), math.radians(-2.0)
    expect = [0.25 * math.cos(r), 0.1 + 0.25 * math.cos(p) * math.sin(r), 0.25 * math.sin(p) * math.sin(r)]
    assert np.allclose(live[:3, 3], expect, atol=1e-15)
    # an animator writes a fresh base: the offset applies once on top of it
    animated = np.eye(4)
    animated[2, 3] = 1.0
    out = comp.compose(animated, off)
    assert np.allclose(out, off @ animated)


def test_plane_normal_of_tilted_plane():
    rng = np.random.default_rng(1)
    xz = rng.uniform(-1, 1, size=(5, 2))
    y = 0.2 * xz[:, 0] - 0.1 * xz[:, 1] + 3.0
    pts = np.stack([xz[:, 0], y, xz[:, 1]], axis=1)
    n = att.plane_normal(pts)
    expect = np.array([-0.2, 1.0, 0.1]) / np.linalg.norm([-0.2, 1.0, 0.1])
    assert np.allclose(n, expect)
    nb, ok = att.plane_normals_batch(pts[None], np.ones((1, 5)))
    assert ok[0] and np.allclose(nb[0], expect)
    pitch, roll = att.pitch_roll_from_normal(n)
    assert np.allclose(att.rotation_xz(pitch, roll) @ [0, 1, 0], expect)


# --------------------------------------------------------------------------
# two-bone IK
# --------------------------------------------------------------------------


def test_two_bone_right_angle_knee():
    # L1 = L2 = 1, D = sqrt(2): hip angle 45 deg, knee interior 90 deg
    s = two_bone([0, 0, 0], [0, -math.sqrt(2), 0], 1.0, 1.0, KNEE_POLES["forward"])
    assert s.knee_angle_rad == pytest.approx(math.pi / 2)
    assert s.hip_angle_rad == pytest.approx(math.pi / 4)
    # knee bends forward (+Z) and sits at (0, -sqrt(2)/2, sqrt(2)/2)
    assert np.allclose(s.knee_m, [0, -math.sqrt(0.5), math.sqrt(0.5)])
    assert np.allclose(s.foot_m, [0, -math.sqrt(2), 0])
    back = two_bone([0, 0, 0], [0, -math.sqrt(2), 0], 1.0, 1.0, KNEE_POLES["back"])
    assert back.knee_m[2] == pytest.approx(-math.sqrt(0.5))


def test_two_bone_up_knee_rises():
    s = two_bone([0, 0, 0], [0.6, -0.3, 0.0], 0.4, 0.5, KNEE_POLES["up"])
    # the knee lies above the hip->foot line
    line_y_at_knee_x = -0.3 * s.knee_m[0] / 0.6
    assert s.knee_m[1] > line_y_at_knee_x


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-2, 2, allow_nan=False), min_size=3, max_size=3),
    st.floats(0.1, 1.0),
    st.floats(0.1, 1.0),
    st.sampled_from(["forward", "back", "up"]),
)
# pole almost parallel to the leg: the bending-plane axis must stay ⟂ the leg
@example(target=[0.0, 1.375, 5.960464477539063e-08], l1=1.0, l2=1.0, knee="up")
def test_two_bone_reaches_reachable_targets_exactly_and_never_nan(target, l1, l2, knee):
    target = np.array(target)
    s = two_bone(np.zeros(3), target, l1, l2, KNEE_POLES[knee])
    assert np.all(np.isfinite(s.knee_m)) and np.all(np.isfinite(s.foot_m))
    assert np.linalg.norm(s.knee_m) == pytest.approx(l1, abs=1e-9)
    assert np.linalg.norm(s.foot_m - s.knee_m) == pytest.approx(l2, abs=1e-9)
    d = np.linalg.norm(target)
    if abs(l1 - l2) + REACH_EPSILON_M <= d <= l1 + l2 - REACH_EPSILON_M:
        assert np.allclose(s.foot_m, target, atol=1e-9)
        assert s.shortfall_m == pytest.approx(0.0, abs=1e-12)


def test_two_bone_unreachable_straightens_toward_target():
    s = two_bone([0, 0, 0], [0, -10.0, 0], 0.45, 0.45, KNEE_POLES["forward"])
    assert np.all(np.isfinite(s.knee_m))
    assert np.allclose(s.foot_m, [0, -(0.9 - REACH_EPSILON_M), 0])
    assert s.shortfall_m == pytest.approx(10.0 - 0.9 + REACH_EPSILON_M)
    assert s.worst_shortfall_m == pytest.approx(10.0 - 0.9)
    at_hip = two_bone([0, 0, 0], [0, 0, 0], 0.45, 0.45, KNEE_POLES["back"])
    assert np.all(np.isfinite(at_hip.foot_m)) and np.all(np.isfinite(at_hip.knee_m))


def test_two_bone_is_batched():
    rng = np.random.default_rng(0)
    hips = rng.normal(size=(7, 4, 3))
    tg = hips + rng.normal(size=(7, 4, 3)) * 0.3
    s = two_bone(hips, tg, 0.4, 0.5, (0, 0, 1))
    assert s.knee_m.shape == (7, 4, 3) and s.shortfall_m.shape == (7, 4)
    one = two_bone(hips[3, 2], tg[3, 2], 0.4, 0.5, (0, 0, 1))
    assert np.allclose(one.knee_m, s.knee_m[3, 2])


# --------------------------------------------------------------------------
# FABRIK
# --------------------------------------------------------------------------


def test_fabrik_reachable_residual_under_a_tenth_of_a_millimetre():
    rng = np.random.default_rng(7)
    m = 500
    lengths = np.array([0.04, 0.05, 0.06])
    root = rng.normal(size=(m, 3))
    direction = rng.normal(size=(m, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    tg = root + direction * rng.uniform(0.03, 0.145, size=(m, 1))
    sol = fabrik(initial_chain(root, tg, lengths, (0, 1, 0)), lengths, tg, tolerance_m=1e-5, max_iterations=64)
    assert np.all(sol.reachable)
    assert sol.residual_m.max() <= 1e-4
    seg = np.linalg.norm(np.diff(sol.points_m, axis=1), axis=-1)
    assert np.allclose(seg, lengths, atol=1e-12)
    assert np.array_equal(sol.points_m[:, 0], root)


def test_fabrik_unreachable_is_straight_and_finite():
    lengths = np.array([0.1, 0.2, 0.3])
    root = np.zeros((1, 3))
    tg = np.array([[3.0, 4.0, 0.0]])
    sol = fabrik(initial_chain(root, tg, lengths, (0, 1, 0)), lengths, tg)
    assert not sol.reachable[0]
    expect = np.outer([0.0, 0.1, 0.3, 0.6], [0.6, 0.8, 0.0])
    assert np.allclose(sol.points_m[0], expect)
    assert sol.residual_m[0] == pytest.approx(5.0 - 0.6)


def test_fabrik_bends_toward_the_pole():
    lengths = np.array([0.05, 0.05, 0.05])
    root = np.zeros((1, 3))
    tg = np.array([[0.1, -0.02, 0.0]])
    sol = fabrik(initial_chain(root, tg, lengths, (0, 1, 0)), lengths, tg)
    assert sol.residual_m[0] <= 1e-5
    mid = sol.points_m[0, 1:3]
    line_y = -0.02 * mid[:, 0] / 0.1
    assert np.all(mid[:, 1] > line_y)  # joints above the root->target line: knees up
    assert np.allclose(sol.points_m[0, :, 2], 0.0)  # stays in the pole plane


# --------------------------------------------------------------------------
# terrain casts
# --------------------------------------------------------------------------


def test_terrains_and_casts():
    slope = Terrain("slope", 1.0)
    assert float(slope.height_m(0.3, 2.0)) == pytest.approx(2.0 * math.tan(math.radians(8.0)))
    steps = Terrain("steps", 1.0)
    assert float(steps.height_m(0.0, 1.6)) == pytest.approx(0.06)
    assert float(steps.height_m(0.0, 1.4)) == 0.0
    holed = Terrain("flat", 1.0, holes=[(-1, 1, 2, 3)])
    got = cast_down(holed, np.array([[0, 0.5, 1.0], [0, 0.5, 2.5], [0, 5.0, 1.0]]), 1.0, 2.0)
    assert got[0] == 0.0
    assert math.isnan(got[1])  # hole: no ground
    assert math.isnan(got[2])  # ground 5 m below the point, the ray reaches only 2 m
