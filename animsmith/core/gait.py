"""Gait metrics on a pose grid: stride anchor, L−R amplitude, cycles, seam ratio.

Notation: the grid has N samples; the last sample of a judged grid is the wrap
duplicate of sample 0, so one cycle is C = N − 1 samples (i = 0..N−2). With
exactly N == 3 samples all three are used (C = 3): dropping one would leave a
two-sample "cycle" whose first harmonic has no sine part. N < 3 -> no gait.

* **L−R signal** ``s(i)`` (metres) = mean over resolved left foot/toe bones of
  (bone model Y − hips model Y) minus the same mean over the right side.
  Using the difference cancels common-mode pelvis bob.
* **Stride anchor** (``gait_phase``, cycles in [0, 1)): with
  ``re = Σ s(k)·cos(2πkh/C)``, ``im = Σ s(k)·sin(2πkh/C)`` (DFT bin h),
  ``phase = (atan2(im, re)/2π + 0.5) mod 1`` — the trough of the harmonic's
  best-fit sinusoid. ``s ∝ +sin`` gives 0.75; entering the gait a quarter
  cycle later gives 0.50.
* **Cycles**: the dominant harmonic k of s (largest |DFT bin k|², k =
  1..C//2). When k > 1 the clip holds k strides and ``gait_phase`` is the
  anchor of harmonic k, expressed as a fraction of ONE stride (the troughs
  fall at clip times t/T = (phase + m)/k, m = 0..k−1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from animsmith.core.circular import circular_distance_cycles
from animsmith.memo import memo

LEFT_ROLES = ("left_foot", "left_toe")
RIGHT_ROLES = ("right_foot", "right_toe")
FOOT_ROLES = LEFT_ROLES + RIGHT_ROLES

#: a signal whose peak-to-peak swing is below this fraction of the mean
#: hips-to-foot distance is float noise (no foot-height swing).
NOISE_AMPLITUDE_FRACTION = 1e-6
#: the dominant harmonic must hold at least this share of the signal's AC
#: power for the motion to count as periodic foot alternation.
MIN_DOMINANT_POWER_FRACTION = 0.3

MIN_STRIDE_STEP_M = 0.02
#: the loop seam's stride floor is a distance per step of this duration (one frame at 30 fps);
#: on a grid of another step it is scaled by the grid's step, so it stands for the same foot
#: speed at every frame rate
STRIDE_FLOOR_STEP_S = 1.0 / 30.0


def wrapped_phase(phase_cycles: float, digits: int) -> float:
    """A phase rounded to ``digits`` decimals, then wrapped into [0, 1): ``round(p mod 1) mod 1``,
    so 0.996 at 2 digits is 0.0 (the same phase), not 1.0. For display."""
    return round(float(phase_cycles) % 1.0, digits) % 1.0


def cycle_length(frame_count: int) -> int:
    """Samples in one cycle: N − 1 (last sample = wrap duplicate); N when N == 3; 0 when N < 3."""
    if frame_count < 3:
        return 0
    return 3 if frame_count == 3 else frame_count - 1


def _side_bones(roles, side_roles: Sequence[str]) -> List[int]:
    return [roles.get(r) for r in side_roles if roles.has(r)]


def _hips_reason(roles) -> Optional[str]:
    if not roles.has("hips"):
        why = roles.override_problems(["hips"]) if hasattr(roles, "override_problems") else ""
        return "hips role not resolved" + (f" ({why})" if why else "")
    return None


def _signal_bones(grid, roles) -> Tuple[Optional[List[int]], int, Optional[str]]:
    """([hips, left..., right...], number of left bones, None) or (None, 0, reason)."""
    n = grid.frame_count
    if n < 3:
        return None, 0, f"clip has {n} grid sample(s); gait metrics need at least 3"
    reason = _hips_reason(roles)
    if reason:
        return None, 0, reason
    left = _side_bones(roles, LEFT_ROLES)
    right = _side_bones(roles, RIGHT_ROLES)
    if not left and not right:
        return None, 0, "no foot or toe role resolved"
    if not left or not right:
        missing = "left" if not left else "right"
        return None, 0, f"one-sided foot roles: no {missing} foot/toe role resolved (needs both sides)"
    return [roles.get("hips")] + left + right, len(left), None


def _signal_from_positions(pos: np.ndarray, nl: int, c: int) -> Tuple[Optional[np.ndarray], Optional[str]]:
    """s(i), i < c, from model positions (N, 1 + nl + nr, 3) of [hips, left..., right...]."""
    y = pos[:c, :, 1]
    hips_y = y[:, 0]
    # mean over a side = Σ / count (what ndarray.mean computes)
    hl = np.add.reduce(y[:, 1 : 1 + nl], axis=1) / nl - hips_y
    hr = np.add.reduce(y[:, 1 + nl :], axis=1) / (y.shape[1] - 1 - nl) - hips_y
    s = hl - hr
    if not np.isfinite(s).all():
        return None, "non-finite foot or hips positions"
    return s, None


def lr_signal_m(grid, roles) -> Tuple[Optional[np.ndarray], Optional[str]]:
    """(s (C,), None) or (None, reason). See the module docstring for s(i)."""
    bones, nl, reason = _signal_bones(grid, roles)
    if bones is None:
        return None, reason
    return _signal_from_positions(grid.model_positions_m(bones), nl, cycle_length(grid.frame_count))


# (C, harmonic) -> (cos, sin) of the DFT angles 2πkh/C, k < C (read-only): clips of one
# length share them; only cycles up to _DFT_TABLE_MAX_C samples are kept
_DFT_TABLES: Dict[Tuple[int, int], Tuple[np.ndarray, np.ndarray]] = {}
_DFT_TABLES_MAX = 128
_DFT_TABLE_MAX_C = 4096


def _dft_angles(c: int, harmonic: int) -> Tuple[np.ndarray, np.ndarray]:
    """(cos, sin) of ``2π·k·harmonic/c`` for k = 0..c−1."""

    def build() -> Tuple[np.ndarray, np.ndarray]:
        ang = 2.0 * np.pi * np.arange(c) * harmonic / c
        tables = (np.cos(ang), np.sin(ang))
        for t in tables:
            t.setflags(write=False)
        return tables

    key = (c, harmonic) if type(harmonic) is int and c <= _DFT_TABLE_MAX_C else None
    return memo(_DFT_TABLES, _DFT_TABLES_MAX, key, build)


def _dft_bin(signal: np.ndarray, harmonic: int):
    """(re, im) of DFT bin ``harmonic`` of a signal (C,), or of each row of (L, C) signals."""
    s = np.asarray(signal, dtype=np.float64)
    cos, sin = _dft_angles(s.shape[-1], harmonic)
    re, im = np.add.reduce(s * cos, axis=-1), np.add.reduce(s * sin, axis=-1)
    return (float(re), float(im)) if s.ndim == 1 else (re, im)


def _anchor_of_bin(re: float, im: float) -> float:
    """``(atan2(im, re)/2π + 0.5) mod 1``, in [0, 1)."""
    phase = (math.atan2(im, re) / (2.0 * math.pi) + 0.5) % 1.0
    return 0.0 if phase >= 1.0 else phase


def stride_anchor_cycles(signal, harmonic: int = 1) -> float:
    """``(atan2(im, re)/2π + 0.5) mod 1`` of DFT bin ``harmonic`` of ``signal``.

    For ``harmonic`` h > 1 the value is the trough of harmonic h as a fraction
    of ONE stride (a stride being C/h samples): troughs occur at clip
    fractions (phase + m)/h.
    """
    return _anchor_of_bin(*_dft_bin(signal, harmonic))


def harmonic_power(signal) -> np.ndarray:
    """Power of harmonic k = 0..C//2 (index = harmonic): |X_k|² + |X_{C−k}|² = 2|X_k|² of the
    full DFT, counted once at k = 0 and at the Nyquist bin k = C/2 (C even), so the AC
    entries sum to the signal's varying power (Parseval) and compare fairly. A (L, C)
    array gives each row's powers, (L, C//2 + 1)."""
    s = np.asarray(signal, dtype=np.float64)
    power = np.abs(np.fft.rfft(s)) ** 2
    m = power.shape[-1]
    if m > 1:
        nyquist = s.shape[-1] % 2 == 0
        power[..., 1 : m - 1 if nyquist else m] *= 2.0
    return power


@dataclass
class GaitMetrics:
    """Gait measurements of one clip (a None value has a ``*_unavailable`` reason)."""

    gait_phase: Optional[float] = None
    gait_phase_unavailable: Optional[str] = None
    lr_amplitude_m: Optional[float] = None
    lr_amplitude_m_unavailable: Optional[str] = None
    cycles: Optional[int] = None
    cycles_note: Optional[str] = None
    signal_m: Optional[np.ndarray] = None
    bilateral: bool = False
    cycles_unavailable: Optional[str] = None
    dominant_power_fraction: Optional[float] = None


def _leg_scale_from_positions(pos: np.ndarray) -> float:
    """Mean hips-to-foot distance (scale for the noise floor): the mean over frames and
    feet of |foot − hips| (finite values only), from positions (N, 1 + F, 3) of [hips, feet...]."""
    rel = pos[:, 1:, :] - pos[:, 0, None, :]
    d = np.sqrt(np.add.reduce(rel * rel, axis=-1))  # what np.linalg.norm(rel, axis=-1) computes
    d = d[np.isfinite(d)]
    return float(np.add.reduce(d, axis=None) / d.size) if d.size else 0.0


def _above_noise(amplitude: float, pos: np.ndarray) -> bool:
    """``amplitude`` > 0 and above ``NOISE_AMPLITUDE_FRACTION`` × the mean hips-to-foot distance
    of positions (N, 1 + F, 3) of [hips, feet...] (:func:`_leg_scale_from_positions`).

    Every hips-to-foot distance is at most 2√3 (< 4, rounding included) × the largest
    coordinate magnitude, so an amplitude above 4 × the fraction × that magnitude clears
    the floor without the distances being measured; only a smaller one measures them.
    """
    largest = max(float(pos.max()), -float(pos.min())) if pos.size else 0.0
    if amplitude > 4.0 * NOISE_AMPLITUDE_FRACTION * largest:  # False for a non-finite coordinate
        return True
    return not (amplitude == 0.0 or amplitude <= NOISE_AMPLITUDE_FRACTION * _leg_scale_from_positions(pos))


def gait_metrics(grid, roles) -> GaitMetrics:
    """Stride anchor, L−R amplitude and cycles of one clip (module docstring).

    No phase (with the reason) when: fewer than 3 samples, hips or a side
    missing, amplitude exactly 0 or below ``NOISE_AMPLITUDE_FRACTION`` × the
    mean hips-to-foot distance (float noise), or no periodic alternation (the
    dominant harmonic holds less than ``MIN_DOMINANT_POWER_FRACTION`` of the
    AC power of s).
    """
    bones, nl, reason = _signal_bones(grid, roles)
    pos = s = None
    if bones is not None:
        pos = grid.model_positions_m(bones)
        s, reason = _signal_from_positions(pos, nl, cycle_length(grid.frame_count))
    if s is None:
        # the signal's bones hold both sides; without them, say whether the roles do
        bilateral = bones is not None or (bool(_side_bones(roles, LEFT_ROLES)) and bool(_side_bones(roles, RIGHT_ROLES)))
        return GaitMetrics(
            gait_phase_unavailable=reason,
            lr_amplitude_m_unavailable=reason,
            cycles_unavailable=reason,
            bilateral=bilateral,
        )
    amplitude = float(np.maximum.reduce(s) - np.minimum.reduce(s))
    g = GaitMetrics(lr_amplitude_m=amplitude, signal_m=s, bilateral=True)
    # the signal's bones are [hips] + every resolved foot/toe role (FOOT_ROLES)
    if not _above_noise(amplitude, pos):
        why = (
            "no foot-height swing: left-right height difference is constant"
            if amplitude == 0.0
            else f"no foot-height swing: the left-right height difference varies by {amplitude:.3g} m, "
            "within float noise (1e-6 x the hips-to-foot distance)"
        )
        g.gait_phase_unavailable = why
        g.cycles_unavailable = why
        return g
    power = harmonic_power(s)
    ac = power[1:]
    total = float(ac.sum())
    if ac.size == 0 or total <= 0.0:
        why = "no periodic foot alternation: the signal has no varying harmonic"
        g.gait_phase_unavailable = g.cycles_unavailable = why
        return g
    k = int(ac.argmax()) + 1
    frac = float(ac[k - 1] / total)
    g.dominant_power_fraction = frac
    if frac < MIN_DOMINANT_POWER_FRACTION:
        why = (
            f"no periodic foot alternation: the strongest harmonic ({k}) holds only "
            f"{frac:.0%} of the left-right signal power (needs {MIN_DOMINANT_POWER_FRACTION:.0%})"
        )
        g.gait_phase_unavailable = g.cycles_unavailable = why
        return g
    g.cycles = k
    g.gait_phase = stride_anchor_cycles(s, harmonic=k)
    if k > 1:
        g.cycles_note = (
            f"clip holds {k} strides; gait_phase is the anchor of harmonic {k} "
            "as a fraction of one stride"
        )
    return g


# --------------------------------------------------------------------------
# Loop seam
# --------------------------------------------------------------------------


def _feet_rel_m(grid, roles) -> Tuple[Optional[np.ndarray], Optional[str]]:
    reason = _hips_reason(roles)
    if reason:
        return None, reason
    feet = _side_bones(roles, FOOT_ROLES)
    if not feet:
        return None, "no foot or toe role resolved"
    pos = grid.model_positions_m([roles.get("hips")] + list(feet))
    rel = pos[:, 1:, :] - pos[:, 0, None, :]
    if not np.all(np.isfinite(rel)):
        return None, "non-finite foot or hips positions"
    return rel, None


def stride_floor_m(grid, min_stride_step_m: float = MIN_STRIDE_STEP_M) -> float:
    """The loop seam's stride floor on ``grid``: ``min_stride_step_m`` per
    :data:`STRIDE_FLOOR_STEP_S` (1/30 s) scaled by the grid's mean step,
    ``min_stride_step_m · ((t[N−1] − t[0]) / (N − 1)) / (1/30 s)``.

    The seam ratio does not depend on the frame rate but a neighbouring step's
    length does: a walk's feet move half as far per step at 60 fps as at 30 fps.
    A floor fixed per step would call a 60 fps walk an idle; per 1/30 s it stands
    for the same foot speed (0.6 m/s relative to the hips by default) at every
    rate. On a 30 fps grid (and a grid with no usable span) it is the configured value.
    """
    floor = float(min_stride_step_m)
    t = np.asarray(grid.times_s, dtype=np.float64)
    if t.shape[0] < 2:
        return floor
    step = (float(t[-1]) - float(t[0])) / (t.shape[0] - 1)
    if not (math.isfinite(step) and step > 0.0):
        return floor
    scale = step / STRIDE_FLOOR_STEP_S
    # a 30 fps grid's step is 1/30 s up to float rounding: keep its floor exactly as configured
    return floor if abs(scale - 1.0) <= 1e-6 else floor * scale


def loop_seam_ratio(
    grid, roles, min_stride_step_m: float = MIN_STRIDE_STEP_M, yaw_deg: float = 0.0
) -> Tuple[Optional[float], Optional[str]]:
    """Wrap step over the larger neighbouring step of feet relative to hips.

    D(i, j) = max over resolved feet/toes of |rel_i − rel_j| (rel = bone −
    hips, model space); ratio = D(N−1, 0) / max(D(1, 0), D(N−1, N−2)).
    ≈ 0 for an inclusive cycle (last = first), ≈ 1 for an open cycle, ≫ 1 for
    a popped seam. None with a reason when the neighbour step < the floor
    (:func:`stride_floor_m`: ``min_stride_step_m`` per 1/30 s, scaled by the grid's step).
    Relative to the hips, a clip's travel drops out; ``yaw_deg`` (a turning
    clip's yaw from one cycle to the next, core.trajectory.cycle_transform)
    turns the first sample's offsets about the vertical before the wrap step
    D(N−1, 0) is taken, so a turn is not a seam either.
    """
    n = grid.frame_count
    if n < 3:
        return None, f"clip has {n} grid sample(s); the loop seam needs at least 3"
    rel, reason = _feet_rel_m(grid, roles)
    if rel is None:
        return None, reason

    # D(N−1, 0), D(1, 0), D(N−1, N−2) in one pass: the largest foot distance of each pair of samples
    ends = rel[[n - 1, 1, n - 1]] - rel[[0, 0, n - 2]]
    if yaw_deg:
        a = math.radians(float(yaw_deg))
        c, s_ = math.cos(a), math.sin(a)
        first = np.asarray(rel[0], dtype=np.float64) @ np.array([[c, 0.0, s_], [0.0, 1.0, 0.0], [-s_, 0.0, c]]).T
        ends[0] = rel[n - 1] - first
    seam, first_step, last_step = np.max(np.linalg.norm(ends, axis=-1), axis=-1).tolist()
    neighbour = max(first_step, last_step)
    floor = stride_floor_m(grid, min_stride_step_m)
    if not (neighbour > 0.0) or neighbour < floor:
        per = "" if f"{floor:g}" == f"{min_stride_step_m:g}" else f" of this grid's step ({min_stride_step_m:g} m per 1/30 s)"
        return None, (
            f"no usable stride step: largest neighbouring foot step {neighbour:.4g} m "
            f"is below the {floor:.4g} m floor{per}"
        )
    ratio = seam / neighbour
    if not math.isfinite(ratio):
        return None, "non-finite seam ratio"
    return ratio, None


# --------------------------------------------------------------------------
# Gait per pair and per leg (rigs with legs: core.legs)
# --------------------------------------------------------------------------

#: gait patterns (the simulator's catalog names them in its ``gait`` key)
GAIT_PATTERNS = ("biped", "walk", "trot", "pace", "bound", "tripod", "wave", "irregular")
#: a leg's offset matches a pattern's when within this many cycles of it
PATTERN_TOLERANCE_CYCLES = 0.1

#: offsets from leg 0 (legs ordered by pair from the rear, left before right), per pair count
_PATTERNS = {
    1: (("biped", (0.0, 0.5)),),
    2: (
        ("walk", (0.0, 0.5, 0.75, 0.25)),
        ("trot", (0.0, 0.5, 0.5, 0.0)),
        ("pace", (0.0, 0.5, 0.0, 0.5)),
        ("bound", (0.0, 0.0, 0.5, 0.5)),
    ),
    3: (("tripod", (0.0, 0.5, 0.5, 0.0, 0.0, 0.5)),),
}


class _PairRoles:
    """The roles :func:`gait_metrics` reads, for one pair of legs (body = hips)."""

    def __init__(self, body, left, right):
        self.bones = {"hips": body, "left_foot": left.foot, "right_foot": right.foot}
        if left.toe is not None:
            self.bones["left_toe"] = left.toe
        if right.toe is not None:
            self.bones["right_toe"] = right.toe

    def get(self, role):
        return self.bones.get(role)

    def has(self, role):
        return self.bones.get(role) is not None

    def override_problems(self, roles):
        return ""


def pair_gait(grid, legs, pair: int) -> GaitMetrics:
    """Stride anchor, L−R amplitude and cycles of one pair: :func:`gait_metrics` on the pair's
    left and right feet (and toes) relative to the body."""
    left, right = legs.pair_feet(pair)
    if legs.body is None:
        why = "the legs have no body (hips) bone"
        return GaitMetrics(gait_phase_unavailable=why, lr_amplitude_m_unavailable=why, cycles_unavailable=why)
    if len(left) != 1 or len(right) != 1:
        why = f"pair {pair} needs one left and one right leg"
        return GaitMetrics(gait_phase_unavailable=why, lr_amplitude_m_unavailable=why, cycles_unavailable=why)
    return gait_metrics(grid, _PairRoles(legs.body, left[0], right[0]))


def leg_phases(grid, legs, harmonic: int = 1, periodic: bool = False, positions_m=None) -> List[Tuple[Optional[float], Optional[str]]]:
    """Per leg: (phase, None) or (None, reason). The phase is the trough of harmonic
    ``harmonic`` of the foot's height relative to the body, h(i) = foot Y − body Y over
    one cycle (i < C), as a fraction of one stride (:func:`stride_anchor_cycles`): when the
    foot is lowest, mid-stance. No phase when h does not vary beyond float noise, or,
    unless pair 0's feet already alternate periodically (``periodic``: its stride anchor
    was measured), when that harmonic holds less than ``MIN_DOMINANT_POWER_FRACTION`` of
    h's varying power (no periodic foot-height cycle)."""
    n = grid.frame_count
    if n < 3:
        return [(None, f"clip has {n} grid sample(s); gait metrics need at least 3")] * len(legs.legs)
    if legs.body is None:
        return [(None, "the legs have no body (hips) bone")] * len(legs.legs)
    c = cycle_length(n)
    # positions_m: (N, 1 + L, 3) of [body, feet...] when the caller has them already
    pos = grid.model_positions_m([legs.body] + [leg.foot for leg in legs.legs]) if positions_m is None else positions_m
    # every leg at once: one row per leg (h[i, f] = foot f's height over the body at sample i)
    rows = np.ascontiguousarray((pos[:c, 1:, 1] - pos[:c, :1, 1]).T)
    # heights finite and far from overflowing a swing, a sum or a power
    usual = (float(np.abs(rows).max()) if rows.size else 0.0) < 1e100
    finite = [True] * rows.shape[0] if usual else np.isfinite(rows).all(axis=1).tolist()

    def measured():
        swings = (np.maximum.reduce(rows, axis=1) - np.minimum.reduce(rows, axis=1)).tolist()
        power = totals = None  # the harmonic's share of the power is only read when pair 0 does not alternate
        if not periodic:
            power = harmonic_power(rows)[:, 1:]
            totals = np.add.reduce(power, axis=1).tolist()
        return swings, power, totals, _dft_bin(rows, harmonic)

    if usual:
        swings, power, totals, (res, ims) = measured()
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            swings, power, totals, (res, ims) = measured()
    # the noise floor (:func:`_above_noise`): every leg clears it when the smallest swing does
    kept = [swing for swing, ok in zip(swings, finite) if ok]
    all_above = bool(kept) and _above_noise(min(kept), pos)
    out: List[Tuple[Optional[float], Optional[str]]] = []
    for f in range(len(legs.legs)):
        if not finite[f]:
            out.append((None, "non-finite foot or body positions"))
            continue
        if not all_above:
            with np.errstate(over="ignore", invalid="ignore"):  # the smallest swing's test said any overflow
                above = _above_noise(swings[f], pos)
            if not above:
                out.append((None, "no foot-height swing: the foot keeps its height relative to the body"))
                continue
        if not periodic:
            total = totals[f]
            frac = float(power[f, harmonic - 1] / total) if 0 < harmonic <= power.shape[1] and total > 0.0 else 0.0
            if frac < MIN_DOMINANT_POWER_FRACTION:
                out.append((None, (
                    f"no periodic foot-height cycle: harmonic {harmonic} holds {frac:.0%} of the foot height's "
                    f"power (needs {MIN_DOMINANT_POWER_FRACTION:.0%})"
                )))
                continue
        out.append((_anchor_of_bin(float(res[f]), float(ims[f])), None))
    return out


def duty_factors(stance, frame_count: int) -> List[float]:
    """Per foot: the share of one cycle's samples (i < C) in stance ((N, F) mask)."""
    st = np.asarray(stance, dtype=bool)
    c = cycle_length(frame_count)
    return [float(k / c) for k in np.add.reduce(st[:c], axis=0, dtype=np.intp).tolist()]


def authored_duty_factors(clip, skeleton, feet, start_s: float, end_s: float) -> List[Optional[float]]:
    """Per foot bone: the share of ``[start_s, end_s]`` (the grid's span: one cycle, its last
    sample the wrap) inside the foot's [plant, lift] intervals by the clip's authored contact
    markers (a toe takes its nearest named ancestor's; ``AuthoredContacts.stance_share``):
    exact, where :func:`duty_factors` counts whole samples and is up to one sample off per
    contact. None for a foot the markers do not name, an empty span, or a clip without
    usable markers."""
    from animsmith.core.contacts import parse_contact_markers

    contacts, _ = parse_contact_markers(clip)
    length = float(end_s) - float(start_s)
    if contacts is None or not length > 0.0:
        return [None] * len(feet)
    return [None if name is None else contacts.stance_share(name, start_s, end_s)
            for name in contacts.marker_names(skeleton, feet)]


def leg_offsets(phases: Sequence[Optional[float]]) -> List[Optional[float]]:
    """Offset of each leg from leg 0, in cycles [0, 1): ``(phase_0 − phase_i) mod 1`` — how far
    ahead of leg 0 in its cycle leg i is (the simulator's ``phase`` convention: a leg at
    offset 0.25 reaches mid-stance a quarter cycle earlier). None when a phase is None."""
    if not phases or phases[0] is None:
        return [None] * len(phases)
    p0 = float(phases[0])
    out: List[Optional[float]] = []
    for p in phases:
        if p is None:
            out.append(None)
            continue
        d = (p0 - float(p)) % 1.0
        out.append(0.0 if d >= 1.0 or circular_distance_cycles(d, 0.0) < 1e-12 else d)
    return out


def gait_pattern(offsets: Sequence[Optional[float]], pair_count: int) -> Tuple[Optional[str], Optional[str]]:
    """(pattern, None) or (None, reason) from the legs' offsets (legs ordered by pair from the
    rear, left first; :func:`leg_offsets`).

    Within :data:`PATTERN_TOLERANCE_CYCLES` of every offset: one pair ``biped`` (0, ½);
    two pairs (hind L, hind R, fore L, fore R) ``walk`` (0, ½, ¾, ¼: the lateral sequence,
    quarter-cycle steps), ``trot`` (diagonals together), ``pace`` (same side together),
    ``bound`` (pairs together); three pairs ``tripod`` (rear L, mid R, front L together,
    the others half a cycle later); three or more pairs ``wave`` (along each side every
    pair a constant step ahead of the one behind it, the step neither 0 nor ½; the right
    side half a cycle from the left). Anything else is ``irregular``.
    """
    if not offsets or any(o is None for o in offsets):
        return None, "a leg has no phase"
    if len(offsets) != 2 * pair_count:
        return None, "the legs do not form left/right pairs"
    tol = PATTERN_TOLERANCE_CYCLES
    for name, expected in _PATTERNS.get(pair_count, ()):
        if all(circular_distance_cycles(o, e) <= tol for o, e in zip(offsets, expected)):
            return name, None
    if pair_count >= 3:
        left = [float(o) for o in offsets[0::2]]
        right = [float(o) for o in offsets[1::2]]
        step = (left[1] - left[0]) % 1.0
        even = all(circular_distance_cycles(b - a, step) <= tol for a, b in zip(left, left[1:]))
        mirrored = all(circular_distance_cycles(r - l, 0.5) <= tol for l, r in zip(left, right))
        if even and mirrored and circular_distance_cycles(step, 0.0) > tol and circular_distance_cycles(step, 0.5) > tol:
            return "wave", None
    return "irregular", None
