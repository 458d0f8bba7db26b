"""Small helpers shared by the per-clip checks (not a check: no ``ID``).

Everything here reads what the :class:`ClipContext` already holds — channel
data, the clip's cached analysis, the resolved roles — and never samples.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any, Iterator, Optional, Tuple

import numpy as np


#: default travel threshold shared by in-place, root-motion-speed and foot-slide
#: (each check's ``travel_threshold_mps``): a clip whose root moves at least this fast
#: is root motion, and one declared in place that does is an error. Not the core's
#: ``core.travel.IN_PLACE_MAX_MPS`` (0.05 m/s), which asks whether the root travels at
#: all beyond sway (a gait-group member's speed, loop closure's travelling frame): this
#: one asks whether a clip travels like locomotion, a verdict a user may tune, so a
#: 0.2 m/s drift is neither in place for the core nor root motion for these checks.
TRAVEL_THRESHOLD_MPS = 0.5


def bone_name(ctx, bone: int) -> str:
    """Name of bone index ``bone`` in the asset's skeleton (``<unknown>`` when out of range)."""
    names = ctx.asset.skeleton.names
    return names[bone] if 0 <= int(bone) < len(names) else "<unknown>"


def channels(ctx) -> Iterator[Tuple[int, Any, str]]:
    """(index, channel, bone name) for every channel of the clip, in clip order."""
    for i, ch in enumerate(ctx.clip.channels):
        yield i, ch, bone_name(ctx, ch.bone)


def expect_value(ctx, key: str, default: Any = None) -> Any:
    """A field of the clip's effective ``[clips.*]`` entry, or ``default`` when undeclared."""
    exp = getattr(ctx, "expect", None)
    if exp is None:
        return default
    if isinstance(exp, dict):
        value = exp.get(key, default)
    else:
        value = getattr(exp, key, default)
    return default if value is None else value


def profile_label(ctx) -> str:
    roles = ctx.roles
    return getattr(roles, "profile", None) or "unknown"


def has_role(ctx, role: str) -> bool:
    roles = ctx.roles
    return roles is not None and roles.get(role) is not None


def root_domain_reason(ctx) -> Optional[str]:
    """None when Root or Hips is resolved (a clip's travel bone needs one), else the
    roles_unresolved message."""
    if has_role(ctx, "root") or has_role(ctx, "hips"):
        return None
    return f"root/hips role not resolved (rig profile '{profile_label(ctx)}')" + _override_note(ctx, ("root", "hips"))


def _override_note(ctx, roles) -> str:
    """``"; <why a [rig.roles] override of these roles did not resolve>"`` or ``""``."""
    fn = getattr(ctx.roles, "override_problems", None)
    why = fn(roles) if fn is not None else ""
    return f"; {why}" if why else ""


def gait_domain_reason(ctx) -> Optional[str]:
    """None when Hips and at least one foot/toe role resolve, else the roles_unresolved message."""
    feet = ("left_foot", "left_toe", "right_foot", "right_toe")
    if has_role(ctx, "hips") and any(has_role(ctx, r) for r in feet):
        return None
    return (
        f"hips/foot roles not resolved (rig profile '{profile_label(ctx)}') — "
        "needs hips and at least one foot role" + _override_note(ctx, ("hips",) + feet)
    )


def usable_grid(ctx):
    """The clip's shared pose grid when its key times are well formed and it has ≥ 3 samples
    over a positive duration, else None."""
    analysis = getattr(ctx, "analysis", None)
    if analysis is None or malformed_key_times(ctx):
        return None
    try:
        grid = analysis.grid
    except Exception:  # a clip the core cannot sample (degenerate times)
        return None
    if grid is None or grid.frame_count < 3:
        return None
    duration = float(getattr(grid, "duration_s", 0.0) or grid.times_s[-1])
    if not (math.isfinite(duration) and duration > 0.0):
        return None
    return grid


def root_speed_mps(ctx) -> Tuple[Optional[float], Optional[str]]:
    """(measured root speed, None) or (None, reason) from the clip's cached analysis.

    Speed = horizontal (X/Z) endpoint displacement of the clip's travel bone
    (core.trajectory.travel_bone_of_clip) over the duration — computed once by the core.
    """
    bad = malformed_key_times(ctx)
    if bad:
        return None, f"root-motion speed could not be measured: {bad}"
    analysis = getattr(ctx, "analysis", None)
    if analysis is None:
        return None, "root-motion speed could not be measured (no analysis)"
    try:
        speed = analysis.speed
    except Exception as exc:  # pragma: no cover - defensive
        return None, f"root-motion speed could not be measured ({exc})"
    value = speed
    reason = None
    if speed is not None and not isinstance(speed, (int, float)):
        value = getattr(speed, "speed_mps", None)
        reason = getattr(speed, "speed_mps_unavailable", None)
    if value is None or not math.isfinite(float(value)):
        why = f": {reason}" if reason else ""
        return None, f"root-motion speed could not be measured{why}"
    return float(value), None


def digits_apart(measured: float, cap: float, least: int = 2, most: int = 6) -> int:
    """Decimals for a message that shows a measured value against its cap: ``least``, more
    while they would show the cap as another value (a 0.015 cap read "cap 0.01") or the
    value equal to the cap (1.504 against 1.5 read "1.50 (cap 1.50)"); at most ``most``."""
    digits = least
    while digits < most and (float(f"{cap:.{digits}f}") != cap or f"{measured:.{digits}f}" == f"{cap:.{digits}f}"):
        digits += 1
    return digits


# --------------------------------------------------------------------------
# All channels of a clip at once (vectorised per-clip checks)
# --------------------------------------------------------------------------


#: fast paths on: a check first asks the clip's shared :class:`ClipFacts` whether
#: it can have anything to report and returns early when it cannot (tests set
#: this to False to run the general path and compare).
FAST_PATHS = True

_ONES4 = np.ones(4)


def row_dots(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(K,) Σ_c a[k,c]·b[k,c] of two (K, C) arrays, as one matrix product.

    May differ from ``einsum`` in the last bit (another summation order), so
    fast paths use it only for decisions taken with a margin far above rounding.
    """
    prod = a * b
    return prod @ (_ONES4 if prod.shape[1] == 4 else np.ones(prod.shape[1]))


def concatenated_values(values: list) -> Optional[np.ndarray]:
    """The (K, C) value arrays stacked as float64, or None when their widths differ."""
    try:
        return np.concatenate(values, dtype=np.float64)
    except ValueError:  # the widths (C) differ
        return None


class FlatChannels:
    """The keys of every keyed channel of one clip (or of one path), concatenated.

    Checks first find the few suspicious channels with whole-clip numpy
    reductions over these arrays, then describe only those channel by channel,
    so the cost does not grow with a Python loop over every channel.

    Attributes (S = number of channels with ≥ 1 key, K = total keys):
        index: (S,) channel index in ``clip.channels`` of each segment.
        counts, starts: (S,) key count and first row of each segment.
        owner: (K,) segment number of every key row.
        times: (K,) float64 key times.
        values: (K, C) float64 key values (only when all channels share a width).
        bones: (S,) bone index of each segment.

    A channel's value rows are its key rows (the loader and ``Channel.make``
    guarantee one value row per key time).
    """

    def __init__(self, channels, path: Optional[str] = None, with_values: bool = True):
        """Flatten the keyed channels of ``channels`` (of ``path`` only when given)."""
        self._channels, self._path = channels, path
        picked = channels if path is None else [ch for ch in channels if ch.path == path]
        counts = [ch.times.shape[0] for ch in picked]
        if 0 in counts:
            picked = [ch for ch, n in zip(picked, counts) if n]
            counts = [n for n in counts if n]
        self._picked = picked
        self.counts = np.array(counts, dtype=np.int64)
        self.starts = np.zeros(len(counts), dtype=np.int64)
        if len(counts) > 1:
            np.cumsum(self.counts[:-1], out=self.starts[1:])
        self.values = None
        if with_values and picked:
            self.values = concatenated_values([ch.values for ch in picked])

    @cached_property
    def index(self) -> np.ndarray:
        """(S,) channel index in ``clip.channels`` of each segment."""
        path = self._path
        idx = [i for i, ch in enumerate(self._channels) if (path is None or ch.path == path) and ch.times.shape[0] > 0]
        return np.array(idx, dtype=np.int64)

    @cached_property
    def owner(self) -> np.ndarray:
        """(K,) segment number of every key row."""
        return np.repeat(np.arange(self.counts.size), self.counts)

    @cached_property
    def times(self) -> np.ndarray:
        """(K,) float64 key times of every segment, concatenated."""
        picked = self._picked
        return np.concatenate([ch.times for ch in picked]).astype(np.float64) if picked else np.zeros(0)

    @cached_property
    def bones(self) -> np.ndarray:
        """(S,) bone index of each segment."""
        return np.array([ch.bone for ch in self._picked], dtype=np.int64)

    @cached_property
    def finite_rows(self) -> np.ndarray:
        """(K,) bool: every component of the key value is finite (needs ``values``)."""
        return np.isfinite(self.values).all(axis=1)

    @cached_property
    def squared_norms(self) -> np.ndarray:
        """(K,) |value|² per key (needs ``values``)."""
        return np.einsum("ij,ij->i", self.values, self.values)

    @cached_property
    def rough_squared_norms(self) -> np.ndarray:
        """(K,) |value|² per key by :func:`row_dots` (within a few ulp of ``squared_norms``; needs ``values``)."""
        return row_dots(self.values, self.values)

    @cached_property
    def values_finite(self) -> Optional[bool]:
        """Every key value is finite (True when no segment); None when the widths differ (no ``values``)."""
        if self.values is None:
            return True if self.size == 0 else None
        return bool(np.isfinite(self.values).all())

    @property
    def duration_s(self) -> float:
        """Largest finite key time (0.0 when none) — ``Clip.duration_s`` without a per-channel loop."""
        t = self.times[np.isfinite(self.times)]
        return float(t.max()) if t.size else 0.0

    @property
    def size(self) -> int:
        return int(self.counts.size)

    def segments_any(self, mask_rows: np.ndarray) -> np.ndarray:
        """(S,) bool: any row of the segment is True."""
        if self.size == 0:
            return np.zeros(0, dtype=bool)
        return np.logical_or.reduceat(np.asarray(mask_rows, dtype=bool), self.starts)

    def pair_mask(self) -> np.ndarray:
        """(K−1,) bool: rows k−1 and k belong to the same channel."""
        return self.owner[1:] == self.owner[:-1] if self.owner.size > 1 else np.zeros(0, dtype=bool)

    def channels_of_rows(self, rows_mask: np.ndarray) -> np.ndarray:
        """Channel indices (clip order, unique) owning any True row."""
        # a scatter, not np.unique: same sorted result, and np.unique imports
        # numpy.ma (tens of ms at process start) and sorts
        hit = np.zeros(self.size, dtype=bool)
        hit[self.owner[np.asarray(rows_mask, dtype=bool)]] = True
        return self.index[hit]

    # -- decisions for the rotation fast paths (margins far above rounding) --

    def norms_within(self, tolerance: float) -> bool:
        """True when every key's length is provably within ``tolerance`` of 1.

        With d = tolerance − 1e-9: (1 − d)² ≤ |q|² ≤ (1 + d)² for every key
        (|q|² by :func:`row_dots`). A non-finite key makes it False. False
        means "cannot tell", not "some key is off".
        """
        d = tolerance - 1e-9
        if self.values is None or self.values.shape[0] == 0 or not d >= 0.0:
            return False
        sq = self.rough_squared_norms
        low = max(0.0, 1.0 - d) ** 2
        high = (1.0 + d) ** 2 if d < 1e150 else math.inf  # a huge tolerance: no overflow
        return bool(sq.min() >= low) and bool(sq.max() <= high)

    def no_hemisphere_flips(self) -> bool:
        """True when every adjacent key pair of every channel provably has dot > 0.

        Test: q[k−1]·q[k] > 2e-12·max|q|² for every in-channel pair (dot by
        :func:`row_dots`; its rounding error and einsum's are each below
        4.5e-16·|q[k−1]||q[k]|, so einsum's dot is positive too). Non-finite
        keys or an all-zero clip make it False ("cannot tell").
        """
        v = self.values
        if v is None or v.shape[0] < 2:
            return True  # the check has no pair to judge either
        dot = row_dots(v[:-1], v[1:])
        if self.size > 1:
            dot[self.starts[1:] - 1] = np.inf  # pairs across channel boundaries do not count
        with np.errstate(invalid="ignore", over="ignore"):
            return bool(np.all(dot > 2e-12 * self.rough_squared_norms.max()))

    def all_rotations_move(self, epsilon_rad: float) -> bool:
        """True when every channel with ≥ 2 keys provably has a key more than ``epsilon_rad`` from key 0.

        A key q moves when (q0·q)² < c²·|q0|²·|q|² with c = cos(ε/2) − 1e-10,
        i.e. |q̂0·q̂| < c, so the sign-invariant angle 2·acos|q̂0·q̂| exceeds
        ε by far more than rounding. Only for 0 ≤ ε < 3 (below π); False means
        "cannot tell".
        """
        v = self.values
        if self.size == 0:
            return True
        if v is None or not 0.0 <= epsilon_rad < 3.0:
            return False
        c = math.cos(epsilon_rad / 2.0) - 1e-10
        counts, starts = self.counts, self.starts
        sq = self.rough_squared_norms
        n, s = int(counts[0]), self.size
        with np.errstate(invalid="ignore", over="ignore"):
            if v.shape[0] == n * s and bool((counts == n).all()):
                # every channel has n keys (the common case): (S, n, 4) · key 0 as one batched product
                v3, sq2 = v.reshape(s, n, 4), sq.reshape(s, n)
                dot = np.matmul(v3, v3[:, 0, :, None])[..., 0]
                moves = (dot * dot < (c * c) * (sq2 * sq2[:, :1])).any(axis=1)
            else:
                dot = row_dots(np.repeat(v[starts], counts, axis=0), v)
                moving = dot * dot < (c * c) * (sq * np.repeat(sq[starts], counts))
                moves = np.logical_or.reduceat(moving, starts)
        return bool(np.all(moves | (counts < 2)))


class KeyTimes:
    """Facts about the clip's distinct key-time arrays (channels sharing a sampler input share one).

    Attributes:
        count: number of distinct arrays with ≥ 1 key (0 ⇔ no keyed channel).
        finite: every key time is finite.
        increasing: finite and strictly increasing within every array.
        duration_s: largest key time (when ``finite``; else None).
        first_min_s: smallest first key time (when ``increasing``; else None).
        end_spread_s: max − min of the last key times of arrays with ≥ 2 keys
            (0.0 when none; when ``increasing``, else None).
    """

    def __init__(self, channels):
        times = [ch.times for ch in channels]
        if times and len(set(map(id, times))) == 1:
            arrays = [times[0]] if times[0].shape[0] else []
        else:
            arrays = list({id(t): t for t in times if t.shape[0]}.values())
        self.count = len(arrays)
        self.finite = self.increasing = True
        self.duration_s = self.first_min_s = self.end_spread_s = None
        if not arrays:
            self.duration_s, self.end_spread_s = 0.0, 0.0
        elif len(arrays) == 1:
            self._one_array(np.asarray(arrays[0], dtype=np.float64))
        else:
            self._many_arrays(arrays)

    def _one_array(self, t: np.ndarray) -> None:
        """Strictly increasing ⇒ no NaN (a NaN fails a comparison), so finite ⇔ both ends are finite."""
        first, last = float(t[0]), float(t[-1])
        self.increasing = bool((t[1:] > t[:-1]).all()) and math.isfinite(first) and math.isfinite(last)
        if self.increasing:
            self.duration_s, self.first_min_s, self.end_spread_s = last, first, 0.0
            return
        self.finite = bool(np.isfinite(t).all())
        if self.finite:
            self.duration_s = float(t.max())

    def _many_arrays(self, arrays: list) -> None:
        t = np.concatenate(arrays).astype(np.float64)
        self.finite = bool(np.isfinite(t).all())
        if not self.finite:
            self.increasing = False
            return
        self.duration_s = float(t.max())
        counts = np.array([a.shape[0] for a in arrays], dtype=np.int64)
        ends = np.cumsum(counts) - 1
        steps = t[1:] > t[:-1]
        steps[ends[:-1]] = True  # the pair (last key of one array, first of the next) does not count
        self.increasing = bool(steps.all())
        if self.increasing:
            self.first_min_s = float(t[ends - counts + 1].min())
            last = t[ends[counts >= 2]]
            self.end_spread_s = float(last.max() - last.min()) if last.size else 0.0


class ClipFacts:
    """Everything the per-clip checks share about one clip, each part computed once, on first use.

    ``flat(path)``: :class:`FlatChannels` of the keyed channels (of ``path``
    only when given; values only then). ``key_times``: :class:`KeyTimes`.
    ``cubic``: indices of CUBICSPLINE channels. ``channels``: the channel list
    the facts were computed from (a replaced channel invalidates them).
    """

    def __init__(self, clip):
        self.channels = list(clip.channels)
        self._flat = {}

    def flat(self, path: Optional[str] = None) -> FlatChannels:
        got = self._flat.get(path)
        if got is None:
            got = self._flat[path] = FlatChannels(self.channels, path, with_values=path is not None)
        return got

    @cached_property
    def key_times(self) -> KeyTimes:
        return KeyTimes(self.channels)

    @cached_property
    def cubic(self) -> list:
        return [i for i, ch in enumerate(self.channels) if ch.interpolation == "CUBICSPLINE"]

    def values_finite(self) -> Optional[bool]:
        """False when a keyed channel's value is non-finite; None when a path's widths differ; else True."""
        unknown = False
        for path in ("translation", "rotation", "scale"):
            ok = self.flat(path).values_finite
            if ok is False:
                return False
            unknown = unknown or ok is None
        return None if unknown else True

    def tangents_finite(self) -> bool:
        """Every in/out tangent of every CUBICSPLINE channel is finite."""
        for i in self.cubic:
            ch = self.channels[i]
            if ch.in_tangents is not None:
                if not (np.all(np.isfinite(ch.in_tangents)) and np.all(np.isfinite(ch.out_tangents))):
                    return False
        return True

    @cached_property
    def all_finite(self) -> bool:
        """Every key time, key value and tangent of the clip is finite (nothing for ``nan`` to report)."""
        return self.key_times.finite and self.values_finite() is True and self.tangents_finite()


def clip_facts(ctx) -> ClipFacts:
    """The :class:`ClipFacts` of ``ctx.clip``, shared by every check of the clip.

    They are held by the clip's analysis (``ctx.analysis.check_state``: one analysis per
    clip in a run, so the facts live as long as the clip is judged and go with it), and
    rebuilt when the clip's channel list changed. A context without an analysis gets
    facts of its own.
    """
    clip = ctx.clip
    held = ctx.analysis.check_state if ctx.analysis is not None else {}
    facts = held.get("clip_facts")
    if facts is None or facts.channels != clip.channels:
        facts = held["clip_facts"] = ClipFacts(clip)
    return facts


def flat_channels(ctx, path: Optional[str] = None) -> FlatChannels:
    """Shared :class:`FlatChannels` of the clip's keyed channels (of ``path`` only when given)."""
    return clip_facts(ctx).flat(path)


# --------------------------------------------------------------------------
# In-clip reference for the seam continuity checks
# --------------------------------------------------------------------------


def malformed_key_times(ctx) -> Optional[str]:
    """Why the clip's key times cannot be sampled reliably (non-finite, or not strictly increasing), or None.

    Grid-based checks report a ``measurement_unavailable`` gap for such a
    clip instead of judging poses sampled from broken times; ``nan`` and
    ``time-monotonic`` report the defect itself.
    """
    kt = clip_facts(ctx).key_times
    if FAST_PATHS and kt.increasing:
        return None
    from animsmith.core.analysis import key_times_problem  # the one definition (gait uses it too)

    return key_times_problem(ctx.clip)


def malformed_key_values(ctx) -> Optional[str]:
    """Why the clip's key values cannot be compared (a non-finite value or tangent), or None."""
    facts = clip_facts(ctx)
    if facts.values_finite() is False:
        return "key values are not finite (see nan)"
    if not facts.tangents_finite():
        return "tangents are not finite (see nan)"
    return None
