"""Quaternions: the core's one home for quaternion math, (x, y, z, w) order,
vectorised over leading axes.

All functions accept ``(..., 4)`` arrays and return float64 (the ``*_cm`` forms take
component-major ``(4, ...)`` arrays instead: the same formulas, for hot paths). Two normalisations,
kept apart on purpose because they answer different questions:

* :func:`normalize` makes any key usable as a rotation: a zero-length (or
  non-finite) quaternion becomes the identity;
* :func:`unit` is the plain ``q / |q|``: a zero or non-finite quaternion stays
  non-finite, so a measurement over it reports "no value" instead of a
  made-up identity.

Sign: q and −q are one rotation. :func:`canonical` picks the w ≥ 0 hemisphere
(rotations read back from matrices, the model rotations of forward kinematics);
:func:`rotation_vector` additionally settles w == 0 by the first non-zero
component; :func:`continuous` keeps a sequence on one hemisphere along time.
"""

from __future__ import annotations

import numpy as np

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])


def normalize(q: np.ndarray) -> np.ndarray:
    """q / |q|; zero-length quaternions become the identity."""
    q = np.asarray(q, dtype=np.float64)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    out = np.where(n > 0, q / np.where(n > 0, n, 1.0), IDENTITY)
    return out


def unit(q: np.ndarray) -> np.ndarray:
    """q / |q| with no special cases: zero-length or non-finite quaternions give NaN.

    For measurements, where an unusable rotation must stay unusable. The caller
    holds the floating-point error state (0/0 warns otherwise).
    """
    q = np.asarray(q, dtype=np.float64)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def canonical(q: np.ndarray) -> np.ndarray:
    """q on the w ≥ 0 hemisphere: −q where w < 0, else q (w == 0, −0.0 and NaN kept)."""
    q = np.asarray(q, dtype=np.float64)
    return np.where(q[..., 3:4] < 0, -q, q)


def continuous(q: np.ndarray) -> np.ndarray:
    """Flip signs along axis 0 so consecutive quaternions have a non-negative dot product.

    The first quaternion keeps its sign; each later one takes the sign that keeps
    it on the previous one's hemisphere, so interpolating between neighbours takes
    the short way round (keys written for a LINEAR track).
    """
    q = np.asarray(q, dtype=np.float64)
    if q.shape[0] < 2:
        return q
    dots = np.einsum("n...i,n...i->n...", q[1:], q[:-1])
    sign = np.where(dots < 0, -1.0, 1.0)
    cum = np.concatenate([np.ones((1,) + sign.shape[1:]), np.cumprod(sign, axis=0)], axis=0)
    return q * cum[..., None]


def multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a·b (apply b first, then a): :func:`multiply_cm` on the last axis."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return np.ascontiguousarray(np.moveaxis(multiply_cm(np.moveaxis(a, -1, 0), np.moveaxis(b, -1, 0)), 0, -1))


def conjugate(q: np.ndarray) -> np.ndarray:
    """(−x, −y, −z, w): the inverse of a unit quaternion."""
    q = np.asarray(q, dtype=np.float64)
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors v (..., 3) by unit quaternions q (..., 4)."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    u = q[..., :3]
    w = q[..., 3:4]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def from_axis_angle(axis: np.ndarray, angle_rad: np.ndarray) -> np.ndarray:
    """Unit quaternion rotating by ``angle_rad`` about ``axis`` (normalised)."""
    axis = np.asarray(axis, dtype=np.float64)
    angle = np.asarray(angle_rad, dtype=np.float64)
    axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    half = 0.5 * angle
    s = np.sin(half)[..., None]
    return np.concatenate([axis * s, np.cos(half)[..., None]], axis=-1)


def angle_between_rad(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Shortest rotation angle between orientations a and b (sign-invariant).

    angle = 2·atan2(|(a⁻¹b).xyz|, |(a⁻¹b).w|).
    """
    d = multiply(conjugate(normalize(a)), normalize(b))
    return 2.0 * np.arctan2(np.linalg.norm(d[..., :3], axis=-1), np.abs(d[..., 3]))


def slerp(q0: np.ndarray, q1: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Shortest-path spherical interpolation, as glTF LINEAR rotations need.

    q1 is negated where dot(q0, q1) < 0; both are normalised; near-parallel
    pairs (|dot| > 0.9995) fall back to a normalised lerp. ``u`` broadcasts
    against the leading axes.
    """
    q0 = normalize(q0)
    q1 = normalize(q1)
    u = np.asarray(u, dtype=np.float64)[..., None]
    dot = np.sum(q0 * q1, axis=-1, keepdims=True)
    q1 = np.where(dot < 0.0, -q1, q1)
    dot = np.abs(dot)
    near = dot > 0.9995
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    sin_t = np.sin(theta)
    safe = np.where(near, 1.0, sin_t)
    w0 = np.where(near, 1.0 - u, np.sin((1.0 - u) * theta) / safe)
    w1 = np.where(near, u, np.sin(u * theta) / safe)
    out = w0 * q0 + w1 * q1
    return normalize(out)


def rotation_vector(q: np.ndarray) -> np.ndarray:
    """(..., 4) unit quaternions -> rotation vectors (axis × angle, rad).

    The rotation is taken on the w ≥ 0 hemisphere (where w == 0, the one whose
    first non-zero of x, y, z is positive), so the angle is in [0, π]:
    ``angle = 2·atan2(|xyz|, w)``, vector = ``xyz · angle / |xyz|`` (``2·xyz`` as
    |xyz| → 0, the small-angle limit). :func:`rotation_vector_cm` on the last axis.
    """
    q = np.moveaxis(np.asarray(q, dtype=np.float64), -1, 0)
    return np.ascontiguousarray(np.moveaxis(rotation_vector_cm(q), 0, -1))


# -- component-major forms ---------------------------------------------------
# Formulas on component-major arrays (4, ...) / (3, ...): every operation runs on contiguous
# rows instead of strided last-axis slices, several times faster on the small per-bone
# arrays of the hot paths (the loop seam). ``multiply`` and ``rotation_vector`` are these
# on the last axis; ``norm_cm``, ``unit_cm`` and ``angle_between_unit_rad_cm`` sum in the
# order the last-axis forms do, so the two give the same bits (tests/core/test_quat_references.py).


def norm_cm(v: np.ndarray) -> np.ndarray:
    """|v| over the first axis: √(((v0² + v1²) + v2²) [+ v3²]), the value of
    ``np.linalg.norm(v, axis=-1)`` on the last-axis layout."""
    out = v[0] * v[0]
    for c in v[1:]:
        out = out + c * c
    return np.sqrt(out)


def unit_cm(q: np.ndarray) -> np.ndarray:
    """:func:`unit` of component-major quaternions (4, ...)."""
    return q / norm_cm(q)


def multiply_cm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`multiply` of component-major quaternions (4, ...)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.stack(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ]
    )


def conjugate_cm(q: np.ndarray) -> np.ndarray:
    """:func:`conjugate` of component-major quaternions (4, ...)."""
    return np.concatenate([-q[:3], q[3:]])


def angle_between_unit_rad_cm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`angle_between_rad` of component-major quaternions (4, ...) with non-zero, finite
    length (its :func:`normalize` is then the plain q / |q|)."""
    d = multiply_cm(conjugate_cm(unit_cm(a)), unit_cm(b))
    return 2.0 * np.arctan2(norm_cm(d[:3]), np.abs(d[3]))


def rotation_vector_cm(q: np.ndarray) -> np.ndarray:
    """:func:`rotation_vector` of component-major quaternions (4, ...) -> (3, ...)."""
    x, y, z, w = q
    first_nz = np.where(x != 0, x, np.where(y != 0, y, z))
    flip = (w < 0) | ((w == 0) & (first_nz < 0))
    q = np.where(flip, -q, q)
    s = norm_cm(q[:3])
    angle = 2.0 * np.arctan2(s, q[3])
    scale = np.where(s > 0, angle / np.where(s > 0, s, 1.0), 2.0)
    return q[:3] * scale


def to_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 4) -> (..., 3, 3) rotation matrices (unit quaternion formula, on q as given).

    The formula is written once, in :func:`animsmith.model.quat_to_matrix`: the
    data model sits below the core and needs it to build a skeleton's rest
    matrices, so it cannot call up into this module; everything from the core
    upwards calls this function.
    """
    from animsmith.model import quat_to_matrix

    return quat_to_matrix(q)


def from_matrix(m: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices -> (..., 4) unit quaternions, w ≥ 0."""
    m = np.asarray(m, dtype=np.float64)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    tr = m00 + m11 + m22
    cand = np.stack(
        [
            np.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1], 1 + tr], -1),
            np.stack([1 + m00 - m11 - m22, m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0], m[..., 2, 1] - m[..., 1, 2]], -1),
            np.stack([m[..., 0, 1] + m[..., 1, 0], 1 - m00 + m11 - m22, m[..., 1, 2] + m[..., 2, 1], m[..., 0, 2] - m[..., 2, 0]], -1),
            np.stack([m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1], 1 - m00 - m11 + m22, m[..., 1, 0] - m[..., 0, 1]], -1),
        ],
        axis=-2,
    )
    pick = np.argmax(np.stack([tr, m00, m11, m22], -1), axis=-1)
    q = np.take_along_axis(cand, pick[..., None, None], axis=-2)[..., 0, :]
    return canonical(normalize(q))
