"""The shipped example ring: four run clips from one analytic biped gait.

``run_forward``, ``run_backward``, ``run_left``, ``run_right`` all play the
same run cycle (duty 0.4, so there is a flight phase) travelling along +Z,
−Z, +X and −X; ``run_left`` is entered a quarter of the way into the gait.
Feet are animated by translation only (no rotation channels), in place, on
a three-bone Mixamo-named rig (``mixamorig:Hips`` → ``LeftFoot`` /
``RightFoot``), so the lint profile resolves hips and both feet.

Stride anchor by construction: the left−right foot-height signal has its
trough where the right foot is at the top of its swing. A leg's swing is
centred at cycle phase ``(1 + duty)/2 = 0.7``; with the right leg's phase
0.95 that happens at clip fraction ``0.7 − 0.95 ≡ 0.75``, the left leg
(phase 0.45) peaks at 0.25, and the swing arc is symmetric about its centre,
so the first harmonic of ``s = h_L − h_R`` has its trough exactly at 0.75
(30 samples per cycle are symmetric about it). Entering a quarter cycle
later moves it to 0.50. Anchors 0.75, 0.75, 0.50, 0.75 → spread 0.1988.
"""

from __future__ import annotations

from typing import List, Tuple

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

BONES = ("mixamorig:Hips", "mixamorig:LeftFoot", "mixamorig:RightFoot")


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
    rest = [[0.0, HIP_HEIGHT_M, 0.0], [0.1, -HIP_HEIGHT_M, 0.0], [-0.1, -HIP_HEIGHT_M, 0.0]]
    return Skeleton.build(list(BONES), [-1, 0, 0], rest)


def ring_clip(gait: Creature, name: str, direction, entry_cycles: float) -> Clip:
    """One in-place clip: hips bob, feet follow the walker's targets relative to the hips."""
    duration_s = gait.cycle_m / gait.clip_speed
    times = np.linspace(0.0, duration_s, SAMPLES_PER_CYCLE + 1)
    u = np.arange(SAMPLES_PER_CYCLE + 1) / SAMPLES_PER_CYCLE  # exact cycle fractions
    distance = (entry_cycles + u) * gait.cycle_m
    targets = foot_targets(gait, distance, direction).position_m  # (N, 2, 3) body frame
    hips = np.zeros((u.shape[0], 3))
    hips[:, 1] = HIP_HEIGHT_M + body_bob_m(gait, distance)
    # the last key repeats the first pose exactly (an inclusive cycle)
    targets[-1] = targets[0]
    hips[-1] = hips[0]
    feet = targets - hips[:, None, :]
    return Clip(
        name=name,
        channels=[
            Channel.make(0, "translation", times, hips),
            Channel.make(1, "translation", times, feet[:, 0]),
            Channel.make(2, "translation", times, feet[:, 1]),
        ],
    )


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
