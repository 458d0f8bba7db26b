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

import weakref
from typing import Dict, List, Optional, Tuple

import numpy as np

from animsmith.core.sampling import normalize_quat, sample_stacked
from animsmith.model import PATH_WIDTH, Clip, PoseGrid, Skeleton, quat_to_matrix

# --------------------------------------------------------------------------
# Times
# --------------------------------------------------------------------------


def clip_duration_s(clip: Clip) -> float:
    """``clip.duration_s``: the largest finite key time of any channel (0.0 when none).

    Same definition, computed with one concatenation over the distinct key-time
    arrays instead of a reduction per channel.
    """
    seen = {}
    for ch in clip.channels:
        seen.setdefault(id(ch.times), ch.times)
    if not seen:
        return 0.0
    allt = np.concatenate([np.asarray(t, dtype=np.float64).reshape(-1) for t in seen.values()])
    finite = allt[np.isfinite(allt)]
    return max(0.0, float(finite.max())) if finite.size else 0.0


def grid_times_s(clip: Clip, duration_s: Optional[float] = None) -> np.ndarray:
    """Judged grid: t_i = duration·i/(N−1), i = 0..N−1, N = max(2, largest key count).

    The last sample is exactly the clip duration (``duration_s`` when given).
    """
    n = max(2, max((len(ch.times) for ch in clip.channels), default=0))
    duration = clip_duration_s(clip) if duration_s is None else float(duration_s)
    t = duration * np.arange(n, dtype=np.float64) / (n - 1)
    t[-1] = duration
    return t


# --------------------------------------------------------------------------
# Local pose
# --------------------------------------------------------------------------


def _winning_channels(skeleton: Skeleton, clip: Clip) -> List:
    """Channels that decide a (bone, path): the last one in clip order; invalid targets dropped."""
    bones = skeleton.bone_count
    win: Dict[Tuple[int, str], object] = {}
    for ch in clip.channels:
        if ch.path not in PATH_WIDTH or not (0 <= ch.bone < bones) or ch.key_count == 0:
            continue
        win[(ch.bone, ch.path)] = ch
    return list(win.values())


def _channel_groups(channels) -> List[List]:
    """Group channels by (interpolation, width, key-time bytes) for batched sampling."""
    groups: Dict[tuple, List] = {}
    by_id: Dict[int, bytes] = {}
    for ch in channels:
        tid = id(ch.times)
        key_bytes = by_id.get(tid)
        if key_bytes is None:
            key_bytes = np.asarray(ch.times, dtype=np.float32).tobytes()
            by_id[tid] = key_bytes
        rot = ch.path == "rotation"
        k = (ch.interpolation, rot, key_bytes)
        groups.setdefault(k, []).append(ch)
    return list(groups.values())


def _sample_group(group: List, times_s: np.ndarray) -> np.ndarray:
    """(T, n, C) samples for channels sharing key times and interpolation."""
    first = group[0]
    cubic = first.interpolation == "CUBICSPLINE"
    if len(group) == 1:
        values = first.values[:, None, :]
    else:
        values = np.stack([ch.values for ch in group], axis=1)
    it = ot = None
    if cubic:
        zeros = np.zeros(first.values.shape, dtype=np.float32)
        it = np.stack([zeros if ch.in_tangents is None else ch.in_tangents for ch in group], axis=1)
        ot = np.stack([zeros if ch.out_tangents is None else ch.out_tangents for ch in group], axis=1)
    return sample_stacked(
        first.times, values, first.interpolation, first.path == "rotation", times_s, it, ot
    )


def _local_pose_and_animated(skeleton: Skeleton, clip: Clip, times_s: np.ndarray, subset: Optional[np.ndarray] = None, winners=None):
    """Local TRS (N, B, ·) and the (B,) animated mask; with ``subset`` (sorted bone
    indices) only those bones, in that order, and only their channels are sampled."""
    n = times_s.shape[0]
    if winners is None:
        winners = _winning_channels(skeleton, clip)
    if subset is None:
        b = skeleton.bone_count
        rest_t, rest_r, rest_s = skeleton.rest_translation, skeleton.rest_rotation, skeleton.rest_scale
        slot = None
    else:
        b = subset.shape[0]
        rest_t = np.asarray(skeleton.rest_translation)[subset]
        rest_r = np.asarray(skeleton.rest_rotation)[subset]
        rest_s = np.asarray(skeleton.rest_scale)[subset]
        slot = {int(bone): i for i, bone in enumerate(subset)}
        winners = [ch for ch in winners if ch.bone in slot]
    t = np.empty((n, b, 3))
    t[:] = rest_t
    r = np.empty((n, b, 4))
    r[:] = normalize_quat(np.asarray(rest_r, dtype=np.float64))
    s = np.empty((n, b, 3))
    s[:] = rest_s
    animated = np.zeros(b, dtype=bool)
    targets = {"translation": t, "rotation": r, "scale": s}
    for group in _channel_groups(winners):
        out = _sample_group(group, times_s)
        if slot is None:
            bones = np.fromiter((ch.bone for ch in group), dtype=np.intp, count=len(group))
        else:
            bones = np.fromiter((slot[ch.bone] for ch in group), dtype=np.intp, count=len(group))
        animated[bones] = True
        if group[0].path == "rotation":
            r[:, bones] = out
            continue
        paths = [ch.path for ch in group]
        if all(p == paths[0] for p in paths):
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
    depth = np.zeros(parents.shape[0], dtype=np.intp)
    for i, p in enumerate(parents):
        if p >= 0:
            depth[i] = depth[p] + 1
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
    """In place over bone-major (B, N, a, a) local matrices: M[b] = M[parent] · L[b]."""
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


def _rotation_into(q: np.ndarray, out: np.ndarray) -> None:
    """Write the rotation matrices of unit quaternions q (..., 4) into out (..., 3, 3)."""
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    x2, y2, z2 = x + x, y + y, z + z
    xx, yy, zz = x * x2, y * y2, z * z2
    xy, xz, yz = x * y2, x * z2, y * z2
    wx, wy, wz = w * x2, w * y2, w * z2
    out[..., 0, 0] = 1.0 - (yy + zz)
    out[..., 0, 1] = xy - wz
    out[..., 0, 2] = xz + wy
    out[..., 1, 0] = xy + wz
    out[..., 1, 1] = 1.0 - (xx + zz)
    out[..., 1, 2] = yz - wx
    out[..., 2, 0] = xz - wy
    out[..., 2, 1] = yz + wx
    out[..., 2, 2] = 1.0 - (xx + yy)


def _fk_bone_major(skeleton: Skeleton, t, r, s, use_rest_matrix: np.ndarray, *, unit: bool = False):
    """(model matrices (B, N, 4, 4), model rotations (B, N, 4)) of the whole skeleton (see :func:`_fk_arrays`)."""
    return _fk_arrays(_levels(skeleton), skeleton.rest_matrix, t, r, s, use_rest_matrix, unit=unit)


def _fk_arrays(levels, rest_matrix, t, r, s, use_rest_matrix: np.ndarray, *, unit: bool = False):
    """(model matrices (B, N, 4, 4), model rotations (B, N, 4)) from (N, B, ·) local TRS.

    Each bone carries two 4x4 matrices chained together by one batched matmul
    per depth level: its model matrix (parent · T·R·S) and the quaternion
    left-multiplication matrix L of its model rotation (L(parent) · L(r)),
    whose last column is the model rotation quaternion (a product of unit
    quaternions, so unit up to rounding). ``unit`` says r is already normalised.
    """
    rq = np.asarray(r, dtype=np.float64).transpose(1, 0, 2)  # (B, N, 4)
    if not unit:
        rq = normalize_quat(rq)
    b, n = rq.shape[0], rq.shape[1]
    both = np.empty((b, n, 2, 4, 4))
    model = both[:, :, 0]
    lin = model[..., :3, :3]
    _rotation_into(rq, lin)
    sb = np.asarray(s, dtype=np.float64).transpose(1, 0, 2)
    if not (sb == 1.0).all():
        lin *= sb[..., None, :]
    model[..., :3, 3] = np.asarray(t, dtype=np.float64).transpose(1, 0, 2)
    model[..., 3, :] = (0.0, 0.0, 0.0, 1.0)
    both[:, :, 1] = np.matmul(rq, _L_MAP).reshape(b, n, 4, 4)
    fixed = np.nonzero(use_rest_matrix)[0]
    if fixed.size:
        model[fixed] = np.asarray(rest_matrix, dtype=np.float64)[fixed][:, None]
    _chain(levels, both)
    q = both[:, :, 1, :, 3]
    return model, q * np.where(q[..., 3:4] < 0, -1.0, 1.0)


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


def pose_grid(skeleton: Skeleton, clip: Clip) -> PoseGrid:
    """The judged grid of ``clip``: :func:`sample_pose` at :func:`grid_times_s`.

    Returned as a :class:`LazyPoseGrid`: the same values, but forward
    kinematics runs only for the bones a caller asks for (their ancestor
    chains), once per bone; reading a full-skeleton attribute computes it all.
    """
    duration = clip_duration_s(clip)
    return LazyPoseGrid(skeleton, clip, grid_times_s(clip, duration), duration)


def _ancestor_closure(parents: np.ndarray, bones) -> np.ndarray:
    """Sorted bone indices of ``bones`` and all their ancestors (parents first)."""
    seen = set()
    for b in bones:
        b = int(b)
        while b >= 0 and b not in seen:
            seen.add(b)
            b = int(parents[b])
    return np.array(sorted(seen), dtype=np.intp)


def _subset_levels(parents: np.ndarray, subset: np.ndarray):
    """Depth levels [(bones, parents)] of an ancestor-closed ``subset`` in subset-local indices."""
    slot = {int(b): i for i, b in enumerate(subset)}
    local_parent = np.array([slot.get(int(parents[b]), -1) for b in subset], dtype=np.intp)
    depth = np.zeros(subset.shape[0], dtype=np.intp)
    for i, p in enumerate(local_parent):
        if p >= 0:
            depth[i] = depth[p] + 1
    levels = []
    for d in range(1, int(depth.max(initial=0)) + 1):
        idx = np.nonzero(depth == d)[0]
        levels.append((idx, local_parent[idx]))
    return levels


class LazyPoseGrid(PoseGrid):
    """A judged :class:`PoseGrid` whose forward kinematics runs per bone on demand.

    ``model_positions_m(bones)`` / ``model_rotations(bones)`` sample only the
    channels of those bones and their ancestors and run FK on that chain
    closure; each bone's result is cached, so every check and metric shares
    one computation per bone. The full-skeleton attributes (``local_*``,
    ``model_matrix``, ``model_position_m``, ``model_rotation``) are computed
    on first access, exactly as :func:`sample_pose` would.
    """

    def __init__(self, skeleton: Skeleton, clip: Clip, times_s: np.ndarray, duration_s: float):  # noqa: D107
        # PoseGrid's dataclass __init__ is deliberately not called: the array
        # fields are properties here.
        self.times_s = np.asarray(times_s, dtype=np.float64).reshape(-1)
        self.duration_s = float(duration_s)
        self._skeleton = skeleton
        self._clip = clip
        self._full: Optional[PoseGrid] = None
        self._winners = None
        self._pos: Dict[int, np.ndarray] = {}  # bone -> (N, 3)
        self._rot: Dict[int, np.ndarray] = {}  # bone -> (N, 4)

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
        skel = self._skeleton
        parents = np.asarray(skel.parents, dtype=np.intp)
        subset = _ancestor_closure(parents, todo)
        if self._winners is None:
            self._winners = _winning_channels(skel, self._clip)
        t, r, s, animated = _local_pose_and_animated(skel, self._clip, self.times_s, subset, self._winners)
        fixed = np.asarray(skel.has_matrix, dtype=bool)[subset] & ~animated
        rest = np.asarray(skel.rest_matrix, dtype=np.float64)[subset]
        model, rot_bm = _fk_arrays(_subset_levels(parents, subset), rest, t, r, s, fixed, unit=True)
        for i, b in enumerate(subset):
            b = int(b)
            if b not in self._pos:
                self._pos[b] = np.ascontiguousarray(model[i, :, :3, 3])
                self._rot[b] = np.ascontiguousarray(rot_bm[i])

    def model_positions_m(self, bones) -> np.ndarray:
        """(N, len(bones), 3) model positions of ``bones`` (same values as ``model_position_m[:, bones]``)."""
        idx = self._bones(bones)
        if self._full is not None:
            return self._full.model_position_m[:, idx]
        self._ensure(idx)
        n = self.times_s.shape[0]
        if not idx:
            return np.empty((n, 0, 3))
        return np.stack([self._pos[b] for b in idx], axis=1)

    def model_rotations(self, bones) -> np.ndarray:
        """(N, len(bones), 4) model rotations of ``bones`` (same values as ``model_rotation[:, bones]``)."""
        idx = self._bones(bones)
        if self._full is not None:
            return self._full.model_rotation[:, idx]
        self._ensure(idx)
        n = self.times_s.shape[0]
        if not idx:
            return np.empty((n, 0, 4))
        return np.stack([self._rot[b] for b in idx], axis=1)


def model_positions_m(grid: PoseGrid, bones) -> np.ndarray:
    """(N, len(bones), 3) model positions of ``bones`` from any pose grid (lazy grids compute only those)."""
    fn = getattr(grid, "model_positions_m", None)
    if callable(fn):
        return fn(bones)
    return np.asarray(grid.model_position_m)[:, np.asarray(bones, dtype=np.intp).reshape(-1)]


def model_rotations(grid: PoseGrid, bones) -> np.ndarray:
    """(N, len(bones), 4) model rotations of ``bones`` from any pose grid (lazy grids compute only those)."""
    fn = getattr(grid, "model_rotations", None)
    if callable(fn):
        return fn(bones)
    return np.asarray(grid.model_rotation)[:, np.asarray(bones, dtype=np.intp).reshape(-1)]
