"""Pose grids: a clip sampled at a set of times, with forward kinematics (frames x bones).

* :func:`sample_pose` samples the local pose (:mod:`core.localpose`) at any times and
  runs forward kinematics (:mod:`core.fk`) over the whole skeleton.
* :func:`pose_grid` is the judged grid (times from :mod:`core.timegrid`), returned as a
  :class:`LazyPoseGrid`: the same values, but forward kinematics runs only for the
  bones a caller asks for (``grid.model_positions_m(bones)``,
  ``grid.model_rotations(bones)``) or the samples it asks for (``grid.pose_at(frames)``,
  ``grid.model_pose_at(frames)``); :func:`key_span_grid` is the same over the keys'
  own span.
* :func:`batch_pose_at` runs the full-skeleton FK of several grids' samples in one pass.
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import numpy as np

from animsmith.core.fk import chain_levels, chain_rotations, fk_bone_major, frame_chunks, local_matrices
from animsmith.core.localpose import (
    TRS_PATHS,
    group_segments,
    key_time_bytes,
    local_pose_and_animated,
    sample_group,
    unit_rest_rotations,
    winner_map,
)
from animsmith.core.timegrid import clip_duration_s, judged_times_s, max_finite_time_s, snapped_to_keys, uniform_times_s
from animsmith.memo import memo
from animsmith.model import Clip, PoseGrid, Skeleton, bone_depths

# --------------------------------------------------------------------------
# Pose grids
# --------------------------------------------------------------------------


def sample_pose(skeleton: Skeleton, clip: Clip, times_s, *, duration_s: Optional[float] = None) -> PoseGrid:
    """Sample ``clip`` at arbitrary ``times_s`` and run forward kinematics."""
    times_s = np.asarray(times_s, dtype=np.float64).reshape(-1)
    t, r, s, animated = local_pose_and_animated(skeleton, clip, times_s)
    fixed = np.asarray(skeleton.has_matrix, dtype=bool) & ~animated
    model, rot_bm = fk_bone_major(skeleton, t, r, s, fixed, unit=True)
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
    duration = max_finite_time_s(times)
    start = float(clip.start_s)
    if not (math.isfinite(start) and 0.0 < start < duration):
        return pose_grid(skeleton, clip)
    n = max(2, max((t.shape[0] for t in times), default=0))
    t = snapped_to_keys(start + uniform_times_s(n, duration - start), times)
    t[0], t[-1] = start, duration
    return LazyPoseGrid(skeleton, clip, t, duration)


def pose_grid(skeleton: Skeleton, clip: Clip) -> PoseGrid:
    """The judged grid of ``clip``: :func:`sample_pose` at :func:`grid_times_s`.

    Returned as a :class:`LazyPoseGrid`: the same values, but forward
    kinematics runs only for the bones a caller asks for (their ancestor
    chains), once per bone; reading a full-skeleton attribute computes it all.
    """
    times = clip.distinct_times()
    duration = max_finite_time_s(times)
    return LazyPoseGrid(skeleton, clip, judged_times_s(times, duration), duration)


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
    :func:`chain_levels`, parents as a slice when they are one bone (broadcast) or
    a contiguous run, else an index array.
    """

    __slots__ = ("bones", "bone_list", "slot", "levels", "targets")

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
        # ((bone, path), position, rotation?) of every channel target of the plan's bones, in order
        self.targets = [((b, path), i, path == "rotation") for i, b in enumerate(order) for path in TRS_PATHS]
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
        """Sample the plan's bones (channel groups as :func:`local_pose_and_animated`) and chain their model matrices."""
        skel = self._skeleton
        if self._winners is None:
            self._winners = winner_map(skel, self._clip)
            self._times_bytes = self.times_s.tobytes()
        win = self._winners
        sub = plan.bones
        b, n = sub.shape[0], self.times_s.shape[0]
        groups: Dict[tuple, list] = {}
        animated = [False] * b
        cache = self._key_cache
        for target, i, rotation in plan.targets:
            ch = win.get(target)
            if ch is not None:
                animated[i] = True
                kb = cache.get(id(ch.times))
                if kb is None:
                    kb = key_time_bytes(ch.times, cache)
                groups.setdefault((ch.interpolation, rotation, kb), []).append((i, ch))
        # component-major local pose of the plan's bones: rq (4, S, N), t and s (3, S, N)
        rq = np.empty((4, b, n))
        t = np.empty((3, b, n))
        t[:] = np.asarray(skel.rest_translation)[sub].T[:, :, None]
        s = None
        rot_done = [False] * b
        for members in groups.values():
            group = [ch for _, ch in members]
            slots = [i for i, _ in members]
            out = sample_group(group, self.times_s, group_segments(group, self.times_s, cache, self._times_bytes))
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
            rq[:, rest_rot] = unit_rest_rotations(skel)[sub[rest_rot]].T[:, :, None]  # normalised element by element
        if s is None:
            rest_s = np.asarray(skel.rest_scale)[sub]
            if not (rest_s == 1.0).all():
                s = np.empty((3, b, n))
                s[:] = rest_s.T[:, :, None]
        fixed = np.asarray(skel.has_matrix, dtype=bool)[sub] & ~np.array(animated, dtype=bool)
        rest = np.asarray(skel.rest_matrix)[sub]
        pos = np.empty((n, b, 3))
        for lo, hi in frame_chunks(n):  # only positions are kept: no (S, N, 4, 4) array for a long clip
            part = None if s is None else s[:, :, lo:hi]
            model = chain_levels(plan.levels, local_matrices(rq[:, :, lo:hi], t[:, :, lo:hi], part, rest, fixed))
            pos[lo:hi] = model[:, :, :3, 3].transpose(1, 0, 2)
        u = float(getattr(skel, "metres_per_unit", 1.0))
        if u != 1.0:  # metres, as core.fk does for the full grid
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
            rot = chain_rotations(plan.levels, block.rq[:, rows])
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
        return self._full_grid().pose_at(idx)

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
        if len(idx) == 1:
            return self._rot[idx[0]][:, None].copy()  # what np.stack makes of one bone
        return np.stack([self._rot[b] for b in idx], axis=1)


def batch_pose_at(requests) -> List[Optional[PoseGrid]]:
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

    Returns, request by request, the pose the batch computed (what that grid's next
    ``pose_at(frames)`` returns) or None for a request left to ``pose_at``.
    """
    batches: Dict[tuple, tuple] = {}
    done: Dict[int, PoseGrid] = {}
    for k, (grid, frames) in enumerate(requests):
        if not isinstance(grid, LazyPoseGrid) or grid._full is not None or not _samples_independent(grid._clip):
            continue
        idx = np.asarray(frames, dtype=np.intp).reshape(-1)
        times = grid.times_s[idx]
        skel = grid._skeleton
        if grid._winners is None:  # kept for the grid's own bone blocks too
            grid._winners = winner_map(skel, grid._clip)
            grid._times_bytes = grid.times_s.tobytes()
        t, r, s, animated = local_pose_and_animated(skel, grid._clip, times, list(grid._winners.values()))
        fixed = np.asarray(skel.has_matrix, dtype=bool) & ~animated
        batches.setdefault((id(skel), fixed.tobytes()), (skel, fixed, []))[2].append((k, grid, idx, times, t, r, s))
    for skel, fixed, items in batches.values():
        if len(items) < 2:
            continue
        # a batch with non-unit scale multiplies the others' rotation rows by 1.0: exact
        model, rot_bm = fk_bone_major(
            skel,
            np.concatenate([it[4] for it in items]),
            np.concatenate([it[5] for it in items]),
            np.concatenate([it[6] for it in items]),
            fixed,
            unit=True,
        )
        lo = 0
        for k, grid, idx, times, t, r, s in items:
            hi = lo + times.shape[0]
            matrix = model[:, lo:hi].transpose(1, 0, 2, 3)
            grid._primed[tuple(idx.tolist())] = done[k] = PoseGrid(
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
    return [done.get(k) for k in range(len(requests))]
