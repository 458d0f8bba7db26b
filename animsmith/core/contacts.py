"""Foot stance detection and foot slide: ONE measurement for lint and the simulator.

The lint ``foot-slide`` check and the simulator's ``sim validate`` both call
:func:`foot_slide`; the transform's foot-cycle retime and the simulator's
footstep events use :func:`contact_events`.

Definitions (F feet, N samples):

* **Stance**: foot ``f`` is in stance at sample ``i`` when
  ``height_m[i, f] - min_i(height_m[:, f]) <= contact_height_m`` (height is
  model-space Y, relative to that foot's own lowest point in the clip) AND its
  vertical speed there is at most ``max_vertical_speed_mps`` (0.1 m/s): a low
  foot still descending into a landing or rising from a lift-off is swinging
  (:func:`stance_mask`).
* **Slide step**: for a sample pair ``i -> i+1`` with the foot in stance at
  BOTH samples, ``step_m = |Δp − v·Δt|`` where ``Δp`` is the foot's position
  change, ``v`` the ground velocity a planted foot should have (0 for root
  motion / world space; the declared speed along travel for an in-place clip)
  and ``Δt = t[i+1] − t[i]``. Only X/Z are used when ``horizontal`` (default),
  else the 3-D vector. ``speed_mps = step_m / Δt``. Pairs not in stance, or
  with ``Δt <= 0``, are NaN.

Authored contacts: a clip may carry footstep markers in its animation
``extras`` (``"animsmith_contacts"``, docs/sim.md; the simulator writes them).
:func:`parse_contact_markers` reads them robustly (anything malformed or
oversized is ignored with a one-line reason, never raised),
:func:`authored_contacts` returns the usable ones, and
:func:`authored_stance_mask` turns them into the (N, F) ``stance`` mask that
:func:`foot_slide` takes instead of the height rule.

Kept in one module: the stance decision, by height or by markers, is one rule
that foot-slide, the duty factors, the foot-cycle retime and ``sim validate``
read; split, its two halves would drift apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from animsmith.memo import memo


#: the vertical speed (m/s) above which a low foot is still swinging, not planted (see :func:`stance_mask`)
DEFAULT_CONTACT_VERTICAL_SPEED_MPS = 0.1


def stance_mask(
    height_m,
    contact_height_m: float,
    times_s=None,
    max_vertical_speed_mps: float = DEFAULT_CONTACT_VERTICAL_SPEED_MPS,
) -> np.ndarray:
    """(N, F) bool: the foot is low AND not moving vertically like a swinging foot.

    * **low**: ``height − per-foot minimum over the clip <= contact_height_m``;
    * **still vertically** (only when ``times_s`` is given): the foot's vertical
      speed at the sample, ``|dh/dt|`` by central difference over its two
      neighbours (one-sided at the clip's ends), is at most
      ``max_vertical_speed_mps``. A foot that is within a few centimetres of
      the ground on the last swing sample before landing (or the first after
      lift-off) is still descending or rising at about a metre per second
      while a planted foot's height does not change; the height rule alone
      would count that sample as stance and measure the swing's horizontal
      speed as slide. Gait analysis detects heel strike and toe off from the
      foot's vertical velocity for the same reason (O'Connor et al., "Automatic
      detection of gait events using kinematic data", Gait & Posture 2007), and
      footskate cleanup and foot-plant detection combine a height with a
      velocity threshold (Kovar et al., "Footskate cleanup for motion capture
      editing", SCA 2002; Ikemoto et al., "Knowing when to put your foot down",
      I3D 2006).

    Non-finite heights are never in stance; a sample with a non-finite
    neighbour is judged on its finite side. A 1-D input is treated as one foot
    and returns (N, 1).
    """
    h = np.asarray(height_m, dtype=np.float64)
    if h.ndim == 1:
        h = h[:, None]
    if h.shape[0] == 0:
        return np.zeros(h.shape, dtype=bool)
    largest = np.abs(h).max() if h.size else 0.0  # finite when every height is
    if math.isfinite(largest):  # every height counts: the same minimum and comparison, with nothing to mask
        low = (h - np.minimum.reduce(h, axis=0)) <= float(contact_height_m)
    else:
        finite = np.isfinite(h)
        ground = np.min(np.where(finite, h, np.inf), axis=0)
        with np.errstate(invalid="ignore"):
            low = finite & ((h - ground[None, :]) <= float(contact_height_m))
    if times_s is None or h.shape[0] < 2:
        return low
    t = np.asarray(times_s, dtype=np.float64).reshape(-1)
    if t.shape[0] != h.shape[0]:
        raise ValueError(f"times_s has {t.shape[0]} samples, height_m has {h.shape[0]}")
    return low & (_vertical_speed(h, t, largest) <= float(max_vertical_speed_mps))


def vertical_speed_mps(height_m, times_s) -> np.ndarray:
    """(N, F) ``|dh/dt|`` per sample: central difference over the two neighbours,
    one-sided at the ends or beside a non-finite neighbour or a non-increasing time
    step (inf when neither side is usable, so such a sample never counts as still)."""
    return _vertical_speed(np.asarray(height_m, dtype=np.float64), np.asarray(times_s, dtype=np.float64).reshape(-1))


def _vertical_speed(h: np.ndarray, t: np.ndarray, largest=None) -> np.ndarray:
    """:func:`vertical_speed_mps` of float64 heights and times; ``largest`` is the largest
    ``|h|`` when the caller has it."""
    n = h.shape[0]
    dt = t[1:] - t[:-1]
    if h.ndim == 2 and h.size and n >= 2:
        m = dt.min()
        if largest is None:
            largest = np.abs(h).max()
        # the usual grid: times increasing and finite, heights finite and far from overflowing
        # (every one-sided step below 1e300 m/s); then every neighbour is usable, and each
        # sample's difference is central between its neighbours, one-sided at the two ends
        if m > 0.0 and math.isfinite(t[-1] - t[0]) and 2.0 * largest < 1e300 * m:
            after, before = _neighbours(n)
            return np.abs((h[after] - h[before]) / (t[after] - t[before])[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        step = np.where((dt > 0)[:, None], np.diff(h, axis=0) / np.where(dt > 0, dt, 1.0)[:, None], np.nan)  # (N-1, F)
    pad = np.full((1, h.shape[1]), np.nan)
    before = np.concatenate([pad, step], axis=0)  # slope of (i-1, i)
    after = np.concatenate([step, pad], axis=0)  # slope of (i, i+1)
    both = np.isfinite(before) & np.isfinite(after)
    span = np.full(n, np.nan)
    if n >= 3:
        span[1:-1] = t[2:] - t[:-2]
    central = np.full(h.shape, np.nan)
    if n >= 3:
        with np.errstate(invalid="ignore", divide="ignore"):
            central[1:-1] = (h[2:] - h[:-2]) / span[1:-1, None]
    v = np.where(both, central, np.where(np.isfinite(before), before, after))
    return np.where(np.isfinite(v), np.abs(v), np.inf)


#: per sample count N, the samples each sample's vertical speed is taken between
_NEIGHBOURS: Dict[int, Tuple[np.ndarray, np.ndarray]] = {}
_NEIGHBOURS_MAX = 256


def _neighbours(n: int) -> Tuple[np.ndarray, np.ndarray]:
    """(after, before) indices of ``n`` >= 2 samples: (i + 1, i − 1), at the ends (1, 0) and (n − 1, n − 2)."""
    return memo(_NEIGHBOURS, _NEIGHBOURS_MAX, n, lambda: (np.minimum(np.arange(1, n + 1), n - 1), np.maximum(np.arange(-1, n - 1), 0)))


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


#: the contact height ``foot-slide`` uses by default (``[checks.foot-slide] contact_height_m``)
DEFAULT_CONTACT_HEIGHT_M = 0.03


#: the roles whose bone stands for each side's foot, in order of preference: the foot, else the toe
SIDE_FOOT_ROLES = (("left", ("left_foot", "left_toe")), ("right", ("right_foot", "right_toe")))


def side_foot_bone(roles, side: str) -> Optional[int]:
    """The bone whose stance stands for ``side``'s ('left'/'right') foot: its foot role,
    else its toe role, else None (also when ``roles`` is None). The ``foot-slide`` check
    and the report's contact bars judge the same bone."""
    for name, candidates in SIDE_FOOT_ROLES:
        if name != side:
            continue
        for role in candidates:
            if roles is not None and roles.get(role) is not None:
                return roles.get(role)
    return None


def feet_stance(clip, skeleton, feet, positions_m, times_s, contact_height_m: float = DEFAULT_CONTACT_HEIGHT_M):
    """The one stance decision: ((N, F) stance, (F,) bool authored?, why markers were ignored or None).

    Authored contact markers (:func:`parse_contact_markers`) for every foot bone they
    name (a toe takes its nearest named ancestor's), the contact-height rule
    (:func:`stance_mask` on model-space Y of ``positions_m`` (N, F, 3) over ``times_s``:
    low and not moving vertically) for the rest.
    The ``foot-slide`` check and the per-leg duty factor both call it. Foot-cycle
    retiming (``transform.foot_cycle``) asks another question, when a foot's height
    crosses the contact height on a wrapping cycle, and uses :func:`stance_mask`
    without times (the height rule alone) and no markers: its docstring says why.
    """
    p = np.asarray(positions_m, dtype=np.float64)
    stance = stance_mask(p[..., 1], contact_height_m, times_s)
    authored = np.zeros(len(feet), dtype=bool)
    contacts, ignored = parse_contact_markers(clip)
    if contacts is None:
        return stance, authored, ignored
    names = contacts.marker_names(skeleton, feet)
    authored = np.array([n is not None for n in names], dtype=bool)
    if authored.any():
        stance = np.where(authored[None, :], contacts.stance_mask(names, times_s), stance)
        return stance, authored, None
    return stance, authored, "contact markers name none of the measured feet"


def feet_stance_once(cache: Dict[Any, Any], clip, skeleton, feet, positions_m, times_s, contact_height_m: float):
    """:func:`feet_stance`, decided once for the same feet, contact height, positions and times
    (by value) in ``cache``, the clip's own dict; the stance it keeps is shared, so read-only."""
    key = (tuple(int(f) for f in feet), float(contact_height_m))
    p, t = np.asarray(positions_m, dtype=np.float64), np.asarray(times_s, dtype=np.float64)
    for seen_p, seen_t, made in cache.get(key, ()):
        if seen_p.shape == p.shape and seen_t.shape == t.shape and np.array_equal(seen_t, t) and np.array_equal(seen_p, p):
            return made
    made = feet_stance(clip, skeleton, feet, p, t, contact_height_m)
    made[0].flags.writeable = False
    cache.setdefault(key, []).append((p, t, made))
    return made


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
            contact_height_m, times_s)`` (low and not moving vertically).
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
    st = stance_mask(p[..., 1], contact_height_m, t) if stance is None else np.asarray(stance, dtype=bool)
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


def stance_sweep_direction(positions_m, times_s, stance) -> np.ndarray:
    """Unit X/Z direction (3-vector, y = 0) of the feet's mean velocity over stance pairs; +Z when ~0.

    mean = Σ Δp over pairs in stance at both ends / Σ Δt of those pairs (all feet).
    """
    p = np.asarray(positions_m, dtype=np.float64)
    dt = np.diff(np.asarray(times_s, dtype=np.float64))
    both = stance[:-1] & stance[1:] & (dt > 0)[:, None]
    dp = np.diff(p, axis=0)
    dp = np.where(both[..., None] & np.isfinite(dp), dp, 0.0)
    total_t = float(np.sum(np.where(both, dt[:, None], 0.0)))
    if total_t <= 0:
        return np.array([0.0, 0.0, 1.0])
    v = dp.sum(axis=(0, 1)) / total_t
    v[1] = 0.0
    n = float(np.hypot(v[0], v[2]))
    if not np.isfinite(n) or n < 1e-9:
        return np.array([0.0, 0.0, 1.0])
    return v / n


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


# --------------------------------------------------------------------------
# Authored contact markers (animation extras)
# --------------------------------------------------------------------------

CONTACTS_KEY = "animsmith_contacts"
CONTACTS_VERSION = 1
#: markers with more events than this are ignored (bounded work on hostile files)
MAX_CONTACT_EVENTS = 100_000
#: markers naming more legs / feet than this are ignored
MAX_CONTACT_LEGS = 1024
#: a sample within this many seconds of a plant/lift time counts as in stance
#: (event times are rounded to 1 µs; key times are float32)
CONTACT_TIME_TOL_S = 1e-6


@dataclass(frozen=True)
class AuthoredContacts:
    """Usable contact markers of one clip.

    Attributes:
        intervals_s: {foot bone name: [(plant_s, lift_s), ...]} in time order,
            non-overlapping, on the clip's key-time axis. A leg planted at
            the clip start (its first event a ``lift``) plants at
            ``min(0, clip start)``; one still planted at the end lifts at the
            clip's duration (or its last event, if later).
        legs: {foot bone name: leg name} as the markers declare them.
    """

    intervals_s: Dict[str, List[Tuple[float, float]]]
    legs: Dict[str, str]

    def names(self, name: str) -> bool:
        """True when the markers give contacts for the foot bone ``name``."""
        return name in self.intervals_s

    def foot_stance(self, name: str, times_s) -> np.ndarray:
        """(N,) bool: ``plant_s − tol <= t <= lift_s + tol`` for one of the foot's intervals.

        Vectorised with a binary search over the (sorted, disjoint) plants; a
        foot the markers do not name is never in stance.
        """
        t = np.asarray(times_s, dtype=np.float64).reshape(-1)
        spans = self.intervals_s.get(name) or []
        if not spans:
            return np.zeros(t.shape, dtype=bool)
        plants = np.array([a for a, _ in spans], dtype=np.float64)
        lifts = np.array([b for _, b in spans], dtype=np.float64)
        i = np.searchsorted(plants, t + CONTACT_TIME_TOL_S, side="right") - 1
        ok = i >= 0
        return ok & (t <= lifts[np.maximum(i, 0)] + CONTACT_TIME_TOL_S)

    def stance_share(self, name: str, start_s: float, end_s: float) -> float:
        """The share of ``[start_s, end_s]`` (a non-empty span) inside the foot's
        [plant, lift] intervals: their overlaps with the span summed, over its length
        (at most 1), exactly, not counted in samples. 0 for a foot the markers do not name."""
        spans = np.asarray(self.intervals_s.get(name) or [], dtype=np.float64).reshape(-1, 2)
        inside = np.minimum(spans[:, 1], float(end_s)) - np.maximum(spans[:, 0], float(start_s))
        return float(min(1.0, np.add.reduce(np.maximum(inside, 0.0)) / (float(end_s) - float(start_s))))

    def stance_mask(self, foot_names: Sequence[Optional[str]], times_s) -> np.ndarray:
        """(N, F) bool: :meth:`foot_stance` per name (a None name: never in stance)."""
        t = np.asarray(times_s, dtype=np.float64).reshape(-1)
        out = np.zeros((t.shape[0], len(foot_names)), dtype=bool)
        for f, name in enumerate(foot_names):
            if name is not None:
                out[:, f] = self.foot_stance(name, t)
        return out

    def marker_names(self, skeleton, bones: Sequence[int]) -> List[Optional[str]]:
        """For each bone index: the name the markers use for it — its own name,
        else its nearest ancestor's (a toe takes its foot's contacts); None when
        neither it nor any ancestor is named."""
        out: List[Optional[str]] = []
        names = skeleton.names
        parents = skeleton.parents
        for bone in bones:
            found = None
            b = int(bone)
            seen = 0
            while 0 <= b < len(names) and seen <= len(names):
                if str(names[b]) in self.intervals_s:
                    found = str(names[b])
                    break
                b = int(parents[b])
                seen += 1
            out.append(found)
        return out


def _show(value: Any, limit: int = 40) -> str:
    """Short one-line repr of a hostile value for a reason string."""
    try:
        text = repr(value)
    except Exception:  # pragma: no cover - objects with a broken repr
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _finite_float(value: Any) -> Optional[float]:
    """``value`` as a finite float when it is a JSON number (not a bool), else None.

    Huge integers (JSON allows any length) that overflow a float are None too.
    """
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        v = float(value)
    except (OverflowError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _event_or_reason(i: int, e: Any) -> Tuple[Optional[Tuple[str, str, float]], Optional[str]]:
    """(leg, kind, time_s) of one event, or (None, reason)."""
    if not isinstance(e, dict):
        return None, f"event {i} is not an object"
    kind, leg, t = e.get("kind"), e.get("leg"), e.get("time_s")
    if not isinstance(kind, str) or kind not in ("plant", "lift"):
        return None, f"event {i} has kind {_show(kind)} (expected 'plant' or 'lift')"
    if not isinstance(leg, str):
        return None, f"event {i} has leg {_show(leg)} (expected a string)"
    time_s = _finite_float(t)
    if time_s is None:
        return None, f"event {i} has time_s {_show(t)} (expected a finite number)"
    return (leg, kind, time_s), None


def _leg_intervals(events: List[Tuple[str, float]], start_s: float, end_s: float) -> List[Tuple[float, float]]:
    """Stance intervals of one leg from its (kind, time_s) events.

    Sorted by time (a lift before a plant at the same time); a leading lift
    opens at ``start_s``, a trailing plant closes at ``end_s``; a repeated
    plant keeps the first, a lift without an open plant (not leading) is
    ignored.
    """
    evs = sorted(events, key=lambda x: (x[1], x[0] != "lift"))
    out: List[Tuple[float, float]] = []
    open_s: Optional[float] = start_s if evs and evs[0][0] == "lift" else None
    for kind, t in evs:
        if kind == "plant":
            if open_s is None:
                open_s = t
        elif open_s is not None:
            out.append((open_s, t))
            open_s = None
    if open_s is not None:
        out.append((open_s, max(end_s, open_s)))
    return out


def parse_contact_markers(clip) -> Tuple[Optional[AuthoredContacts], Optional[str]]:
    """(contacts, None) | (None, None) without markers | (None, reason) when unusable.

    Reads ``clip.extras["animsmith_contacts"]`` (docs/sim.md: ``version`` 1,
    ``feet`` {leg: foot bone name}, ``events`` [{``leg``, ``kind`` plant|lift,
    ``time_s``}]). Anything malformed — wrong types, non-finite times, an
    unknown version, more than :data:`MAX_CONTACT_EVENTS` events or
    :data:`MAX_CONTACT_LEGS` legs — makes the whole block unusable with a
    one-line reason; nothing is raised. A leg missing from ``feet`` names
    its foot bone by its leg name.
    """
    ex = getattr(clip, "extras", None)
    if not isinstance(ex, dict) or CONTACTS_KEY not in ex:
        return None, None
    doc = ex[CONTACTS_KEY]
    if not isinstance(doc, dict):
        return None, f"{CONTACTS_KEY} is not an object"
    version = doc.get("version")
    if _finite_float(version) != CONTACTS_VERSION:
        return None, f"{CONTACTS_KEY} version {_show(version)} is not supported (expected {CONTACTS_VERSION})"
    events = doc.get("events")
    if not isinstance(events, list):
        return None, f"{CONTACTS_KEY}.events is not a list"
    if len(events) > MAX_CONTACT_EVENTS:
        return None, f"{CONTACTS_KEY} has {len(events)} events (limit {MAX_CONTACT_EVENTS})"
    feet = doc.get("feet", {})
    if not isinstance(feet, dict):
        return None, f"{CONTACTS_KEY}.feet is not an object"
    if len(feet) > MAX_CONTACT_LEGS:
        return None, f"{CONTACTS_KEY}.feet names {len(feet)} legs (limit {MAX_CONTACT_LEGS})"
    for leg, bone in feet.items():
        if not isinstance(leg, str) or not isinstance(bone, str):
            return None, f"{CONTACTS_KEY}.feet maps {_show(leg)} to {_show(bone)} (expected strings)"
    per_leg: Dict[str, List[Tuple[str, float]]] = {}
    for i, e in enumerate(events):
        parsed, why = _event_or_reason(i, e)
        if parsed is None:
            return None, f"{CONTACTS_KEY}: {why}"
        leg, kind, t = parsed
        if leg not in per_leg and len(per_leg) >= MAX_CONTACT_LEGS:
            return None, f"{CONTACTS_KEY} names more than {MAX_CONTACT_LEGS} legs"
        per_leg.setdefault(leg, []).append((kind, t))
    start = min(0.0, float(clip.start_s))
    end = float(clip.duration_s)
    intervals: Dict[str, List[Tuple[float, float]]] = {}
    legs: Dict[str, str] = {}
    for leg, evs in per_leg.items():
        bone = feet.get(leg, leg)
        if bone in intervals:
            return None, f"{CONTACTS_KEY}: foot bone {_show(bone)} is named by two legs"
        intervals[bone] = _leg_intervals(evs, start, end)
        legs[bone] = leg
    return AuthoredContacts(intervals_s=intervals, legs=legs), None


def authored_contacts(clip) -> Optional[AuthoredContacts]:
    """The clip's usable authored contacts, or None (absent or unusable: :func:`parse_contact_markers`)."""
    return parse_contact_markers(clip)[0]


def authored_stance_mask(clip, foot_bones_or_names, times_s, *, skeleton=None) -> Optional[np.ndarray]:
    """(N, F) stance mask from the clip's authored contact markers, or None.

    Feet are bone names, or bone indices with ``skeleton`` (a bone the markers
    do not name takes its nearest named ancestor's contacts:
    :meth:`AuthoredContacts.marker_names`). Foot ``f`` is in stance at ``t``
    when ``plant_s − 1e-6 <= t <= lift_s + 1e-6`` for one of its intervals; a
    foot the markers do not name is never in stance. None when the clip has
    no usable markers or they name none of the feet. Pass it as
    ``foot_slide(..., stance=...)``.
    """
    contacts = authored_contacts(clip)
    if contacts is None:
        return None
    feet = list(foot_bones_or_names)
    names: List[Optional[str]] = []
    for foot in feet:
        if isinstance(foot, str):
            names.append(foot if contacts.names(foot) else None)
        elif skeleton is not None:
            names.extend(contacts.marker_names(skeleton, [int(foot)]))
        else:
            raise ValueError("bone indices need skeleton= to be named")
    if all(n is None for n in names):
        return None
    return contacts.stance_mask(names, times_s)
