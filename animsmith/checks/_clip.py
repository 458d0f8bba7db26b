"""Small helpers shared by the per-clip checks (not a check: no ``ID``).

Everything here reads what the :class:`ClipContext` already holds — channel
data, the clip's cached analysis, the resolved roles — and never samples.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any, Iterator, Optional, Tuple

import numpy as np

from animsmith.core.pose import model_positions_m, model_rotations

#: hard-coded travel threshold shared by in-place, root-motion-speed and
#: foot-slide: a clip whose root moves at least this fast is root motion.
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


def quat_angle_rad(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sign-invariant angle between orientations: 2·atan2(|(â⁻¹b̂).xyz|, |(â⁻¹b̂).w|)."""
    from animsmith.core import quat

    return quat.angle_between_rad(a, b)


def profile_label(ctx) -> str:
    roles = ctx.roles
    return getattr(roles, "profile", None) or "unknown"


def has_role(ctx, role: str) -> bool:
    roles = ctx.roles
    return roles is not None and roles.get(role) is not None


def root_domain_reason(ctx) -> Optional[str]:
    """None when Root or Hips is resolved, else the roles_unresolved message."""
    if has_role(ctx, "root") or has_role(ctx, "hips"):
        return None
    return f"root/hips role not resolved (rig profile '{profile_label(ctx)}')"


def gait_domain_reason(ctx) -> Optional[str]:
    """None when Hips and at least one foot/toe role resolve, else the roles_unresolved message."""
    feet = ("left_foot", "left_toe", "right_foot", "right_toe")
    if has_role(ctx, "hips") and any(has_role(ctx, r) for r in feet):
        return None
    return (
        f"hips/foot roles not resolved (rig profile '{profile_label(ctx)}') — "
        "needs hips and at least one foot role"
    )


def usable_grid(ctx):
    """The clip's shared pose grid when its key times are well formed and it has ≥ 3 samples
    over a positive duration, else None."""
    analysis = getattr(ctx, "analysis", None)
    if analysis is None or malformed_key_times(ctx.clip):
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

    Speed = horizontal (X/Z) endpoint displacement of the travel bone (Root,
    else Hips) over the duration — computed once by the core.
    """
    bad = malformed_key_times(ctx.clip)
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


def f32_exceeds(measured: float, cap: float) -> bool:
    """The f32 cap rule: fail only when float32(measured) > float32(cap).

    A value authored exactly at the cap passes despite f32→f64 widening noise.
    """
    with np.errstate(over="ignore"):
        return bool(np.float32(measured) > np.float32(cap))


# --------------------------------------------------------------------------
# All channels of a clip at once (vectorised per-clip checks)
# --------------------------------------------------------------------------


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
    """

    def __init__(self, channels, indices, with_values: bool = True):
        self.index = np.asarray(indices, dtype=np.int64)
        picked = [channels[i] for i in indices]
        counts = np.fromiter((ch.times.shape[0] for ch in picked), dtype=np.int64, count=len(picked))
        self.counts = counts
        self.starts = np.zeros(counts.size, dtype=np.int64)
        if counts.size > 1:
            np.cumsum(counts[:-1], out=self.starts[1:])
        self.owner = np.repeat(np.arange(counts.size), counts)
        self.times = np.concatenate([ch.times for ch in picked]).astype(np.float64) if picked else np.zeros(0)
        self.values = None
        if with_values and picked and len({ch.values.shape[1] for ch in picked}) == 1:
            self.values = np.concatenate([ch.values for ch in picked]).astype(np.float64)

    @cached_property
    def finite_rows(self) -> np.ndarray:
        """(K,) bool: every component of the key value is finite (needs ``values``)."""
        return np.isfinite(self.values).all(axis=1)

    @cached_property
    def squared_norms(self) -> np.ndarray:
        """(K,) |value|² per key (needs ``values``)."""
        return np.einsum("ij,ij->i", self.values, self.values)

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


_FLAT_CACHE: "weakref.WeakKeyDictionary" = None  # type: ignore[assignment]


def flat_channels(clip, path: Optional[str] = None) -> FlatChannels:
    """Cached :class:`FlatChannels` of the clip's keyed channels (of ``path`` only when given)."""
    import weakref

    global _FLAT_CACHE
    if _FLAT_CACHE is None:
        _FLAT_CACHE = weakref.WeakKeyDictionary()
    per_clip = _FLAT_CACHE.get(clip)
    key = (path, tuple(map(id, clip.channels)))  # a replaced channel invalidates the entry
    if per_clip is None:
        per_clip = {}
        _FLAT_CACHE[clip] = per_clip
    if key not in per_clip:
        chans = clip.channels
        idx = [i for i, ch in enumerate(chans) if ch.times.shape[0] > 0 and (path is None or ch.path == path)]
        per_clip[key] = FlatChannels(chans, idx, with_values=path is not None)
    return per_clip[key]


# --------------------------------------------------------------------------
# In-clip reference for the seam continuity checks
# --------------------------------------------------------------------------


def interior_velocity_change_mps(grid, bone: int) -> Optional[float]:
    """Largest |v[i+1] − v[i]| of one bone inside the clip, v[i] = (p[i+1] − p[i]) / dt[i] (model space).

    The seam check compares the wrap's change against a cap; this is the same
    quantity between consecutive in-clip steps, so a reader can tell a popped
    seam from ordinary acceleration at the clip's sample rate. None when the
    grid has fewer than 4 samples or non-finite values.
    """
    t = np.asarray(grid.times_s, dtype=np.float64)
    if t.shape[0] < 4:
        return None
    p = np.asarray(model_positions_m(grid, [bone])[:, 0, :], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.diff(p, axis=0) / np.diff(t)[:, None]
        change = np.linalg.norm(np.diff(v, axis=0), axis=-1)
    return float(change.max()) if np.all(np.isfinite(change)) else None


def interior_angular_velocity_change_degps(grid, bone: int) -> Optional[float]:
    """Largest |ω[i+1] − ω[i]| (deg/s) of one bone inside the clip.

    ω[i] = rotation vector of the model-space step q[i+1]·q[i]⁻¹ (w ≥ 0
    hemisphere) over dt[i] — the quantity ``loop-seam-rot`` compares across
    the wrap. None when the grid has fewer than 4 samples or non-finite values.
    """
    from animsmith.core import quat
    from animsmith.core.trajectory import _rotation_vector

    t = np.asarray(grid.times_s, dtype=np.float64)
    if t.shape[0] < 4:
        return None
    q = np.asarray(model_rotations(grid, [bone])[:, 0, :], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = q / np.linalg.norm(q, axis=-1, keepdims=True)
        w = _rotation_vector(quat.multiply(q[1:], quat.conjugate(q[:-1]))) / np.diff(t)[:, None]
        change = np.degrees(np.linalg.norm(np.diff(w, axis=0), axis=-1))
    return float(change.max()) if np.all(np.isfinite(change)) else None


def malformed_key_times(clip) -> Optional[str]:
    """Why the clip's key times cannot be sampled reliably (non-finite, or not strictly increasing), or None.

    Grid-based checks report a ``measurement_unavailable`` gap for such a
    clip instead of judging poses sampled from broken times; ``nan`` and
    ``time-monotonic`` report the defect itself.
    """
    flat = flat_channels(clip)
    t = flat.times
    if not np.all(np.isfinite(t)):
        return "key times are not finite (see nan)"
    if np.any(flat.pair_mask() & (t[1:] <= t[:-1])):
        return "key times are not strictly increasing (see time-monotonic)"
    return None


def malformed_key_values(clip) -> Optional[str]:
    """Why the clip's key values cannot be compared (a non-finite value or tangent), or None."""
    for path in ("translation", "rotation", "scale"):
        flat = flat_channels(clip, path)
        if flat.values is not None and not np.all(flat.finite_rows):
            return "key values are not finite (see nan)"
    for ch in clip.channels:
        if ch.interpolation == "CUBICSPLINE" and ch.in_tangents is not None:
            if not (np.all(np.isfinite(ch.in_tangents)) and np.all(np.isfinite(ch.out_tangents))):
                return "tangents are not finite (see nan)"
    return None
