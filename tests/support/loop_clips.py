"""The GUARD and WALK clips the loop checks are tested on (loop-closure, loop-seam-vel,
loop-seam-rot, loop-seam, duplicate-loop-endpoint).

GUARD fixture: one bone ``root``, clip ``guard`` over 1 s with a LINEAR X
translation keyed at t = 0, .25, .5, .75, 1 (optionally a Y rotation at the
same times). The pose grid samples exactly the key times, so every measure
is hand-computable: position delta = |x4 − x0|, velocity delta =
|(x1 − x0)/.25 − (x4 − x3)/.25|, angular delta = |(a1 − a0) − (a4 − a3)|/.25.
Caps are compared in float32 (an authored value exactly at the cap passes).

WALK fixture (ue-mannequin names, so roles auto-resolve): ``pelvis`` at
(0, 1, 0) with feet ``foot_l``/``foot_r`` at (±0.1, −1, 0); 33 keys t = k/32;
with w = sin(P·2πk/32) the left foot moves (0, .05w, .15w), the right the
opposite. P = 1 closes the cycle; P = 0.75 stops three quarters through, so
the wrap jumps |w| = 1 while the larger neighbouring step is sin(0.75·2π/32):
ratio = 1/sin(0.75·2π/32) = 6.8152.
"""

from __future__ import annotations

import numpy as np

from animsmith.model import Asset, Channel, Clip, Skeleton


LOOP = {"loop": True}


T5 = [0, 0.25, 0.5, 0.75, 1.0]


def yrot_deg(deg):
    a = np.radians(np.asarray(deg, dtype=np.float64))
    return np.stack([np.zeros_like(a), np.sin(a / 2), np.zeros_like(a), np.cos(a / 2)], axis=-1)


def guard(x=(0, 0, 0, 0, 0), rot_deg=None, times=T5, name="guard"):
    sk = Skeleton.build(["root"], [-1])
    xs = np.asarray(x, dtype=np.float64)
    chans = [Channel.make(0, "translation", times, np.stack([xs, 0 * xs, 0 * xs], axis=1))]
    if rot_deg is not None:
        chans.append(Channel.make(0, "rotation", times, yrot_deg(rot_deg)))
    return Asset(skeleton=sk, clips=[Clip(name=name, channels=chans)])


def walk(periods=1.0, keys=33, stride=0.15, names=("pelvis", "foot_l", "foot_r"), right_stride=None):
    """``right_stride`` (default ``stride``) gives the right foot its own stride length."""
    sk = Skeleton.build(list(names), [-1, 0, 0], [[0, 1, 0], [0.1, -1, 0], [-0.1, -1, 0]])
    k = np.arange(keys)
    t = k / 32.0
    w = np.sin(periods * 2 * np.pi * k / 32.0)
    off = np.stack([0 * w, 0.05 * w, stride * w], axis=1)
    off_r = np.stack([0 * w, 0.05 * w, (stride if right_stride is None else right_stride) * w], axis=1)
    chans = [
        Channel.make(1, "translation", t, np.array([0.1, -1, 0]) + off),
        Channel.make(2, "translation", t, np.array([-0.1, -1, 0]) - off_r),
    ]
    return Asset(skeleton=sk, clips=[Clip(name="walk", channels=chans)])
