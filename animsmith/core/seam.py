"""Loop continuity at the seam: how a looping clip's last frames meet its first.

Per bone, vectorised over bones: the position and rotation jump across the wrap, the
change of velocity and angular velocity there, and the steps beside it that scale them
(:func:`loop_continuity`), judged in the travelling frame of a clip that travels
(:class:`~animsmith.core.trajectory.CycleTransform`). :func:`closed_loop_continuity_many`
is the same arithmetic for every clip of a file in one pass, from their batched seam
poses; :func:`interior_seam_changes` gives the largest change inside the clip the seam
is compared with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from animsmith.core import quat
from animsmith.core.trajectory import CycleTransform


@dataclass
class LoopContinuity:
    """Per-bone wrap continuity, arrays of shape (B,) (None + reason when unavailable).

    ``open_cycle``: the wrap was judged as one more frame (see :func:`loop_continuity`);
    ``cycle``: the travelling frame used (None: model space).
    """

    position_delta_m: Optional[np.ndarray] = None
    rotation_delta_deg: Optional[np.ndarray] = None
    seam_velocity_delta_mps: Optional[np.ndarray] = None
    seam_angular_velocity_delta_degps: Optional[np.ndarray] = None
    neighbour_step_m: Optional[np.ndarray] = None
    neighbour_step_deg: Optional[np.ndarray] = None
    open_cycle: bool = False
    cycle: Optional[CycleTransform] = None
    unavailable: Optional[str] = None

    def worst(self, field_name: str) -> Tuple[Optional[int], Optional[float]]:
        """(bone, value) of the largest entry of one field."""
        a = getattr(self, field_name)
        if a is None or a.size == 0:
            return None, None
        b = int(np.argmax(a))
        return b, float(a[b])


def seam_sample_frames(n: int) -> List[int]:
    """The grid samples :func:`loop_continuity` reads (0, 1, N−2, N−1) of an N-sample grid."""
    return [0, 1, n - 2, n - 1]


def loop_continuity(grid, cycle: Optional[CycleTransform] = None, open_cycle: bool = False) -> LoopContinuity:
    """Per bone (vectorised), with p/q the model position/rotation at samples 0, 1, N−2, N−1
    and p'/q' the first two samples carried into the next cycle by ``cycle`` (identity
    when None: model space):

    * ``position_delta_m = |p[N−1] − p'[0]|`` and ``rotation_delta_deg`` = angle of
      q'[0]⁻¹·q[N−1], 2·atan2(|xyz|, |w|) (shortest path, sign-invariant): the wrap;
    * ``neighbour_step_m`` / ``neighbour_step_deg`` (open cycle only, else None): the
      larger of the first and last in-clip steps (position distance, rotation angle);
    * closed cycle (``open_cycle`` False: the last frame repeats the first pose):
      ``seam_velocity_delta_mps = |(p'1 − p'0)/dt_first − (p[N−1] − p[N−2])/dt_last|``
      (the last-to-first chord is zero-length and never a velocity);
      ``seam_angular_velocity_delta_degps = |ω_out − ω_in|`` with ω the rotation vector
      of the model-space step q_b·q_a⁻¹ (w ≥ 0 hemisphere) over the step's dt, in deg/s;
    * open cycle (the wrap N−1 → 0 is one more frame, lasting dt_last): the wrap's own
      velocity v_wrap = (p'0 − p[N−1])/dt_last, and the seam change is the larger of
      |v_wrap − v_in| and |v_out − v_wrap| (likewise for angular velocity): two ordinary
      step-to-step changes, not one change spread over two steps.
    """
    n = grid.frame_count
    if n < 3:
        return LoopContinuity(unavailable=f"clip has {n} grid sample(s); loop continuity needs at least 3")
    t = np.asarray(grid.times_s, dtype=np.float64)
    dt0, dt1 = float(t[1] - t[0]), float(t[-1] - t[-2])
    if not (dt0 > 0 and dt1 > 0 and math.isfinite(dt0) and math.isfinite(dt1)):
        return LoopContinuity(unavailable="first or last grid step is not positive")
    p, q = grid.model_pose_at(seam_sample_frames(n))  # (4, B, 3), (4, B, 4): FK at these samples only
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.shape[1] == 0:
        return LoopContinuity(unavailable="skeleton has no bones")
    qn = np.linalg.norm(q, axis=-1)
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(q)) and np.all(qn > 0)):
        return LoopContinuity(unavailable="non-finite or zero-length pose at a loop endpoint")
    q = quat.unit(q)
    if cycle is not None:  # the first two samples as the next cycle starts them (travelling bones only)
        moves = np.ones(p.shape[1], dtype=bool) if cycle.moves is None else np.asarray(cycle.moves, dtype=bool)
        p = p.copy()
        q = q.copy()
        p[:2, moves] = cycle.positions(p[:2, moves])
        q[:2, moves] = cycle.rotations(q[:2, moves])
    pos_delta, rot_delta, v, w = _seam_steps(p, q, np.array([dt0, dt1])[:, None, None])
    step_m = step_deg = None
    if open_cycle:  # the wrap is judged against its neighbouring steps
        step_m = np.maximum(np.linalg.norm(p[1] - p[0], axis=-1), np.linalg.norm(p[3] - p[2], axis=-1))
        step_deg = np.degrees(np.maximum(quat.angle_between_rad(q[0], q[1]), quat.angle_between_rad(q[2], q[3])))
        v_wrap = (p[0] - p[3]) / dt1
        w_wrap = quat.rotation_vector(quat.multiply(q[0], quat.conjugate(q[3]))) / dt1
        vel_delta = np.maximum(np.linalg.norm(v_wrap - v[1], axis=-1), np.linalg.norm(v[0] - v_wrap, axis=-1))
        ang_delta = np.degrees(
            np.maximum(np.linalg.norm(w_wrap - w[1], axis=-1), np.linalg.norm(w[0] - w_wrap, axis=-1))
        )
    else:
        vel_delta, ang_delta = _closed_seam_changes(v, w)
    return LoopContinuity(
        position_delta_m=pos_delta,
        rotation_delta_deg=rot_delta,
        seam_velocity_delta_mps=vel_delta,
        seam_angular_velocity_delta_degps=ang_delta,
        neighbour_step_m=step_m,
        neighbour_step_deg=step_deg,
        open_cycle=bool(open_cycle),
        cycle=cycle,
    )


def _seam_steps(p: np.ndarray, q: np.ndarray, dt: np.ndarray):
    """(wrap distance, wrap angle in degrees, (out, in) velocities, (out, in) angular velocities)
    of seam samples 0, 1, N−2, N−1: p (..., 4, B, 3), unit q (..., 4, B, 4), dt (..., 2, 1, 1)
    the first and last grid steps. Element by element along the leading axes, so one clip
    alone and a stack of clips give the same bytes. Computed component-major (the
    ``quat.*_cm`` forms, the same bits as the last-axis forms)."""
    pc = np.ascontiguousarray(np.moveaxis(p, -1, 0))  # (3, ..., 4, B)
    qc = np.ascontiguousarray(np.moveaxis(q, -1, 0))  # (4, ..., 4, B)
    dtc = dt[..., 0]  # (..., 2, 1)
    pos_delta = quat.norm_cm(pc[..., 3, :] - pc[..., 0, :])
    rot_delta = np.degrees(quat.angle_between_unit_rad_cm(qc[..., 0, :], qc[..., 3, :]))
    v = (pc[..., 1::2, :] - pc[..., 0::2, :]) / dtc  # (out, in) velocities, (3, ..., 2, B)
    # (out, in) model-space steps q_b·q_a⁻¹ as rotation vectors per second, in one pass
    w = quat.rotation_vector_cm(quat.multiply_cm(qc[..., 1::2, :], quat.conjugate_cm(qc[..., 0::2, :]))) / dtc
    return pos_delta, rot_delta, np.moveaxis(v, 0, -1), np.moveaxis(w, 0, -1)


def _closed_seam_changes(v: np.ndarray, w: np.ndarray):
    """(velocity change m/s, angular velocity change deg/s) across a closed wrap: out − in."""
    vc = np.moveaxis(v, -1, 0)
    wc = np.moveaxis(w, -1, 0)
    return (
        quat.norm_cm(vc[..., 0, :] - vc[..., 1, :]),
        np.degrees(quat.norm_cm(wc[..., 0, :] - wc[..., 1, :])),
    )


def closed_loop_continuity_many(samples) -> List[Optional[LoopContinuity]]:
    """:func:`loop_continuity` in model space over a closed cycle (no ``cycle``, not open) of
    several clips of one skeleton in one vectorised pass, the same bytes clip by clip.

    ``samples``: ``[(times_s (N,), p (4, B, 3), q (4, B, 4))]``, each clip's grid times and
    its model positions and rotations at :func:`seam_sample_frames`. A clip that
    :func:`loop_continuity` would find unusable (fewer than 3 samples, a first or last
    step that is not positive, a non-finite or zero-length pose, no bones) gets None: ask
    :func:`loop_continuity` for its reason.
    """
    out: List[Optional[LoopContinuity]] = [None] * len(samples)
    keep, dts = [], []
    for k, (t, p, q) in enumerate(samples):
        t = np.asarray(t, dtype=np.float64)
        if t.shape[0] < 3 or np.shape(p)[1:] != np.shape(samples[0][1])[1:] or np.shape(p)[0] != 4 or np.shape(p)[1] == 0:
            continue
        dt0, dt1 = float(t[1] - t[0]), float(t[-1] - t[-2])
        if dt0 > 0 and dt1 > 0 and math.isfinite(dt0) and math.isfinite(dt1):
            keep.append(k)
            dts.append((dt0, dt1))
    if not keep:
        return out
    p = np.stack([np.asarray(samples[k][1], dtype=np.float64) for k in keep])  # (C, 4, B, 3)
    q = np.stack([np.asarray(samples[k][2], dtype=np.float64) for k in keep])  # (C, 4, B, 4)
    usable = np.isfinite(p).all(axis=(1, 2, 3)) & np.isfinite(q).all(axis=(1, 2, 3))
    usable &= (np.linalg.norm(q, axis=-1) > 0).all(axis=(1, 2))
    if not usable.all():
        keep = [k for k, ok in zip(keep, usable) if ok]
        dts = [d for d, ok in zip(dts, usable) if ok]
        p, q = p[usable], q[usable]
        if not keep:
            return out
    pos_delta, rot_delta, v, w = _seam_steps(p, quat.unit(q), np.array(dts)[:, :, None, None])
    vel_delta, ang_delta = _closed_seam_changes(v, w)
    for i, k in enumerate(keep):
        out[k] = LoopContinuity(
            position_delta_m=pos_delta[i],
            rotation_delta_deg=rot_delta[i],
            seam_velocity_delta_mps=vel_delta[i],
            seam_angular_velocity_delta_degps=ang_delta[i],
        )
    return out


def interior_seam_changes(grid, bones) -> Tuple[Optional[np.ndarray], Optional[np.ndarray]]:
    """(velocity changes m/s, angular velocity changes deg/s), each (len(bones),): every
    bone's largest change between consecutive in-clip steps, the quantities the seam
    checks compare across the wrap. v[i] = (p[i+1] − p[i]) / dt[i]; ω[i] = rotation
    vector of q[i+1]·q[i]⁻¹ (w ≥ 0 hemisphere) over dt[i]. (None, None) when the grid
    has fewer than 4 samples; a bone with non-finite values gets NaN."""
    t = np.asarray(grid.times_s, dtype=np.float64)
    if t.shape[0] < 4:
        return None, None
    bones = [int(b) for b in bones]
    dt = np.diff(t)[:, None, None]
    p = np.asarray(grid.model_positions_m(bones), dtype=np.float64)
    q = np.asarray(grid.model_rotations(bones), dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.diff(p, axis=0) / dt
        vel = np.linalg.norm(np.diff(v, axis=0), axis=-1).max(axis=0)
        q = quat.unit(q)
        w = quat.rotation_vector(quat.multiply(q[1:], quat.conjugate(q[:-1]))) / dt
        ang = np.degrees(np.linalg.norm(np.diff(w, axis=0), axis=-1)).max(axis=0)
    return vel, ang
