"""A declared loop whose bones change velocity across the wrap more than anywhere inside it.

Armed by ``[clips.*] loop = true`` (otherwise not judged). Needs no roles. Per
bone, on the clip's pose grid over the keys' own span (as ``loop-closure``): outgoing velocity ``(p[1] − p[0]) / dt_first``,
incoming ``(p[N−1] − p[N−2]) / dt_last`` (model space). For a closed cycle
(the last key repeats the first) the seam change is ``|out − in|`` (the
last-to-first chord is zero-length, never a velocity); for an open cycle the
wrap is one more frame with its own velocity ``v_wrap``, and the seam change is
the larger of ``|v_wrap − in|`` and ``|out − v_wrap|``.

**Default cap, relative to the clip.** A bone fails when its seam change
exceeds ``max(min_velocity_delta_mps, max_ratio × its largest step-to-step
velocity change inside the clip)`` (defaults 0.1 m/s and 1.5, the ratio
``loop-seam`` uses). Ordinary acceleration at the clip's sample rate already
changes a foot's velocity by metres per second between two frames, so a fixed
small cap fails every clean loop; a seam well above what the bone does
anywhere else is a hitch. The finding names the bone whose seam change is the
largest multiple of its cap.
The bone's largest change inside the clip is the larger of its own and its
mirror bone's (the bone named like it with left and right swapped, e.g.
``LeftLeg`` / ``RightLeg``, ``thigh_l`` / ``thigh_r``): a cycle that starts on
a foot plant — the contact pose animators start walks on — has that plant at
its seam, and the other foot's plant inside the clip is the same event, so a
clean loop passes whichever frame it starts on.

**Absolute cap.** ``max_velocity_delta_mps`` set in ``[checks.loop-seam-vel]``
(or a clip's own ``[clips.*] max_loop_velocity_delta_mps``) replaces the
relative cap: the worst bone (first on ties) fails above it, and the message
gives its largest change inside the clip for context.

On a clip that travels the wrap is compared in the travelling frame, as
``loop-closure`` describes (a turning clip's incoming motion is turned back by
its yaw), so root motion is no seam. Float32 compare (equal passes). Time =
clip duration.

Coverage gap (scope ``loop_seam_velocity``): ``measurement_unavailable`` as for
``loop-closure``.
"""

from __future__ import annotations

from animsmith.checks._clip import bone_name, expect_value, f32_exceeds
from animsmith.checks.base import Option
from animsmith.checks.loop_closure import continuity_or_gap, frame_note, seam_over_relative_cap
from animsmith.core.trajectory import interior_seam_changes

ID = "loop-seam-vel"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("config: [clips.*] loop = true",)
CONFIG = {
    "max_velocity_delta_mps": Option(
        None,
        "number",
        "Absolute cap (m/s) on a bone's velocity change across the wrap; unset: the relative cap below.",
        minimum=0.0,
    ),
    "min_velocity_delta_mps": Option(
        0.1,
        "number",
        "Relative cap's floor (m/s): a seam change at or below it always passes.",
        minimum=0.0,
    ),
    "max_ratio": Option(
        1.5,
        "number",
        "Relative cap: largest seam change as a multiple of the bone's largest step-to-step change inside the clip.",
        minimum=0.0,
    ),
}


def check(ctx):
    if not expect_value(ctx, "loop", False):
        return
    lc, gap = continuity_or_gap(ctx, "loop_seam_velocity")
    if gap is not None:
        yield gap
        return
    where = "between the incoming and outgoing model-space velocities" + frame_note(ctx, lc)
    fixed = expect_value(ctx, "max_loop_velocity_delta_mps", ctx.options.get("max_velocity_delta_mps"))
    if fixed is not None:
        bone, delta = lc.worst("seam_velocity_delta_mps")
        cap = float(fixed)
        if bone is None or not f32_exceeds(delta, cap):
            return
        vel, _ = interior_seam_changes(ctx.analysis.loop_grid, [bone])
        inside = None if vel is None else float(vel[0])
        context = "" if inside is None else f"; inside the clip its largest step-to-step change is {inside:.4f} m/s"
        text = f"cap {cap:.4f} m/s{context}"
    else:
        floor = float(ctx.options["min_velocity_delta_mps"])
        ratio = float(ctx.options["max_ratio"])
        worst = seam_over_relative_cap(ctx, lc, "seam_velocity_delta_mps", floor, ratio, velocity=True)
        if worst is None:
            return
        bone, delta, inside, cap, twin = worst
        whose = "its" if twin is None else f"its mirror '{bone_name(ctx, twin)}'s"
        if inside is None:
            text = f"cap {cap:.4f} m/s"
        else:
            text = (
                f"{delta / inside:.1f}x {whose} largest step-to-step change inside the clip, {inside:.4f} m/s; "
                f"cap {cap:.4f} m/s = max({floor:g}, {ratio:g}x that change)"
            ) if inside > 0 else f"it does not accelerate inside the clip; cap {cap:.4f} m/s"
    name = bone_name(ctx, bone)
    yield ctx.finding(
        f"loop velocity changes at the seam: bone '{name}' differs by {delta:.4f} m/s {where} ({text})",
        clip=ctx.clip.name,
        bone=name,
        time_s=float(ctx.analysis.grid.times_s[-1]),
        measured=delta,
        expected=cap,
    )
