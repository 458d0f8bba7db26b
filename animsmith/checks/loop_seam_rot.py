"""A declared loop whose bones change angular velocity across the wrap more than anywhere inside it.

Armed by ``[clips.*] loop = true`` (otherwise not judged). Needs no roles. Per
bone, on the pose grid over the keys' own span (as ``loop-closure``): outgoing angular velocity = rotation vector of the model-space step
``q[1]·q[0]⁻¹`` over ``dt_first``, incoming = that of ``q[N−1]·q[N−2]⁻¹`` over
``dt_last`` (w ≥ 0 hemisphere, so shortest steps); ``|ω_out − ω_in|`` in deg/s
compares vectors (20°/s about X vs 20°/s about Y differ by 28.28°/s). For an
open cycle the wrap is one more frame with its own angular velocity, and the
seam change is the larger of its changes from the incoming and to the
outgoing step (as ``loop-seam-vel``).

**Default cap, relative to the clip.** A bone fails when its seam change
exceeds ``max(min_angular_velocity_delta_degps, max_ratio × its largest
step-to-step angular velocity change inside the clip)`` (defaults 5 deg/s and
1.5): a seam no larger than what the bone does between two frames anywhere
else is ordinary angular acceleration; well above it is a hitch. The finding
names the bone whose seam change is the largest multiple of its cap.
The bone's largest change inside the clip is the larger of its own and its
mirror bone's (the bone named like it with left and right swapped, e.g.
``LeftLeg`` / ``RightLeg``, ``thigh_l`` / ``thigh_r``): a cycle that starts on
a foot plant — the contact pose animators start walks on — has that plant at
its seam, and the other foot's plant inside the clip is the same event, so a
clean loop passes whichever frame it starts on.

**Absolute cap.** ``max_angular_velocity_delta_degps`` set in
``[checks.loop-seam-rot]`` (or a clip's own ``[clips.*]
max_loop_angular_velocity_delta_degps``) replaces the relative cap: the worst
bone (first on ties) fails above it, and the message gives its largest change
inside the clip for context.

On a clip that travels the wrap is compared in the travelling frame, as
``loop-closure`` describes. Float32 compare (equal passes). Time = clip
duration.

Coverage gap (scope ``loop_seam_rotation``): ``measurement_unavailable`` as for
``loop-closure``.
"""

from __future__ import annotations

from animsmith.checks._clip import expect_value
from animsmith.checks.base import Option
from animsmith.checks.loop_closure import SeamQuantity, continuity_or_gap, seam_change_findings

ID = "loop-seam-rot"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("config: [clips.*] loop = true",)
CONFIG = {
    "max_angular_velocity_delta_degps": Option(
        None,
        "number",
        "Absolute cap (deg/s) on a bone's angular velocity change across the wrap; unset: the relative cap below.",
        minimum=0.0,
    ),
    "min_angular_velocity_delta_degps": Option(
        5.0,
        "number",
        "Relative cap's floor (deg/s): a seam change at or below it always passes.",
        minimum=0.0,
    ),
    "max_ratio": Option(
        1.5,
        "number",
        "Relative cap: largest seam change as a multiple of the bone's largest step-to-step change inside the clip.",
        minimum=0.0,
    ),
}


QUANTITY = SeamQuantity(
    "angular velocity", "angular velocities",
    "seam_angular_velocity_delta_degps", "deg/s", 3, linear=False,
    steady="it does not turn faster or slower inside the clip",
)


def check(ctx):
    if not expect_value(ctx, "loop", False):
        return
    lc, gap = continuity_or_gap(ctx, "loop_seam_rotation")
    if gap is not None:
        yield gap
        return
    fixed = expect_value(ctx, "max_loop_angular_velocity_delta_degps", ctx.options.get("max_angular_velocity_delta_degps"))
    floor, ratio = float(ctx.options["min_angular_velocity_delta_degps"]), float(ctx.options["max_ratio"])
    yield from seam_change_findings(ctx, lc, QUANTITY, fixed, floor, ratio)
