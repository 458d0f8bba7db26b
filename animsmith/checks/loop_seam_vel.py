"""A declared loop whose bones change velocity across the wrap.

Armed by ``[clips.*] loop = true`` (otherwise not judged). Needs no roles. Per
bone, on the clip's pose grid: outgoing velocity ``(p[1] − p[0]) / dt_first``,
incoming ``(p[N−1] − p[N−2]) / dt_last`` (model space; the last-to-first chord
is not used), ``seam_velocity_delta_mps = |out − in|``. One error when the worst
bone (first on ties) exceeds ``max_velocity_delta_mps`` (a clip's own
``[clips.*] max_loop_velocity_delta_mps`` overrides it; float32 compare, equal
passes): the loop hitches even when its poses close. Time = clip duration.
The message also gives the bone's largest step-to-step velocity change
inside the clip: a seam no larger than that is ordinary acceleration at the
clip's sample rate (raise the cap, per clip or here), a seam well above it
is a hitch.

Coverage gap (scope ``loop_seam_velocity``): ``measurement_unavailable`` as for
``loop-closure``.
"""

from __future__ import annotations

from animsmith.checks._clip import bone_name, expect_value, f32_exceeds, interior_velocity_change_mps
from animsmith.checks.base import Option
from animsmith.checks.loop_closure import continuity_or_gap

ID = "loop-seam-vel"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("config: [clips.*] loop = true",)
CONFIG = {
    "max_velocity_delta_mps": Option(
        0.1,
        "number",
        "Largest change (m/s) of a bone's model-space velocity between the last and the first grid step.",
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
    bone, delta = lc.worst("seam_velocity_delta_mps")
    cap = float(expect_value(ctx, "max_loop_velocity_delta_mps", ctx.options["max_velocity_delta_mps"]))
    if bone is not None and f32_exceeds(delta, cap):
        name = bone_name(ctx, bone)
        inside = interior_velocity_change_mps(ctx.analysis.grid, bone)
        context = "" if inside is None else f"; inside the clip its largest step-to-step change is {inside:.4f} m/s"
        yield ctx.finding(
            f"loop velocity changes at the seam: bone '{name}' differs by {delta:.4f} m/s between the "
            f"incoming and outgoing model-space velocities (cap {cap:.4f} m/s{context})",
            clip=ctx.clip.name,
            bone=name,
            time_s=float(ctx.analysis.grid.times_s[-1]),
            measured=delta,
            expected=cap,
        )
