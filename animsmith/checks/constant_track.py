"""Multi-key channels that never move (export bloat).

A channel with two or more keys whose value never changes costs memory and
decode time in every engine and usually means the exporter baked every bone
of the rig. A channel is constant when:

* translation / scale: every component's range over the keys (max − min) is
  within ``vector_epsilon``;
* rotation: every key is within ``rotation_epsilon_rad`` of key 0
  (sign-invariant angle ``2·atan2(|(q0⁻¹q).xyz|, |(q0⁻¹q).w|)``);
* CUBICSPLINE: additionally every tangent component is within the same
  epsilon (a curve with flat keys but non-zero tangents still moves).

One note per constant channel (clip and bone; measured = the largest range or
angle). Channels with a non-finite key are left to ``nan``.

Always on; needs nothing.
"""

from __future__ import annotations

import numpy as np

from animsmith.checks import _clip
from animsmith.checks._clip import bone_name, flat_channels, quat_angle_rad
from animsmith.checks.base import Option

ID = "constant-track"
SEVERITY = "note"
SCOPE = "clip"
NEEDS = ()
CONFIG = {
    "vector_epsilon": Option(
        1e-4,
        "number",
        "Translation/scale channels whose components each vary by at most this are constant.",
        minimum=0.0,
    ),
    "rotation_epsilon_rad": Option(
        1e-3,
        "number",
        "Rotation channels whose keys all stay within this angle (radians) of key 0 are constant.",
        minimum=0.0,
    ),
}


def channel_motion(ch) -> float:
    """Largest change of a channel: component range (vectors) or angle from key 0 in radians (rotations).

    NaN when a key or tangent is non-finite.
    """
    v = np.asarray(ch.values, dtype=np.float64)
    if not np.all(np.isfinite(v)):
        return float("nan")
    if ch.path == "rotation":
        if (v == v[:1]).all():  # identical keys: 0 exactly (the formula leaves a rounding residue)
            return 0.0
        return float(np.max(quat_angle_rad(v[:1], v)))
    return float(np.max(v.max(axis=0) - v.min(axis=0)))


def largest_tangent(ch) -> float:
    """Largest |tangent component| of a CUBICSPLINE channel (0 for other interpolations)."""
    if ch.interpolation != "CUBICSPLINE" or ch.in_tangents is None:
        return 0.0
    tang = np.concatenate([np.asarray(ch.in_tangents, float).ravel(), np.asarray(ch.out_tangents, float).ravel()])
    if not np.all(np.isfinite(tang)):
        return float("nan")
    return float(np.max(np.abs(tang))) if tang.size else 0.0


def segment_motion(flat, path: str) -> np.ndarray:
    """(S,) :func:`channel_motion` of every channel of one path at once (NaN when non-finite)."""
    if flat.values is None or flat.size == 0:
        return np.zeros(0)
    v = flat.values
    with np.errstate(invalid="ignore"):
        if path == "rotation":
            # angle to key 0 = 2·acos(|q̂0·q̂|) (sign-invariant); NaN rows stay NaN
            qn = v / np.sqrt(flat.squared_norms)[:, None]
            dot = np.abs(np.einsum("ij,ij->i", qn[flat.starts[flat.owner]], qn))
            angle = 2.0 * np.arccos(np.minimum(dot, 1.0))
            return np.maximum.reduceat(angle, flat.starts)
        span = np.maximum.reduceat(v, flat.starts, axis=0) - np.minimum.reduceat(v, flat.starts, axis=0)
        return np.max(span, axis=1)


def constant_candidates(clip, eps_vec: float, eps_rot: float) -> list:
    """Indices (clip order) of channels with ≥ 2 keys whose keys stay within the epsilon."""
    out = []
    for path in ("translation", "rotation", "scale"):
        flat = flat_channels(clip, path)
        if flat.size == 0 or (path == "rotation" and _clip.FAST_PATHS and flat.all_rotations_move(eps_rot)):
            continue
        motion = segment_motion(flat, path)
        eps = eps_rot if path == "rotation" else eps_vec
        with np.errstate(invalid="ignore"):
            # prefilter only: acos is a few 1e-13 rad off the documented atan2 angle; channel_motion decides
            # (2·acos near 0 is off by up to ~6e-8 rad absolute: hence the absolute term)
            keep = (flat.counts >= 2) & (motion <= eps + 1e-9 * max(eps, 1e-3) + 2e-7)
        if keep.any():
            out.extend(flat.index[keep].tolist())
    return sorted(out)


def check(ctx):
    clip = ctx.clip.name
    eps_vec = float(ctx.options["vector_epsilon"])
    eps_rot = float(ctx.options["rotation_epsilon_rad"])
    for i in constant_candidates(ctx.clip, eps_vec, eps_rot):
        ch = ctx.clip.channels[i]
        bone = bone_name(ctx, ch.bone)
        eps = eps_rot if ch.path == "rotation" else eps_vec
        motion = channel_motion(ch)
        tangent = largest_tangent(ch)
        if not (motion <= eps and tangent <= eps):  # NaN compares False: skipped
            continue
        unit = "rad" if ch.path == "rotation" else ("m" if ch.path == "translation" else "")
        yield ctx.finding(
            f"{ch.path} track has {ch.key_count} keys but never moves — export bloat",
            clip=clip,
            bone=bone,
            measured=motion,
            expected=f"> {eps:g}{(' ' + unit) if unit else ''}",
        )
