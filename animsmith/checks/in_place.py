"""A clip whose root travels against its declared movement owner.

Armed by ``[clips.*] movement_owner_xz`` (a clip without it is not judged):

* ``"gameplay"`` (in place: the game moves the character) but the root
  travels at ``speed ≥ travel_threshold_mps`` → error: the character glides
  at runtime (measured = speed, expected = 0);
* ``"animation"`` (root motion: the clip moves the character) but the root
  travels slower than the threshold → error: the character runs in place
  (measured = speed, expected = the threshold as a minimum). A root that
  does travel (≥ 0.05 m/s, as a gait group's travel policy decides), only slower than the threshold, may be a slow
  gait (a sneak, a small creature): the message then says to lower
  ``travel_threshold_mps`` below its speed. A slow root-motion clip declared
  ``"gameplay"`` is not caught under the threshold either: set it below the
  project's slowest gait.

Speed = horizontal endpoint displacement of the clip's travel bone over the
clip duration (along the arc it walks when the clip turns, docs/measure.md), from the
clip's shared analysis. The travel bone is the highest
node above the hips that this clip animates, else the hips (a static scene
node such as ``RootNode`` never is); ``measure speed`` shows which and why.

Coverage gaps (scope ``travel_mode``): ``roles_unresolved`` when neither Root
nor Hips resolves; ``measurement_unavailable`` when the speed cannot be
measured (too short, non-finite positions, malformed key times).
"""

from __future__ import annotations

from animsmith.checks._clip import TRAVEL_THRESHOLD_MPS, expect_value, root_domain_reason, root_speed_mps
from animsmith.checks.base import Option

ID = "in-place"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("roles: root or hips", "config: [clips.*] movement_owner_xz")
CONFIG = {
    "travel_threshold_mps": Option(
        TRAVEL_THRESHOLD_MPS,
        "number",
        "A root moving at least this fast (horizontal endpoint displacement / duration) travels.",
        minimum=0.0,
    ),
}


def measured_speed_or_gap(ctx, scope: str):
    """(speed_mps, travel bone name, None) or (None, None, gap) for the root-speed checks."""
    clip = ctx.clip.name
    reason = root_domain_reason(ctx)
    if reason:
        return None, None, ctx.gap("roles_unresolved", reason, scope=scope, subjects=[clip])
    speed, why = root_speed_mps(ctx)
    if speed is None:
        return None, None, ctx.gap("measurement_unavailable", why, scope=scope, subjects=[clip])
    bone = getattr(ctx.analysis.speed, "travel_bone", None)
    return speed, bone, None


def check(ctx):
    owner = expect_value(ctx, "movement_owner_xz")
    if owner is None:
        return
    speed, bone, gap = measured_speed_or_gap(ctx, "travel_mode")
    if gap is not None:
        yield gap
        return
    threshold = float(ctx.options["travel_threshold_mps"])
    travels = speed >= threshold
    label = f"travel bone '{bone}'" if bone else "the root"
    if owner == "gameplay" and travels:
        yield ctx.finding(
            f"declared in-place (movement_owner_xz = \"gameplay\") but {label} travels at {speed:.2f} m/s "
            f"(threshold {threshold:.2f}) — the character will glide at runtime",
            clip=ctx.clip.name,
            bone=bone,
            measured=speed,
            expected=0.0,
        )
    elif owner == "animation" and not travels:
        # a root that does travel, only slower than the threshold: a slow gait (a sneak, a small
        # creature) for which the threshold, not the clip, is wrong
        from animsmith.core.travel import is_in_place

        slow = "" if is_in_place(speed) else (
            " (if this is a slow gait, set [checks.in-place] travel_threshold_mps below its speed)"
        )
        yield ctx.finding(
            f"declared root-motion (movement_owner_xz = \"animation\") but {label} is stationary "
            f"({speed:.2f} m/s, threshold {threshold:.2f}) — the character will run in place{slow}",
            clip=ctx.clip.name,
            bone=bone,
            measured=speed,
            expected=threshold,
        )
