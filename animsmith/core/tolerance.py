"""Float32 tolerance rules shared by the checks and the transforms.

glTF stores key times and values as float32, so a value authored exactly at a limit
reads back a few units in the last place away from it once widened to float64. These
are the rules that keep such a value on the side it was authored on:

* the f32 cap rule (:func:`f32_exceeds`): a measurement fails only when
  float32(measured) > float32(cap);
* authored quantisation (:func:`f32_successor`): a proof cap allows exactly
  ``AUTHORED_F32_ULPS`` float32 successors of f32(cap), nothing else;
* frame grids (:func:`frame_times_f32`): frame k is at f32(k / fps), with k / fps
  computed in float64, as an exporter bakes it;
* :func:`round_half_away`: the nearest whole frame, halves away from zero;
* at the cap (:func:`exceeds`, :func:`below`): a spread or amplitude within
  ``CAP_EPSILON`` of its cap or floor (or four float32 steps at the values' own size)
  counts as at it and passes, in the group checks, the report and the gait-anchor proof.
"""

from __future__ import annotations

import math

import numpy as np

#: float32 machine epsilon (2^-23), widened to float64
F32_EPS = float(np.finfo(np.float32).eps)
#: float32 steps above a cap that authored quantisation may add
AUTHORED_F32_ULPS = 4


def f32_exceeds(measured: float, cap: float) -> bool:
    """The f32 cap rule: fail only when float32(measured) > float32(cap).

    A value authored exactly at the cap passes despite f32→f64 widening noise; a NaN
    never exceeds.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.float32(measured) > np.float32(cap))


def f32_outside(measured: float, pin: float, tol: float) -> bool:
    """The f32 cap rule on both sides of a pin: ``f32(measured)`` outside
    ``[f32(pin − tol), f32(pin + tol)]`` (:func:`f32_exceeds` each way), so a value
    authored exactly at either bound passes."""
    return f32_exceeds(measured, pin + tol) or f32_exceeds(pin - tol, measured)


def f32_exceeds_each(measured: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """:func:`f32_exceeds` element by element (bool array)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(measured).astype(np.float32) > np.asarray(cap).astype(np.float32)


def f32_successor(value: float, ulps: int = AUTHORED_F32_ULPS) -> float:
    """The float32 ``ulps`` steps above f32(value), widened to float64 (value > 0)."""
    bits = np.array([value], dtype=np.float32).view(np.uint32)[0]
    return float(np.array([bits + np.uint32(ulps)], dtype=np.uint32).view(np.float32)[0])


def round_half_away(x: float) -> int:
    """Nearest integer, halves away from zero (Rust ``f64::round``)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def frame_times_f32(frames: int, fps: float) -> np.ndarray:
    """(E,) float32 t_k = f32(k / fps), k / fps computed in float64."""
    return (np.arange(frames, dtype=np.float64) / float(fps)).astype(np.float32)


#: a spread within this of its cap (cycles, seconds, fps) counts as "at the cap" and passes:
#: float32 key data cannot place an anchor closer than ~1e-8 cycle to where it was authored
CAP_EPSILON = 1e-6


def exceeds(measured: float, cap: float, magnitude: float = 0.0) -> bool:
    """Strictly above the cap (a value at the cap passes: within ``CAP_EPSILON``, or within
    four float32 steps at ``magnitude`` when the measured values are that large, e.g. the
    durations whose spread is judged: float32 key times of a 40 s clip are 3.8e-6 apart)."""
    return measured > cap + allowance(magnitude)


def below(measured: float, floor: float) -> bool:
    """Strictly below the floor (a value at the floor, within ``CAP_EPSILON``, counts)."""
    return measured < floor - CAP_EPSILON


def allowance(magnitude: float = 0.0) -> float:
    """``CAP_EPSILON``, or four float32 steps at ``magnitude`` when that is larger."""
    m = abs(float(magnitude))
    if not math.isfinite(m) or m == 0.0:
        return CAP_EPSILON
    return max(CAP_EPSILON, 4.0 * float(np.spacing(np.float32(min(m, 3.0e38)))))
