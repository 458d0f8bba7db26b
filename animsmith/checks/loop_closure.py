"""A declared loop whose last pose is not its first pose.

Armed by ``[clips.*] loop = true`` (otherwise not judged: no finding, no gap).
Needs no roles. On the clip's pose grid, per bone:

* ``position_delta_m = |p[N−1] − p[0]|`` (model space);
* ``rotation_delta_deg`` = shortest-path angle between the first and last
  model rotations (sign-invariant: a 350° turn reads 10°).

The single worst bone of each dimension is judged (first bone on ties), so a
clip gets at most two errors: one when its worst position delta exceeds
``max_position_delta_m`` and one when its worst rotation delta exceeds
``max_rotation_delta_deg`` (a clip's own ``max_loop_position_delta_m`` /
``max_loop_rotation_delta_deg`` in ``[clips.*]`` override these). Comparisons are made in float32 (a value authored
exactly at the cap passes). Time = clip duration (the seam).

Root-motion locomotion travels, so its root (and every child) never returns
to its first position: disable the check (``[checks.loop-closure] enabled =
false``) or raise the position cap for such projects.

Coverage gap (scope ``loop_closure``): ``measurement_unavailable`` when the
clip has fewer than 3 grid samples, a non-positive first/last grid step, a
non-finite / zero-length pose at a loop endpoint, or malformed key times
(non-finite or not increasing).
"""

from __future__ import annotations

from animsmith.checks._clip import bone_name, expect_value, f32_exceeds, malformed_key_times
from animsmith.checks.base import Option

ID = "loop-closure"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("config: [clips.*] loop = true",)
CONFIG = {
    "max_position_delta_m": Option(
        0.01, "number", "Largest model-space distance between a bone's first and last position.", minimum=0.0
    ),
    "max_rotation_delta_deg": Option(
        1.0, "number", "Largest angle (degrees) between a bone's first and last model rotation.", minimum=0.0
    ),
}


def continuity_or_gap(ctx, scope: str):
    """(LoopContinuity, None) or (None, gap) for the loop continuity checks."""
    clip = ctx.clip.name
    bad = malformed_key_times(ctx.clip)
    if bad:
        return None, ctx.gap(
            "measurement_unavailable", f"clip has no usable per-bone loop-continuity sample ({bad})",
            scope=scope, subjects=[clip],
        )
    try:
        lc = ctx.analysis.continuity
        why = lc.unavailable
    except Exception as exc:  # the clip cannot be sampled at all
        lc, why = None, str(exc) or type(exc).__name__
    if lc is None or why:
        return None, ctx.gap(
            "measurement_unavailable",
            f"clip has no usable per-bone loop-continuity sample ({why})",
            scope=scope,
            subjects=[clip],
        )
    return lc, None


def check(ctx):
    if not expect_value(ctx, "loop", False):
        return
    lc, gap = continuity_or_gap(ctx, "loop_closure")
    if gap is not None:
        yield gap
        return
    clip = ctx.clip.name
    duration = float(ctx.analysis.grid.times_s[-1])

    bone, delta = lc.worst("position_delta_m")
    cap = float(expect_value(ctx, "max_loop_position_delta_m", ctx.options["max_position_delta_m"]))
    if bone is not None and f32_exceeds(delta, cap):
        name = bone_name(ctx, bone)
        yield ctx.finding(
            f"loop does not close in position: bone '{name}' is {delta:.4f} m from its first-frame "
            f"model-space position (cap {cap:.4f} m)",
            clip=clip,
            bone=name,
            time_s=duration,
            measured=delta,
            expected=cap,
        )
    bone, delta = lc.worst("rotation_delta_deg")
    cap = float(expect_value(ctx, "max_loop_rotation_delta_deg", ctx.options["max_rotation_delta_deg"]))
    if bone is not None and f32_exceeds(delta, cap):
        name = bone_name(ctx, bone)
        yield ctx.finding(
            f"loop does not close in rotation: bone '{name}' is {delta:.3f} degrees from its first-frame "
            f"model-space rotation (cap {cap:.3f} degrees)",
            clip=clip,
            bone=name,
            time_s=duration,
            measured=delta,
            expected=cap,
        )
