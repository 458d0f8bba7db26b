"""Small helpers shared by the per-clip checks (not a check: no ``ID``).

Everything here reads what the :class:`ClipContext` already holds — channel
data, the clip's cached analysis, the resolved roles — and never samples.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, Optional, Tuple

import numpy as np

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
    """The clip's shared pose grid when it has ≥ 3 samples over a positive duration, else None."""
    analysis = getattr(ctx, "analysis", None)
    if analysis is None:
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
