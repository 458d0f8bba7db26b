"""Root trajectory: travel bone, speed, heading, distance, yaw, loop continuity.

* **Travel bone**: the ``root`` role when resolved, else ``hips``
  (``source_role = "hips_fallback"``).
* **Speed** ``speed_mps = hypot(Δx, Δz) / (t_last − t_first)``: horizontal (X/Z)
  endpoint displacement of the travel bone in model space between the first
  and last grid samples, over the time between them (= the clip duration on
  the judged grid). Out-and-back motion measures ~0: it is displacement, not
  path length.
* **Heading** ``heading_deg = atan2(Δx, Δz)`` in degrees: +Z = 0°, +X = 90°,
  −X = −90°, −Z = 180°. No heading when there is no horizontal travel
  (distance ≤ 1e-6 × max(1, largest endpoint coordinate): float32 noise).
* **Yaw accumulation** (issue 5 rule): see :func:`yaw_accumulation_deg`.
* **Loop continuity** per bone: see :func:`loop_continuity`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from animsmith.core import quat
from animsmith.core.pose import model_pose_at, model_positions_m, model_rotations

#: no heading when the horizontal travel is at most this fraction of
#: max(1, largest endpoint coordinate magnitude): float32 position noise
HEADING_NOISE_FRACTION = 1e-6
#: yaw: a projected axis shorter than this has no heading (float32 epsilon)
MIN_PROJECTION = float(np.finfo(np.float32).eps)
#: yaw: an adjacent-sample step within this many degrees of 180 is ambiguous
AMBIGUOUS_STEP_DEG = 1e-4


def travel_bone(roles) -> Tuple[Optional[int], str]:
    """(bone, "root" | "hips_fallback"), or (None, reason) when neither role resolved."""
    if roles.has("root"):
        return roles.get("root"), "root"
    if roles.has("hips"):
        return roles.get("hips"), "hips_fallback"
    return None, "neither root nor hips role resolved"


@dataclass
class RootSpeed:
    """Endpoint travel of the travel bone (None values carry ``*_unavailable`` reasons)."""

    speed_mps: Optional[float] = None
    speed_mps_unavailable: Optional[str] = None
    heading_deg: Optional[float] = None
    heading_deg_unavailable: Optional[str] = None
    distance_m: Optional[float] = None
    distance_m_unavailable: Optional[str] = None
    duration_s: Optional[float] = None
    displacement_m: Optional[Tuple[float, float, float]] = None
    travel_bone: Optional[str] = None
    travel_bone_index: Optional[int] = None
    source_role: Optional[str] = None


def heading_deg_of(dx: float, dz: float) -> float:
    """atan2(dx, dz) in degrees: +Z = 0, +X = 90, −Z = 180 (never −180: a −0.0 step in x,
    e.g. from keys 0.0 then −0.0, is no direction)."""
    return math.degrees(math.atan2(dx + 0.0, dz))


def root_speed(grid, roles) -> RootSpeed:
    """Speed, heading and distance of the travel bone (module docstring)."""
    bone, src = travel_bone(roles)
    out = RootSpeed()
    if bone is None:
        out.speed_mps_unavailable = out.heading_deg_unavailable = out.distance_m_unavailable = src
        return out
    out.travel_bone = roles.names.get("root" if src == "root" else "hips")
    out.travel_bone_index = int(bone)
    out.source_role = src
    n = grid.frame_count
    t = np.asarray(grid.times_s, dtype=np.float64)
    dur = float(t[-1] - t[0]) if n >= 2 else 0.0
    out.duration_s = float(grid.duration_s) if getattr(grid, "duration_s", 0.0) else dur
    if n < 2 or not (dur > 0.0) or not math.isfinite(dur):
        why = "clip has zero duration or fewer than 2 samples"
        out.speed_mps_unavailable = out.heading_deg_unavailable = out.distance_m_unavailable = why
        return out
    p = model_positions_m(grid, [bone])[:, 0, :]
    d = p[-1] - p[0]
    if not np.all(np.isfinite(d)):
        why = f"non-finite position of travel bone {out.travel_bone!r}"
        out.speed_mps_unavailable = out.heading_deg_unavailable = out.distance_m_unavailable = why
        return out
    dist = float(math.hypot(d[0], d[2]))
    out.displacement_m = (float(d[0]), float(d[1]), float(d[2]))
    out.distance_m = dist
    out.speed_mps = dist / dur
    noise = HEADING_NOISE_FRACTION * max(1.0, float(np.max(np.abs(p[[0, -1]]))))
    if dist <= noise:
        out.heading_deg_unavailable = "no horizontal travel (in place)"
    else:
        out.heading_deg = heading_deg_of(float(d[0]), float(d[2]))
    return out


# --------------------------------------------------------------------------
# Yaw
# --------------------------------------------------------------------------

def _axis_xz(q: np.ndarray, axis: str) -> Tuple[np.ndarray, np.ndarray]:
    """Model-space X and Z components of local ``axis`` ("+Z", "+Y", "+X") rotated by unit q (..., 4).

    These are the X and Z rows of the rotation-matrix column of that axis.
    """
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    if axis == "+Z":
        return 2.0 * (x * z + w * y), 1.0 - 2.0 * (x * x + y * y)
    if axis == "+Y":
        return 2.0 * (x * y - w * z), 2.0 * (y * z + w * x)
    return 1.0 - 2.0 * (y * y + z * z), 2.0 * (x * z - w * y)


def heading_series_deg(grid, bone: int) -> Tuple[Optional[np.ndarray], Optional[str], Optional[str]]:
    """(headings (N,) deg, axis label, None) or (None, None, reason).

    At sample 0 the local +Z, +Y or +X axis with the largest horizontal
    projection of the bone's model rotation is chosen (ties in that order; a
    later axis must be strictly longer); heading = atan2(x, z) of that rotated
    axis at every sample, float64.
    """
    q = quat.normalize(np.asarray(model_rotations(grid, [bone])[:, 0, :], dtype=np.float64))
    if not np.all(np.isfinite(q)):
        return None, None, "non-finite rotation"
    best_len, label = -1.0, "+Z"
    for axis in ("+Z", "+Y", "+X"):
        ax, az = _axis_xz(q[0], axis)
        length = math.hypot(float(ax), float(az))
        if length > best_len:
            best_len, label = length, axis
    if best_len <= MIN_PROJECTION:
        return None, None, "no local axis has a horizontal projection at the first sample"
    vx, vz = _axis_xz(q, label)
    proj = np.hypot(vx, vz)
    lost = proj <= MIN_PROJECTION
    if np.any(lost):
        i = int(np.argmax(lost))
        return None, None, f"the {label} axis loses its horizontal projection at {float(grid.times_s[i]):.3f}s"
    return np.degrees(np.arctan2(vx, vz)), label, None


def yaw_accumulation_deg(grid, bone: Optional[int]) -> Tuple[Optional[float], Optional[str]]:
    """Net heading change of ``bone`` over the clip, degrees (counted turns kept).

    heading per sample (see :func:`heading_series_deg`); every adjacent step
    is unwrapped into (−180, 180] by ±360; net = last − first + 360·turns,
    i.e. the sum of unwrapped steps, so two full turns read 720. A step within
    ``AMBIGUOUS_STEP_DEG`` of ±180 is ambiguous -> (None, reason).
    """
    if bone is None:
        return None, "no travel bone"
    if grid.frame_count < 2:
        return None, "fewer than 2 samples"
    h, _, reason = heading_series_deg(grid, int(bone))
    if h is None:
        return None, reason
    step = np.diff(h)
    wrapped = (step + 180.0) % 360.0 - 180.0
    if np.any(np.abs(np.abs(wrapped) - 180.0) <= AMBIGUOUS_STEP_DEG):
        return None, "a heading step of 180° between adjacent samples is ambiguous"
    turns = np.round((wrapped - step) / 360.0)
    net = float(h[-1] - h[0] + 360.0 * turns.sum())
    return net, None


# --------------------------------------------------------------------------
# Loop continuity
# --------------------------------------------------------------------------


@dataclass
class LoopContinuity:
    """Per-bone wrap continuity, arrays of shape (B,) (None + reason when unavailable)."""

    position_delta_m: Optional[np.ndarray] = None
    rotation_delta_deg: Optional[np.ndarray] = None
    seam_velocity_delta_mps: Optional[np.ndarray] = None
    seam_angular_velocity_delta_degps: Optional[np.ndarray] = None
    unavailable: Optional[str] = None

    def worst(self, field_name: str) -> Tuple[Optional[int], Optional[float]]:
        """(bone, value) of the largest entry of one field."""
        a = getattr(self, field_name)
        if a is None or a.size == 0:
            return None, None
        b = int(np.argmax(a))
        return b, float(a[b])


def _rotation_vector(q: np.ndarray) -> np.ndarray:
    """(..., 4) unit quaternions -> rotation vectors (axis × angle, rad), w ≥ 0 hemisphere."""
    q = np.array(q, dtype=np.float64)
    w = q[..., 3]
    xyz = q[..., :3]
    # hemisphere: w > 0; if w == 0, first non-zero of x, y, z positive
    first_nz = np.where(xyz[..., 0] != 0, xyz[..., 0], np.where(xyz[..., 1] != 0, xyz[..., 1], xyz[..., 2]))
    flip = (w < 0) | ((w == 0) & (first_nz < 0))
    q = np.where(flip[..., None], -q, q)
    w = q[..., 3]
    xyz = q[..., :3]
    s = np.linalg.norm(xyz, axis=-1)
    angle = 2.0 * np.arctan2(s, w)
    scale = np.where(s > 0, angle / np.where(s > 0, s, 1.0), 2.0)  # small-angle limit: 2·xyz
    return xyz * scale[..., None]


def seam_sample_frames(n: int) -> List[int]:
    """The grid samples :func:`loop_continuity` reads (0, 1, N−2, N−1) of an N-sample grid."""
    return [0, 1, n - 2, n - 1]


def loop_continuity(grid) -> LoopContinuity:
    """Per bone (vectorised), with p/q the model position/rotation at samples 0, 1, N−2, N−1:

    * ``position_delta_m = |p[N−1] − p[0]|``;
    * ``rotation_delta_deg`` = angle of q[0]⁻¹·q[N−1], 2·atan2(|xyz|, |w|)
      (shortest path, sign-invariant);
    * ``seam_velocity_delta_mps = |(p1 − p0)/dt_first − (p[N−1] − p[N−2])/dt_last|``;
    * ``seam_angular_velocity_delta_degps = |ω_out − ω_in|`` with ω the
      rotation vector of the model-space step q_b·q_a⁻¹ (w ≥ 0 hemisphere)
      over the step's dt, in deg/s.

    The last-to-first chord is deliberately not used as a velocity.
    """
    n = grid.frame_count
    if n < 3:
        return LoopContinuity(unavailable=f"clip has {n} grid sample(s); loop continuity needs at least 3")
    t = np.asarray(grid.times_s, dtype=np.float64)
    dt0, dt1 = float(t[1] - t[0]), float(t[-1] - t[-2])
    if not (dt0 > 0 and dt1 > 0 and math.isfinite(dt0) and math.isfinite(dt1)):
        return LoopContinuity(unavailable="first or last grid step is not positive")
    p, q = model_pose_at(grid, seam_sample_frames(n))  # (4, B, 3), (4, B, 4): FK at these samples only
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.shape[1] == 0:
        return LoopContinuity(unavailable="skeleton has no bones")
    qn = np.linalg.norm(q, axis=-1)
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(q)) and np.all(qn > 0)):
        return LoopContinuity(unavailable="non-finite or zero-length pose at a loop endpoint")
    q = q / qn[..., None]
    pos_delta = np.linalg.norm(p[3] - p[0], axis=-1)
    rot_delta = np.degrees(quat.angle_between_rad(q[0], q[3]))
    dt = np.array([dt0, dt1])[:, None, None]
    v = (p[[1, 3]] - p[[0, 2]]) / dt  # (out, in) velocities, (2, B, 3)
    vel_delta = np.linalg.norm(v[0] - v[1], axis=-1)
    # (out, in) model-space steps q_b·q_a⁻¹ as rotation vectors per second, in one pass
    w = _rotation_vector(quat.multiply(q[[1, 3]], quat.conjugate(q[[0, 2]]))) / dt
    ang_delta = np.degrees(np.linalg.norm(w[0] - w[1], axis=-1))
    return LoopContinuity(
        position_delta_m=pos_delta,
        rotation_delta_deg=rot_delta,
        seam_velocity_delta_mps=vel_delta,
        seam_angular_velocity_delta_degps=ang_delta,
    )
