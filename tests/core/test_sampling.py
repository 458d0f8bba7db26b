"""Channel sampling against hand-computed glTF 2.0 expectations."""

import math

import numpy as np
import pytest

from animsmith.core.sampling import sample_channel
from animsmith.model import Channel


def qy(deg):
    """Unit quaternion for a rotation of ``deg`` degrees about +Y."""
    h = math.radians(deg) / 2
    return [0.0, math.sin(h), 0.0, math.cos(h)]


def same_rotation(a, b, tol=1e-7):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    return abs(abs(float(np.dot(a, b))) - 1.0) < tol


# ---------------------------------------------------------------- LINEAR


def test_linear_translation_midpoint_and_quarter():
    ch = Channel.make(0, "translation", [1.0, 3.0], [[0, 0, 0], [2, -4, 8]])
    out = sample_channel(ch, [2.0, 1.5])
    np.testing.assert_allclose(out[0], [1, -2, 4], atol=1e-12)
    np.testing.assert_allclose(out[1], [0.5, -1, 2], atol=1e-12)


def test_linear_uses_bracketing_segment():
    ch = Channel.make(0, "scale", [0, 1, 2], [[1, 1, 1], [3, 3, 3], [3, 5, 3]])
    out = sample_channel(ch, [0.5, 1.25, 1.0])
    np.testing.assert_allclose(out, [[2, 2, 2], [3, 3.5, 3], [3, 3, 3]], atol=1e-12)


def test_slerp_midpoint_of_0_and_90_deg_is_45_deg():
    ch = Channel.make(0, "rotation", [0, 1], [qy(0), qy(90)])
    out = sample_channel(ch, [0.5, 0.25])
    np.testing.assert_allclose(out[0], qy(45), atol=1e-7)
    # slerp is uniform in angle (a plain lerp would give ~22.8 deg at u=0.25)
    np.testing.assert_allclose(out[1], qy(22.5), atol=1e-7)


def test_slerp_takes_shortest_path_when_key_signs_differ():
    # -qy(90) is the same rotation; the long way round would pass through -135 deg.
    neg = [-c for c in qy(90)]
    ch = Channel.make(0, "rotation", [0, 1], [qy(0), neg])
    out = sample_channel(ch, [0.5])[0]
    assert same_rotation(out, qy(45))
    assert abs(np.linalg.norm(out) - 1) < 1e-12


def test_slerp_of_large_angle_shortest_arc():
    # 170 deg -> -170 deg about Y is a 20 deg step through 180.
    ch = Channel.make(0, "rotation", [0, 2], [qy(170), qy(-170)])
    out = sample_channel(ch, [1.0])[0]
    assert same_rotation(out, qy(180))


def test_rotation_results_are_unit_even_for_unnormalised_keys():
    ch = Channel.make(0, "rotation", [0, 1], [[0, 0, 0, 2], [0, 0.5, 0, 0]])
    out = sample_channel(ch, [-1, 0.5, 3])
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1, atol=1e-12)
    assert same_rotation(out[1], qy(90))


# ---------------------------------------------------------------- clamping


def test_clamps_before_first_and_after_last_key():
    ch = Channel.make(0, "translation", [0.5, 1.0], [[1, 2, 3], [4, 5, 6]])
    out = sample_channel(ch, [-10.0, 0.0, 0.5, 1.0, 99.0])
    np.testing.assert_array_equal(out, [[1, 2, 3], [1, 2, 3], [1, 2, 3], [4, 5, 6], [4, 5, 6]])


def test_rotation_clamp_returns_the_stored_key():
    neg = [-c for c in qy(90)]
    ch = Channel.make(0, "rotation", [0, 1], [qy(0), neg])
    out = sample_channel(ch, [5.0])[0]
    np.testing.assert_allclose(out, np.asarray(neg, np.float32), atol=1e-7)


def test_single_key_channel_is_constant():
    ch = Channel.make(0, "translation", [0.3], [[7, 8, 9]])
    np.testing.assert_array_equal(sample_channel(ch, [0, 0.3, 1]), [[7, 8, 9]] * 3)


def test_cubic_clamps_to_value_not_tangent():
    ch = Channel.make(
        0, "translation", [0, 1], [[1, 1, 1], [2, 2, 2]], "CUBICSPLINE",
        in_tangents=[[50, 50, 50], [60, 60, 60]], out_tangents=[[70, 70, 70], [80, 80, 80]],
    )
    out = sample_channel(ch, [-1.0, 2.0])
    np.testing.assert_array_equal(out, [[1, 1, 1], [2, 2, 2]])


# ---------------------------------------------------------------- STEP


def test_step_holds_key_until_next_key():
    ch = Channel.make(0, "translation", [0, 1, 2], [[0, 0, 0], [1, 1, 1], [2, 2, 2]], "STEP")
    out = sample_channel(ch, [0.0, 0.999, 1.0, 1.5, 2.0, 3.0])
    np.testing.assert_array_equal(out[:, 0], [0, 0, 1, 1, 2, 2])


def test_step_compares_against_float32_key_times():
    # float32(4/30) is slightly larger than the float64 4/30, so at t = 4/30
    # the key stored "at 4/30" has not been reached yet (as in three.js).
    k4 = np.float32(4 / 30)
    assert float(k4) > 4 / 30
    times = np.arange(6, dtype=np.float64) / 30
    values = np.arange(6, dtype=np.float64)[:, None] * [1, 0, 0]
    ch = Channel.make(0, "translation", times, values, "STEP")
    out = sample_channel(ch, [4 / 30, float(k4), (4.5) / 30])
    np.testing.assert_array_equal(out[:, 0], [3, 4, 4])


def test_step_rotation_is_normalised_key():
    ch = Channel.make(0, "rotation", [0, 1], [[0, 0, 0, 3], qy(90)], "STEP")
    out = sample_channel(ch, [0.9, 1.0])
    np.testing.assert_allclose(out[0], [0, 0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(out[1], qy(90), atol=1e-7)


# ---------------------------------------------------------------- CUBICSPLINE


def hermite_closed_form(p0, m0, p1, m1, t0, t1, t):
    """glTF Appendix C: p(s) with tangents scaled by the key interval td."""
    td = t1 - t0
    s = (t - t0) / td
    return (
        (2 * s**3 - 3 * s**2 + 1) * p0
        + td * (s**3 - 2 * s**2 + s) * m0
        + (-2 * s**3 + 3 * s**2) * p1
        + td * (s**3 - s**2) * m1
    )


def test_cubic_translation_matches_closed_form_with_interval_scaled_tangents():
    t = np.array([0.5, 2.5, 3.0])  # intervals 2.0 and 0.5
    v = np.array([[0, 1, 2], [4, -1, 0], [1, 1, 1]], float)
    a = np.array([[9, 9, 9], [1, 2, 3], [0, -2, 5]], float)  # in-tangents
    b = np.array([[3, -1, 2], [-2, 0, 1], [9, 9, 9]], float)  # out-tangents
    ch = Channel.make(0, "translation", t, v, "CUBICSPLINE", in_tangents=a, out_tangents=b)
    q = np.array([1.0, 1.7, 2.6, 2.9])
    out = sample_channel(ch, q)
    for i, ti in enumerate(q):
        k = 0 if ti < 2.5 else 1
        exp = hermite_closed_form(v[k], b[k], v[k + 1], a[k + 1], t[k], t[k + 1], ti)
        np.testing.assert_allclose(out[i], exp, atol=1e-9)
    # A tangent-unscaled implementation differs by a lot on the 2 s segment.
    unscaled = hermite_closed_form(v[0], b[0] / 2, v[1], a[1] / 2, t[0], t[1], 1.0)
    assert np.abs(out[0] - unscaled).max() > 0.1


def test_cubic_rotation_is_normalised_hermite():
    t = [0.0, 2.0]
    v = np.array([qy(0), qy(60)])
    a = np.array([[0, 0, 0, 0], [0.1, 0.2, 0.0, -0.1]])
    b = np.array([[0.0, 0.3, 0.1, 0.0], [0, 0, 0, 0]])
    ch = Channel.make(0, "rotation", t, v, "CUBICSPLINE", in_tangents=a, out_tangents=b)
    out = sample_channel(ch, [0.7])[0]
    raw = hermite_closed_form(v[0], b[0], v[1], a[1], 0.0, 2.0, 0.7)
    np.testing.assert_allclose(out, raw / np.linalg.norm(raw), atol=1e-7)


# ---------------------------------------------------------------- degenerate


def test_zero_length_segment_uses_u_zero():
    ch = Channel.make(0, "translation", [0, 1, 1, 2], [[0, 0, 0], [1, 1, 1], [5, 5, 5], [6, 6, 6]])
    out = sample_channel(ch, [0.5, 1.0, 1.5])
    np.testing.assert_allclose(out[:, 0], [0.5, 5.0, 5.5])


@pytest.mark.parametrize("interp", ["LINEAR", "STEP", "CUBICSPLINE"])
@pytest.mark.parametrize("path", ["translation", "rotation"])
def test_non_finite_keys_never_raise(interp, path):
    w = 4 if path == "rotation" else 3
    times = [0.0, np.nan, 1.0, np.inf]
    values = np.ones((4, w))
    values[1] = np.nan
    values[2] = np.inf
    ch = Channel.make(0, path, times, values, interp)
    with np.errstate(all="raise"):
        out = sample_channel(ch, [-1.0, 0.0, 0.5, 1.0, 2.0, np.inf])
    assert out.shape == (6, w)
    assert np.all(np.isfinite(out[0]))  # before the first key: the first value


def test_unsorted_query_times_are_each_sampled():
    ch = Channel.make(0, "translation", [0, 1], [[0, 0, 0], [10, 0, 0]])
    np.testing.assert_allclose(sample_channel(ch, [0.9, 0.1, 0.5])[:, 0], [9, 1, 5])
