"""Analytic rigs and clips for tests: known poses, known gait phases.

The biped here animates feet by local translation straight under the hips, so
every model-space position is known by hand:

    root (0,0,0) -> hips (0, 1, 0) + root motion -> left_foot / right_foot at
    (±0.1, -0.9 + h(t), 0) relative to the hips.

With ``h_L(t) = A·sin(2π(t/T + offset))`` and ``h_R = −h_L`` the L−R signal is
``2A·sin(2π(t/T + offset))``: offset 0 gives stride anchor 0.75, an entry a
quarter of the way into the gait (offset 0.25) gives 0.50.
"""

from __future__ import annotations

import numpy as np

from animsmith.model import Asset, Channel, Clip, Skeleton

BIPED_NAMES = {
    "mixamo": ["mixamorig:Hips", "mixamorig:LeftFoot", "mixamorig:RightFoot"],
    "ue": ["pelvis", "foot_l", "foot_r"],
    "plain": ["Hips", "LeftFoot", "RightFoot"],
}


def biped_skeleton(convention: str = "plain", root_name: str = "root") -> Skeleton:
    hips, lf, rf = BIPED_NAMES[convention]
    names = [root_name, hips, lf, rf]
    parents = [-1, 0, 1, 1]
    rest_t = [[0, 0, 0], [0, 1.0, 0], [0.1, -0.9, 0], [-0.1, -0.9, 0]]
    return Skeleton.build(names, parents, rest_t)


def gait_clip(
    name: str,
    *,
    frames: int = 31,
    duration_s: float = 1.0,
    amplitude_m: float = 0.05,
    offset_cycles: float = 0.0,
    cycles: int = 1,
    velocity_mps=(0.0, 0.0, 0.0),
    reverse: bool = False,
) -> Clip:
    """A LINEAR clip on :func:`biped_skeleton`: feet bob in antiphase.

    ``frames`` keys over [0, duration]; the last key repeats the first pose
    (an inclusive cycle). Root translates at ``velocity_mps``.
    """
    t = np.linspace(0.0, duration_s, frames)
    u = t / duration_s
    if reverse:
        u = 1.0 - u
    h = amplitude_m * np.sin(2 * np.pi * (cycles * u + offset_cycles))
    lf = np.stack([np.full_like(t, 0.1), -0.9 + h, np.zeros_like(t)], axis=1)
    rf = np.stack([np.full_like(t, -0.1), -0.9 - h, np.zeros_like(t)], axis=1)
    root = np.outer(t, np.asarray(velocity_mps, float))
    return Clip(
        name=name,
        channels=[
            Channel.make(0, "translation", t, root),
            Channel.make(2, "translation", t, lf),
            Channel.make(3, "translation", t, rf),
        ],
    )


def biped_asset(clips, convention: str = "plain") -> Asset:
    clips = list(clips)
    for i, c in enumerate(clips):
        c.index = i
    return Asset(skeleton=biped_skeleton(convention), clips=clips)


# --------------------------------------------------------------------------
# An animation-only export shaped like FBX2glTF's (Mixamo names, static RootNode)
# --------------------------------------------------------------------------

#: bone order of :func:`fbx2gltf_walk`; RootNode has no channel in any clip
FBX_NAMES = [
    "RootNode", "mixamorig:Hips", "mixamorig:LeftUpLeg", "mixamorig:LeftFoot",
    "mixamorig:RightUpLeg", "mixamorig:RightFoot", "mixamorig:Spine", "mixamorig:LeftArm", "mixamorig:LeftHand",
]
FBX_HIPS, FBX_LEFT_ARM = 1, 7


def _x_quats(angle_rad):
    a = np.asarray(angle_rad, float) / 2.0
    return np.stack([np.sin(a), 0 * a, 0 * a, np.cos(a)], axis=1)


def _y_quats(angle_rad):
    a = np.asarray(angle_rad, float) / 2.0
    return np.stack([0 * a, np.sin(a), 0 * a, np.cos(a)], axis=1)


def fbx2gltf_arm_deg(u, kink: float = 0.0, cycles: float = 1.0):
    """The left arm's swing about X (degrees) at cycle fractions ``u``: 30·sin(2π·cycles·u)
    plus ``kink``·|sin(π·u)|, a bounce whose velocity flips sign across the wrap (a seam
    pop in angular velocity while the pose still closes)."""
    u = np.asarray(u, float)
    return 30.0 * np.sin(2 * np.pi * cycles * u) + kink * np.abs(np.sin(np.pi * u))


def fbx2gltf_walk(
    name: str = "Walk",
    *,
    frames: int = 31,
    fps: float = 30.0,
    travel_mps: float = 1.2,
    open_cycle: bool = False,
    arm_kink_deg: float = 0.0,
    arm_cycles: float = 1.0,
    root_wobble_deg: float = 0.0,
    turn_deg: float = 0.0,
) -> Clip:
    """A root-motion walk on :func:`fbx2gltf_skeleton`: ``frames`` keys at ``fps``.

    The hips carry the root motion (translation along +Z at ``travel_mps``, a 2 cm bob
    at twice the stride rate, and ``turn_deg`` of yaw over the clip); the upper legs swing
    ±25° about X in antiphase, the feet bob ±3 cm, the arm swings (:func:`fbx2gltf_arm_deg`).
    ``open_cycle`` ends one frame before the first pose (u = k / frames), else the last key
    repeats the first pose (u = k / (frames − 1)) apart from the travel. ``root_wobble_deg``
    gives RootNode a yaw wobble that returns to zero (RootNode is then animated).
    """
    k = np.arange(frames)
    t = k / fps
    u = k / frames if open_cycle else k / (frames - 1)
    s = np.sin(2 * np.pi * u)
    hips = np.stack([0 * u, 1.0 + 0.02 * np.sin(4 * np.pi * u), travel_mps * t], axis=1)
    if turn_deg:  # the path curves with the heading: velocity travel_mps·(sin ψ, 0, cos ψ), ψ = w·t
        w = np.radians(turn_deg) / t[-1]
        hips[:, 0] = travel_mps / w * (1.0 - np.cos(w * t))
        hips[:, 2] = travel_mps / w * np.sin(w * t)
    lf = np.stack([0 * u, -0.85 + 0.03 * s, 0 * u], axis=1)
    rf = np.stack([0 * u, -0.85 - 0.03 * s, 0 * u], axis=1)
    chans = [
        Channel.make(1, "translation", t, hips),
        Channel.make(2, "rotation", t, _x_quats(np.radians(25.0) * s)),
        Channel.make(3, "translation", t, lf),
        Channel.make(4, "rotation", t, _x_quats(-np.radians(25.0) * s)),
        Channel.make(5, "translation", t, rf),
        Channel.make(7, "rotation", t, _x_quats(np.radians(fbx2gltf_arm_deg(u, arm_kink_deg, arm_cycles)))),
    ]
    if turn_deg:
        chans.append(Channel.make(1, "rotation", t, _y_quats(np.radians(turn_deg) * t / t[-1])))
    if root_wobble_deg:
        chans.append(Channel.make(0, "rotation", t, _y_quats(np.radians(root_wobble_deg) * s)))
    return Clip(name=name, channels=chans)


def fbx2gltf_skeleton() -> Skeleton:
    parents = [-1, 0, 1, 2, 1, 4, 1, 6, 7]
    rest_t = [
        [0, 0, 0], [0, 1.0, 0], [0.1, -0.05, 0], [0, -0.85, 0],
        [-0.1, -0.05, 0], [0, -0.85, 0], [0, 0.1, 0], [0.2, 0.3, 0], [0.25, 0, 0],
    ]
    return Skeleton.build(FBX_NAMES, parents, rest_t)


def fbx2gltf_asset(*clips: Clip) -> Asset:
    clips = list(clips)
    for i, c in enumerate(clips):
        c.index = i
    return Asset(skeleton=fbx2gltf_skeleton(), clips=clips)
