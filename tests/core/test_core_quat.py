"""The core's quaternion functions (animsmith.core.quat) against hand-computed rotations.

Every expectation is worked out from the rotation itself: a quarter turn about Y
sends +Z to +X, half-angle sines and cosines of known angles, rotation vectors
as axis × angle.
"""

import math

import numpy as np
import pytest

from animsmith.core import quat

S = math.sqrt(0.5)  # sin 45° = cos 45°: the half-angle of a quarter turn
QY90 = np.array([0.0, S, 0.0, S])  # +90° about Y
QX90 = np.array([S, 0.0, 0.0, S])  # +90° about X


def test_quarter_turn_about_y_as_a_matrix():
    # right-handed +90° about Y: x -> -z, z -> +x, y unchanged
    expected = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])
    np.testing.assert_allclose(quat.to_matrix(QY90), expected, atol=1e-15)


def test_rotate_agrees_with_the_hand_worked_turns():
    np.testing.assert_allclose(quat.rotate(QY90, [0.0, 0.0, 1.0]), [1.0, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(quat.rotate(QX90, [0.0, 1.0, 0.0]), [0.0, 0.0, 1.0], atol=1e-15)


def test_multiply_applies_the_right_factor_first():
    # QY90·QX90 applies X first: +Y -> +Z (about X) -> +X (about Y)
    q = quat.multiply(QY90, QX90)
    np.testing.assert_allclose(quat.rotate(q, [0.0, 1.0, 0.0]), [1.0, 0.0, 0.0], atol=1e-15)
    # the product of the half-angle quaternions, worked by hand: (½, ½, −½, ½)
    np.testing.assert_allclose(q, [0.5, 0.5, -0.5, 0.5], atol=1e-15)


def test_conjugate_undoes_a_unit_rotation():
    q = quat.from_axis_angle([1.0, 2.0, 2.0], 0.7)
    np.testing.assert_allclose(quat.multiply(q, quat.conjugate(q)), [0.0, 0.0, 0.0, 1.0], atol=1e-15)


def test_from_axis_angle_uses_half_angles():
    q = quat.from_axis_angle([0.0, 0.0, 2.0], math.radians(60.0))  # the axis is normalised
    np.testing.assert_allclose(q, [0.0, 0.0, 0.5, math.sqrt(3) / 2], atol=1e-15)


def test_normalize_scales_and_turns_zero_into_the_identity():
    np.testing.assert_allclose(quat.normalize([0.0, 0.0, 3.0, 4.0]), [0.0, 0.0, 0.6, 0.8], atol=1e-15)
    np.testing.assert_array_equal(quat.normalize([0.0, 0.0, 0.0, 0.0]), [0.0, 0.0, 0.0, 1.0])


def test_unit_keeps_unusable_quaternions_unusable():
    with np.errstate(invalid="ignore"):
        got = quat.unit(np.array([[0.0, 3.0, 0.0, 4.0], [0.0, 0.0, 0.0, 0.0], [np.nan, 0.0, 0.0, 1.0]]))
    np.testing.assert_allclose(got[0], [0.0, 0.6, 0.0, 0.8], atol=1e-15)
    assert np.isnan(got[1]).all() and np.isnan(got[2]).all()


def test_canonical_puts_w_on_the_positive_side():
    got = quat.canonical(np.array([[0.1, 0.2, 0.3, -0.9], [0.1, 0.2, 0.3, 0.9], [1.0, 0.0, 0.0, 0.0]]))
    np.testing.assert_array_equal(got, [[-0.1, -0.2, -0.3, 0.9], [0.1, 0.2, 0.3, 0.9], [1.0, 0.0, 0.0, 0.0]])


def test_continuous_keeps_neighbours_on_one_hemisphere():
    a = quat.from_axis_angle([0.0, 1.0, 0.0], np.radians([170.0, 190.0, 200.0]))
    a[1:] *= -1.0  # the same rotations written with the far sign, as a matrix read-back may give
    got = quat.continuous(a)
    np.testing.assert_array_equal(got[0], a[0])  # the first keeps its sign
    assert (np.sum(got[1:] * got[:-1], axis=-1) >= 0).all()
    np.testing.assert_allclose(got[1:], -a[1:], atol=0)


def test_angle_between_is_sign_invariant():
    q = quat.from_axis_angle([0.0, 1.0, 0.0], math.radians(30.0))
    assert quat.angle_between_rad(QY90, q) == pytest.approx(math.radians(60.0), abs=1e-12)
    assert quat.angle_between_rad(QY90, -q) == pytest.approx(math.radians(60.0), abs=1e-12)


def test_slerp_halfway_between_identity_and_a_quarter_turn_is_an_eighth_turn():
    half = quat.slerp([0.0, 0.0, 0.0, 1.0], QY90, 0.5)
    np.testing.assert_allclose(half, [0.0, math.sin(math.pi / 8), 0.0, math.cos(math.pi / 8)], atol=1e-15)


def test_rotation_vector_is_axis_times_angle():
    np.testing.assert_allclose(quat.rotation_vector(QY90), [0.0, math.pi / 2, 0.0], atol=1e-15)
    # −q is the same rotation: the same vector, not the 270° way round
    np.testing.assert_allclose(quat.rotation_vector(-QY90), [0.0, math.pi / 2, 0.0], atol=1e-15)
    # a half turn (w == 0): the first non-zero component decides the sign
    np.testing.assert_allclose(quat.rotation_vector([0.0, 0.0, -1.0, 0.0]), [0.0, 0.0, math.pi], atol=1e-15)
    # the identity and the small-angle limit 2·xyz
    np.testing.assert_array_equal(quat.rotation_vector([0.0, 0.0, 0.0, 1.0]), [0.0, 0.0, 0.0])
    tiny = quat.from_axis_angle([1.0, 0.0, 0.0], 1e-9)
    np.testing.assert_allclose(quat.rotation_vector(tiny), [1e-9, 0.0, 0.0], rtol=1e-12)


def test_from_matrix_inverts_to_matrix_on_the_w_positive_side():
    q = quat.from_axis_angle([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]], np.radians([250.0, 90.0]))  # w < 0, w > 0
    back = quat.from_matrix(quat.to_matrix(q))
    np.testing.assert_allclose(back, quat.canonical(q), atol=1e-15)
    assert (back[:, 3] >= 0).all()
