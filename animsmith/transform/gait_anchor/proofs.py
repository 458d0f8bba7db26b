"""The gait-anchor proofs, each returning or raising :class:`~animsmith.errors.Refusal`
with its stable code (the package docstring lists them in evaluation order), and the
refusal helpers the other modules share."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from animsmith.core.tolerance import F32_EPS, f32_successor, frame_times_f32, round_half_away
from animsmith.errors import Refusal
from animsmith.numtext import fixed

CAP_HORIZONTAL_DRIFT_M = 0.01
CAP_YAW_DEG = 1.0
#: ``vertical_drift`` allows an endpoint rise of this many times the clip's largest
#: frame-to-frame vertical step (an open loop's wrap is a real step; loop-seam's 1.5)
VERTICAL_STEP_RATIO = 1.5
WORK_BUDGET_SAMPLES = 1_000_000
MIN_LR_AMPLITUDE_M = 0.03
GRID_TOLERANCE_EPS = 4.0

CODES = (
    "no_trajectory_bone",
    "off_grid_key",
    "key_count",
    "duplicate_channel",
    "cubic_track",
    "non_finite",
    "budget_exceeded",
    "horizontal_drift",
    "yaw_drift",
    "vertical_drift",
    "no_heading",
    "no_stride_anchor",
    "low_amplitude",
    "unsupported_channel",
    "mixed_endpoint",
    "verification_failed",
)

TRAJECTORY_ADVICE = (
    "keep the clip's root motion and align it with runtime phase offsets instead, "
    "or use a trajectory-preserving tool"
)

LATE_START_ADVICE = (
    "move the clip's keys to start at 0 s (an export range that begins at frame 1 writes its "
    "first key at 1/fps) and re-export, or use runtime phase offsets instead"
)

GRID_ADVICE = (
    "bake every animated channel to exactly one key per frame at the clip's frame rate "
    "(pass the real rate with --fps), or use runtime phase offsets instead"
)

TOLERATED_DRIFT_M = f32_successor(CAP_HORIZONTAL_DRIFT_M)
TOLERATED_YAW_DEG = f32_successor(CAP_YAW_DEG)


def is_exactly_constant(channel) -> bool:
    """All key values bit-equal as float32 (so +0 and −0 differ, q and −q differ), cubic tangents all zero."""
    v = np.ascontiguousarray(channel.values, dtype=np.float32)
    if v.shape[0] <= 1:
        constant = True
    else:
        bits = v.view(np.uint32)
        constant = bool(np.all(bits == bits[:1]))
    if constant and channel.interpolation == "CUBICSPLINE":
        for tan in (channel.in_tangents, channel.out_tangents):
            if tan is not None and not bool(np.all(np.asarray(tan) == 0)):
                return False
    return constant


def refuse(code: str, clip: str, bone: Optional[str], measured: Any, limit: Any, what: str, advice: str, **extra) -> Refusal:
    where = f"clip {clip!r}" + (f", bone {bone!r}" if bone else "")
    message = f"cannot gait-anchor {where}: {what}; {advice}"
    return Refusal(code=code, message=message, clip=clip, bone=bone, measured=measured, limit=limit, extra=extra)


def name_of_bone(skeleton, bone: int) -> str:
    try:
        return str(skeleton.names[int(bone)])
    except (IndexError, ValueError, TypeError):
        return f"bone{bone}"


def channel_label(skeleton, index: int, ch) -> str:
    return f"channel {index} ({ch.path} of {name_of_bone(skeleton, ch.bone)!r})"


def prove_finite(skeleton, clip) -> None:
    """``non_finite``: any NaN/Inf key time, value or tangent in any channel."""
    for i, ch in enumerate(clip.channels):
        for label, arr in (("key time", ch.times), ("value", ch.values), ("in-tangent", ch.in_tangents), ("out-tangent", ch.out_tangents)):
            if arr is None:
                continue
            a = np.asarray(arr)
            ok = np.isfinite(a)
            if not bool(ok.all()):
                bad = np.argwhere(~ok)[0]
                key = int(bad[0])
                raise refuse(
                    "non_finite", clip.name, name_of_bone(skeleton, ch.bone), "non-finite", "finite",
                    f"{channel_label(skeleton, i, ch)} has a non-finite {label} at key {key} (measured "
                    f"{float(a[tuple(bad)])!r}, required finite)",
                    "repair the source keys in the DCC and re-export",
                )


def prove_unique_channels(skeleton, clip) -> None:
    """``duplicate_channel``: a second channel for the same (node, property)."""
    seen: Dict[Tuple[int, str], int] = {}
    for i, ch in enumerate(clip.channels):
        key = (int(ch.node), ch.path)
        if key in seen:
            raise refuse(
                "duplicate_channel", clip.name, name_of_bone(skeleton, ch.bone), 2, 1,
                f"channel {i} duplicates the {ch.path} channel {seen[key]} of node {ch.node} "
                f"(measured 2 channels, allowed 1)",
                "remove the duplicate channel in the DCC or exporter so the clip has one source per property",
            )
        seen[key] = i


def prove_supported_channels(asset, clip) -> None:
    """``unsupported_channel``: morph-weight or non-node (pointer) channels this rewrite cannot rotate."""
    anim = None
    doc = getattr(asset, "gltf", None)
    if isinstance(doc, dict):
        anims = doc.get("animations")
        if isinstance(anims, list) and 0 <= clip.index < len(anims) and isinstance(anims[clip.index], dict):
            anim = anims[clip.index]
    other = []
    if anim is not None:
        for i, ch in enumerate(anim.get("channels") or []):
            target = ch.get("target") if isinstance(ch, dict) else None
            if not isinstance(target, dict):
                continue
            if target.get("node") is None:
                other.append(f"channel {i} (no target node)")
            elif target.get("path") == "weights":
                other.append(f"channel {i} (morph weights)")
    elif clip.weight_channel_count:
        other.append(f"{clip.weight_channel_count} morph-weight channel(s)")
    if other:
        raise refuse(
            "unsupported_channel", clip.name, None, len(other), 0,
            f"the clip animates {', '.join(other[:3])}{' ...' if len(other) > 3 else ''}, which this rewrite "
            "cannot move in time with the bones (measured "
            f"{len(other)}, allowed 0)",
            "move facial/morph or pointer animation to a separate clip, or use runtime phase offsets instead",
        )


#: message label of the trajectory bone by its role (core.trajectory.TravelBone.role)
TRAJECTORY_LABELS = {"root": "Root", "hips": "Hips", "ancestor": "travel"}


def trajectory_bone(skeleton, clip, roles) -> Tuple[int, str]:
    """(bone, "Root" | "Hips" | "travel"): the clip's travel bone, the one every metric
    uses (``core.trajectory.travel_bone_of_clip``: the highest node above the hips that
    this clip animates, else the hips), or ``no_trajectory_bone``."""
    from animsmith.core.trajectory import travel_bone_of_clip

    travel = travel_bone_of_clip(skeleton, clip, roles)
    if travel.bone is not None:
        return int(travel.bone), TRAJECTORY_LABELS.get(travel.role, "travel")
    raise refuse(
        "no_trajectory_bone", clip.name, None, None, "root or hips role",
        f"the clip has no travel bone ({travel.reason}), so the trajectory cannot be proven in place",
        "map root/hips in [rig.roles], or " + TRAJECTORY_ADVICE,
    )


def prove_increasing_times(skeleton, clip) -> None:
    """``off_grid_key``: every channel's key times (exempt constant channels included) must be
    strictly increasing, as glTF requires: a repeated or backwards time is duplicate-time
    evidence, and a published file would keep the defect."""
    for i, ch in enumerate(clip.channels):
        t = np.asarray(ch.times, dtype=np.float64)
        if t.shape[0] > 1 and not bool((t[1:] > t[:-1]).all()):
            k = int(np.flatnonzero(~(t[1:] > t[:-1]))[0]) + 1
            raise refuse(
                "off_grid_key", clip.name, name_of_bone(skeleton, ch.bone), float(t[k]), f"> {float(t[k - 1])!r}",
                f"{channel_label(skeleton, i, ch)} has key times that are not strictly increasing "
                f"(key {k} at {float(t[k]):.6f} s after {float(t[k - 1]):.6f} s)",
                "repair the source keys in the DCC and re-export",
            )


def declared_frames(clip, fps: float, bone_label: str) -> Tuple[int, float]:
    """(E, d): E = d·fps + 1 declared frames, or ``off_grid_key`` / ``budget_exceeded``."""
    d = float(clip.duration_s)
    fps = float(fps)
    if not (math.isfinite(fps) and fps > 0):
        raise refuse("off_grid_key", clip.name, bone_label, fps, "> 0", f"frame rate {fps!r} is not positive", GRID_ADVICE)
    if not (math.isfinite(d) and d > 0):
        raise refuse(
            "off_grid_key", clip.name, bone_label, d, "> 0 s",
            f"the clip has no positive duration (measured {d:.6f} s)", GRID_ADVICE,
        )
    interval = d * fps
    if not math.isfinite(interval):
        raise refuse(
            "budget_exceeded", clip.name, bone_label, "unbounded", WORK_BUDGET_SAMPLES,
            f"{d:.6f} s at {fps:g} fps is not a representable frame count", GRID_ADVICE,
        )
    n = round_half_away(interval)
    tol = GRID_TOLERANCE_EPS * F32_EPS * max(abs(interval), 1.0)
    if abs(interval - n) > tol or n < 1:
        raise refuse(
            "off_grid_key", clip.name, bone_label, round(interval, 9), f"a whole number of frames (±{tol:.3g})",
            f"duration {d:.6f} s is {interval:.6f} frames at {fps:g} fps, not a whole number of frames"
            + _keys_rate_text(clip),
            GRID_ADVICE,
        )
    return n + 1, d


def _keys_rate_text(clip) -> str:
    """"; its densest channel's K keys are R fps": the rate the clip's own keys imply,
    R = (K − 1) / (last key time − first key time) over the channel with the most keys,
    for a refusal whose --fps is not the clip's ("" when no channel has two keys over a
    positive, finite span)."""
    ch = max(clip.channels, key=lambda c: len(c.times), default=None)
    if ch is None or len(ch.times) < 2:
        return ""
    span = float(ch.times[-1]) - float(ch.times[0])
    rate = (len(ch.times) - 1) / span if span > 0 else math.inf
    return f"; its densest channel's {len(ch.times)} keys are {rate:.6g} fps" if math.isfinite(rate) else ""


def _count(n: int) -> str:
    """An integer for a message: exact up to 10^12, else 3 significant digits (``--fps 1e300``)."""
    return str(n) if abs(n) < 10**12 else f"{float(n):.3g}"


def prove_budget(skeleton, clip, frames: int, bone_label: str) -> None:
    """``budget_exceeded``: E×bones, E×channels, max(2, keys)×bones each <= 1,000,000."""
    bones = skeleton.bone_count
    tracks = len(clip.channels)
    keys = max(2, clip.max_key_count)
    for product, what in (
        (frames * bones, f"{_count(frames)} frames x {bones} bones = {_count(frames * bones)} pose samples"),
        (frames * tracks, f"{_count(frames)} frames x {tracks} channels = {_count(frames * tracks)} channel samples"),
        (keys * bones, f"{keys} maximum keys x {bones} bones = {keys * bones} pose samples"),
    ):
        if product > WORK_BUDGET_SAMPLES:
            raise refuse(
                "budget_exceeded", clip.name, None, product if product < 2**53 else float(product), WORK_BUDGET_SAMPLES,
                f"{what} exceeds the {WORK_BUDGET_SAMPLES} sample safety budget",
                "split or shorten the clip, or bake it at a lower frame rate, or use runtime phase offsets instead",
            )


def classify_channels(skeleton, clip, frames: int, fps: float, duration_s: float) -> Tuple[List[int], List[int]]:
    """(rotated, exempt) channel indices; refuses ``cubic_track``, ``key_count``, ``off_grid_key``."""
    grid = frame_times_f32(frames, fps)
    last = np.float32(duration_s)
    rotated: List[int] = []
    exempt: List[int] = []
    for i, ch in enumerate(clip.channels):
        if is_exactly_constant(ch):
            exempt.append(i)
            continue
        bone = name_of_bone(skeleton, ch.bone)
        label = channel_label(skeleton, i, ch)
        if ch.interpolation == "CUBICSPLINE":
            raise refuse(
                "cubic_track", clip.name, bone, "CUBICSPLINE", "LINEAR or STEP",
                f"{label} is a nonconstant CUBICSPLINE channel; rotating its keys would change its tangents' meaning",
                "bake it to LINEAR keys, one per frame, in the DCC, or use runtime phase offsets instead",
            )
        t0 = np.float32(ch.times[0])
        if t0 != grid[0]:
            raise refuse(
                "off_grid_key", clip.name, bone, float(t0), float(grid[0]),
                f"{label} starts at {float(t0):.6f} s, not 0 s: a runtime plays the clip from 0 s and holds "
                f"its first pose until then, so its keys are not the clip's frames at {fps:g} fps",
                LATE_START_ADVICE,
            )
        k = ch.key_count
        if k != frames:
            raise refuse(
                "key_count", clip.name, bone, k, frames,
                f"{label} has {k} keys instead of exactly {frames} (one per frame at {fps:g} fps over "
                f"{duration_s:.6f} s)",
                GRID_ADVICE,
            )
        t = np.asarray(ch.times, dtype=np.float32)
        bad = np.nonzero(t != grid)[0]
        if bad.size == 0 and t[-1] != last:
            bad = np.array([k - 1])
        if bad.size:
            j = int(bad[0])
            want = float(grid[j]) if t[-1] == last or j != k - 1 else float(last)
            raise refuse(
                "off_grid_key", clip.name, bone, float(t[j]), want,
                f"{label} key {j} is at {float(t[j]):.9f} s, required frame time {want:.9f} s at {fps:g} fps "
                "(sparse, duplicate-time and off-grid keys cannot be rotated losslessly)",
                GRID_ADVICE,
            )
        rotated.append(i)
    return rotated, exempt


def heading_witness(q0: np.ndarray) -> Tuple[str, np.ndarray, float]:
    """(label, local axis, projection length) of the +Z/+Y/+X axis with the largest horizontal projection.

    ``q0`` is a unit quaternion (x, y, z, w); ties keep the order +Z, +Y, +X. The same
    witness rule as ``core.trajectory.heading_series_deg`` (the rotated axis by
    ``quat.rotate`` is the ``quat.to_matrix`` column it reads, to rounding), but the proof
    skips an axis whose projection is not finite and judges a lost projection itself
    (:func:`yaw_accumulation_proof_deg`), where the metric gives up on the clip.
    """
    from animsmith.core import quat

    best: Optional[Tuple[str, np.ndarray, float]] = None
    for label, axis in (("+Z", (0.0, 0.0, 1.0)), ("+Y", (0.0, 1.0, 0.0)), ("+X", (1.0, 0.0, 0.0))):
        a = np.asarray(axis)
        v = quat.rotate(q0, a)
        length = math.hypot(float(v[0]), float(v[2]))
        if not math.isfinite(length):
            continue
        if best is None or length > best[2]:
            best = (label, a, length)
    if best is None:
        return "+Z", np.asarray((0.0, 0.0, 1.0)), float("nan")
    return best


def _proof_headings(rotations: np.ndarray) -> Tuple[Optional[np.ndarray], str, Optional[int]]:
    """(headings deg (N,), axis label, None) or (None, axis label, sample where the
    witness axis loses its horizontal projection); see :func:`yaw_accumulation_proof_deg`."""
    from animsmith.core import quat

    with np.errstate(invalid="ignore", divide="ignore"):
        q = quat.unit(rotations)
    label, axis, _ = heading_witness(q[0])
    v = quat.rotate(q, np.broadcast_to(axis, q.shape[:-1] + (3,)))
    proj = np.hypot(v[:, 0], v[:, 2])
    lost = ~np.isfinite(proj) | (proj <= F32_EPS)
    if bool(lost.any()):
        return None, label, int(np.argmax(lost))
    return np.degrees(np.arctan2(v[:, 0], v[:, 2])), label, None


def yaw_accumulation_proof_deg(rotations: np.ndarray) -> Tuple[Optional[float], str, Optional[int]]:
    """(yaw_deg, axis label, None) or (None, axis label, sample) when the projection is lost.

    Proof-specific (``core.trajectory.yaw_accumulation_deg``
    additionally refuses near-180° steps, which the proof must not):
    headings h_f = atan2(x, z) (degrees, float64) of the witness axis chosen at
    sample 0; turns: step > 180 → −1, step < −180 → +1 (exactly ±180 is no
    crossing); yaw = |h_last − h_0 + 360·turns|.
    """
    h, label, lost = _proof_headings(rotations)
    if h is None:
        return None, label, lost
    step = np.diff(h)
    turns = int(np.count_nonzero(step < -180.0)) - int(np.count_nonzero(step > 180.0))
    return abs(float(h[-1] - h[0]) + 360.0 * turns), label, None


def prove_hips_in_place(skeleton, clip, grid, roles, trajectory: int) -> None:
    """``horizontal_drift`` / ``yaw_drift`` on the hips when they are not the trajectory bone.

    A trajectory bone that stays put above hips that travel or turn is still root
    motion: the hips' own horizontal model-space displacement first → last frame
    (float32) must be within max(1 cm, 1.5 × their largest horizontal step between
    neighbouring frames), and their yaw accumulation (the witness-axis rule above)
    within max(1°, 1.5 × their largest heading step): an open loop's wrap is a real
    frame, while a clip that walks or turns ends several steps away.
    """
    if not roles.has("hips") or int(roles.get("hips")) == int(trajectory):
        return
    hips = int(roles.get("hips"))
    name = name_of_bone(skeleton, hips)
    pos = np.asarray(grid.model_position_m[:, hips]).astype(np.float32)
    drift = horizontal_drift_m(pos)
    step = float(np.hypot(np.diff(pos[:, 0]), np.diff(pos[:, 2])).max()) if pos.shape[0] > 1 else 0.0
    allowed = max(TOLERATED_DRIFT_M, VERTICAL_STEP_RATIO * step)
    moving = name_of_bone(skeleton, trajectory)
    if not (drift <= allowed):
        raise refuse(
            "horizontal_drift", clip.name, name, drift, max(CAP_HORIZONTAL_DRIFT_M, VERTICAL_STEP_RATIO * step),
            f"the hips {name!r} travel {shown(drift, CAP_HORIZONTAL_DRIFT_M, 4)} m horizontally between the first and "
            f"last frame (cap {CAP_HORIZONTAL_DRIFT_M:.4f} m, or {VERTICAL_STEP_RATIO:g}x their largest step between "
            f"neighbouring frames: {VERTICAL_STEP_RATIO * step:.4f} m) while the trajectory bone {moving!r} above them "
            "stays put, so the clip carries root motion on the hips and is not in place",
            TRAJECTORY_ADVICE,
        )
    h, _, _ = _proof_headings(grid.model_rotation[:, hips])
    if h is None:
        return  # the hips' heading axis is vertical somewhere: no yaw to prove beyond the trajectory bone's
    yaw, _, _ = yaw_accumulation_proof_deg(grid.model_rotation[:, hips])
    steps = np.abs((np.diff(h) + 180.0) % 360.0 - 180.0)
    turn = max(TOLERATED_YAW_DEG, VERTICAL_STEP_RATIO * float(steps.max()) if steps.size else 0.0)
    if yaw is not None and not (yaw <= turn):
        raise refuse(
            "yaw_drift", clip.name, name, yaw, max(CAP_YAW_DEG, VERTICAL_STEP_RATIO * float(steps.max())),
            f"the hips {name!r} turn {shown(yaw, CAP_YAW_DEG, 3)} deg between the first and last frame (cap "
            f"{CAP_YAW_DEG:.3f} deg, or {VERTICAL_STEP_RATIO:g}x their largest heading step: "
            f"{VERTICAL_STEP_RATIO * float(steps.max()):.3f} deg) while the trajectory bone {moving!r} above them "
            "does not, so the clip turns",
            TRAJECTORY_ADVICE,
        )


def horizontal_drift_m(positions: np.ndarray) -> float:
    """|h_last − h_0| over X/Z, computed in float32 and widened to float64."""
    p = np.asarray(positions).astype(np.float32)
    dx = np.float32(p[-1, 0] - p[0, 0])
    dz = np.float32(p[-1, 2] - p[0, 2])
    return float(np.hypot(dx, dz))


def vertical_drift_m(positions: np.ndarray) -> Tuple[float, float]:
    """(|y_last − y_0|, max_k |y_(k+1) − y_k|), computed in float32 and widened to float64."""
    y = np.asarray(positions)[:, 1].astype(np.float32)
    endpoints = abs(float(np.float32(y[-1] - y[0])))
    steps = np.abs(np.diff(y))
    return endpoints, float(steps.max()) if steps.size else 0.0


def shown(value: float, cap: float, digits: int) -> str:
    """``value`` to ``digits`` decimals, or to 9 significant digits when that would print as the cap."""
    text = fixed(value, digits)
    if value > cap and float(text) <= cap:
        return f"{value:.9g}"
    return text


def prove_trajectory(skeleton, clip, grid, bone: int, label: str) -> Tuple[float, float, str, float]:
    """(horizontal drift_m, yaw_deg, axis, vertical drift_m) of the trajectory bone, or a refusal."""
    name = name_of_bone(skeleton, bone)
    pos = grid.model_position_m
    if not bool(np.all(np.isfinite(pos))) or not bool(np.all(np.isfinite(grid.model_rotation))):
        bad = ~np.isfinite(pos).all(axis=(1, 2)) | ~np.isfinite(grid.model_rotation).all(axis=(1, 2))
        f = int(np.argmax(bad))
        raise refuse(
            "non_finite", clip.name, name, "non-finite", "finite",
            f"the sampled pose is non-finite at frame {f} ({label} {name!r})",
            "repair the rig's rest transforms or the clip's keys in the DCC",
        )
    rot = grid.model_rotation[:, bone]
    qn = np.linalg.norm(rot, axis=-1)
    if not bool(np.all(qn > 0)):
        f = int(np.argmax(~(qn > 0)))
        raise refuse(
            "non_finite", clip.name, name, 0.0, "> 0",
            f"the {label} bone has a zero rotation at frame {f}",
            "repair the rotation keys in the DCC",
        )
    drift = horizontal_drift_m(pos[:, bone])
    yaw, axis, lost = yaw_accumulation_proof_deg(rot)
    if lost is not None:
        raise refuse(
            "no_heading", clip.name, name, f"frame {lost}", f"horizontal projection > {F32_EPS:.3g}",
            f"the {label} bone's local {axis} heading axis (chosen at frame 0) loses its horizontal projection at "
            f"frame {lost}, so its yaw cannot be proven",
            TRAJECTORY_ADVICE,
        )
    yaw_text = f"yaw {shown(yaw, CAP_YAW_DEG, 3)} deg (cap {CAP_YAW_DEG:.3f} deg)"
    drift_text = f"horizontal translation {shown(drift, CAP_HORIZONTAL_DRIFT_M, 4)} m (cap {CAP_HORIZONTAL_DRIFT_M:.4f} m)"
    if not (drift <= TOLERATED_DRIFT_M):
        raise refuse(
            "horizontal_drift", clip.name, name, drift, CAP_HORIZONTAL_DRIFT_M,
            f"the {label} bone accumulates {drift_text} and {yaw_text} between the first and last frame, "
            "so the clip is not in place",
            TRAJECTORY_ADVICE,
        )
    if not (yaw <= TOLERATED_YAW_DEG):
        raise refuse(
            "yaw_drift", clip.name, name, yaw, CAP_YAW_DEG,
            f"the {label} bone accumulates {yaw_text} and {drift_text} between the first and last frame, "
            "so the clip turns",
            TRAJECTORY_ADVICE,
        )
    rise, step = vertical_drift_m(pos[:, bone])
    if not (rise <= max(TOLERATED_DRIFT_M, VERTICAL_STEP_RATIO * step)):
        way = "higher" if float(pos[-1, bone, 1]) > float(pos[0, bone, 1]) else "lower"
        raise refuse(
            "vertical_drift", clip.name, name, rise, max(CAP_HORIZONTAL_DRIFT_M, VERTICAL_STEP_RATIO * step),
            f"the {label} bone ends {shown(rise, CAP_HORIZONTAL_DRIFT_M, 4)} m {way} than it starts (cap "
            f"{CAP_HORIZONTAL_DRIFT_M:.4f} m, or {VERTICAL_STEP_RATIO:g}x its largest step between neighbouring frames: "
            f"{VERTICAL_STEP_RATIO * step:.4f} m), so the clip climbs or descends and is not in place",
            TRAJECTORY_ADVICE,
        )
    return drift, yaw, axis, rise


def stride_metrics(grid, roles):
    from animsmith.core.gait import gait_metrics

    return gait_metrics(grid, roles)


def prove_stride_anchor(skeleton, clip, grid, roles):
    """GaitMetrics with a phase and amplitude >= 0.03 m (within 1e-6 m, as ``gait-group``
    counts a member at its floor), or a refusal."""
    from animsmith.core.tolerance import below

    gm = stride_metrics(grid, roles)
    hips = roles.names.get("hips") if roles.has("hips") else None
    amp = gm.lr_amplitude_m
    if gm.gait_phase is None:
        if amp is not None and amp > 0.0 and below(amp, MIN_LR_AMPLITUDE_M):
            raise _low_amplitude(clip.name, hips, amp)
        raise refuse(
            "no_stride_anchor", clip.name, hips, None, "a measurable stride anchor",
            f"no usable stride anchor ({gm.gait_phase_unavailable or 'unmeasurable'})",
            "map hips and both feet in [rig.roles] if they are unresolved; a clip that does not alternate its feet "
            "cannot be gait-anchored — align it with runtime phase offsets instead",
        )
    if amp is None or below(amp, MIN_LR_AMPLITUDE_M):
        raise _low_amplitude(clip.name, hips, amp)
    return gm


def _low_amplitude(clip: str, hips: Optional[str], amp: Optional[float]) -> Refusal:
    shown = "n/a" if amp is None else f"{amp:.9g} m"
    return refuse(
        "low_amplitude", clip, hips, amp, MIN_LR_AMPLITUDE_M,
        f"left-right foot-height amplitude {shown} is below the {MIN_LR_AMPLITUDE_M:.2f} m floor, so the stride "
        "anchor is noise",
        "only gait-anchor clips that alternate their feet; align others with runtime phase offsets instead",
    )
