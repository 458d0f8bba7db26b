"""A declared loop whose bones change angular velocity across the wrap.

Armed by ``[clips.*] loop = true`` (otherwise not judged). Needs no roles. Per
bone: outgoing angular velocity = rotation vector of the model-space step
``q[1]·q[0]⁻¹`` over ``dt_first``, incoming = that of ``q[N−1]·q[N−2]⁻¹`` over
``dt_last`` (w ≥ 0 hemisphere, so shortest steps); ``|ω_out − ω_in|`` in deg/s
compares vectors (20°/s about X vs 20°/s about Y differ by 28.28°/s). One
error when the worst bone (first on ties) exceeds
``max_angular_velocity_delta_degps`` (a clip's own ``[clips.*]
max_loop_angular_velocity_delta_degps`` overrides it; float32 compare, equal
passes). Time =
clip duration.

The message also gives the bone's largest step-to-step change inside the
clip, to tell a hitch from ordinary angular acceleration at the sample rate.

Coverage gap (scope ``loop_seam_rotation``): ``measurement_unavailable`` as for
``loop-closure``.
"""

from __future__ import annotations

from animsmith.checks._clip import bone_name, expect_value, f32_exceeds, interior_angular_velocity_change_degps
from animsmith.checks.base import Option
from animsmith.checks.loop_closure import continuity_or_gap

ID = "loop-seam-rot"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("config: [clips.*] loop = true",)
CONFIG = {
    "max_angular_velocity_delta_degps": Option(
        5.0,
        "number",
        "Largest change (deg/s) of a bone's model-space angular velocity between the last and the first grid step.",
        minimum=0.0,
    ),
}


def check(ctx):
    if not expect_value(ctx, "loop", False):
        return
    lc, gap = continuity_or_gap(ctx, "loop_seam_rotation")
    if gap is not None:
        yield gap
        return
    bone, delta = lc.worst("seam_angular_velocity_delta_degps")
    cap = float(
        expect_value(ctx, "max_loop_angular_velocity_delta_degps", ctx.options["max_angular_velocity_delta_degps"])
    )
    if bone is not None and f32_exceeds(delta, cap):
        name = bone_name(ctx, bone)
        inside = interior_angular_velocity_change_degps(ctx.analysis.grid, bone)
        context = "" if inside is None else f"; inside the clip its largest step-to-step change is {inside:.3f} deg/s"
        yield ctx.finding(
            f"loop angular velocity changes at the seam: bone '{name}' differs by {delta:.3f} deg/s between "
            f"the incoming and outgoing model-space angular velocities (cap {cap:.3f} deg/s{context})",
            clip=ctx.clip.name,
            bone=name,
            time_s=float(ctx.analysis.grid.times_s[-1]),
            measured=delta,
            expected=cap,
        )
