"""Bake a simulated walk into an :class:`~animsmith.model.Asset` (and GLB bytes).

Skeleton (parents first): the body root (``Hips`` for ``naming = "mixamo"``,
else ``body``) at the body's hip height; per leg one bone per segment
(``<leg>_upper``/``<leg>_lower`` for two-bone legs, ``<leg>_seg<i>`` for
longer ones; mixamo bipeds ``LeftUpLeg``/``LeftLeg``) and a ``<leg>_foot``
end bone. Rest pose: every leg hangs straight down (segment offsets
``(0, −L, 0)``), so a segment's animated rotation maps local −Y onto the
solved segment and local +X onto the knee axis.

Channels (LINEAR, one key per sample): root translation (world path for
``root_motion``; with the travel removed for in-place), root rotation when the
body tilts or rolls, and one rotation per segment. A channel that never changes
(every key within ``STILL_TOLERANCE`` = 1e-6 of its first, component-wise: float
noise) is not written when its value is the rest pose's and is written as one key
otherwise (a constant 8° pitch on a slope: the pose, without a multi-key constant
track). Quaternions are kept on one hemisphere along time.

The leg map goes into the file's ``asset.extras`` (:func:`leg_map`: ``animsmith_legs``,
each leg's name, side, pair from the rear and foot bone), so ``measure`` and ``lint``
find every leg with no config.

Contact markers go into the animation's ``extras`` (docs/sim.md):
``{"animsmith_contacts": {"version": 1, "feet": {leg: foot bone}, "events":
[{"leg", "kind": "plant"|"lift", "time_s"}, ...]}}``; the core reads them back
(``animsmith.core.contacts.authored_contacts``; :func:`read_contact_markers`
and :func:`contact_stance_mask` here are thin wrappers over it).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from animsmith.core.contacts import CONTACTS_KEY, CONTACTS_VERSION  # the core owns the marker format
from animsmith.errors import AnimsmithError
from animsmith.model import Asset, Channel, Clip, Skeleton
from animsmith.sim.creature import Creature, creature_errors
from animsmith.sim.terrain import Terrain
from animsmith.sim.walker import Walk, WalkOptions, contact_events, loop_seam_phase, segment_rotations, simulate


def bone_names(creature: Creature) -> Tuple[str, List[List[str]], List[str]]:
    """(root name, per-leg segment bone names, per-leg foot bone names)."""
    if creature.naming == "mixamo":
        root = "Hips"
        segs, feet = [], []
        for leg in creature.legs:
            side = "Left" if leg.side == "L" else "Right"
            names = [f"{side}UpLeg", f"{side}Leg"] + [f"{side}Leg{i}" for i in range(2, len(leg.segments))]
            segs.append(names)
            feet.append(f"{side}Foot")
        return root, segs, feet
    segs = []
    for leg in creature.legs:
        if leg.two_bone:
            segs.append([f"{leg.name}_upper", f"{leg.name}_lower"])
        else:
            segs.append([f"{leg.name}_seg{i}" for i in range(len(leg.segments))])
    return "body", segs, [f"{leg.name}_foot" for leg in creature.legs]


def leg_map(creature: Creature) -> Optional[dict]:
    """The leg map the bake writes into the file's ``asset.extras`` (``animsmith_legs``,
    read first by ``core.legs``): per leg its name, side, pair and foot bone; pairs by the
    legs' ``home`` Z from the rear, the i-th left leg with the i-th right one. None when
    the legs do not pair up (a centre leg, unequal sides, two legs of a side at one Z):
    the linter then looks for the legs by shape."""
    from animsmith.core.legs import LEGS_KEY, LEGS_VERSION

    root, _, feet = bone_names(creature)
    sides = {s: sorted((i for i, leg in enumerate(creature.legs) if leg.side == s), key=lambda i: creature.legs[i].home[2]) for s in ("L", "R")}
    if any(leg.side not in ("L", "R") for leg in creature.legs) or len(sides["L"]) != len(sides["R"]):
        return None
    for ids in sides.values():
        if any(creature.legs[a].home[2] == creature.legs[b].home[2] for a, b in zip(ids, ids[1:])):
            return None
    legs = []
    for pair, (li, ri) in enumerate(zip(sides["L"], sides["R"])):
        for side, i in (("left", li), ("right", ri)):
            legs.append({"name": creature.legs[i].name, "side": side, "pair": pair, "foot": feet[i]})
    return {LEGS_KEY: {"version": LEGS_VERSION, "body": root, "legs": legs}}


@dataclass
class CreatureRig:
    skeleton: Skeleton
    root: int
    segment_bones: List[List[int]]
    foot_bones: List[int]


def creature_skeleton(creature: Creature) -> CreatureRig:
    """The rest skeleton of ``creature`` (module docstring)."""
    root_name, seg_names, foot_names = bone_names(creature)
    names = [root_name]
    parents = [-1]
    rest = [[0.0, creature.body_height, 0.0]]
    seg_bones: List[List[int]] = []
    feet: List[int] = []
    for li, leg in enumerate(creature.legs):
        ids = []
        for si, length_prev in enumerate((None,) + tuple(leg.segments[:-1])):
            ids.append(len(names))
            names.append(seg_names[li][si])
            parents.append(0 if si == 0 else ids[-2])
            if si == 0:
                rest.append([leg.hip[0], leg.hip[1] - creature.body_height, leg.hip[2]])
            else:
                rest.append([0.0, -float(length_prev), 0.0])
        feet.append(len(names))
        names.append(foot_names[li])
        parents.append(ids[-1])
        rest.append([0.0, -float(leg.segments[-1]), 0.0])
        seg_bones.append(ids)
    rot = _standing_local_rotations(creature, len(names), seg_bones)
    sk = Skeleton.build(names, parents, rest, rot)
    return CreatureRig(skeleton=sk, root=0, segment_bones=seg_bones, foot_bones=feet)


def _standing_local_rotations(creature: Creature, bone_count: int, seg_bones: List[List[int]]) -> np.ndarray:
    """(B, 4) rest rotations: the standing pose (feet at home), so clips start near the bind pose."""
    from animsmith.core import quat

    from animsmith.sim.walker import segment_frames, standing_pose

    rot = np.tile([0.0, 0.0, 0.0, 1.0], (bone_count, 1))
    joints, axes = standing_pose(creature)
    for li, ids in enumerate(seg_bones):
        world = segment_frames(joints[li], axes[li])[0]  # (n, 3, 3)
        parent = np.eye(3)
        for si, bone in enumerate(ids):
            rot[bone] = quat.from_matrix(parent.T @ world[si])
            parent = world[si]
    return rot


#: a channel whose keys all stay within this of its first (per component; metres or
#: quaternion components) does not move: the float noise of a constant pose
STILL_TOLERANCE = 1e-6


def _still_channel(bone: int, path: str, times: np.ndarray, values: np.ndarray, rest) -> Optional[Channel]:
    """A channel for ``values`` (N, C): all N keys when they move (beyond ``STILL_TOLERANCE``);
    else one key when the value is not the rest value (rotations sign-invariantly); else None."""
    v = np.asarray(values, dtype=np.float32)
    if v.shape[0] and np.any(np.abs(v.astype(np.float64) - v[0:1]) > STILL_TOLERANCE):
        return Channel.make(bone, path, times, v)
    r = np.asarray(rest, dtype=np.float64)
    off = float(np.max(np.abs(v[0].astype(np.float64) - r))) if v.shape[0] else 0.0
    if path == "rotation" and v.shape[0]:  # q and −q are one rotation: the whole vector, one sign
        off = min(off, float(np.max(np.abs(v[0].astype(np.float64) + r))))
    if not v.shape[0] or off <= STILL_TOLERANCE:
        return None
    return Channel.make(bone, path, times[:1], v[:1])


def walk_clip(walk: Walk, rig: CreatureRig, name: str, *, root_motion: bool, extras=None) -> Clip:
    """One LINEAR clip from a :class:`Walk` (module docstring)."""
    from animsmith.core import quat

    times = walk.times_s - walk.times_s[0]
    sk = rig.skeleton
    root_t = walk.body_position_m if root_motion else walk.body_position_m - walk.travel_m
    body_q = quat.continuous(quat.from_matrix(walk.body_rotation))
    wanted = [(rig.root, "translation", root_t, sk.rest_translation[rig.root]), (rig.root, "rotation", body_q, sk.rest_rotation[rig.root])]
    for li in range(len(walk.creature.legs)):
        world = segment_rotations(walk, li)  # (N, n, 3, 3)
        parent = walk.body_rotation
        for si, bone in enumerate(rig.segment_bones[li]):
            local = np.einsum("nji,njk->nik", parent, world[:, si])
            wanted.append((bone, "rotation", quat.continuous(quat.from_matrix(local)), sk.rest_rotation[bone]))
            parent = world[:, si]
    channels = [ch for ch in (_still_channel(b, path, times, v, rest) for b, path, v, rest in wanted) if ch is not None]
    return Clip(name=name, channels=channels, extras=extras)


@dataclass
class Baked:
    asset: Asset
    walk: Walk
    rig: CreatureRig
    events: List[dict]
    terrain: str
    speed_mps: float
    root_motion: bool

    @property
    def clip(self) -> Clip:
        return self.asset.clips[0]

    @property
    def key_times_s(self) -> np.ndarray:
        """The clip's key times exactly as stored (float32 -> float64)."""
        chans = self.clip.channels
        return max(chans, key=lambda ch: ch.times.shape[0]).times.astype(np.float64) if chans else self.walk.times_s


#: bake limits (docs/sim.md, "Limits and errors")
MAX_KEYS = 1_000_000  # keys per channel
MAX_BONE_KEYS = 10_000_000  # keys per channel × bones: bounds the walk's time and memory (≈ 3 GB)
MAX_CYCLES = 1000.0
#: the core ignores a marker block with more events (core.contacts), so a bake never writes one
MAX_EVENTS = 100_000


class BakeRequestError(AnimsmithError):
    """Speed / cycles / rate that give no usable clip; ``params`` names the flags at fault."""

    def __init__(self, reason: str, params: str):
        super().__init__(reason)
        self.params = params


@dataclass(frozen=True)
class BakePlan:
    speed_mps: float
    cycles: float
    duration_s: float
    intervals: int
    times_s: np.ndarray  # the key times as stored (float32 values, float64 array)


def bake_plan(creature: Creature, speed_mps: Optional[float] = None, cycles: float = 1.0, fps: Optional[float] = 30.0, samples_per_cycle: Optional[int] = None) -> BakePlan:
    """Check a bake request against the limits and compute its key times.

    ``duration = cycles·cycle_m / speed``; intervals = ``samples_per_cycle·cycles``
    when given, else ``duration·fps``, rounded, at least 2. Raises
    :class:`BakeRequestError` for a speed outside [MIN_SPEED_MPS,
    MAX_SPEED_MPS], cycles outside (0, MAX_CYCLES], a rate that is not a
    finite number > 0, a clip of fewer than 2 keys at the requested rate
    (intervals rounding to 0), more than MAX_KEYS keys per channel or
    MAX_BONE_KEYS keys × bones, more than MAX_EVENTS contact events, or key
    times that collide once stored as float32.
    """
    from animsmith.sim.creature import MAX_SPEED_MPS, MIN_SPEED_MPS

    speed = creature.clip_speed if speed_mps is None else speed_mps
    if not _real(speed) or not MIN_SPEED_MPS <= float(speed) <= MAX_SPEED_MPS:
        raise BakeRequestError(f"speed {_bound_g(speed)} m/s out of range (needs >= {MIN_SPEED_MPS:g} and <= {MAX_SPEED_MPS:g})", "--speed")
    speed = float(speed)
    if not _real(cycles) or not 0.0 < float(cycles) <= MAX_CYCLES:
        raise BakeRequestError(f"cycles {_bound_g(cycles)} out of range (needs > 0 and <= {MAX_CYCLES:g})", "--cycles")
    cycles = float(cycles)
    duration = cycles * creature.cycle_m / speed
    if samples_per_cycle:
        if not isinstance(samples_per_cycle, numbers.Integral) or isinstance(samples_per_cycle, bool) or samples_per_cycle < 1:
            raise BakeRequestError(f"samples per cycle {_g(samples_per_cycle)} (needs a whole number >= 1)", "samples_per_cycle")
        raw, params = samples_per_cycle * cycles, "--cycles"
    else:
        rate = 30.0 if fps is None else fps
        if not _real(rate) or not (math.isfinite(rate) and rate > 0):
            raise BakeRequestError(f"key rate {_g(rate)} (needs a finite number > 0)", "--fps")
        raw, params = duration * float(rate), "--cycles/--speed/--fps"
    if not math.isfinite(duration) or not math.isfinite(raw) or raw > MAX_KEYS:
        raise BakeRequestError(f"{_g(raw)} keys per channel is over the {MAX_KEYS:,} limit", params)
    if round(raw) < 1:
        raise BakeRequestError(f"the clip would last {duration:g} s: fewer than 2 keys at this rate", params)
    intervals = max(2, int(round(raw)))
    bones = 1 + sum(len(leg.segments) + 1 for leg in creature.legs)
    if (intervals + 1) * bones > MAX_BONE_KEYS:
        raise BakeRequestError(f"{intervals + 1:,} keys × {bones} bones is over the {MAX_BONE_KEYS:,} limit", params)
    events = 2 * len(creature.legs) * (math.ceil(cycles) + 2)
    if events > MAX_EVENTS:
        raise BakeRequestError(f"about {events:,} contact events is over the {MAX_EVENTS:,} limit", "--cycles")
    times = np.linspace(0.0, duration, intervals + 1).astype(np.float32).astype(np.float64)
    if not (np.all(np.isfinite(times)) and np.all(np.diff(times) > 0)):
        raise BakeRequestError(f"{intervals + 1:,} keys over {duration:g} s collide at float32 precision", params)
    return BakePlan(speed_mps=speed, cycles=cycles, duration_s=duration, intervals=intervals, times_s=times)


def _real(v) -> bool:
    """A real number (numpy scalars included), not a bool."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _bound_g(v) -> str:
    """A value checked against a bound: ``:g``, exact when ``:g`` would round it onto the bound."""
    from animsmith.sim.creature import number_text

    try:
        return number_text(float(v))
    except (TypeError, ValueError, OverflowError):
        return _g(v)


def _g(v) -> str:
    """A number for a message: ``:g`` (never hundreds of digits)."""
    try:
        return f"{float(v):g}"
    except (TypeError, ValueError, OverflowError):
        return type(v).__name__


def _all_finite(a) -> bool:
    """Every value finite once stored as float32 (what the GLB holds)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.all(np.isfinite(np.asarray(a, dtype=np.float32))))


def check_finite(asset: Asset, events: List[dict]) -> None:
    """AnimsmithError unless every key, rest value and event time of a bake is finite in float32."""
    sk = asset.skeleton
    if not (_all_finite(sk.rest_translation) and _all_finite(sk.rest_rotation)):
        raise AnimsmithError("the baked rest pose is not finite; check the creature's numbers")
    for clip in asset.clips:
        for ch in clip.channels:
            if not (_all_finite(ch.times) and _all_finite(ch.values)):
                raise AnimsmithError(f"the baked {ch.path} keys of bone '{sk.names[ch.bone]}' are not finite; check the creature's numbers")
            if not np.all(np.diff(ch.times) > 0):
                raise AnimsmithError("the baked key times are not increasing")
        if not any(ch.times.shape[0] >= 2 for ch in clip.channels):  # one key each: float32 collapsed the times
            raise AnimsmithError("the baked key times are not increasing")
    if not all(math.isfinite(e["time_s"]) for e in events):
        raise AnimsmithError("a baked contact event time is not finite")


def bake(
    creature: Creature,
    *,
    terrain: str = "flat",
    speed_mps: Optional[float] = None,
    cycles: float = 1.0,
    fps: Optional[float] = 30.0,
    samples_per_cycle: Optional[int] = None,
    root_motion: bool = False,
    options: Optional[WalkOptions] = None,
    clip_name: Optional[str] = None,
    camera_distance_m: Optional[float] = None,
    start_cycles: Optional[float] = None,
    direction=(0.0, 0.0, 1.0),
) -> Baked:
    """Simulate and bake ``creature`` walking straight along ``direction`` (default ahead, +Z;
    the body faces +Z whatever the direction: sideways or backward walking) into an Asset.

    The clip starts ``start_cycles`` into the gait (default
    :func:`~animsmith.sim.walker.loop_seam_phase`: a wrap inside stance).
    The request is checked by :func:`bake_plan` and the result by
    :func:`check_finite`; any failure is an AnimsmithError naming the
    creature's file (its name when it has none).
    """
    with creature_errors(creature, "bake"):
        plan = bake_plan(creature, speed_mps, cycles, fps, samples_per_cycle)
        speed = plan.speed_mps
        times = plan.times_s
        start = loop_seam_phase(creature) * creature.cycle_m if start_cycles is None else float(start_cycles) * creature.cycle_m
        walk = simulate(
            creature,
            times,
            start_distance_m=start,
            speed_mps=speed,
            terrain=Terrain(terrain, creature.body_height),
            direction=direction,
            options=options,
            camera_distance_m=camera_distance_m,
        )
        rig = creature_skeleton(creature)
        events = contact_events(creature, float(walk.distance_m[0]), float(walk.distance_m[-1]), speed)
        _, _, foot_names = bone_names(creature)
        extras = {
            CONTACTS_KEY: {
                "version": CONTACTS_VERSION,
                "feet": {leg.name: foot_names[i] for i, leg in enumerate(creature.legs)},
                "events": events,
            },
            "animsmith_sim": {
                "creature": creature.name,
                "terrain": terrain,
                "speed_mps": speed,
                "cycles": cycles,
                "start_cycles": round(start / creature.cycle_m, 6),
                "mode": "root-motion" if root_motion else "in-place",
            },
        }
        name = clip_name or ("walk" if terrain == "flat" else f"walk_{terrain}")
        clip = walk_clip(walk, rig, name, root_motion=root_motion, extras=extras)
        asset = Asset(skeleton=rig.skeleton, clips=[clip], extras=leg_map(creature))
        check_finite(asset, events)
    return Baked(asset=asset, walk=walk, rig=rig, events=events, terrain=terrain, speed_mps=speed, root_motion=root_motion)


def read_contact_markers(clip: Clip) -> Optional[Dict[str, List[Tuple[float, float]]]]:
    """Authored contacts from ``clip.extras``: {foot bone name: [(plant_s, lift_s), ...]} or None.

    A thin wrapper over the core reader
    (:func:`animsmith.core.contacts.authored_contacts`, the one
    implementation the linter uses too): a leg already planted at the clip
    start plants at 0; one still planted at the end lifts at the clip's
    duration. Absent, unknown-version or malformed markers -> None (the
    caller infers contacts instead).
    """
    from animsmith.core.contacts import authored_contacts

    contacts = authored_contacts(clip)
    return None if contacts is None else {k: list(v) for k, v in contacts.intervals_s.items()}


def contact_stance_mask(clip: Clip, foot_bone_names, times_s) -> Optional[np.ndarray]:
    """(N, F) stance mask from the clip's authored contact markers, or None without usable markers.

    The core's :func:`animsmith.core.contacts.authored_stance_mask`: foot
    ``f`` is in stance at ``t`` when ``plant_s <= t <= lift_s`` (±1 µs) for
    one of its intervals; a foot the markers do not name is never in stance
    (None when they name none of the feet). Pass it as
    ``core.contacts.foot_slide(..., stance=...)``.
    """
    from animsmith.core.contacts import authored_stance_mask

    return authored_stance_mask(clip, [str(n) for n in foot_bone_names], times_s)


def to_glb(baked: Baked) -> bytes:
    from animsmith.io.write import asset_to_glb

    return asset_to_glb(baked.asset)
