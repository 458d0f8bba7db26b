"""Degenerate clip durations, empty clips, ragged channel ends, a duration pin that does not match.

Findings, in this order (per clip):

* coverage gap ``no_clips`` (scope ``file``) — the file has no animations, so
  no clip check could judge anything (a rig-only or mesh-only file, or an
  export that dropped its clips); the file is not silently "clean".
* **warning** ``clip has no keyed channels`` — the clip has no channel with a
  key. Nothing else is judged unless a ``duration_s`` is declared for it.
  A clip whose only channels are morph weights or animation pointers (counted,
  not read: their key times are unknown here) is a coverage gap
  ``no_skeletal_channels`` instead, and nothing else is judged.
* **error** ``degenerate clip duration`` — the duration (the largest finite
  key time of any channel) is zero or negative: nothing can play. ``expected``
  is the declared ``duration_s`` when there is one.
* **error** ``measured duration … disagrees with the declared …`` — the clip
  declares ``[clips.*] duration_s`` and ``|duration − duration_s| >
  duration_tolerance_s`` (the clip's ``duration_tolerance_s`` when the
  contract has one, else this check's key). A sliced clip or a dropped frame.
* **warning** ``channels end at different times`` — over channels with at
  least two keys and well-formed key times, ``max(end) − min(end) >
  max_end_spread_s``: the shorter channels are clamp-held for the rest of the
  clip. Single-key channels (static poses) never count.

Key times are float32, so both bounds are applied as float32 stores them: the
duration fails when ``f32(duration)`` lies outside ``[f32(duration_s − tol),
f32(duration_s + tol)]``, the ends when ``max(end) > f32(min(end) + cap)``. A last key authored exactly at a bound
(0.517 s for 0.5 ± 0.017, stored as 0.51700002) passes.

Always on; the duration pin is only judged when declared.
"""

from __future__ import annotations

import math

import numpy as np

from animsmith.checks import _clip
from animsmith.checks._clip import bone_name, clip_facts, expect_value, flat_channels
from animsmith.checks.base import Option
from animsmith.core.tolerance import f32_exceeds, f32_outside

ID = "duration-sanity"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("config (optional): [clips.*] duration_s",)
RUNS_WITHOUT_CLIPS = True
CONFIG = {
    "duration_tolerance_s": Option(
        0.017,
        "number",
        "A declared duration_s matches when the measured duration is within this many seconds.",
        minimum=0.0,
    ),
    "max_end_spread_s": Option(
        0.017,
        "number",
        "Warn when keyed channels end more than this many seconds apart.",
        minimum=0.0,
    ),
}


def channel_ends(ctx):
    """(end times (E,), channel indices (E,)) of channels with ≥ 2 keys, finite and strictly
    increasing key times (a malformed channel has no meaningful end: ``nan`` / ``time-monotonic``)."""
    flat = flat_channels(ctx)
    t = flat.times
    with np.errstate(invalid="ignore"):
        bad_row = ~np.isfinite(t)
        bad_row[1:] |= flat.pair_mask() & ~(t[1:] > t[:-1])
    multi = (flat.counts >= 2) & ~flat.segments_any(bad_row)
    ends = flat.times[(flat.starts + flat.counts - 1)[multi]]
    idx = flat.index[multi]
    finite = np.isfinite(ends)
    return ends[finite], idx[finite]


def _ends_apart_f32(latest: float, earliest: float, cap: float) -> bool:
    """``latest > f32(earliest + cap)`` (module docstring): the key times are float32, so
    an end authored exactly ``cap`` after another is not apart."""
    return f32_exceeds(latest, earliest + cap)


def check(ctx):
    clip = ctx.clip
    if clip is None:
        yield ctx.gap(
            "no_clips",
            "the file has no animations: no clip check could judge it",
            scope="file",
        )
        return
    name = clip.name
    pin = expect_value(ctx, "duration_s")
    tol = float(expect_value(ctx, "duration_tolerance_s", ctx.options["duration_tolerance_s"]))
    kt = clip_facts(ctx).key_times
    fast = _clip.FAST_PATHS
    duration = kt.duration_s if fast and kt.duration_s is not None else flat_channels(ctx).duration_s
    # (= clip.duration_s, vectorised; the key-time facts have it when every time is finite)

    if (kt.count if fast else flat_channels(ctx).size) == 0 and (clip.weight_channel_count or clip.pointer_channel_count):
        # it plays morph weights or animation pointers, which are counted, not read
        yield ctx.gap(
            "no_skeletal_channels",
            f"the clip animates no node transform ({clip.weight_channel_count} morph-weight and "
            f"{clip.pointer_channel_count} animation-pointer channel(s), which animsmith does not read)",
            subjects=[name],
        )
        return
    if (kt.count if fast else flat_channels(ctx).size) == 0:
        yield ctx.finding(
            f"clip has no keyed channels ({len(clip.channels)} channel(s), 0 keys) — it plays nothing",
            severity="warning",
            clip=name,
            measured=0,
            expected="at least one keyed channel",
        )
        if pin is None:
            return

    if not (math.isfinite(duration) and duration > 0.0):
        yield ctx.finding(
            f"degenerate clip duration ({duration + 0.0:g}s) — no key time of any channel is after 0",
            clip=name,
            measured=duration,
            expected=float(pin) if pin is not None else "> 0",
        )
        return

    if pin is not None and f32_outside(duration, float(pin), tol):
        yield ctx.finding(
            f"measured duration {duration:.4f}s disagrees with the declared {float(pin):.4f} ± {tol:.4f}s "
            "— the clip may have been sliced or exported with a dropped frame",
            clip=name,
            time_s=duration,
            measured=duration,
            expected=float(pin),
        )

    if fast and kt.increasing and kt.end_spread_s <= float(ctx.options["max_end_spread_s"]):
        return  # every channel well formed and the distinct key-time arrays end together
    ends, idx = channel_ends(ctx)
    if ends.size >= 2:
        spread = float(ends.max() - ends.min())
        cap = float(ctx.options["max_end_spread_s"])
        if _ends_apart_f32(float(ends.max()), float(ends.min()), cap):
            shortest = clip.channels[int(idx[int(np.argmin(ends))])]
            yield ctx.finding(
                f"channels end at different times ({ends.min():.3f}s..{ends.max():.3f}s; earliest: "
                f"{shortest.path} of '{bone_name(ctx, shortest.bone)}') — shorter channels will be clamp-held",
                severity="warning",
                clip=name,
                bone=bone_name(ctx, shortest.bone),
                time_s=float(ends.min()),
                measured=spread,
                expected=0.0,
            )
