"""Per-clip analysis: the pose grid and every metric, computed once and shared.

``ClipAnalysis(asset, clip, roles)`` samples the clip's judged pose grid on
first use and caches it together with each metric, so ``measure``, ``lint``
checks, ``report`` and transforms never sample twice. ``measurements()`` is
the JSON-ready per-clip dict that ``measure`` prints (docs/measure.md lists
every key). A metric that could not be measured is ``None`` with a sibling
``"<name>_unavailable": "<reason>"``.

Loop endpoint mode (``loop_endpoint_mode``), decided in this order:

1. ``duplicated_endpoint`` — the authored keys close the loop by repeating the
   first pose: every channel with two or more keys ends at the clip duration
   and its last key equals its first (vector components within 1e-5,
   rotations within 1e-4 rad, sign-invariant), every key value is finite, and
   at least one channel with ≥ 3 keys moves. A one-key channel holds one pose
   for all time and takes no part.
2. ``unique_cycle`` — otherwise, when every bone's wrap (last grid pose vs
   first) is within the loop-closure caps (default 0.01 m position, 1°
   rotation): the clip reads as an open cycle whose wrap step is a normal step.
3. ``non_closing`` — the last pose is not the first pose.

``None`` with a reason when the clip has no channels or loop continuity is
unavailable. ``measure`` reports the mode for every clip; only clips declared
``loop = true`` are judged on it by ``lint``.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from animsmith.core.gait import MIN_STRIDE_STEP_M, GaitMetrics, gait_metrics, loop_seam_ratio
from animsmith.core.pose import pose_grid
from animsmith.core.roles import RoleMap, resolve_roles
from animsmith.core.trajectory import (
    LoopContinuity,
    RootSpeed,
    loop_continuity,
    root_speed,
    travel_bone,
    yaw_accumulation_deg,
)

ENDPOINT_VECTOR_TOL = 1e-5
ENDPOINT_ROTATION_TOL_RAD = 1e-4
LOOP_POSITION_CAP_M = 0.01
LOOP_ROTATION_CAP_DEG = 1.0


def _finite_or_none(value, reason: str = "non-finite value") -> Tuple[Optional[float], Optional[str]]:
    if value is None:
        return None, reason
    v = float(value)
    if not math.isfinite(v):
        return None, reason
    return v, None


def _rotation_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1 − |a·b|/(|a||b|) per row: ≤ 1 − cos(tol/2) iff the sign-invariant angle ≤ tol."""
    num = np.abs(np.einsum("...j,...j->...", a, b))
    den = np.sqrt(np.einsum("...j,...j->...", a, a) * np.einsum("...j,...j->...", b, b))
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1.0 - np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


_ROT_GAP_TOL = 1.0 - math.cos(ENDPOINT_ROTATION_TOL_RAD / 2.0)


def _channel_moves(ch) -> bool:
    """A channel with ≥ 3 keys where some key differs from key 0 beyond the tolerance."""
    if ch.key_count < 3:
        return False
    v = ch.values.astype(np.float64)
    if ch.path == "rotation":
        return bool(np.any(_rotation_gap(v[:1], v) > _ROT_GAP_TOL))
    return bool(np.any(np.abs(v - v[0]) > ENDPOINT_VECTOR_TOL))


def _first_and_last_keys(channels) -> np.ndarray:
    """(G, 2, C) float64: each channel's first and last key value (channels with >= 1 key).

    Gathered from one concatenation of the value arrays (one gather, not a
    Python pair per channel); channels of different widths go pair by pair.
    """
    values = [ch.values for ch in channels]
    try:
        flat = np.concatenate(values)
    except ValueError:  # widths differ
        return np.array([(v[0], v[-1]) for v in values], dtype=np.float64)
    counts = np.array(list(map(len, values)), dtype=np.intp)  # key counts (rows), no Python loop
    last = np.cumsum(counts) - 1
    return np.stack([flat[last - counts + 1], flat[last]], axis=1).astype(np.float64)


def last_key_mismatch(channels) -> Optional[str]:
    """Why some channel's last key does not repeat its first, or None when every one does:
    vector components within 1e-5, rotations within 1e-4 rad (sign-invariant), both ends
    finite. Channels without keys are skipped."""
    for is_rot in (True, False):
        group = [ch for ch in channels if (ch.path == "rotation") == is_rot and ch.values.shape[0]]
        if not group:
            continue
        ends = _first_and_last_keys(group)  # (G, 2, C)
        if not np.all(np.isfinite(ends)):
            return "non-finite key values"
        if is_rot:
            bad = _rotation_gap(ends[:, 0], ends[:, 1]) > _ROT_GAP_TOL
        else:
            bad = np.max(np.abs(ends[:, 1] - ends[:, 0]), axis=1) > ENDPOINT_VECTOR_TOL
        if np.any(bad):
            kind = "rotation" if is_rot else "translation/scale"
            return f"a {kind} channel's last key differs from its first"
    return None


def duplicated_endpoint(clip) -> Tuple[bool, Optional[str]]:
    """(True, None) when the last key repeats the first pose on every channel (module docstring).

    (False, why-not) otherwise. First/last keys of all channels are compared
    in one vectorised step; the "something moves" scan stops at the first
    moving channel.
    """
    if not clip.channels:
        return False, "clip has no channels"
    values = [ch.values for ch in clip.channels]
    values = list(dict(zip(map(id, values), values)).values())  # each shared array once
    if not np.isfinite(np.concatenate(list(map(np.ndarray.ravel, values)))).all():  # any key, not only the ends
        return False, "non-finite key values"
    # a one-key channel holds one pose for all time: it neither ends nor repeats anything
    chans = [ch for ch in clip.channels if ch.times.shape[0] != 1]
    if not chans:
        return False, "no channel has 2 or more keys"
    duration = np.float32(clip.duration_s)
    # cheap structural checks first; channels sharing a key-time array share the
    # outcome, so each array is looked at once, in channel order
    for times in clip.distinct_times():
        if times.shape[0] == 1:
            continue
        if times.shape[0] == 0:
            return False, "a channel has no keys"
        if np.float32(times[-1]) != duration:
            return False, "a channel ends before the clip duration"
    why = last_key_mismatch(chans)
    if why is not None:
        return False, why
    if not any(_channel_moves(ch) for ch in chans):
        return False, "no channel with 3 or more keys moves"
    return True, None


def key_times_problem(clip) -> Optional[str]:
    """Why ``clip``'s key times cannot be sampled reliably (a non-finite time, or times
    not strictly increasing, which glTF requires), or None. ``lint`` loads such files
    leniently; its ``nan`` and ``time-monotonic`` checks report the defect itself."""
    for t in clip.distinct_times():
        if t.shape[0] and not np.isfinite(t).all():
            return "key times are not finite (see nan)"
    for t in clip.distinct_times():
        if t.shape[0] > 1 and not (t[1:] > t[:-1]).all():
            return "key times are not strictly increasing (see time-monotonic)"
    return None


def put_measurement(m: Dict[str, Any], name: str, value, reason: Optional[str]) -> None:
    """``m[name] = value``; a missing or non-finite value is None with ``m[name + "_unavailable"]``
    = the reason ("non-finite value" for an infinite or NaN float), as ``measure`` prints it."""
    if isinstance(value, float) and not math.isfinite(value):
        value, reason = None, reason or "non-finite value"
    m[name] = value
    if value is None:
        m[name + "_unavailable"] = reason or "not measured"


class ClipAnalysis:
    """One clip's pose grid and metrics, each computed once on first access."""

    def __init__(self, asset, clip, roles: RoleMap):
        self.asset = asset
        self.clip = clip
        self.roles = roles
        self._seam_cache: Dict[float, Tuple[Optional[float], Optional[str]]] = {}
        self._mode_cache: Dict[Tuple[float, float], Tuple[Optional[str], Optional[str]]] = {}

    @property
    def skeleton(self):
        return self.asset.skeleton

    @cached_property
    def grid(self):
        """The judged pose grid (core.pose.pose_grid)."""
        return pose_grid(self.asset.skeleton, self.clip)

    @cached_property
    def gait(self) -> GaitMetrics:
        """Stride anchor, amplitude and cycles; none of them when the key times cannot be
        sampled reliably (:func:`key_times_problem`), as the grid-based checks decide."""
        why = key_times_problem(self.clip)
        if why is not None:
            return GaitMetrics(gait_phase_unavailable=why, lr_amplitude_m_unavailable=why, cycles_unavailable=why)
        return gait_metrics(self.grid, self.roles)

    @cached_property
    def speed(self) -> RootSpeed:
        return root_speed(self.grid, self.roles)

    def seam_ratio_with(self, min_stride_step_m: float = MIN_STRIDE_STEP_M) -> Tuple[Optional[float], Optional[str]]:
        """(loop seam ratio, reason) with a given stride floor (cached per floor)."""
        key = float(min_stride_step_m)
        if key not in self._seam_cache:
            self._seam_cache[key] = loop_seam_ratio(self.grid, self.roles, key)
        return self._seam_cache[key]

    @property
    def seam_ratio(self) -> Tuple[Optional[float], Optional[str]]:
        """(loop seam ratio, reason) with the default 0.02 m stride floor."""
        return self.seam_ratio_with(MIN_STRIDE_STEP_M)

    @cached_property
    def continuity(self) -> LoopContinuity:
        return loop_continuity(self.grid)

    @cached_property
    def yaw_deg(self) -> Tuple[Optional[float], Optional[str]]:
        """(net yaw of the travel bone in degrees, reason)."""
        bone, why = travel_bone(self.roles)
        if bone is None:
            return None, why
        return yaw_accumulation_deg(self.grid, bone)

    @cached_property
    def duplicated_endpoint(self) -> Tuple[bool, Optional[str]]:
        return duplicated_endpoint(self.clip)

    def loop_endpoint_mode_with(
        self, position_cap_m: float = LOOP_POSITION_CAP_M, rotation_cap_deg: float = LOOP_ROTATION_CAP_DEG
    ) -> Tuple[Optional[str], Optional[str]]:
        """(mode, reason) with given loop-closure caps (module docstring)."""
        key = (float(position_cap_m), float(rotation_cap_deg))
        if key not in self._mode_cache:
            self._mode_cache[key] = self._endpoint_mode(*key)
        return self._mode_cache[key]

    def _endpoint_mode(self, pos_cap: float, rot_cap: float) -> Tuple[Optional[str], Optional[str]]:
        if not self.clip.channels:
            return None, "clip has no channels"
        dup, _ = self.duplicated_endpoint
        if dup:
            return "duplicated_endpoint", None
        lc = self.continuity
        if lc.unavailable:
            return None, lc.unavailable
        closes = bool(np.all(lc.position_delta_m <= pos_cap) and np.all(lc.rotation_delta_deg <= rot_cap))
        return ("unique_cycle" if closes else "non_closing"), None

    @property
    def loop_endpoint_mode(self) -> Optional[str]:
        return self.loop_endpoint_mode_with()[0]

    # ------------------------------------------------------------------
    # JSON-ready measurements
    # ------------------------------------------------------------------

    def _bone_name(self, bone: Optional[int]) -> Optional[str]:
        return None if bone is None else str(self.skeleton.names[bone])

    def _continuity_json(self) -> Tuple[Optional[dict], Optional[str]]:
        lc = self.continuity
        if lc.unavailable:
            return None, lc.unavailable
        out: Dict[str, Any] = {}
        for field_name in (
            "position_delta_m",
            "rotation_delta_deg",
            "seam_velocity_delta_mps",
            "seam_angular_velocity_delta_degps",
        ):
            bone, value = lc.worst(field_name)
            v, _ = _finite_or_none(value)
            out[field_name] = v
            out[field_name.rsplit("_", 1)[0] + "_bone"] = self._bone_name(bone)
        return out, None

    def measurements(self, min_stride_step_m: float = MIN_STRIDE_STEP_M) -> Dict[str, Any]:
        """The per-clip measurement dict of ``measure`` (docs/measure.md).

        ``min_stride_step_m`` is the loop-seam stride floor (``[checks.loop-seam]
        min_stride_step_m`` in the contract; default 0.02 m).
        """
        clip = self.clip
        m: Dict[str, Any] = {
            "name": clip.name,
            "index": int(clip.index),
            "duration_s": float(self.grid.duration_s or clip.duration_s),
            "start_s": float(clip.start_s),
            "frame_count": int(self.grid.frame_count),
            "key_count_max": int(clip.max_key_count),
            "channel_count": len(clip.channels),
            "weight_channel_count": int(clip.weight_channel_count),
        }

        def put(name: str, value, reason: Optional[str]) -> None:
            put_measurement(m, name, value, reason)

        g = self.gait
        put("gait_phase", g.gait_phase, g.gait_phase_unavailable)
        put("lr_amplitude_m", g.lr_amplitude_m, g.lr_amplitude_m_unavailable)
        put("cycles", g.cycles, g.cycles_unavailable)
        if g.cycles_note:
            m["cycles_note"] = g.cycles_note
        s = self.speed
        put("speed_mps", s.speed_mps, s.speed_mps_unavailable)
        put("heading_deg", s.heading_deg, s.heading_deg_unavailable)
        put("distance_m", s.distance_m, s.distance_m_unavailable)
        m["travel_bone"] = s.travel_bone
        m["travel_source_role"] = s.source_role
        ratio, why = self.seam_ratio_with(min_stride_step_m)
        put("loop_seam_ratio", ratio, why)
        yaw, why = self.yaw_deg
        put("yaw_deg", yaw, why)
        mode, why = self.loop_endpoint_mode_with()
        put("loop_endpoint_mode", mode, why)
        cont, why = self._continuity_json()
        put("loop_continuity", cont, why)
        return m


def analyze_asset(asset, profile: Optional[str] = "auto", overrides=None) -> Tuple[RoleMap, List[ClipAnalysis]]:
    """Resolve roles once for the asset's skeleton and wrap every clip in a ClipAnalysis.

    A bad profile name or role override raises ``ConfigError``.
    """
    from animsmith.errors import ConfigError

    try:
        roles = resolve_roles(asset.skeleton, profile=profile, overrides=overrides)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return roles, [ClipAnalysis(asset, clip, roles) for clip in asset.clips]


def prime_loop_continuity(analyses) -> None:
    """Batch the full-skeleton forward kinematics that :func:`loop_continuity` needs for
    several clips of one file (``core.pose.batch_pose_at``): the same numbers, one chain of
    per-level products for all of them instead of one per clip. A clip whose grid cannot
    be built is skipped (its own measurement says why)."""
    from animsmith.core.pose import batch_pose_at
    from animsmith.core.trajectory import seam_sample_frames

    requests = []
    for a in analyses:
        try:
            grid = a.grid
        except Exception:  # noqa: BLE001 - measured (and explained) clip by clip later
            continue
        if grid.frame_count >= 3:
            requests.append((grid, seam_sample_frames(grid.frame_count)))
    if len(requests) > 1:
        batch_pose_at(requests)
