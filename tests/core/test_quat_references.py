"""Quaternion math kept outside ``core/quat.py`` for speed or reproducible bits, held
against its reference there: forward kinematics' rotation rows and L-matrix chain, the
sampler's normalisation and batched slerp, the rest-matrix formula of the data model."""

import math

import numpy as np
import pytest

from animsmith.core import quat
from animsmith.core.fk import chain_rotations, local_matrices
from animsmith.core.sampling import normalize_quat, sample_channel
from animsmith.model import Channel, quat_to_matrix


def random_quats(rng, n, scale=False):
    """n random rotations, unit length (or scaled by 1e-3..1e3 when ``scale``), mixed signs of w."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    if scale:
        q *= 10.0 ** rng.uniform(-3, 3, size=(n, 1))
    return q


def test_rest_matrices_use_the_core_formula():
    # the data model builds rest matrices with the formula quat.to_matrix calls
    q = random_quats(np.random.default_rng(1), 200)
    assert np.array_equal(quat.to_matrix(q), quat_to_matrix(q))
    # and it rotates as the quaternion does: R(q)·v = q v q*
    v = np.random.default_rng(2).normal(size=(200, 3))
    np.testing.assert_allclose(np.einsum("nij,nj->ni", quat.to_matrix(q), v), quat.rotate(q, v), rtol=0, atol=1e-12)
    # a hand-computed rotation: 90° about +Y takes +Z to +X
    np.testing.assert_allclose(quat.to_matrix(quat.from_axis_angle([0, 1, 0], math.pi / 2)) @ [0, 0, 1], [1, 0, 0], atol=1e-15)


def test_forward_kinematics_rotation_rows_are_the_core_formula_bit_for_bit():
    q = random_quats(np.random.default_rng(3), 300)  # (N, 4)
    rq = q.T[:, None, :]  # component-major (4, B=1, N)
    local = local_matrices(rq, np.zeros((3, 1, 300)), None, np.eye(4)[None], np.zeros(1, dtype=bool))
    assert np.array_equal(local[0, :, :3, :3], quat.to_matrix(q))
    assert np.array_equal(local[0, :, 3], np.broadcast_to([0.0, 0.0, 0.0, 1.0], (300, 4)))


def test_forward_kinematics_rotations_are_on_the_core_hemisphere():
    # a chain of one bone: the model rotation is the local one, on quat.canonical's hemisphere
    q = random_quats(np.random.default_rng(9), 500)
    q[:5, 3] = 0.0
    got = chain_rotations([], q.T[:, None, :])[0]
    assert np.array_equal(got, quat.canonical(q))


def test_forward_kinematics_rotation_chain_matches_the_hamilton_product():
    # three bones in a chain (0 -> 1 -> 2), 100 samples: model rotation = q0·q1·q2, w >= 0
    rng = np.random.default_rng(4)
    q = random_quats(rng, 300).reshape(3, 100, 4)
    levels = [(np.array([1]), np.array([0])), (np.array([2]), np.array([1]))]
    got = chain_rotations(levels, q.transpose(2, 0, 1))
    want = [q[0], quat.multiply(q[0], q[1]), quat.multiply(quat.multiply(q[0], q[1]), q[2])]
    for b in range(3):
        np.testing.assert_allclose(got[b], quat.canonical(want[b]), rtol=0, atol=1e-12)
        assert np.all(got[b][:, 3] >= 0)


def test_sampler_normalisation_matches_the_core_on_usable_keys():
    q = random_quats(np.random.default_rng(5), 500, scale=True)
    np.testing.assert_allclose(normalize_quat(q), quat.normalize(q), rtol=0, atol=1e-12)
    zero = np.zeros((2, 4))
    assert np.array_equal(normalize_quat(zero), quat.normalize(zero))  # both: the identity
    # the documented difference: a non-finite key keeps its NaN for the sampler
    bad = np.array([[np.nan, 0.0, 0.0, 1.0]])
    assert np.isnan(normalize_quat(bad)[0, 0]) and np.array_equal(quat.normalize(bad), [[0.0, 0.0, 0.0, 1.0]])


@pytest.mark.parametrize("near", [False, True])
def test_sampled_linear_rotations_are_the_core_slerp(near):
    rng = np.random.default_rng(6 + near)
    keys = random_quats(rng, 12)
    if near:  # neighbours within the nlerp threshold (|dot| > 0.9995), some on the far hemisphere
        keys = quat.normalize(keys[:1] + 1e-3 * rng.normal(size=(12, 4)))
        keys[1::3] *= -1.0
    times = np.arange(12, dtype=np.float32) / np.float32(30)
    ch = Channel.make(0, "rotation", times, keys.astype(np.float32))
    t = np.sort(rng.uniform(0.0, float(times[-1]), 400))
    got = sample_channel(ch, t)
    kt = times.astype(np.float64)
    k1 = np.clip(np.searchsorted(kt, t, side="right"), 1, 11)
    u = (t - kt[k1 - 1]) / (kt[k1] - kt[k1 - 1])
    v = ch.values.astype(np.float64)
    want = quat.slerp(v[k1 - 1], v[k1], u)
    # q and −q are one rotation: compare on one hemisphere
    np.testing.assert_allclose(quat.canonical(got), quat.canonical(want), rtol=0, atol=1e-12)


def test_the_proof_heading_axis_is_the_metric_heading_axis():
    # the gait-anchor proof rotates the witness axis with quat.rotate; the travel metrics
    # read the same axis as a column of quat.to_matrix
    q = random_quats(np.random.default_rng(8), 300)
    m = quat.to_matrix(q)
    for col, axis in enumerate(np.eye(3)):
        np.testing.assert_allclose(quat.rotate(q, np.broadcast_to(axis, (300, 3))), m[:, :, col], rtol=0, atol=1e-12)


def _bits(a):
    return np.ascontiguousarray(a).tobytes()


def test_component_major_forms_give_the_last_axis_forms_bits():
    # the loop seam's component-major quaternion math is the same arithmetic in the same
    # order as the last-axis forms: the same bytes, on scaled keys and on the edge cases
    # of the hemisphere rule (w == 0, a zero vector part, an exact half turn)
    rng = np.random.default_rng(7)
    a = random_quats(rng, 400, scale=True)
    b = random_quats(rng, 400, scale=True)
    a[:20, 3] = 0.0  # w == 0: the first non-zero of x, y, z decides the sign
    a[20:30, :3] = 0.0  # no rotation
    a[30:35, 0] = 0.0
    a[30:35, 3] = 0.0  # w == 0 and x == 0: y decides
    b[40:50] = -a[40:50]  # the same rotation, the other sign
    ac, bc = a.T.copy(), b.T.copy()
    assert _bits(quat.norm_cm(ac)) == _bits(np.linalg.norm(a, axis=-1))
    assert _bits(quat.norm_cm(ac[:3])) == _bits(np.linalg.norm(a[:, :3], axis=-1))
    assert _bits(quat.unit_cm(ac).T) == _bits(quat.unit(a))
    assert _bits(quat.multiply_cm(ac, bc).T) == _bits(quat.multiply(a, b))
    assert _bits(quat.conjugate_cm(ac).T) == _bits(quat.conjugate(a))
    assert _bits(quat.angle_between_unit_rad_cm(ac, bc)) == _bits(quat.angle_between_rad(a, b))
    assert _bits(quat.rotation_vector_cm(ac).T) == _bits(quat.rotation_vector(a))
    # and the values are the rotations': a turn of 90° about +Y has rotation vector (0, π/2, 0)
    q = quat.from_axis_angle([0.0, 1.0, 0.0], math.pi / 2)
    np.testing.assert_allclose(quat.rotation_vector_cm(q[:, None])[:, 0], [0.0, math.pi / 2, 0.0], atol=1e-15)
    # the angle between it and its negative is zero (sign-invariant); to the identity, 90°
    assert quat.angle_between_unit_rad_cm(q[:, None], -q[:, None])[0] == 0.0
    np.testing.assert_allclose(quat.angle_between_unit_rad_cm(q[:, None], quat.IDENTITY[:, None])[0], math.pi / 2, rtol=1e-15)
