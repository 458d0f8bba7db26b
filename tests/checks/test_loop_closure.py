"""Loop checks: loop-closure, loop-seam-vel, loop-seam-rot, loop-seam, duplicate-loop-endpoint.

GUARD fixture: one bone ``root``, clip ``guard`` over 1 s with a LINEAR X
translation keyed at t = 0, .25, .5, .75, 1 (optionally a Y rotation at the
same times). The pose grid samples exactly the key times, so every measure
is hand-computable: position delta = |x4 − x0|, velocity delta =
|(x1 − x0)/.25 − (x4 − x3)/.25|, angular delta = |(a1 − a0) − (a4 − a3)|/.25.
Caps are compared in float32 (an authored value exactly at the cap passes).

WALK fixture (ue-mannequin names, so roles auto-resolve): ``pelvis`` at
(0, 1, 0) with feet ``foot_l``/``foot_r`` at (±0.1, −1, 0); 33 keys t = k/32;
with w = sin(P·2πk/32) the left foot moves (0, .05w, .15w), the right the
opposite. P = 1 closes the cycle; P = 0.75 stops three quarters through, so
the wrap jumps |w| = 1 while the larger neighbouring step is sin(0.75·2π/32):
ratio = 1/sin(0.75·2π/32) = 6.8152.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton

from checks_support import run_check

LOOP = {"loop": True}
T5 = [0, 0.25, 0.5, 0.75, 1.0]


def yrot_deg(deg):
    a = np.radians(np.asarray(deg, dtype=np.float64))
    return np.stack([np.zeros_like(a), np.sin(a / 2), np.zeros_like(a), np.cos(a / 2)], axis=-1)


def guard(x=(0, 0, 0, 0, 0), rot_deg=None, times=T5, name="guard"):
    sk = Skeleton.build(["root"], [-1])
    xs = np.asarray(x, dtype=np.float64)
    chans = [Channel.make(0, "translation", times, np.stack([xs, 0 * xs, 0 * xs], axis=1))]
    if rot_deg is not None:
        chans.append(Channel.make(0, "rotation", times, yrot_deg(rot_deg)))
    return Asset(skeleton=sk, clips=[Clip(name=name, channels=chans)])


def walk(periods=1.0, keys=33, stride=0.15, names=("pelvis", "foot_l", "foot_r"), right_stride=None):
    """``right_stride`` (default ``stride``) gives the right foot its own stride length."""
    sk = Skeleton.build(list(names), [-1, 0, 0], [[0, 1, 0], [0.1, -1, 0], [-0.1, -1, 0]])
    k = np.arange(keys)
    t = k / 32.0
    w = np.sin(periods * 2 * np.pi * k / 32.0)
    off = np.stack([0 * w, 0.05 * w, stride * w], axis=1)
    off_r = np.stack([0 * w, 0.05 * w, (stride if right_stride is None else right_stride) * w], axis=1)
    chans = [
        Channel.make(1, "translation", t, np.array([0.1, -1, 0]) + off),
        Channel.make(2, "translation", t, np.array([-0.1, -1, 0]) - off_r),
    ]
    return Asset(skeleton=sk, clips=[Clip(name="walk", channels=chans)])


def ids(findings):
    return [f.check_id for f in findings]


# ------------------------------------------------------------ not armed


@pytest.mark.parametrize("check_id", ["loop-closure", "loop-seam-vel", "loop-seam-rot", "loop-seam", "duplicate-loop-endpoint"])
def test_loop_checks_are_not_armed_without_loop(check_id):
    asset = guard(x=(0, 0.25, 0.5, 0.75, 1.0), rot_deg=(0, 10, 20, 10, 0))
    assert run_check(check_id, asset) == ([], [])
    assert run_check(check_id, asset, expect={"loop": False}) == ([], [])
    assert run_check(check_id, walk(0.75), expect={"speed_mps": 1.0}) == ([], [])


# ------------------------------------------------------------ loop-closure


def test_all_zero_track_is_clean_without_roles():
    for cid in ("loop-closure", "loop-seam-vel", "loop-seam-rot"):
        assert run_check(cid, guard(), expect=LOOP) == ([], [])


def test_closure_position_cap_exact():
    assert run_check("loop-closure", guard(x=(0, 0.00225, 0.0045, 0.00675, 0.009)), expect=LOOP)[0] == []
    assert run_check("loop-closure", guard(x=(0, 0.0025, 0.005, 0.0075, 0.01)), expect=LOOP)[0] == []  # at the cap
    past = float(np.nextafter(np.float32(0.01), np.float32(1)))
    findings, _ = run_check("loop-closure", guard(x=(0, 0.0025, 0.005, 0.0075, past)), expect=LOOP)
    assert len(findings) == 1
    f = findings[0]
    assert (f.clip, f.bone, f.time_s, f.expected) == ("guard", "root", 1.0, 0.01)
    assert f.measured == pytest.approx(past, abs=0) and "in position" in f.message


def test_closure_rotation_cap_and_shortest_path():
    assert run_check("loop-closure", guard(rot_deg=(0, 0.25, 0.5, 0.75, 1.0)), expect=LOOP)[0] == []
    findings, _ = run_check("loop-closure", guard(rot_deg=(0, 0.3, 0.6, 0.9, 1.1)), expect=LOOP)
    assert len(findings) == 1 and findings[0].measured == pytest.approx(1.1, abs=1e-4)
    # an open cycle (the last key is not the first): steps of 0.5° and 1° allow a 1.5° wrap, and
    # the 350° end is 10° from the start, not 350°
    findings, _ = run_check("loop-closure", guard(rot_deg=(0, 0.5, 1, 349, 350)), expect=LOOP)
    assert findings[0].measured == pytest.approx(10.0, abs=1e-4) and findings[0].expected == pytest.approx(1.5)
    # turning in 90° steps, the 10° wrap is smaller than any step: an ordinary frame of an open cycle
    assert run_check("loop-closure", guard(rot_deg=(0, 90, 180, 270, 350)), expect=LOOP)[0] == []
    # last key = −identity is the same orientation
    q = yrot_deg([0, 10, 20, 10, 0])
    q[4] = -q[4]
    sk = Skeleton.build(["root"], [-1])
    asset = Asset(skeleton=sk, clips=[Clip(name="guard", channels=[Channel.make(0, "rotation", T5, q)])])
    assert run_check("loop-closure", asset, expect=LOOP)[0] == []


def test_closure_caps_via_options_and_both_dimensions():
    # an open cycle stepping 0.25 m and 5° per frame wraps 1.0 m and 20°: the allowance is
    # max(cap, 1.5 x the larger neighbouring step) = 0.375 m and 7.5°
    asset = guard(x=(0, 0.25, 0.5, 0.75, 1.0), rot_deg=(0, 5, 10, 15, 20))
    findings, _ = run_check("loop-closure", asset, expect=LOOP)
    assert [f.expected for f in findings] == [pytest.approx(0.375), pytest.approx(7.5, abs=1e-5)]
    assert [f.measured for f in findings] == [pytest.approx(1.0), pytest.approx(20.0)]
    assert "jumps 1.0000 m across the wrap" in findings[0].message
    assert run_check("loop-closure", asset, expect=LOOP,
                     options={"max_position_delta_m": 1.1, "max_rotation_delta_deg": 20.5})[0] == []


# ------------------------------------------------------------ loop-seam-vel


def test_seam_velocity_cap_exact():
    # steps .045/.035/−.035/−.045 m/s: largest inner change .07, 1.5x = .105 → cap .105 (0.09 passes);
    # .05/.03/−.03/−.05: inner .06 → 1.5x = .09 under the 0.1 floor, so the floor is the cap
    assert run_check("loop-seam-vel", guard(x=(0, 0.01125, 0.02, 0.01125, 0)), expect=LOOP)[0] == []  # 0.09
    assert run_check("loop-seam-vel", guard(x=(0, 0.0125, 0.02, 0.0125, 0)), expect=LOOP)[0] == []  # exactly 0.1
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.01375, 0.02, 0.01375, 0)), expect=LOOP)
    assert len(findings) == 1
    f = findings[0]
    assert (f.bone, f.time_s, f.expected) == ("root", 1.0, 0.1)
    assert f.measured == pytest.approx(0.11, abs=1e-6)


def test_seam_velocity_values():
    # out +1 m/s, in −1 m/s → 2.0; travelling at constant speed → 0 (closure fails, velocity clean)
    absolute = {"max_velocity_delta_mps": 0.1}
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.25, 0.5, 0.25, 0)), expect=LOOP, options=absolute)
    assert findings[0].measured == pytest.approx(2.0, abs=1e-6)
    # an open cycle (no travel bone: judged in model space) wraps from x = 1 back to 0 in one
    # 0.25 s frame: −4 m/s between steps of +1 m/s, a change of 5 m/s against none inside
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.25, 0.5, 0.75, 1.0)), expect=LOOP)
    assert findings[0].measured == pytest.approx(5.0, abs=1e-6) and findings[0].expected == pytest.approx(0.1)
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.025, 0.08, 0.05, 0)), expect=LOOP, options=absolute)
    assert findings[0].measured == pytest.approx(0.3, abs=1e-6)
    # by default the cap is relative: the triangle wave's seam change (2 m/s) is its ordinary
    # change at the turn-around (2 m/s inside the clip), so it passes
    assert run_check("loop-seam-vel", guard(x=(0, 0.25, 0.5, 0.25, 0)), expect=LOOP) == ([], [])


def test_seam_velocity_relative_cap_catches_three_times_the_inner_change():
    # step velocities 1, 1/3, −1/3, −1 m/s (keys .25 s apart, closing at 0): each inner change is
    # 2/3 m/s, the seam's (−1 → +1) is 2 m/s = 3x: cap max(0.1, 1.5 x 2/3) = 1.0 m/s
    x = np.cumsum([0.0, 0.25, 0.25 / 3, -0.25 / 3, -0.25])
    findings, _ = run_check("loop-seam-vel", guard(x=tuple(x)), expect=LOOP)
    assert len(findings) == 1
    f = findings[0]
    assert f.measured == pytest.approx(2.0, abs=1e-6) and f.expected == pytest.approx(1.0, abs=1e-6)
    assert (f.bone, f.time_s) == ("root", 1.0)
    assert "3.0x its largest step-to-step change inside the clip, 0.6667 m/s" in f.message
    # a ratio of 3.5 lets it through
    assert run_check("loop-seam-vel", guard(x=tuple(x)), expect=LOOP, options={"max_ratio": 3.0})[0] == []


# ------------------------------------------------------------ loop-seam-rot


def test_seam_rotation_cap_exact():
    absolute = {"max_angular_velocity_delta_degps": 5.0}
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 1.24975, 5, 0, 0)), expect=LOOP, options=absolute)[0] == []
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 1.25, 5, 0, 0)), expect=LOOP, options=absolute)[0] == []
    findings, _ = run_check("loop-seam-rot", guard(rot_deg=(0, 1.25025, 5, 0, 0)), expect=LOOP, options=absolute)
    assert len(findings) == 1
    assert findings[0].measured == pytest.approx(5.001, abs=1e-3) and findings[0].expected == 5.0


def test_seam_rotation_values():
    findings, _ = run_check("loop-seam-rot", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP,
                            options={"max_angular_velocity_delta_degps": 5.0})
    assert findings[0].measured == pytest.approx(80.0, abs=1e-3) and findings[0].bone == "root"
    # relative by default: 80 deg/s at the seam is the 80 deg/s turn-around inside the clip
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP)[0] == []
    # 40, 40/3, −40/3, −40 deg/s per step: the seam change (80) is 3x the inner one (26.67)
    findings, _ = run_check("loop-seam-rot", guard(rot_deg=(0, 10, 10 + 10 / 3, 10, 0)), expect=LOOP)
    assert findings[0].measured == pytest.approx(80.0, abs=1e-3)
    assert findings[0].expected == pytest.approx(40.0, abs=1e-3)
    assert run_check("loop-closure", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP)[0] == []
    # shortest-path steps through 180° agree: no seam change
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 10, 180, 350, 360)), expect=LOOP)[0] == []
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP,
                     options={"max_angular_velocity_delta_degps": 80.1})[0] == []


def test_seam_rotation_compares_vectors():
    # +10° about X out, −10° about Y (= +10° step from −10° back to 0) in: |(40,0,0) − (0,40,0)|/... = 20√2 deg/s
    times = [0, 0.5, 1.0, 1.5, 2.0]
    x10 = [math.sin(math.radians(5)), 0, 0, math.cos(math.radians(5))]
    x20 = [math.sin(math.radians(10)), 0, 0, math.cos(math.radians(10))]
    ym10 = [0, -math.sin(math.radians(5)), 0, math.cos(math.radians(5))]
    q = np.array([[0, 0, 0, 1], x10, x20, ym10, [0, 0, 0, 1]])
    sk = Skeleton.build(["root"], [-1])
    asset = Asset(skeleton=sk, clips=[Clip(name="guard", channels=[Channel.make(0, "rotation", times, q)])])
    findings, _ = run_check("loop-seam-rot", asset, expect=LOOP, options={"max_angular_velocity_delta_degps": 5.0})
    assert findings[0].measured == pytest.approx(20 * math.sqrt(2), abs=1e-3)
    assert findings[0].time_s == 2.0


def test_worst_bone_named_among_two_roots():
    sk = Skeleton.build(["first-root", "second-root"], [-1, -1])
    chans = [Channel.make(0, "rotation", T5, yrot_deg([0, 1, 2, 1, 0])),
             Channel.make(1, "rotation", T5, yrot_deg([0, 10, 20, 10, 0]))]
    asset = Asset(skeleton=sk, clips=[Clip(name="guard", channels=chans)])
    findings, _ = run_check("loop-seam-rot", asset, expect=LOOP, options={"max_angular_velocity_delta_degps": 5.0})
    assert [f.bone for f in findings] == ["second-root"]


@pytest.mark.parametrize("check_id,scope", [("loop-closure", "loop_closure"), ("loop-seam-vel", "loop_seam_velocity"),
                                            ("loop-seam-rot", "loop_seam_rotation")])
def test_continuity_unavailable_is_gap(check_id, scope):
    two_keys = guard(x=(0, 1), times=[0, 1])
    findings, gaps = run_check(check_id, two_keys, expect=LOOP)
    assert findings == [] and [(g.code, g.scope, g.subjects) for g in gaps] == [("measurement_unavailable", scope, ["guard"])]
    nan_end = guard(x=(0, 0.1, 0.2, 0.1, float("nan")))
    findings, gaps = run_check(check_id, nan_end, expect=LOOP)
    assert findings == [] and [g.code for g in gaps] == ["measurement_unavailable"]


# ------------------------------------------------------------ loop-seam


def test_loop_seam_clean_and_popped_walk():
    assert run_check("loop-seam", walk(1.0), expect=LOOP) == ([], [])
    findings, _ = run_check("loop-seam", walk(0.75), expect=LOOP)
    assert len(findings) == 1
    f = findings[0]
    expected_ratio = 1 / math.sin(0.75 * 2 * math.pi / 32)
    assert f.measured == pytest.approx(expected_ratio, rel=1e-5) and f.expected == 1.5
    assert (f.clip, f.time_s) == ("walk", pytest.approx(1.0)) and f.bone in ("foot_l", "foot_r")
    assert "6.82×" in f.message


@pytest.mark.parametrize("stride_l,stride_r,bone", [(0.15, 0.3, "foot_r"), (0.3, 0.15, "foot_l")])
def test_loop_seam_names_the_foot_with_the_larger_wrap_jump(stride_l, stride_r, bone):
    # P = 0.75: each foot's wrap jump is |w(32) − w(0)| = 1 times its (0, 0.05, stride) offset,
    # so the foot with the 0.3 m stride jumps √(0.05² + 0.3²) = 0.304 m against 0.158 m
    findings, _ = run_check("loop-seam", walk(0.75, stride=stride_l, right_stride=stride_r), expect=LOOP)
    assert len(findings) == 1 and findings[0].bone == bone


def seam_asset(z_keys):
    """pelvis + foot_l keyed at T5 with dyadic Z offsets: ratio is exact."""
    sk = Skeleton.build(["pelvis", "foot_l"], [-1, 0], [[0, 1, 0], [0.125, -1, 0]])
    z = np.asarray(z_keys, dtype=np.float64)
    vals = np.stack([np.full_like(z, 0.125), np.full_like(z, -1.0), z], axis=1)
    return Asset(skeleton=sk, clips=[Clip(name="walk", channels=[Channel.make(1, "translation", T5, vals)])])


def test_loop_seam_ratio_exact_threshold():
    asset = seam_asset([0, 0.0625, 0.125, 0.1875, 0.25])  # seam 0.25 / step 0.0625 = 4 exactly
    assert run_check("loop-seam", asset, expect=LOOP, options={"max_ratio": 4.0})[0] == []
    findings, _ = run_check("loop-seam", asset, expect=LOOP, options={"max_ratio": float(np.nextafter(4.0, 0))})
    assert len(findings) == 1 and findings[0].measured == 4.0 and findings[0].bone == "foot_l"


@pytest.mark.parametrize(
    "z_keys",
    [
        [0, 0.03125, 0.125, 0.25, 0.375],  # first step 1/32, last step 1/8
        [0, 0.125, 0.25, 0.34375, 0.375],  # first step 1/8, last step 1/32
    ],
)
def test_loop_seam_divides_by_the_larger_neighbouring_step(z_keys):
    # seam |z4 − z0| = 0.375 over max(|z1 − z0|, |z4 − z3|) = 0.125: exactly 3 either way round
    # (the smaller step alone would give 12)
    findings, gaps = run_check("loop-seam", seam_asset(z_keys), expect=LOOP)
    assert gaps == [] and len(findings) == 1 and findings[0].measured == 3.0


def test_loop_seam_gaps():
    # no roles: bone names nobody recognises
    _, gaps = run_check("loop-seam", walk(0.75, names=("a", "b", "c")), expect=LOOP)
    assert [(g.code, g.scope, g.subjects) for g in gaps] == [("roles_unresolved", "loop_seam", ["walk"])]
    assert "hips/foot" in gaps[0].message
    # too short: two keys → two grid samples
    findings, gaps = run_check("loop-seam", walk(1.0, keys=2), expect=LOOP)
    assert findings == [] and gaps[0].code == "measurement_unavailable" and "too short" in gaps[0].message
    # a stride step below the 0.02 m floor: idle
    findings, gaps = run_check("loop-seam", walk(1.0, stride=0.001), expect=LOOP)
    assert findings == [] and "no usable stride step" in gaps[0].message
    # the floor is configurable
    findings, gaps = run_check("loop-seam", walk(0.75, stride=0.001), expect=LOOP, options={"min_stride_step_m": 0.0})
    assert gaps == [] and len(findings) == 1


# ------------------------------------------------------------ duplicate-loop-endpoint


def test_duplicate_endpoint_inclusive_cycle_warns():
    findings, gaps = run_check("duplicate-loop-endpoint", walk(1.0), expect=LOOP)
    assert gaps == [] and len(findings) == 1
    f = findings[0]
    assert (f.severity, f.clip, f.time_s, f.measured, f.expected) == ("warning", "walk", 1.0, 1, 0)
    assert "1.000000s -> 0.968750s" in f.message


def test_open_cycle_is_not_a_duplicate():
    assert run_check("duplicate-loop-endpoint", walk(31 / 32, keys=32), expect=LOOP) == ([], [])
    assert run_check("duplicate-loop-endpoint", walk(0.75), expect=LOOP) == ([], [])


def test_duplicate_endpoint_tolerance():
    # a root translation (1 unit = 1 m): 2^-14 m (0.061 mm) from the first key is still a repeat of
    # it; 2^-13 m (0.122 mm) is not (tolerance 0.1 mm in model space)
    assert len(run_check("duplicate-loop-endpoint", guard(x=(0, 0.25, 0.5, 0.25, 2.0**-14)), expect=LOOP)[0]) == 1
    assert run_check("duplicate-loop-endpoint", guard(x=(0, 0.25, 0.5, 0.25, 2.0**-13)), expect=LOOP)[0] == []
    # a clip where nothing moves is not a duplicated endpoint (that is constant-track's business)
    assert run_check("duplicate-loop-endpoint", guard(), expect=LOOP) == ([], [])


def test_duplicate_endpoint_gap_on_bad_times():
    findings, gaps = run_check("duplicate-loop-endpoint", guard(times=[0, 0.5, 0.25, 0.75, 1.0]), expect=LOOP)
    assert findings == [] and [(g.code, g.scope) for g in gaps] == [("measurement_unavailable", "duplicate_loop_endpoint")]


def test_per_clip_loop_caps_override_check_options():
    asset = guard(x=(0, 0.005, 0.01, 0.015, 0.02))
    findings, _ = run_check("loop-closure", asset, expect={"loop": True, "max_loop_position_delta_m": 0.015},
                            options={"max_position_delta_m": 0.1})
    assert [f.expected for f in findings] == [0.015]
    assert run_check("loop-closure", asset, expect={"loop": True, "max_loop_position_delta_m": 0.02})[0] == []
    cusp = guard(x=(0, 0.25, 0.5, 0.25, 0))  # Δv = 2.0 m/s
    assert run_check("loop-seam-vel", cusp, expect={"loop": True, "max_loop_velocity_delta_mps": 2.0})[0] == []
    findings, _ = run_check("loop-seam-vel", cusp, expect={"loop": True, "max_loop_velocity_delta_mps": 1.9})
    assert [f.expected for f in findings] == [1.9]
    turn = guard(rot_deg=(0, 10, 20, 10, 0))  # 80 deg/s
    findings, _ = run_check("loop-seam-rot", turn, expect={"loop": True, "max_loop_angular_velocity_delta_degps": 79.0},
                            options={"max_angular_velocity_delta_degps": 70.0})
    assert [f.expected for f in findings] == [79.0]
    rot = guard(rot_deg=(0, 1, 2, 3, 5))
    findings, _ = run_check("loop-closure", rot, expect={"loop": True, "max_loop_rotation_delta_deg": 4.0})
    assert [f.expected for f in findings] == [4.0]


def test_seam_messages_give_the_in_clip_reference():
    # x = 0, .25, .5, .25, 0 → step velocities +1, +1, −1, −1 m/s: largest in-clip change 2.0, seam 2.0
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.25, 0.5, 0.25, 0)), expect=LOOP,
                            options={"max_velocity_delta_mps": 0.1})
    assert "inside the clip its largest step-to-step change is 2.0000 m/s" in findings[0].message
    findings, _ = run_check("loop-seam-rot", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP,
                            options={"max_angular_velocity_delta_degps": 5.0})
    assert "inside the clip its largest step-to-step change is 80.000 deg/s" in findings[0].message


@pytest.mark.parametrize("rel, trips", [(-1e-5, False), (1e-5, True)])
def test_closure_rotation_default_cap_within_1e5_relative(rel, trips):
    # last key 1° × (1 ± 1e-5) from the first about Y (float32 key storage moves the
    # angle by ~1e-7 relative): the default 1° cap decides at that resolution
    end_deg = 1.0 * (1 + rel)
    q = yrot_deg([0, end_deg / 4, end_deg / 2, 3 * end_deg / 4, end_deg]).astype(np.float32).astype(np.float64)
    stored = math.degrees(2 * math.atan2(abs(q[4, 1] * q[0, 3] - q[0, 1] * q[4, 3]), abs(q[0] @ q[4])))
    assert (stored > 1.0) == trips  # independent: the stored keys are on that side of the cap
    findings, _ = run_check("loop-closure", guard(rot_deg=(0, end_deg / 4, end_deg / 2, 3 * end_deg / 4, end_deg)), expect=LOOP)
    assert [f.expected for f in findings] == ([1.0] if trips else [])
    if trips:
        assert findings[0].measured == pytest.approx(stored, rel=1e-6)
