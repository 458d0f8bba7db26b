"""A same-time pair whose gaits align better under reflected time (one may run backwards).

Armed by ``[sync_groups.<name>.time_complement]``. A runtime that samples
both clips at the same normalised time blends the same stride moments only
when their left/right gait signals line up at that time. For every unordered
pair (i < j, declared order, duplicates dropped) of measured members with
stride anchors p_i, p_j:

    similarity(a, b) = (1 + cos 2π(a − b)) / 2            ∈ [0, 1]
    S = similarity(p_i, p_j)        (same time)
    R = similarity(p_i, 1 − p_j)    (reflected time)

**Warning** when R − S > ``min_reflected_time_advantage`` (strict; an
advantage at the threshold, within 1e-6, does not warn): the pair
is time-complementary — e.g. one member is the other played backwards. This
is a diagnostic of the declared same-time contract, not of either clip.

Coverage gaps, never findings: a member whose gait phase cannot be measured,
or whose ``lr_amplitude_m`` is below the sub-table's ``min_lr_amplitude_m``
(an amplitude at the floor, within 1e-6 m, counts) → ``measurement_unavailable``
(scope ``phase_measurement``); a missing member →
``members_not_evaluated`` (sync-group reports it as an error when it runs
too); fewer than two
measured members → ``insufficient_measurable_members`` (scope
``phase_coherence``).
"""

from __future__ import annotations

import math

from animsmith.checks._group import MIN_LR_AMPLITUDE, phase_reason
from animsmith.checks.base import Option
from animsmith.core.tolerance import below, exceeds
from animsmith.core.travel import finite

ID = "time-complement"
SEVERITY = "warning"
SCOPE = "group"
GROUP_TABLE = "sync_groups"
ARMED_BY_KEY = "time_complement"
NEEDS = (
    "config: [sync_groups.<name>.time_complement] min_reflected_time_advantage, min_lr_amplitude_m",
    "roles: hips + left and right foot (or toe)",
)
#: ``[sync_groups.<name>.time_complement]`` keys (the sub-table that arms the check)
TABLE_KEYS = {
    "min_reflected_time_advantage": Option(
        0.25, "number", "Warn when reflected-time similarity beats same-time similarity by more than this.",
        minimum=0.0, maximum=1.0,
    ),
    "min_lr_amplitude_m": MIN_LR_AMPLITUDE,
}
CONFIG = {}


def similarity(a: float, b: float) -> float:
    """(1 + cos 2π(a − b)) / 2: 1 for equal phases, 0 for antiphase."""
    return (1.0 + math.cos(2.0 * math.pi * (a - b))) / 2.0


def pair_scores(p_i: float, p_j: float):
    """(S same-time, R reflected-time, R − S)."""
    s = similarity(p_i, p_j)
    r = similarity(p_i, 1.0 - p_j)
    return s, r, r - s


def check(ctx):
    tc = getattr(ctx.group, "time_complement", None)
    if tc is None:
        return
    name = ctx.group_name
    threshold = float(tc.min_reflected_time_advantage)
    floor = float(tc.min_lr_amplitude_m)
    measured = []
    missing = []
    for m in ctx.members:  # each member once (lint.members.resolve_members)
        if not m.found:
            missing.append(m.label)
            continue
        phase = finite(m.summary.get("gait_phase"))
        amp = finite(m.summary.get("lr_amplitude_m"))
        if phase is None:
            yield ctx.gap(
                "measurement_unavailable",
                f"gait phase cannot be measured for time-complement comparison ({phase_reason(m.summary)})",
                scope="phase_measurement",
                subjects=[m.label],
            )
            continue
        if amp is None or below(amp, floor):
            shown = "unknown" if amp is None else f"{amp:.6f} m"
            yield ctx.gap(
                "measurement_unavailable",
                f"left/right gait amplitude {shown} is below the {floor:.6f} m time-complement evidence floor",
                scope="phase_measurement",
                subjects=[m.label],
            )
            continue
        measured.append((m.label, phase, amp))
    for i in range(len(measured)):
        for j in range(i + 1, len(measured)):
            (a, pa, aa), (b, pb, ab) = measured[i], measured[j]
            s, r, adv = pair_scores(pa, pb)
            if exceeds(adv, threshold):
                shared = {"same_time_similarity": s, "reflected_time_similarity": r, "reflected_time_advantage": adv}
                yield ctx.finding(
                    f"sync group '{name}': '{a}' and '{b}' align better under reflected time (similarity {r:.3f}) "
                    f"than at the same time ({s:.3f}); advantage {adv:.3f} exceeds {threshold:.3f} — one may play "
                    "backwards relative to the other, so same-time blends mix different stride moments",
                    measured=adv,
                    expected=threshold,
                    members=[
                        dict(member=a, gait_phase=pa, lr_amplitude_m=aa, **shared),
                        dict(member=b, gait_phase=pb, lr_amplitude_m=ab, **shared),
                    ],
                )
    if missing:
        yield ctx.gap(
            "members_not_evaluated",
            f"sync group '{name}' has {len(missing)} member(s) missing, not compared for time complement",
            scope="phase_coherence",
            subjects=sorted(missing),
        )
    if len(measured) < 2:
        yield ctx.gap(
            "insufficient_measurable_members",
            f"sync group '{name}' has {len(measured)} measurable stride anchor(s) for time-complement comparison; "
            "at least two are required",
            scope="phase_coherence",
            subjects=[name],
        )
