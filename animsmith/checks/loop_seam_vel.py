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

from animsmith.checks._clip import expect_value
from animsmith.checks.base import Option
from animsmith.checks.loop_closure import SeamQuantity, continuity_or_gap, seam_change_findings

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


QUANTITY = SeamQuantity(
    "velocity", "velocities",
    "seam_velocity_delta_mps", "m/s", 4, linear=True,
    steady="it does not accelerate inside the clip",
)


def check(ctx):
    if not expect_value(ctx, "loop", False):
        return
    lc, gap = continuity_or_gap(ctx, "loop_seam_velocity")
    if gap is not None:
        yield gap
        return
    fixed = expect_value(ctx, "max_loop_velocity_delta_mps", ctx.options.get("max_velocity_delta_mps"))
    floor, ratio = float(ctx.options["min_velocity_delta_mps"]), float(ctx.options["max_ratio"])
    yield from seam_change_findings(ctx, lc, QUANTITY, fixed, floor, ratio)
