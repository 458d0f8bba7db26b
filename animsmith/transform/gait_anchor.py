"""Gait anchoring: rotate an in-place cyclic clip so its stride anchor lands at t = 0.

Selecting the operation *declares* the clip an in-place cyclic gait; every
proof below checks that declaration before anything is changed, and any
failure raises :class:`~animsmith.errors.Refusal` with a stable ``code``
(docs/transform.md has the catalogue). Nothing here writes files.

Proofs, in evaluation order (first failure refuses):

1. ``non_finite``: every key time, value and tangent of every channel is finite.
2. ``duplicate_channel``: at most one channel per (node, property), constant
   or not; ``unsupported_channel``: no morph-weight or node-less (pointer)
   channels, which the rewrite could not rotate with the bones.
3. ``no_trajectory_bone``: the clip's travel bone, the one every metric uses
   (``core.trajectory.travel_bone_of_clip``: the highest node on the chain from
   the scene root down to the hips that this clip animates, else the hips; a
   static scene node such as ``RootNode`` never is).
4. ``off_grid_key`` (grid): every channel's key times strictly increasing
   (exempt constant channels too); d = clip duration (s), I = d·fps must be a whole
   number n >= 1 within 4·eps32·max(|I|, 1); E = n + 1 declared frames at
   t_k = f32(k / fps).
5. ``budget_exceeded``: E × bones, E × channels and max(2, most keys) × bones
   are each at most 1,000,000 (inclusive), checked before any sampling.
6. Every channel that is not *exactly constant* (all keys bit-equal as
   float32 — +0 and −0 differ —, cubic tangents all zero; such channels are
   exempt and never change):
   ``cubic_track`` when CUBICSPLINE, ``off_grid_key`` when its first key is
   not at 0 s (an export that starts at frame 1: named as such, whatever its key
   count), ``key_count`` unless it has exactly E keys, ``off_grid_key`` unless
   key k is at exactly t_k and the last key is at exactly f32(d).
7. Sampling at the E frame times (full FK), then on the trajectory bone:
   ``non_finite`` for a non-finite pose; ``no_heading`` when the heading axis
   loses its horizontal projection; ``horizontal_drift`` when
   |h_last − h_0| (X/Z, float32) exceeds 1 cm; ``yaw_drift`` when the yaw
   accumulation exceeds 1°; ``vertical_drift`` when |y_last − y_0| (float32)
   exceeds both 1 cm and 1.5× the largest |y_(k+1) − y_k| inside the clip (an
   open loop's wrap is a real frame step; a clip that climbs or descends ends
   higher or lower than any one step explains). Each cap is inclusive and
   allows exactly four float32 successors of f32(cap) (authored
   quantisation), nothing else. When the hips are not the trajectory bone
   (an animated ``Root`` above them), the hips are proven too
   (:func:`prove_hips_in_place`): a trajectory bone that stays put above hips
   that walk away or turn is root motion, refused with ``horizontal_drift`` /
   ``yaw_drift`` naming the hips and how far they travel.
   Yaw: at sample 0 the local +Z, +Y or +X axis with the largest horizontal
   projection of the bone's model rotation (ties keep that order) is kept for
   every sample; heading_f = atan2(x, z) in float64; a step > 180° counts −1
   turn, a step < −180° counts +1; yaw = |heading_last − heading_0 + 360·turns|.
8. ``no_stride_anchor`` / ``low_amplitude``: the core's stride anchor
   (``core.gait.gait_metrics`` on the E-sample grid) must exist and the L−R
   amplitude must be >= 0.03 m (within 1e-6 m, as ``gait-group`` counts it).

The cycle (checked after 8): P = E − 1 key frames when every rotated channel's
last key repeats its first within the endpoint tolerance (``core.endpoint``:
0.1 mm in model space, 0.01°, 1e-4 relative scale — float noise, not a real
difference; E = 3 then refuses ``no_stride_anchor``: 2
unique frames), else P = E (an open loop: the wrap step is a real frame) — unless
the rotated channels that repeat their first key while moving at the wrap are at
least as many as those that do not repeat it: ``mixed_endpoint`` (either cycle
would move one kind's seam into the clip: a pose held for two frames, or a
closing key that is not the first pose).

The rewrite: s = round_half_away(anchor·P) where anchor is the clip fraction
of the first trough (gait_phase / cycles); among s, s−1, s+1 (that order) the
candidate with the smallest re-measured loop-seam ratio wins. Ratios at or
below 1 (the wrap step is no larger than its neighbours: seamless) and a
missing ratio (neighbouring foot steps under the 2 cm floor) rank equal as 1,
and ranks within ``SEAM_TIE_TOLERANCE`` (0.05) of the best are ties; a tie
goes to the candidate whose re-measured anchor is nearest 0, then to s. So
seam noise on a seamless loop never moves the anchor off the nearest frame;
a neighbour replaces s only when s's rank is more than 0.05 above the best
(a real pop). Every nonconstant channel's key values are rotated left over
the cycle: new[k] = old[(k + s) mod P] for k < P, and with a duplicated
endpoint the last key repeats the new first one (new[E − 1] = new[0] =
old[s]), so the loop stays closed and no pose is held twice mid-clip (a
closing key that was not a bit-identical copy is the one value not carried
over: ``closing_key_delta``). Times, interpolation and duration are unchanged
and nothing is resampled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from animsmith.errors import Refusal
from animsmith.numtext import fixed

CAP_HORIZONTAL_DRIFT_M = 0.01
CAP_YAW_DEG = 1.0
#: ``vertical_drift`` allows an endpoint rise of this many times the clip's largest
#: frame-to-frame vertical step (an open loop's wrap is a real step; loop-seam's 1.5)
VERTICAL_STEP_RATIO = 1.5
AUTHORED_F32_ULPS = 4
WORK_BUDGET_SAMPLES = 1_000_000
MIN_LR_AMPLITUDE_M = 0.03
GRID_TOLERANCE_EPS = 4.0
#: seam ranks within this of the best are ties (sampling noise of a seamless
#: loop), decided by the re-measured anchor nearest 0: s±1 wins on seam
#: grounds only when s ranks more than this above it.
SEAM_TIE_TOLERANCE = 0.05
#: a wrap step no larger than its neighbouring steps (ratio <= 1) is seamless:
#: all such candidates rank equal.
SEAMLESS_RATIO = 1.0
#: re-measured anchors this close (cycles) are a tie: float noise of an exact half-frame tie
ANCHOR_TIE_CYCLES = 1e-9
F32_EPS = float(np.finfo(np.float32).eps)

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


def f32_successor(value: float, ulps: int = AUTHORED_F32_ULPS) -> float:
    """The float32 ``ulps`` steps above f32(value), widened to float64 (value > 0)."""
    bits = np.array([value], dtype=np.float32).view(np.uint32)[0]
    return float(np.array([bits + np.uint32(ulps)], dtype=np.uint32).view(np.float32)[0])


TOLERATED_DRIFT_M = f32_successor(CAP_HORIZONTAL_DRIFT_M)
TOLERATED_YAW_DEG = f32_successor(CAP_YAW_DEG)


def round_half_away(x: float) -> int:
    """Nearest integer, halves away from zero (Rust ``f64::round``)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def frame_times_f32(frames: int, fps: float) -> np.ndarray:
    """(E,) float32 t_k = f32(k / fps), k / fps computed in float64."""
    return (np.arange(frames, dtype=np.float64) / float(fps)).astype(np.float32)


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


@dataclass
class AnchorPlan:
    """The proven rewrite of one clip (everything the patch and the report need)."""

    clip: str
    clip_index: int
    fps: float
    frames: int
    duration_s: float
    shift_frames: int
    frame_offset: int
    phase_before: float
    phase_after: float
    seam_ratio: Optional[float]
    cycles: int
    lr_amplitude_m: float
    trajectory_bone: str
    trajectory_role: str
    horizontal_drift_m: float
    yaw_deg: float
    #: |y_last − y_0| of the trajectory bone (float32, widened), proven by ``vertical_drift``
    vertical_drift_m: float
    heading_axis: str
    #: key frames in one cycle: E (open loop) or E − 1 (duplicated endpoint)
    period_frames: int
    rotated_channels: List[int] = field(default_factory=list)
    exempt_channels: List[int] = field(default_factory=list)
    #: largest component difference of a closing key from the first key, rotations
    #: sign-invariantly (0.0: every closing key was the same value or rotation)
    closing_key_delta: float = 0.0

    @property
    def endpoint(self) -> str:
        """``"duplicated_endpoint"`` (the last key repeats the first) or ``"open"``."""
        return "duplicated_endpoint" if self.period_frames == self.frames - 1 else "open"

    @property
    def order(self) -> np.ndarray:
        """The source key of each of the E output keys of a rotated channel (:func:`key_order`)."""
        return key_order(self.frames, self.shift_frames, self.period_frames)

    def to_json(self) -> Dict[str, Any]:
        """The ``clips[]`` entry of ``transform --format json``."""
        return {
            "name": self.clip,
            "phase_before": round(self.phase_before, 6),
            "phase_after": round(self.phase_after, 6),
            "shift_frames": self.shift_frames,
            "frames": self.frames,
            "fps": self.fps,
            "seam_ratio": None if self.seam_ratio is None else round(self.seam_ratio, 6),
            "frame_offset": self.frame_offset,
            "cycles": self.cycles,
            "lr_amplitude_m": round(self.lr_amplitude_m, 6),
            "trajectory_bone": self.trajectory_bone,
            "trajectory_role": self.trajectory_role,
            "horizontal_drift_m": self.horizontal_drift_m,
            "yaw_deg": self.yaw_deg,
            "vertical_drift_m": self.vertical_drift_m,
            "rotated_channels": len(self.rotated_channels),
            "exempt_channels": len(self.exempt_channels),
            "endpoint": self.endpoint,
            "period_frames": self.period_frames,
            "closing_key_delta": self.closing_key_delta,
        }

    def text_line(self, dry_run: bool = False) -> str:
        from animsmith.render.text import phase_text

        seam = "n/a" if self.seam_ratio is None else f"{self.seam_ratio:.2f}"
        verb = "would gait-anchor" if dry_run else "gait-anchored"
        return (
            f"{verb} {self.clip!r}: phase {phase_text(self.phase_before)} -> {phase_text(self.phase_after)} "
            f"(shift {self.shift_frames} frames, seam {seam})"
        )


# --------------------------------------------------------------------------
# Refusal helpers
# --------------------------------------------------------------------------


def _refuse(code: str, clip: str, bone: Optional[str], measured: Any, limit: Any, what: str, advice: str, **extra) -> Refusal:
    where = f"clip {clip!r}" + (f", bone {bone!r}" if bone else "")
    message = f"cannot gait-anchor {where}: {what}; {advice}"
    return Refusal(code=code, message=message, clip=clip, bone=bone, measured=measured, limit=limit, extra=extra)


def _bone_name(skeleton, bone: int) -> str:
    try:
        return str(skeleton.names[int(bone)])
    except (IndexError, ValueError, TypeError):
        return f"bone{bone}"


def _channel_label(skeleton, index: int, ch) -> str:
    return f"channel {index} ({ch.path} of {_bone_name(skeleton, ch.bone)!r})"


# --------------------------------------------------------------------------
# Proof steps (each returns or raises)
# --------------------------------------------------------------------------


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
                raise _refuse(
                    "non_finite", clip.name, _bone_name(skeleton, ch.bone), "non-finite", "finite",
                    f"{_channel_label(skeleton, i, ch)} has a non-finite {label} at key {key} (measured "
                    f"{float(a[tuple(bad)])!r}, required finite)",
                    "repair the source keys in the DCC and re-export",
                )


def prove_unique_channels(skeleton, clip) -> None:
    """``duplicate_channel``: a second channel for the same (node, property)."""
    seen: Dict[Tuple[int, str], int] = {}
    for i, ch in enumerate(clip.channels):
        key = (int(ch.node), ch.path)
        if key in seen:
            raise _refuse(
                "duplicate_channel", clip.name, _bone_name(skeleton, ch.bone), 2, 1,
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
        raise _refuse(
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
    raise _refuse(
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
            raise _refuse(
                "off_grid_key", clip.name, _bone_name(skeleton, ch.bone), float(t[k]), f"> {float(t[k - 1])!r}",
                f"{_channel_label(skeleton, i, ch)} has key times that are not strictly increasing "
                f"(key {k} at {float(t[k]):.6f} s after {float(t[k - 1]):.6f} s)",
                "repair the source keys in the DCC and re-export",
            )


def declared_frames(clip, fps: float, bone_label: str) -> Tuple[int, float]:
    """(E, d): E = d·fps + 1 declared frames, or ``off_grid_key`` / ``budget_exceeded``."""
    d = float(clip.duration_s)
    fps = float(fps)
    if not (math.isfinite(fps) and fps > 0):
        raise _refuse("off_grid_key", clip.name, bone_label, fps, "> 0", f"frame rate {fps!r} is not positive", GRID_ADVICE)
    if not (math.isfinite(d) and d > 0):
        raise _refuse(
            "off_grid_key", clip.name, bone_label, d, "> 0 s",
            f"the clip has no positive duration (measured {d:.6f} s)", GRID_ADVICE,
        )
    interval = d * fps
    if not math.isfinite(interval):
        raise _refuse(
            "budget_exceeded", clip.name, bone_label, "unbounded", WORK_BUDGET_SAMPLES,
            f"{d:.6f} s at {fps:g} fps is not a representable frame count", GRID_ADVICE,
        )
    n = round_half_away(interval)
    tol = GRID_TOLERANCE_EPS * F32_EPS * max(abs(interval), 1.0)
    if abs(interval - n) > tol or n < 1:
        raise _refuse(
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
            raise _refuse(
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
        bone = _bone_name(skeleton, ch.bone)
        label = _channel_label(skeleton, i, ch)
        if ch.interpolation == "CUBICSPLINE":
            raise _refuse(
                "cubic_track", clip.name, bone, "CUBICSPLINE", "LINEAR or STEP",
                f"{label} is a nonconstant CUBICSPLINE channel; rotating its keys would change its tangents' meaning",
                "bake it to LINEAR keys, one per frame, in the DCC, or use runtime phase offsets instead",
            )
        t0 = np.float32(ch.times[0])
        if t0 != grid[0]:
            raise _refuse(
                "off_grid_key", clip.name, bone, float(t0), float(grid[0]),
                f"{label} starts at {float(t0):.6f} s, not 0 s: a runtime plays the clip from 0 s and holds "
                f"its first pose until then, so its keys are not the clip's frames at {fps:g} fps",
                LATE_START_ADVICE,
            )
        k = ch.key_count
        if k != frames:
            raise _refuse(
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
            raise _refuse(
                "off_grid_key", clip.name, bone, float(t[j]), want,
                f"{label} key {j} is at {float(t[j]):.9f} s, required frame time {want:.9f} s at {fps:g} fps "
                "(sparse, duplicate-time and off-grid keys cannot be rotated losslessly)",
                GRID_ADVICE,
            )
        rotated.append(i)
    return rotated, exempt


def heading_witness(q0: np.ndarray) -> Tuple[str, np.ndarray, float]:
    """(label, local axis, projection length) of the +Z/+Y/+X axis with the largest horizontal projection.

    ``q0`` is a unit quaternion (x, y, z, w); ties keep the order +Z, +Y, +X.
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

    q = np.asarray(rotations, dtype=np.float64)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = q / norm
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
    name = _bone_name(skeleton, hips)
    pos = np.asarray(grid.model_position_m[:, hips]).astype(np.float32)
    drift = horizontal_drift_m(pos)
    step = float(np.hypot(np.diff(pos[:, 0]), np.diff(pos[:, 2])).max()) if pos.shape[0] > 1 else 0.0
    allowed = max(TOLERATED_DRIFT_M, VERTICAL_STEP_RATIO * step)
    moving = _bone_name(skeleton, trajectory)
    if not (drift <= allowed):
        raise _refuse(
            "horizontal_drift", clip.name, name, drift, max(CAP_HORIZONTAL_DRIFT_M, VERTICAL_STEP_RATIO * step),
            f"the hips {name!r} travel {_shown(drift, CAP_HORIZONTAL_DRIFT_M, 4)} m horizontally between the first and "
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
        raise _refuse(
            "yaw_drift", clip.name, name, yaw, max(CAP_YAW_DEG, VERTICAL_STEP_RATIO * float(steps.max())),
            f"the hips {name!r} turn {_shown(yaw, CAP_YAW_DEG, 3)} deg between the first and last frame (cap "
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


def _shown(value: float, cap: float, digits: int) -> str:
    """``value`` to ``digits`` decimals, or to 9 significant digits when that would print as the cap."""
    text = fixed(value, digits)
    if value > cap and float(text) <= cap:
        return f"{value:.9g}"
    return text


def prove_trajectory(skeleton, clip, grid, bone: int, label: str) -> Tuple[float, float, str, float]:
    """(horizontal drift_m, yaw_deg, axis, vertical drift_m) of the trajectory bone, or a refusal."""
    name = _bone_name(skeleton, bone)
    pos = grid.model_position_m
    if not bool(np.all(np.isfinite(pos))) or not bool(np.all(np.isfinite(grid.model_rotation))):
        bad = ~np.isfinite(pos).all(axis=(1, 2)) | ~np.isfinite(grid.model_rotation).all(axis=(1, 2))
        f = int(np.argmax(bad))
        raise _refuse(
            "non_finite", clip.name, name, "non-finite", "finite",
            f"the sampled pose is non-finite at frame {f} ({label} {name!r})",
            "repair the rig's rest transforms or the clip's keys in the DCC",
        )
    rot = grid.model_rotation[:, bone]
    qn = np.linalg.norm(rot, axis=-1)
    if not bool(np.all(qn > 0)):
        f = int(np.argmax(~(qn > 0)))
        raise _refuse(
            "non_finite", clip.name, name, 0.0, "> 0",
            f"the {label} bone has a zero rotation at frame {f}",
            "repair the rotation keys in the DCC",
        )
    drift = horizontal_drift_m(pos[:, bone])
    yaw, axis, lost = yaw_accumulation_proof_deg(rot)
    if lost is not None:
        raise _refuse(
            "no_heading", clip.name, name, f"frame {lost}", f"horizontal projection > {F32_EPS:.3g}",
            f"the {label} bone's local {axis} heading axis (chosen at frame 0) loses its horizontal projection at "
            f"frame {lost}, so its yaw cannot be proven",
            TRAJECTORY_ADVICE,
        )
    yaw_text = f"yaw {_shown(yaw, CAP_YAW_DEG, 3)} deg (cap {CAP_YAW_DEG:.3f} deg)"
    drift_text = f"horizontal translation {_shown(drift, CAP_HORIZONTAL_DRIFT_M, 4)} m (cap {CAP_HORIZONTAL_DRIFT_M:.4f} m)"
    if not (drift <= TOLERATED_DRIFT_M):
        raise _refuse(
            "horizontal_drift", clip.name, name, drift, CAP_HORIZONTAL_DRIFT_M,
            f"the {label} bone accumulates {drift_text} and {yaw_text} between the first and last frame, "
            "so the clip is not in place",
            TRAJECTORY_ADVICE,
        )
    if not (yaw <= TOLERATED_YAW_DEG):
        raise _refuse(
            "yaw_drift", clip.name, name, yaw, CAP_YAW_DEG,
            f"the {label} bone accumulates {yaw_text} and {drift_text} between the first and last frame, "
            "so the clip turns",
            TRAJECTORY_ADVICE,
        )
    rise, step = vertical_drift_m(pos[:, bone])
    if not (rise <= max(TOLERATED_DRIFT_M, VERTICAL_STEP_RATIO * step)):
        way = "higher" if float(pos[-1, bone, 1]) > float(pos[0, bone, 1]) else "lower"
        raise _refuse(
            "vertical_drift", clip.name, name, rise, max(CAP_HORIZONTAL_DRIFT_M, VERTICAL_STEP_RATIO * step),
            f"the {label} bone ends {_shown(rise, CAP_HORIZONTAL_DRIFT_M, 4)} m {way} than it starts (cap "
            f"{CAP_HORIZONTAL_DRIFT_M:.4f} m, or {VERTICAL_STEP_RATIO:g}x its largest step between neighbouring frames: "
            f"{VERTICAL_STEP_RATIO * step:.4f} m), so the clip climbs or descends and is not in place",
            TRAJECTORY_ADVICE,
        )
    return drift, yaw, axis, rise


def _stride(grid, roles):
    from animsmith.core.gait import gait_metrics

    return gait_metrics(grid, roles)


def prove_stride_anchor(skeleton, clip, grid, roles):
    """GaitMetrics with a phase and amplitude >= 0.03 m (within 1e-6 m, as ``gait-group``
    counts a member at its floor), or a refusal."""
    from animsmith.checks._group import below

    gm = _stride(grid, roles)
    hips = roles.names.get("hips") if roles.has("hips") else None
    amp = gm.lr_amplitude_m
    if gm.gait_phase is None:
        if amp is not None and amp > 0.0 and below(amp, MIN_LR_AMPLITUDE_M):
            raise _low_amplitude(clip.name, hips, amp)
        raise _refuse(
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
    return _refuse(
        "low_amplitude", clip, hips, amp, MIN_LR_AMPLITUDE_M,
        f"left-right foot-height amplitude {shown} is below the {MIN_LR_AMPLITUDE_M:.2f} m floor, so the stride "
        "anchor is noise",
        "only gait-anchor clips that alternate their feet; align others with runtime phase offsets instead",
    )


def key_order(count: int, shift: int, period: int) -> np.ndarray:
    """The source key of every output key: k -> (k mod P + s) mod P for k = 0..E−1.

    P = E: new[k] = old[(k + s) mod E] (an open loop). P = E − 1: the same over the
    first E − 1 keys, and the last key repeats the new first one (a duplicated
    endpoint stays duplicated).
    """
    k = np.arange(int(count))
    return (k % int(period) + int(shift)) % int(period)


def _rolled_grid(grid, shift: int, period: Optional[int] = None):
    """The grid of the clip rotated left by ``shift`` keys over ``period`` (default E) (:func:`key_order`)."""
    from animsmith.model import PoseGrid

    frames = grid.model_position_m.shape[0]
    order = key_order(frames, shift, frames if period is None else period)

    return PoseGrid(
        times_s=grid.times_s,
        local_translation=None,
        local_rotation=None,
        local_scale=None,
        model_matrix=None,
        model_position_m=grid.model_position_m[order],
        model_rotation=None,
        duration_s=grid.duration_s,
    )


def _seam_rank(seam: Optional[float]) -> float:
    """Seam rank of one candidate: max(ratio, 1); no ratio (every neighbouring
    foot step under the core's 2 cm floor, ``measure``'s "n/a") ranks 1 too.

    Ratio <= 1 means the wrap step is no larger than its neighbours (no pop);
    a ratio can be missing only when the feet barely move around the wrap,
    which is exactly where the stride anchor's trough puts it, so "missing"
    must not lose to a measurable but larger step.
    """
    return SEAMLESS_RATIO if seam is None else max(float(seam), SEAMLESS_RATIO)


def choose_shift(grid, roles, anchor_fraction: float, frames: int, period: Optional[int] = None):
    """(shift, frame_offset, GaitMetrics after, seam ratio or None) — see the module docstring.

    Candidates s, s−1, s+1 (s = round_half_away(anchor·P), P = ``period``, default
    E = ``frames``), each applied over the cycle (:func:`key_order`). The best seam rank
    r* wins; candidates within ``SEAM_TIE_TOLERANCE`` of r* are ties, and a
    tie goes to the candidate whose re-measured anchor (``gait_phase``) is
    nearest 0 on the unit circle, then to the earlier of s, s−1, s+1.
    """
    from animsmith.core.circular import circular_distance_cycles
    from animsmith.core.gait import loop_seam_ratio

    period = frames if period is None else int(period)
    base = round_half_away(anchor_fraction * period)
    measured = []
    for order, offset in enumerate((0, -1, 1)):
        shift = (base + offset) % period
        rolled = _rolled_grid(grid, shift, period)
        gm = _stride(rolled, roles)
        if gm.gait_phase is None:
            continue
        seam, _ = loop_seam_ratio(rolled, roles)
        anchor_err = circular_distance_cycles(float(gm.gait_phase), 0.0)
        measured.append((_seam_rank(seam), anchor_err, order, shift, offset, gm, seam))
    if not measured:
        return None
    best_rank = min(m[0] for m in measured)
    tied = [m for m in measured if m[0] <= best_rank + SEAM_TIE_TOLERANCE]
    nearest = min(m[1] for m in tied)
    # anchors within ANCHOR_TIE_CYCLES of the nearest are one tie (an exact half-frame tie
    # differs only by float noise): the earliest of s, s−1, s+1 among them wins
    best = min((m for m in tied if m[1] <= nearest + ANCHOR_TIE_CYCLES), key=lambda m: m[2])
    return best[3], best[4], best[5], best[6]


# --------------------------------------------------------------------------
# Whole proof
# --------------------------------------------------------------------------


def prove_gait_anchor(asset, clip, roles, fps: float) -> AnchorPlan:
    """Run every proof on ``clip`` and return the plan, or raise :class:`Refusal`."""
    from animsmith.core.pose import sample_pose

    sk = asset.skeleton
    prove_finite(sk, clip)
    prove_unique_channels(sk, clip)
    prove_supported_channels(asset, clip)
    bone, label = trajectory_bone(sk, clip, roles)
    bone_name = _bone_name(sk, bone)
    prove_increasing_times(sk, clip)
    frames, duration = declared_frames(clip, fps, bone_name)
    prove_budget(sk, clip, frames, bone_name)
    rotated, exempt = classify_channels(sk, clip, frames, fps, duration)
    if frames < 3:
        raise _refuse(
            "no_stride_anchor", clip.name, bone_name, frames, 3,
            f"only {frames} frames at {fps:g} fps; a stride needs at least 3",
            "gait-anchor only whole cycles; use runtime phase offsets instead",
        )
    times = frame_times_f32(frames, fps).astype(np.float64)
    grid = sample_pose(sk, clip, times)
    drift, yaw, axis, rise = prove_trajectory(sk, clip, grid, bone, label)
    prove_hips_in_place(sk, clip, grid, roles, bone)
    gm = prove_stride_anchor(sk, clip, grid, roles)
    cycles = int(gm.cycles or 1)
    anchor_fraction = float(gm.gait_phase) / cycles
    period, closing_delta = cycle_period(sk, clip, rotated, frames, bone, trajectory_closing(grid, bone))
    chosen = choose_shift(grid, roles, anchor_fraction, frames, period)
    if chosen is None:
        raise _refuse(
            "no_stride_anchor", clip.name, roles.names.get("hips"), None, "a measurable candidate",
            "no rotation candidate (s-1, s, s+1) has a measurable stride anchor",
            "align the clip with runtime phase offsets instead",
        )
    shift, offset, gm_after, seam = chosen
    return AnchorPlan(
        clip=clip.name,
        clip_index=int(clip.index),
        fps=float(fps),
        frames=frames,
        duration_s=duration,
        shift_frames=int(shift),
        frame_offset=int(offset),
        phase_before=float(gm.gait_phase),
        phase_after=float(gm_after.gait_phase),
        seam_ratio=seam,
        cycles=cycles,
        lr_amplitude_m=float(gm.lr_amplitude_m),
        trajectory_bone=bone_name,
        trajectory_role=label,
        horizontal_drift_m=drift,
        yaw_deg=yaw,
        vertical_drift_m=rise,
        heading_axis=axis,
        rotated_channels=rotated,
        exempt_channels=exempt,
        period_frames=period,
        closing_key_delta=closing_delta,
    )


def cycle_period(
    skeleton, clip, rotated: Sequence[int], frames: int, trajectory: Optional[int] = None, closing: Tuple[float, float] = (0.0, 0.0)
) -> Tuple[int, float]:
    """(key frames in one cycle, closing-key delta).

    The convention is read from the rotated channels other than the trajectory bone's
    translation and rotation (``trajectory``), whose endpoints the drift and yaw proofs
    already bound:

    * every one of them repeats its first key (``core.endpoint``'s tolerance, judged in model
      space: 0.1 mm, 0.01°, 1e-4 relative scale — float storage and exporter noise) → E − 1, a duplicated
      endpoint. The trajectory bone must then close within the in-place caps (+4 float32
      ulps): ``closing`` = (its 3-D model-space distance between the first and last frame in
      metres, the angle between its first and last model rotations in degrees) within 1 cm
      and 1°, else ``mixed_endpoint``. The delta is the largest component
      difference between a closing key and the first key (rotations sign-invariantly: −q is
      the same rotation); every closing key is replaced by an exact copy of the new first key
      (a simulator or DCC that evaluates t = 0 and t = d separately leaves last-bit
      differences; a root within the caps loses its sub-centimetre, sub-degree drift);
    * some do and some do not, and those that do while moving on both sides of the wrap
      (``_moves_at_wrap``; one still on either side closes under either convention) are at
      least as many as those that do not → ``mixed_endpoint``: either cycle would move one
      kind's seam into the clip;
    * else (E, 0.0): an open loop (the wrap step is a real frame).

    Refuses ``no_stride_anchor`` for a duplicated endpoint on 3 keys (2 unique frames).
    """
    from animsmith.core.endpoint import last_key_repeats_first

    def opens(i: int) -> bool:
        return not last_key_repeats_first(skeleton, clip.channels[i])

    root = [i for i in rotated if clip.channels[i].bone == trajectory and clip.channels[i].path in ("translation", "rotation")]
    vote = [i for i in rotated if i not in root]
    if not vote:
        return frames, 0.0
    open_ones = [i for i in vote if opens(i)]
    if open_ones:
        closing_moving = sum(1 for i in vote if i not in open_ones and _moves_at_wrap(skeleton, clip.channels[i]))
        if closing_moving and closing_moving >= len(open_ones):
            ch = clip.channels[open_ones[0]]
            raise _mixed(
                skeleton, clip, open_ones[0],
                f"{closing_moving} rotated channel{'s' if closing_moving != 1 else ''} moving at the wrap end on "
                f"{'their' if closing_moving != 1 else 'its'} first key (a duplicated endpoint) "
                f"and {len(open_ones)} {'does' if len(open_ones) == 1 else 'do'} not: "
                f"{_channel_label(skeleton, open_ones[0], ch)} {_closing_gap_text(skeleton, ch)}"
                f"{'' if len(open_ones) == 1 else ' (the first of them)'}",
            )
        return frames, 0.0
    for i in root:
        ch = clip.channels[i]
        if not opens(i):
            continue
        # measured on the pose (metres in model space, as the drift proofs are), not on the
        # channel's own values, which are in the file's units (centimetres under a 0.01 parent)
        if ch.path == "rotation":
            gap, cap, tolerated, unit, digits = closing[1], CAP_YAW_DEG, TOLERATED_YAW_DEG, "deg", 3
        else:
            gap, cap, tolerated, unit, digits = closing[0], CAP_HORIZONTAL_DRIFT_M, TOLERATED_DRIFT_M, "m", 4
        if not (gap <= tolerated):
            raise _mixed(
                skeleton, clip, i,
                f"every other rotated channel ends on its first key (a duplicated endpoint) but "
                f"{_channel_label(skeleton, i, ch)} leaves the bone {_shown(gap, cap, digits)} {unit} from its "
                f"first frame's pose at the last frame (cap {cap:.{digits}f} {unit})",
            )
    if frames < 4:
        raise _refuse(
            "no_stride_anchor", clip.name, _bone_name(skeleton, clip.channels[vote[0]].bone), frames - 1, 3,
            f"the last of the {frames} keys repeats the first, leaving {frames - 1} unique frames; a stride needs at least 3",
            "gait-anchor only whole cycles; use runtime phase offsets instead",
        )
    delta = 0.0
    for i in rotated:
        ch = clip.channels[i]
        first, last = np.asarray(ch.values[0], dtype=np.float64), np.asarray(ch.values[-1], dtype=np.float64)
        d = float(np.max(np.abs(last - first)))
        if ch.path == "rotation":  # −q is the same rotation
            d = min(d, float(np.max(np.abs(last + first))))
        delta = max(delta, d)
    return frames - 1, delta


def trajectory_closing(grid, bone: int) -> Tuple[float, float]:
    """(metres, degrees): how far the trajectory bone's last frame is from its first in model
    space — the 3-D distance (float32) and the angle between the model rotations."""
    from animsmith.core.quat import angle_between_rad

    p = np.asarray(grid.model_position_m[:, bone], dtype=np.float32)
    q = np.asarray(grid.model_rotation[:, bone], dtype=np.float64)
    return float(np.linalg.norm(p[-1] - p[0])), math.degrees(float(angle_between_rad(q[0], q[-1])))


def _mixed(skeleton, clip, index: int, what: str) -> Refusal:
    """``mixed_endpoint``: the channels disagree on whether the last key repeats the first."""
    ch = clip.channels[index]
    return _refuse(
        "mixed_endpoint", clip.name, _bone_name(skeleton, ch.bone), _channel_label(skeleton, index, ch),
        "one endpoint convention",
        f"{what}; rotating over either cycle would move a seam into the clip "
        "(a pose held for two frames, or a closing key that is not the first pose)",
        "make the last frame repeat the first on every channel (or on none) in the DCC and re-export, "
        "or use runtime phase offsets instead",
    )


def _moves_at_wrap(skeleton, ch) -> bool:
    """The channel's first and last steps (key 0 → 1 and key E−2 → E−1) both move beyond the
    endpoint tolerance (``core.endpoint``). A channel still on either side (a foot planted
    into or out of the wrap) ends on its first key under either convention."""
    from animsmith.core.endpoint import step_moves

    return step_moves(skeleton, ch, 0) and step_moves(skeleton, ch, -2)


def _closing_gap_text(skeleton, ch) -> str:
    """How far a channel's last key is from its first: degrees for rotations (sign-invariant),
    metres in model space for translations (``core.endpoint.translation_unit_m``), else the
    largest component."""
    first = np.asarray(ch.values[0], dtype=np.float64)
    last = np.asarray(ch.values[-1], dtype=np.float64)
    if ch.path == "rotation":
        from animsmith.core.quat import angle_between_rad

        return f"ends {math.degrees(float(angle_between_rad(first, last))):.3g} deg from its first key"
    if ch.path == "translation":
        from animsmith.core.endpoint import translation_unit_m

        metres = float(np.linalg.norm(last - first)) * float(translation_unit_m(skeleton, [ch.bone])[0])
        return f"ends {metres:.3g} m from its first key"
    return f"ends {float(np.max(np.abs(last - first))):.3g} (largest component) from its first key"


def apply_plan_in_memory(clip, plan: AnchorPlan):
    """A copy of ``clip`` with the plan's channels rotated (tests, verification)."""
    from dataclasses import replace

    from animsmith.model import Clip

    chans = []
    rotated = set(plan.rotated_channels)
    for i, ch in enumerate(clip.channels):
        if i in rotated:
            chans.append(replace(ch, values=np.asarray(ch.values)[plan.order]))
        else:
            chans.append(ch)
    return Clip(name=clip.name, channels=chans, index=clip.index, weight_channel_count=clip.weight_channel_count, extras=clip.extras)


def measure_anchor_after(asset, clip, roles, plan: AnchorPlan):
    """Re-sample ``clip`` (already rewritten) on the plan's frame grid: GaitMetrics."""
    from animsmith.core.pose import sample_pose

    times = frame_times_f32(plan.frames, plan.fps).astype(np.float64)
    grid = sample_pose(asset.skeleton, clip, times)
    return _stride(grid, roles)
