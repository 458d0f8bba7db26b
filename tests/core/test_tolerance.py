"""The float32 tolerance rules (animsmith.core.tolerance) against values built
independently with numpy's float32 arithmetic."""

import warnings

import numpy as np

from animsmith.core.tolerance import (
    AUTHORED_F32_ULPS,
    F32_EPS,
    f32_exceeds,
    f32_exceeds_each,
    f32_outside,
    f32_successor,
    frame_times_f32,
    round_half_away,
)


def _next_f32(x: np.float32, steps: int) -> float:
    for _ in range(steps):
        x = np.nextafter(x, np.float32(np.inf))
    return float(x)


def test_successor_is_n_float32_steps_above_the_cap():
    assert f32_successor(1.0) == 1.0 + AUTHORED_F32_ULPS * 2.0**-23
    assert f32_successor(0.01) == _next_f32(np.float32(0.01), 4)
    assert f32_successor(0.01, 1) == _next_f32(np.float32(0.01), 1)
    assert f32_successor(0.01, 1) > float(np.float32(0.01))


def test_epsilon_is_two_to_the_minus_23():
    assert F32_EPS == 2.0**-23


def test_round_half_away_from_zero():
    assert [round_half_away(x) for x in (2.5, 3.5, -2.5, -0.5, 0.49, 23.25, 0.0)] == [3, 4, -3, -1, 0, 23, 0]


def test_frame_times_are_float32_of_k_over_fps():
    t = frame_times_f32(31, 30.0)
    assert t.dtype == np.float32 and t.shape == (31,)
    assert t[0] == 0.0 and t[30] == np.float32(1.0)
    assert all(t[k] == np.float32(k / 30.0) for k in range(31))
    # k / fps is computed in float64 first: 1/3 s at 3 fps is f32(1/3), not f32(1)/f32(3)
    assert frame_times_f32(2, 3.0)[1] == np.float32(1.0 / 3.0)


def test_a_value_authored_at_the_cap_does_not_exceed_it():
    authored = float(np.float32(0.1))  # 0.10000000149 once widened: above 0.1 in float64
    assert authored > 0.1
    assert not f32_exceeds(authored, 0.1)
    assert f32_exceeds(_next_f32(np.float32(0.1), 1), 0.1)
    assert not f32_exceeds(0.1, _next_f32(np.float32(0.1), 1))


def test_nan_and_overflow_never_exceed_and_never_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not f32_exceeds(float("nan"), 1.0)
        assert not f32_exceeds(1.0, float("nan"))
        assert not f32_exceeds(1e300, 1e300)  # both overflow to +inf
        assert f32_exceeds(1e300, 1.0)
        got = f32_exceeds_each(np.array([1e300, 0.5, np.nan]), np.array([1.0, 0.5, 1.0]))
    assert got.tolist() == [True, False, False]


def test_elementwise_matches_the_scalar_rule():
    rng = np.random.default_rng(7)
    a = rng.uniform(0, 1, 200)
    b = np.where(rng.uniform(size=200) < 0.5, a + rng.uniform(-1e-9, 1e-9, 200), rng.uniform(0, 1, 200))
    assert f32_exceeds_each(a, b).tolist() == [f32_exceeds(x, y) for x, y in zip(a, b)]


def test_at_the_cap_passes_within_the_epsilon_or_four_float32_steps_at_the_values_size():
    from animsmith.core.tolerance import CAP_EPSILON, allowance, below, exceeds

    assert CAP_EPSILON == 1e-6
    assert not exceeds(0.15 + 5e-7, 0.15) and exceeds(0.15 + 2e-6, 0.15)
    # 40 s durations: float32 steps there are 2^-18 s = 3.814697265625e-06 apart, four of them allowed
    assert allowance(40.0) == 4 * 2.0 ** -18
    assert not exceeds(1.0 + 1.5e-5, 1.0, magnitude=40.0) and exceeds(1.0 + 1.6e-5, 1.0, magnitude=40.0)
    assert allowance(0.0) == allowance(float("nan")) == CAP_EPSILON
    assert not below(0.03 - 5e-7, 0.03) and below(0.0299, 0.03)


def test_outside_a_pin_is_the_cap_rule_on_both_sides():
    # 1.5 ± 0.1: the bounds' float32 values pass, one float32 step beyond either fails
    lo, hi = np.float32(1.4), np.float32(1.6)
    assert not f32_outside(float(lo), 1.5, 0.1) and not f32_outside(float(hi), 1.5, 0.1)
    assert not f32_outside(1.5, 1.5, 0.1)
    assert f32_outside(float(np.nextafter(hi, np.float32(2))), 1.5, 0.1)
    assert f32_outside(float(np.nextafter(lo, np.float32(0))), 1.5, 0.1)
    assert not f32_outside(float("nan"), 1.5, 0.1)  # a NaN exceeds neither bound
