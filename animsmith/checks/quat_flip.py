"""Adjacent rotation keys on opposite quaternion hemispheres.

q and −q are the same orientation, but an engine that interpolates keys
component-wise (or slerps without a shortest-path correction) spins the long
way round between keys whose dot product is negative. One finding per
rotation channel: the number of adjacent key pairs with ``dot(q[k−1], q[k]) <
0`` (finite keys only), time = the later key of the first flip.

Always on; needs nothing.
"""

from __future__ import annotations

import numpy as np

from animsmith.checks import _clip
from animsmith.checks._clip import bone_name, flat_channels

ID = "quat-flip"
SEVERITY = "warning"
SCOPE = "clip"
NEEDS = ()
CONFIG = {}


def hemisphere_flips(values: np.ndarray) -> np.ndarray:
    """Indices k ≥ 1 where finite keys q[k−1], q[k] have a negative dot product."""
    q = np.asarray(values, dtype=np.float64)
    if q.shape[0] < 2:
        return np.zeros(0, dtype=np.int64)
    finite = np.all(np.isfinite(q), axis=-1)
    dot = np.sum(q[:-1] * q[1:], axis=-1)
    with np.errstate(invalid="ignore"):
        bad = finite[:-1] & finite[1:] & (dot < 0.0)
    return np.flatnonzero(bad) + 1


def suspicious_channels(ctx) -> list:
    """Indices of rotation channels with a negative dot between adjacent finite keys."""
    flat = flat_channels(ctx, "rotation")
    if flat.values is None or flat.values.shape[0] < 2:
        return []
    if _clip.FAST_PATHS and flat.no_hemisphere_flips():
        return []
    q = flat.values
    finite = flat.finite_rows
    with np.errstate(invalid="ignore"):
        dot = np.einsum("ij,ij->i", q[:-1], q[1:])
        bad = flat.pair_mask() & finite[:-1] & finite[1:] & (dot < 0.0)
    rows = np.zeros(q.shape[0], dtype=bool)
    rows[1:] = bad
    return flat.channels_of_rows(rows).tolist()


def check(ctx):
    clip = ctx.clip.name
    for i in suspicious_channels(ctx):
        ch = ctx.clip.channels[i]
        bone = bone_name(ctx, ch.bone)
        flips = hemisphere_flips(ch.values)
        if flips.size == 0:
            continue
        k = int(flips[0])
        t = float(ch.times[k]) if k < ch.times.shape[0] and np.isfinite(ch.times[k]) else None
        yield ctx.finding(
            f"{flips.size} hemisphere flip(s) between adjacent rotation keys "
            f"(first between keys {k - 1} and {k}) — engines without neighbourhood "
            "correction will spin the long way",
            clip=clip,
            bone=bone,
            time_s=t,
            measured=int(flips.size),
            expected=0,
        )
