"""A clip whose first frame is far from the rest pose (authored against a different bind?).

Per clip, every rotation channel counts as evidence when it has at least one
key, targets a bone of the skeleton, and both its first key and the bone's
rest rotation are finite and non-zero. For each such track:

    deg = 2·atan2(|(r̂⁻¹ q̂).xyz|, |(r̂⁻¹ q̂).w|)   (r = rest, q = first key, hats = normalised)

the sign-invariant angle between the rest rotation and the first key.
Fewer than three such tracks → coverage gap
``insufficient_rotation_evidence`` (scope ``first_frame_rest_delta``,
subject = the clip): translation-only clips carry no rotation evidence.
Otherwise **warning** when the mean angle > ``max_mean_rest_delta_deg`` (in
float32, the f32 cap rule of ``loop-closure``: first keys authored exactly at
the cap pass); the
finding names the worst bone (the first track with the largest angle),
time 0, measured = the mean, expected = the cap.
"""

from __future__ import annotations

import math

import numpy as np

from animsmith.checks import _clip
from animsmith.checks._clip import flat_channels, row_dots
from animsmith.checks.base import Option
from animsmith.core.tolerance import f32_exceeds

ID = "bind-pose"
SEVERITY = "warning"
SCOPE = "clip"
NEEDS = ("at least three rotation channels per clip",)
CONFIG = {
    "max_mean_rest_delta_deg": Option(
        45.0,
        "number",
        "Warn when the first frame's rotations differ from the rest pose by more than this many degrees on average.",
        minimum=0.0,
        maximum=180.0,
    ),
}


def first_frame_rest_deltas_deg(skeleton, clip):
    """[(bone, degrees)] for every usable rotation track (module docstring), in channel order."""
    from animsmith.core import quat

    nb = len(skeleton.names)
    rot = [ch for ch in clip.channels if ch.path == "rotation" and ch.key_count >= 1 and 0 <= ch.bone < nb]
    if not rot:
        return []
    bones = np.array([ch.bone for ch in rot], dtype=np.int64)
    firsts = np.array([ch.values[0] for ch in rot], dtype=np.float64).reshape(len(rot), 4)
    rests = np.asarray(skeleton.rest_rotation, dtype=np.float64)[bones]
    with np.errstate(invalid="ignore", over="ignore"):
        usable = (
            np.isfinite(firsts).all(axis=1)
            & np.isfinite(rests).all(axis=1)
            & (np.linalg.norm(firsts, axis=1) > 0)
            & (np.linalg.norm(rests, axis=1) > 0)
        )
    if not usable.any():
        return []
    deg = np.degrees(quat.angle_between_rad(rests[usable], firsts[usable]))
    return list(zip((int(b) for b in bones[usable]), (float(d) for d in deg)))


#: |rough mean − exact mean| bound used by the fast path (the rough angles are within ~1e-5°).
ROUGH_MARGIN_DEG = 1e-3


def rough_rest_deltas(skeleton, flat):
    """(usable track count, rough mean angle in degrees or None) from the clip's shared rotation keys
    ``flat`` (the :class:`~animsmith.checks._clip.FlatChannels` of its rotation channels).

    The count is exact (same usable test as :func:`first_frame_rest_deltas_deg`).
    The mean, (360/π)·mean(acos(|r·q| / (|r||q|))), is within ~1e-5° of the
    atan2 formula's; it is None unless every track is usable with squared
    lengths inside 1e-50..1e50 (no error bound outside). Returns None when the
    rotation keys cannot be flattened.
    """
    if flat.size == 0:
        return 0, None
    if flat.values is None or flat.values.shape[0] != flat.starts[-1] + flat.counts[-1]:
        return None
    bones, rows = flat.bones, flat.starts
    if bones.min() < 0 or bones.max() >= len(skeleton.names):
        inside = (bones >= 0) & (bones < len(skeleton.names))
        bones, rows = bones[inside], rows[inside]
    n = rows.size
    both = np.concatenate([flat.values[rows], np.asarray(skeleton.rest_rotation, dtype=np.float64)[bones]])
    with np.errstate(invalid="ignore", over="ignore"):
        sq = row_dots(both, both)
        if n and sq.min() > 1e-50 and sq.max() < 1e50:  # (NaN fails too) every track usable
            if n < 3:
                return n, None
            cos = np.abs(row_dots(both[:n], both[n:])) / np.sqrt(sq[:n] * sq[n:])
            return n, float(np.arccos(np.minimum(cos, 1.0)).mean()) * (360.0 / math.pi)
        finite = np.isfinite(both).all(axis=1)
        usable = finite[:n] & finite[n:] & (sq[:n] > 0) & (sq[n:] > 0)
    return int(usable.sum()), None


def check(ctx):
    clip = ctx.clip.name
    rough = rough_rest_deltas(ctx.asset.skeleton, flat_channels(ctx, "rotation")) if _clip.FAST_PATHS else None
    if rough is not None and rough[0] < 3:
        count, deltas = rough[0], None  # the gap needs only the (exact) count
    else:
        if rough is not None and rough[1] is not None:
            if rough[1] < float(ctx.options["max_mean_rest_delta_deg"]) - ROUGH_MARGIN_DEG:
                return  # the mean is provably below the cap
        deltas = first_frame_rest_deltas_deg(ctx.asset.skeleton, ctx.clip)
        count = len(deltas)
    if count < 3:
        yield ctx.gap(
            "insufficient_rotation_evidence",
            f"only {count} usable first-frame rotation track(s); at least three are required",
            scope="first_frame_rest_delta",
            subjects=[clip],
        )
        return
    cap = float(ctx.options["max_mean_rest_delta_deg"])
    degs = np.array([d for _, d in deltas])
    mean = float(degs.mean())
    if f32_exceeds(mean, cap):
        worst = int(np.argmax(degs))
        bone = ctx.asset.skeleton.names[deltas[worst][0]]
        yield ctx.finding(
            f"first frame deviates from the rest pose by {mean:.0f}° on average across {len(deltas)} rotation "
            f"tracks (worst '{bone}': {degs[worst]:.0f}°) — was the clip authored against a different bind pose?",
            clip=clip,
            bone=bone,
            time_s=0.0,
            measured=mean,
            expected=cap,
        )
