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
propagate into values. A sample that comes out non-finite at u = 0 or u = 1
(a NaN/Inf neighbour key) takes its own key's value exactly; this is decided
sample by sample and channel by channel, so a value never depends on the other
query times or on the channels sampled with it.

The batch entry point :func:`sample_stacked` samples many channels that share
one key-time array at once (values stacked ``(K, n, C)``);
:func:`sample_component_major` is the same with component-major arrays
``(C, n, K)`` and optional precomputed segments. ``core.localpose`` groups a clip's channels that
way, so a 130-channel clip costs a handful of numpy calls.
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from animsmith.model import Channel

_NLERP_DOT = 0.9995


def segment_index(times_f32: np.ndarray, times_s: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k0, k1, u) for each query time: the bracketing keys and the blend.

    k1 = clip(first key with time > t, 1, K-1), k0 = k1 - 1,
    u = clip((t - t[k0]) / (t[k1] - t[k0]), 0, 1) with u = 0 for zero-length
    or non-finite segments. Requires K >= 2.
    """
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return _segments(times_f32, times_s)


def _segments(times_f32: np.ndarray, times_s: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`segment_index` without its floating-point error state (the caller holds one)."""
    kt = np.asarray(times_f32).astype(np.float64)
    k = kt.shape[0]
    k1 = np.searchsorted(kt, times_s, side="right")
    np.clip(k1, 1, k - 1, out=k1)
    k0 = k1 - 1
    t0 = kt[k0]
    dt = kt[k1] - t0
    ok = np.isfinite(dt) & (dt > 0)
    if ok.all():
        u = (times_s - t0) / dt
    else:
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
    """q / |q| along the last axis (float64); zero quaternions -> identity, NaN stays NaN.

    The sampler's own form of ``quat.normalize`` (its reference; they agree to ~1e-16 on
    finite keys, tests/core/test_quat_references.py), kept apart for two reasons: |q|² is
    summed in a fixed order (:func:`_dot4_cm`), so a bone sampled alone or with the whole
    skeleton gets the same bits, where ``np.linalg.norm`` may not; and a non-finite key
    keeps its NaN, so a hostile file gives a NaN pose that the checks report, where
    ``quat.normalize`` would make any unusable key the identity.
    """
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.moveaxis(_normalize_cm(np.moveaxis(q, -1, 0)), 0, -1)


def _dot4_cm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ a[i]·b[i] over the first axis (width 4) of component-major arrays (4, ...).

    Summed in a fixed order, ((a0·b0 + a1·b1) + a2·b2) + a3·b3, element-wise (not
    BLAS), so a value never depends on how many channels or bones were batched
    with it: sampling a bone subset gives bit-identical results to sampling the
    whole skeleton.
    """
    p = a * b
    out = p[0] + p[1]
    out += p[2]
    out += p[3]
    return out


_IDENTITY_CM = np.array([0.0, 0.0, 0.0, 1.0])[:, None]


def _normalize_cm(q: np.ndarray) -> np.ndarray:
    """:func:`normalize_quat` of component-major float64 quaternions (4, ...), without its
    error state: q·(1/√(q·q)); where q·q is not > 0 the factor is 1, and q·q == 0 gives
    (0, 0, 0, 1)."""
    n2 = _dot4_cm(q, q)
    inv = 1.0 / np.sqrt(n2)
    if n2.size and np.minimum.reduce(n2, axis=None) > 0:  # every q·q > 0 (a NaN minimum fails too)
        return q * inv
    ok = n2 > 0
    inv[~ok] = 1.0
    out = q * inv
    out[:, n2 == 0] = _IDENTITY_CM
    return out


def _slerp_cm(keys: np.ndarray, k0: np.ndarray, k1: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Shortest-path slerp of component-major unit keys (4, n, K) at segments (k0, k1, u (T,)) -> (4, n, T).

    The batched form of ``quat.slerp`` (its reference: same rule and nlerp threshold, they
    agree to ~1e-15, tests/core/test_quat_references.py), kept for speed and reproducible bits:
    the trigonometry runs once per key segment, dot products and norms are summed in a
    fixed order, and u = 1 returns the key exactly.

    Per segment: d = dot(q0, q1), σ = sign (q1 negated when d < 0), θ = acos|d|;
    w0 = sin((1−u)θ)/sin θ, w1 = σ·sin(uθ)/sin θ, or (1−u, σu) when |d| > 0.9995
    (normalised lerp, as three.js); u = 1 gives q1 exactly as stored (w0 = 0,
    w1 = 1). 1/sin θ is 1/√((1−|d|)(1+|d|)); the trigonometry is evaluated per
    key segment and gathered, so every sample gets the same value it would get
    alone. The result is normalised. Caller holds the error state.
    """
    d = _dot4_cm(keys[:, :, :-1], keys[:, :, 1:])  # (n, K-1)

    def segment_trig(_ad):
        ad = np.abs(d)
        th = np.arccos(ad)
        inv = 1.0 / np.sqrt((1.0 - ad) * (1.0 + ad))
        return np.take(th, k0, axis=1), np.take(inv, k0, axis=1)

    return _blend_cm(np.take(keys, k0, axis=2), np.take(keys, k1, axis=2), np.take(d, k0, axis=1), u, segment_trig)


def _sample_trig(ad: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(θ, 1/sin θ) = (acos|d|, 1/√((1−|d|)(1+|d|))) per sample."""
    return np.arccos(ad), 1.0 / np.sqrt((1.0 - ad) * (1.0 + ad))


def _blend_cm(q0: np.ndarray, q1: np.ndarray, d: np.ndarray, u: np.ndarray, trig) -> np.ndarray:
    """The slerp of :func:`_slerp_cm` for samples whose two unit keys q0, q1 (4, n, T)
    have dot product d (n, T) and blend u (T,); ``trig(|d|)`` gives (θ, 1/sin θ) per
    sample (computed per key segment and gathered, or per sample: the same values)."""
    ad = np.abs(d)
    sg = np.where(d < 0.0, -1.0, 1.0)
    omu = 1.0 - u
    w0 = omu
    w1 = sg * u
    end = u >= 1.0
    far = (ad <= _NLERP_DOT) & ~end
    if far.any():
        th, inv = trig(ad)
        w0 = np.where(far, np.sin(omu * th) * inv, omu)
        w1 = np.where(far, sg * np.sin(u * th) * inv, w1)
    if end.any():
        w1[:, end] = 1.0  # w0 = 1 − 1 = 0 there already
    out = w0 * q0
    out += w1 * q1
    return _normalize_cm(out)


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

    def cm(a):
        return None if a is None else np.asarray(a).transpose(2, 1, 0)

    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        out = sample_component_major(
            times_f32, cm(values), interpolation, rotation, times_s, None, cm(in_tangents), cm(out_tangents)
        )
    return out.transpose(2, 1, 0)


def sample_component_major(
    times_f32: np.ndarray,
    values: np.ndarray,
    interpolation: str,
    rotation: bool,
    times_s: np.ndarray,
    segments: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None,
    in_tangents: Optional[np.ndarray] = None,
    out_tangents: Optional[np.ndarray] = None,
) -> np.ndarray:
    """:func:`sample_stacked` with component-major arrays: values (C, n, K) -> (C, n, T) float64.

    Component-major keeps every numpy operation on long contiguous rows.
    ``segments`` is ``segment_index(times_f32, times_s)`` when the caller has
    it already (only LINEAR and CUBICSPLINE with K >= 2 use it). The caller
    holds a floating-point error state that ignores invalid/divide/overflow.
    """
    k = values.shape[2]
    t_count = times_s.shape[0]
    if k == 0:
        out = np.zeros(values.shape[:2] + (t_count,))
        if rotation:
            out[3] = 1.0
        return out
    if k == 1 or interpolation == "STEP":
        idx = step_index(times_f32, times_s) if k > 1 else np.zeros(t_count, dtype=np.intp)
        out = np.take(values, idx, axis=2).astype(np.float64)
        return _normalize_cm(out) if rotation else out
    k0, k1, u = _segments(times_f32, times_s) if segments is None else segments
    if rotation and interpolation != "CUBICSPLINE":
        if 2 * t_count < k:  # few samples (e.g. a loop's seam): only the keys they use
            q0 = _normalize_cm(np.take(values, k0, axis=2).astype(np.float64))
            q1 = _normalize_cm(np.take(values, k1, axis=2).astype(np.float64))
            out = _slerp_pairs_cm(q0, q1, u)
        else:
            out = _slerp_cm(_normalize_cm(values.astype(np.float64, order="C")), k0, k1, u)
    else:
        v0 = np.take(values, k0, axis=2).astype(np.float64)
        v1 = np.take(values, k1, axis=2).astype(np.float64)
        if interpolation == "CUBICSPLINE":
            kt = np.asarray(times_f32).astype(np.float64)
            dt = kt[k1] - kt[k0]
            dt = np.where(np.isfinite(dt), dt, 0.0)
            m0 = np.take(out_tangents, k0, axis=2).astype(np.float64)
            m1 = np.take(in_tangents, k1, axis=2).astype(np.float64)
            out = hermite(v0, m0, v1, m1, u, dt)
            if rotation:
                out = _normalize_cm(out)
        else:
            out = (1.0 - u) * v0
            out += u * v1
    if not np.isfinite(out).all():
        out = _exact_ends(out, values, k0, k1, u, rotation)
    return out


def _slerp_pairs_cm(q0: np.ndarray, q1: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`_slerp_cm` with each sample's two unit keys given, (4, n, T) each: the same
    arithmetic on the same values, per sample instead of per key segment."""
    return _blend_cm(q0, q1, _dot4_cm(q0, q1), u, _sample_trig)


def _exact_ends(out, values, k0, k1, u, rotation):
    """Where a sample is non-finite and u is 0 or 1, give the key value itself, so a
    non-finite neighbour key can't leak in (component-major).

    Decided sample by sample: a sample's value depends only on its own time and
    its channel's keys, never on the other query times or on which channels
    share its key times (sampled alone, in a group or at a few times, the values
    are the same; only the sign bit of a NaN may differ, as numpy's NaN + NaN
    takes either operand's sign depending on array length).
    """
    bad = ~np.isfinite(out).all(axis=0)  # (n, T): a component of the sample is not finite
    for at, keys in ((u <= 0.0, k0), (u >= 1.0, k1)):
        ch, col = np.nonzero(bad & at)
        if ch.size:
            v = values[:, ch, keys[col]].astype(np.float64)  # (C, m): each bad sample's key
            out[:, ch, col] = _normalize_cm(v) if rotation else v
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
