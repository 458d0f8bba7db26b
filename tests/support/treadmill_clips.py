"""The TREADMILL and TRAVELLING clips the speed and travel checks are tested on (in-place,
root-motion-speed, foot-slide).

TREADMILL(W) (ue-mannequin names ``pelvis``/``foot_l``/``foot_r`` so roles
auto-resolve): 33 keys over 1 s, t = k/32. The left foot uses u = k/32 mod 1,
the right u = (k/32 + 0.5) mod 1. Stance (u < 0.5): on the ground (y offset 0),
z offset = (0.5 − 2u)·W, i.e. the planted foot sweeps BACKWARD (−Z) at exactly
2W m/s. Swing (u ≥ 0.5, s = 2u − 1): lifted (y offset 0.05 + 0.03 sin πs, well
above the 0.03 m contact height) and z = (s − 0.5)·W. Every value is a dyadic
fraction, so speeds on the 1/32 s grid are exact.

TRAVELLING(d) adds a 2-key hips translation (0,1,0) → (0,1,d) over 1 s: root
speed d m/s (Hips is the travel bone: no Root role). With d = 2W the planted
foot is still in model space (a clean root-motion clip).
"""

from __future__ import annotations

import numpy as np

from animsmith.model import Asset, Channel, Clip, Skeleton


NAMES = ("pelvis", "foot_l", "foot_r")


def foot_offsets(u, sweep_w):
    u = np.mod(u, 1.0)
    stance = u < 0.5
    s = 2 * u - 1
    y = np.where(stance, 0.0, 0.05 + 0.03 * np.sin(np.pi * s))
    z = np.where(stance, (0.5 - 2 * u) * sweep_w, (s - 0.5) * sweep_w)
    return np.stack([0 * u, y, z], axis=1)


def treadmill(sweep_w=0.5, travel_m=None, keys=33, names=NAMES):
    sk = Skeleton.build(list(names), [-1, 0, 0], [[0, 1, 0], [0.125, -1, 0], [-0.125, -1, 0]])
    k = np.arange(keys)
    t = k / 32.0 if keys > 2 else np.array([0.0, 1.0])
    u = t
    chans = [
        Channel.make(1, "translation", t, np.array([0.125, -1, 0]) + foot_offsets(u, sweep_w)),
        Channel.make(2, "translation", t, np.array([-0.125, -1, 0]) + foot_offsets(u + 0.5, sweep_w)),
    ]
    if travel_m is not None:
        chans.append(Channel.make(0, "translation", [0, 1], [[0, 1, 0], [0, 1, travel_m]]))
    return Asset(skeleton=sk, clips=[Clip(name="run", channels=chans)])
