"""The report's colours: one colour per side and leg across every chart, lane and legend.

A side keeps its hue everywhere on the page: the left foot's height curve, its
contact bars, its trail in the skeleton view and every legend entry naming it
are drawn in the same colour (blues for the left side, oranges for the right;
a creature's second, third … leg on a side takes the next shade of that
side's hue). The body's own trails (hips, root) and the gait-group members
(clips) use colours no side uses, so a member's curve never reads as a foot.

The page receives :func:`page_palette` as ``palette`` and picks every colour
through one function of its own (``colorOf`` in ``assets/report.js``).
"""

from __future__ import annotations

from typing import Dict, List, Tuple

#: shades per side, first leg first (left: blues, right: oranges)
LEFT: Tuple[str, ...] = ("#1565c0", "#42a5f5", "#0d47a1", "#64b5f6")
RIGHT: Tuple[str, ...] = ("#e65100", "#ffa726", "#bf360c", "#ffb74d")
#: the body's trails and the travel-speed curve (the root's colour when the clip has a root)
BODY: Dict[str, str] = {"hips": "#6a1b9a", "root": "#2e7d32"}
#: a bone the palette has no role for
OTHER = "#546e7a"
#: gait-group members, in member order (cycled); none is a side's or the body's colour
MEMBERS: Tuple[str, ...] = ("#00897b", "#ad1457", "#827717", "#6d4c41", "#37474f", "#7cb342", "#f9a825", "#006064")


def member_color(index: int) -> str:
    """The colour of the gait-group member at ``index`` (member order, cycled)."""
    return MEMBERS[index % len(MEMBERS)]


def page_palette() -> Dict[str, object]:
    """The colours the page draws with (``palette`` in the page data)."""
    sides: Dict[str, List[str]] = {"left": list(LEFT), "right": list(RIGHT)}
    return {"sides": sides, "body": dict(BODY), "other": OTHER, "members": list(MEMBERS)}
