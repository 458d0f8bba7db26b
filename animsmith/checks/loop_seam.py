"""A declared loop whose feet pop at the wrap.

Armed by ``[clips.*] loop = true`` (a clip not declared looping is not judged:
no finding, no gap). On the clip's pose grid over the keys' own span (as
``loop-closure``), with ``rel(i, f)`` = the model
position of foot/toe bone ``f`` minus the hips at sample ``i`` and
``D(i, j) = max_f |rel(i, f) − rel(j, f)|``:

    ratio = D(N−1, 0) / max(D(1, 0), D(N−1, N−2))

the wrap step over the larger neighbouring in-clip step. ≈ 0 for an inclusive
cycle (last pose = first), ≈ 1 for an open cycle, well above 1 for a seam that
pops. Feet relative to the hips do not see the distance a travelling clip
walks; on a clip that travels and turns (``loop-closure``'s travelling frame)
the first sample's offsets are also turned by the clip's yaw per cycle before
the wrap step is taken. Error when ``ratio > max_ratio``; the finding names the foot with the
largest wrap step, time = clip duration (the seam).

Coverage gaps (scope ``loop_seam``): ``roles_unresolved`` without hips and a
foot/toe role; ``measurement_unavailable`` when the clip is too short to sample
(fewer than 3 grid samples or zero duration), when its key times are malformed
(non-finite or not increasing: ``nan`` / ``time-monotonic`` report those), or
when the larger neighbouring
step is below the stride floor (no usable stride step to normalise by — e.g. an
idle). The floor is ``min_stride_step_m`` per 1/30 s, scaled by the grid's step
(0.01 m per step at 60 fps, 0.025 m at 24 fps): a foot speed relative to the hips
(0.6 m/s by default), so the same walk is judged at every frame rate. A slow
walk or a small creature can step less than that (the simulator's biped walking
at 0.3 m/s steps 1 cm per 1/30 s); the gap says so, and a lower
``min_stride_step_m`` judges its seam.
"""

from __future__ import annotations

import numpy as np

from animsmith.checks._clip import bone_name, digits_apart, expect_value, gait_domain_reason, malformed_key_times, usable_grid
from animsmith.checks.base import Option

ID = "loop-seam"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("roles: hips + a foot or toe", "config: [clips.*] loop = true")
CONFIG = {
    "max_ratio": Option(
        1.5, "number", "Fail when the wrap step exceeds this multiple of the larger neighbouring step.", minimum=0.0
    ),
    "min_stride_step_m": Option(
        0.02,
        "number",
        "Smallest neighbouring foot step (metres relative to the hips, per 1/30 s: scaled by the grid's step at other frame rates) that can normalise the seam; below it the seam is a coverage gap.",
        minimum=0.0,
    ),
}

#: the clip measurements normalise the published ``loop_seam_ratio`` by this option, so the
#: ratio ``measure`` and ``lint --format json`` show is the one this check judges
MEASUREMENT_OPTIONS = ("min_stride_step_m",)

FEET = ("left_foot", "left_toe", "right_foot", "right_toe")


def worst_seam_foot(grid, roles) -> int:
    """Foot/toe bone whose feet-relative-to-hips position jumps most across the wrap."""
    feet = [roles.get(r) for r in FEET if roles.get(r) is not None]
    pos = np.asarray(grid.model_position_m, dtype=np.float64)
    rel = pos[:, feet, :] - pos[:, roles.get("hips"), None, :]
    jump = np.linalg.norm(rel[-1] - rel[0], axis=-1)
    return int(feet[int(np.argmax(jump))])


def _turn_deg(ctx) -> float:
    """The yaw the next cycle starts turned by on a travelling, turning clip (loop-closure's
    travelling frame), else 0."""
    from animsmith.checks.loop_closure import loop_travels

    if not loop_travels(ctx):
        return 0.0
    lc = ctx.analysis.loop_continuity_for(True)
    return float(lc.cycle.yaw_deg) if lc.cycle is not None else 0.0


def check(ctx):
    if not expect_value(ctx, "loop", False):
        return
    clip = ctx.clip.name
    reason = gait_domain_reason(ctx)
    if reason:
        yield ctx.gap("roles_unresolved", reason, scope="loop_seam", subjects=[clip])
        return
    grid = usable_grid(ctx)
    if grid is None:
        why = malformed_key_times(ctx) or "clip is too short to sample a loop cycle"
        yield ctx.gap("measurement_unavailable", why, scope="loop_seam", subjects=[clip])
        return
    ratio, why = ctx.analysis.seam_ratio_with(float(ctx.options["min_stride_step_m"]), _turn_deg(ctx))
    if ratio is None:
        yield ctx.gap(
            "measurement_unavailable",
            f"the clip has no usable stride step for normalising its loop seam ({why}); an idle has "
            "none, but a slow walk's or a small creature's feet can move less: for them lower "
            "[checks.loop-seam] min_stride_step_m",
            scope="loop_seam",
            subjects=[clip],
        )
        return
    cap = float(ctx.options["max_ratio"])
    if ratio > cap:
        shown = digits_apart(ratio, cap)
        yield ctx.finding(
            f"loop seam pops: wrap discontinuity is {ratio:.{shown}f}× the neighbouring in-clip step "
            f"(cap {cap:.{shown}f}) — the clip does not close its cycle",
            clip=clip,
            bone=bone_name(ctx, worst_seam_foot(grid, ctx.roles)),
            time_s=float(grid.times_s[-1]),
            measured=float(ratio),
            expected=cap,
        )
