"""Leg inverse kinematics, batched over every leg and frame.

* :func:`two_bone` — closed form by the law of cosines. For thigh ``L1``,
  shin ``L2`` and hip-to-target distance ``D`` clamped to the reachable
  annulus ``[|L1 − L2| + ε, L1 + L2 − ε]`` (ε = 1e-4 m, so never NaN):
  ``cos(hip) = (L1² + D² − L2²) / (2·L1·D)``; the knee sits at
  ``hip + L1·(cos(hip)·u + sin(hip)·v)`` where ``u`` is the unit hip→target
  direction and ``v`` the unit component of the pole (bending-plane) vector
  perpendicular to ``u``. The foot lands at ``hip + D·u``.
* :func:`fabrik` — Forward And Backward Reaching IK (Aristidou & Lasenby
  2011) for chains of any length: backward pass (tip to target, each joint
  placed back along the line to its child at the bone length), forward pass
  (root back to its mount, each joint placed along the line from its parent),
  repeated until the tip is within ``tolerance_m`` or ``max_iterations``.
  An unreachable target (distance ≥ chain length) straightens the chain
  toward it in one step.

Knee kinds (the bending plane, in the body frame): ``forward`` pole (0, 0, +1),
``back`` pole (0, 0, −1), ``up`` pole (0, +1, 0) (the leg yaws toward its foot
and the knee rises: insects, spiders).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: margin kept inside the reachable annulus so acos never sees |x| > 1
REACH_EPSILON_M = 1e-4

KNEE_POLES = {
    "forward": (0.0, 0.0, 1.0),
    "back": (0.0, 0.0, -1.0),
    "up": (0.0, 1.0, 0.0),
}


def _norm(v: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("...i,...i->...", v, v))


def perpendicular_unit(u: np.ndarray, pole: np.ndarray) -> np.ndarray:
    """Unit component of ``pole`` perpendicular to unit ``u``; a fallback axis when parallel."""
    pole = np.broadcast_to(np.asarray(pole, dtype=np.float64), u.shape)
    v = pole - np.einsum("...i,...i->...", pole, u)[..., None] * u
    n = _norm(v)
    bad = n < 1e-9
    if np.any(bad):
        # pole parallel to the leg: bend toward +Z, or +X when the leg lies along Z
        alt = np.where(np.abs(u[..., 2:3]) < 0.9, np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]))
        alt = alt - np.einsum("...i,...i->...", alt, u)[..., None] * u
        v = np.where(bad[..., None], alt, v)
        n = _norm(v)
    v = v / n[..., None]
    # second Gram-Schmidt pass: a pole nearly parallel to u leaves a short v
    # that carries cancellation error; re-projecting keeps v ⟂ u to ~1 ulp
    v = v - np.einsum("...i,...i->...", v, u)[..., None] * u
    return v / _norm(v)[..., None]


@dataclass
class TwoBoneSolution:
    """Batched two-bone result (``...`` = any batch shape).

    knee_m, foot_m: (..., 3) solved joint positions (foot = where the chain
    actually ends). shortfall_m: (...) ``|target − hip| − clamped D`` (> 0 when
    the target is beyond reach, < 0 when too close to the hip).
    hip_angle_rad, knee_angle_rad: the law-of-cosines angles (knee = interior).
    """

    knee_m: np.ndarray
    foot_m: np.ndarray
    shortfall_m: np.ndarray
    hip_angle_rad: np.ndarray
    knee_angle_rad: np.ndarray

    @property
    def worst_shortfall_m(self) -> float:
        """How far the farthest foot fell short (0.0 when every foot lands)."""
        if self.shortfall_m.size == 0:
            return 0.0
        return float(max(0.0, np.max(np.abs(self.shortfall_m)) - REACH_EPSILON_M))


def two_bone(hip_m, target_m, upper_m, lower_m, pole) -> TwoBoneSolution:
    """Closed-form two-bone IK (module docstring), vectorised over the batch."""
    hip = np.asarray(hip_m, dtype=np.float64)
    target = np.asarray(target_m, dtype=np.float64)
    l1 = np.asarray(upper_m, dtype=np.float64)
    l2 = np.asarray(lower_m, dtype=np.float64)
    delta = target - hip
    dist = _norm(delta)
    lo = np.abs(l1 - l2) + REACH_EPSILON_M
    hi = l1 + l2 - REACH_EPSILON_M
    d = np.clip(dist, lo, hi)
    safe = dist > 1e-12
    u = np.where(safe[..., None], delta / np.where(safe, dist, 1.0)[..., None], np.array([0.0, -1.0, 0.0]))
    v = perpendicular_unit(u, pole)
    cos_hip = np.clip((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d), -1.0, 1.0)
    cos_knee = np.clip((l1 * l1 + l2 * l2 - d * d) / (2.0 * l1 * l2), -1.0, 1.0)
    sin_hip = np.sqrt(1.0 - cos_hip * cos_hip)
    knee = hip + l1[..., None] * (cos_hip[..., None] * u + sin_hip[..., None] * v)
    foot = hip + d[..., None] * u
    return TwoBoneSolution(
        knee_m=knee,
        foot_m=foot,
        shortfall_m=dist - d,
        hip_angle_rad=np.arccos(cos_hip),
        knee_angle_rad=np.arccos(cos_knee),
    )


@dataclass
class FabrikSolution:
    """Batched FABRIK result: points (M, n+1, 3), residual_m (M,), iterations used."""

    points_m: np.ndarray
    residual_m: np.ndarray
    iterations: int
    reachable: np.ndarray

    @property
    def worst_shortfall_m(self) -> float:
        return float(np.max(self.residual_m)) if self.residual_m.size else 0.0


def initial_chain(root_m, target_m, lengths_m, pole, bulge: float = 0.5) -> np.ndarray:
    """A bent starting chain in the plane of (root→target, pole): (M, n+1, 3).

    Joint i sits at fraction c_i = (cumulative length)/total along root→target,
    pushed out along the pole-perpendicular by ``bulge·4·c(1−c)·total``; FABRIK
    keeps every point in that plane, so the pole decides the bending side.
    """
    root = np.asarray(root_m, dtype=np.float64).reshape(-1, 3)
    target = np.asarray(target_m, dtype=np.float64).reshape(-1, 3)
    lengths = np.asarray(lengths_m, dtype=np.float64)
    lengths = np.broadcast_to(lengths, (root.shape[0], lengths.shape[-1]))
    total = lengths.sum(axis=1)
    delta = target - root
    dist = _norm(delta)
    u = np.where((dist > 1e-12)[:, None], delta / np.maximum(dist, 1e-12)[:, None], np.array([0.0, -1.0, 0.0]))
    v = perpendicular_unit(u, pole)
    c = np.concatenate([np.zeros((root.shape[0], 1)), np.cumsum(lengths, axis=1)], axis=1) / total[:, None]
    along = np.minimum(dist, total)[:, None, None] * c[..., None] * u[:, None, :]
    out = bulge * 4.0 * c * (1.0 - c) * total[:, None]
    return root[:, None, :] + along + out[..., None] * v[:, None, :]


def fabrik(points_m, lengths_m, target_m, *, tolerance_m: float = 1e-5, max_iterations: int = 32) -> FabrikSolution:
    """FABRIK over M chains at once (module docstring).

    Args:
        points_m: (M, n+1, 3) starting joint positions; point 0 is the fixed mount.
        lengths_m: (n,) or (M, n) bone lengths.
        target_m: (M, 3) targets for the tip.
    Returns the solved points; ``residual_m`` = |tip − target| (for an
    unreachable target: distance − chain length, the straightened shortfall).
    """
    p = np.array(points_m, dtype=np.float64, copy=True)
    m, k, _ = p.shape
    n = k - 1
    lengths = np.broadcast_to(np.asarray(lengths_m, dtype=np.float64), (m, n))
    target = np.asarray(target_m, dtype=np.float64).reshape(m, 3)
    origin = p[:, 0, :].copy()
    total = lengths.sum(axis=1)
    delta = target - origin
    dist = _norm(delta)
    reachable = dist < total
    # unreachable: straighten every bone along (target − origin)
    if not np.all(reachable):
        far = ~reachable
        u = delta[far] / np.maximum(dist[far], 1e-12)[:, None]
        cum = np.concatenate([np.zeros((u.shape[0], 1)), np.cumsum(lengths[far], axis=1)], axis=1)
        p[far] = origin[far][:, None, :] + cum[..., None] * u[:, None, :]
    idx = np.nonzero(reachable)[0]
    iterations = 0
    if idx.size:
        q = p[idx]
        ln = lengths[idx]
        tg = target[idx]
        og = origin[idx]
        active = np.ones(idx.size, dtype=bool)
        for it in range(max_iterations):
            iterations = it + 1
            a = np.nonzero(active)[0]
            if a.size == 0:
                iterations = it
                break
            pts = q[a]
            la = ln[a]
            # backward pass: tip onto the target
            pts[:, n] = tg[a]
            for i in range(n - 1, -1, -1):
                d = pts[:, i] - pts[:, i + 1]
                r = _norm(d)
                pts[:, i] = pts[:, i + 1] + d * (la[:, i] / np.maximum(r, 1e-12))[:, None]
            # forward pass: root back to its mount
            pts[:, 0] = og[a]
            for i in range(n):
                d = pts[:, i + 1] - pts[:, i]
                r = _norm(d)
                pts[:, i + 1] = pts[:, i] + d * (la[:, i] / np.maximum(r, 1e-12))[:, None]
            q[a] = pts
            err = _norm(pts[:, n] - tg[a])
            active[a[err <= tolerance_m]] = False
        p[idx] = q
    residual = _norm(p[:, n] - target)
    return FabrikSolution(points_m=p, residual_m=residual, iterations=iterations, reachable=reachable)
