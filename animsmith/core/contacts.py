"""Foot stance detection and foot slide: ONE measurement for lint and the simulator.

The lint ``foot-slide`` check and the simulator's ``sim validate`` both call
:func:`foot_slide`; the transform's foot-cycle retime and the simulator's
footstep events use :func:`contact_events`.

Definitions (F feet, N samples):

* **Stance**: foot ``f`` is in stance at sample ``i`` when
  ``height_m[i, f] - min_i(height_m[:, f]) <= contact_height_m`` (height is
  model-space Y, relative to that foot's own lowest point in the clip).
* **Slide step**: for a sample pair ``i -> i+1`` with the foot in stance at
  BOTH samples, ``step_m = |Δp − v·Δt|`` where ``Δp`` is the foot's position
  change, ``v`` the ground velocity a planted foot should have (0 for root
  motion / world space; the declared speed along travel for an in-place clip)
  and ``Δt = t[i+1] − t[i]``. Only X/Z are used when ``horizontal`` (default),
  else the 3-D vector. ``speed_mps = step_m / Δt``. Pairs not in stance, or
  with ``Δt <= 0``, are NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np


def stance_mask(height_m, contact_height_m: float) -> np.ndarray:
    """(N, F) bool: ``height − per-foot minimum over the clip <= contact_height_m``.

    Non-finite heights are never in stance. A 1-D input is treated as one foot
    and returns (N, 1).
    """
    h = np.asarray(height_m, dtype=np.float64)
    if h.ndim == 1:
        h = h[:, None]
    finite = np.isfinite(h)
    if h.shape[0] == 0:
        return np.zeros(h.shape, dtype=bool)
    ground = np.min(np.where(finite, h, np.inf), axis=0)
    with np.errstate(invalid="ignore"):
        return finite & ((h - ground[None, :]) <= float(contact_height_m))


@dataclass
class FootSlide:
    """Result of :func:`foot_slide`.

    Attributes:
        stance: (N, F) bool stance mask used.
        step_m: (N−1, F) slide distance per sample pair (NaN outside stance).
        speed_mps: (N−1, F) ``step_m / Δt`` (NaN outside stance).
        worst_step_m, worst_speed_mps: the largest slide speed over all feet and
            pairs and its step (None when no pair is in stance).
        worst_foot: foot index of the worst pair (None when none).
        worst_time_s: time of the LATER sample of the worst pair.
        times_s: (N,) the sample times.
    """

    stance: np.ndarray
    step_m: np.ndarray
    speed_mps: np.ndarray
    worst_step_m: Optional[float]
    worst_speed_mps: Optional[float]
    worst_foot: Optional[int]
    worst_time_s: Optional[float]
    times_s: np.ndarray

    def foot_worst(self, foot: int) -> Tuple[Optional[float], Optional[float], Optional[float]]:
        """(worst_speed_mps, worst_step_m, worst_time_s) of one foot; Nones when never in stance.

        The first pair wins ties (earliest time).
        """
        col = self.speed_mps[:, foot]
        if col.size == 0 or not np.any(np.isfinite(col)):
            return None, None, None
        i = int(np.nanargmax(col))
        return float(col[i]), float(self.step_m[i, foot]), float(self.times_s[i + 1])

    def stance_intervals(self, foot: int) -> List[Tuple[float, float]]:
        """[(plant_time_s, lift_time_s), ...] of one foot (see :func:`contact_events`)."""
        return contact_events(self.stance, self.times_s)[foot]


def _ground_velocity(ground_velocity_mps, n_pairs: int) -> np.ndarray:
    """(N−1, 3) per-pair ground velocity from None, (3,) or (N, 3)/(N−1, 3)."""
    if ground_velocity_mps is None:
        return np.zeros((n_pairs, 3))
    v = np.asarray(ground_velocity_mps, dtype=np.float64)
    if v.shape == (3,):
        return np.broadcast_to(v, (n_pairs, 3))
    if v.ndim == 2 and v.shape[1] == 3:
        if v.shape[0] == n_pairs + 1:
            # per-sample velocity: use the mean of the pair's endpoints
            return 0.5 * (v[:-1] + v[1:])
        if v.shape[0] == n_pairs:
            return v
    raise ValueError(f"ground_velocity_mps must have shape (3,), (N,3) or (N-1,3); got {v.shape}")


def foot_slide(
    positions_m,
    times_s,
    *,
    stance=None,
    contact_height_m: float = 0.03,
    ground_velocity_mps=None,
    horizontal: bool = True,
) -> FootSlide:
    """Slide of planted feet: ``step = |Δp − v·Δt|`` over pairs in stance at both ends.

    Args:
        positions_m: (N, F, 3) model-space (or world-space) foot positions.
        times_s: (N,) sample times.
        stance: optional (N, F) bool mask; default ``stance_mask(positions_m[..., 1],
            contact_height_m)``.
        ground_velocity_mps: velocity a planted foot should have, (3,) or
            (N, 3) (per sample; the pair uses the mean of its two ends) or
            (N−1, 3) (per pair). None = 0.
        horizontal: measure X/Z only (default) or the full 3-D vector.
    """
    p = np.asarray(positions_m, dtype=np.float64)
    if p.ndim == 2:
        p = p[:, None, :]
    if p.ndim != 3 or p.shape[2] != 3:
        raise ValueError(f"positions_m must have shape (N, F, 3); got {p.shape}")
    t = np.asarray(times_s, dtype=np.float64).reshape(-1)
    n, f = p.shape[0], p.shape[1]
    if t.shape[0] != n:
        raise ValueError(f"times_s has {t.shape[0]} samples, positions_m has {n}")
    st = stance_mask(p[..., 1], contact_height_m) if stance is None else np.asarray(stance, dtype=bool)
    if st.shape != (n, f):
        raise ValueError(f"stance must have shape {(n, f)}; got {st.shape}")
    pairs = max(n - 1, 0)
    dt = np.diff(t)  # (N-1,)
    v = _ground_velocity(ground_velocity_mps, pairs)
    delta = np.diff(p, axis=0) - v[:, None, :] * dt[:, None, None]  # (N-1, F, 3)
    if horizontal:
        delta = delta[..., [0, 2]]
    step = np.sqrt(np.sum(delta * delta, axis=-1))
    both = st[:-1] & st[1:] & (dt > 0)[:, None] & np.isfinite(step)
    step = np.where(both, step, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        speed = np.where(both, step / np.where(dt > 0, dt, 1.0)[:, None], np.nan)
    worst_step = worst_speed = worst_time = None
    worst_foot = None
    if speed.size and np.any(both):
        # first maximum in time order (row-major over pairs, then feet)
        flat = int(np.nanargmax(speed))
        i, j = divmod(flat, f)
        worst_speed = float(speed[i, j])
        worst_step = float(step[i, j])
        worst_foot = int(j)
        worst_time = float(t[i + 1])
    return FootSlide(
        stance=st,
        step_m=step,
        speed_mps=speed,
        worst_step_m=worst_step,
        worst_speed_mps=worst_speed,
        worst_foot=worst_foot,
        worst_time_s=worst_time,
        times_s=t,
    )


def contact_events(stance, times_s) -> Dict[int, List[Tuple[float, float]]]:
    """Plant/lift times per foot: {foot: [(plant_time_s, lift_time_s), ...]}.

    A stance interval is a maximal run of consecutive stance samples; plant =
    time of its first sample, lift = time of its last sample (a run that
    reaches the clip's end lifts at the last sample time). Intervals are in
    time order; a single-sample contact has plant == lift.
    """
    st = np.asarray(stance, dtype=bool)
    if st.ndim == 1:
        st = st[:, None]
    t = np.asarray(times_s, dtype=np.float64).reshape(-1)
    out: Dict[int, List[Tuple[float, float]]] = {}
    padded = np.zeros((st.shape[0] + 2, st.shape[1]), dtype=np.int8)
    padded[1:-1] = st
    edges = np.diff(padded, axis=0)  # +1 at run start (index i), -1 after run end
    for foot in range(st.shape[1]):
        starts = np.nonzero(edges[:, foot] == 1)[0]
        ends = np.nonzero(edges[:, foot] == -1)[0] - 1
        out[foot] = [(float(t[a]), float(t[b])) for a, b in zip(starts, ends)]
    return out
