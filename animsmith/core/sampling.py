"""Animation channel sampling with glTF 2.0 semantics, vectorised.

For key times t[0..K-1] (float32 as stored, compared as float64) and a query
time t:

* clamp: t <= t[0] gives key 0's value, t >= t[K-1] gives key K-1's value
  (the value, never a tangent); no extrapolation, no wrap.
* segment: k1 = first key with t[k1] > t, k0 = k1 - 1,
  u = (t - t[k0]) / (t[k1] - t[k0]), u = 0 for a zero-length (or non-finite)
  segment.
* STEP: key k with t[k] <= t < t[k+1] (so exactly at t[k+1] gives key k+1).
* LINEAR: v = (1 - u)·v0 + u·v1; rotations use shortest-path slerp (q1
  negated when dot(q0, q1) < 0, normalised lerp when |dot| > 0.9995).
* CUBICSPLINE: with dt = t[k1] - t[k0], m0 = out-tangent of k0, m1 = in-tangent
  of k1:  p(u) = (2u³−3u²+1)·v0 + (u³−2u²+u)·dt·m0 + (−2u³+3u²)·v1 + (u³−u²)·dt·m1;
  rotations are normalised afterwards.
* Rotation results are always unit quaternions (held / clamped keys are
  normalised too; a zero quaternion becomes the identity).

Non-finite key times or values never raise: indices stay in range, NaN may
propagate into values.

The batch entry point :func:`sample_stacked` samples many channels that share
one key-time array at once (values stacked ``(K, n, C)``); ``core.pose`` groups
a clip's channels that way so a 130-channel clip costs a handful of numpy calls.
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from animsmith.model import Channel

_NLERP_DOT = 0.9995


def _dot4(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ a[..., i]·b[..., i] over the last axis (width 4), summed in a fixed order.

    Element-wise (not BLAS), so a value never depends on how many channels or
    bones were batched with it: sampling a bone subset gives bit-identical
    results to sampling the whole skeleton.
    """
    return ((a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]) + a[..., 2] * b[..., 2]) + a[..., 3] * b[..., 3]


def segment_index(times_f32: np.ndarray, times_s: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k0, k1, u) for each query time: the bracketing keys and the blend.

    k1 = clip(first key with time > t, 1, K-1), k0 = k1 - 1,
    u = clip((t - t[k0]) / (t[k1] - t[k0]), 0, 1) with u = 0 for zero-length
    or non-finite segments. Requires K >= 2.
    """
    kt = np.asarray(times_f32).astype(np.float64)
    k = kt.shape[0]
    k1 = np.searchsorted(kt, times_s, side="right")
    np.clip(k1, 1, k - 1, out=k1)
    k0 = k1 - 1
    t0 = kt[k0]
    dt = kt[k1] - t0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ok = np.isfinite(dt) & (dt > 0)
        u = np.where(ok, (times_s - t0) / np.where(ok, dt, 1.0), 0.0)
    u = np.nan_to_num(u, nan=0.0, posinf=1.0, neginf=0.0)
    np.clip(u, 0.0, 1.0, out=u)
    return k0, k1, u


def step_index(times_f32: np.ndarray, times_s: np.ndarray) -> np.ndarray:
    """Key k with t[k] <= t < t[k+1] (float64 t vs float32 keys promoted), clamped to [0, K-1]."""
    kt = np.asarray(times_f32).astype(np.float64)
    k = np.searchsorted(kt, times_s, side="right") - 1
    np.clip(k, 0, kt.shape[0] - 1, out=k)
    return k


def normalize_quat(q: np.ndarray) -> np.ndarray:
    """q / |q| along the last axis (float64); zero quaternions -> identity, NaN stays NaN."""
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        n2 = _dot4(q, q)
        inv = 1.0 / np.sqrt(n2)
        zero = n2 == 0
        bad = ~(n2 > 0)
        if bad.any():
            inv = np.where(bad, 1.0, inv)
        out = q * inv[..., None]
    if zero.any():
        out[zero] = (0.0, 0.0, 0.0, 1.0)
    return out


def _slerp_keys(keys: np.ndarray, k0: np.ndarray, k1: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Shortest-path slerp between unit keys[k0] and keys[k1] ((K, n, 4) keys; u (T,)).

    Per segment: d = dot(q0, q1), σ = sign (q1 negated when d < 0), θ = acos|d|;
    w0 = sin((1−u)θ)/sin θ, w1 = σ·sin(uθ)/sin θ, or (1−u, σu) when |d| > 0.9995
    (normalised lerp, as three.js); u = 1 gives q1 exactly as stored. The
    trigonometry runs only on the samples whose segment is not near-parallel.
    """
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        d = _dot4(keys[:-1], keys[1:])  # (K-1, n)
        sign = np.where(d < 0.0, -1.0, 1.0)
        ad = np.abs(d)
        sg = sign[k0]  # (T, n)
        uu = u[:, None]
        w0 = np.broadcast_to(1.0 - uu, sg.shape).copy()
        w1 = sg * uu
        far = (ad <= _NLERP_DOT)[k0]
        if far.any():
            ti, ci = np.nonzero(far)
            a = ad[k0[ti], ci]
            th = np.arccos(a)
            inv = 1.0 / np.sqrt((1.0 - a) * (1.0 + a))
            uf = u[ti]
            w0[ti, ci] = np.sin((1.0 - uf) * th) * inv
            w1[ti, ci] = sg[ti, ci] * np.sin(uf * th) * inv
        end = u >= 1.0
        if end.any():
            w0[end] = 0.0
            w1[end] = 1.0
        out = w0[..., None] * keys[k0] + w1[..., None] * keys[k1]
    return normalize_quat(out)


def hermite(v0, m0, v1, m1, u, dt):
    """Cubic Hermite: (2u³−3u²+1)v0 + (u³−2u²+u)·dt·m0 + (−2u³+3u²)v1 + (u³−u²)·dt·m1."""
    u2 = u * u
    u3 = u2 * u
    h00 = 2.0 * u3 - 3.0 * u2 + 1.0
    h10 = (u3 - 2.0 * u2 + u) * dt
    h01 = -2.0 * u3 + 3.0 * u2
    h11 = (u3 - u2) * dt
    with np.errstate(invalid="ignore", over="ignore"):
        return h00 * v0 + h10 * m0 + h01 * v1 + h11 * m1


def sample_stacked(
    times_f32: np.ndarray,
    values: np.ndarray,
    interpolation: str,
    rotation: bool,
    times_s: np.ndarray,
    in_tangents: Optional[np.ndarray] = None,
    out_tangents: Optional[np.ndarray] = None,
) -> np.ndarray:
    """Sample n channels sharing key times at once.

    ``values`` (and tangents) are (K, n, C); returns (T, n, C) float64 for the
    T query times ``times_s``. ``rotation`` selects quaternion handling.
    """
    times_s = np.asarray(times_s, dtype=np.float64).reshape(-1)
    values = np.asarray(values)
    k = values.shape[0]
    t_count = times_s.shape[0]
    if k == 0:
        out = np.zeros((t_count,) + values.shape[1:])
        if rotation:
            out[..., 3] = 1.0
        return out
    if k == 1 or interpolation == "STEP":
        idx = step_index(times_f32, times_s) if k > 1 else np.zeros(t_count, dtype=np.intp)
        out = values[idx].astype(np.float64)
        return normalize_quat(out) if rotation else out
    k0, k1, u = segment_index(times_f32, times_s)
    if rotation and interpolation != "CUBICSPLINE":
        out = _slerp_keys(normalize_quat(values), k0, k1, u)
    else:
        u3 = u[:, None, None]
        v0 = values[k0].astype(np.float64)
        v1 = values[k1].astype(np.float64)
        if interpolation == "CUBICSPLINE":
            kt = np.asarray(times_f32).astype(np.float64)
            with np.errstate(invalid="ignore", over="ignore"):
                dt = (kt[k1] - kt[k0])[:, None, None]
            dt = np.where(np.isfinite(dt), dt, 0.0)
            m0 = out_tangents[k0].astype(np.float64)
            m1 = in_tangents[k1].astype(np.float64)
            out = hermite(v0, m0, v1, m1, u3, dt)
            if rotation:
                out = normalize_quat(out)
        else:
            with np.errstate(invalid="ignore", over="ignore"):
                out = (1.0 - u3) * v0 + u3 * v1
    if not np.isfinite(out).all():
        out = _exact_ends(out, values, k0, k1, u, rotation)
    return out


def _exact_ends(out, values, k0, k1, u, rotation):
    """Where u is 0 or 1 give the key value itself, so a non-finite neighbour key can't leak in."""
    at0 = u <= 0.0
    at1 = u >= 1.0
    if at0.any():
        v = values[k0[at0]].astype(np.float64)
        out[at0] = normalize_quat(v) if rotation else v
    if at1.any():
        v = values[k1[at1]].astype(np.float64)
        out[at1] = normalize_quat(v) if rotation else v
    return out


def sample_channel(channel: Channel, times_s) -> np.ndarray:
    """Sample one channel at ``times_s`` -> (T, C) float64 (see module doc for the formulas)."""
    it = channel.in_tangents
    ot = channel.out_tangents
    cubic = channel.interpolation == "CUBICSPLINE"
    if cubic and (it is None or ot is None):
        zeros = np.zeros_like(channel.values)
        it = zeros if it is None else it
        ot = zeros if ot is None else ot
    out = sample_stacked(
        channel.times,
        channel.values[:, None, :],
        channel.interpolation,
        channel.path == "rotation",
        times_s,
        it[:, None, :] if cubic else None,
        ot[:, None, :] if cubic else None,
    )
    return out[:, 0, :]
