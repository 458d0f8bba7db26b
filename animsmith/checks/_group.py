"""Helpers and table keys shared by the group checks (not a check: no ``ID``)."""

from __future__ import annotations

from animsmith.checks.base import Option
from animsmith.numtext import fixed

#: ``min_lr_amplitude_m`` of a group table (gait-group) and of a time_complement sub-table
MIN_LR_AMPLITUDE = Option(
    0.03, "number", "Members whose left-right foot-height swing is below this are coverage gaps (exactly at it counts).",
    minimum=0.0,
)

def ambiguity_notes(ctx, kind: str):
    """A note per bare clip-name member that several linted files hold (the first is used)."""
    for m in ctx.members:  # each member once (lint.members.resolve_members)
        if m.also_in:
            others = ", ".join(m.also_in[:3]) + (f" and {len(m.also_in) - 3} more" if len(m.also_in) > 3 else "")
            yield ctx.finding(
                f"{kind} group '{ctx.group_name}' member '{m.label}' is a clip in {1 + len(m.also_in)} linted files; "
                f"{m.path} is used (also in {others}); name the file ('file.glb#{m.label}') to choose",
                severity="note",
                clip=m.label,
                measured=1 + len(m.also_in),
                expected=1,
                informational=True,
            )


def missing_message(kind: str, group: str, member) -> str:
    return f"{kind} group '{group}' member '{member.label}' not found: {member.reason}"


def phase_reason(summary) -> str:
    """Why a member has no gait phase (its measurements' reason)."""
    return summary.get("gait_phase_unavailable") or "gait phase could not be measured"


def fmt_list(pairs, digits: int = 2) -> str:
    """``[a=0.75, b=0.50]``."""
    return "[" + ", ".join(f"{k}={fixed(v, digits)}" if isinstance(v, float) else f"{k}={v}" for k, v in pairs) + "]"
