"""Multi-key channels that never move (export bloat).

A channel with two or more keys whose value never changes costs memory and
decode time in every engine and usually means the exporter baked every bone
of the rig. A channel is constant when:

* translation / scale: every component's range over the keys (max − min) is
  within ``vector_epsilon`` (translations in metres, below);
* rotation: every key is within ``rotation_epsilon_rad`` of key 0
  (sign-invariant angle ``2·atan2(|(q0⁻¹q).xyz|, |(q0⁻¹q).w|)``);
* CUBICSPLINE: additionally every tangent component is within the same
  epsilon (a curve with flat keys but non-zero tangents still moves).

One note per clip and channel kind (translation, rotation, scale), in that
order: a rig whose exporter baked every bone gets three lines, not hundreds.
The message counts the bones and names the first five (``… +N more``);
``bone`` is the bone when there is one, else null; measured = the largest
range or angle among them; ``members`` (JSON) lists **every** constant
channel of that kind in clip order as ``{"bone": name, "keys": key count,
"measured": its range or angle}``. Channels with a non-finite key are left to
``nan``. Translation ranges (and tangents) are in model-space metres: the
keyed range times the scale of the bone's parent in the rest pose and
``[rig] units`` (the same conversion as the endpoint tolerance), so the same
epsilon means the same motion under a 0.01 ``Armature`` or on a centimetre
rig; rotations are in radians, scales as keyed. Morph-target weight channels
are not judged (their keys are not loaded).

Always on; needs nothing.
"""

from __future__ import annotations

import numpy as np

from animsmith.checks import _clip
from animsmith.checks._clip import bone_name, flat_channels
from animsmith.checks.base import Option
from animsmith.core.quat import angle_between_rad

ID = "constant-track"
SEVERITY = "note"
SCOPE = "clip"
NEEDS = ()
CONFIG = {
    "vector_epsilon": Option(
        1e-4,
        "number",
        "Translation (metres in model space) and scale channels whose components each vary by at most this are constant.",
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
        return float(np.max(angle_between_rad(v[:1], v)))
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


def constant_candidates(ctx, eps_vec: float, eps_rot: float, skeleton=None) -> list:
    """Indices (clip order) of channels with ≥ 2 keys whose keys stay within the epsilon
    (translations in model-space metres through ``skeleton``: :func:`translation_scale`)."""
    out = []
    for path in ("translation", "rotation", "scale"):
        flat = flat_channels(ctx, path)
        if flat.size == 0 or (path == "rotation" and _clip.FAST_PATHS and flat.all_rotations_move(eps_rot)):
            continue
        motion = segment_motion(flat, path)
        if path == "translation" and skeleton is not None:
            motion = motion * translation_scale(skeleton, [ctx.clip.channels[i].bone for i in flat.index])
        eps = eps_rot if path == "rotation" else eps_vec
        with np.errstate(invalid="ignore"):
            # prefilter only: acos is a few 1e-13 rad off the documented atan2 angle; channel_motion decides
            # (2·acos near 0 is off by up to ~6e-8 rad absolute: hence the absolute term)
            keep = (flat.counts >= 2) & (motion <= eps + 1e-9 * max(eps, 1e-3) + 2e-7)
        if keep.any():
            out.extend(flat.index[keep].tolist())
    return sorted(out)


#: bone names a grouped note names before "… +N more"
LISTED_BONES = 5


def translation_scale(skeleton, bones) -> "np.ndarray":
    """(G,) metres per local translation unit of each bone (``core.endpoint.translation_unit_m``:
    the scales above the bone and ``[rig] units``)."""
    from animsmith.core.endpoint import translation_unit_m

    return translation_unit_m(skeleton, bones)


def check(ctx):
    clip = ctx.clip.name
    eps_vec = float(ctx.options["vector_epsilon"])
    eps_rot = float(ctx.options["rotation_epsilon_rad"])
    skeleton = ctx.asset.skeleton
    by_path = {}
    for i in constant_candidates(ctx, eps_vec, eps_rot, skeleton):
        ch = ctx.clip.channels[i]
        eps = eps_rot if ch.path == "rotation" else eps_vec
        motion = channel_motion(ch)
        tangent = largest_tangent(ch)
        if ch.path == "translation":  # in metres, tangents too (they are translations per unit time)
            scale = float(translation_scale(skeleton, [ch.bone])[0])
            motion, tangent = motion * scale, tangent * scale
        if not (motion <= eps and tangent <= eps):  # NaN compares False: skipped
            continue
        by_path.setdefault(ch.path, []).append({"bone": bone_name(ctx, ch.bone), "keys": ch.key_count, "measured": motion})
    for path in ("translation", "rotation", "scale"):
        members = by_path.get(path)
        if members:
            yield _grouped_note(ctx, clip, path, members, eps_rot if path == "rotation" else eps_vec)


def _grouped_note(ctx, clip: str, path: str, members: list, eps: float):
    """One note for every constant channel of one kind (module docstring)."""
    unit = "rad" if path == "rotation" else ("m" if path == "translation" else "")
    expected = f"> {eps:g}{(' ' + unit) if unit else ''}"
    measured = max(m["measured"] for m in members)
    keys = sorted({m["keys"] for m in members})
    key_text = f"{keys[0]}" if len(keys) == 1 else f"{keys[0]}–{keys[-1]}"
    if len(members) == 1:
        return ctx.finding(
            f"{path} track has {key_text} keys but never moves — export bloat",
            clip=clip, bone=members[0]["bone"], measured=measured, expected=expected, members=members,
        )
    names = [str(m["bone"]) for m in members]
    shown = ", ".join(names[:LISTED_BONES]) + (f", … +{len(names) - LISTED_BONES} more" if len(names) > LISTED_BONES else "")
    return ctx.finding(
        f"{path} tracks of {len(members)} bones have {key_text} keys but never move — export bloat: {shown}",
        clip=clip, bone=None, measured=measured, expected=expected, members=members,
    )
