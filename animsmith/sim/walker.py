"""The distance-driven walker: foot targets, terrain following, body attitude, leg IK.

Foot targets are a pure function of distance travelled ``d`` (never time).
For leg phase ``p`` and cycle ``C = stride / duty`` metres, the leg's place in
its cycle is ``t = frac(d / C + p)``. With ``home`` the mid-stance foot and
``dir`` the unit travel direction in the body frame:

* stance (``t < duty``, ``s = t / duty``): ``home + dir·stride·(0.5 − s)`` —
  the foot slides back exactly as fast as the body advances (over one stance
  the body covers ``duty·C = stride``), so it stands still in the world;
* swing (``s = smoothstep((t − duty)/(1 − duty))``):
  ``home + dir·stride·(s − 0.5) + up·lift·sin(π s)``.

A stopped creature (constant ``d``) stands still mid-step.

:func:`simulate` places the body along a straight path on the ground level under
it (:func:`path_level_m`: the terrain averaged over half a cycle either side), casts
every foot onto the terrain from ``ray_height`` above that level (look-ahead casts
for swinging feet), sets the body height to that level + the smoothed, clamped mean
plant delta + ``body_height`` + bob, orients the
chassis from a plane fit through the planted feet (critically damped spring)
plus :func:`~animsmith.sim.attitude.tilt_for`, rolls a biped over its stance
leg, then solves every leg (two-bone closed form or FABRIK) for all frames at
once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

from animsmith.sim import attitude as att
from animsmith.sim.creature import Creature
from animsmith.sim.ik import KNEE_POLES, fabrik, initial_chain, perpendicular_unit, two_bone
from animsmith.sim.terrain import Terrain, cast_down, look_ahead_point

UP = np.array([0.0, 1.0, 0.0])


def smoothstep(x):
    """``x²(3 − 2x)`` on [0, 1]."""
    x = np.asarray(x, dtype=np.float64)
    return x * x * (3.0 - 2.0 * x)


def leg_cycle_phase(creature: Creature, distance_m) -> np.ndarray:
    """(N, L) ``frac(d / cycle + phase)`` in [0, 1)."""
    d = np.asarray(distance_m, dtype=np.float64).reshape(-1)
    phases = np.array([leg.phase for leg in creature.legs])
    t = np.mod(d[:, None] / creature.cycle_m + phases[None, :], 1.0)
    return np.where(t >= 1.0, 0.0, t)


@dataclass
class FootTargets:
    """Body-frame targets (N, L, 3), stance mask (N, L), swing progress s (N, L; 0 in stance)."""

    position_m: np.ndarray
    stance: np.ndarray
    swing_s: np.ndarray
    cycle_phase: np.ndarray


def foot_targets(creature: Creature, distance_m, direction=(0.0, 0.0, 1.0)) -> FootTargets:
    """Body-frame foot targets as a pure function of distance (module docstring)."""
    t = leg_cycle_phase(creature, distance_m)
    duty, stride = creature.duty, creature.stride
    dirv = np.asarray(direction, dtype=np.float64)
    dirv = dirv / np.linalg.norm(dirv)
    home = np.array([leg.home for leg in creature.legs])  # (L, 3)
    stance = t < duty
    s_stance = t / duty
    s_swing = smoothstep(np.clip((t - duty) / (1.0 - duty), 0.0, 1.0))
    along = np.where(stance, 0.5 - s_stance, s_swing - 0.5) * stride
    lift = np.where(stance, 0.0, np.sin(np.pi * s_swing) * creature.lift)
    pos = home[None, :, :] + along[..., None] * dirv + lift[..., None] * UP
    return FootTargets(position_m=pos, stance=stance, swing_s=np.where(stance, 0.0, s_swing), cycle_phase=t)


def body_bob_m(creature: Creature, distance_m) -> np.ndarray:
    """``bob·cos(4π(t₀ − duty/2))`` with t₀ the first leg's cycle phase: high at mid-stance."""
    t0 = leg_cycle_phase(creature, distance_m)[:, 0]
    return creature.bob * np.cos(4.0 * np.pi * (t0 - creature.duty / 2.0))


def biped_roll_rad(creature: Creature, targets: FootTargets) -> np.ndarray:
    """Roll over the stance leg: ``−roll·(lift_R − lift_L)``, lift = sin(π s) of each swing (0 in stance)."""
    n = targets.swing_s.shape[0]
    if creature.roll_deg == 0.0:
        return np.zeros(n)
    up = np.where(targets.stance, 0.0, np.sin(np.pi * targets.swing_s))
    sides = np.array([leg.side for leg in creature.legs])
    left = up[:, sides == "L"].mean(axis=1) if np.any(sides == "L") else np.zeros(n)
    right = up[:, sides == "R"].mean(axis=1) if np.any(sides == "R") else np.zeros(n)
    return -math.radians(creature.roll_deg) * (right - left)


# --------------------------------------------------------------------------
# LOD
# --------------------------------------------------------------------------


@dataclass
class LodTiers:
    """Distance LOD: full IK within ``near_m``; snapped feet (no terrain
    smoothing, one FABRIK pass) within ``far_m``; keyframes (the flat-ground
    cycle, no casts) beyond. Distances in metres from the camera."""

    near_m: float = 24.0
    far_m: float = 60.0

    def tier(self, camera_distance_m: Optional[float]) -> int:
        if camera_distance_m is None or camera_distance_m <= self.near_m:
            return 0
        return 1 if camera_distance_m <= self.far_m else 2


# --------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------


@dataclass
class WalkOptions:
    look_ahead_s: float = att.LOOK_AHEAD_S
    ray_height_m: Optional[float] = None  # default: body_height
    ray_length_m: Optional[float] = None  # default: 2 × body_height
    plant_smoothing_s: float = att.PLANT_SMOOTHING_S
    height_rate: float = att.HEIGHT_RATE
    tilt_rate: float = att.TILT_RATE
    max_height_offset_m: Optional[float] = None  # default: 0.5 × body_height
    bank_per: float = att.TILT_BANK_PER
    pitch_per: float = att.TILT_PITCH_PER
    tilt_max_deg: float = att.TILT_MAX_DEG
    chassis_omega: float = 8.0  # rad/s, critically damped spring for the plane-fit attitude
    fabrik_tolerance_m: float = 1e-5
    fabrik_iterations: int = 32


@dataclass
class Walk:
    """Everything :func:`simulate` computed (N frames, L legs); world space, metres.

    joints_m[leg]: (N, n_segments + 1, 3) hip .. foot positions.
    """

    creature: Creature
    times_s: np.ndarray
    distance_m: np.ndarray
    body_position_m: np.ndarray
    body_rotation: np.ndarray
    foot_target_m: np.ndarray
    stance: np.ndarray
    ground_m: np.ndarray
    plant_weight: np.ndarray
    joints_m: List[np.ndarray]
    shortfall_m: np.ndarray
    travel_m: np.ndarray
    lod_tier: int = 0
    knee_axis: List[np.ndarray] = field(default_factory=list)

    @property
    def foot_m(self) -> np.ndarray:
        """(N, L, 3) solved foot positions."""
        return np.stack([j[:, -1, :] for j in self.joints_m], axis=1)

    @property
    def worst_shortfall_m(self) -> float:
        return float(np.max(self.shortfall_m)) if self.shortfall_m.size else 0.0


#: terrain samples along the path averaged into the body's ground level (:func:`path_level_m`)
LEVEL_SAMPLES = 33


def path_level_m(terrain: Terrain, travel_m: np.ndarray, direction, half_window_m: float) -> np.ndarray:
    """(N,) the ground level the body rides on: the terrain height averaged over
    ``LEVEL_SAMPLES`` points within ±``half_window_m`` (half a gait cycle) along the path
    around each travel point. A ramp averages to itself (no lag, climbing or descending), a
    riser becomes a ramp over the window (no jump), bumps shorter than a cycle are averaged
    out; points over a hole are left out, and across frames whose window holds no ground at all
    the level runs linearly from the last level before them to the first after (held at the
    start and end; 0 with no ground at all): holding it made the body jump to the far side's
    height in one frame when the ground came back."""
    d = np.asarray(direction, dtype=np.float64)
    offsets = np.linspace(-half_window_m, half_window_m, LEVEL_SAMPLES)
    pts = travel_m[:, None, :] + offsets[None, :, None] * d[None, None, :]
    h = terrain.height_m(pts[..., 0], pts[..., 2])
    ok = np.isfinite(h)
    count = ok.sum(axis=1)
    level = np.where(count > 0, np.where(ok, h, 0.0).sum(axis=1) / np.maximum(count, 1), np.nan)
    if np.isfinite(level).all():
        return level
    walked = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(travel_m, axis=0), axis=-1))])
    return _bridged(level, walked)


def _bridged(values: np.ndarray, walked: np.ndarray) -> np.ndarray:
    """NaN entries replaced by linear interpolation, by the path length ``walked``, between the
    finite neighbours around them (a creature standing still over a hole does not rise); the
    first / last finite value before / after them at the ends; 0 when none."""
    ok = np.isfinite(values)
    if not ok.any():
        return np.zeros_like(values)
    return np.interp(walked, walked[ok], values[ok])


def _exp_filter(target: np.ndarray, rate: float, dt: float) -> np.ndarray:
    """Per-frame exponential approach along axis 0, starting at target[0]:
    ``y[i] = y[i−1] + (x[i] − y[i−1])·min(dt·rate, 1)`` (a first-order IIR filter)."""
    x = np.asarray(target, dtype=np.float64)
    a = min(max(dt, 0.0) * rate, 1.0)
    if x.shape[0] == 0 or a >= 1.0:
        return x.copy()
    y = np.empty_like(x)
    cur = x[0].copy() if x.ndim > 1 else float(x[0])
    b = 1.0 - a
    for i in range(x.shape[0]):
        cur = b * cur + a * x[i]
        y[i] = cur
    return y


def _fade_weights(hit: np.ndarray, fade_s: float, dt: float) -> np.ndarray:
    """(N, L) plant weights: linear fades toward hit (1) / miss (0) over ``fade_s``."""
    if np.all(hit):
        return np.ones(hit.shape)
    w = np.empty(hit.shape)
    cur = hit[0].astype(float)
    for i in range(hit.shape[0]):
        cur = np.array([att.fade_weight(c, float(h), fade_s, dt if i else 0.0) for c, h in zip(cur, hit[i])])
        w[i] = cur
    return w


def _chassis_attitude(foot_m, stance, dt: float, omega: float):
    """(pitch_rad, roll_rad) per frame: plane fit through planted feet, spring-smoothed."""
    n = foot_m.shape[0]
    normals, have = att.plane_normals_batch(foot_m, stance.astype(float))
    targets = np.stack([np.arctan2(normals[:, 2], normals[:, 1]), -np.arcsin(np.clip(normals[:, 0], -1, 1))], axis=1)
    if not np.any(have):
        return np.zeros(n), np.zeros(n)
    # hold the last fitted attitude where no plane could be fitted
    idx = np.where(have, np.arange(n), 0)
    np.maximum.accumulate(idx, out=idx)
    first = int(np.argmax(have))
    idx[:first] = first
    targets = targets[idx]
    x = targets[0].copy()
    v = np.zeros(2)
    out = np.empty((n, 2))
    for i in range(n):
        if i:
            x, v = att.critical_spring_step(x, v, targets[i], omega, dt)
        out[i] = x
    return out[:, 0], out[:, 1]


def segment_frames(joints: np.ndarray, knee_axis: np.ndarray) -> np.ndarray:
    """(N, n, 3, 3) world rotation of each segment: local −Y along the segment, local X = knee axis."""
    seg = joints[:, 1:, :] - joints[:, :-1, :]
    y = -seg / np.linalg.norm(seg, axis=-1, keepdims=True)
    x = np.broadcast_to(knee_axis[:, None, :], y.shape)
    x = x - np.einsum("...i,...i->...", x, y)[..., None] * y
    x = x / np.linalg.norm(x, axis=-1, keepdims=True)
    z = np.cross(x, y)
    return np.stack([x, y, z], axis=-1)


def solve_legs(creature: Creature, body_pos, rot, target_w, *, fabrik_iterations: int = 32, tolerance_m: float = 1e-5):
    """Solve every leg for every frame: (joints per leg (N, n+1, 3), knee axes per leg (N, 3), shortfall (N, L)).

    Hips ride the body: ``hip = body_pos + R·(hip − (0, body_height, 0))``; the
    pole is the knee kind's direction rotated with the body.
    """
    c = creature
    body_pos = np.asarray(body_pos, dtype=np.float64)
    n = body_pos.shape[0]
    joints: List[Optional[np.ndarray]] = [None] * len(c.legs)
    axes: List[Optional[np.ndarray]] = [None] * len(c.legs)
    shortfall = np.zeros((n, len(c.legs)))
    hips, poles = {}, {}
    for li, leg in enumerate(c.legs):
        hips[li] = body_pos + np.einsum("nij,j->ni", rot, np.asarray(leg.hip) - np.array([0.0, c.body_height, 0.0]))
        poles[li] = np.einsum("nij,j->ni", rot, np.asarray(KNEE_POLES[leg.knee]))
        if leg.two_bone:
            sol = two_bone(hips[li], target_w[:, li, :], leg.segments[0], leg.segments[1], poles[li])
            joints[li] = np.stack([hips[li], sol.knee_m, sol.foot_m], axis=1)
            shortfall[:, li] = np.maximum(0.0, np.abs(sol.shortfall_m) - 1e-4)
    # FABRIK legs: one batched solve per segment count, over every leg and frame at once
    groups: dict = {}
    for li, leg in enumerate(c.legs):
        if not leg.two_bone:
            groups.setdefault(len(leg.segments), []).append(li)
    for _, ids in groups.items():
        hip = np.concatenate([hips[li] for li in ids])
        tgt = np.concatenate([target_w[:, li, :] for li in ids])
        pole = np.concatenate([poles[li] for li in ids])
        lengths = np.concatenate([np.broadcast_to(np.asarray(c.legs[li].segments), (n, len(c.legs[li].segments))) for li in ids])
        start = initial_chain(hip, tgt, lengths, pole)
        fs = fabrik(start, lengths, tgt, tolerance_m=tolerance_m, max_iterations=fabrik_iterations)
        for k, li in enumerate(ids):
            joints[li] = fs.points_m[k * n:(k + 1) * n]
            shortfall[:, li] = fs.residual_m[k * n:(k + 1) * n]
    for li, leg in enumerate(c.legs):
        u = joints[li][:, -1, :] - hips[li] if leg.two_bone else target_w[:, li, :] - hips[li]
        u = u / np.maximum(np.linalg.norm(u, axis=-1, keepdims=True), 1e-12)
        # the IK's own rule, fallback included: a pole along hip->foot left a zero axis (a NaN
        # segment frame, baked as the identity rotation: the leg hung straight down)
        axes[li] = np.cross(perpendicular_unit(u, poles[li]), u)
    return joints, axes, shortfall


def standing_pose(creature: Creature):
    """Joints and knee axes (one frame) with every foot at its home and the body level at body_height."""
    c = creature
    body = np.array([[0.0, c.body_height, 0.0]])
    home = np.array([[leg.home for leg in c.legs]])
    joints, axes, _ = solve_legs(c, body, np.eye(3)[None], home)
    return joints, axes


def simulate(
    creature: Creature,
    times_s,
    *,
    speed_mps: Optional[float] = None,
    terrain: Optional[Terrain] = None,
    direction=(0.0, 0.0, 1.0),
    start_distance_m: float = 0.0,
    options: Optional[WalkOptions] = None,
    camera_distance_m: Optional[float] = None,
    lod: Optional[LodTiers] = None,
    distance_m=None,
) -> Walk:
    """Walk ``creature`` straight along ``direction`` (body frame = world axes) for ``times_s``.

    Distance ``d = start_distance + speed·t``; the body faces +Z whatever the
    travel direction (sideways / backward walking). ``camera_distance_m`` with
    ``lod`` picks a :class:`LodTiers` tier for the whole batch.
    """
    opts = options or WalkOptions()
    c = creature
    t = np.asarray(times_s, dtype=np.float64).reshape(-1)
    n, legs = t.shape[0], len(c.legs)
    speed = c.clip_speed if speed_mps is None else float(speed_mps)
    tier = (lod or LodTiers()).tier(camera_distance_m)
    dirv = np.asarray(direction, dtype=np.float64)
    dirv = dirv / np.linalg.norm(dirv)
    distance, start_distance_m = _walk_distance(t, speed, start_distance_m, distance_m)
    if tier == 2:
        return _keyframed(c, t, distance, start_distance_m, dirv, opts, terrain)
    if terrain is None:
        terrain = Terrain("flat", c.body_height)
    dt = float(np.median(np.diff(t))) if n > 1 else 0.0
    travel = (distance - start_distance_m)[:, None] * dirv[None, :]  # (N, 3) world travel
    velocity = speed * dirv
    if distance_m is not None and n > 1:
        velocity = np.gradient(distance, t)[:, None, None] * dirv  # per-frame look-ahead lead

    ft = foot_targets(c, distance, dirv)
    tb = ft.position_m  # body frame, y = lift above the ground
    ray_h = c.body_height if opts.ray_height_m is None else opts.ray_height_m
    ray_l = 2.0 * c.body_height if opts.ray_length_m is None else opts.ray_length_m

    # --- ground under every foot -------------------------------------------------
    foot_xz = travel[:, None, :] + tb * np.array([1.0, 0.0, 1.0])  # world x/z, y = 0
    flat_ground = terrain.kind == "flat" and not terrain.holes
    if flat_ground:
        ground = np.zeros((n, legs))
        hit = np.ones((n, legs), dtype=bool)
    else:
        # stance: cast straight down at the (stationary) foot; swing: interpolate between
        # the lift-off and landing plants (never below the ground under the foot) and
        # rise over anything the look-ahead cast finds
        tphase = ft.cycle_phase
        d_lift = distance[:, None] - (tphase - c.duty) * c.cycle_m
        d_land = d_lift + (1.0 - c.duty) * c.cycle_m
        home = np.array([leg.home for leg in c.legs])
        half = 0.5 * c.stride * dirv
        p_lift = (d_lift - start_distance_m)[..., None] * dirv + home - half
        p_land = (d_land - start_distance_m)[..., None] * dirv + home + half
        # every cast starts ray_height above the ground level under the body (where a foot
        # stands on level ground), not above world y = 0: a long climb stays within reach
        level = path_level_m(terrain, travel, dirv, 0.5 * c.cycle_m)
        lift_up = level[:, None, None] * UP
        cast_at = foot_xz + lift_up
        g_here = cast_down(terrain, cast_at, ray_h, ray_l)
        g_lift = cast_down(terrain, p_lift * [1, 0, 1] + lift_up, ray_h, ray_l)
        g_land = cast_down(terrain, p_land * [1, 0, 1] + lift_up, ray_h, ray_l)
        ahead = look_ahead_point(cast_at, velocity, opts.look_ahead_s)
        g_ahead = cast_down(terrain, ahead, ray_h, ray_l)
        s = ft.swing_s
        # never below the ground under the swinging foot itself (a riser mid-swing)
        base = np.fmax(g_lift + (g_land - g_lift) * s, np.where(ft.stance, np.nan, g_here))
        rise = np.where(np.isfinite(g_ahead), np.maximum(0.0, g_ahead - base), 0.0) * np.sin(np.pi * s)
        swing_ground = base + rise
        ground = np.where(ft.stance, g_here, swing_ground)
        hit = np.isfinite(ground)
        ground = np.where(hit, ground, 0.0)
    weight = _fade_weights(hit, opts.plant_smoothing_s, dt)

    # --- body height: smoothed mean plant delta + body height + bob --------------
    max_off = 0.5 * c.body_height if opts.max_height_offset_m is None else opts.max_height_offset_m
    if flat_ground:
        offset = np.zeros(n)
    else:
        # the reference controller's plant deltas are relative to where the root already is: here the ground
        # level under the body; their mean (0 with no hit) is clamped to ±max_off around it
        counts = hit.sum(axis=1)
        deltas = np.where(hit, ground - level[:, None], 0.0)
        mean = np.where(counts > 0, deltas.sum(axis=1) / np.maximum(counts, 1), 0.0)
        # the level is the root's, as a character controller keeps it (no lag on a
        # ramp, up or down); only the reference controller's height offset is smoothed
        delta = np.clip(mean, -max_off, max_off)  # height_offset() of each frame's planted deltas
        offset = level + (delta if tier == 1 else _exp_filter(delta, opts.height_rate, dt))
    body_y = c.body_height + offset + body_bob_m(c, distance)
    body_pos = travel + body_y[:, None] * UP

    # --- feet: planted targets on the ground, airborne -> animated pose ----------
    conformed = foot_xz + (ground + tb[..., 1])[..., None] * UP
    animated = foot_xz + (offset[:, None] + tb[..., 1])[..., None] * UP
    target_w = animated + weight[..., None] * (conformed - animated)

    # --- chassis attitude -------------------------------------------------------
    pitch = np.zeros(n)
    roll = biped_roll_rad(c, ft)
    if legs >= 3 and not flat_ground and tier == 0:
        p_fit, r_fit = _chassis_attitude(target_w, ft.stance & hit, dt, opts.chassis_omega)
        pitch = pitch + p_fit
        roll = roll + r_fit
    # acceleration tilt (zero for a straight walk at constant speed), smoothed at tilt_rate
    vel = np.gradient(travel, t, axis=0, edge_order=2 if n > 2 else 1) if n > 1 else np.zeros((n, 3))
    tilt = np.zeros((n, 2))
    if n > 1:
        tilt[1:] = att.tilt_for_batch(vel[1:], vel[:-1], (0.0, 0.0, 1.0), np.diff(t), opts.bank_per, opts.pitch_per, opts.tilt_max_deg)
    if np.max(np.abs(tilt)) > 1e-9:  # float noise of a constant velocity is not a tilt
        tilt = _exp_filter(tilt, opts.tilt_rate, dt)
        # +Z forward: Rx(+a) dips the nose, so the reference controller's pitch (negative when
        # speeding up, "lean into it") enters with its sign flipped; Rz(+bank)
        # leans the top toward −X = right, into a rightward acceleration.
        pitch = pitch - np.radians(tilt[:, 1])
        roll = roll + np.radians(tilt[:, 0])
    rot = att.rotation_xz(pitch, roll)  # (N, 3, 3)

    # --- legs ---------------------------------------------------------------------
    iters = 1 if tier == 1 else opts.fabrik_iterations
    joints, axes, shortfall = solve_legs(c, body_pos, rot, target_w, fabrik_iterations=iters, tolerance_m=opts.fabrik_tolerance_m)

    return Walk(
        creature=c,
        times_s=t,
        distance_m=distance,
        body_position_m=body_pos,
        body_rotation=rot,
        foot_target_m=target_w,
        stance=ft.stance,
        ground_m=ground,
        plant_weight=weight,
        joints_m=joints,
        shortfall_m=shortfall,
        travel_m=travel,
        lod_tier=tier,
        knee_axis=axes,
    )


KEYFRAMES_PER_CYCLE = 48


def _walk_distance(t: np.ndarray, speed: float, start_distance_m: float, distance_m=None):
    """(distance walked at each time, the start distance): ``start + speed·t``, or the given
    ``distance_m`` profile (one value per time) starting at its first value."""
    if distance_m is None:
        distance = start_distance_m + speed * t
    else:
        distance = np.asarray(distance_m, dtype=np.float64).reshape(-1)
        if distance.shape != t.shape:
            raise ValueError(f"distance_m has {distance.shape[0]} samples, times_s has {t.shape[0]}")
        start_distance_m = float(distance[0]) if t.shape[0] else 0.0
    if not np.all(np.isfinite(distance)):
        raise ValueError("the distance walked must be finite (speed_mps, start_distance_m, distance_m)")
    return distance, start_distance_m


def _keyframed(c: Creature, t: np.ndarray, distance: np.ndarray, start_distance_m: float, dirv: np.ndarray,
               opts: WalkOptions, terrain: Optional[Terrain] = None) -> Walk:
    """LOD tier 2: one flat-ground cycle solved at ``KEYFRAMES_PER_CYCLE`` keys, replayed by
    distance (linear blend between keys) plus the travel, lifted to the ground level under the
    path (:func:`path_level_m`) on uneven terrain; no casts, no IK. The keys are solved at the
    creature's own speed (a pose depends on the distance walked only), so a stopped or backward
    walk, or any ``distance_m`` profile, replays the right phase."""
    k = KEYFRAMES_PER_CYCLE
    key_d = np.arange(k + 1) / k * c.cycle_m
    key = simulate(c, key_d / c.clip_speed, speed_mps=c.clip_speed, direction=dirv, options=opts)
    u = np.mod(distance / c.cycle_m, 1.0) * k
    i0 = np.minimum(np.floor(u).astype(np.int64), k - 1)
    f = (u - i0)[:, None]

    def lerp(a):
        a = np.asarray(a)
        fb = f.reshape(f.shape[:1] + (1,) * (a.ndim - 1))
        return a[i0] * (1.0 - fb) + a[i0 + 1] * fb

    travel = (distance - start_distance_m)[:, None] * dirv[None, :]
    shift = travel - lerp(key.travel_m)
    if terrain is not None and (terrain.kind != "flat" or terrain.holes):
        shift = shift + path_level_m(terrain, travel, dirv, 0.5 * c.cycle_m)[:, None] * UP
    joints = [lerp(j) + shift[:, None, :] for j in key.joints_m]
    return Walk(
        creature=c,
        times_s=t,
        distance_m=distance,
        body_position_m=lerp(key.body_position_m) + shift,
        body_rotation=lerp(key.body_rotation),
        foot_target_m=lerp(key.foot_target_m) + shift[:, None, :],
        stance=key.stance[i0],
        ground_m=np.zeros((t.shape[0], len(c.legs))),
        plant_weight=np.ones((t.shape[0], len(c.legs))),
        joints_m=joints,
        shortfall_m=key.shortfall_m[i0],
        travel_m=travel,
        lod_tier=2,
        knee_axis=[lerp(a) for a in key.knee_axis],
    )


def segment_rotations(walk: Walk, leg_index: int) -> np.ndarray:
    """(N, n, 3, 3) world rotations of one leg's segments (see :func:`segment_frames`)."""
    return segment_frames(walk.joints_m[leg_index], walk.knee_axis[leg_index])


def loop_seam_phase(creature: Creature, candidates: int = 720) -> float:
    """Cycle fraction where a baked loop should start (and wrap).

    Among ``candidates`` evenly spaced start fractions u, the one with the
    fewest legs in swing, then the farthest (circular) from any leg's plant
    or lift; ties -> the smallest u. A wrap inside a constant-velocity stance
    keeps the seam's velocity continuous.
    """
    u = np.arange(candidates) / candidates
    phases = np.array([leg.phase for leg in creature.legs])
    t = np.mod(u[:, None] + phases[None, :], 1.0)
    swinging = (t >= creature.duty).sum(axis=1)
    edges = np.concatenate([np.mod(-phases, 1.0), np.mod(creature.duty - phases, 1.0)])
    d = np.abs(u[:, None] - edges[None, :])
    gap = np.minimum(d, 1.0 - d).min(axis=1)
    order = np.lexsort((-gap, swinging))
    return float(u[order[0]])


def contact_events(creature: Creature, start_distance_m: float, end_distance_m: float, speed_mps: float, time_offset_s: float = 0.0) -> List[dict]:
    """Analytic plant/lift events in [start, end] distance, sorted by time.

    Leg ``p`` plants at ``d = (k − p)·C`` and lifts at ``d = (k − p + duty)·C``;
    ``time_s = (d − start)/speed``. A leg with no event in the range that is in
    stance all through it (a bake shorter than its swing) gets one ``plant``
    at the start, so the markers say it is planted rather than leaving it out.
    """
    out = []
    cyc = creature.cycle_m
    mid_cycles = 0.5 * (start_distance_m + end_distance_m) / cyc
    for leg in creature.legs:
        before = len(out)
        for kind, off in (("plant", 0.0), ("lift", creature.duty)):
            k0 = math.floor(start_distance_m / cyc + leg.phase - off) - 1
            k1 = math.ceil(end_distance_m / cyc + leg.phase - off) + 1
            for k in range(k0, k1 + 1):
                d = (k - leg.phase + off) * cyc
                if start_distance_m - 1e-12 <= d <= end_distance_m + 1e-12:
                    out.append({"leg": leg.name, "kind": kind, "time_s": round(time_offset_s + (d - start_distance_m) / speed_mps, 6)})
        # no edge in the range: the leg's state is the same throughout, so its mid-range phase decides
        if len(out) == before and (mid_cycles + leg.phase) % 1.0 < creature.duty:
            out.append({"leg": leg.name, "kind": "plant", "time_s": round(time_offset_s, 6)})
    out.sort(key=lambda e: (e["time_s"], e["leg"], e["kind"]))
    return out
