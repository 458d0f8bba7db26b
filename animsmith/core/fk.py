"""Forward kinematics over frames x bones (vectorised numpy).

* Model matrix = parent model matrix x local T·R·S, parents first (a root uses
  its own local matrix). Every glTF node is a bone, so non-joint ancestors (an
  ``Armature`` scaled 0.01, a Z-up matrix) move their children. A node authored
  with ``matrix`` whose pose is its rest pose uses that exact matrix (shear
  included).
* Model rotation = product of the local rotations along the chain (parent x
  child), independent of scale, unit length with w >= 0.
* Model position = translation column of the model matrix, in metres
  (``skeleton.metres_per_unit``).

One batched 4x4 matmul per depth level of the hierarchy, in passes of at most
:data:`FK_CHUNK_FRAMES` frames.
"""

from __future__ import annotations

import weakref
from typing import List, Optional, Tuple

import numpy as np

from animsmith.core.sampling import normalize_quat
from animsmith.model import Skeleton, bone_depths

_LEVELS: "weakref.WeakKeyDictionary[Skeleton, tuple]" = weakref.WeakKeyDictionary()


def _levels(skeleton: Skeleton) -> List[Tuple[np.ndarray, np.ndarray]]:
    """[(bones, their parents)] per depth >= 1, cached per skeleton (checked against parents)."""
    parents = np.asarray(skeleton.parents, dtype=np.intp)
    cached = _LEVELS.get(skeleton)
    if cached is not None and np.array_equal(cached[0], parents):
        return cached[1]
    depth = bone_depths(parents)
    levels = []
    for d in range(1, int(depth.max(initial=0)) + 1):
        idx = np.nonzero(depth == d)[0]
        levels.append((idx, parents[idx]))
    _LEVELS[skeleton] = (parents.copy(), levels)
    return levels


def _rest_pose_bones(skeleton: Skeleton, t, r, s) -> np.ndarray:
    """(B,) bool: bones authored with ``matrix`` whose TRS equals the rest TRS at every frame."""
    hm = np.asarray(skeleton.has_matrix, dtype=bool)
    out = np.zeros(hm.shape[0], dtype=bool)
    for b in np.nonzero(hm)[0]:
        out[b] = (
            np.array_equal(t[:, b], np.broadcast_to(skeleton.rest_translation[b], t[:, b].shape))
            and np.array_equal(s[:, b], np.broadcast_to(skeleton.rest_scale[b], s[:, b].shape))
            and np.allclose(
                np.abs(np.einsum("ni,i->n", normalize_quat(r[:, b]), normalize_quat(np.asarray(skeleton.rest_rotation[b], float)))),
                1.0,
                rtol=0,
                atol=1e-12,
            )
        )
    return out


def chain_levels(levels, local: np.ndarray) -> np.ndarray:
    """In place over bone-major (B, N, 4, 4) local matrices: M[b] = M[parent] · L[b].

    ``levels`` lists (bones, parents) per depth, as index arrays or slices.
    """
    # non-finite key values (hostile files) must give NaN poses, not RuntimeWarnings
    with np.errstate(invalid="ignore", over="ignore"):
        for idx, par in levels:
            local[idx] = np.matmul(local[par], local[idx])
    return local


# Left-multiplication matrix of a quaternion a (x, y, z, w): a ⊗ b = L(a) · b, with
# L(a) = [[w, −z, y, x], [z, w, −x, y], [−y, x, w, z], [−x, −y, −z, w]];
# L(a ⊗ b) = L(a) · L(b), and L(q) · (0, 0, 0, 1) = q.
# This is the Hamilton product of ``quat.multiply`` (its reference) written as matrices, so
# the model rotations ride in the same batched matmul per depth level as the model
# matrices; the matmul sums in its own order, so a chained rotation agrees with
# ``quat.multiply`` to rounding (~1e-16 per level), not bit for bit
# (tests/core/test_quat_references.py holds them together).
_L_INDEX = np.array([[3, 2, 1, 0], [2, 3, 0, 1], [1, 0, 3, 2], [0, 1, 2, 3]])
_L_SIGN = np.array([[1.0, -1, 1, 1], [1, 1, -1, 1], [-1, 1, 1, 1], [-1, -1, -1, 1]])
# The same as one linear map: L(q).reshape(16) = q @ _L_MAP (a single small matmul).
_L_MAP = np.zeros((4, 16))
_L_MAP[_L_INDEX.reshape(-1), np.arange(16)] = _L_SIGN.reshape(-1)

# Rotation matrix of a unit quaternion from the products P[i, j] = q_i · 2q_j
# (flattened i·4 + j, q = (x, y, z, w)):
#   [[1 − (yy + zz), xy − wz, xz + wy], [xy + wz, 1 − (xx + zz), yz − wx], [xz − wy, yz + wx, 1 − (xx + yy)]]
# computed as rows (diagonal 00 11 22 | sums 02 10 21 | differences 20 01 12):
# A + B for the first six (then 1 − that on the diagonal), A − B for the last three.
_R_A = np.array([5, 0, 0, 2, 1, 6])  # yy xx xx | xz xy yz
_R_B = np.array([10, 10, 5, 13, 14, 12])  # zz zz yy | wy wz wx
_R_DEST = np.array([0, 5, 10, 2, 4, 9, 8, 1, 6])  # flattened 4x4 (and 3x3 via _R_DEST3) position of each row
_R_DEST3 = np.array([0, 4, 8, 2, 3, 7, 6, 1, 5])
_R_COL = _R_DEST3 % 3  # column of each row (the scale component it is multiplied by)
_TRANSLATION_ROWS = np.array([3, 7, 11])


def _rotation_rows(q: np.ndarray) -> np.ndarray:
    """(9, ...) rotation-matrix entries (row order above) of component-major unit quaternions q (4, ...), x2 = x + x.

    The formula of ``quat.to_matrix`` (its reference), bit for bit: doubling is exact, so
    q_i·2q_j = 2·(q_i·q_j) and 1 − (2a + 2b) = 1 − 2(a + b). It is kept here for the
    component-major layout of forward kinematics, whose rows go straight into the
    flattened 4x4 local matrices with the scale applied (tests/core/test_quat_references.py
    compares the bits).
    """
    q2 = q + q
    p = (q[:, None] * q2[None, :]).reshape((16,) + q.shape[1:])
    a = p[_R_A]
    b = p[_R_B]
    out = np.empty((9,) + q.shape[1:])
    np.add(a, b, out=out[:6])
    np.subtract(a[3:], b[3:], out=out[6:])
    np.subtract(1.0, out[:3], out=out[:3])
    return out


def _rotation_cm(q: np.ndarray) -> np.ndarray:
    """(3, 3, ...) rotation matrices of component-major unit quaternions q (4, ...)."""
    m = np.empty((9,) + q.shape[1:])
    m[_R_DEST3] = _rotation_rows(q)
    return m.reshape((3, 3) + q.shape[1:])


#: frames per FK pass: one pass's temporaries (~0.5 KB a bone-frame) stay bounded on
#: long clips; every sample is chained on its own, so passes give the same bytes
FK_CHUNK_FRAMES = 8192


def frame_chunks(n: int):
    """(lo, hi) frame ranges of at most FK_CHUNK_FRAMES covering 0..n."""
    return [(lo, min(n, lo + FK_CHUNK_FRAMES)) for lo in range(0, n, FK_CHUNK_FRAMES)]


def local_matrices(rq: np.ndarray, t: np.ndarray, s: Optional[np.ndarray], rest_matrix, fixed: np.ndarray) -> np.ndarray:
    """Bone-major local matrices (B, N, 4, 4) T·R·S (the rest matrix for bones in ``fixed``)."""
    b, n = rq.shape[1], rq.shape[2]
    local = np.zeros((16, b, n))  # component-major local matrices, row-major 4x4
    lin = _rotation_rows(rq)
    if s is not None:
        lin *= s[_R_COL]
    local[_R_DEST] = lin
    local[_TRANSLATION_ROWS] = t
    local[15] = 1.0
    model = np.ascontiguousarray(local.reshape(4, 4, b, n).transpose(2, 3, 0, 1))
    idx = np.nonzero(fixed)[0]
    if idx.size:
        model[idx] = np.asarray(rest_matrix, dtype=np.float64)[idx][:, None]
    return model


def _left_matrices(rq: np.ndarray) -> np.ndarray:
    """Bone-major quaternion left-multiplication matrices L(rq) (B, N, 4, 4) of rq (4, B, N)."""
    b, n = rq.shape[1], rq.shape[2]
    return np.matmul(rq.transpose(1, 2, 0), _L_MAP).reshape(b, n, 4, 4)


def _rotation_column(lm: np.ndarray) -> np.ndarray:
    """The model rotations (last columns of chained L matrices), sign-flipped to w >= 0.

    ``quat.canonical`` (its reference) gives the same values; this form multiplies the
    strided column by a (..., 1) sign instead of selecting between q and −q, several
    times faster on every FK pass (tests/core/test_quat_references.py compares the two).
    """
    q = lm[..., :, 3]
    return q * np.where(q[..., 3:4] < 0, -1.0, 1.0)


def chain_rotations(levels, rq: np.ndarray) -> np.ndarray:
    """Bone-major model rotations (B, N, 4) from component-major unit rotations rq (4, B, N):
    the quaternion left-multiplication matrices L(parent model) · L(rq) chained per depth
    level; the last column is the model rotation (a product of unit quaternions),
    sign-flipped to w >= 0."""
    b, n = rq.shape[1], rq.shape[2]
    if n > FK_CHUNK_FRAMES:
        out = np.empty((b, n, 4))
        for lo, hi in frame_chunks(n):
            out[:, lo:hi] = chain_rotations(levels, rq[:, :, lo:hi])
        return out
    return _rotation_column(chain_levels(levels, _left_matrices(rq)))


def _model_matrices_and_rotations(levels, rq, t, s, rest_matrix, fixed) -> Tuple[np.ndarray, np.ndarray]:
    """Bone-major model matrices (B, N, 4, 4) = parent model · T·R·S (:func:`local_matrices`)
    and model rotations (B, N, 4) (:func:`chain_rotations`) in one chain: both kinds of
    4x4 matrix stacked along the frame axis, so each depth level is one batched matmul
    (the same products, the same bytes), in passes of FK_CHUNK_FRAMES frames."""
    b, n = rq.shape[1], rq.shape[2]
    model = np.empty((b, n, 4, 4))
    rot = np.empty((b, n, 4))
    for lo, hi in frame_chunks(n):
        k = hi - lo
        part = None if s is None else s[:, :, lo:hi]
        both = np.concatenate(
            [local_matrices(rq[:, :, lo:hi], t[:, :, lo:hi], part, rest_matrix, fixed), _left_matrices(rq[:, :, lo:hi])], axis=1
        )
        chain_levels(levels, both)
        model[:, lo:hi] = both[:, :k]
        rot[:, lo:hi] = _rotation_column(both[:, k:])
    return model, rot


def fk_bone_major(skeleton: Skeleton, t, r, s, use_rest_matrix: np.ndarray, *, unit: bool = False):
    """(model matrices (B, N, 4, 4), model rotations (B, N, 4)) of the whole skeleton (see :func:`_fk_arrays`),
    in metres (:func:`_to_metres`)."""
    model, rotation = _fk_arrays(_levels(skeleton), skeleton.rest_matrix, t, r, s, use_rest_matrix, unit=unit)
    return _to_metres(skeleton, model), rotation


def _to_metres(skeleton: Skeleton, model: np.ndarray) -> np.ndarray:
    """Model matrices (..., 4, 4) in file units -> metres: S · M with S = diag(u, u, u, 1),
    u = ``skeleton.metres_per_unit`` (``[rig] units``), as if a uniform scale node sat above
    the scene; positions scale by u, rotations do not change. In place; u = 1 leaves every
    byte alone."""
    u = float(getattr(skeleton, "metres_per_unit", 1.0))
    if u != 1.0:
        with np.errstate(invalid="ignore", over="ignore"):
            model[..., :3, :] *= u
    return model


def _fk_arrays(levels, rest_matrix, t, r, s, use_rest_matrix: np.ndarray, *, unit: bool = False):
    """(model matrices (B, N, 4, 4), model rotations (B, N, 4)) from (N, B, ·) local TRS.

    Each bone's model matrix is parent · T·R·S and its model rotation the
    product of local rotations along the chain, one batched matmul per depth
    level for both (:func:`_model_matrices_and_rotations`).
    ``unit`` says r is already normalised.
    """
    rq = np.asarray(r, dtype=np.float64)
    if not unit:
        rq = normalize_quat(rq)
    rq = rq.transpose(2, 1, 0)  # (4, B, N)
    sb = np.asarray(s, dtype=np.float64).transpose(2, 1, 0)
    tb = np.asarray(t, dtype=np.float64).transpose(2, 1, 0)
    # non-finite keys (hostile files) give NaN poses, not RuntimeWarnings (e.g. 0·inf scale)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return _model_matrices_and_rotations(levels, rq, tb, None if (sb == 1.0).all() else sb, rest_matrix, use_rest_matrix)


def forward_kinematics(
    skeleton: Skeleton,
    t: np.ndarray,
    r: np.ndarray,
    s: np.ndarray,
    *,
    use_rest_matrix: Optional[np.ndarray] = None,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Local TRS (N,B,·) -> (model_matrix (N,B,4,4), model_position_m (N,B,3), model_rotation (N,B,4)).

    model_matrix[b] = model_matrix[parent] · T·R·S (roots: T·R·S);
    model_rotation[b] = model_rotation[parent] · r[b], normalised, w >= 0.
    ``use_rest_matrix`` (B,) bool selects bones whose local matrix is the exact
    ``skeleton.rest_matrix``; by default those authored with ``matrix`` whose
    given TRS equals their rest TRS at every frame.
    """
    t = np.asarray(t, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    if use_rest_matrix is None:
        use_rest_matrix = _rest_pose_bones(skeleton, t, r, s)
    model, rotation = fk_bone_major(skeleton, t, r, s, np.asarray(use_rest_matrix, dtype=bool))
    matrix = model.transpose(1, 0, 2, 3)
    position = np.ascontiguousarray(matrix[..., :3, 3])
    return matrix, position, np.ascontiguousarray(rotation.transpose(1, 0, 2))
