"""The rotation of a proven clip: candidate shifts s, s−1, s+1 over the cycle, each
re-measured on the rolled grid and ranked by its loop seam, ties to the anchor nearest 0
(the package docstring states the rule)."""

from __future__ import annotations

from typing import Optional

import numpy as np

from animsmith.core.tolerance import round_half_away
from animsmith.transform.gait_anchor.proofs import stride_metrics

#: seam ranks within this of the best are ties (sampling noise of a seamless
#: loop), decided by the re-measured anchor nearest 0: s±1 wins on seam
#: grounds only when s ranks more than this above it.
SEAM_TIE_TOLERANCE = 0.05
#: a wrap step no larger than its neighbouring steps (ratio <= 1) is seamless:
#: all such candidates rank equal.
SEAMLESS_RATIO = 1.0
#: re-measured anchors this close (cycles) are a tie: float noise of an exact half-frame tie
ANCHOR_TIE_CYCLES = 1e-9


def key_order(count: int, shift: int, period: int) -> np.ndarray:
    """The source key of every output key: k -> (k mod P + s) mod P for k = 0..E−1.

    P = E: new[k] = old[(k + s) mod E] (an open loop). P = E − 1: the same over the
    first E − 1 keys, and the last key repeats the new first one (a duplicated
    endpoint stays duplicated).
    """
    k = np.arange(int(count))
    return (k % int(period) + int(shift)) % int(period)


def rolled_grid(grid, shift: int, period: Optional[int] = None):
    """The grid of the clip rotated left by ``shift`` keys over ``period`` (default E) (:func:`key_order`):
    model positions only (``PoseGrid.of_positions``), all the seam and stride measurements read."""
    from animsmith.model import PoseGrid

    frames = grid.model_position_m.shape[0]
    order = key_order(frames, shift, frames if period is None else period)
    return PoseGrid.of_positions(grid.times_s, grid.model_position_m[order], grid.duration_s)


def _seam_rank(seam: Optional[float]) -> float:
    """Seam rank of one candidate: max(ratio, 1); no ratio (every neighbouring
    foot step under the core's 2 cm floor, ``measure``'s "n/a") ranks 1 too.

    Ratio <= 1 means the wrap step is no larger than its neighbours (no pop);
    a ratio can be missing only when the feet barely move around the wrap,
    which is exactly where the stride anchor's trough puts it, so "missing"
    must not lose to a measurable but larger step.
    """
    return SEAMLESS_RATIO if seam is None else max(float(seam), SEAMLESS_RATIO)


def choose_shift(grid, roles, anchor_fraction: float, frames: int, period: Optional[int] = None):
    """(shift, frame_offset, GaitMetrics after, seam ratio or None) — see the module docstring.

    Candidates s, s−1, s+1 (s = round_half_away(anchor·P), P = ``period``, default
    E = ``frames``), each applied over the cycle (:func:`key_order`). The best seam rank
    r* wins; candidates within ``SEAM_TIE_TOLERANCE`` of r* are ties, and a
    tie goes to the candidate whose re-measured anchor (``gait_phase``) is
    nearest 0 on the unit circle, then to the earlier of s, s−1, s+1.
    """
    from animsmith.core.circular import circular_distance_cycles
    from animsmith.core.gait import loop_seam_ratio

    period = frames if period is None else int(period)
    base = round_half_away(anchor_fraction * period)
    measured = []
    for order, offset in enumerate((0, -1, 1)):
        shift = (base + offset) % period
        rolled = rolled_grid(grid, shift, period)
        gm = stride_metrics(rolled, roles)
        if gm.gait_phase is None:
            continue
        seam, _ = loop_seam_ratio(rolled, roles)
        anchor_err = circular_distance_cycles(float(gm.gait_phase), 0.0)
        measured.append((_seam_rank(seam), anchor_err, order, shift, offset, gm, seam))
    if not measured:
        return None
    best_rank = min(m[0] for m in measured)
    tied = [m for m in measured if m[0] <= best_rank + SEAM_TIE_TOLERANCE]
    nearest = min(m[1] for m in tied)
    # anchors within ANCHOR_TIE_CYCLES of the nearest are one tie (an exact half-frame tie
    # differs only by float noise): the earliest of s, s−1, s+1 among them wins
    best = min((m for m in tied if m[1] <= nearest + ANCHOR_TIE_CYCLES), key=lambda m: m[2])
    return best[3], best[4], best[5], best[6]
