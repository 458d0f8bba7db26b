"""Body attitude on terrain: height offset, tilt, smoothing, springs, root composition.

Pure functions (the behaviour of the Roblox procedural-walk controller this simulator follows, in metres and degrees):

* :func:`height_offset` — mean of the planted legs' vertical plant deltas,
  0 for none, clamped to ±max_offset.
* :func:`tilt_for` — bank and pitch (degrees) from this frame's acceleration
  ``a = (velocity − last_velocity) / dt``: with ``forward`` = the XZ-flattened
  facing (unit) and ``right = forward × up``, ``bank = clamp(a·right ×
  bank_per)``, ``pitch = clamp(−(a·forward) × pitch_per)``. Zero for
  ``dt ≤ 0`` or a facing whose flat length is below 1e-4.
* :func:`exp_approach` — ``x + (target − x)·min(dt·rate, 1)`` (no overshoot).
* :func:`fade_weight` — linear fade toward 0 or 1 over ``fade_s`` seconds.
* :func:`critical_spring_step` — exact critically damped spring step.
* :class:`RootComposer` — composes the offset onto the root's base pose once
  per frame, stripping its own previous contribution (never accumulates).
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import numpy as np

UP = np.array([0.0, 1.0, 0.0])

#: defaults from that controller (rates in 1/s, seconds, degrees)
LOOK_AHEAD_S = 0.15
PLANT_SMOOTHING_S = 0.1
HEIGHT_RATE = 6.0
TILT_RATE = 4.0
TILT_BANK_PER = 0.15
TILT_PITCH_PER = 0.1
TILT_MAX_DEG = 12.0


def height_offset(plant_deltas: Sequence[float], max_offset: float) -> float:
    """Average of ``plant_deltas`` clamped to ``[−max_offset, max_offset]``; 0 when empty."""
    d = np.asarray(list(plant_deltas), dtype=np.float64)
    if d.size == 0:
        return 0.0
    return float(np.clip(d.mean(), -max_offset, max_offset))


def tilt_for(velocity, last_velocity, facing, dt: float, bank_per: float, pitch_per: float, max_deg: float) -> Tuple[float, float]:
    """(bank_deg, pitch_deg) from this frame's acceleration (module docstring)."""
    if dt <= 0:
        return 0.0, 0.0
    accel = (np.asarray(velocity, dtype=np.float64) - np.asarray(last_velocity, dtype=np.float64)) / dt
    f = np.asarray(facing, dtype=np.float64)
    flat = np.array([f[0], 0.0, f[2]])
    mag = float(np.linalg.norm(flat))
    if mag < 1e-4:
        return 0.0, 0.0
    forward = flat / mag
    right = np.cross(forward, UP)
    lateral = float(accel @ right)
    ahead = float(accel @ forward)
    bank = float(np.clip(lateral * bank_per, -max_deg, max_deg))
    pitch = float(np.clip(-ahead * pitch_per, -max_deg, max_deg))
    return bank, pitch


def tilt_for_batch(velocity, last_velocity, facing, dt, bank_per: float, pitch_per: float, max_deg: float) -> np.ndarray:
    """(N, 2) [bank_deg, pitch_deg] — :func:`tilt_for` applied row by row, vectorised."""
    v = np.asarray(velocity, dtype=np.float64).reshape(-1, 3)
    lv = np.asarray(last_velocity, dtype=np.float64).reshape(-1, 3)
    f = np.broadcast_to(np.asarray(facing, dtype=np.float64), v.shape)
    dt = np.broadcast_to(np.asarray(dt, dtype=np.float64), v.shape[:1])
    ok_dt = dt > 0
    accel = (v - lv) / np.where(ok_dt, dt, 1.0)[:, None]
    flat = f * np.array([1.0, 0.0, 1.0])
    mag = np.linalg.norm(flat, axis=1)
    ok = ok_dt & (mag >= 1e-4)
    forward = flat / np.where(ok, mag, 1.0)[:, None]
    right = np.cross(forward, UP)
    bank = np.clip(np.einsum("ni,ni->n", accel, right) * bank_per, -max_deg, max_deg)
    pitch = np.clip(-np.einsum("ni,ni->n", accel, forward) * pitch_per, -max_deg, max_deg)
    return np.where(ok[:, None], np.stack([bank, pitch], axis=1), 0.0)


def exp_approach(current, target, rate: float, dt: float):
    """``current + (target − current)·min(dt·rate, 1)``: exponential approach, never overshoots."""
    blend = min(max(dt, 0.0) * rate, 1.0)
    return current + (target - current) * blend


def fade_weight(weight: float, target: float, fade_s: float, dt: float) -> float:
    """Move ``weight`` linearly toward ``target`` so a full 0↔1 fade takes ``fade_s`` seconds."""
    if fade_s <= 0:
        return float(target)
    step = max(dt, 0.0) / fade_s
    if target > weight:
        return float(min(target, weight + step))
    return float(max(target, weight - step))


def critical_spring_step(x, v, target, omega: float, dt: float):
    """One exact step of ``x'' = −2ω x' − ω²(x − target)`` (critically damped).

    With ``e = x − target``: ``e(t) = (e0 + (v0 + ω e0) t)·exp(−ωt)``,
    ``v(t) = (v0 − ω (v0 + ω e0) t)·exp(−ωt)``. No overshoot from rest.
    """
    x = np.asarray(x, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    e0 = x - np.asarray(target, dtype=np.float64)
    k = math.exp(-omega * dt)
    c = v + omega * e0
    e = (e0 + c * dt) * k
    v_new = (v - omega * c * dt) * k
    return np.asarray(target, dtype=np.float64) + e, v_new


def plane_normal(points_m, weights=None) -> Optional[np.ndarray]:
    """Least-squares plane normal (unit, +Y side) through ≥ 3 points; None when degenerate.

    Fits ``y = a·x + b·z + c`` (a heightfield plane, weights optional); the
    normal is ``(−a, 1, −b)/|·|``. Two points give the line's slope along its
    direction with no cross slope; fewer -> None.
    """
    p = np.asarray(points_m, dtype=np.float64).reshape(-1, 3)
    w = np.ones(p.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
    keep = w > 0
    p, w = p[keep], w[keep]
    if p.shape[0] < 2:
        return None
    sw = np.sqrt(w)[:, None]
    if p.shape[0] == 2:
        d = p[1] - p[0]
        h = math.hypot(d[0], d[2])
        if h < 1e-9:
            return None
        slope = d[1] / h
        a, b = slope * d[0] / h, slope * d[2] / h
    else:
        A = np.stack([p[:, 0], p[:, 2], np.ones(p.shape[0])], axis=1) * sw
        y = p[:, 1:2] * sw
        sol, _, rank, _ = np.linalg.lstsq(A, y, rcond=None)
        if rank < 3:
            return None
        a, b = float(sol[0, 0]), float(sol[1, 0])
    n = np.array([-a, 1.0, -b])
    return n / np.linalg.norm(n)


def plane_normals_batch(points_m, weights) -> tuple:
    """Vectorised :func:`plane_normal` over frames: points (N, F, 3), weights (N, F) (0 = not planted).

    Returns ((N, 3) unit normals, (N,) bool "fitted": at least 3 weighted points
    and a well-conditioned fit).
    """
    p = np.asarray(points_m, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    a = np.stack([p[..., 0], p[..., 2], np.ones(p.shape[:2])], axis=-1)  # (N, F, 3)
    ata = np.einsum("nf,nfi,nfj->nij", w, a, a)
    aty = np.einsum("nf,nfi,nf->ni", w, a, p[..., 1])
    count = (w > 0).sum(axis=1)
    det = np.linalg.det(ata)
    scale = np.einsum("nii->n", ata) ** 3
    ok = (count >= 3) & (np.abs(det) > 1e-12 * np.maximum(scale, 1e-300))
    eye = np.broadcast_to(np.eye(3), ata.shape)
    sol = np.linalg.solve(np.where(ok[:, None, None], ata, eye), np.where(ok[:, None], aty, 0.0)[..., None])[..., 0]
    n = np.stack([-sol[:, 0], np.ones(sol.shape[0]), -sol[:, 1]], axis=1)
    n = n / np.linalg.norm(n, axis=1, keepdims=True)
    return np.where(ok[:, None], n, UP), ok


def pitch_roll_from_normal(normal, forward=(0.0, 0.0, 1.0)) -> Tuple[float, float]:
    """(pitch_rad, roll_rad) with ``Rx(pitch)·Rz(roll)·(0, 1, 0) = normal`` (body facing +Z).

    ``pitch = atan2(n_z, n_y)``, ``roll = −asin(n_x)``: ground rising along
    +Z gives a negative pitch about +X (nose up).
    """
    n = np.asarray(normal, dtype=np.float64)
    pitch = math.atan2(n[2], n[1])
    roll = -math.atan2(n[0], math.hypot(n[1], n[2]))
    return pitch, roll


def rotation_xz(pitch_rad, roll_rad) -> np.ndarray:
    """(..., 3, 3) = Rx(pitch) · Rz(roll)."""
    p = np.asarray(pitch_rad, dtype=np.float64)
    r = np.asarray(roll_rad, dtype=np.float64)
    cp, sp, cr, sr = np.cos(p), np.sin(p), np.cos(r), np.sin(r)
    out = np.zeros(np.broadcast(p, r).shape + (3, 3))
    # Rx(p) @ Rz(r)
    out[..., 0, 0] = cr
    out[..., 0, 1] = -sr
    out[..., 0, 2] = 0.0
    out[..., 1, 0] = cp * sr
    out[..., 1, 1] = cp * cr
    out[..., 1, 2] = -sp
    out[..., 2, 0] = sp * sr
    out[..., 2, 1] = sp * cr
    out[..., 2, 2] = cp
    return out


def offset_matrix(height_m: float, pitch_deg: float, bank_deg: float) -> np.ndarray:
    """4×4 ``T(0, height, 0) · Rx(pitch) · Rz(bank)`` (the controller's CFrame.new · Angles order)."""
    m = np.eye(4)
    m[:3, :3] = rotation_xz(math.radians(pitch_deg), math.radians(bank_deg))
    m[1, 3] = height_m
    return m


class RootComposer:
    """Composes a height/tilt offset onto the root joint without drift.

    ``compose(live)``: when ``live`` equals what this composer wrote last
    frame, nothing else touched the joint, so the base is last frame's base
    (its own contribution is stripped); otherwise ``live`` is a fresh base
    (an animator wrote it). Returns ``offset · base`` and remembers both.
    """

    def __init__(self) -> None:
        self.last_written: Optional[np.ndarray] = None
        self.last_base: Optional[np.ndarray] = None

    def compose(self, live: np.ndarray, offset: np.ndarray) -> np.ndarray:
        base = np.asarray(live, dtype=np.float64)
        if self.last_written is not None and np.array_equal(base, self.last_written):
            base = self.last_base
        written = np.asarray(offset, dtype=np.float64) @ base
        self.last_written = written.copy()
        self.last_base = base.copy()
        return written
