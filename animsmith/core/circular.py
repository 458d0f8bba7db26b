"""Circular statistics of gait phases, in cycles (one full turn = 1.0).

A stride anchor or a leg's phase is a point on a circle: 0.98 and 0.02 are
0.04 apart, not 0.96. Every check, metric, proof and report page that compares
phases uses these functions, so "how far apart" means one thing everywhere:

* :func:`circular_distance_cycles` ``(a, b) = min(d, 1 − d)`` with
  ``d = |a − b| mod 1``, in [0, 0.5];
* :func:`circular_mean_cycles` ``= atan2(Σ sin 2πp, Σ cos 2πp) / 2π mod 1``, or the
  centre of the shortest arc holding every phase when they have no mean direction;
* :func:`circular_spread` / :func:`circular_spread_cycles`: the largest distance of
  any phase from that mean.
"""

from __future__ import annotations

import math
from typing import List, Tuple

import numpy as np


#: a resultant length |Σ e^{2πip}| / n below this is no mean direction (evenly spread
#: phases): well above the ~1e-7 noise of measured anchors, so three anchors a third apart
#: as measured fall under it too. (Near it the mean-based spread is ill-conditioned: a
#: direction set by a small asymmetry can put the spread anywhere in [1/3, 1/2] for thirds.)
NO_MEAN_DIRECTION = 1e-5


def circular_mean_cycles(phases) -> float:
    """Circular mean of phases in cycles: atan2(Σ sin 2πp, Σ cos 2πp)/2π mod 1.

    Phases with no mean direction (resultant length / n below
    :data:`NO_MEAN_DIRECTION` = 1e-5: an antiphase pair, three phases a third apart),
    whose atan2 would be rounding noise, get the centre of the shortest arc that
    holds them all (opposite the middle of the largest gap between neighbours;
    the first such gap in sorted order on a tie), the centre that makes the
    spread smallest.
    """
    ph = np.asarray(list(phases), dtype=np.float64)
    p = ph * 2.0 * np.pi
    sin_sum, cos_sum = float(np.sum(np.sin(p))), float(np.sum(np.cos(p)))
    if ph.size and math.hypot(sin_sum, cos_sum) < NO_MEAN_DIRECTION * ph.size:
        m = _shortest_arc_centre(ph % 1.0)
    else:
        m = (math.atan2(sin_sum, cos_sum) / (2.0 * np.pi)) % 1.0
    return 0.0 if m >= 1.0 else m


def _shortest_arc_centre(ph: np.ndarray) -> float:
    """Centre (cycles) of the shortest arc holding every phase: the arc starts after the
    largest gap between circular neighbours and ends before it."""
    srt = np.sort(ph)
    gaps = np.diff(np.concatenate([srt, srt[:1] + 1.0]))
    k = int(np.argmax(gaps))
    start = srt[(k + 1) % srt.size]
    length = 1.0 - float(gaps[k])
    return float((start + length / 2.0) % 1.0)


def circular_spread(phases) -> Tuple[float, float, List[float]]:
    """(mean μ, spread, distance of each phase from μ), all in cycles.

    μ = :func:`circular_mean_cycles`; d_i = :func:`circular_distance_cycles` of each
    phase from μ; spread = max d_i (0 for no phases). The ``gait-group`` check reports
    all three: the spread against its cap and each member's distance to name outliers.
    """
    ph = list(phases)
    if not ph:
        return circular_mean_cycles(ph), 0.0, []
    mean = circular_mean_cycles(ph)
    dists = [circular_distance_cycles(x, mean) for x in ph]
    return mean, max(dists), dists


def circular_spread_cycles(phases) -> float:
    """Max circular distance (cycles, in [0, 0.5]) of any phase from the circular mean.

    μ = :func:`circular_mean_cycles`; d = circular distance of each phase from μ;
    spread = max d (:func:`circular_spread`). An exact antiphase pair [0.25, 0.75]
    gives 0.25, three phases a third apart 1/3 (no mean direction: the shortest-arc
    centre).
    """
    return circular_spread(phases)[1]


def circular_distance_cycles(a: float, b: float) -> float:
    """Shortest distance between two phases on the unit circle, in cycles ([0, 0.5])."""
    d = abs(float(a) - float(b)) % 1.0
    return min(d, 1.0 - d)
