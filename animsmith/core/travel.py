"""Travel of a gait group's members: speed, stride length, heading, and the travel-policy rules.

A blend ring's members can share one cycle duration and one stride phase and still
cover different distances per cycle. A controller that drives one gait-wide speed
then makes some directions slide. These small functions give the numbers a group
check judges against the project's declared policy (``[gait_groups.<name>]
travel_policy``); they never decide what the policy is.

* **Speed** (m/s): the travel bone's horizontal endpoint speed
  (:func:`animsmith.core.trajectory.root_speed`), for a member that travels.
* **In place**: a member whose ``movement_owner_xz`` is ``"gameplay"``, or that
  declares no owner and whose root travels slower than ``IN_PLACE_MAX_MPS``
  (0.05 m/s). Its speed is its declared ``speed_mps`` (the speed the game moves
  it at) when one is declared, else it has none.
* **Stride length** (m) = speed × duration ÷ strides in the clip (``cycles``:
  the dominant left/right harmonic, :mod:`animsmith.core.gait`): the distance
  covered during one full left-right stride.
* **Heading** (deg): ``atan2(Δx, Δz)`` of the endpoint travel (+Z = 0, +X = 90).
* **Spread** of a set of values = largest − smallest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence

#: a root slower than this (m/s) without a declared owner is an in-place member: it
#: does not travel beyond sway and float noise. The lint checks in-place,
#: root-motion-speed and foot-slide ask another question with their own
#: ``travel_threshold_mps`` (default 0.5 m/s, ``checks._clip.TRAVEL_THRESHOLD_MPS``):
#: whether the root travels like locomotion, a verdict the user tunes.
IN_PLACE_MAX_MPS = 0.05
TRAVEL_POLICIES = ("uniform", "pinned", "accepted")


@dataclass(frozen=True)
class MemberTravel:
    """One member's travel numbers (None when unavailable, ``reason`` says why).

    ``source``: ``"measured"`` (root motion: the speed is measured),
    ``"declared"`` (in place: the speed is the declared ``speed_mps``) or
    ``"in_place"`` (in place with no declared speed: no numbers).
    """

    label: str
    speed_mps: Optional[float]
    stride_length_m: Optional[float]
    heading_deg: Optional[float]
    source: str
    pin_mps: Optional[float] = None
    reason: Optional[str] = None


def finite(value: Any) -> Optional[float]:
    """float(value) when it is a finite number, else None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def is_in_place(speed_mps: Optional[float], movement_owner_xz: Optional[str] = None) -> bool:
    """The declared owner decides (``"gameplay"`` in place, ``"animation"`` root motion);
    without one, a measured root slower than ``IN_PLACE_MAX_MPS`` is in place."""
    if movement_owner_xz == "gameplay":
        return True
    if movement_owner_xz == "animation":
        return False
    s = finite(speed_mps)
    return s is not None and s < IN_PLACE_MAX_MPS


def loop_travels(speed_mps: Optional[float], movement_owner_xz: Optional[str] = None) -> bool:
    """Whether a loop is judged in its travelling frame (the loop checks, and a sync group's
    endpoint convention): declared root motion (``"animation"``), or no owner declared and a
    measured root that is not in place (:func:`is_in_place`). Never a ``"gameplay"`` clip
    (an in-place loop that drifts has a real seam), nor one whose speed is unmeasured."""
    if movement_owner_xz is not None:
        return movement_owner_xz == "animation"
    return finite(speed_mps) is not None and not is_in_place(speed_mps)


def stride_length_m(speed_mps, duration_s, cycles) -> Optional[float]:
    """speed × duration ÷ strides in the clip; None when any part is missing or cycles < 1."""
    s, d = finite(speed_mps), finite(duration_s)
    if s is None or d is None or isinstance(cycles, bool) or not isinstance(cycles, int) or cycles < 1:
        return None
    return s * d / cycles


def member_travel(
    label: str,
    *,
    speed_mps,
    heading_deg,
    duration_s,
    cycles,
    pin_mps=None,
    movement_owner_xz: Optional[str] = None,
    speed_unavailable: Optional[str] = None,
) -> MemberTravel:
    """A member's travel numbers from its measurements and its declared pin/owner (module docstring)."""
    pin = finite(pin_mps)
    measured = finite(speed_mps)
    if measured is None and movement_owner_xz != "gameplay":
        return MemberTravel(label, None, None, None, "measured", pin, speed_unavailable or "speed not measured")
    if is_in_place(measured, movement_owner_xz):
        if pin is None:
            return MemberTravel(label, None, None, None, "in_place", None, "in-place; declare speed_mps to compare")
        stride = stride_length_m(pin, duration_s, cycles)
        return MemberTravel(label, pin, stride, None, "declared", pin, None if stride is not None else "strides not measured")
    stride = stride_length_m(measured, duration_s, cycles)
    return MemberTravel(
        label, measured, stride, finite(heading_deg), "measured", pin, None if stride is not None else "strides not measured"
    )


def spread(values: Sequence[Optional[float]]) -> Optional[float]:
    """Largest − smallest of the finite values; None with fewer than two."""
    vals = [v for v in (finite(x) for x in values) if v is not None]
    if len(vals) < 2:
        return None
    return max(vals) - min(vals)


def pin_deviation_mps(member: MemberTravel) -> Optional[float]:
    """|measured speed − declared pin| of a root-motion member; None when either is missing or the
    member is in place (its speed IS the pin)."""
    if member.source != "measured" or member.speed_mps is None or member.pin_mps is None:
        return None
    return abs(member.speed_mps - member.pin_mps)


def comparable(members: Sequence[MemberTravel]) -> List[MemberTravel]:
    """The members that have a speed (measured, or declared for in-place ones)."""
    return [m for m in members if m.speed_mps is not None]
