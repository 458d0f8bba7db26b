"""Stance and foot slide on analytic trajectories (expectations computed by hand)."""

import numpy as np
import pytest

from animsmith.core.contacts import contact_events, foot_slide, stance_mask


def test_stance_mask_relative_to_each_foot_minimum():
    # binary-exact values so the inclusive limit is tested exactly
    h = np.array([[0.25, 1.0], [0.375, 1.5], [0.875, 1.25], [1.0, 2.0]])
    m = stance_mask(h, 0.5)
    # foot 0: minimum 0.25 -> 0.25, 0.375 within 0.5; 0.875 (0.625 above) and 1.0 not
    # foot 1: minimum 1.0 -> 1.0, 1.5 (== limit, inclusive), 1.25 in; 2.0 out
    assert m.tolist() == [[True, True], [True, True], [False, True], [False, False]]


def test_fixed_foot_has_zero_slide():
    n = 31
    t = np.linspace(0, 1, n)
    p = np.zeros((n, 1, 3))
    p[:, 0] = [0.3, 0.0, -0.2]
    fs = foot_slide(p, t)
    assert fs.worst_speed_mps == 0.0
    assert fs.worst_step_m == 0.0
    assert fs.stance.all()


def test_foot_moving_2cm_per_frame_is_0_6_mps():
    n = 31
    t = np.arange(n) / 30.0
    p = np.zeros((n, 2, 3))
    p[:, 0, 0] = 0.02 * np.arange(n)  # foot 0 slides along X on the ground
    p[:, 1, 2] = 0.0  # foot 1 planted
    fs = foot_slide(p, t)
    assert fs.worst_foot == 0
    assert fs.worst_speed_mps == pytest.approx(0.6, abs=1e-9)
    assert fs.worst_step_m == pytest.approx(0.02, abs=1e-12)
    assert np.allclose(fs.speed_mps[:, 0], 0.6)
    assert fs.worst_time_s in set(t[1:].tolist())  # the later sample of a pair
    assert np.allclose(fs.speed_mps[:, 1], 0.0)


def test_ground_velocity_is_subtracted():
    # in-place clip: the planted foot sweeps backwards at 1.5 m/s along -Z,
    # i.e. a planted foot SHOULD move with ground velocity (0, 0, -1.5)
    n = 21
    t = np.linspace(0, 1, n)
    p = np.zeros((n, 1, 3))
    p[:, 0, 2] = -1.5 * t
    assert foot_slide(p, t).worst_speed_mps == pytest.approx(1.5)
    fs = foot_slide(p, t, ground_velocity_mps=(0.0, 0.0, -1.5))
    assert fs.worst_speed_mps == pytest.approx(0.0, abs=1e-12)
    # per-sample velocities (N, 3) give the same
    fs2 = foot_slide(p, t, ground_velocity_mps=np.tile([0.0, 0.0, -1.5], (n, 1)))
    assert fs2.worst_speed_mps == pytest.approx(0.0, abs=1e-12)
    # deviation of 0.5 m/s from the expected sweep
    fs3 = foot_slide(p, t, ground_velocity_mps=(0.0, 0.0, -1.0))
    assert fs3.worst_speed_mps == pytest.approx(0.5)


def test_only_pairs_in_stance_at_both_ends_count():
    # foot lifts mid-clip; the swing moves fast but is not judged
    t = np.array([0.0, 0.1, 0.2, 0.3, 0.4])
    p = np.zeros((5, 1, 3))
    p[:, 0, 1] = [0.0, 0.0, 0.2, 0.0, 0.0]
    p[:, 0, 0] = [0.0, 0.01, 0.5, 1.0, 1.0]
    fs = foot_slide(p, t)
    assert fs.stance[:, 0].tolist() == [True, True, False, True, True]
    assert np.isnan(fs.step_m[1, 0]) and np.isnan(fs.step_m[2, 0])
    assert fs.worst_speed_mps == pytest.approx(0.1)  # 0.01 m in 0.1 s
    assert fs.worst_time_s == pytest.approx(0.1)


def test_vertical_motion_counts_only_when_not_horizontal():
    t = np.linspace(0, 1, 11)
    p = np.zeros((11, 1, 3))
    p[:, 0, 1] = 0.02 * t  # rises 2 cm over the clip: still within contact height
    assert foot_slide(p, t).worst_speed_mps == pytest.approx(0.0)
    assert foot_slide(p, t, horizontal=False).worst_speed_mps == pytest.approx(0.02)


def test_never_in_stance_gives_none():
    t = np.linspace(0, 1, 3)
    p = np.zeros((3, 1, 3))
    fs = foot_slide(p, t, stance=np.zeros((3, 1), bool))
    assert fs.worst_speed_mps is None and fs.worst_foot is None and fs.worst_time_s is None
    assert fs.foot_worst(0) == (None, None, None)


def test_contact_events_plant_and_lift_times():
    t = np.arange(8) * 0.1
    st = np.array(
        [
            [1, 0],
            [1, 0],
            [0, 1],
            [0, 1],
            [1, 1],
            [1, 0],
            [0, 0],
            [1, 1],
        ],
        bool,
    )
    ev = contact_events(st, t)
    assert ev[0] == [(0.0, pytest.approx(0.1)), (pytest.approx(0.4), pytest.approx(0.5)), (pytest.approx(0.7), pytest.approx(0.7))]
    assert ev[1] == [(pytest.approx(0.2), pytest.approx(0.4)), (pytest.approx(0.7), pytest.approx(0.7))]


def test_bad_shapes_raise_value_error():
    with pytest.raises(ValueError):
        foot_slide(np.zeros((3, 2)), np.zeros(4))
    with pytest.raises(ValueError):
        foot_slide(np.zeros((3, 1, 3)), np.arange(3.0), ground_velocity_mps=np.zeros((7, 3)))
