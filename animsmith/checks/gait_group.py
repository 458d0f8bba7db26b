"""A declared blend ring whose members do not share one stride phase.

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
"""

from __future__ import annotations

from animsmith.checks._clip import digits_apart
from animsmith.checks._group import ambiguity_notes, below, exceeds, finite, fmt_list, missing_message, phase_reason
from animsmith.checks.context import GroupRecord

ID = "gait-group"
SEVERITY = "error"
SCOPE = "group"
GROUP_TABLE = "gait_groups"
NEEDS = (
    "config: [gait_groups.<name>] clips, max_gait_phase_spread, min_lr_amplitude_m",
    "roles: hips + left and right foot (or toe) in every member",
)
CONFIG = {}


def circular_spread(phases):
    """(mean μ in cycles, spread in cycles, distance of each phase from μ)."""
    from animsmith.core.gait import circular_distance_cycles, circular_mean_cycles

    mean = circular_mean_cycles(phases)
    dists = [circular_distance_cycles(p, mean) for p in phases]
    return mean, (max(dists) if dists else 0.0), dists


def check(ctx):
    g = ctx.group
    name = ctx.group_name
    cap = float(g.max_gait_phase_spread)
    floor = float(g.min_lr_amplitude_m)
    yield from ambiguity_notes(ctx, "gait")
    measured = []  # (label, phase, amplitude)
    strides = []  # (label, cycles)
    multi = []  # (label, summary) of measured members with more than one pair of legs
    for m in ctx.members:  # each member once (lint.resolve_members)
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
