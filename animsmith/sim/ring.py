"""The shipped example ring: four run clips from one analytic biped gait.

``run_forward``, ``run_backward``, ``run_left``, ``run_right`` all play the
same run cycle (duty 0.4, so there is a flight phase) travelling along +Z,
−Z, +X and −X; ``run_left`` is entered a quarter of the way into the gait.
The rig is a full-body Mixamo-named biped (hips, a three-bone spine, neck,
head and head top, shoulders and two-bone arms with hands, two-bone legs with knees and
feet), so the lint profile resolves hips, spine, head, both feet and both
hands, and the report draws a character. The clips are in place.

Every bone is animated by **translation only** (no rotation channel, every
rotation stays the rest rotation): the hips bob, each knee and ankle follows
the walker's foot target through a two-bone leg that bends forward, each
elbow and hand swings against the leg of its side. With no rotation key
there is no first-frame rotation to compare with the rest pose, which is why
``bind-pose`` reports "only 0 usable first-frame rotation track(s)" on every
clip. Bones that do not move relative to their parent (spine, neck, head,
head top, shoulders, hip and shoulder joints) have no channel at all, so no track is
constant.

Stride anchor by construction: the left−right foot-height signal has its
trough where the right foot is at the top of its swing. A leg's swing is
centred at cycle phase ``(1 + duty)/2 = 0.7``; with the right leg's phase
0.95 that happens at clip fraction ``0.7 − 0.95 ≡ 0.75``, the left leg
(phase 0.45) peaks at 0.25, and the swing arc is symmetric about its centre,
so the first harmonic of ``s = h_L − h_R`` has its trough exactly at 0.75
(30 samples per cycle are symmetric about it). Entering a quarter cycle
later moves it to 0.50. Anchors 0.75, 0.75, 0.50, 0.75 → spread 0.1988.
The feet and hips are where they were on the earlier three-bone rig, so the
anchors (and the lint transcript) do not depend on the rest of the body.

``animsmith sim ring -o examples/assets/run-ring.glb`` rebuilds the shipped
file byte for byte.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from animsmith.model import Asset, Channel, Clip, Skeleton
from animsmith.sim.creature import Creature, Leg
from animsmith.sim.walker import body_bob_m, foot_targets

HIP_HEIGHT_M = 0.95
SAMPLES_PER_CYCLE = 30
SPEED_MPS = 2.4

#: (clip name, travel direction in the body frame, entry point in cycles)
RING: Tuple[Tuple[str, Tuple[float, float, float], float], ...] = (
    ("run_forward", (0.0, 0.0, 1.0), 0.0),
    ("run_backward", (0.0, 0.0, -1.0), 0.0),
    ("run_left", (1.0, 0.0, 0.0), 0.25),
    ("run_right", (-1.0, 0.0, 0.0), 0.0),
)

#: (bone, parent, rest translation from the parent in metres); parents first. The character
#: faces +Z with its left side at +X (the ring's left foot is the leg at x = +0.1).
RIG: Tuple[Tuple[str, Optional[str], Tuple[float, float, float]], ...] = (
    ("Hips", None, (0.0, HIP_HEIGHT_M, 0.0)),
    ("Spine", "Hips", (0.0, 0.10, 0.0)),
    ("Spine1", "Spine", (0.0, 0.12, 0.0)),
    ("Spine2", "Spine1", (0.0, 0.12, 0.0)),
    ("Neck", "Spine2", (0.0, 0.16, 0.0)),
    ("Head", "Neck", (0.0, 0.10, 0.02)),
    ("HeadTop_End", "Head", (0.0, 0.18, 0.02)),
    ("LeftShoulder", "Spine2", (0.06, 0.11, 0.0)),
    ("LeftArm", "LeftShoulder", (0.12, 0.0, 0.0)),
    ("LeftForeArm", "LeftArm", (0.0, -0.28, 0.0)),
    ("LeftHand", "LeftForeArm", (0.0, -0.25, 0.0)),
    ("RightShoulder", "Spine2", (-0.06, 0.11, 0.0)),
    ("RightArm", "RightShoulder", (-0.12, 0.0, 0.0)),
    ("RightForeArm", "RightArm", (0.0, -0.28, 0.0)),
    ("RightHand", "RightForeArm", (0.0, -0.25, 0.0)),
    ("LeftUpLeg", "Hips", (0.1, -0.08, 0.0)),
    ("LeftLeg", "LeftUpLeg", (0.0, -0.44, 0.05)),
    ("LeftFoot", "LeftLeg", (0.0, -0.43, -0.05)),
    ("RightUpLeg", "Hips", (-0.1, -0.08, 0.0)),
    ("RightLeg", "RightUpLeg", (0.0, -0.44, 0.05)),
    ("RightFoot", "RightLeg", (0.0, -0.43, -0.05)),
)
PREFIX = "mixamorig:"
BONES = tuple(PREFIX + name for name, _, _ in RIG)
#: thigh and shin length (each): the ankle target is at most 0.97 m from the hip joint
LEG_SEGMENT_M = 0.5
#: upper arm and forearm length, fore/aft arm swing amplitude and the elbow's fixed bend
UPPER_ARM_M, FOREARM_M = 0.28, 0.25
ARM_SWING_RAD, ELBOW_BEND_RAD = np.radians(30.0), np.radians(35.0)


def ring_gait() -> Creature:
    """The analytic biped run the ring is cut from (cycle 2.4 m, 1.0 s at 2.4 m/s)."""
    legs = [
        Leg("left", "L", 0.45, "forward", (0.475, 0.475), (0.1, 0.0, 0.0), (0.1, HIP_HEIGHT_M, 0.0)),
        Leg("right", "R", 0.95, "forward", (0.475, 0.475), (-0.1, 0.0, 0.0), (-0.1, HIP_HEIGHT_M, 0.0)),
    ]
    return Creature(
        name="ring-run",
        stride=0.96,
        duty=0.4,
        lift=0.12,
        clip_speed=SPEED_MPS,
        legs=legs,
        body_height=HIP_HEIGHT_M,
        bob=0.03,
        naming="mixamo",
    )


def ring_skeleton() -> Skeleton:
    index = {name: i for i, (name, _, _) in enumerate(RIG)}
    parents = [-1 if parent is None else index[parent] for _, parent, _ in RIG]
    return Skeleton.build(list(BONES), parents, [rest for _, _, rest in RIG])


def _rest(name: str) -> np.ndarray:
    return np.array(next(rest for n, _, rest in RIG if n == name), dtype=np.float64)


def knee_positions_m(hip_m: np.ndarray, ankle_m: np.ndarray, segment_m: float = LEG_SEGMENT_M) -> np.ndarray:
    """(N, 3) knee of a two-bone leg with equal segments, bent towards +Z (the character's front).

    The knee lies on the perpendicular bisector of hip→ankle, in the plane
    holding that line and +Z, at ``sqrt(segment² − (d/2)²)`` from the middle.
    """
    leg = ankle_m - hip_m
    d = np.linalg.norm(leg, axis=1, keepdims=True)
    along = leg / d
    front = np.array([0.0, 0.0, 1.0]) - along * along[:, 2:3]  # +Z less its part along the leg
    front /= np.linalg.norm(front, axis=1, keepdims=True)
    reach = np.sqrt(np.maximum(segment_m * segment_m - (d / 2.0) ** 2, 0.0))
    return hip_m + leg / 2.0 + front * reach


def arm_offsets_m(swing_rad: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(elbow from the shoulder joint, hand from the elbow), each (N, 3): the upper arm hangs
    ``swing`` forward of straight down, the forearm a further fixed elbow bend."""
    upper = np.stack([np.zeros_like(swing_rad), -np.cos(swing_rad), np.sin(swing_rad)], axis=1) * UPPER_ARM_M
    fore_angle = swing_rad + ELBOW_BEND_RAD
    fore = np.stack([np.zeros_like(swing_rad), -np.cos(fore_angle), np.sin(fore_angle)], axis=1) * FOREARM_M
    return upper, fore


def ring_clip(gait: Creature, name: str, direction, entry_cycles: float) -> Clip:
    """One in-place clip: hips bob, legs reach the walker's foot targets, arms swing against the legs."""
    duration_s = gait.cycle_m / gait.clip_speed
    n = SAMPLES_PER_CYCLE + 1
    times = np.linspace(0.0, duration_s, n)
    u = np.arange(n) / SAMPLES_PER_CYCLE  # exact cycle fractions
    distance = (entry_cycles + u) * gait.cycle_m
    targets = foot_targets(gait, distance, direction)
    ankles = targets.position_m  # (N, 2, 3) body frame, left then right
    hips = np.zeros((n, 3))
    hips[:, 1] = HIP_HEIGHT_M + body_bob_m(gait, distance)
    # each foot's progress along the travel direction, −½..½ of a stride: an arm swings forward
    # as the other side's foot does
    dirv = np.asarray(direction, dtype=np.float64) / np.linalg.norm(direction)
    home = np.array([leg.home for leg in gait.legs])
    along = ((ankles - home[None]) @ dirv) / gait.stride  # (N, 2)
    tracks = {"Hips": hips}
    for k, side in enumerate(("Left", "Right")):
        hip_joint = hips + _rest(f"{side}UpLeg")
        knee = knee_positions_m(hip_joint, ankles[:, k])
        tracks[f"{side}Leg"] = knee - hip_joint
        tracks[f"{side}Foot"] = ankles[:, k] - knee
        elbow, hand = arm_offsets_m(2.0 * ARM_SWING_RAD * along[:, 1 - k])
        tracks[f"{side}ForeArm"] = elbow
        tracks[f"{side}Hand"] = hand
    channels = []
    for bone, (name_, _, _) in enumerate(RIG):
        if name_ not in tracks:
            continue
        values = tracks[name_].copy()
        values[-1] = values[0]  # the last key repeats the first pose exactly (an inclusive cycle)
        channels.append(Channel.make(bone, "translation", times, values))
    return Clip(name=name, channels=channels)


def ring_asset() -> Asset:
    """The four-clip ring asset (deterministic)."""
    gait = ring_gait()
    clips: List[Clip] = []
    for i, (name, direction, entry) in enumerate(RING):
        clip = ring_clip(gait, name, direction, entry)
        clip.index = i
        clips.append(clip)
    return Asset(skeleton=ring_skeleton(), clips=clips)


def ring_glb() -> bytes:
    from animsmith.io.write import asset_to_glb

    return asset_to_glb(ring_asset())


#: the root-motion walk ring: (clip name, travel direction; the body faces +Z throughout)
WALK_RING: Tuple[Tuple[str, Tuple[float, float, float]], ...] = (
    ("walk_forward", (0.0, 0.0, 1.0)),
    ("walk_backward", (0.0, 0.0, -1.0)),
    ("walk_left", (1.0, 0.0, 0.0)),
    ("walk_right", (-1.0, 0.0, 0.0)),
)


def walk_ring_asset() -> Asset:
    """The root-motion walk ring (deterministic): the simulator's catalog biped walking one
    cycle forward, backward, left and right at its own speed (1.2 m/s, 30 fps), every clip
    entered at the same point of the gait, with the travel baked into the hips (root motion)
    and the contact markers ``sim bake`` writes. Its members are in step, travel at the speed
    they declare and keep planted feet still, so its contract lints clean.
    """
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    biped = catalog_creature("biped")
    clips: List[Clip] = []
    skeleton = None
    for i, (name, direction) in enumerate(WALK_RING):
        baked = bake(biped, root_motion=True, direction=direction, clip_name=name)
        clip = baked.asset.clips[0]
        clip.index = i
        clips.append(clip)
        skeleton = baked.asset.skeleton
    return Asset(skeleton=skeleton, clips=clips)


def walk_ring_glb() -> bytes:
    from animsmith.io.write import asset_to_glb

    return asset_to_glb(walk_ring_asset())
