"""Degenerate clip durations, empty clips, ragged channel ends, a duration pin that does not match.

Findings, in this order (per clip):

* **warning** ``clip has no keyed channels`` — the clip has no channel with a
  key. Nothing else is judged unless a ``duration_s`` is declared for it.
* **error** ``degenerate clip duration`` — the duration (largest finite last
  key time) is zero or negative: nothing can play. ``expected`` is the
  declared ``duration_s`` when there is one.
* **error** ``measured duration … disagrees with the declared …`` — the clip
  declares ``[clips.*] duration_s`` and ``|duration − duration_s| >
  duration_tolerance_s`` (the clip's ``duration_tolerance_s`` when the
  contract has one, else this check's key). A sliced clip or a dropped frame.
* **warning** ``channels end at different times`` — over channels with at
  least two keys and a finite last key time, ``max(end) − min(end) >
  max_end_spread_s``: the shorter channels are clamp-held for the rest of the
  clip. Single-key channels (static poses) never count.

Always on; the duration pin is only judged when declared.
"""

from __future__ import annotations

import math

import numpy as np

from animsmith.checks._clip import bone_name, expect_value
from animsmith.checks.base import Option

ID = "duration-sanity"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("config (optional): [clips.*] duration_s",)
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


def channel_end_times(clip):
    """[(end_s, channel)] for channels with ≥ 2 keys and a finite last key time."""
    out = []
    for ch in clip.channels:
        if ch.key_count >= 2:
            end = float(ch.times[-1])
            if math.isfinite(end):
                out.append((end, ch))
    return out


def check(ctx):
    clip = ctx.clip
    name = clip.name
    pin = expect_value(ctx, "duration_s")
    tol = float(expect_value(ctx, "duration_tolerance_s", ctx.options["duration_tolerance_s"]))
    duration = float(clip.duration_s)

    keyed = [ch for ch in clip.channels if ch.key_count > 0]
    if not keyed:
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
            f"degenerate clip duration ({duration:g}s) — the last key time of every channel is at or before 0",
            clip=name,
            measured=duration,
            expected=float(pin) if pin is not None else "> 0",
        )
        return

    if pin is not None and abs(duration - float(pin)) > tol:
        yield ctx.finding(
            f"measured duration {duration:.4f}s disagrees with the declared {float(pin):.4f} ± {tol:.4f}s "
            "— the clip may have been sliced or exported with a dropped frame",
            clip=name,
            time_s=duration,
            measured=duration,
            expected=float(pin),
        )

    ends = channel_end_times(clip)
    if len(ends) >= 2:
        times = np.array([e for e, _ in ends])
        spread = float(times.max() - times.min())
        if spread > float(ctx.options["max_end_spread_s"]):
            shortest = ends[int(np.argmin(times))][1]
            yield ctx.finding(
                f"channels end at different times ({times.min():.3f}s..{times.max():.3f}s; earliest: "
                f"{shortest.path} of '{bone_name(ctx, shortest.bone)}') — shorter channels will be clamp-held",
                severity="warning",
                clip=name,
                bone=bone_name(ctx, shortest.bone),
                time_s=float(times.min()),
                measured=spread,
                expected=0.0,
            )
