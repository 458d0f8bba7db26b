"""When two keys of a channel are the same pose: the endpoint tolerance.

One rule decides whether a channel's last key "repeats its first" (a duplicated
loop endpoint), whether a step between two keys moves, and whether a channel
moves at all. It is used by ``measure``'s ``loop_endpoint_mode``, the
``duplicate-loop-endpoint`` check, and the gait-anchor / foot-cycle transforms
(their ``mixed_endpoint`` proof), so they always agree.

Two keys are the same pose when the difference is smaller than what float
storage and exporters leave behind, judged by its effect in **model space**
(metres, after every scale above the bone and the rig's ``[rig] units``):

* translation: the distance between the keys, times the model-space length of
  one local unit (the largest axis scale of the parent's rest model matrix,
  times the rig's metres per unit), is at most ``POSITION_TOL_M`` = 0.1 mm;
* rotation: the sign-invariant angle between the keys (−q is the same
  rotation) is at most ``ROTATION_TOL_DEG`` = 0.01°. A local rotation turns
  the bone's whole subtree by that same angle in model space, whatever the
  scales above it;
* scale: every component differs by at most ``SCALE_TOL`` = 1e-4 of the
  larger magnitude (a relative change: a 1 m limb moves 0.1 mm).

Why these numbers: float32 keys hold about 7 significant digits, so a 1 m
position is stored to ~1e-7 m and a unit quaternion to ~1e-7 rad; exporters
that evaluate the first and last frame separately (Euler → quaternion, unit
conversion, a 0.01 ``Armature`` scale over centimetre keys) leave differences
of ~1e-5 local units — 1e-7 m after the scale. The tolerances sit two to
three orders of magnitude above that noise and one to two below the smallest
difference a viewer can see or a loop check cares about (the 1 cm / 1°
loop-closure caps): a hundredth of a degree moves a point 1 m from the joint
by 0.17 mm.
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import repeat
from operator import attrgetter, is_
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

#: translation keys closer than this in model space (metres) are one pose
POSITION_TOL_M = 1e-4
#: rotation keys closer than this angle are one pose
ROTATION_TOL_DEG = 0.01
#: scale components whose relative difference is at most this are one pose
SCALE_TOL = 1e-4

# 1 − |â·b̂| ≤ 1 − cos(tol/2)  ⟺  sign-invariant angle ≤ tol
_ROT_GAP_TOL = 1.0 - math.cos(math.radians(ROTATION_TOL_DEG) / 2.0)

_TIMES = attrgetter("times")
_VALUES = attrgetter("values")
_BONE = attrgetter("bone")


def translation_unit_m(skeleton, bones) -> np.ndarray:
    """(G,) metres in model space of one local translation unit of each bone in ``bones``:
    the largest axis scale (column length) of the parent's rest model matrix times the
    skeleton's ``metres_per_unit``; a root's unit is ``metres_per_unit``. Without a
    skeleton one unit is one metre (glTF's convention)."""
    bones = np.asarray(bones, dtype=np.intp).reshape(-1)
    if skeleton is None:
        return np.ones(bones.shape[0])
    per_bone = _model_unit_m(skeleton)
    n = per_bone.shape[0]
    if all(0 <= b < n for b in bones.tolist()):  # every bone in range
        return per_bone[bones]
    ok = (bones >= 0) & (bones < n)
    out = np.full(bones.shape[0], float(getattr(skeleton, "metres_per_unit", 1.0)))
    out[ok] = per_bone[bones[ok]]
    return out


def _model_unit_m(skeleton) -> np.ndarray:
    """(B,) :func:`translation_unit_m` of every bone (cached on the skeleton)."""
    unit = float(getattr(skeleton, "metres_per_unit", 1.0))
    cached = getattr(skeleton, "_translation_unit_m", None)
    if cached is not None and cached[0] == unit:
        return cached[1]
    from animsmith.model import bone_depths

    parents = np.asarray(skeleton.parents, dtype=np.intp)
    model = np.array(np.asarray(skeleton.rest_matrix, dtype=np.float64)[:, :3, :3])  # linear parts
    depth = bone_depths(parents)
    with np.errstate(invalid="ignore", over="ignore"):
        for d in range(1, int(depth.max(initial=0)) + 1):  # one batched product per depth level
            idx = np.nonzero(depth == d)[0]
            model[idx] = np.matmul(model[parents[idx]], model[idx])
        axis = np.sqrt(np.einsum("bij,bij->bj", model, model)).max(axis=1) if model.shape[0] else np.zeros(0)
    out = np.full(parents.shape[0], unit)
    has_parent = parents >= 0
    out[has_parent] = axis[parents[has_parent]] * unit
    out[~np.isfinite(out)] = unit  # a broken rest matrix: judge in file units
    try:
        object.__setattr__(skeleton, "_translation_unit_m", (unit, out))
    except (AttributeError, TypeError):
        pass
    return out


def keys_differ(path: str, a: np.ndarray, b: np.ndarray, unit_m: Optional[np.ndarray] = None) -> np.ndarray:
    """(G,) bool: key rows ``a[i]`` and ``b[i]`` of ``path`` channels are different poses
    (module docstring; any leading shape, (G,) being the common one). ``unit_m`` (G,) is
    :func:`translation_unit_m` of each row's bone, broadcast against the rows
    (translations only; default 1 m). Non-finite rows differ."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return ~_keys_same(path, np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), unit_m)


def _keys_same(path: str, a: np.ndarray, b: np.ndarray, unit_m=None, slack=1.0, finite: bool = False, norms=None) -> np.ndarray:
    """Not :func:`keys_differ`, for float64 rows, under the caller's floating-point error state.

    ``slack`` multiplies every tolerance (a float, or an array broadcast against the rows'
    leading shape): rows that differ at twice the tolerance differ at the tolerance
    whatever order the sums were taken in. ``finite``: the caller knows every value is
    finite, so the finiteness test is left out. ``norms``: (a·a, b·b) of rotation rows
    when the caller has them.
    """
    if path == "rotation":
        # a non-finite component makes a·a or b·b infinite or NaN, so the ratio is 0 or
        # NaN (never within the tolerance): non-finite rows differ without a separate test
        num = np.abs(np.einsum("...j,...j->...", a, b))
        aa, bb = (np.einsum("...j,...j->...", a, a), np.einsum("...j,...j->...", b, b)) if norms is None else norms
        den = np.sqrt(aa * bb)
        return (1.0 - num / den <= _ROT_GAP_TOL * slack) & (den > 0)
    if path == "translation":
        d = a - b
        dist = np.sqrt(np.einsum("...j,...j->...", d, d))
        unit = 1.0 if unit_m is None else np.asarray(unit_m, dtype=np.float64)
        same = dist * unit <= POSITION_TOL_M * slack
    else:  # scale (and any other vector): relative per component
        size = np.maximum(np.abs(a), np.abs(b))
        tol = SCALE_TOL * slack if isinstance(slack, float) else SCALE_TOL * np.asarray(slack)[..., None]
        same = np.all(np.abs(a - b) <= tol * size, axis=-1)
    if finite:
        return same
    return same & np.isfinite(a).all(axis=-1) & np.isfinite(b).all(axis=-1)


def channel_keys_differ(skeleton, ch, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`keys_differ` for rows of one channel ``ch`` (its path and bone)."""
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    unit = translation_unit_m(skeleton, [ch.bone])[0] if ch.path == "translation" else None
    return keys_differ(ch.path, a, np.atleast_2d(np.asarray(b, dtype=np.float64)), unit)


def last_key_repeats_first(skeleton, ch) -> bool:
    """The channel's last key is its first key's pose (a channel without keys repeats)."""
    v = np.asarray(ch.values)
    if v.shape[0] == 0:
        return True
    return not bool(channel_keys_differ(skeleton, ch, v[:1], v[-1:])[0])


def step_moves(skeleton, ch, k: int) -> bool:
    """Key ``k`` → key ``k + 1`` (indices as Python sequences take them) is a different pose."""
    v = np.asarray(ch.values)
    i = k % v.shape[0]
    return bool(channel_keys_differ(skeleton, ch, v[i : i + 1], v[i + 1 : i + 2])[0])


def channel_moves(skeleton, ch) -> bool:
    """Some key of the channel is a different pose from key 0 (the endpoint tolerance).

    Not ``core.trajectory.channel_animates``, which finds the travel bone: it counts
    any motion above float32 noise in local units, tangents and broken tracks included,
    where this rule must agree with :func:`last_key_repeats_first` on what "the same
    pose" means.
    """
    v = np.asarray(ch.values)
    if v.shape[0] < 2:
        return False
    return bool(np.any(channel_keys_differ(skeleton, ch, np.broadcast_to(v[:1], v.shape), v)))


def keys_by_path(channels: Sequence) -> Dict[str, Tuple[list, Optional[np.ndarray]]]:
    """{path: (the channels of that path with at least one key, in clip order, and their key
    values concatenated (rows, C), or None when their widths differ)}: one concatenation
    per path that the finiteness test and :func:`last_key_mismatch` both read."""
    by_path: Dict[str, list] = {}
    for ch in channels:
        if ch.values.shape[0]:
            by_path.setdefault(ch.path, []).append(ch)
    out: Dict[str, Tuple[list, Optional[np.ndarray]]] = {}
    for path, group in by_path.items():
        try:
            flat = np.concatenate([ch.values for ch in group])
        except ValueError:  # widths differ
            flat = None
        out[path] = (group, flat)
    return out


def all_keys_finite(channels: Sequence, keyed) -> bool:
    """Every key value of ``channels`` is finite (``keyed``: their :func:`keys_by_path`)."""
    if any(flat is None for _, flat in keyed.values()):  # widths differ within a path
        return bool(np.isfinite(np.concatenate([np.ravel(ch.values) for ch in channels])).all())
    return all(bool(np.isfinite(flat).all()) for _, flat in keyed.values())


def last_key_mismatch(channels: Sequence, skeleton=None, keyed=None) -> Optional[str]:
    """Why some channel's last key does not repeat its first, or None when every one does
    (module docstring; both ends must be finite). Channels without keys are skipped.
    Compared per path in one vectorised step; ``keyed`` is :func:`keys_by_path` of
    ``channels`` when the caller has it."""
    if keyed is None:
        keyed = keys_by_path(channels)
    for path in ("rotation", "translation", "scale"):
        group, flat = keyed.get(path, ((), None))
        if not group:
            continue
        ends = _first_and_last_keys(group, flat)  # (G, 2, C)
        if not np.all(np.isfinite(ends)):
            return "non-finite key values"
        unit = translation_unit_m(skeleton, [ch.bone for ch in group]) if path == "translation" else None
        if np.any(keys_differ(path, ends[:, 0], ends[:, 1], unit)):
            return f"a {path} channel's last key differs from its first"
    return None


def _first_and_last_keys(channels, flat: Optional[np.ndarray] = None) -> np.ndarray:
    """(G, 2, C) float64: each channel's first and last key value (channels with >= 1 key).

    Gathered from one concatenation of the value arrays (one gather, not a
    Python pair per channel; ``flat`` is that concatenation when the caller has it);
    channels of different widths go pair by pair.
    """
    values = [ch.values for ch in channels]
    if flat is None:
        try:
            flat = np.concatenate(values)
        except ValueError:  # widths differ
            return np.array([(v[0], v[-1]) for v in values], dtype=np.float64)
    counts = np.array(list(map(len, values)), dtype=np.intp)  # key counts (rows), no Python loop
    rows = np.empty((counts.shape[0], 2), dtype=np.intp)  # (first, last) row of each channel
    rows[:, 1] = np.cumsum(counts) - 1
    rows[:, 0] = rows[:, 1] - counts + 1
    return flat[rows].astype(np.float64)  # one gather: (G, 2, C)


class StackedKeys:
    """The key values of ``channels`` stacked once per path, so the endpoint rule judges
    every channel of a path in one step instead of one small comparison per channel.

    Per path the channels' value arrays are stacked into one array, so every channel's
    first, last and middle key are one gather and one comparison judges them all. The
    answers are those of :func:`all_keys_finite`, :func:`last_key_mismatch` and
    :func:`channel_moves` taken channel by channel: the first/last comparison is the same
    :func:`keys_differ` on the same values, and a channel is taken to move on its middle
    key only when that key is more than twice the tolerance away (beyond any rounding of
    the sums); otherwise the channels are asked one by one. Channels whose values do not
    stack (widths that differ within a path, or not one row of values per key) go channel
    by channel through those functions.
    """

    def __init__(self, channels: Sequence):
        self.channels = channels
        times = list(map(_TIMES, channels))
        #: the key-time arrays, each object once, in channel order (``Clip.distinct_times``)
        if all(map(is_, times, repeat(times[0] if times else None))):  # one array for all
            self.distinct_times = times[:1]
        else:
            self.distinct_times = list(dict(zip(map(id, times), times)).values())
        # one key-time array for all: every channel's key count is its length
        shared = len(times[0]) if len(self.distinct_times) == 1 else None
        by_path: Dict[str, list] = defaultdict(list)  # channels of each path, in clip order
        for ch in channels:
            by_path[ch.path].append(ch)
        #: path -> _Group; empty when some path's values do not stack (then every test
        #: goes channel by channel)
        self.groups: Dict[str, _Group] = {}
        self._finite: Optional[bool] = None
        for path, group in by_path.items():
            stacked = _Group.stack(group, shared)
            if stacked is None:
                self.groups = {}
                break
            self.groups[path] = stacked

    def only_one_key_channels(self) -> bool:
        """Every channel has exactly one key time."""
        return all(len(t) == 1 for t in self.distinct_times)

    def all_finite(self) -> bool:
        """Every key value is finite (:func:`all_keys_finite`)."""
        if self._finite is None:
            if not self.groups:
                self._finite = all_keys_finite(self.channels, keys_by_path(self.channels))
            else:
                self._finite = all([bool(np.isfinite(g.flat).all()) for g in self.groups.values()])
        return self._finite

    def loop_mismatch(self, skeleton=None, min_keys: int = 3) -> Optional[str]:
        """Why the channels' last keys do not close a loop, or None when they do: a channel
        with other than one key time whose last key is not its first key's pose
        (:func:`last_key_mismatch`; a one-key channel holds one pose for all time and
        neither ends nor repeats), else no channel with ``min_keys`` or more key times
        moves (:func:`channel_moves`).

        Each path's first and last keys are judged in one comparison, together with every
        channel's middle key against its first: a moving channel nearly always differs
        there, and the channels are asked one by one only when none clearly does.
        """
        chans = None
        if self.groups:
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                why, moved = self._ends(skeleton, min_keys)
            if why is not None or moved:
                return why
        else:
            chans = [ch for ch in self.channels if len(ch.times) != 1]
            why = last_key_mismatch(chans, skeleton)
            if why is not None:
                return why
        chans = [ch for ch in self.channels if len(ch.times) != 1] if chans is None else chans
        if any(ch.key_count >= min_keys and channel_moves(skeleton, ch) for ch in chans):
            return None
        return f"no channel with {min_keys} or more keys moves"

    def _ends(self, skeleton, min_keys: int) -> Tuple[Optional[str], bool]:
        """(:func:`last_key_mismatch` of the stacked channels, whether some channel with
        ``min_keys`` or more key times has a middle key more than twice the tolerance
        away from its first: it moves whatever the rounding)."""
        moved = False
        for path in ("rotation", "translation", "scale"):
            g = self.groups.get(path)
            ends = None if g is None else _which((g.rows > 0) & (g.keys != 1))
            if ends is None:
                continue
            pairs = g.pairs()  # (G, 2, 2, C): (first, last) and (first, middle) of every channel
            if not self._finite and not np.all(np.isfinite(pairs[ends, 0])):
                return "non-finite key values", False
            unit = translation_unit_m(skeleton, g.bones())[:, None] if path == "translation" else None
            # float32 keys: every sum is far from float64's overflow and underflow, so two
            # orders of summing differ by a few ulps, far below the tolerance
            clear = g.flat.dtype == np.float32
            # the squared lengths of all four rows of every channel in one product
            norms = np.einsum("...j,...j->...", pairs, pairs) if path == "rotation" else None
            same = _keys_same(path, pairs[:, :, 0], pairs[:, :, 1], unit, _END_AND_MIDDLE if clear else 1.0,
                              bool(self._finite), None if norms is None else (norms[..., 0], norms[..., 1]))
            moves = _which((g.rows >= 2) & (g.keys >= min_keys)) if clear and not moved else None  # within ``ends``
            if type(ends) is slice and (moves is None or type(moves) is slice):
                ends_same, middles_same = same.all(axis=0).tolist()
            else:
                ends_same, middles_same = bool(same[ends, 0].all()), moves is None or bool(same[moves, 1].all())
            if not ends_same:
                return f"a {path} channel's last key differs from its first", False
            moved = moved or (moves is not None and not middles_same)
        return None, moved


#: tolerance multipliers of the (first, last) and (first, middle) comparisons
_END_AND_MIDDLE = np.array([1.0, 2.0])


def _which(mask):
    """``mask`` (a bool or (G,) bools) as an index: ``slice(None)`` when every entry is
    true, None when none is, else the mask itself."""
    if mask is True or mask is False or mask.ndim == 0:
        return slice(None) if mask else None
    if mask.all():
        return slice(None)
    return mask if mask.any() else None


class _Group:
    """The channels of one path in :class:`StackedKeys`: ``flat`` (rows, C) their values
    one channel after another; ``rows`` and ``keys`` each channel's value rows and key
    times, as (G,) arrays or one int when every channel has that many (``rows`` is an
    int exactly when ``flat`` is a (G, rows, C) block seen as rows)."""

    __slots__ = ("channels", "flat", "rows", "keys")

    def __init__(self, channels, flat, rows, keys):
        self.channels, self.flat, self.rows, self.keys = channels, flat, rows, keys

    @classmethod
    def stack(cls, channels: list, shared: Optional[int]) -> Optional["_Group"]:
        """The group of ``channels`` (``shared``: the key count of every channel when they
        all have one key-time array); None when their values do not stack into (rows, C)."""
        keys = shared
        if keys is None:
            keys = np.fromiter(map(len, map(_TIMES, channels)), dtype=np.intp, count=len(channels))
        values = list(map(_VALUES, channels))
        try:
            block = np.array(values)  # (G, K, C) when every channel has K rows of C values
        except ValueError:  # shapes differ
            block = None
        if block is not None and block.ndim == 3 and block.shape[1] > 0:
            return cls(channels, block.reshape(-1, block.shape[2]), block.shape[1], keys)
        try:
            flat = np.concatenate(values)
        except ValueError:  # widths differ, or a value array without rows
            return None
        if flat.ndim != 2:
            return None
        return cls(channels, flat, np.fromiter(map(len, values), dtype=np.intp, count=len(values)), keys)

    def pairs(self) -> np.ndarray:
        """(G, 2, 2, C) float64: each channel's (first, last) and (first, middle) key values
        (for a channel without rows, rows of another channel: never read)."""
        c = self.flat.shape[1]
        if type(self.rows) is int:
            k = self.rows
            block = self.flat.reshape(-1, k, c)
            return block.take([0, k - 1, 0, k // 2], axis=1).reshape(-1, 2, 2, c).astype(np.float64)
        rows = self.rows
        first = np.cumsum(rows) - rows
        idx = np.empty((first.shape[0], 4), dtype=np.intp)
        idx[:, 0] = idx[:, 2] = first
        idx[:, 1] = first + rows - 1
        idx[:, 3] = first + rows // 2
        idx %= max(self.flat.shape[0], 1)  # a channel without rows points anywhere
        return self.flat.take(idx.reshape(-1), axis=0).reshape(-1, 2, 2, c).astype(np.float64)

    def bones(self) -> np.ndarray:
        """(G,) the bone of each channel."""
        return np.asarray(list(map(_BONE, self.channels)), dtype=np.intp)
