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

from animsmith.core.endpoint import POSITION_TOL_M, ROTATION_TOL_DEG, StackedKeys
from animsmith.core.contacts import DEFAULT_CONTACT_HEIGHT_M
from animsmith.core.gait import MIN_STRIDE_STEP_M, GaitMetrics, gait_metrics, loop_seam_ratio
from animsmith.core.pose import key_span_grid, pose_grid
from animsmith.core.roles import RoleMap
from animsmith.core.timegrid import max_finite_time_s
from animsmith.core.seam import LoopContinuity, loop_continuity
from animsmith.core.trajectory import (
    RootSpeed,
    TravelBone,
    cycle_transform,
    heading_series_deg,
    root_speed,
    travel_bone_of_clip,
    yaw_accumulation_deg,
)

LOOP_POSITION_CAP_M = 0.01
LOOP_ROTATION_CAP_DEG = 1.0
#: a last pose this close to the first (every bone, in the travelling frame on a
#: travelling clip) repeats it, whatever the keys' last bits say: the same tolerance as
#: two keys of one pose (``core.endpoint``: a tenth of a millimetre and a hundredth of a
#: degree, far below any visible step and far above float32 storage noise)
POSE_REPEAT_M = POSITION_TOL_M
POSE_REPEAT_DEG = ROTATION_TOL_DEG


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

    (False, why-not) otherwise. The key values of each path are stacked once
    (``core.endpoint.StackedKeys``): the finiteness test is one pass, the first/last
    keys of all channels one comparison, and a middle key clearly away from its first
    settles "something moves" (else the channels are asked one by one, stopping at the
    first that moves). The translation and rotation channels of ``skip_bones`` take no
    part in the comparison (a travelling loop's travel bone ends where the next cycle
    starts, not where this one did).
    """
    channels = clip.channels
    if skip_bones:
        skip = {int(b) for b in skip_bones}
        channels = [ch for ch in channels if not (int(ch.bone) in skip and ch.path in ("translation", "rotation"))]
    if not channels:
        return False, "clip has no channels" + (" besides its travel bone's" if clip.channels else "")
    keys = StackedKeys(channels)  # each path's key values stacked once, for every test below
    if not keys.all_finite():  # any key, not only the ends
        return False, "non-finite key values"
    # a one-key channel holds one pose for all time: it neither ends nor repeats anything
    if keys.only_one_key_channels():
        return False, "no channel has 2 or more keys"
    # cheap structural checks first; channels sharing a key-time array share the
    # outcome, so each array is looked at once, in channel order
    distinct = keys.distinct_times
    duration = np.float32(max_finite_time_s(distinct) if channels is clip.channels else clip.duration_s)  # clip.duration_s
    for times in distinct:
        if times.shape[0] == 1:
            continue
        if times.shape[0] == 0:
            return False, "a channel has no keys"
        if np.float32(times[-1]) != duration:
            return False, "a channel ends before the clip duration"
    why = keys.loop_mismatch(skeleton, min_keys=3)
    return (False, why) if why is not None else (True, None)


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
        self._legs_cache: Dict[float, Dict[str, Any]] = {}
        self._stance_cache: Dict[tuple, list] = {}
        #: what the clip's checks share about its keys while it is judged (the lint engine
        #: empties it once they are done): state of this clip, held by this clip's analysis
        self.check_state: Dict[str, Any] = {}

    @property
    def skeleton(self):
        return self.asset.skeleton

    @cached_property
    def grid(self):
        """The judged pose grid (core.pose.pose_grid)."""
        return pose_grid(self.asset.skeleton, self.clip)

    @cached_property
    def key_times_problem(self) -> Optional[str]:
        """:func:`key_times_problem` of the clip (computed once)."""
        return key_times_problem(self.clip)

    @cached_property
    def mirror_bones(self) -> np.ndarray:
        """(B,) each bone's left/right mirror or −1 (core.roles.mirror_bones)."""
        from animsmith.core.roles import mirror_bones

        return mirror_bones(self.asset.skeleton.names)

    @cached_property
    def start_s(self) -> float:
        """The clip's first key time (``Clip.start_s``), computed once."""
        return float(self.clip.start_s)

    @cached_property
    def loop_grid(self):
        """The grid the loop checks judge: the keys' own span (core.pose.key_span_grid),
        which is :attr:`grid` unless the keys start after 0 s."""
        start = self.start_s
        if not (start > 0.0):
            return self.grid
        return key_span_grid(self.asset.skeleton, self.clip)

    @cached_property
    def gait(self) -> GaitMetrics:
        """Stride anchor, amplitude and cycles; none of them when the key times cannot be
        sampled reliably (:func:`key_times_problem`), as the grid-based checks decide."""
        why = self.key_times_problem
        if why is not None:
            return GaitMetrics(gait_phase_unavailable=why, lr_amplitude_m_unavailable=why, cycles_unavailable=why)
        return gait_metrics(self.grid, self.roles)

    @property
    def legs(self):
        """The rig's legs (``core.legs.LegMap``), or None when they were not resolved."""
        return getattr(self.roles, "legs", None)

    def pair_gait(self, pair: int) -> GaitMetrics:
        """Stride anchor of one pair of legs; pair 0 is the clip's :attr:`gait` when the
        roles' feet are pair 0's (a biped's result is the clip's, number for number)."""
        return self.leg_gait["pairs"][pair]

    @property
    def leg_gait(self) -> Dict[str, Any]:
        """:meth:`leg_gait_with` the default contact height (0.03)."""
        return self.leg_gait_with(DEFAULT_CONTACT_HEIGHT_M)

    def leg_gait_with(self, contact_height_m: float = DEFAULT_CONTACT_HEIGHT_M) -> Dict[str, Any]:
        """{"pairs": {pair: GaitMetrics}, "legs": [(phase, why, offset, duty, why)],
        "pattern": (name, why)} for the resolved legs (``core.gait``; docs/measure.md); the
        duty factor's contact height is ``[checks.foot-slide] contact_height_m`` (cached per value)."""
        key = float(contact_height_m)
        if key not in self._legs_cache:
            self._legs_cache[key] = self._leg_gait(key)
        return self._legs_cache[key]

    def feet_stance(self, feet, positions_m, times_s, contact_height_m: float):
        """The clip's stance of ``feet`` (``core.contacts.feet_stance``), decided once for the same
        inputs: the ``foot-slide`` check and the legs' duty factors share it (read-only)."""
        from animsmith.core.contacts import feet_stance_once

        return feet_stance_once(self._stance_cache, self.clip, self.skeleton, feet, positions_m, times_s, contact_height_m)

    def _leg_gait(self, contact_height_m: float) -> Dict[str, Any]:
        from animsmith.core.gait import authored_duty_factors, duty_factors, gait_pattern, leg_offsets, leg_phases, pair_gait

        legs = self.legs
        out: Dict[str, Any] = {"pairs": {}, "legs": [], "pattern": (None, "no legs resolved")}
        if legs is None or not legs.legs:
            if legs is not None and legs.unresolved:
                out["pattern"] = (None, legs.unresolved)
            return out
        why = self.key_times_problem
        if why is not None:
            for p in legs.pairs:
                out["pairs"][p] = GaitMetrics(gait_phase_unavailable=why, lr_amplitude_m_unavailable=why, cycles_unavailable=why)
            out["legs"] = [(None, why, None, None, why) for _ in legs.legs]
            out["pattern"] = (None, why)
            return out
        for p in (pairs := legs.pairs):
            left, right = legs.pair_feet(p)
            same = (
                p == 0 and len(left) == 1 and len(right) == 1
                and self.roles.get("left_foot") == left[0].foot and self.roles.get("right_foot") == right[0].foot
                and self.roles.get("hips") == legs.body
            )
            out["pairs"][p] = self.gait if same else pair_gait(self.grid, legs, p)
        first = out["pairs"].get(0)
        harmonic = first.cycles if first is not None and first.cycles else 1
        grid = self.grid
        n = grid.frame_count
        feet = [leg.foot for leg in legs.legs]
        pos = None if n < 3 or legs.body is None else np.asarray(grid.model_positions_m([legs.body] + feet), dtype=np.float64)
        phases = leg_phases(grid, legs, harmonic, periodic=first is not None and first.gait_phase is not None, positions_m=pos)
        offsets = leg_offsets([ph for ph, _ in phases])
        if n < 3:
            duties = [(None, f"clip has {n} grid sample(s); the duty factor needs at least 3")] * len(feet)
        else:  # the stance reads the feet's own heights, from the same gather as the phases
            at = pos[:, 1:] if pos is not None else np.asarray(grid.model_positions_m(feet), dtype=np.float64)
            sampled = duty_factors(self.feet_stance(feet, at, grid.times_s, contact_height_m)[0], n)
            exact = authored_duty_factors(self.clip, self.skeleton, feet, grid.times_s[0], grid.times_s[-1])
            duties = [(d if e is None else e, None) for d, e in zip(sampled, exact)]
        out["legs"] = [(ph, pw, off, d, dw) for (ph, pw), off, (d, dw) in zip(phases, offsets, duties)]
        pattern, why = gait_pattern(offsets, len(pairs))
        if pattern is None and why == "a leg has no phase":
            bad = next(i for i, (ph, _) in enumerate(phases) if ph is None)
            why = f"leg {legs.legs[bad].name!r} has no phase ({phases[bad][1]})"
        out["pattern"] = (pattern, why)
        return out

    def legs_measurements(self, contact_height_m: float = DEFAULT_CONTACT_HEIGHT_M) -> Dict[str, Any]:
        """``pairs``, ``legs`` and ``gait_pattern`` of :meth:`measurements` (docs/measure.md)."""
        lg = self.leg_gait_with(contact_height_m)
        legs = self.legs
        pairs = []
        for p, g in lg["pairs"].items():
            d: Dict[str, Any] = {"pair": int(p)}
            put_measurement(d, "gait_phase", g.gait_phase, g.gait_phase_unavailable)
            put_measurement(d, "lr_amplitude_m", g.lr_amplitude_m, g.lr_amplitude_m_unavailable)
            put_measurement(d, "cycles", g.cycles, g.cycles_unavailable)
            pairs.append(d)
        rows = []
        for leg, (ph, pw, off, duty, dw) in zip(legs.legs if legs is not None else [], lg["legs"]):
            d = {"name": leg.name}
            put_measurement(d, "phase", ph, pw)
            put_measurement(d, "offset", off, pw if ph is None else "leg 0 has no phase")
            put_measurement(d, "duty_factor", duty, dw)
            rows.append(d)
        m: Dict[str, Any] = {"pairs": pairs, "legs": rows}
        put_measurement(m, "gait_pattern", lg["pattern"][0], lg["pattern"][1])
        return m

    @cached_property
    def travel(self) -> TravelBone:
        """The clip's travel bone and why (core.trajectory.travel_bone_of_clip)."""
        return travel_bone_of_clip(self.asset.skeleton, self.clip, self.roles)

    @cached_property
    def speed(self) -> RootSpeed:
        """Speed, heading and distance of the travel bone (core.trajectory.root_speed), its
        arc factor read from :attr:`yaw_deg` (one heading series for both)."""
        grid = self.grid
        if self.travel.bone is None or grid.frame_count < 2:
            return root_speed(grid, self.travel)
        try:
            yaw = self.yaw_deg
        except Exception:  # noqa: BLE001 - root_speed reads the yaw only when it gets that far
            return root_speed(grid, self.travel)
        return root_speed(grid, self.travel, yaw)

    @cached_property
    def heading_series(self):
        """core.trajectory.heading_series_deg of the travel bone on :attr:`grid` (computed once
        for the speed's arc factor, the net yaw and the loop checks' travelling frame)."""
        return heading_series_deg(self.grid, int(self.travel.bone))

    def _heading_on(self, grid, bone):
        """:attr:`heading_series` when ``grid`` and ``bone`` are the ones it was computed on, else None."""
        if grid is self.grid and bone is not None and bone == self.travel.bone:
            return self.heading_series
        return None

    def seam_ratio_with(
        self, min_stride_step_m: float = MIN_STRIDE_STEP_M, yaw_deg: float = 0.0
    ) -> Tuple[Optional[float], Optional[str]]:
        """(loop seam ratio, reason) with a given stride floor and the yaw the next cycle
        starts turned by (cached per pair)."""
        key = (float(min_stride_step_m), float(yaw_deg))
        if key not in self._seam_cache:
            self._seam_cache[key] = loop_seam_ratio(self.loop_grid, self.roles, key[0], yaw_deg=key[1])
        return self._seam_cache[key]

    @property
    def seam_ratio(self) -> Tuple[Optional[float], Optional[str]]:
        """(loop seam ratio, reason) with the default 0.02 m stride floor."""
        return self.seam_ratio_with(MIN_STRIDE_STEP_M)

    @cached_property
    def continuity(self) -> LoopContinuity:
        """Last pose against first pose in model space (``measure``'s loop_continuity)."""
        return loop_continuity(self.loop_grid)

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
            grid = self.loop_grid
            if bone is None:
                return loop_continuity(grid, None, open_cycle)
            cycle, why = cycle_transform(grid, bone, open_cycle, self.skeleton.parents, self._heading_on(grid, bone))
            if cycle is None:
                return LoopContinuity(unavailable=f"travel bone trajectory unusable ({why})")
            return loop_continuity(grid, cycle, open_cycle)

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
        if self.grid.frame_count < 2:
            return yaw_accumulation_deg(self.grid, self.travel.bone)
        return yaw_accumulation_deg(self.grid, self.travel.bone, self.heading_series)

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

    def measurements(self, min_stride_step_m: float = MIN_STRIDE_STEP_M, contact_height_m: float = DEFAULT_CONTACT_HEIGHT_M) -> Dict[str, Any]:
        """The per-clip measurement dict of ``measure`` (docs/measure.md).

        ``min_stride_step_m`` is the loop-seam stride floor (``[checks.loop-seam]
        min_stride_step_m`` in the contract; default 0.02 m per 1/30 s, scaled by the
        grid's step); ``contact_height_m`` the duty factor's (``[checks.foot-slide] contact_height_m``; default 0.03).
        """
        clip = self.clip
        m: Dict[str, Any] = {
            "name": clip.name,
            "index": int(clip.index),
            "duration_s": float(self.grid.duration_s or clip.duration_s) + 0.0,  # + 0.0: never -0.0
            "start_s": self.start_s + 0.0,
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
        if self.legs is not None:
            m.update(self.legs_measurements(contact_height_m))
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
        from animsmith.core.footskate import SKATE_FPS, SKATE_MAX_SAMPLES, foot_contacts, foot_skate_ratio, skate_points, skate_times_s
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
        duration = float(self.grid.duration_s or self.clip.duration_s)
        if why is None and duration * SKATE_FPS >= SKATE_MAX_SAMPLES:
            why = (f"clip lasts {duration:.6g} s, longer than {SKATE_MAX_SAMPLES / SKATE_FPS / 60:.0f} minutes at 20 fps "
                   "(are its key times in seconds?)")
        if why is None:
            times = skate_times_s(duration)
            if times.shape[0] < 2:
                why = "clip is shorter than one frame at 20 fps"
            else:  # forward kinematics of the feet's chains only
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


def analyze_asset(asset, profile: Optional[str] = "auto", overrides=None, legs=None) -> Tuple[RoleMap, List[ClipAnalysis]]:
    """Resolve roles and legs once for the asset's skeleton (``core.legs.resolve_rig``) and
    wrap every clip in a ClipAnalysis.

    A bad profile name or role override raises ``ConfigError``.
    """
    from animsmith.core.legs import resolve_rig
    from animsmith.errors import ConfigError

    try:
        roles = resolve_rig(asset, profile=profile, overrides=overrides, declared_legs=legs)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return roles, [ClipAnalysis(asset, clip, roles) for clip in asset.clips]


def prime_loop_continuity(analyses) -> None:
    """Batch the full-skeleton forward kinematics that :func:`loop_continuity` needs for several
    clips of one file (``core.pose.batch_pose_at``) and their :attr:`ClipAnalysis.continuity`
    (``core.seam.closed_loop_continuity_many``): the same numbers, one chain of per-level
    products and one pass of the seam arithmetic for all of them. A clip whose grid cannot be
    built is skipped (its own measurement says why); the poses stay primed for the loop checks."""
    from animsmith.core.pose import batch_pose_at
    from animsmith.core.seam import closed_loop_continuity_many, seam_sample_frames

    requests, owners = [], []
    for a in analyses:
        try:
            grid = a.loop_grid  # the keys' span when they start after 0 s: what the loop checks read
        except Exception:  # noqa: BLE001 - measured (and explained) clip by clip later
            continue
        if grid.frame_count >= 3:
            requests.append((grid, seam_sample_frames(grid.frame_count)))
            owners.append(a)
    if len(requests) < 2:
        return
    posed = batch_pose_at(requests)
    batched = [(a, pose) for a, pose in zip(owners, posed) if pose is not None and "continuity" not in a.__dict__]
    found = closed_loop_continuity_many(
        [(a.loop_grid.times_s, pose.model_position_m, pose.model_rotation) for a, pose in batched]
    )
    for (a, _), lc in zip(batched, found):
        if lc is not None:
            a.__dict__["continuity"] = lc  # the cached property's value, as loop_continuity(a.loop_grid) gives it
