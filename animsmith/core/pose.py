"""Local poses and forward kinematics over frames x bones (vectorised numpy).

* Local pose: every bone starts from its rest TRS; each channel overwrites its
  component with the sampled value (absolute local values, not offsets); when
  two channels target the same (bone, path) the later one in the clip wins.
* Forward kinematics, parents first: model matrix = parent model matrix x
  local T·R·S (a root uses its own local matrix). Every glTF node is a bone, so
  non-joint ancestors (an ``Armature`` scaled 0.01, a Z-up matrix) move their
  children. A node authored with ``matrix`` whose pose is its rest pose uses
  that exact matrix (shear included).
* Model rotation = product of the local rotations along the chain (parent x
  child), independent of scale, unit length with w >= 0.
* Model position = translation column of the model matrix.

Channels are sampled in groups that share one key-time array, interpolation
and component width (one search / gather / blend per group), and FK runs one
batched 4x4 matmul per depth level of the hierarchy.
"""

from __future__ import annotations

import math
import weakref
from operator import attrgetter
from typing import Dict, List, Optional, Tuple

import numpy as np

from animsmith.core.sampling import _normalize_cm, _segments, normalize_quat, sample_component_major
from animsmith.memo import memo
from animsmith.model import PATH_WIDTH, Clip, PoseGrid, Skeleton, bone_depths

# --------------------------------------------------------------------------
# Times
# --------------------------------------------------------------------------


def _max_finite_time_s(arrays: List[np.ndarray]) -> float:
    """max(0, largest finite value over ``arrays``); 0.0 when there is none."""
    best = -math.inf
    for t in arrays:
        t = np.asarray(t).reshape(-1)
        if t.shape[0] == 0:
            continue
        top = float(np.maximum.reduce(t))
        if not math.isfinite(top):  # NaN or +inf among the keys, or all -inf
            finite = t[np.isfinite(t)]
            if not finite.size:
                continue
            top = float(finite.max())
        best = max(best, top)
    return max(0.0, best) if best > -math.inf else 0.0


def clip_duration_s(clip: Clip) -> float:
    """``clip.duration_s``: the largest finite key time of any channel (0.0 when none).

    Same definition, computed once per distinct key-time array instead of
    once per channel.
    """
    return _max_finite_time_s(clip.distinct_times())


def _uniform_times_s(n: int, duration: float) -> np.ndarray:
    """t_i = duration·i/(n−1), i = 0..n−1, with t[n−1] = duration exactly."""
    t = duration * np.arange(n, dtype=np.float64) / (n - 1)
    t[-1] = duration
    return t


#: a grid time this many float32 steps or fewer from a key of the clip's longest key-time
#: array is that key (the float64 frame time i·D/(N−1) often lands one step below the
#: float32 key, and a STEP channel would then hold the previous key)
SNAP_F32_STEPS = 4


def snapped_to_keys(t: np.ndarray, times_arrays, *, increasing: bool = True) -> np.ndarray:
    """``t`` with each sample that is within :data:`SNAP_F32_STEPS` float32 steps of a key of
    any key-time array (finite, strictly increasing) set to the largest such key, so no
    channel sees the sample just before its key; with ``increasing`` (a grid), unchanged
    when that would not keep the grid strictly increasing (only millions of keys per second
    come that close). ``increasing=False``: ``t`` in any order (a retimed member's source
    times wrap around the cycle), every sample snapped on its own.

    All arrays' keys are merged once (O((K + N) log K) for K keys, N samples); the keys
    within a sample's window are at most a few float32 values (key times are float32, as
    loaded), looked at from the top. Keys and samples beyond float32's range never snap.
    """
    valid = []
    for keys in times_arrays:
        k = np.asarray(keys, dtype=np.float64)
        if k.shape[0] == 0:
            continue
        with np.errstate(invalid="ignore"):
            if np.isfinite(k).all() and (k[1:] > k[:-1]).all():
                valid.append(k)
    if not valid:
        return t
    k = np.unique(np.concatenate(valid)) if len(valid) > 1 else valid[0]
    with np.errstate(over="ignore", invalid="ignore"):
        tol = SNAP_F32_STEPS * np.spacing(np.abs(k).astype(np.float32)).astype(np.float64)
        window = 2.0 * SNAP_F32_STEPS * np.spacing(np.abs(t).astype(np.float32)).astype(np.float64)
    # beyond float32's range there is no float32 step: no snapping there
    tol[~np.isfinite(tol)] = 0.0
    window[~np.isfinite(window)] = 0.0
    if k.shape == t.shape and (np.abs(t - k) <= tol).all() and (k[1:] - k[:-1] > window[1:] + window[:-1]).all():
        # one key per frame, each near its frame and no window reaching a second key: the
        # grid is the keys (the usual baked clip)
        return k.copy()
    # the keys that can be near t_i are k[lo_i..hi_i] (a near key is within the window:
    # 4 steps of a key are at most 8 steps of t_i); look at them from the top, and only
    # at the samples still open (one or two rounds for any real grid)
    lo = np.searchsorted(k, t - window, side="left")
    hi = np.searchsorted(k, t + window, side="right") - 1
    best = np.full(t.shape, np.nan)
    rows = np.flatnonzero(hi >= lo)
    j = hi[rows]
    for _ in range(4 * SNAP_F32_STEPS + 2):  # float32 values in a window, from the top
        if not rows.shape[0]:
            break
        near = np.abs(t[rows] - k[j]) <= tol[j]
        best[rows[near]] = k[j[near]]
        keep = ~near & (j > lo[rows])
        rows, j = rows[keep], j[keep] - 1
    hit = ~np.isnan(best)
    if not hit.any():
        return t
    snapped = np.where(hit, best, t)
    return snapped if not increasing or (snapped[1:] > snapped[:-1]).all() else t


def grid_times_s(clip: Clip, duration_s: Optional[float] = None) -> np.ndarray:
    """Judged grid: t_i = duration·i/(N−1), i = 0..N−1, N = max(2, largest key count); a
    t_i within four float32 steps of keys is the largest such key (the frames are sampled
    at their keys, not one rounding step before them).

    The last sample is exactly the clip duration (``duration_s`` when given).
    """
    times = clip.distinct_times()
    return _judged_times(times, _max_finite_time_s(times) if duration_s is None else float(duration_s))


def _judged_times(times, duration: float) -> np.ndarray:
    """:func:`grid_times_s` from the clip's distinct key-time arrays and its duration."""
    n = max(2, max((t.shape[0] for t in times), default=0))
    t = snapped_to_keys(_uniform_times_s(n, duration), times)
    t[-1] = duration
    return t


# --------------------------------------------------------------------------
# Local pose
# --------------------------------------------------------------------------

_PATHS = ("translation", "rotation", "scale")


def _winner_map(skeleton: Skeleton, clip: Clip) -> Dict[Tuple[int, str], object]:
    """{(bone, path): channel}: the last valid channel in clip order decides; invalid targets dropped."""
    bones = skeleton.bone_count
    return {
        (ch.bone, ch.path): ch
        for ch in clip.channels
        if ch.path in PATH_WIDTH and 0 <= ch.bone < bones and len(ch.times)
    }


def _winning_channels(skeleton: Skeleton, clip: Clip) -> List:
    """Channels that decide a (bone, path): the last one in clip order; invalid targets dropped."""
    return list(_winner_map(skeleton, clip).values())


_BONE = attrgetter("bone")
_PATH = attrgetter("path")


def _key_bytes(times: np.ndarray, cache: Dict[int, bytes]) -> bytes:
    """The float32 bytes of a key-time array, computed once per array (``cache`` by id)."""
    kb = cache.get(id(times))
    if kb is None:
        kb = cache[id(times)] = np.asarray(times, dtype=np.float32).tobytes()
    return kb


def _channel_groups(channels, key_cache: Optional[Dict[int, bytes]] = None) -> List[List]:
    """Group channels by (interpolation, rotation?, key-time bytes) for batched sampling."""
    groups: Dict[tuple, List] = {}
    cache = {} if key_cache is None else key_cache
    for ch in channels:
        kb = cache.get(id(ch.times))  # _key_bytes, inlined: one lookup per channel
        if kb is None:
            kb = _key_bytes(ch.times, cache)
        groups.setdefault((ch.interpolation, ch.path == "rotation", kb), []).append(ch)
    return list(groups.values())


# (key-time bytes, query-time bytes) -> segment_index(...): pure function of its
# inputs, shared by every clip with the same key times and grid (read-only arrays).
_SEGMENTS: Dict[Tuple[bytes, bytes], tuple] = {}
_SEGMENTS_MAX = 512


def _cached_segments(times_f32: np.ndarray, key_bytes: bytes, times_s: np.ndarray, times_bytes: bytes) -> tuple:
    """``segment_index(times_f32, times_s)``, memoised on the two arrays' bytes (K >= 2)."""
    return memo(_SEGMENTS, _SEGMENTS_MAX, (key_bytes, times_bytes), lambda: _read_only_arrays(_segments(times_f32, times_s)))


def _read_only_arrays(arrays: tuple) -> tuple:
    for a in arrays:
        a.setflags(write=False)
    return arrays


def _sample_group(group: List, times_s: np.ndarray, seg=None) -> np.ndarray:
    """Component-major (C, n, T) samples of channels sharing key times and interpolation.

    Caller holds an error state ignoring invalid/divide/overflow.
    """
    first = group[0]
    values = first.values[None] if len(group) == 1 else np.array([ch.values for ch in group])
    it = ot = None
    if first.interpolation == "CUBICSPLINE":
        zeros = np.zeros(first.values.shape, dtype=np.float32)
        it = np.array([zeros if ch.in_tangents is None else ch.in_tangents for ch in group]).transpose(2, 0, 1)
        ot = np.array([zeros if ch.out_tangents is None else ch.out_tangents for ch in group]).transpose(2, 0, 1)
    return sample_component_major(
        first.times, values.transpose(2, 0, 1), first.interpolation, first.path == "rotation", times_s, seg, it, ot
    )


def _group_segments(group: List, times_s: np.ndarray, key_cache: Dict[int, bytes], times_bytes: bytes):
    """Memoised segments for a LINEAR/CUBICSPLINE group with >= 2 keys, else None."""
    first = group[0]
    if first.interpolation == "STEP" or first.times.shape[0] < 2:
        return None
    return _cached_segments(first.times, _key_bytes(first.times, key_cache), times_s, times_bytes)


def _local_pose_and_animated(skeleton: Skeleton, clip: Clip, times_s: np.ndarray, winners=None):
    """Local TRS (N, B, ·) of every bone and the (B,) animated mask."""
    n = times_s.shape[0]
    if winners is None:
        winners = _winning_channels(skeleton, clip)
    b = skeleton.bone_count
    t = np.empty((n, b, 3))
    t[:] = skeleton.rest_translation
    r = np.empty((n, b, 4))
    r[:] = normalize_quat(np.asarray(skeleton.rest_rotation, dtype=np.float64))
    s = np.empty((n, b, 3))
    s[:] = skeleton.rest_scale
    animated = np.zeros(b, dtype=bool)
    targets = {"translation": t, "rotation": r, "scale": s}
    key_cache: Dict[int, bytes] = {}
    times_bytes = times_s.tobytes()
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for group in _channel_groups(winners, key_cache):
            out = _sample_group(group, times_s, _group_segments(group, times_s, key_cache, times_bytes))
            out = out.transpose(2, 1, 0)  # (T, n, C)
            bones = np.array(list(map(_BONE, group)), dtype=np.intp)
            animated[bones] = True
            paths = list(map(_PATH, group))
            if paths.count(paths[0]) == len(paths):
                targets[paths[0]][:, bones] = out
            else:
                is_t = np.fromiter((p == "translation" for p in paths), dtype=bool, count=len(paths))
                t[:, bones[is_t]] = out[:, is_t]
                s[:, bones[~is_t]] = out[:, ~is_t]
    return t, r, s, animated


def local_pose(skeleton: Skeleton, clip: Clip, times_s) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Local (translation (N,B,3), rotation (N,B,4), scale (N,B,3)) at ``times_s``.

    Rest TRS, overwritten per (bone, path) by the last channel targeting it.
    """
    times_s = np.asarray(times_s, dtype=np.float64).reshape(-1)
    t, r, s, _ = _local_pose_and_animated(skeleton, clip, times_s)
    return t, r, s


# --------------------------------------------------------------------------
# Forward kinematics
# --------------------------------------------------------------------------

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


def _chain(levels, local: np.ndarray) -> np.ndarray:
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
    """(9, ...) rotation-matrix entries (row order above) of component-major unit quaternions q (4, ...), x2 = x + x."""
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


def _frame_chunks(n: int):
    """(lo, hi) frame ranges of at most FK_CHUNK_FRAMES covering 0..n."""
    return [(lo, min(n, lo + FK_CHUNK_FRAMES)) for lo in range(0, n, FK_CHUNK_FRAMES)]


def _local_matrices(rq: np.ndarray, t: np.ndarray, s: Optional[np.ndarray], rest_matrix, fixed: np.ndarray) -> np.ndarray:
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
    """The model rotations (last columns of chained L matrices), sign-flipped to w >= 0."""
    q = lm[..., :, 3]
    return q * np.where(q[..., 3:4] < 0, -1.0, 1.0)


def _model_rotations(levels, rq: np.ndarray) -> np.ndarray:
    """Bone-major model rotations (B, N, 4) from component-major unit rotations rq (4, B, N):
    the quaternion left-multiplication matrices L(parent model) · L(rq) chained per depth
    level; the last column is the model rotation (a product of unit quaternions),
    sign-flipped to w >= 0."""
    b, n = rq.shape[1], rq.shape[2]
    if n > FK_CHUNK_FRAMES:
        out = np.empty((b, n, 4))
        for lo, hi in _frame_chunks(n):
            out[:, lo:hi] = _model_rotations(levels, rq[:, :, lo:hi])
        return out
    return _rotation_column(_chain(levels, _left_matrices(rq)))


def _model_matrices_and_rotations(levels, rq, t, s, rest_matrix, fixed) -> Tuple[np.ndarray, np.ndarray]:
    """Bone-major model matrices (B, N, 4, 4) = parent model · T·R·S (:func:`_local_matrices`)
    and model rotations (B, N, 4) (:func:`_model_rotations`) in one chain: both kinds of
    4x4 matrix stacked along the frame axis, so each depth level is one batched matmul
    (the same products, the same bytes), in passes of FK_CHUNK_FRAMES frames."""
    b, n = rq.shape[1], rq.shape[2]
    model = np.empty((b, n, 4, 4))
    rot = np.empty((b, n, 4))
    for lo, hi in _frame_chunks(n):
        k = hi - lo
        part = None if s is None else s[:, :, lo:hi]
        both = np.concatenate(
            [_local_matrices(rq[:, :, lo:hi], t[:, :, lo:hi], part, rest_matrix, fixed), _left_matrices(rq[:, :, lo:hi])], axis=1
        )
        _chain(levels, both)
        model[:, lo:hi] = both[:, :k]
        rot[:, lo:hi] = _rotation_column(both[:, k:])
    return model, rot


def _fk_bone_major(skeleton: Skeleton, t, r, s, use_rest_matrix: np.ndarray, *, unit: bool = False):
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
    model, rotation = _fk_bone_major(skeleton, t, r, s, np.asarray(use_rest_matrix, dtype=bool))
    matrix = model.transpose(1, 0, 2, 3)
    position = np.ascontiguousarray(matrix[..., :3, 3])
    return matrix, position, np.ascontiguousarray(rotation.transpose(1, 0, 2))


# --------------------------------------------------------------------------
# Pose grids
# --------------------------------------------------------------------------


def sample_pose(skeleton: Skeleton, clip: Clip, times_s, *, duration_s: Optional[float] = None) -> PoseGrid:
    """Sample ``clip`` at arbitrary ``times_s`` and run forward kinematics."""
    times_s = np.asarray(times_s, dtype=np.float64).reshape(-1)
    t, r, s, animated = _local_pose_and_animated(skeleton, clip, times_s)
    fixed = np.asarray(skeleton.has_matrix, dtype=bool) & ~animated
    model, rot_bm = _fk_bone_major(skeleton, t, r, s, fixed, unit=True)
    matrix = model.transpose(1, 0, 2, 3)
    position = np.ascontiguousarray(matrix[..., :3, 3])
    rotation = np.ascontiguousarray(rot_bm.transpose(1, 0, 2))
    return PoseGrid(
        times_s=times_s,
        local_translation=t,
        local_rotation=r,
        local_scale=s,
        model_matrix=matrix,
        model_position_m=position,
        model_rotation=rotation,
        duration_s=clip_duration_s(clip) if duration_s is None else float(duration_s),
    )


def key_span_grid(skeleton: Skeleton, clip: Clip) -> PoseGrid:
    """The clip's keys' own span, [first key, last key], sampled like :func:`pose_grid`
    (N = max(2, largest key count) uniform samples, snapped to keys): the cycle a loop
    repeats. Equal to :func:`pose_grid` when the keys start at 0; a clip whose keys
    start later holds its first pose from 0 s until then, and that hold is not part of
    the cycle's motion (the loop checks judge the wrap from the last key to the first on
    this grid; ``duplicate-loop-endpoint`` reports the hold)."""
    times = clip.distinct_times()
    duration = _max_finite_time_s(times)
    start = float(clip.start_s)
    if not (math.isfinite(start) and 0.0 < start < duration):
        return pose_grid(skeleton, clip)
    n = max(2, max((t.shape[0] for t in times), default=0))
    t = snapped_to_keys(start + _uniform_times_s(n, duration - start), times)
    t[0], t[-1] = start, duration
    return LazyPoseGrid(skeleton, clip, t, duration)


def pose_grid(skeleton: Skeleton, clip: Clip) -> PoseGrid:
    """The judged grid of ``clip``: :func:`sample_pose` at :func:`grid_times_s`.

    Returned as a :class:`LazyPoseGrid`: the same values, but forward
    kinematics runs only for the bones a caller asks for (their ancestor
    chains), once per bone; reading a full-skeleton attribute computes it all.
    """
    times = clip.distinct_times()
    duration = _max_finite_time_s(times)
    return LazyPoseGrid(skeleton, clip, _judged_times(times, duration), duration)


def _samples_independent(clip: Clip) -> bool:
    """Every sample of ``clip`` depends only on its own time: key times finite and
    non-decreasing.

    On sorted key times the segment search has one answer per query time
    (numpy's ``searchsorted`` on unsorted or NaN times can depend on the other
    query times); interpolation, ``sampling._exact_ends`` and the FK chain then
    work sample by sample, whatever the key values (NaN and Inf included).
    """
    for t in clip.distinct_times():
        if t.shape[0] and not (np.isfinite(t).all() and (t[1:] >= t[:-1]).all()):
            return False
    return True


class _SubsetPlan:
    """The ancestor closure of some bones, ordered by (depth, bone index).

    ``bones`` (S,) skeleton indices; ``slot`` {bone: position}; ``levels``
    [(slice of one depth's positions, their parents' positions)] for
    :func:`_chain`, parents as a slice when they are one bone (broadcast) or
    a contiguous run, else an index array.
    """

    __slots__ = ("bones", "bone_list", "slot", "levels")

    def __init__(self, parents: np.ndarray, wanted) -> None:
        seen = set()
        for b in wanted:
            b = int(b)
            while b >= 0 and b not in seen:
                seen.add(b)
                b = int(parents[b])
        depth = bone_depths(parents).tolist()
        order = sorted(seen, key=lambda b: (depth[b], b))
        self.bone_list = order
        self.bones = np.array(order, dtype=np.intp)
        self.slot = {b: i for i, b in enumerate(order)}
        self.levels = []
        lo = 0
        while lo < len(order):
            hi = lo
            while hi < len(order) and depth[order[hi]] == depth[order[lo]]:
                hi += 1
            if depth[order[lo]] > 0:
                par = [self.slot[int(parents[b])] for b in order[lo:hi]]
                self.levels.append((slice(lo, hi), _index_or_slice(par)))
            lo = hi


def _index_or_slice(idx: List[int]):
    """A slice selecting the same rows as ``idx`` when one exists (one repeated row broadcasts), else an array."""
    if all(i == idx[0] for i in idx):
        return slice(idx[0], idx[0] + 1)
    if all(b - a == 1 for a, b in zip(idx, idx[1:])):
        return slice(idx[0], idx[-1] + 1)
    return np.array(idx, dtype=np.intp)


# (parents bytes, requested bones) -> _SubsetPlan: every file with the same
# hierarchy shares one plan.
_PLANS: Dict[Tuple[bytes, tuple], _SubsetPlan] = {}
_PLANS_MAX = 4096


def _subset_plan(parents: np.ndarray, bones: List[int]) -> _SubsetPlan:
    return memo(_PLANS, _PLANS_MAX, (parents.tobytes(), tuple(bones)), lambda: _SubsetPlan(parents, bones))


class _Block:
    """One computed ancestor closure: positions (N, S, 3) and unit local rotations (4, S, N)."""

    __slots__ = ("plan", "pos", "rq")

    def __init__(self, plan: _SubsetPlan, pos: np.ndarray, rq: np.ndarray) -> None:
        self.plan = plan
        self.pos = pos
        self.rq = rq


class LazyPoseGrid(PoseGrid):
    """A judged :class:`PoseGrid` whose forward kinematics runs per bone on demand.

    ``model_positions_m(bones)`` / ``model_rotations(bones)`` sample only the
    channels of those bones and their ancestors and run FK on that chain
    closure; each bone's result is cached, so every check and metric shares
    one computation per bone (model rotations are chained only when first
    asked for). The full-skeleton attributes (``local_*``, ``model_matrix``,
    ``model_position_m``, ``model_rotation``) are computed on first access,
    exactly as :func:`sample_pose` would.
    """

    def __init__(self, skeleton: Skeleton, clip: Clip, times_s: np.ndarray, duration_s: float):  # noqa: D107
        # PoseGrid's dataclass __init__ is deliberately not called: the array
        # fields are properties here.
        self.times_s = np.asarray(times_s, dtype=np.float64).reshape(-1)
        self.duration_s = float(duration_s)
        self._skeleton = skeleton
        self._clip = clip
        self._full: Optional[PoseGrid] = None
        self._winners: Optional[Dict[Tuple[int, str], object]] = None
        self._key_cache: Dict[int, bytes] = {}
        self._times_bytes: Optional[bytes] = None
        self._pos: Dict[int, Tuple[_Block, int]] = {}  # bone -> (block, position in it)
        self._rot: Dict[int, np.ndarray] = {}  # bone -> (N, 4)
        self._primed: Dict[tuple, PoseGrid] = {}  # frames -> pose_at result (batch_pose_at)

    def __repr__(self) -> str:
        state = "full" if self._full is not None else f"{len(self._pos)} bone(s)"
        return f"LazyPoseGrid(frames={self.frame_count}, bones={self._skeleton.bone_count}, computed={state})"

    # -- full skeleton -----------------------------------------------------
    def _full_grid(self) -> PoseGrid:
        if self._full is None:
            self._full = sample_pose(self._skeleton, self._clip, self.times_s, duration_s=self.duration_s)
        return self._full

    local_translation = property(lambda self: self._full_grid().local_translation)
    local_rotation = property(lambda self: self._full_grid().local_rotation)
    local_scale = property(lambda self: self._full_grid().local_scale)
    model_matrix = property(lambda self: self._full_grid().model_matrix)
    model_position_m = property(lambda self: self._full_grid().model_position_m)
    model_rotation = property(lambda self: self._full_grid().model_rotation)

    # -- bone subsets ------------------------------------------------------
    def _bones(self, bones) -> List[int]:
        if type(bones) is list and all(type(b) is int for b in bones):
            out = bones
        else:
            out = [int(b) for b in np.asarray(bones, dtype=np.intp).reshape(-1)]
        count = self._skeleton.bone_count
        for b in out:
            if not -count <= b < count:
                raise IndexError(f"bone {b} out of range for {count} bones")
        return [b % count for b in out]

    def _ensure(self, bones: List[int]) -> None:
        if self._full is not None:
            return
        todo = [b for b in bones if b not in self._pos]
        if not todo:
            return
        plan = _subset_plan(np.asarray(self._skeleton.parents, dtype=np.intp), todo)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            block = self._block(plan)
        for i, b in enumerate(plan.bone_list):
            if b not in self._pos:
                self._pos[b] = (block, i)

    def _block(self, plan: _SubsetPlan) -> _Block:
        """Sample the plan's bones (channel groups as :func:`_local_pose_and_animated`) and chain their model matrices."""
        skel = self._skeleton
        if self._winners is None:
            self._winners = _winner_map(skel, self._clip)
            self._times_bytes = self.times_s.tobytes()
        win = self._winners
        sub = plan.bones
        b, n = sub.shape[0], self.times_s.shape[0]
        groups: Dict[tuple, list] = {}
        animated = [False] * b
        cache = self._key_cache
        for i, bone in enumerate(plan.bone_list):
            for path in _PATHS:
                ch = win.get((bone, path))
                if ch is not None:
                    animated[i] = True
                    kb = cache.get(id(ch.times))
                    if kb is None:
                        kb = _key_bytes(ch.times, cache)
                    groups.setdefault((ch.interpolation, path == "rotation", kb), []).append((i, ch))
        # component-major local pose of the plan's bones: rq (4, S, N), t and s (3, S, N)
        rq = np.empty((4, b, n))
        t = np.empty((3, b, n))
        t[:] = np.asarray(skel.rest_translation)[sub].T[:, :, None]
        s = None
        rot_done = [False] * b
        for members in groups.values():
            group = [ch for _, ch in members]
            slots = [i for i, _ in members]
            out = _sample_group(group, self.times_s, _group_segments(group, self.times_s, cache, self._times_bytes))
            if group[0].path == "rotation":
                rq[:, slots] = out
                for i in slots:
                    rot_done[i] = True
                continue
            for j, (i, ch) in enumerate(members):
                if ch.path == "translation":
                    t[:, i] = out[:, j]
                else:
                    if s is None:
                        s = np.empty((3, b, n))
                        s[:] = np.asarray(skel.rest_scale)[sub].T[:, :, None]
                    s[:, i] = out[:, j]
        rest_rot = [i for i in range(b) if not rot_done[i]]
        if rest_rot:
            rest_q = np.asarray(skel.rest_rotation, dtype=np.float64)[sub[rest_rot]].T  # (4, R)
            rq[:, rest_rot] = _normalize_cm(rest_q)[:, :, None]
        if s is None:
            rest_s = np.asarray(skel.rest_scale)[sub]
            if not (rest_s == 1.0).all():
                s = np.empty((3, b, n))
                s[:] = rest_s.T[:, :, None]
        fixed = np.asarray(skel.has_matrix, dtype=bool)[sub] & ~np.array(animated, dtype=bool)
        rest = np.asarray(skel.rest_matrix)[sub]
        pos = np.empty((n, b, 3))
        for lo, hi in _frame_chunks(n):  # only positions are kept: no (S, N, 4, 4) array for a long clip
            part = None if s is None else s[:, :, lo:hi]
            model = _chain(plan.levels, _local_matrices(rq[:, :, lo:hi], t[:, :, lo:hi], part, rest, fixed))
            pos[lo:hi] = model[:, :, :3, 3].transpose(1, 0, 2)
        u = float(getattr(skel, "metres_per_unit", 1.0))
        if u != 1.0:  # metres, as _to_metres does for the full grid
            with np.errstate(invalid="ignore", over="ignore"):
                pos *= u
        return _Block(plan, pos, rq)

    def _ensure_rotations(self, bones: List[int]) -> None:
        todo = [b for b in bones if b not in self._rot]
        if not todo:
            return
        self._ensure(todo)
        by_block: Dict[int, Tuple[_Block, List[int]]] = {}
        for b in todo:
            block = self._pos[b][0]
            by_block.setdefault(id(block), (block, []))[1].append(b)
        parents = np.asarray(self._skeleton.parents, dtype=np.intp)
        for block, wanted in by_block.values():
            plan = _subset_plan(parents, wanted)  # closed under ancestors, so inside the block
            rows = [block.plan.slot[b] for b in plan.bone_list]
            rot = _model_rotations(plan.levels, block.rq[:, rows])
            for i, b in enumerate(plan.bone_list):
                if b not in self._rot:
                    self._rot[b] = rot[i]

    def pose_at(self, frames) -> PoseGrid:
        """The rows ``frames`` of the full grid, as a :class:`PoseGrid` of k samples.

        Each sample's pose depends only on its own time (interpolation and the FK
        chain run sample by sample), so the skeleton is sampled and chained at
        those times only — a few hundred rows of a 200,000-frame clip cost what
        they cost, not the whole grid — unless the full grid is already there.
        """
        idx = np.asarray(frames, dtype=np.intp).reshape(-1)
        if self._primed:
            got = self._primed.pop(tuple(idx.tolist()), None)
            if got is not None and self._full is None:
                return got
        if self._full is None and _samples_independent(self._clip):
            return sample_pose(self._skeleton, self._clip, self.times_s[idx], duration_s=self.duration_s)
        # unsorted or NaN key times: a segment search that depends on the other times
        return _rows(self._full_grid(), idx)

    def model_pose_at(self, frames) -> Tuple[np.ndarray, np.ndarray]:
        """(positions (k, B, 3), rotations (k, B, 4)) of every bone at grid samples ``frames``:
        the same values as ``model_position_m[frames]`` / ``model_rotation[frames]`` (:meth:`pose_at`)."""
        some = self.pose_at(frames)
        return some.model_position_m, some.model_rotation

    def model_positions_m(self, bones) -> np.ndarray:
        """(N, len(bones), 3) model positions of ``bones`` (same values as ``model_position_m[:, bones]``)."""
        idx = self._bones(bones)
        if self._full is not None:
            return self._full.model_position_m[:, idx]
        self._ensure(idx)
        if not idx:
            return np.empty((self.times_s.shape[0], 0, 3))
        where = [self._pos[b] for b in idx]
        block = where[0][0]
        if all(w[0] is block for w in where):
            return block.pos[:, [w[1] for w in where]]
        return np.stack([w[0].pos[:, w[1]] for w in where], axis=1)

    def model_rotations(self, bones) -> np.ndarray:
        """(N, len(bones), 4) model rotations of ``bones`` (same values as ``model_rotation[:, bones]``)."""
        idx = self._bones(bones)
        if self._full is not None:
            return self._full.model_rotation[:, idx]
        self._ensure_rotations(idx)
        if not idx:
            return np.empty((self.times_s.shape[0], 0, 4))
        return np.stack([self._rot[b] for b in idx], axis=1)


def batch_pose_at(requests) -> None:
    """Compute :meth:`LazyPoseGrid.pose_at` for several grids of one skeleton in one batch.

    ``requests``: ``[(grid, frames)]``. Each lazy grid whose samples are independent
    (:func:`_samples_independent`) is sampled at its own frames as :func:`sample_pose`
    does; grids on the same skeleton (and with the same bones held at their authored
    matrix) then share one forward-kinematics pass over all their samples, and each
    grid's next ``pose_at(frames)`` returns its part. FK works sample by sample (each
    4x4 product on its own), so a sample's result does not depend on the samples batched
    with it: the same bytes as one :func:`sample_pose` per grid, with one chain of
    per-level products instead of one per grid (several clips of one file). Anything
    unusual (full grid already built, unsorted or NaN key times, a single grid) is left
    to ``pose_at`` itself.
    """
    batches: Dict[tuple, tuple] = {}
    for grid, frames in requests:
        if not isinstance(grid, LazyPoseGrid) or grid._full is not None or not _samples_independent(grid._clip):
            continue
        idx = np.asarray(frames, dtype=np.intp).reshape(-1)
        times = grid.times_s[idx]
        skel = grid._skeleton
        t, r, s, animated = _local_pose_and_animated(skel, grid._clip, times)
        fixed = np.asarray(skel.has_matrix, dtype=bool) & ~animated
        batches.setdefault((id(skel), fixed.tobytes()), (skel, fixed, []))[2].append((grid, idx, times, t, r, s))
    for skel, fixed, items in batches.values():
        if len(items) < 2:
            continue
        # a batch with non-unit scale multiplies the others' rotation rows by 1.0: exact
        model, rot_bm = _fk_bone_major(
            skel,
            np.concatenate([it[3] for it in items]),
            np.concatenate([it[4] for it in items]),
            np.concatenate([it[5] for it in items]),
            fixed,
            unit=True,
        )
        lo = 0
        for grid, idx, times, t, r, s in items:
            hi = lo + times.shape[0]
            matrix = model[:, lo:hi].transpose(1, 0, 2, 3)
            grid._primed[tuple(idx.tolist())] = PoseGrid(
                times_s=times,
                local_translation=t,
                local_rotation=r,
                local_scale=s,
                model_matrix=matrix,
                model_position_m=np.ascontiguousarray(matrix[..., :3, 3]),
                model_rotation=np.ascontiguousarray(rot_bm[:, lo:hi].transpose(1, 0, 2)),
                duration_s=grid.duration_s,
            )
            lo = hi


def model_positions_m(grid: PoseGrid, bones) -> np.ndarray:
    """(N, len(bones), 3) model positions of ``bones`` from any pose grid (lazy grids compute only those)."""
    fn = getattr(grid, "model_positions_m", None)
    if callable(fn):
        return fn(bones)
    return np.asarray(grid.model_position_m)[:, np.asarray(bones, dtype=np.intp).reshape(-1)]


def _rows(grid: PoseGrid, idx: np.ndarray) -> PoseGrid:
    """The samples ``idx`` of a pose grid, as a pose grid."""
    return PoseGrid(
        times_s=np.asarray(grid.times_s)[idx],
        local_translation=np.asarray(grid.local_translation)[idx],
        local_rotation=np.asarray(grid.local_rotation)[idx],
        local_scale=np.asarray(grid.local_scale)[idx],
        model_matrix=np.asarray(grid.model_matrix)[idx],
        model_position_m=np.asarray(grid.model_position_m)[idx],
        model_rotation=np.asarray(grid.model_rotation)[idx],
        duration_s=grid.duration_s,
    )


def pose_at(grid: PoseGrid, frames) -> PoseGrid:
    """Samples ``frames`` of any pose grid as a pose grid (lazy grids sample and chain those times only)."""
    fn = getattr(grid, "pose_at", None)
    if callable(fn):
        return fn(frames)
    return _rows(grid, np.asarray(frames, dtype=np.intp).reshape(-1))


def model_pose_at(grid: PoseGrid, frames) -> Tuple[np.ndarray, np.ndarray]:
    """(positions (k, B, 3), rotations (k, B, 4)) of every bone at samples ``frames`` of any
    pose grid (lazy grids run FK at those samples only)."""
    fn = getattr(grid, "model_pose_at", None)
    if callable(fn):
        return fn(frames)
    idx = np.asarray(frames, dtype=np.intp).reshape(-1)
    return np.asarray(grid.model_position_m)[idx], np.asarray(grid.model_rotation)[idx]


def model_rotations(grid: PoseGrid, bones) -> np.ndarray:
    """(N, len(bones), 4) model rotations of ``bones`` from any pose grid (lazy grids compute only those)."""
    fn = getattr(grid, "model_rotations", None)
    if callable(fn):
        return fn(bones)
    return np.asarray(grid.model_rotation)[:, np.asarray(bones, dtype=np.intp).reshape(-1)]
