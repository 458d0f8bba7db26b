"""Role-free per-clip checks: nan, time-monotonic, quat-norm, quat-flip, duration-sanity, constant-track, fps.

Fixture (built by hand): bones ``hips`` (root) and ``spine`` (child at
(0, 0.3, 0)); clip ``walk`` over 1 s with a spine Y rotation 0 / 0.8 / 1.6 rad
and a hips translation (0,0,0) → (0,0.05,0.5) → (0,0,1) keyed at 0, 0.5, 1.
The clean clip has no finding from any of these checks; each test changes
one thing. Thresholds are tested with values exactly representable in
float32 (dyadic fractions) so "at the cap" is exact.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton

from checks_support import run_check

MECHANICAL = ["nan", "time-monotonic", "quat-norm", "quat-flip", "duration-sanity", "constant-track", "fps"]


def yrot(angle_rad):
    a = np.asarray(angle_rad, dtype=np.float64)
    return np.stack([np.zeros_like(a), np.sin(a / 2), np.zeros_like(a), np.cos(a / 2)], axis=-1)


def make_asset(rot_times=(0, 0.5, 1), rot_values=None, tr_times=(0, 0.5, 1), tr_values=None, extra=(), name="walk"):
    sk = Skeleton.build(["hips", "spine"], [-1, 0], [[0, 0, 0], [0, 0.3, 0]])
    rv = yrot([0.0, 0.8, 1.6]) if rot_values is None else rot_values
    tv = [[0, 0, 0], [0, 0.05, 0.5], [0, 0, 1]] if tr_values is None else tr_values
    chans = [Channel.make(1, "rotation", rot_times, rv), Channel.make(0, "translation", tr_times, tv)]
    chans += list(extra)
    return Asset(skeleton=sk, clips=[Clip(name=name, channels=chans)])


@pytest.mark.parametrize("check_id", MECHANICAL)
def test_clean_fixture_is_silent(check_id):
    findings, gaps = run_check(check_id, make_asset(), expect={"fps": 2.0, "duration_s": 1.0})
    assert findings == [] and gaps == []


# ---------------------------------------------------------------- nan


def test_nan_value_is_one_error_naming_the_bone():
    tv = [[0, 0, 0], [0, np.nan, 0.5], [0, 0, 1]]
    findings, _ = run_check("nan", make_asset(tr_values=tv))
    assert len(findings) == 1
    f = findings[0]
    assert (f.severity, f.clip, f.bone) == ("error", "walk", "hips")
    assert "element 4" in f.message and "key 1" in f.message and f.time_s == 0.5


def test_infinite_time_is_a_nan_finding_and_inf_value_too():
    findings, _ = run_check("nan", make_asset(tr_times=(0, 0.5, np.inf)))
    assert [f.bone for f in findings] == ["hips"] and "non-finite key time" in findings[0].message
    findings, _ = run_check("nan", make_asset(rot_values=np.array([[0, 0, 0, 1], [0, 0, 0, np.inf], [0, 0, 0, 1]])))
    assert [f.bone for f in findings] == ["spine"] and "key 1" in findings[0].message


def test_nan_in_cubic_tangent_is_reported():
    ch = Channel.make(
        0, "scale", [0, 1], [[1, 1, 1], [1, 1, 1]], interpolation="CUBICSPLINE",
        out_tangents=[[0, 0, 0], [0, np.nan, 0]],
    )
    findings, _ = run_check("nan", make_asset(extra=[ch]))
    assert len(findings) == 1
    # raw layout per key: in(3) value(3) out(3); key 1 out-tangent y = 9 + 6 + 1
    assert "element 16" in findings[0].message


# ---------------------------------------------------------------- time-monotonic


def test_non_increasing_times_one_error():
    findings, _ = run_check("time-monotonic", make_asset(tr_times=(0, 0.625, 0.375), tr_values=[[0, 0, 0]] * 3))
    assert len(findings) == 1
    assert "keys 1 and 2" in findings[0].message and findings[0].time_s == 0.375
    # a repeated time is not increasing either
    findings, _ = run_check("time-monotonic", make_asset(tr_times=(0, 0.5, 0.5)))
    assert len(findings) == 1 and findings[0].time_s == 0.5


def test_negative_time_threshold_exact():
    tol = 2.0**-10
    # exactly at the tolerance passes, the next float32 below fails
    ok, _ = run_check("time-monotonic", make_asset(tr_times=(-tol, 0.5, 1)), options={"negative_tolerance_s": tol})
    assert ok == []
    past = float(np.nextafter(np.float32(-tol), np.float32(-1)))
    bad, _ = run_check("time-monotonic", make_asset(tr_times=(past, 0.5, 1)), options={"negative_tolerance_s": tol})
    assert len(bad) == 1 and "negative key time" in bad[0].message and bad[0].measured == past
    # default tolerance: -1e-6 is export rounding, -0.01 is negative
    assert run_check("time-monotonic", make_asset(tr_times=(-1e-6, 0.5, 1)))[0] == []
    assert len(run_check("time-monotonic", make_asset(tr_times=(-0.01, 0.5, 1)))[0]) == 1


# ---------------------------------------------------------------- quat-norm


def test_quat_norm_exact_threshold():
    tol = 2.0**-10
    at = np.array([[0, 0, 0, 1], [0, 0, 0, 1 + tol], [0, 0, 0, 1]])
    assert run_check("quat-norm", make_asset(rot_values=at), options={"tolerance": tol})[0] == []
    past = at.copy()
    past[1, 3] = 1 + tol + 2.0**-20  # exact in float32
    findings, _ = run_check("quat-norm", make_asset(rot_values=past), options={"tolerance": tol})
    assert len(findings) == 1
    f = findings[0]
    assert (f.bone, f.time_s, f.expected) == ("spine", 0.5, 1.0)
    assert f.measured == pytest.approx(1 + tol + 2.0**-20, abs=0)


def test_quat_norm_default_reports_worst_key():
    q = np.array([[0, 0.65, 0, 0.65], [0, 0, 0, 1.0005], [0, 0, 0, 1.05]])  # |q0| = 0.919
    findings, _ = run_check("quat-norm", make_asset(rot_values=q))
    assert len(findings) == 1
    assert "worst at key 0" in findings[0].message and findings[0].time_s == 0.0
    assert findings[0].measured == pytest.approx(0.65 * math.sqrt(2), abs=1e-6)
    assert "2 key(s)" in findings[0].message  # 1.0005 is within 1e-3


# ---------------------------------------------------------------- quat-flip


def test_quat_flip_counts_flips_and_names_the_first():
    q = yrot([0.0, 0.8, 1.6])
    q[1] = -q[1]
    findings, _ = run_check("quat-flip", make_asset(rot_values=q))
    assert len(findings) == 1
    f = findings[0]
    assert (f.severity, f.bone, f.measured, f.time_s) == ("warning", "spine", 2, 0.5)
    assert "first between keys 0 and 1" in f.message


def test_quat_flip_threshold_is_dot_below_zero():
    # dot exactly 0 (a 180° rotation between keys) is not a flip; the next float below is
    at = np.array([[0, 0, 0, 1], [0, 1, 0, 0], [0, 1, 0, 0]], dtype=float)
    assert run_check("quat-flip", make_asset(rot_values=at))[0] == []
    past = at.copy()
    past[1, 3] = -(2.0**-24)
    assert len(run_check("quat-flip", make_asset(rot_values=past))[0]) == 1


# ---------------------------------------------------------------- duration-sanity


def test_duration_zero_is_error_with_pin_expected():
    asset = make_asset(rot_times=(0,), rot_values=yrot([0.0]), tr_times=(0,), tr_values=[[0, 0, 0]])
    findings, _ = run_check("duration-sanity", asset)
    assert [(f.severity, f.measured) for f in findings] == [("error", 0.0)]
    assert "degenerate" in findings[0].message
    findings, _ = run_check("duration-sanity", asset, expect={"duration_s": 1.0})
    assert len(findings) == 1 and findings[0].expected == 1.0


def test_empty_clip_is_one_warning():
    sk = Skeleton.build(["hips"], [-1])
    asset = Asset(skeleton=sk, clips=[Clip(name="empty", channels=[])])
    findings, _ = run_check("duration-sanity", asset)
    assert [(f.severity, f.clip) for f in findings] == [("warning", "empty")]
    findings, _ = run_check("duration-sanity", asset, expect={"duration_s": 1.0})
    assert [f.severity for f in findings] == ["warning", "error"]


def test_duration_pin_tolerance_exact():
    tol = 0.25
    for d in (0.75, 1.25):  # exactly at the tolerance: pass
        asset = make_asset(rot_times=(0, d / 2, d), tr_times=(0, d / 2, d))
        assert run_check("duration-sanity", asset, expect={"duration_s": 1.0, "duration_tolerance_s": tol})[0] == []
    d = float(np.nextafter(np.float32(1.25), np.float32(2)))
    asset = make_asset(rot_times=(0, 0.5, d), tr_times=(0, 0.5, d))
    findings, _ = run_check("duration-sanity", asset, expect={"duration_s": 1.0, "duration_tolerance_s": tol})
    assert len(findings) == 1 and findings[0].measured == d and findings[0].expected == 1.0
    # check-level default tolerance (0.017 s): one dropped frame at 30 fps is caught
    findings, _ = run_check("duration-sanity", make_asset(), expect={"duration_s": 1.0 + 1 / 30})
    assert len(findings) == 1 and "disagrees" in findings[0].message


def test_channels_end_at_different_times_warning():
    asset = make_asset(tr_times=(0, 0.15, 0.3))
    findings, _ = run_check("duration-sanity", asset)
    assert len(findings) == 1
    f = findings[0]
    assert (f.severity, f.bone) == ("warning", "hips")
    assert f.measured == pytest.approx(0.7, abs=1e-6) and f.time_s == pytest.approx(0.3, abs=1e-7)
    # single-key channels never count toward the spread
    one = Channel.make(1, "scale", [0.0], [[1, 1, 1]])
    assert run_check("duration-sanity", make_asset(extra=[one]))[0] == []


def test_end_spread_exact_threshold():
    cap = 2.0**-6
    asset = make_asset(tr_times=(0, 0.5, 1 - cap))
    assert run_check("duration-sanity", asset, options={"max_end_spread_s": cap})[0] == []
    asset = make_asset(tr_times=(0, 0.5, 1 - cap - 2.0**-20))
    assert len(run_check("duration-sanity", asset, options={"max_end_spread_s": cap})[0]) == 1


# ---------------------------------------------------------------- constant-track


def test_constant_translation_and_rotation_notes():
    tv = [[0, 1, 0]] * 3
    findings, _ = run_check("constant-track", make_asset(tr_values=tv))
    assert [(f.severity, f.bone) for f in findings] == [("note", "hips")]
    assert "translation track has 3 keys but never moves" in findings[0].message
    findings, _ = run_check("constant-track", make_asset(rot_values=yrot([0.3, 0.3, 0.3])))
    assert [f.bone for f in findings] == ["spine"]


def test_constant_vector_threshold_exact():
    eps = 2.0**-13
    at = [[0, 1, 0], [0, 1 + 0, eps], [0, 1, 0]]
    assert len(run_check("constant-track", make_asset(tr_values=at), options={"vector_epsilon": eps})[0]) == 1
    past = [[0, 1, 0], [0, 1, eps + 2.0**-30], [0, 1, 0]]
    assert run_check("constant-track", make_asset(tr_values=past), options={"vector_epsilon": eps})[0] == []


def test_constant_rotation_threshold_default():
    # within 1e-3 rad of key 0 (0.9e-3) is constant; 1.1e-3 moves
    assert len(run_check("constant-track", make_asset(rot_values=yrot([0.0, 0.9e-3, 0.0])))[0]) == 1
    assert run_check("constant-track", make_asset(rot_values=yrot([0.0, 1.1e-3, 0.0])))[0] == []
    # sign-invariant: q and -q are the same orientation
    q = yrot([0.2, 0.2, 0.2])
    q[1] = -q[1]
    assert len(run_check("constant-track", make_asset(rot_values=q))[0]) == 1


def test_cubic_flat_keys_with_tangents_move():
    ch = Channel.make(0, "scale", [0, 1], [[1, 1, 1], [1, 1, 1]], interpolation="CUBICSPLINE",
                      out_tangents=[[0, 0.5, 0], [0, 0, 0]])
    assert run_check("constant-track", make_asset(extra=[ch]))[0] == []
    flat = Channel.make(0, "scale", [0, 1], [[1, 1, 1], [1, 1, 1]], interpolation="CUBICSPLINE")
    assert len(run_check("constant-track", make_asset(extra=[flat]))[0]) == 1


def test_single_key_track_is_not_constant_track():
    one = Channel.make(1, "scale", [0.0], [[1, 1, 1]])
    assert run_check("constant-track", make_asset(extra=[one]))[0] == []


# ---------------------------------------------------------------- fps


def test_fps_not_declared_is_not_armed():
    asset = make_asset(tr_times=(0, 0.51, 1.013), rot_times=(0, 0.5, 1.013))
    assert run_check("fps", asset) == ([], [])


def test_fps_duration_and_key_off_grid():
    # 32 fps: 1.013 s = 32.416 frames, key 0.51 s = 16.32 frames
    asset = make_asset(tr_times=(0, 0.51, 1.013), rot_times=(0, 0.5, 1.0))
    findings, _ = run_check("fps", asset, expect={"fps": 32})
    assert len(findings) == 2
    dur, key = findings
    assert "32.42 frames" in dur.message and dur.expected == 32.0
    assert key.bone == "hips" and key.time_s == pytest.approx(1.013, abs=1e-6)
    assert key.measured == pytest.approx(0.416, abs=1e-4)


def test_fps_frame_error_exact_threshold():
    # at 8 fps a key at 1/8 + 1/80 s is 0.1 frames off (in float64; f32 time adds < 1e-7 frames)
    cap = 0.125  # 1/8 frame, exact in binary
    t_at = (1 + cap) / 8  # exactly 1.125 frames → error 0.125
    asset = make_asset(tr_times=(0, t_at, 1.0))
    assert run_check("fps", asset, expect={"fps": 8}, options={"max_frame_error": cap})[0] == []
    t_past = float(np.nextafter(np.float32(t_at), np.float32(1)))
    asset = make_asset(tr_times=(0, t_past, 1.0))
    findings, _ = run_check("fps", asset, expect={"fps": 8}, options={"max_frame_error": cap})
    assert len(findings) == 1 and findings[0].time_s == t_past


def test_fps_invalid_is_gap():
    _, gaps = run_check("fps", make_asset(), expect={"fps": float("nan")})
    assert [(g.code, g.scope, g.subjects) for g in gaps] == [("invalid_declared_fps", "frame_grid", ["walk"])]


# ---------------------------------------------------------------- several channels at once


def test_channel_boundaries_are_not_key_pairs():
    """Whole-clip reductions must not pair the last key of one channel with the first of the next."""
    q = yrot([0.0, 0.8, 1.6])
    a = Channel.make(1, "rotation", [0, 0.5, 1], q)
    b = Channel.make(0, "rotation", [0, 1], -np.array([q[2], q[2]]))  # starts on the other hemisphere of a's end
    c = Channel.make(0, "scale", [0, 0.25, 0.5, 0.75, 1.0], [[1, 1, 1]] * 5)
    sk = Skeleton.build(["hips", "spine"], [-1, 0], [[0, 0, 0], [0, 0.3, 0]])
    asset = Asset(skeleton=sk, clips=[Clip(name="walk", channels=[a, b, c])])
    assert run_check("quat-flip", asset)[0] == []
    assert run_check("time-monotonic", asset)[0] == []  # 1.0 then 0 across channels is fine
    notes, _ = run_check("constant-track", asset)
    assert [(f.bone, f.message.split(" track")[0]) for f in notes] == [("hips", "rotation"), ("hips", "scale")]


def test_only_the_offending_channel_is_reported_among_many():
    chans = [Channel.make(1, "rotation", [0, 0.5, 1], yrot([0.0, 0.8, 1.6])) for _ in range(5)]
    bad = yrot([0.0, 0.8, 1.6])
    bad[2] *= 1.5
    chans[3] = Channel.make(0, "rotation", [0, 0.5, 1], bad)
    chans.append(Channel.make(0, "translation", [0, 0.5, 0.25], [[0, 0, 0], [0, 1, 0], [0, 0, 1]]))
    sk = Skeleton.build(["hips", "spine"], [-1, 0], [[0, 0, 0], [0, 0.3, 0]])
    asset = Asset(skeleton=sk, clips=[Clip(name="walk", channels=chans)])
    findings, _ = run_check("quat-norm", asset)
    assert [(f.bone, f.time_s, f.measured) for f in findings] == [("hips", 1.0, pytest.approx(1.5))]
    findings, _ = run_check("time-monotonic", asset)
    assert [(f.bone, f.time_s) for f in findings] == [("hips", 0.25)]
    nan_vals = yrot([0.0, 0.8, 1.6])
    nan_vals[1, 0] = np.nan
    chans[4] = Channel.make(1, "rotation", [0, 0.5, 1], nan_vals)
    findings, _ = run_check("nan", asset)
    assert [(f.bone, f.time_s) for f in findings] == [("spine", 0.5)]


def test_end_spread_ignores_malformed_channels():
    # the translation channel's last key (0.25) is not its end: it is left to time-monotonic
    asset = make_asset(tr_times=(0, 0.5, 0.25))
    assert run_check("duration-sanity", asset)[0] == []
    nan_end = make_asset(tr_times=(0, 0.5, np.nan))
    assert run_check("duration-sanity", nan_end)[0] == []


def stored_angle_rad(q):
    """Angle between two float32-stored quaternions, by an independent formula:
    2·atan2(|vector part of q̂0*·q̂1|, |scalar part|) in float64 (well conditioned
    for small angles, unlike acos near 1)."""
    a, b = (np.asarray(x, dtype=np.float32).astype(np.float64) for x in q)
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    w = a[3] * b[3] + a[:3] @ b[:3]
    v = a[3] * b[:3] - b[3] * a[:3] - np.cross(a[:3], b[:3])
    return 2.0 * math.atan2(np.linalg.norm(v), abs(w))


@pytest.mark.parametrize("rel, constant", [(-1e-5, True), (1e-5, False)])
def test_constant_rotation_default_epsilon_within_1e5_relative(rel, constant):
    # the middle key sits 1e-3 rad × (1 ± 1e-5) from key 0: the float32 storage of the
    # keys moves the angle by ~1e-7 relative, far less than the 1e-5 margin
    q = yrot([0.0, 1e-3 * (1 + rel), 0.0])
    angle = stored_angle_rad((q[0], q[1]))
    assert (angle <= 1e-3) == constant  # the stored keys really are on that side
    findings = run_check("constant-track", make_asset(rot_values=q))[0]
    assert [f.bone for f in findings] == (["spine"] if constant else [])



def test_negative_time_tolerance_is_compared_as_float32():
    """Key times are float32: -0.001 is stored as -0.0010000000475 (below -0.001 in float64);
    a key written as exactly -negative_tolerance_s passes, the next float32 below does not."""
    tol = 0.001
    at = float(np.float32(-tol))
    assert at < -tol  # the case the float64 comparison got wrong
    ok, _ = run_check("time-monotonic", make_asset(tr_times=(at, 0.5, 1)), options={"negative_tolerance_s": tol})
    assert ok == []
    below = float(np.nextafter(np.float32(at), np.float32(-1)))
    bad, _ = run_check("time-monotonic", make_asset(tr_times=(below, 0.5, 1)), options={"negative_tolerance_s": tol})
    assert len(bad) == 1 and bad[0].measured == below
