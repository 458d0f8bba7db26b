"""Key times that go backwards, repeat, or start before zero.

glTF requires every sampler input to be strictly increasing and the clip
timeline starts at 0; engines either reject such a channel or play it with
a pop. Per channel, at most one finding for the first key time below
``-negative_tolerance_s`` (time and measured = that key time) and one for the
first pair with ``t[k] <= t[k-1]`` (time = ``t[k]``). Key times are float32, so
the bound is the tolerance as float32 stores it: a key written as exactly
``-negative_tolerance_s`` passes. Non-finite times are left to the ``nan``
check (pairs involving them are skipped).

Always on; needs nothing.
"""

from __future__ import annotations

import numpy as np

from animsmith.checks import _clip
from animsmith.checks._clip import bone_name, clip_facts, flat_channels
from animsmith.checks.base import Option
from animsmith.numtext import fixed

ID = "time-monotonic"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ()
CONFIG = {
    "negative_tolerance_s": Option(
        1e-4,
        "number",
        "Key times down to minus this many seconds count as 0 (export rounding), below it they are negative.",
        minimum=0.0,
    ),
}


def lowest_time_s(tolerance_s: float) -> float:
    """The lowest key time that passes: −tolerance_s as float32 stores it (float64 value)."""
    return -float(np.float32(tolerance_s))


def first_negative_key(times: np.ndarray, tolerance_s: float):
    """Index of the first finite key time below :func:`lowest_time_s`, or None."""
    t = np.asarray(times, dtype=np.float64)
    bad = np.flatnonzero(np.isfinite(t) & (t < lowest_time_s(tolerance_s)))
    return int(bad[0]) if bad.size else None


def first_non_increasing_key(times: np.ndarray):
    """Smallest k ≥ 1 with t[k] <= t[k−1] (both finite), or None."""
    t = np.asarray(times, dtype=np.float64)
    if t.shape[0] < 2:
        return None
    prev, cur = t[:-1], t[1:]
    bad = np.flatnonzero(np.isfinite(prev) & np.isfinite(cur) & (cur <= prev))
    return int(bad[0]) + 1 if bad.size else None


def suspicious_channels(ctx, tolerance_s: float) -> list:
    """Indices of channels with a negative or non-increasing key time (whole-clip reductions)."""
    flat = flat_channels(ctx)
    t = flat.times
    finite = np.isfinite(t)
    with np.errstate(invalid="ignore"):
        negative = finite & (t < lowest_time_s(tolerance_s))
        bad_pair = flat.pair_mask() & finite[1:] & finite[:-1] & (t[1:] <= t[:-1])
    rows = negative.copy()
    rows[1:] |= bad_pair
    return flat.channels_of_rows(rows).tolist()


def check(ctx):
    clip = ctx.clip.name
    tol = float(ctx.options["negative_tolerance_s"])
    if not ctx.clip.channels:
        return  # no key times (a clip of morph weights or pointers only: see duration-sanity)
    kt = clip_facts(ctx).key_times
    if _clip.FAST_PATHS and kt.increasing and (kt.count == 0 or kt.first_min_s >= lowest_time_s(tol)):
        return  # finite, strictly increasing, nothing below −tol
    for i in suspicious_channels(ctx, tol):
        ch = ctx.clip.channels[i]
        bone = bone_name(ctx, ch.bone)
        k = first_negative_key(ch.times, tol)
        if k is not None:
            t = float(ch.times[k])
            # below 0 by more than the tolerance, so never zero: enough digits to show the sign's reason
            shown = fixed(t, 4) if t <= -5e-5 else f"{t:.6g}"
            yield ctx.finding(
                f"negative key time in {ch.path} track (key {k} at {shown}s)",
                clip=clip,
                bone=bone,
                time_s=t,
                measured=t,
                expected=0.0,
            )
        k = first_non_increasing_key(ch.times)
        if k is not None:
            t0, t1 = float(ch.times[k - 1]), float(ch.times[k])
            yield ctx.finding(
                f"key times not strictly increasing in {ch.path} track "
                f"(keys {k - 1} and {k}: {fixed(t0, 4)}s then {fixed(t1, 4)}s)",
                clip=clip,
                bone=bone,
                time_s=t1,
                measured=t1,
                expected=f"> {t0:.6g}",
            )
