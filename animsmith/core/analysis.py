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
   and its last key is its first key's pose within the endpoint tolerance
   (``core.endpoint``: 0.1 mm in model space for translations, 0.01° for
   rotations, sign-invariant, 1e-4 relative for scales — float storage and
   exporter noise, not a real difference), every key value is finite, and at
   least one channel with ≥ 3 keys moves beyond that tolerance. A one-key channel holds one pose
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

from animsmith.core.endpoint import channel_moves, last_key_mismatch
from animsmith.core.gait import MIN_STRIDE_STEP_M, GaitMetrics, gait_metrics, loop_seam_ratio
from animsmith.core.pose import pose_grid
from animsmith.core.roles import RoleMap, resolve_roles
from animsmith.core.trajectory import (
    LoopContinuity,
    RootSpeed,
    TravelBone,
    cycle_transform,
    loop_continuity,
    root_speed,
    travel_bone_of_clip,
    yaw_accumulation_deg,
)

LOOP_POSITION_CAP_M = 0.01
LOOP_ROTATION_CAP_DEG = 1.0
#: a last pose this close to the first (every bone, in the travelling frame on a
#: travelling clip) repeats it, whatever the keys' last bits say: a tenth of a millimetre
#: and a hundredth of a degree are far below any visible step and far above float32
#: storage noise of poses within a few metres of the origin
POSE_REPEAT_M = 1e-4
POSE_REPEAT_DEG = 0.01


def _finite_or_none(value, reason: str = "non-finite value") -> Tuple[Optional[float], Optional[str]]:
    if value is None:
        return None, reason
    v = float(value)
    if not math.isfinite(v):
        return None, reason
    return v, None


def duplicated_endpoint(clip, skeleton=None, skip_bones=()) -> Tuple[bool, Optional[str]]:
    """(True, None) when the last key repeats the first pose on every channel (module docstring;
    "repeats" and "moves" are ``core.endpoint``'s tolerance, judged in model space through
    ``skeleton``'s scales and units — without one, one file unit is one metre).

    (False, why-not) otherwise. First/last keys of all channels are compared
    in one vectorised step; the "something moves" scan stops at the first
    moving channel. The translation and rotation channels of ``skip_bones`` take no
    part in the comparison (a travelling loop's travel bone ends where the next cycle
    starts, not where this one did).
    """
    channels = clip.channels
    if skip_bones:
        skip = {int(b) for b in skip_bones}
        channels = [ch for ch in channels if not (int(ch.bone) in skip and ch.path in ("translation", "rotation"))]
    if not channels:
        return False, "clip has no channels" + (" besides its travel bone's" if clip.channels else "")
    values = list({id(ch.values): ch.values for ch in channels}.values())
    if not np.isfinite(np.concatenate([v.reshape(-1) for v in values])).all():  # any key, not only the ends
        return False, "non-finite key values"
    # a one-key channel holds one pose for all time: it neither ends nor repeats anything
    chans = [ch for ch in channels if ch.times.shape[0] != 1]
    if not chans:
        return False, "no channel has 2 or more keys"
    duration = np.float32(clip.duration_s)
    # cheap structural checks first; channels sharing a key-time array share the
    # outcome, so each array is looked at once, in channel order
    distinct = clip.distinct_times() if channels is clip.channels else list({id(ch.times): ch.times for ch in channels}.values())
    for times in distinct:
        if times.shape[0] == 1:
            continue
        if times.shape[0] == 0:
            return False, "a channel has no keys"
        if np.float32(times[-1]) != duration:
            return False, "a channel ends before the clip duration"
    why = last_key_mismatch(chans, skeleton)
    if why is not None:
        return False, why
    if not any(ch.key_count >= 3 and channel_moves(skeleton, ch) for ch in chans):
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
    m[name] = value + 0.0 if isinstance(value, float) else value  # never -0.0 in JSON
    if value is None:
        m[name + "_unavailable"] = reason or "not measured"


class ClipAnalysis:
    """One clip's pose grid and metrics, each computed once on first access."""

    def __init__(self, asset, clip, roles: RoleMap):
        self.asset = asset
        self.clip = clip
        self.roles = roles
        self._seam_cache: Dict[Tuple[float, float], Tuple[Optional[float], Optional[str]]] = {}
        self._loop_cache: Dict[bool, LoopContinuity] = {}
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
    def travel(self) -> TravelBone:
        """The clip's travel bone and why (core.trajectory.travel_bone_of_clip)."""
        return travel_bone_of_clip(self.asset.skeleton, self.clip, self.roles)

    @cached_property
    def speed(self) -> RootSpeed:
        return root_speed(self.grid, self.travel)

    def seam_ratio_with(
        self, min_stride_step_m: float = MIN_STRIDE_STEP_M, yaw_deg: float = 0.0
    ) -> Tuple[Optional[float], Optional[str]]:
        """(loop seam ratio, reason) with a given stride floor and the yaw the next cycle
        starts turned by (cached per pair)."""
        key = (float(min_stride_step_m), float(yaw_deg))
        if key not in self._seam_cache:
            self._seam_cache[key] = loop_seam_ratio(self.grid, self.roles, key[0], yaw_deg=key[1])
        return self._seam_cache[key]

    @property
    def seam_ratio(self) -> Tuple[Optional[float], Optional[str]]:
        """(loop seam ratio, reason) with the default 0.02 m stride floor."""
        return self.seam_ratio_with(MIN_STRIDE_STEP_M)

    @cached_property
    def continuity(self) -> LoopContinuity:
        """Last pose against first pose in model space (``measure``'s loop_continuity)."""
        return loop_continuity(self.grid)

    def closes_by_keys(self, travelling: bool) -> bool:
        """The authored keys close the loop (a duplicated endpoint); on a travelling clip
        the travel bone's own translation and rotation keys are left out (they end
        where the next cycle starts)."""
        if not travelling or self.travel.bone is None:
            return bool(self.duplicated_endpoint[0])
        return bool(duplicated_endpoint(self.clip, self.asset.skeleton, skip_bones=(self.travel.bone,))[0])

    def loop_continuity_for(self, travelling: bool) -> LoopContinuity:
        """The wrap as the loop checks judge it (cached per flag).

        Closed cycle when the keys repeat the first pose (:meth:`closes_by_keys`) or the
        last pose is within ``POSE_REPEAT_M`` / ``POSE_REPEAT_DEG`` of the first on every
        bone (keys that differ only by float noise), else open; on a ``travelling`` clip the
        first pose is carried into the next cycle by the travel bone's trajectory
        (core.trajectory.cycle_transform: its horizontal travel and, when it turns,
        its yaw) before it is compared with the last, so root motion is no seam.
        """
        key = bool(travelling)
        if key not in self._loop_cache:
            self._loop_cache[key] = self._loop_continuity(key)
        return self._loop_cache[key]

    def _loop_continuity(self, travelling: bool) -> LoopContinuity:
        bone = self.travel.bone if travelling else None

        def judged(open_cycle: bool) -> LoopContinuity:
            if bone is None:
                return loop_continuity(self.grid, None, open_cycle)
            cycle, why = cycle_transform(self.grid, bone, open_cycle, self.skeleton.parents)
            if cycle is None:
                return LoopContinuity(unavailable=f"travel bone trajectory unusable ({why})")
            return loop_continuity(self.grid, cycle, open_cycle)

        closed = judged(False)
        if self.closes_by_keys(travelling) or closed.unavailable:
            return closed
        # keys that miss their first value by float noise still repeat the first pose
        if bool(np.all(closed.position_delta_m <= POSE_REPEAT_M) and np.all(closed.rotation_delta_deg <= POSE_REPEAT_DEG)):
            return closed
        return judged(True)

    @cached_property
    def yaw_deg(self) -> Tuple[Optional[float], Optional[str]]:
        """(net yaw of the travel bone in degrees, reason)."""
        if self.travel.bone is None:
            return None, self.travel.reason
        return yaw_accumulation_deg(self.grid, self.travel.bone)

    @cached_property
    def duplicated_endpoint(self) -> Tuple[bool, Optional[str]]:
        return duplicated_endpoint(self.clip, self.asset.skeleton)

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
            "duration_s": float(self.grid.duration_s or clip.duration_s) + 0.0,  # + 0.0: never -0.0
            "start_s": float(clip.start_s) + 0.0,
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
        m["travel_bone_reason"] = s.travel_bone_reason
        ratio, why = self.seam_ratio_with(min_stride_step_m)
        put("loop_seam_ratio", ratio, why)
        yaw, why = self.yaw_deg
        put("yaw_deg", yaw, why)
        mode, why = self.loop_endpoint_mode_with()
        put("loop_endpoint_mode", mode, why)
        cont, why = self._continuity_json()
        put("loop_continuity", cont, why)
        return m

    def _authored_stance(self, bones, times_s) -> Optional[np.ndarray]:
        """(N, F) stance from the clip's contact markers (True for a foot they do not name), or None."""
        from animsmith.core.contacts import authored_contacts

        contacts = authored_contacts(self.clip)
        if contacts is None:
            return None
        names = contacts.marker_names(self.skeleton, bones)
        if all(n is None for n in names):
            return None
        stance = contacts.stance_mask(names, times_s)
        stance[:, [n is None for n in names]] = True
        return stance

    def foot_measurements(self, declared_speed_mps=None, movement_owner_xz: Optional[str] = None) -> Dict[str, Any]:
        """``foot_skate_ratio`` and ``foot_contacts`` (core.footskate), JSON-ready, with reasons.

        An in-place clip (core.travel.is_in_place) with a declared ``speed_mps`` is measured on
        a treadmill moving at that speed (``foot_skate_ground_mps``; 0 otherwise).
        """
        from animsmith.core.footskate import (
            foot_contacts,
            foot_skate_ratio,
            skate_frame_count,
            skate_frames_problem,
            skate_points,
            skate_times_s,
        )
        from animsmith.core.pose import LazyPoseGrid
        from animsmith.core.travel import is_in_place

        m: Dict[str, Any] = {}
        why = key_times_problem(self.clip)
        treadmill = None
        if why is None and is_in_place(self.speed.speed_mps, movement_owner_xz):
            if declared_speed_mps is not None:
                treadmill = float(declared_speed_mps)
            elif self.gait.cycles is not None:  # an in-place gait's planted feet sweep back on purpose
                why = "in-place gait: declare [clips.*] speed_mps to measure it on a treadmill at that speed"
        ratio = None
        points = [b for _, b in skate_points(self.roles) if b is not None]
        if why is None and not points:
            why = "no foot or toe role resolved"
        if why is None:
            duration = float(self.grid.duration_s or self.clip.duration_s)
            why = skate_frames_problem(skate_frame_count(duration), self.grid.frame_count)
        if why is None:
            times = skate_times_s(duration)
            if times.shape[0] < 2:
                why = "clip is shorter than one frame at 20 fps"
            else:  # only the measured feet and their ancestors are posed
                pos = LazyPoseGrid(self.skeleton, self.clip, times, duration).model_positions_m(points)
                ratio, why = foot_skate_ratio(
                    pos, times, treadmill_speed_mps=treadmill, authored_stance=self._authored_stance(points, times)
                )
        put_measurement(m, "foot_skate_ratio", ratio, why)
        m["foot_skate_ground_mps"] = 0.0 if treadmill is None else treadmill
        contacts, cwhy = (None, key_times_problem(self.clip))
        if cwhy is None:
            contacts, cwhy = foot_contacts(self.grid, self.roles, self.skeleton.names)
        put_measurement(m, "foot_contacts", contacts, cwhy)
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
