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
