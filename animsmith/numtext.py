"""Numbers as text: one rule for every fixed-decimal number a user reads.

``fixed(-0.00004, 3)`` is ``0.000``, not ``-0.000``: a value that rounds to zero shows
without a sign, because a minus on zero reads as a direction (a yaw to the left, a key
time before the start) the number does not have. Every message, table and report that
prints a signed quantity with a fixed number of decimals goes through :func:`fixed`.
"""

from __future__ import annotations


def fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals; a result that reads as zero has no sign."""
    text = f"{float(value):.{digits}f}"
    if text[:1] == "-" and not text.strip("-0."):
        return text[1:]
    return text



def heading(value: float, digits: int) -> str:
    """A heading in degrees (+Z = 0, +X = 90, −Z = 180) with ``digits`` decimals. −Z is one
    direction with one text: a heading that rounds to −180 reads ``180``, so a clip walking
    straight back with a little float noise to one side reads as the clip without it."""
    text = fixed(value, digits)
    if text == fixed(-180.0, digits):
        return text[1:]
    return text
