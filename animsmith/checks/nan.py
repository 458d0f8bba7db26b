"""NaN or infinite key times or key values.

A non-finite key time makes the whole channel unsampleable (engines disagree on
what a NaN time means); a non-finite value (including CUBICSPLINE tangents)
poisons every pose interpolated from it. Per channel, at most one finding for
the first non-finite key time and one for the first non-finite value element
(counting raw elements: in-tangent, value, out-tangent for CUBICSPLINE).

Always on; needs nothing. Reports clip and bone; the key index (times) or raw
element index (values) is in the message, ``measured`` is the bad number as
text (``"nan"``, ``"inf"`` or ``"-inf"``: JSON has no non-finite numbers).
"""

from __future__ import annotations

import numpy as np

from animsmith.checks import _clip
from animsmith.checks._clip import bone_name, clip_facts, flat_channels

ID = "nan"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ()
CONFIG = {}


def _raw_elements(ch) -> np.ndarray:
    """Flat output elements as stored: (in-tangent, value, out-tangent) per key for CUBICSPLINE."""
    if ch.interpolation == "CUBICSPLINE" and ch.in_tangents is not None and ch.out_tangents is not None:
        return np.stack([ch.in_tangents, ch.values, ch.out_tangents], axis=1).reshape(-1)
    return np.asarray(ch.values).reshape(-1)


def _first_nonfinite(a: np.ndarray):
    bad = np.flatnonzero(~np.isfinite(np.asarray(a, dtype=np.float64)))
    return int(bad[0]) if bad.size else None


def cubic_channels(clip) -> list:
    """Indices of CUBICSPLINE channels (their tangents are checked one by one; they are rare)."""
    return [i for i, ch in enumerate(clip.channels) if ch.interpolation == "CUBICSPLINE"]


def suspicious_channels(ctx) -> list:
    """Indices of channels with any non-finite key time, value or tangent (whole-clip reductions)."""
    clip = ctx.clip
    flat = flat_channels(ctx)
    out = set(flat.channels_of_rows(~np.isfinite(flat.times)).tolist())
    for path in ("translation", "rotation", "scale"):
        f = flat_channels(ctx, path)
        if f.values is not None:
            out.update(f.channels_of_rows(~f.finite_rows).tolist())
    for i in cubic_channels(clip):
        if not np.all(np.isfinite(_raw_elements(clip.channels[i]))):
            out.add(i)
    return sorted(out)


def check(ctx):
    if _clip.FAST_PATHS and clip_facts(ctx).all_finite:
        return
    clip = ctx.clip.name
    for i in suspicious_channels(ctx):
        ch = ctx.clip.channels[i]
        bone = bone_name(ctx, ch.bone)
        k = _first_nonfinite(ch.times)
        if k is not None:
            yield ctx.finding(
                f"non-finite key time in {ch.path} track (key {k})",
                clip=clip,
                bone=bone,
                measured=str(float(ch.times[k])),
                expected="finite key times",
            )
        raw = _raw_elements(ch)
        e = _first_nonfinite(raw)
        if e is not None:
            value = float(raw[e])
            t = None
            key = e // (ch.width * (3 if ch.interpolation == "CUBICSPLINE" else 1))
            if key < ch.times.shape[0] and np.isfinite(ch.times[key]):
                t = float(ch.times[key])
            yield ctx.finding(
                f"non-finite value in {ch.path} track (element {e}, key {key})",
                clip=clip,
                bone=bone,
                time_s=t,
                measured=str(value),
                expected="finite key values",
            )
