"""Feet that slide while planted.

Armed by ``[clips.*] speed_mps`` (a clip without a speed pin is not judged).
Per side (left, right), the measured bone is the side's foot role, else its
toe role (on a rig whose names leave them unresolved, the feet of its rear pair
of legs: docs/measure.md, "Legs"). On a rig with more legs than that pair (a
quadruped, an insect, a spider: the legs ``measure`` lists), every other leg's
foot is judged too, by the same rule: a fore foot that slips is as visible as a
hind one. Stance comes from authored contact markers when the clip carries
them, else from the contact-height rule:

* **authored**: the animation's ``extras.animsmith_contacts`` (docs/sim.md;
  what ``animsmith sim bake`` writes) gives plant/lift times per foot bone; a
  foot is in stance at a grid sample inside one of its [plant, lift]
  intervals (±1 µs). A measured bone the markers do not name takes its
  nearest named ancestor's contacts (a toe, its foot's); a foot with no
  named bone, or markers that are malformed or oversized, fall back to the
  height rule (the finding then says why the markers were ignored);
* **contact-height rule**: a foot is in stance at a grid sample when its
  model-space height is within ``contact_height_m`` of that foot's own lowest
  point in the clip AND its vertical speed there (central difference over the
  two neighbouring samples, one-sided at the clip's ends) is at most 0.1 m/s.
  A planted foot's height does not change; the last swing sample before a
  landing (and the first after a lift-off) is often within a few centimetres
  of the ground but still falls (rises) at about 1 m/s while it moves forward
  at swing speed, and counting it as stance would report a clean walk or run
  as skating at its own speed. Gait analysis finds heel strike and toe off
  from the foot's vertical velocity for the same reason (O'Connor et al.,
  "Automatic detection of gait events using kinematic data", Gait & Posture
  2007), and foot-plant detection for footskate cleanup combines a height
  with a velocity threshold (Kovar et al., "Footskate cleanup for motion
  capture editing", SCA 2002; Ikemoto et al., "Knowing when to put your foot
  down", I3D 2006). A foot that slides flat on the ground keeps its height,
  so it stays in stance and is still judged.

A sample pair counts when the foot is in stance at both ends. A clip whose keys
all start after 0 s is judged over its keys' own span: the first pose that a
runtime holds from 0 s until then is not a stance the clip animates
(``duplicate-loop-endpoint`` reports that hold on a loop).

The velocity a planted foot should have (model space, horizontal X/Z):

* **root-motion clip** (``movement_owner_xz = "animation"``, or no owner and a
  measured root speed — the clip's travel bone's, as ``measure speed`` shows
  it — ≥ ``travel_threshold_mps``, default 0.5 m/s, as
  ``in-place`` and ``root-motion-speed`` decide it): 0 — the root carries the
  body over a foot that stays put;
* **in-place clip** (``movement_owner_xz = "gameplay"``, or no owner and a root
  speed below that): the game moves the character forward at
  ``speed_mps``, so the planted foot must sweep BACKWARD relative to the
  root at ``speed_mps``: ``v = speed_mps · û`` where û is the direction of the
  feet's mean stance velocity (the opposite of travel; +Z when the feet do
  not sweep at all, which then deviates by the full ``speed_mps``).

Slide per pair = ``|Δp − v·Δt| / Δt`` (the core's ``contacts.foot_slide``, the
same measurement as ``sim validate``). One warning per side (and per other
leg) whose worst pair exceeds ``max_slide_mps``: it names the foot bone (and the
leg, ``left leg 'leg_0' (pair 1) foot``, for a leg beyond the sides' feet), the time of the later
sample of the worst pair, measured = the worst deviation (m/s), expected = the
cap.

Coverage gaps: ``roles_unresolved`` (scope ``left_foot_stance`` /
``right_foot_stance``) when a side has neither foot nor toe role;
``measurement_unavailable`` (scope ``foot_stance``) when the clip is too short
to sample (fewer than 3 grid samples) or its key times are malformed; without a declared owner,
``roles_unresolved`` / ``measurement_unavailable`` (scope ``foot_stance``)
when the root speed that decides root motion vs in place cannot be measured;
``measurement_unavailable`` (the scope of the foot's side) when a foot is never
in stance on two consecutive samples.

The finding's message says where stance came from (``stance from authored
contact markers`` or ``stance from contact height <h> m``).
"""

from __future__ import annotations

import numpy as np

from animsmith.checks._clip import (
    TRAVEL_THRESHOLD_MPS,
    bone_name,
    digits_apart,
    expect_value,
    malformed_key_times,
    profile_label,
    usable_grid,
)
from animsmith.checks.base import Option
from animsmith.core.contacts import DEFAULT_CONTACT_HEIGHT_M, SIDE_FOOT_ROLES, side_foot_bone
from animsmith.checks.in_place import measured_speed_or_gap
from animsmith.core.contacts import stance_sweep_direction

ID = "foot-slide"
SEVERITY = "warning"
SCOPE = "clip"
NEEDS = (
    "roles: a foot or toe per side (root or hips when movement_owner_xz is not declared)",
    "config: [clips.*] speed_mps",
)
CONFIG = {
    "contact_height_m": Option(
        DEFAULT_CONTACT_HEIGHT_M,
        "number",
        "A foot is in stance when its height is within this many metres of its lowest point in the clip "
        "(and its vertical speed is at most 0.1 m/s).",
        minimum=0.0,
    ),
    "max_slide_mps": Option(
        0.3,
        "number",
        "Warn when a planted foot's horizontal velocity deviates from the expected one by more than this (m/s).",
        minimum=0.0,
    ),
    "travel_threshold_mps": Option(
        TRAVEL_THRESHOLD_MPS,
        "number",
        "Without a declared movement_owner_xz, a root at least this fast (m/s) makes a root-motion clip "
        "(planted feet stay still); slower, an in-place one (they sweep back at speed_mps).",
        minimum=0.0,
    ),
}

#: the clip measurements count each leg's duty factor with this option, so the stance
#: ``measure`` and ``lint --format json`` report is the one this check judges
MEASUREMENT_OPTIONS = ("contact_height_m",)


def side_bones(roles):
    """[(side, bone or None)]: the side's foot role, else its toe role (``core.contacts.side_foot_bone``)."""
    return [(side, side_foot_bone(roles, side)) for side, _ in SIDE_FOOT_ROLES]


def other_leg_feet(roles, measured):
    """[(label, gap scope, foot bone)] of the rig's legs (``core.legmap``) beyond pair 0 (the
    pair whose feet are the sides' roles) whose foot and toe are not already among the
    ``measured`` bones: the fore and middle legs of a quadruped, insect or spider, which plant
    and slide like the rear pair does."""
    legs = getattr(roles, "legs", None)
    if legs is None or not legs.legs:
        return []
    taken = set(measured)
    out = []
    for leg in legs.legs:
        if leg.pair == 0 or leg.foot in taken or (leg.toe is not None and leg.toe in taken):
            continue
        taken.add(leg.foot)
        out.append((f"{leg.side} leg {leg.name!r} (pair {leg.pair}) foot", f"{leg.side}_foot_stance", leg.foot))
    return out


def travel_mode(ctx):
    """("root_motion" | "in_place", how it was decided or None) or (None, gap): the declared
    ``movement_owner_xz``, else the measured root speed against ``travel_threshold_mps``."""
    owner = expect_value(ctx, "movement_owner_xz")
    if owner == "gameplay":
        return "in_place", None
    if owner == "animation":
        return "root_motion", None
    speed, _, gap = measured_speed_or_gap(ctx, "foot_stance")
    if gap is not None:
        return None, gap
    threshold = float(ctx.options.get("travel_threshold_mps", TRAVEL_THRESHOLD_MPS))
    if speed >= threshold:
        return "root_motion", f"the root travels {speed:.2f} m/s, at least [checks.foot-slide] travel_threshold_mps {threshold:.2f}"
    return "in_place", f"the root travels {speed:.2f} m/s, under [checks.foot-slide] travel_threshold_mps {threshold:.2f}"


def feet_stance(ctx, feet, positions_m, times_s, contact_height_m):
    """((N, F) stance, (F,) bool authored?, why markers were ignored or None): the core's
    one stance decision (``core.contacts.feet_stance``) for this clip."""
    from animsmith.core.contacts import feet_stance as decide

    if ctx.analysis is not None:  # made once per clip for the same inputs (the legs' duty factors ask too)
        return ctx.analysis.feet_stance(feet, positions_m, times_s, contact_height_m)
    return decide(ctx.clip, ctx.asset.skeleton, feet, positions_m, times_s, contact_height_m)


def key_span(ctx, grid):
    """The judged grid over the keys' own span (``ClipAnalysis.loop_grid``) when the keys
    start after 0 s: the first pose held from 0 s until the first key is no stance the
    clip animates (``duplicate-loop-endpoint`` reports the hold), else ``grid``."""
    if not (float(ctx.clip.start_s) > 0.0):
        return grid
    span = ctx.analysis.loop_grid
    return span if span is not None and span.frame_count >= 3 else grid


def check(ctx):
    from animsmith.core.contacts import foot_slide

    pin = expect_value(ctx, "speed_mps")
    if pin is None:
        return
    pin = float(pin)
    clip = ctx.clip.name
    sides = side_bones(ctx.roles)
    for side, bone in sides:
        if bone is None:
            yield ctx.gap(
                "roles_unresolved",
                f"{side} foot/toe role not resolved (rig profile '{profile_label(ctx)}')",
                scope=f"{side}_foot_stance",
                subjects=[clip],
            )
    measured = [(f"{side} foot", f"{side}_foot_stance", bone) for side, bone in sides if bone is not None]
    if not measured:
        return
    measured += other_leg_feet(ctx.roles, [bone for _, _, bone in measured])
    grid = usable_grid(ctx)
    if grid is None:
        why = malformed_key_times(ctx) or "clip is too short to sample foot stance"
        yield ctx.gap("measurement_unavailable", why, scope="foot_stance", subjects=[clip])
        return
    mode, decided = travel_mode(ctx)
    if mode is None:
        yield decided
        return

    feet = [bone for _, _, bone in measured]
    grid = key_span(ctx, grid)
    positions = np.asarray(grid.model_position_m[:, feet, :], dtype=np.float64)
    times = np.asarray(grid.times_s, dtype=np.float64)
    contact = float(ctx.options["contact_height_m"])
    cap = float(ctx.options["max_slide_mps"])
    stance, authored, ignored = feet_stance(ctx, feet, positions, times, contact)
    if mode == "in_place":
        ground = pin * stance_sweep_direction(positions, times, stance)
        why = f"expected a {pin:.2f} m/s backward sweep in place"
    else:
        ground = np.zeros(3)
        why = "expected a still foot under root motion"
    if decided:  # no declared owner: say what decided, and how to declare it
        why += f" ({decided}; declare [clips.*] movement_owner_xz to decide)"
    fs = foot_slide(positions, times, stance=stance, ground_velocity_mps=ground)
    for f, (label, scope, bone) in enumerate(measured):
        worst_mps, _, time_s = fs.foot_worst(f)
        name = bone_name(ctx, bone)
        source = "authored contact markers" if authored[f] else f"contact height {contact:g} m"
        if not authored[f] and ignored:
            source += f"; contact markers ignored: {ignored}"
        if worst_mps is None:
            yield ctx.gap(
                "measurement_unavailable",
                f"{label} '{name}' is never in stance on two consecutive samples ({source})",
                scope=scope,
                subjects=[clip],
            )
            continue
        if worst_mps > cap:
            shown = digits_apart(worst_mps, cap)
            yield ctx.finding(
                f"{label} skates during stance: its horizontal velocity is {worst_mps:.{shown}f} m/s off "
                f"({why}; cap {cap:.{shown}f} m/s; stance from {source}) — foot plants will slip at runtime",
                clip=clip,
                bone=name,
                time_s=time_s,
                measured=worst_mps,
                expected=cap,
            )
