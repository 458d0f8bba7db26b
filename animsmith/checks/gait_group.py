"""A declared blend ring whose members do not share one stride phase, or break its travel policy.

Armed by ``[gait_groups.<name>]``. Each member's stride anchor
(``gait_phase``, in [0, 1) of a stride: the trough of the stride harmonic of
the left-minus-right foot height relative to the hips, see ``measure``) is
read from its measurements. Then, in declared order:

* a member that is **missing** (no such clip in the linted file(s), no such
  member file, a multi-clip file named without ``#clip``) is an **error**
  finding naming it;
* a member whose ``lr_amplitude_m`` is positive but **below**
  ``min_lr_amplitude_m`` (a near-idle clip swaying) is excluded as noise,
  whether or not its small swing has a phase: coverage gap
  ``measurement_unavailable`` (scope ``phase_measurement``, subject = the
  member). An amplitude at the floor (within 1e-6 m: float32 key data)
  counts as evidence;
* a member whose gait **cannot be measured** otherwise (no hips/foot roles,
  too short to sample, an exact-zero left-minus-right swing, a swing above
  the floor with no left/right alternation) is an **error** finding with the
  reason — the group's coherence is never silently unverified;
* a member listed twice, or one clip named two ways (`walk`, `packs/walk.glb#walk`), counts once;
* a bare clip name held by several linted files is taken from the first (in
  argument order) and gets a **note** naming the others.

The anchor is per stride (``cycles`` strides in the clip: the phase of the
dominant harmonic, see ``measure``). Measured members whose stride counts
differ are an **error**: played at the same normalised time their strides
cannot line up, whatever their anchors.

With at least two measured anchors p_i: circular mean
μ = atan2(Σ sin 2πp_i, Σ cos 2πp_i) (for anchors with no mean direction, e.g.
three a third apart, the centre of the shortest arc holding them); spread =
max_i of the circular distance of p_i from μ, in cycles ([0, 0.5]); anchors
0.75/0.75/0.50/0.75 → 0.1988. **Error** when spread >
``max_gait_phase_spread`` (a spread at the cap, within 1e-6 cycle, passes);
the outliers are the members farther than the cap from μ. No member is
nominated as the reference: the set's spread is judged. Fewer than two
measured anchors → gap ``insufficient_measurable_members`` (scope
``phase_coherence``, subject = the group; no group record is published).

Rigs with more than one pair of legs (quadrupeds, hexapods...: ``measure``'s
``pairs``): the anchors above are pair 0's (the rear pair); every further pair's
anchors (``pairs[p].gait_phase``) are judged the same way, with the same cap, over
the members that measure that pair: an **error** per pair whose spread exceeds the
cap, naming the pair. Multi-pair members whose ``gait_pattern`` differs (a trot and a
pace in one ring) are an **error** naming each member's pattern: blending them
swaps which feet move together. Members without a pattern (a leg without a phase)
take no part in that comparison.

The group's anchors, spread, cap and outliers are published in the JSON
``measurements.groups.<name>`` (with ``pairs`` {pair: {anchors, spread, outliers}}
and ``patterns`` {member: pattern} for multi-pair members).

**Travel policy.** Equal cycle durations do not mean equal travel: members
that cover different distances per cycle have different stride lengths, and a
controller that drives one gait-wide speed then makes some directions slide.
Whether that is a defect depends on the controller, so the project declares
its policy in ``travel_policy`` and every member is held to it. Per member:
speed (m/s, the travel bone's horizontal endpoint speed, as ``measure``),
stride length (m) = speed × duration ÷ strides in the clip (``cycles``) and
heading (deg, +Z = 0, +X = 90). An **in-place** member (``movement_owner_xz =
"gameplay"``, or no owner and a root slower than 0.05 m/s) takes its declared
``speed_mps`` as its speed; without one it has no travel to compare. Spread =
largest − smallest over the members that have a speed.

* ``"uniform"``: **error** when the speed spread exceeds ``max_speed_delta_mps``
  (default 0.1 m/s) or the stride-length spread exceeds
  ``max_stride_length_delta_m`` (default 0.1 m, about 7 % of a walking
  stride); the message gives both spreads, the slowest and fastest members and
  every member's speed, stride length and heading. Diagonals are judged like
  any member. An unpinned in-place member is a coverage gap
  ``measurement_unavailable`` (scope ``travel_policy``: "in-place; declare
  speed_mps to compare"); fewer than two members with a speed is a gap
  ``insufficient_measurable_members``.
* ``"pinned"``: every member declares ``speed_mps`` in ``[clips.*]``; a member
  without one is an **error** naming it and the table to add: ``[clips."run_left"]``
  (the clip's name) for a member given as ``packs/left.glb#run_left``, or the member
  as given (``[clips."left.glb"]``) when another member's clip has the same name (Mixamo
  downloads, every clip ``mixamo.com``), as a key naming a file pins that file's clips
  only (docs/config.md). A root-motion member whose measured
  speed is farther from its pin than its ``speed_tolerance_mps`` (else
  ``max_speed_delta_mps``) is an **error** (measured = speed, expected = pin);
  an in-place member's speed is its pin.
* ``"accepted"``: the variation is recorded and produces no finding (unpinned
  in-place members are gaps, as for ``uniform``).
* no policy: when the spreads exceed the same tolerances, one **note** lists
  every member's speed, stride length and heading and names the three
  policies; in-place members without a pin are left out silently. A
  ``[checks.gait-group] severity`` override leaves this note a note.

A member whose speed cannot be measured (no root or hips role, too short) is a
gap ``measurement_unavailable`` under a declared policy. The policy, the
tolerances, both spreads and every member's ``speed_mps``,
``stride_length_m``, ``heading_deg``, ``source`` (``measured``, ``declared``
or ``in_place``) and ``speed_pin_mps`` are published in
``measurements.groups.<name>.travel``; the HTML report's group section shows
them as a table.
"""

from __future__ import annotations

from animsmith import numtext
from animsmith.checks._clip import digits_apart
from animsmith.checks._group import (
    MIN_LR_AMPLITUDE,
    ambiguity_notes,
    fmt_list,
    missing_message,
    phase_reason,
)
from animsmith.checks.base import Option
from animsmith.checks.context import GroupRecord
from animsmith.core.tolerance import allowance, below, exceeds
from animsmith.core.travel import TRAVEL_POLICIES, finite

ID = "gait-group"
SEVERITY = "error"
SCOPE = "group"
GROUP_TABLE = "gait_groups"
NEEDS = (
    "config: [gait_groups.<name>] clips, max_gait_phase_spread, min_lr_amplitude_m "
    "(travel: travel_policy, max_speed_delta_mps, max_stride_length_delta_m)",
    "roles: hips + left and right foot (or toe) in every member (travel: root or hips)",
)
#: ``[gait_groups.<name>]`` keys besides ``clips``
TABLE_KEYS = {
    "max_gait_phase_spread": Option(
        0.15, "number", "Largest allowed circular distance (cycles) of a member's stride anchor from the circular mean.",
        minimum=0.0, maximum=0.5,
    ),
    "min_lr_amplitude_m": MIN_LR_AMPLITUDE,
    "travel_policy": Option(
        None, "string", "How members' travel is judged: \"uniform\" (equal speed and stride length), \"pinned\" "
        "(each member's measured speed against its [clips.*] speed_mps) or \"accepted\" (recorded only).",
        choices=TRAVEL_POLICIES,
    ),
    "max_speed_delta_mps": Option(
        0.1, "number", "uniform: allowed spread of member speeds (m/s); pinned: the tolerance of a pin without "
        "speed_tolerance_mps; without a policy: the spread above which a note lists the members' travel.",
        minimum=0.0,
    ),
    "max_stride_length_delta_m": Option(
        0.1, "number", "uniform: allowed spread of member stride lengths (m) (speed × duration ÷ strides); "
        "without a policy: the spread above which a note lists the members' travel.",
        minimum=0.0,
    ),
}
CONFIG = {}


def check(ctx):
    yield from phase_items(ctx)
    yield from travel_items(ctx)


def phase_items(ctx):
    """Findings, gaps and the record of the stride-phase rule (first part of the docstring)."""
    g = ctx.group
    name = ctx.group_name
    cap = float(g.max_gait_phase_spread)
    floor = float(g.min_lr_amplitude_m)
    yield from ambiguity_notes(ctx, "gait")
    measured = []  # (label, phase, amplitude)
    strides = []  # (label, cycles)
    multi = []  # (label, summary) of measured members with more than one pair of legs
    for m in ctx.members:  # each member once (lint.members.resolve_members)
        if not m.found:
            yield ctx.finding(missing_message("gait", name, m), clip=m.label, measured="missing", expected="present")
            continue
        s = m.summary
        phase = finite(s.get("gait_phase"))
        amp = finite(s.get("lr_amplitude_m"))
        if amp is not None and amp > 0.0 and below(amp, floor):  # an exact-zero swing has no phase: an error
            yield ctx.gap(
                "measurement_unavailable",
                f"left/right gait amplitude {amp:.6f} m is below the {floor:.6f} m evidence floor; "
                "the member is excluded from the spread as noise",
                scope="phase_measurement",
                subjects=[m.label],
            )
            continue
        if phase is None or amp is None:
            yield ctx.finding(
                f"gait group '{name}' member '{m.label}': gait phase cannot be measured ({phase_reason(s)}) "
                "— the group's coherence is unverified",
                clip=m.label,
                measured="unmeasurable",
                expected="a measurable stride anchor",
            )
            continue
        measured.append((m.label, phase, amp))
        if len(s.get("pairs") or ()) > 1:
            multi.append((m.label, s))
        cycles = s.get("cycles")
        if isinstance(cycles, int) and not isinstance(cycles, bool):
            strides.append((m.label, cycles))
    yield from _mixed(
        ctx, strides, "cycles", "one stride count",
        f"gait group '{name}': members hold different numbers of strides {fmt_list(strides)} — "
        "played at the same normalised time their strides cannot line up",
    )
    if len(measured) < 2:
        yield ctx.gap(
            "insufficient_measurable_members",
            f"gait group '{name}' has {len(measured)} measurable stride anchor(s); at least two are required",
            scope="phase_coherence",
            subjects=[name],
        )
        return
    phases = [p for _, p, _ in measured]
    from animsmith.core.circular import circular_spread

    mean, spread, dists = circular_spread(phases)
    outliers = [label for (label, _, _), d in zip(measured, dists) if exceeds(d, cap)]
    record = {
        "check_id": ID,
        "anchors": {label: p for label, p, _ in measured},
        "amplitudes_m": {label: a for label, _, a in measured},
        "circular_mean": mean,
        "spread": spread,
        "cap": cap,
        "outliers": outliers,
    }
    pair_findings = list(_pair_findings(ctx, name, multi, cap, record))
    yield GroupRecord(ID, record)
    if exceeds(spread, cap):
        from animsmith.core.gait import wrapped_phase

        shown = digits_apart(spread, cap)
        yield ctx.finding(
            f"gait group '{name}': stride-anchor phases spread by {spread:.{shown}f} cycle (cap {cap:.{shown}f}) — "
            "directional blends between these clips will skate or pop. "
            # phases shown as they are meant: 0.996 rounds to the same phase as 0.00, not 1.00
            f"Measured: {fmt_list([(label, wrapped_phase(p, 2)) for label, p, _ in measured])}",
            measured=spread,
            expected=cap,
            members=[
                {
                    "member": label,
                    "gait_phase": p,
                    "lr_amplitude_m": a,
                    "distance_from_mean": d,
                    "outlier": label in outliers,
                }
                for (label, p, a), d in zip(measured, dists)
            ],
        )
    yield from pair_findings


def _mixed(ctx, rows, key, expected, message):
    """An error when the members' values (``rows`` = [(member, value)]) are not all one:
    ``members`` lists each member's ``key``."""
    if len({v for _, v in rows}) > 1:
        yield ctx.finding(message, measured="mixed", expected=expected, members=[{"member": label, key: v} for label, v in rows])


def _pair_findings(ctx, name, multi, cap, record):
    """Findings for the further pairs' spreads and mixed gait patterns of multi-pair
    members (module docstring); fills ``record["pairs"]`` and ``record["patterns"]``."""
    from animsmith.core.circular import circular_spread
    from animsmith.core.gait import wrapped_phase

    if not multi:
        return
    patterns = [(label, s.get("gait_pattern")) for label, s in multi if s.get("gait_pattern")]
    record["patterns"] = dict(patterns)
    yield from _mixed(
        ctx, patterns, "gait_pattern", "one gait pattern",
        f"gait group '{name}': members move in different gait patterns {fmt_list(patterns)} — "
        "blending them swaps which feet move together",
    )
    pair_ids = sorted({int(p["pair"]) for _, s in multi for p in s["pairs"] if int(p["pair"]) > 0})
    record["pairs"] = {}
    for pair in pair_ids:
        anchors = []
        for label, s in multi:
            row = next((p for p in s["pairs"] if int(p["pair"]) == pair), None)
            phase = finite(row.get("gait_phase")) if row else None
            if phase is not None:
                anchors.append((label, phase))
        if len(anchors) < 2:
            continue
        _, spread, dists = circular_spread([p for _, p in anchors])
        outliers = [label for (label, _), d in zip(anchors, dists) if exceeds(d, cap)]
        record["pairs"][str(pair)] = {"anchors": dict(anchors), "spread": spread, "outliers": outliers}
        if exceeds(spread, cap):
            shown = digits_apart(spread, cap)
            yield ctx.finding(
                f"gait group '{name}' pair {pair}: stride-anchor phases spread by {spread:.{shown}f} cycle "
                f"(cap {cap:.{shown}f}) — directional blends between these clips will skate or pop. "
                f"Measured: {fmt_list([(label, wrapped_phase(p, 2)) for label, p in anchors])}",
                measured=spread,
                expected=cap,
                members=[
                    {"member": label, "pair": pair, "gait_phase": p, "distance_from_mean": d, "outlier": label in outliers}
                    for (label, p), d in zip(anchors, dists)
                ],
            )


# --------------------------------------------------------------------------
# Travel policy (second part of the docstring)
# --------------------------------------------------------------------------

POLICY_HINT = (
    'declare travel_policy = "uniform" (hold them equal), "pinned" (each member against its '
    'speed_mps) or "accepted" (record the variation)'
)


def member_travels(ctx):
    """core.travel.MemberTravel of every found member, in declared order."""
    from animsmith.core.travel import member_travel

    out = []
    for m in ctx.members:
        if not m.found:
            continue
        s = m.summary
        out.append(
            member_travel(
                m.label,
                speed_mps=s.get("speed_mps"),
                heading_deg=s.get("heading_deg"),
                duration_s=s.get("duration_s"),
                cycles=s.get("cycles"),
                pin_mps=s.get("declared_speed_mps"),
                movement_owner_xz=s.get("declared_movement_owner_xz"),
                speed_unavailable=s.get("speed_mps_unavailable"),
            )
        )
    return out


def pin_key(ctx, label: str) -> str:
    """``[clips."run_left"]``: the table a member's pin goes in, its clip's name (a member given as
    ``packs/left.glb#run_left`` is pinned under ``[clips."run_left"]``); when another member's clip
    has that name too (Mixamo's ``mixamo.com`` in every file), the member as given, when it names
    its file (``[clips."left.glb"]``): that key pins this file's clips only."""
    import json

    from animsmith.config.values import names_a_file

    clip = next((m.clip_name for m in ctx.members if m.label == label and m.clip_name), label)
    shared = any(m.clip_name == clip and m.label != label for m in ctx.members)
    key = label if shared and names_a_file(label) else clip
    return f"[clips.{json.dumps(key, ensure_ascii=False)}]"


def travel_text(t) -> str:
    """``run_left 1.44 m/s, stride 1.44 m, heading 90°`` (``in place`` for a declared speed)."""
    speed = "-" if t.speed_mps is None else f"{t.speed_mps:.2f} m/s"
    stride = "-" if t.stride_length_m is None else f"{t.stride_length_m:.2f} m"
    if t.source == "declared":
        heading = "in place, declared speed"
    else:
        heading = "heading -" if t.heading_deg is None else f"heading {numtext.heading(t.heading_deg, 0)}°"
    return f"{t.label} {speed}, stride {stride}, {heading}"


def travel_items(ctx):
    """Findings, gaps and the ``travel`` record of the declared travel policy."""
    from animsmith.core.travel import comparable, pin_deviation_mps, spread

    g = ctx.group
    name = ctx.group_name
    policy = getattr(g, "travel_policy", None)
    speed_cap = float(getattr(g, "max_speed_delta_mps", 0.1))
    stride_cap = float(getattr(g, "max_stride_length_delta_m", 0.1))
    travels = member_travels(ctx)
    if not travels:
        return
    scope = "travel_policy"
    for t in travels:
        if t.source == "measured" and t.speed_mps is None and policy is not None:
            yield ctx.gap("measurement_unavailable", f"speed not measured: {t.reason}", scope=scope, subjects=[t.label])
        elif t.source == "in_place" and policy in ("uniform", "accepted"):
            yield ctx.gap("measurement_unavailable", "in-place; declare speed_mps to compare", scope=scope, subjects=[t.label])
    have = comparable(travels)
    speed_spread = spread([t.speed_mps for t in have])
    stride_spread = spread([t.stride_length_m for t in have])
    yield GroupRecord(
        ID,
        {
            "check_id": ID,
            "travel": {
                "policy": policy,
                "max_speed_delta_mps": speed_cap,
                "max_stride_length_delta_m": stride_cap,
                "speed_spread_mps": speed_spread,
                "stride_length_spread_m": stride_spread,
                "members": [travel_json(t) for t in travels],
            },
        },
    )
    listed = "; ".join(travel_text(t) for t in have)
    speed_over = speed_spread is not None and exceeds(speed_spread, speed_cap)
    stride_over = stride_spread is not None and exceeds(stride_spread, stride_cap)
    differs = speed_over or stride_over
    # measured/expected: the speed spread and its cap, or the stride-length pair when only it is over
    judged = (speed_spread, speed_cap) if speed_over or not stride_over else (stride_spread, stride_cap)
    spreads = (
        f"speed spread {fmt_or_dash(speed_spread, ' m/s')}, cap {speed_cap:.2f} m/s; "
        f"stride-length spread {fmt_or_dash(stride_spread, ' m')}, cap {stride_cap:.2f} m"
    )
    if policy is None:
        if differs:
            yield ctx.finding(
                f"gait group '{name}': members travel at different speeds or stride lengths ({spreads}) and no "
                f"travel_policy is declared — a controller driving one gait-wide speed makes some directions "
                f"slide. Members: {listed}. To decide, {POLICY_HINT}",
                severity="note",
                informational=True,
                measured=judged[0],
                expected=judged[1],
                members=[travel_json(t) for t in have],
            )
        return
    if policy == "uniform":
        if len(have) < 2:
            yield ctx.gap(
                "insufficient_measurable_members",
                f"gait group '{name}' has {len(have)} member(s) with a speed; travel_policy \"uniform\" compares at least two",
                scope=scope,
                subjects=[name],
            )
        elif differs:
            yield ctx.finding(
                f"gait group '{name}': travel_policy \"uniform\" but the members' travel differs ({spreads}) — "
                f"a controller driving one gait-wide speed makes some of them slide; re-time or re-author them. "
                f"{extremes_text(have)}. Members: {listed}",
                measured=judged[0],
                expected=judged[1],
                members=[travel_json(t) for t in have],
            )
    elif policy == "pinned":
        for t in travels:
            if t.pin_mps is None:
                yield ctx.finding(
                    f"gait group '{name}' member '{t.label}' declares no speed_mps: travel_policy \"pinned\" "
                    f"judges every member against its own [clips.*] speed_mps; add {pin_key(ctx, t.label)} speed_mps",
                    clip=t.label,
                    measured="unpinned",
                    expected="a speed_mps pin",
                )
                continue
            dev = pin_deviation_mps(t)
            if dev is None:
                continue
            m = next(x for x in ctx.members if x.label == t.label)
            tol = finite(m.summary.get("declared_speed_tolerance_mps"))
            tol = speed_cap if tol is None else tol
            if exceeds(dev, tol):
                yield ctx.finding(
                    f"gait group '{name}' member '{t.label}' travels {t.speed_mps:.2f} m/s, {dev:.2f} m/s off its "
                    f"speed_mps pin {t.pin_mps:.2f} (tolerance {tol:.2f} m/s) — a controller driving the pinned "
                    f"speed makes it slide. Measured: {travel_text(t)}",
                    clip=t.label,
                    measured=t.speed_mps,
                    expected=t.pin_mps,
                    members=[travel_json(t)],
                )


def extremes_text(have) -> str:
    """``Slowest fwd, back (1.20 m/s); fastest left, right (1.44 m/s)``: every member at each end."""
    lo = min(t.speed_mps for t in have)
    hi = max(t.speed_mps for t in have)
    tol = allowance(hi)  # float32 positions: equal speeds can differ in their last bits
    slow = ", ".join(t.label for t in have if t.speed_mps - lo <= tol)
    fast = ", ".join(t.label for t in have if hi - t.speed_mps <= tol)
    return f"Slowest {slow} ({lo:.2f} m/s); fastest {fast} ({hi:.2f} m/s)"


def fmt_or_dash(value, unit: str) -> str:
    return "-" if value is None else f"{value:.2f}{unit}"


def travel_json(t) -> dict:
    return {
        "member": t.label,
        "speed_mps": t.speed_mps,
        "stride_length_m": t.stride_length_m,
        "heading_deg": t.heading_deg,
        "source": t.source,
        "speed_pin_mps": t.pin_mps,
    }
