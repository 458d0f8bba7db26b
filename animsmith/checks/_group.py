"""Helpers shared by the group checks (not a check: no ``ID``)."""

from __future__ import annotations

import math
from typing import Any, Optional

#: a spread within this of its cap (cycles, seconds, fps) counts as "at the cap" and passes:
#: float32 key data cannot place an anchor closer than ~1e-8 cycle to where it was authored
CAP_EPSILON = 1e-6


def finite(value: Any) -> Optional[float]:
    """float(value) when it is a finite number, else None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def exceeds(measured: float, cap: float) -> bool:
    """Strictly above the cap (a value at the cap, within ``CAP_EPSILON``, passes)."""
    return measured > cap + CAP_EPSILON


def missing_message(kind: str, group: str, member) -> str:
    return f"{kind} group '{group}' member '{member.label}' not found: {member.reason}"


def phase_reason(summary) -> str:
    """Why a member has no gait phase (its measurements' reason)."""
    return summary.get("gait_phase_unavailable") or "gait phase could not be measured"


def fmt_list(pairs, digits: int = 2) -> str:
    """``[a=0.75, b=0.50]``."""
    return "[" + ", ".join(f"{k}={v:.{digits}f}" if isinstance(v, float) else f"{k}={v}" for k, v in pairs) + "]"
