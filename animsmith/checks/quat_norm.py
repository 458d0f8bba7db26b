"""Rotation keys that are not unit quaternions.

A rotation key whose length differs from 1 by more than ``tolerance`` is not
a rotation: engines that do not renormalise scale the mesh, those that do
hide an export bug. One finding per rotation channel, at its worst key
(largest ``| |q| − 1 |``; the first wins ties), with time = that key's time,
measured = its length, expected 1.0. Key values only (CUBICSPLINE tangents are
not rotations); non-finite keys are left to the ``nan`` check.

Always on; needs nothing.
"""

from __future__ import annotations

import numpy as np

from animsmith.checks import _clip
from animsmith.checks._clip import bone_name, flat_channels
from animsmith.checks.base import Option

ID = "quat-norm"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ()
CONFIG = {
    "tolerance": Option(
        1e-3,
        "number",
        "Fail when a rotation key's length differs from 1 by more than this.",
        minimum=0.0,
    ),
}


def norm_errors(values: np.ndarray) -> np.ndarray:
    """(K,) |‖q_k‖ − 1| per key, NaN for keys with a non-finite component."""
    q = np.asarray(values, dtype=np.float64)
    n = np.linalg.norm(q, axis=-1)
    return np.where(np.all(np.isfinite(q), axis=-1), np.abs(n - 1.0), np.nan)


def check(ctx):
    clip = ctx.clip.name
    tol = float(ctx.options["tolerance"])
    flat = flat_channels(ctx, "rotation")
    if flat.values is None or (_clip.FAST_PATHS and flat.norms_within(tol)):
        return
    with np.errstate(invalid="ignore", over="ignore"):
        off = np.abs(np.sqrt(flat.squared_norms) - 1.0) > tol * (1 - 1e-9) - 1e-15  # prefilter; norm_errors decides
    suspicious = flat.channels_of_rows(off & flat.finite_rows)
    for i in suspicious.tolist():
        ch = ctx.clip.channels[i]
        bone = bone_name(ctx, ch.bone)
        err = norm_errors(ch.values)
        k = int(np.nanargmax(err))
        length = float(np.linalg.norm(np.asarray(ch.values[k], dtype=np.float64)))
        t = float(ch.times[k]) if k < ch.times.shape[0] and np.isfinite(ch.times[k]) else None
        count = int(np.sum(err > tol))
        if count == 0:
            continue
        yield ctx.finding(
            f"non-unit rotation key (worst at key {k}, length {length:.4f}; "
            f"{count} key(s) off by more than {tol:g})",
            clip=clip,
            bone=bone,
            time_s=t,
            measured=length,
            expected=1.0,
        )
