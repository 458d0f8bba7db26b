"""Sample times of a clip: its duration, the judged grid, and key snapping.

* Duration: the largest finite key time of any channel (0.0 when none).
* Judged grid: t_i = duration·i/(N−1), i = 0..N−1, N = max(2, largest key count),
  the last sample exactly the duration.
* Snapping: a grid time within a few float32 steps of a key is that key, so a
  frame is sampled at its key and not one rounding step before it (a STEP
  channel would otherwise hold the previous key).
"""

from __future__ import annotations

import math
from typing import List, Optional

import numpy as np

from animsmith.model import Clip


def max_finite_time_s(arrays: List[np.ndarray]) -> float:
    """max(0, largest finite value over ``arrays``); 0.0 when there is none."""
    best = -math.inf
    for t in arrays:
        t = np.asarray(t).reshape(-1)
        if t.shape[0] == 0:
            continue
        top = float(np.maximum.reduce(t))
        if not math.isfinite(top):  # NaN or +inf among the keys, or all -inf
            finite = t[np.isfinite(t)]
            if not finite.size:
                continue
            top = float(finite.max())
        best = max(best, top)
    return max(0.0, best) if best > -math.inf else 0.0


def clip_duration_s(clip: Clip) -> float:
    """``clip.duration_s``: the largest finite key time of any channel (0.0 when none).

    Same definition, computed once per distinct key-time array instead of
    once per channel.
    """
    return max_finite_time_s(clip.distinct_times())


def uniform_times_s(n: int, duration: float) -> np.ndarray:
    """t_i = duration·i/(n−1), i = 0..n−1, with t[n−1] = duration exactly."""
    t = duration * np.arange(n, dtype=np.float64) / (n - 1)
    t[-1] = duration
    return t


#: a grid time this many float32 steps or fewer from a key of the clip's longest key-time
#: array is that key (the float64 frame time i·D/(N−1) often lands one step below the
#: float32 key, and a STEP channel would then hold the previous key)
SNAP_F32_STEPS = 4


def snapped_to_keys(t: np.ndarray, times_arrays, *, increasing: bool = True) -> np.ndarray:
    """``t`` with each sample that is within :data:`SNAP_F32_STEPS` float32 steps of a key of
    any key-time array (finite, strictly increasing) set to the largest such key, so no
    channel sees the sample just before its key; with ``increasing`` (a grid), unchanged
    when that would not keep the grid strictly increasing (only millions of keys per second
    come that close). ``increasing=False``: ``t`` in any order (a retimed member's source
    times wrap around the cycle), every sample snapped on its own.

    All arrays' keys are merged once (O((K + N) log K) for K keys, N samples); the keys
    within a sample's window are at most a few float32 values (key times are float32, as
    loaded), looked at from the top. Keys and samples beyond float32's range never snap.
    """
    valid = []
    for keys in times_arrays:
        k = np.asarray(keys, dtype=np.float64)
        if k.shape[0] == 0:
            continue
        with np.errstate(invalid="ignore"):
            if np.isfinite(k).all() and (k[1:] > k[:-1]).all():
                valid.append(k)
    if not valid:
        return t
    k = np.unique(np.concatenate(valid)) if len(valid) > 1 else valid[0]
    with np.errstate(over="ignore", invalid="ignore"):
        tol = SNAP_F32_STEPS * np.spacing(np.abs(k).astype(np.float32)).astype(np.float64)
        window = 2.0 * SNAP_F32_STEPS * np.spacing(np.abs(t).astype(np.float32)).astype(np.float64)
    # beyond float32's range there is no float32 step: no snapping there
    tol[~np.isfinite(tol)] = 0.0
    window[~np.isfinite(window)] = 0.0
    if k.shape == t.shape and (np.abs(t - k) <= tol).all() and (k[1:] - k[:-1] > window[1:] + window[:-1]).all():
        # one key per frame, each near its frame and no window reaching a second key: the
        # grid is the keys (the usual baked clip)
        return k.copy()
    # the keys that can be near t_i are k[lo_i..hi_i] (a near key is within the window:
    # 4 steps of a key are at most 8 steps of t_i); look at them from the top, and only
    # at the samples still open (one or two rounds for any real grid)
    lo = np.searchsorted(k, t - window, side="left")
    hi = np.searchsorted(k, t + window, side="right") - 1
    best = np.full(t.shape, np.nan)
    rows = np.flatnonzero(hi >= lo)
    j = hi[rows]
    for _ in range(4 * SNAP_F32_STEPS + 2):  # float32 values in a window, from the top
        if not rows.shape[0]:
            break
        near = np.abs(t[rows] - k[j]) <= tol[j]
        best[rows[near]] = k[j[near]]
        keep = ~near & (j > lo[rows])
        rows, j = rows[keep], j[keep] - 1
    hit = ~np.isnan(best)
    if not hit.any():
        return t
    snapped = np.where(hit, best, t)
    return snapped if not increasing or (snapped[1:] > snapped[:-1]).all() else t


def grid_times_s(clip: Clip, duration_s: Optional[float] = None) -> np.ndarray:
    """Judged grid: t_i = duration·i/(N−1), i = 0..N−1, N = max(2, largest key count); a
    t_i within four float32 steps of keys is the largest such key (the frames are sampled
    at their keys, not one rounding step before them).

    The last sample is exactly the clip duration (``duration_s`` when given).
    """
    times = clip.distinct_times()
    return judged_times_s(times, max_finite_time_s(times) if duration_s is None else float(duration_s))


def judged_times_s(times, duration: float) -> np.ndarray:
    """:func:`grid_times_s` from the clip's distinct key-time arrays and its duration."""
    n = max(2, max((t.shape[0] for t in times), default=0))
    t = snapped_to_keys(uniform_times_s(n, duration), times)
    t[-1] = duration
    return t
