"""A declared same-time group whose members do not share one timeline.

Armed by ``[sync_groups.<name>]``: clips a runtime plays at the same
normalised time (a blend space, a layered set) must agree on duration, frame
grid and loop endpoint convention. Per present member:

* ``duration_s`` — the clip duration;
* ``frame_count`` — the largest authored key count of any channel;
* ``fps`` — the declared ``[clips.*] fps`` when it is a positive number, else
  the authored rate (frame_count − 1) / duration_s (a declared 0 is no frame
  rate: the ``fps`` check reports it);
* the loop endpoint convention — ``duplicated_endpoint`` (the last key
  repeats the first pose: ``measure``'s ``loop_endpoint_mode``; on a loop that
  travels, as ``loop-closure`` decides it, apart from the travel bone's own
  keys, which end where the next cycle starts, so a root-motion run whose last
  key closes its cycle shares the convention of an in-place one that does) or
  ``open`` (any other clip, ``unique_cycle`` or ``non_closing``: how far the
  last pose is from the first is the loop's quality, judged by ``loop-closure``
  and ``loop-seam``, not its convention).

Errors (spread = max − min over present members; a spread at the cap passes:
within 1e-6, or for durations and fps within four float32 steps of the
largest value, as key times are float32):
duration spread > ``max_duration_delta_s``; frame-count spread >
``max_frame_count_delta``; fps spread > ``max_fps_delta``; members whose loop
endpoint conventions differ. A missing member is an error finding naming it.
A member listed twice, or one clip named two ways, counts once. A bare clip name
held by several linted files is taken from the first (in argument order) and
gets a **note** naming the others. The members table's
``frame_count`` is the largest authored key count (not ``measure``'s grid
``frame_count``).

Coverage gaps: ``insufficient_measurable_members`` (scope
``sync_compatibility``) with fewer than two present members;
``measurement_unavailable`` (scope ``sync_member_measurement``) for a member
whose duration is not finite and positive, or whose endpoint mode cannot be
decided (that comparison is then skipped).
"""

from __future__ import annotations

from animsmith.checks._group import ambiguity_notes, missing_message
from animsmith.checks.base import Option
from animsmith.core.tolerance import exceeds
from animsmith.core.travel import finite
from animsmith.numtext import fixed

ID = "sync-group"
SEVERITY = "error"
SCOPE = "group"
GROUP_TABLE = "sync_groups"
NEEDS = ("config: [sync_groups.<name>] clips, max_duration_delta_s, max_frame_count_delta, max_fps_delta",)
#: ``[sync_groups.<name>]`` keys besides ``clips``
TABLE_KEYS = {
    "max_duration_delta_s": Option(0.001, "number", "Allowed duration spread (max − min), seconds.", minimum=0.0),
    "max_frame_count_delta": Option(0, "integer", "Allowed spread of authored key counts.", minimum=0),
    "max_fps_delta": Option(0.01, "number", "Allowed fps spread (declared fps, else authored (keys − 1)/duration).", minimum=0.0),
}
CONFIG = {}


def member_timing(summary):
    """(duration_s, frame_count, fps) of one member (fps declared, else authored)."""
    duration = finite(summary.get("duration_s"))
    frames = summary.get("key_count_max")
    frames = int(frames) if isinstance(frames, int) else None
    fps = finite(summary.get("declared_fps"))
    if fps is not None and fps <= 0:  # not a frame rate (the fps check reports invalid_declared_fps)
        fps = None
    if fps is None and duration is not None and duration > 0 and frames is not None and frames >= 2:
        fps = (frames - 1) / duration
    return duration, frames, fps


def endpoint_convention(summary) -> str:
    """``duplicated_endpoint`` (the last key repeats the first pose; on a travelling loop apart
    from the travel bone's own keys, the member summary's ``loop_keys_close``) or ``open`` (any
    other mode: ``unique_cycle`` or ``non_closing``, which differ in how far the last pose
    is from the first, a loop's quality, not its convention)."""
    closes = summary.get("loop_keys_close")
    if closes is None:
        closes = summary.get("loop_endpoint_mode") == "duplicated_endpoint"
    return "duplicated_endpoint" if closes else "open"


def _listing(rows, digits):
    return "[" + ", ".join(f"{k}={fixed(v, digits)}" if isinstance(v, float) else f"{k}={v}" for k, v in rows) + "]"


def check(ctx):
    g = ctx.group
    name = ctx.group_name
    yield from ambiguity_notes(ctx, "sync")
    present = []
    for m in ctx.members:  # each member once (lint.members.resolve_members)
        if not m.found:
            yield ctx.finding(missing_message("sync", name, m), clip=m.label, measured="missing", expected="present")
            continue
        present.append(m)
    if len(present) < 2:
        yield ctx.gap(
            "insufficient_measurable_members",
            f"sync group '{name}' has {len(present)} present member(s); at least two are required",
            scope="sync_compatibility",
            subjects=[name],
        )
        return
    rows = []
    for m in present:
        duration, frames, fps = member_timing(m.summary)
        if duration is None or duration <= 0:
            yield ctx.gap(
                "measurement_unavailable",
                "member duration is not finite and positive, so its timing cannot be compared",
                scope="sync_member_measurement",
                subjects=[m.label],
            )
            continue
        rows.append((m, duration, frames, fps))
    table = [
        {"member": m.label, "duration_s": d, "frame_count": f, "fps": r, "loop_endpoint_mode": m.summary.get("loop_endpoint_mode")}
        for m, d, f, r in rows
    ]
    comparisons = (
        ("duration", 1, "s", float(g.max_duration_delta_s), 6),
        ("frame count", 2, "frame(s)", float(g.max_frame_count_delta), 0),
        ("fps", 3, "fps", float(g.max_fps_delta), 4),
    )
    if len(rows) >= 2:
        for label, col, unit, cap, digits in comparisons:
            values = [(r[0].label, r[col]) for r in rows if r[col] is not None]
            if len(values) < 2:
                continue
            nums = [v for _, v in values]
            spread = float(max(nums) - min(nums))
            # durations are float32 key times, and fps divide by them: the allowance grows
            # with the values (core.tolerance.allowance); frame counts are exact
            if exceeds(spread, cap, max(nums) if col != 2 else 0.0):
                shown = [(k, float(v) if col != 2 else int(v)) for k, v in values]
                yield ctx.finding(
                    f"sync group '{name}': {label} spread {spread:.{digits}f} {unit} exceeds cap {cap:.{digits}f} {unit} "
                    f"— same-time playback drifts apart. Measured: {_listing(shown, digits)}",
                    measured=spread,
                    expected=cap,
                    members=table,
                )
    modes = [(m.label, m.summary.get("loop_endpoint_mode")) for m in present]
    unknown = [label for label, mode in modes if not mode]
    for label in unknown:
        m = next(x for x in present if x.label == label)
        yield ctx.gap(
            "measurement_unavailable",
            "loop endpoint mode could not be decided"
            + (f" ({m.summary.get('loop_endpoint_mode_unavailable')})" if m.summary.get("loop_endpoint_mode_unavailable") else ""),
            scope="sync_member_measurement",
            subjects=[label],
        )
    known = [(m.label, endpoint_convention(m.summary)) for m in present if m.summary.get("loop_endpoint_mode")]
    if len({conv for _, conv in known}) > 1:
        yield ctx.finding(
            f"sync group '{name}' mixes loop endpoint conventions {_listing(known, 0)} — "
            "a clip whose last key repeats its first pose wraps one frame later than an open one "
            "played at the same time",
            measured="mixed",
            expected="one shared endpoint convention",
            members=table,
        )
