"""A declared loop whose last pose does not lead into its first pose.

Armed by ``[clips.*] loop = true`` (otherwise not judged: no finding, no gap).
Needs no roles. On the clip's pose grid over the keys' own span (first key to last: a clip keyed from 1/30 s holds its first pose before that, which ``duplicate-loop-endpoint`` reports, and the cycle is judged without the hold), per bone, the wrap
from the last sample into the first:

* ``position_delta_m`` = model-space distance between the last position and
  the first;
* ``rotation_delta_deg`` = shortest-path angle between the last and the first
  model rotation (sign-invariant: a 350° turn reads 10°).

How the wrap is judged depends on how the clip ends:

* **closed cycle** (the authored last key repeats the first on every channel,
  ``loop_endpoint_mode = "duplicated_endpoint"``, or every bone's last pose is
  within 0.1 mm and 0.01° of its first, whatever float noise the keys carry):
  the last pose must *be* the first pose. The single worst bone of each dimension is judged (first bone on
  ties): an error when its position delta exceeds ``max_position_delta_m``,
  another when its rotation delta exceeds ``max_rotation_delta_deg`` (a clip's
  own ``max_loop_position_delta_m`` / ``max_loop_rotation_delta_deg`` in
  ``[clips.*]`` override these).
* **open cycle** (any other clip, ``unique_cycle`` / ``non_closing``: the last
  key is one frame before the first pose, as most exporters write loops): the
  wrap is one more frame, so it is judged against the bone's own neighbouring
  steps (the larger of the first and the last in-clip step): an error when a
  bone's wrap exceeds ``max(cap, max_wrap_step_ratio × that step)``, in
  position and in rotation (the bone whose wrap is the largest multiple of its
  allowance is named). A clean open export passes; a pop fails.

**Travelling loops.** On a clip that travels (``movement_owner_xz =
"animation"``, or no owner and a root speed of at least 0.05 m/s, the speed
from which a gait group's travel policy counts a member as travelling: a slow
creature or a sneak travels too; never on a ``"gameplay"`` clip), the first pose is
first carried to where the next cycle starts: moved by the travel bone's
horizontal displacement from the first to the last frame (plus one ordinary
step for an open cycle) and, when the clip turns by more than 5°, turned by
its yaw. The distance walked is root motion, not a seam; anything else (a
limb, the hips' height, a twist) that does not match across the wrap is still
reported. On such a clip the travel bone's own translation and rotation keys
do not decide closed vs open. The travel bone is the one ``measure speed``
shows; without one (no hips or root role) the wrap is judged in model space.

Comparisons are made in float32 (a value authored exactly at the cap passes).
Time = clip duration (the seam).

Coverage gap (scope ``loop_closure``): ``measurement_unavailable`` when the
clip has fewer than 3 grid samples, a non-positive first/last grid step, a
non-finite / zero-length pose at a loop endpoint, or malformed key times
(non-finite or not increasing).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from animsmith.checks._clip import bone_name, expect_value, malformed_key_times
from animsmith.checks.base import Option
from animsmith.core.tolerance import f32_exceeds, f32_exceeds_each

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
    "max_wrap_step_ratio": Option(
        1.5,
        "number",
        "Open cycle: largest wrap step as a multiple of the bone's larger neighbouring step (the caps above are the floor).",
        minimum=0.0,
    ),
}


def loop_travels(ctx) -> bool:
    """Whether the loop checks judge this clip in its travelling frame: declared root
    motion (``movement_owner_xz = "animation"``), or no owner declared and a travel bone
    that is not in place (``core.travel.is_in_place``: it moves at least 0.05 m/s, the
    rule a gait group's travel policy uses). Never a ``"gameplay"`` clip: an in-place
    loop that drifts has a real seam."""
    from animsmith.core.travel import loop_travels as travels

    owner = expect_value(ctx, "movement_owner_xz")
    if owner is not None:
        return travels(None, owner)
    try:
        speed = ctx.analysis.speed.speed_mps
    except Exception:  # a clip the core cannot sample: judged in model space
        return False
    return travels(speed)


def continuity_or_gap(ctx, scope: str):
    """(LoopContinuity, None) or (None, gap) for the loop continuity checks: the wrap as
    :func:`loop_travels` and the clip's endpoint decide (core ``loop_continuity_for``)."""
    clip = ctx.clip.name
    bad = malformed_key_times(ctx)
    if bad:
        return None, ctx.gap(
            "measurement_unavailable", f"clip has no usable per-bone loop-continuity sample ({bad})",
            scope=scope, subjects=[clip],
        )
    try:
        lc = ctx.analysis.loop_continuity_for(loop_travels(ctx))
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


def frame_note(ctx, lc) -> str:
    """``" (travelling with 'Hips')"`` when the wrap was judged in the travelling frame."""
    if lc.cycle is None:
        return ""
    turn = f", turning {lc.cycle.yaw_deg:.1f}°" if lc.cycle.yaw_deg else ""
    return f" (in the frame travelling with '{bone_name(ctx, lc.cycle.bone)}'{turn})"


def _worst_over_allowance(delta: np.ndarray, allowed: np.ndarray):
    """(bone, delta, allowed) of the bone whose delta is the largest multiple of its
    allowance among those exceeding it (float32 compare), or None."""
    over = f32_exceeds_each(delta, allowed)
    if not over.any():
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(allowed > 0, delta / np.where(allowed > 0, allowed, 1.0), np.inf)
    ratio = np.where(over, ratio, -np.inf)
    b = int(np.argmax(ratio))
    return b, float(delta[b]), float(allowed[b])


def seam_over_relative_cap(ctx, lc, field_name: str, floor: float, ratio: float, velocity: bool):
    """The seam checks' default rule: (bone, seam change, inner change or None, cap, the
    mirror bone whose inner change it is or None) of the
    bone whose seam change most exceeds ``max(floor, ratio × its largest step-to-step
    change inside the clip)``, or None when every bone passes. The inner change is the
    larger of the bone's own and its mirror bone's (core.roles.mirror_bones): a loop that
    starts on a foot plant has that plant at its seam, and the other foot's plant inside
    the clip is the same event. Only bones above the floor (and their mirrors) are
    sampled over the whole clip."""
    from animsmith.core.seam import interior_seam_changes

    delta = np.asarray(getattr(lc, field_name), dtype=np.float64)
    with np.errstate(over="ignore"):
        suspects = np.flatnonzero(delta.astype(np.float32) > np.float32(floor))
    if suspects.size == 0:
        return None
    mirror = ctx.analysis.mirror_bones[suspects]
    sampled = np.concatenate([suspects, mirror[mirror >= 0]])
    vel, ang = interior_seam_changes(ctx.analysis.loop_grid, sampled)
    inner_all = vel if velocity else ang
    if inner_all is None:
        inner_all = np.full(sampled.size, np.nan)
    inner = np.asarray(inner_all[: suspects.size], dtype=np.float64).copy()
    # a mirror bone's largest change is the same event half a cycle away (a plant, a lift)
    twin = np.full(suspects.size, np.nan)
    twin[mirror >= 0] = inner_all[suspects.size:]
    use_twin = np.isfinite(twin) & ~(twin <= inner)
    inner[use_twin] = twin[use_twin]
    allowed = np.maximum(floor, np.where(np.isfinite(inner), ratio * inner, 0.0))
    worst = _worst_over_allowance(delta[suspects], allowed)
    if worst is None:
        return None
    i, d, cap = worst
    value = float(inner[i])
    return int(suspects[i]), d, (value if np.isfinite(value) else None), cap, (int(mirror[i]) if use_twin[i] else None)


class SeamQuantity(NamedTuple):
    """What a seam check compares across the wrap, and how its finding writes it."""

    noun: str  #: "velocity", "angular velocity"
    plural: str  #: "velocities", "angular velocities"
    field_name: str  #: the per-bone seam change on :class:`LoopContinuity`
    unit: str
    decimals: int
    linear: bool  #: linear (else angular) step-to-step changes inside the clip
    steady: str  #: what a bone whose change inside the clip is zero does not do


def seam_change_findings(ctx, lc, q: SeamQuantity, fixed, floor: float, ratio: float):
    """The seam checks' finding (none when the clip passes): ``fixed`` is an absolute cap,
    or None for :func:`seam_over_relative_cap`'s relative one."""

    def amount(x: float) -> str:
        return f"{x:.{q.decimals}f} {q.unit}"

    if fixed is not None:
        from animsmith.core.seam import interior_seam_changes

        bone, delta = lc.worst(q.field_name)
        cap = float(fixed)
        if bone is None or not f32_exceeds(delta, cap):
            return
        vel, ang = interior_seam_changes(ctx.analysis.loop_grid, [bone])
        changes = vel if q.linear else ang
        inside = None if changes is None else float(changes[0])
        context = "" if inside is None else f"; inside the clip its largest step-to-step change is {amount(inside)}"
        text = f"cap {amount(cap)}{context}"
    else:
        worst = seam_over_relative_cap(ctx, lc, q.field_name, floor, ratio, velocity=q.linear)
        if worst is None:
            return
        bone, delta, inside, cap, twin = worst
        whose = "its" if twin is None else f"its mirror '{bone_name(ctx, twin)}'s"
        if inside is None:
            text = f"cap {amount(cap)}"
        elif inside > 0:
            text = (
                f"{delta / inside:.1f}x {whose} largest step-to-step change inside the clip, {amount(inside)}; "
                f"cap {amount(cap)} = max({floor:g}, {ratio:g}x that change)"
            )
        else:
            text = f"{q.steady}; cap {amount(cap)}"
    name = bone_name(ctx, bone)
    where = f"between the incoming and outgoing model-space {q.plural}" + frame_note(ctx, lc)
    yield ctx.finding(
        f"loop {q.noun} changes at the seam: bone '{name}' differs by {amount(delta)} {where} ({text})",
        clip=ctx.clip.name,
        bone=name,
        time_s=float(ctx.analysis.grid.times_s[-1]),
        measured=delta,
        expected=cap,
    )

def check(ctx):
    if not expect_value(ctx, "loop", False):
        return
    lc, gap = continuity_or_gap(ctx, "loop_closure")
    if gap is not None:
        yield gap
        return
    clip = ctx.clip.name
    duration = float(ctx.analysis.grid.times_s[-1])
    pos_cap = float(expect_value(ctx, "max_loop_position_delta_m", ctx.options["max_position_delta_m"]))
    rot_cap = float(expect_value(ctx, "max_loop_rotation_delta_deg", ctx.options["max_rotation_delta_deg"]))
    note = frame_note(ctx, lc)
    if lc.open_cycle:
        yield from _open_cycle(ctx, lc, pos_cap, rot_cap, note, duration)
        return
    where = "first-frame position" + note if note else "first-frame model-space position"
    bone, delta = lc.worst("position_delta_m")
    if bone is not None and f32_exceeds(delta, pos_cap):
        name = bone_name(ctx, bone)
        yield ctx.finding(
            f"loop does not close in position: bone '{name}' is {delta:.4f} m from its {where} "
            f"(cap {pos_cap:.4f} m)",
            clip=clip,
            bone=name,
            time_s=duration,
            measured=delta,
            expected=pos_cap,
        )
    where = "first-frame rotation" + note if note else "first-frame model-space rotation"
    bone, delta = lc.worst("rotation_delta_deg")
    if bone is not None and f32_exceeds(delta, rot_cap):
        name = bone_name(ctx, bone)
        yield ctx.finding(
            f"loop does not close in rotation: bone '{name}' is {delta:.3f} degrees from its {where} "
            f"(cap {rot_cap:.3f} degrees)",
            clip=clip,
            bone=name,
            time_s=duration,
            measured=delta,
            expected=rot_cap,
        )


def _open_cycle(ctx, lc, pos_cap: float, rot_cap: float, note: str, duration: float):
    """An open cycle: each bone's wrap against max(cap, ratio × its larger neighbouring step)."""
    ratio = float(ctx.options["max_wrap_step_ratio"])
    for kind, delta, step, cap, unit, digits in (
        ("position", lc.position_delta_m, lc.neighbour_step_m, pos_cap, "m", 4),
        ("rotation", lc.rotation_delta_deg, lc.neighbour_step_deg, rot_cap, "degrees", 3),
    ):
        worst = _worst_over_allowance(delta, np.maximum(cap, ratio * step))
        if worst is None:
            continue
        bone, d, allowed = worst
        name = bone_name(ctx, bone)
        yield ctx.finding(
            f"loop does not close in {kind}: bone '{name}' jumps {d:.{digits}f} {unit} across the wrap{note}, "
            f"more than an ordinary frame step (its larger neighbouring step is {float(step[bone]):.{digits}f} {unit}; "
            f"cap max({cap:.{digits}f}, {ratio:g}x that step) = {allowed:.{digits}f} {unit}) — "
            "an open cycle's wrap must be one more frame of the motion",
            clip=ctx.clip.name,
            bone=name,
            time_s=duration,
            measured=d,
            expected=allowed,
        )
