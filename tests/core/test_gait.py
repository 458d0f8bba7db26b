"""Gait metrics on hand-built pose grids with analytic foot heights.

Every expectation is derived from the formula (a +sin L−R signal has its
trough at 3/4 of the cycle), never copied from our own output.
"""

import math

import numpy as np
import pytest

from animsmith.core.circular import circular_distance_cycles, circular_mean_cycles, circular_spread_cycles
from animsmith.core.gait import (
    cycle_length,
    gait_metrics,
    loop_seam_ratio,
    lr_signal_m,
    stride_anchor_cycles,
)
from animsmith.core.roles import RoleMap
from animsmith.model import PoseGrid

HIPS, LF, RF, LT, RT = 0, 1, 2, 3, 4
ALL_ROLES = {"hips": HIPS, "left_foot": LF, "right_foot": RF, "left_toe": LT, "right_toe": RT}


def make_grid(positions, times=None):
    """PoseGrid holding only model positions (identity rotations)."""
    p = np.asarray(positions, dtype=float)
    n, b = p.shape[:2]
    t = np.linspace(0.0, 1.0, n) if times is None else np.asarray(times, float)
    rot = np.zeros((n, b, 4))
    rot[..., 3] = 1.0
    return PoseGrid(
        times_s=t,
        local_translation=p.copy(),
        local_rotation=rot.copy(),
        local_scale=np.ones((n, b, 3)),
        model_matrix=np.tile(np.eye(4), (n, b, 1, 1)),
        model_position_m=p,
        model_rotation=rot,
        duration_s=float(t[-1]),
    )


def roles_of(mapping):
    return RoleMap(profile="test", bones=dict(mapping), names={r: r for r in mapping})


def biped_positions(frames=31, amp=0.05, offset=0.0, cycles=1, hips_bob=0.0, toes=False):
    """Hips at y = 1 (+ bob), feet at -0.9 + h relative, h_L = amp·sin(2π(c·u + offset)), h_R = −h_L."""
    u = np.linspace(0.0, 1.0, frames)
    h = amp * np.sin(2 * np.pi * (cycles * u + offset))
    hips_y = 1.0 + hips_bob * np.sin(4 * np.pi * u)
    nb = 5 if toes else 3
    p = np.zeros((frames, nb, 3))
    p[:, HIPS, 1] = hips_y
    p[:, LF] = np.stack([np.full(frames, 0.1), hips_y - 0.9 + h, np.zeros(frames)], 1)
    p[:, RF] = np.stack([np.full(frames, -0.1), hips_y - 0.9 - h, np.zeros(frames)], 1)
    if toes:
        p[:, LT] = p[:, LF] + [0, -0.05, 0.1]
        p[:, RT] = p[:, RF] + [0, -0.05, 0.1]
    return p


BIPED_ROLES = {"hips": HIPS, "left_foot": LF, "right_foot": RF}


def test_cycle_length_excludes_wrap_duplicate_except_n3():
    assert cycle_length(31) == 30
    assert cycle_length(4) == 3
    assert cycle_length(3) == 3
    assert cycle_length(2) == 0


def test_sin_signal_anchor_is_three_quarters():
    c = 40
    s = np.sin(2 * np.pi * np.arange(c) / c)
    assert stride_anchor_cycles(s) == pytest.approx(0.75, abs=1e-12)
    # cos peaks at 0 -> trough at 0.5
    assert stride_anchor_cycles(np.cos(2 * np.pi * np.arange(c) / c)) == pytest.approx(0.5, abs=1e-12)
    # negated (left/right swapped) -> 0.25
    assert stride_anchor_cycles(-s) == pytest.approx(0.25, abs=1e-12)


def test_anchor_stays_in_unit_interval_near_wrap():
    c = 30
    # trough exactly at 0: -cos -> peak at 0.5 -> trough at 0 (not 1.0)
    v = stride_anchor_cycles(-np.cos(2 * np.pi * np.arange(c) / c))
    assert 0.0 <= v < 1.0
    assert circular_distance_cycles(v, 0.0) < 1e-12


def test_biped_offsets_give_known_anchors():
    roles = roles_of(BIPED_ROLES)
    g = gait_metrics(make_grid(biped_positions(offset=0.0)), roles)
    assert g.gait_phase == pytest.approx(0.75, abs=1e-9)
    assert g.cycles == 1 and g.cycles_note is None
    # L−R = 2A sin, sampled at k/30: peaks at k = 7, 8 (sin 84°) and troughs at 22, 23
    assert g.lr_amplitude_m == pytest.approx(2 * 0.1 * math.sin(2 * math.pi * 7 / 30), abs=1e-12)
    g2 = gait_metrics(make_grid(biped_positions(offset=0.25)), roles)
    assert g2.gait_phase == pytest.approx(0.50, abs=1e-9)
    # general offset δ moves the anchor by −δ
    g3 = gait_metrics(make_grid(biped_positions(offset=0.2)), roles)
    assert g3.gait_phase == pytest.approx(0.55, abs=1e-9)


def test_common_mode_hips_bob_cancels_and_toes_average_in():
    roles = roles_of(ALL_ROLES)
    g = gait_metrics(make_grid(biped_positions(offset=0.1, hips_bob=0.03, toes=True)), roles)
    assert g.gait_phase == pytest.approx(0.65, abs=1e-9)


def test_signal_uses_samples_zero_to_n_minus_two():
    p = biped_positions(frames=11)
    p[-1, LF, 1] += 5.0  # a wild last sample must not matter (wrap duplicate)
    s, why = lr_signal_m(make_grid(p), roles_of(BIPED_ROLES))
    assert why is None and s.shape == (10,)
    expected = 2 * 0.05 * np.sin(2 * np.pi * np.arange(10) / 10)
    assert np.allclose(s, expected, atol=1e-12)


def test_three_samples_use_all_three():
    u = np.arange(3) / 3.0
    h = 0.05 * np.sin(2 * np.pi * u)
    p = np.zeros((3, 3, 3))
    p[:, HIPS, 1] = 1.0
    p[:, LF, 1] = 0.1 + h
    p[:, RF, 1] = 0.1 - h
    s, _ = lr_signal_m(make_grid(p), roles_of(BIPED_ROLES))
    assert s.shape == (3,)
    assert stride_anchor_cycles(s) == pytest.approx(0.75, abs=1e-12)


def test_two_strides_report_cycles_two_and_per_stride_phase():
    roles = roles_of(BIPED_ROLES)
    g = gait_metrics(make_grid(biped_positions(frames=61, cycles=2)), roles)
    assert g.cycles == 2
    assert g.gait_phase == pytest.approx(0.75, abs=1e-9)
    assert "2 strides" in g.cycles_note
    g2 = gait_metrics(make_grid(biped_positions(frames=61, cycles=2, offset=0.25)), roles)
    assert g2.cycles == 2 and g2.gait_phase == pytest.approx(0.5, abs=1e-9)


def test_one_sided_roles_have_reason_not_phase():
    g = gait_metrics(make_grid(biped_positions()), roles_of({"hips": HIPS, "left_foot": LF}))
    assert g.gait_phase is None and g.lr_amplitude_m is None
    assert "one-sided" in g.gait_phase_unavailable and "right" in g.gait_phase_unavailable
    assert g.bilateral is False


def test_missing_hips_and_short_clip_reasons():
    g = gait_metrics(make_grid(biped_positions()), roles_of({"left_foot": LF, "right_foot": RF}))
    assert g.gait_phase is None and "hips" in g.gait_phase_unavailable
    g2 = gait_metrics(make_grid(biped_positions(frames=2)), roles_of(BIPED_ROLES))
    assert g2.gait_phase is None and "at least 3" in g2.gait_phase_unavailable


def test_zero_amplitude_has_reason():
    g = gait_metrics(make_grid(biped_positions(amp=0.0)), roles_of(BIPED_ROLES))
    assert g.lr_amplitude_m == 0.0
    assert g.gait_phase is None
    assert "no foot-height swing" in g.gait_phase_unavailable


def test_noise_floor_is_a_millionth_of_the_leg():
    # docs/measure.md: no phase when the L−R peak-to-peak is at most 1e-6 × the mean hips-to-foot
    # distance. s = 2A·sin(2πk/30), k = 0..29, peaks at k = 7/8 and 22/23: p2p = 4A·sin(2π·7/30).
    roles = roles_of(BIPED_ROLES)
    leg = math.hypot(0.1, 0.9)  # |foot − hips| with h ≈ 0
    amp_at_floor = 1e-6 * leg / (4 * math.sin(2 * math.pi * 7 / 30))
    below = gait_metrics(make_grid(biped_positions(amp=0.5 * amp_at_floor)), roles)
    assert below.lr_amplitude_m > 0 and below.gait_phase is None
    assert "no foot-height swing" in below.gait_phase_unavailable
    assert "within float noise" in below.gait_phase_unavailable  # says why, not "constant"
    above = gait_metrics(make_grid(biped_positions(amp=2 * amp_at_floor)), roles)
    assert above.gait_phase == pytest.approx(0.75, abs=1e-6)


def test_noise_floor_follows_the_leg_not_the_distance_from_the_origin():
    # the same walk at the origin and 10 km from it: its coordinates are 10⁴ × larger there, its
    # hips-to-foot distance is not, so the floor (and which side of it an amplitude falls) stays put
    roles = roles_of(BIPED_ROLES)
    leg = math.hypot(0.1, 0.9)
    amp_at_floor = 1e-6 * leg / (4 * math.sin(2 * math.pi * 7 / 30))
    for x, factor, measured in [(x, f, m) for x in (0.0, 1e4) for f, m in ((0.9, False), (1.1, True), (40.0, True))]:
        p = biped_positions(amp=factor * amp_at_floor)
        p[:, :, 0] += x
        g = gait_metrics(make_grid(p), roles)
        assert (g.gait_phase is not None) == measured, (x, factor)
        if measured:
            assert g.gait_phase == pytest.approx(0.75, abs=1e-3)
        else:
            assert "within float noise" in g.gait_phase_unavailable


@pytest.mark.parametrize("c,harmonic", [(30, 1), (40, 2), (30, 3), (5000, 1)])
def test_stride_anchor_of_each_cycle_length_and_harmonic(c, harmonic):
    # s(k) = sin(2πkh/C) has DFT bin h = −iC/2: im < 0 = re, atan2 = −π/2, anchor 0.75; a
    # cosine has its trough half a cycle after k = 0: anchor 0.5. Lengths asked for in turn
    # keep their own angles (5000 samples: longer than the shared tables go).
    k = np.arange(c)
    sine = np.sin(2 * np.pi * k * harmonic / c)
    cosine = np.cos(2 * np.pi * k * harmonic / c)
    assert stride_anchor_cycles(sine, harmonic=harmonic) == pytest.approx(0.75, abs=1e-9)
    assert stride_anchor_cycles(cosine, harmonic=harmonic) == pytest.approx(0.5, abs=1e-9)
    assert stride_anchor_cycles(np.sin(2 * np.pi * np.arange(30) / 30)) == pytest.approx(0.75, abs=1e-9)


def test_noise_only_is_not_periodic():
    rng = np.random.default_rng(7)
    p = biped_positions(frames=121, amp=0.0)
    p[:, LF, 1] += rng.normal(0, 0.01, 121)
    g = gait_metrics(make_grid(p), roles_of(BIPED_ROLES))
    assert g.lr_amplitude_m > 0
    assert g.gait_phase is None
    assert "no periodic foot alternation" in g.gait_phase_unavailable


def test_circular_statistics_reference_values():
    # Σ sin = −3, Σ cos = −1: μ = atan2(−3, −1); the 0.50 phase (angle π) is atan(3) rad from μ,
    # the three 0.75s only atan(1/3)
    assert circular_spread_cycles([0.75, 0.75, 0.50, 0.75]) == pytest.approx(math.atan(3) / (2 * math.pi), abs=1e-12)
    assert circular_spread_cycles([0.98, 0.02]) == pytest.approx(0.02, abs=1e-12)
    assert circular_spread_cycles([0.25, 0.75]) == pytest.approx(0.25, abs=1e-12)
    assert circular_mean_cycles([0.98, 0.02]) == pytest.approx(0.0, abs=1e-12) or circular_mean_cycles(
        [0.98, 0.02]
    ) == pytest.approx(1.0, abs=1e-12)
    # atan2(-3, -1) / 2π mod 1
    assert circular_mean_cycles([0.75, 0.75, 0.50, 0.75]) == pytest.approx(
        (math.atan2(-3, -1) / (2 * math.pi)) % 1.0, abs=1e-12
    )


def test_loop_seam_ratio_inclusive_open_and_popped():
    roles = roles_of(BIPED_ROLES)
    # inclusive cycle: last sample repeats the first -> ratio 0
    r, why = loop_seam_ratio(make_grid(biped_positions(frames=31, amp=0.1)), roles)
    assert why is None and r == pytest.approx(0.0, abs=1e-9)
    # open cycle: samples 0..29 of a 30-sample cycle; the wrap 29 -> 0 is the
    # same chord as 0 -> 1 (|h(-1/30) - h(0)| = |h(1/30) - h(0)|) -> ratio 1
    p = biped_positions(frames=31, amp=0.1)[:-1]
    r2, _ = loop_seam_ratio(make_grid(p), roles)
    assert r2 == pytest.approx(1.0, rel=1e-9)
    # popped seam: the left foot drifts 0.02 m forward per sample, so the wrap
    # (30 steps of drift, feet heights equal) jumps 0.6 m
    p3 = biped_positions(frames=31, amp=0.1)
    p3[:, LF, 2] += 0.02 * np.arange(31)
    r3, _ = loop_seam_ratio(make_grid(p3), roles)
    dy = 0.1 * math.sin(2 * math.pi / 30)  # |h(1) - h(0)| = |h(30) - h(29)|
    assert r3 == pytest.approx(0.6 / math.hypot(0.02, dy), rel=1e-9)
    assert r3 > 10


def test_loop_seam_ratio_floor_gives_reason():
    r, why = loop_seam_ratio(make_grid(biped_positions(frames=31, amp=0.001)), roles_of(BIPED_ROLES))
    assert r is None and "floor" in why
    r2, why2 = loop_seam_ratio(make_grid(biped_positions(frames=31, amp=0.001)), roles_of(BIPED_ROLES), min_stride_step_m=1e-6)
    assert r2 == pytest.approx(0.0, abs=1e-9) and why2 is None


# --------------------------------------------------------------------------
# ClipAnalysis: computed once, endpoint modes
# --------------------------------------------------------------------------

from animsmith.core.analysis import analyze_asset  # noqa: E402
from animsmith.model import Asset, Channel, Clip, Skeleton  # noqa: E402


def one_bone_asset(xs, times=(0.0, 0.5, 1.0)):
    sk = Skeleton.build(["b"], [-1])
    vals = np.zeros((len(xs), 3))
    vals[:, 0] = xs
    clip = Clip(name="c", channels=[Channel.make(0, "translation", times, vals)])
    return Asset(skeleton=sk, clips=[clip])


@pytest.mark.parametrize(
    "xs,mode",
    [
        ((0.0, 1.0, 0.0), "duplicated_endpoint"),  # last key repeats the first
        ((0.0, 0.005, 0.009), "unique_cycle"),  # wrap gap 9 mm <= 1 cm cap
        ((0.0, 0.01, 0.011), "non_closing"),  # wrap gap 11 mm > 1 cm cap
    ],
)
def test_loop_endpoint_modes(xs, mode):
    asset = one_bone_asset(xs)
    _, (ca,) = analyze_asset(asset)
    assert ca.loop_endpoint_mode == mode
    if mode == "non_closing":
        assert ca.loop_endpoint_mode_with(position_cap_m=0.02)[0] == "unique_cycle"


def test_two_key_clip_has_no_endpoint_mode():
    asset = one_bone_asset((0.0, 1.0), times=(0.0, 1.0))
    _, (ca,) = analyze_asset(asset)
    mode, why = ca.loop_endpoint_mode_with()
    assert mode is None and "at least 3" in why


def test_clip_analysis_samples_once(monkeypatch):
    import animsmith.core.analysis as analysis

    calls = []
    real = analysis.pose_grid

    def counting(skeleton, clip):
        calls.append(clip.name)
        return real(skeleton, clip)

    monkeypatch.setattr(analysis, "pose_grid", counting)
    from builders import biped_asset, gait_clip

    roles, (ca,) = analyze_asset(biped_asset([gait_clip("walk", amplitude_m=0.1)]))
    m = ca.measurements()
    _ = ca.gait, ca.speed, ca.seam_ratio, ca.continuity, ca.yaw_deg, ca.measurements()
    assert calls == ["walk"]
    assert m["gait_phase"] == pytest.approx(0.75, abs=1e-6)
    assert m["loop_seam_ratio"] == pytest.approx(0.0, abs=1e-6)  # inclusive cycle


def test_bad_profile_is_config_error():
    from animsmith.errors import ConfigError
    from builders import biped_asset, gait_clip

    with pytest.raises(ConfigError):
        analyze_asset(biped_asset([gait_clip("w")]), profile="nope")


@pytest.mark.parametrize("end_angle_rad,dup", [(5e-5, True), (2e-4, False)])
def test_duplicated_endpoint_rotation_tolerance(end_angle_rad, dup):
    from animsmith.core import quat as q
    from animsmith.core.analysis import duplicated_endpoint

    sk = Skeleton.build(["b"], [-1])
    angles = np.array([0.0, 0.5, end_angle_rad])
    rots = q.from_axis_angle(np.tile([0, 1.0, 0], (3, 1)), angles)
    clip = Clip(name="r", channels=[Channel.make(0, "rotation", [0, 0.5, 1.0], rots)])
    assert duplicated_endpoint(clip)[0] is dup


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(
    c=st.integers(min_value=4, max_value=200),
    delta=st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
    amp=st.floats(min_value=1e-3, max_value=10.0),
    k=st.integers(min_value=1, max_value=3),
)
def test_anchor_of_shifted_sine_is_three_quarters_minus_shift(c, delta, amp, k):
    # s = A·sin(2π(k·i/C + δ)): the trough of harmonic k, per stride, is at (0.75 − δ) mod 1
    if 2 * k >= c:  # at or above Nyquist a sine is not representable
        k = 1
    i = np.arange(c)
    s = amp * np.sin(2 * np.pi * (k * i / c + delta))
    got = stride_anchor_cycles(s, harmonic=k)
    assert 0.0 <= got < 1.0
    assert circular_distance_cycles(got, (0.75 - delta) % 1.0) < 1e-9


@pytest.mark.parametrize("c", [8, 9, 60, 61])
def test_harmonic_power_is_the_varying_power_parseval(c):
    """The AC entries sum to C·Σ(s − mean)² (Parseval over the full DFT), for even and odd
    C: every harmonic counted with its mirror bin, the Nyquist bin once."""
    from animsmith.core.gait import harmonic_power

    rng = np.random.default_rng(c)
    s = rng.normal(size=c)
    p = harmonic_power(s)
    assert p.shape == (c // 2 + 1,)
    np.testing.assert_allclose(p[1:].sum(), c * np.sum((s - s.mean()) ** 2), rtol=1e-12)


def test_a_frame_by_frame_flicker_does_not_outweigh_the_stride():
    """s = 0.02·sin(2πu) + 0.012·(−1)^i over 60 samples: the stride harmonic holds 58 % of
    the varying power (0.0002 vs 0.000144 per sample), the Nyquist flicker 42 %; the
    one-sided spectrum used to count the flicker double and call it 30 cycles."""
    from animsmith.core.gait import harmonic_power

    i = np.arange(60)
    s = 0.02 * np.sin(2 * np.pi * i / 60) + 0.012 * (-1.0) ** i
    p = harmonic_power(s)
    frac = p[1:] / p[1:].sum()
    assert int(np.argmax(p[1:])) + 1 == 1
    np.testing.assert_allclose(frac[0], 0.0002 / (0.0002 + 0.000144), rtol=1e-9)
    np.testing.assert_allclose(frac[-1], 0.000144 / (0.0002 + 0.000144), rtol=1e-9)


def test_heading_of_a_negative_zero_step_is_plus_180():
    from animsmith.core.trajectory import heading_deg_of

    assert heading_deg_of(-0.0, -1.0) == 180.0 and heading_deg_of(0.0, -1.0) == 180.0
    assert heading_deg_of(-1e-9, -1.0) < 0  # a real negative x step stays just below -179.99


def test_phases_with_no_mean_direction_use_the_shortest_arc_centre():
    """Σ e^{2πip} = 0 (three phases a third apart): atan2 would return rounding noise and
    the spread anything in [1/3, 1/2]; the shortest arc holding all three is 2/3 long, so
    its centre is 1/3 from the farthest phase, whatever the rounding."""
    from animsmith.core.circular import circular_mean_cycles

    for shift in (0.0, 0.1, 0.37):
        phases = [(shift + k / 3) % 1.0 for k in range(3)]
        assert circular_spread_cycles(phases) == pytest.approx(1 / 3, abs=1e-12)
        assert circular_spread_cycles(list(reversed(phases))) == pytest.approx(1 / 3, abs=1e-12)
    # four phases a quarter apart: arc 3/4 long, spread 3/8
    assert circular_spread_cycles([0.0, 0.25, 0.5, 0.75]) == pytest.approx(3 / 8, abs=1e-12)
    # the mean of an antiphase pair is a point a quarter from both
    m = circular_mean_cycles([0.25, 0.75])
    assert min(abs(m - 0.0), abs(m - 0.5), abs(m - 1.0)) < 1e-12


@pytest.mark.parametrize("fps,frames", [(30, 30), (24, 24), (60, 60), (30, 12), (24, 13)])
def test_step_clips_are_judged_at_their_keys(fps, frames):
    """The judged grid samples the frames at their float32 keys: i/fps in float64 is often
    one rounding step below the stored key, where STEP still holds the previous key and the
    anchor moved by a frame. At the keys STEP and LINEAR give the same poses, so the same
    anchor (the keys are the same data)."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.core.timegrid import grid_times_s
    from animsmith.model import Asset, Channel, Clip

    from builders import biped_skeleton

    t = np.arange(frames) / fps
    h = 0.05 * np.sin(2 * np.pi * (t * fps / (frames - 1) + 0.1))

    def clip(interp):
        lf = np.stack([np.full_like(t, 0.1), -0.9 + h, 0 * t], 1)
        rf = np.stack([np.full_like(t, -0.1), -0.9 - h, 0 * t], 1)
        return Clip("walk", [Channel.make(0, "translation", t, np.zeros((frames, 3)), interpolation=interp),
                             Channel.make(2, "translation", t, lf, interpolation=interp),
                             Channel.make(3, "translation", t, rf, interpolation=interp)])

    step, linear = clip("STEP"), clip("LINEAR")
    keys = step.channels[0].times.astype(np.float64)
    assert np.array_equal(grid_times_s(step), keys)
    sk = biped_skeleton()
    from animsmith.core.roles import resolve_roles

    roles = resolve_roles(sk)
    phases = [ClipAnalysis(Asset(sk, [c]), c, roles).gait.gait_phase for c in (step, linear)]
    assert phases[0] == pytest.approx(phases[1], abs=1e-9)


def test_measured_anchors_a_third_apart_have_a_stable_spread():
    """Anchors a third apart with measurement-sized noise (1e-8..1e-6) have no mean direction
    either: the spread stays 1/3 (the shortest-arc centre), not anything in [1/3, 1/2]."""
    rng = np.random.default_rng(3)
    for scale in (1e-8, 1e-7, 1e-6):
        for _ in range(50):
            phases = [0.1, 0.1 + 1 / 3, 0.1 + 2 / 3] + rng.normal(0, scale, 3)
            assert circular_spread_cycles(phases) == pytest.approx(1 / 3, abs=10 * scale)


def test_grid_snaps_to_the_largest_key_of_every_frame_grid():
    """Two key-time arrays of N keys that round differently (f32(i/30) and f32(i)·f32(1/30)):
    the grid takes the larger key at each frame, so neither array's STEP channel is sampled
    before its key."""
    from animsmith.core.timegrid import grid_times_s
    from animsmith.model import Channel, Clip

    n = 31
    a = (np.arange(n) / 30).astype(np.float32)
    b = (np.arange(n, dtype=np.float32) * np.float32(1 / 30)).astype(np.float32)
    b[-1] = a[-1]
    assert (a != b).any()  # the premise
    clip = Clip("c", [Channel.make(0, "translation", a, np.zeros((n, 3)), interpolation="STEP"),
                      Channel.make(1, "translation", b, np.zeros((n, 3)), interpolation="STEP")])
    g = grid_times_s(clip)
    assert np.array_equal(g, np.maximum(a.astype(np.float64), b.astype(np.float64)))
    assert (g >= a).all() and (g >= b).all() and (np.diff(g) > 0).all()


def test_grid_snaps_to_keys_of_any_channel_not_only_the_densest():
    """A constant channel keyed at half frames (61 keys) sets the grid; its whole-frame keys
    sit one float32 step below the feet's keys. The frame samples take the larger key, so
    the STEP feet are never sampled just before their key."""
    from animsmith.core.timegrid import grid_times_s
    from animsmith.model import Channel, Clip

    feet = (np.arange(31) / 30).astype(np.float32)
    half = (np.arange(61) / 60).astype(np.float32)
    half[2::2] = np.nextafter(feet[1:], np.float32(0))
    half[-1] = feet[-1]
    clip = Clip("c", [Channel.make(2, "translation", feet, np.zeros((31, 3)), interpolation="STEP"),
                      Channel.make(1, "scale", half, np.ones((61, 3)), interpolation="STEP")])
    g = grid_times_s(clip)
    assert g.shape[0] == 61 and (np.diff(g) > 0).all()
    assert (g[::2] >= feet.astype(np.float64)).all()
    assert np.array_equal(g[::2], feet.astype(np.float64))


def test_grid_snap_takes_the_largest_key_in_the_window():
    """Several keys within four float32 steps: the largest wins (a STEP jump made of keys a
    step apart is sampled after it), whether they come from one array or from several."""
    from animsmith.core.timegrid import snapped_to_keys

    u = float(np.spacing(np.float32(1.0)))
    t = np.array([0.0, 1.0 - u / 4, 2.0])
    assert snapped_to_keys(t, [np.array([0.0, 1.0, 1.0 + u, 1.0 + 2 * u, 2.0])])[1] == 1.0 + 2 * u
    split = [np.array([0.0, 1.0, 2.0]), np.array([0.5, 1.0 + u]), np.array([1.0 + 2 * u, 1.5])]
    assert snapped_to_keys(t, split)[1] == 1.0 + 2 * u
    # 5 float32 steps away: not a key of this sample
    assert snapped_to_keys(t, [np.array([0.0, 1.0 + 5 * u, 2.0])])[1] == 1.0 - u / 4


def test_grid_snap_beyond_float32_range_never_snaps_everything(recwarn):
    """A key that rounds to float32's maximum has no finite float32 step: it must not count
    as near every sample (which broke the grid's order and undid all snapping), and samples
    beyond float32's range look at no window at all."""
    from animsmith.core.timegrid import snapped_to_keys

    f32max = float(np.finfo(np.float32).max)
    near = float(np.float32(2.5e38))
    out = snapped_to_keys(np.array([0.0, 2.5e38, 5e38, 7.5e38, 1e39]), [np.array([0.0, near, f32max, 1e39])])
    assert out[1] == near and list(out[2:]) == [5e38, 7.5e38, 1e39]
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def _snap_by_definition(t, arrays, steps=4):
    """Per sample, by the definition: the largest key (of the finite, strictly increasing
    arrays) within ``steps`` float32 steps of the key; the grid unchanged when snapping
    would break its order."""
    keys = sorted({float(x) for a in arrays if len(a) and np.isfinite(a).all() and (np.diff(a) > 0).all() for x in a})
    out = []
    for ti in t:
        near = [k for k in keys if abs(ti - k) <= steps * float(np.spacing(np.float32(abs(k))))]
        out.append(max(near) if near else ti)
    out = np.array(out)
    return out if (np.diff(out) > 0).all() else np.asarray(t)


def test_grid_snap_matches_its_definition_on_random_grids():
    """The vectorised snap (candidate keys from two binary searches, open samples only)
    equals a per-sample, per-key evaluation of the rule on grids whose keys sit 0-6 float32
    steps from frame times, including clusters of keys a step apart and several arrays."""
    from animsmith.core.timegrid import snapped_to_keys, uniform_times_s as _uniform_times_s

    rng = np.random.default_rng(11)
    for case in range(300):
        n = int(rng.integers(2, 40))
        duration = float(rng.choice([0.5, 1.0, 1.7, 33.3, 1000.0]))
        t = _uniform_times_s(n, duration)
        arrays = []
        for _ in range(int(rng.integers(1, 4))):
            idx = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
            base = t[idx].astype(np.float32)
            shift = rng.integers(-6, 7, size=idx.shape[0]).astype(np.float32)
            k = base + shift * np.spacing(np.abs(base))
            if rng.random() < 0.3:  # a cluster: the key and the next float32 value
                k = np.sort(np.concatenate([k, np.nextafter(k[:1], np.float32(np.inf))]))
            arrays.append(np.unique(k.astype(np.float64)))
        got = snapped_to_keys(t.copy(), arrays)
        want = _snap_by_definition(t, arrays)
        assert np.array_equal(got, want), (case, t, arrays, got, want)
        # a baked clip: one float32 key per frame (the grid is its keys)
        baked = [t.astype(np.float32).astype(np.float64)]
        assert np.array_equal(snapped_to_keys(t.copy(), baked), _snap_by_definition(t, baked))
