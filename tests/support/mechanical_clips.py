"""The hand-built clip the role-free per-clip checks are tested on (nan, time-monotonic,
quat-norm, quat-flip, duration-sanity, constant-track, fps).

Fixture (built by hand): bones ``hips`` (root) and ``spine`` (child at
(0, 0.3, 0)); clip ``walk`` over 1 s with a spine Y rotation 0 / 0.8 / 1.6 rad
and a hips translation (0,0,0) → (0,0.05,0.5) → (0,0,1) keyed at 0, 0.5, 1.
The clean clip has no finding from any of these checks; each test changes
one thing. Thresholds are tested with values exactly representable in
float32 (dyadic fractions) so "at the cap" is exact.
"""

from __future__ import annotations

import numpy as np

from animsmith.model import Asset, Channel, Clip, Skeleton


def yrot(angle_rad):
    a = np.asarray(angle_rad, dtype=np.float64)
    return np.stack([np.zeros_like(a), np.sin(a / 2), np.zeros_like(a), np.cos(a / 2)], axis=-1)


def make_asset(rot_times=(0, 0.5, 1), rot_values=None, tr_times=(0, 0.5, 1), tr_values=None, extra=(), name="walk"):
    sk = Skeleton.build(["hips", "spine"], [-1, 0], [[0, 0, 0], [0, 0.3, 0]])
    rv = yrot([0.0, 0.8, 1.6]) if rot_values is None else rot_values
    tv = [[0, 0, 0], [0, 0.05, 0.5], [0, 0, 1]] if tr_values is None else tr_values
    chans = [Channel.make(1, "rotation", rot_times, rv), Channel.make(0, "translation", tr_times, tv)]
    chans += list(extra)
    return Asset(skeleton=sk, clips=[Clip(name=name, channels=chans)])
