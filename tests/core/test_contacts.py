"""Stance and foot slide on analytic trajectories (expectations computed by hand)."""

import numpy as np
import pytest

from animsmith.core.contacts import contact_events, foot_slide, stance_mask


def test_stance_mask_relative_to_each_foot_minimum():
    # binary-exact values so the inclusive limit is tested exactly
    h = np.array([[0.25, 1.0], [0.375, 1.5], [0.875, 1.25], [1.0, 2.0]])
    m = stance_mask(h, 0.5)
    # foot 0: minimum 0.25 -> 0.25, 0.375 within 0.5; 0.875 (0.625 above) and 1.0 not
    # foot 1: minimum 1.0 -> 1.0, 1.5 (== limit, inclusive), 1.25 in; 2.0 out
    assert m.tolist() == [[True, True], [True, True], [False, True], [False, False]]


def test_fixed_foot_has_zero_slide():
    n = 31
    t = np.linspace(0, 1, n)
    p = np.zeros((n, 1, 3))
    p[:, 0] = [0.3, 0.0, -0.2]
    fs = foot_slide(p, t)
    assert fs.worst_speed_mps == 0.0
    assert fs.worst_step_m == 0.0
    assert fs.stance.all()


def test_foot_moving_2cm_per_frame_is_0_6_mps():
    n = 31
    t = np.arange(n) / 30.0
    p = np.zeros((n, 2, 3))
    p[:, 0, 0] = 0.02 * np.arange(n)  # foot 0 slides along X on the ground
    p[:, 1, 2] = 0.0  # foot 1 planted
    fs = foot_slide(p, t)
    assert fs.worst_foot == 0
    assert fs.worst_speed_mps == pytest.approx(0.6, abs=1e-9)
    assert fs.worst_step_m == pytest.approx(0.02, abs=1e-12)
    assert np.allclose(fs.speed_mps[:, 0], 0.6)
    assert fs.worst_time_s in set(t[1:].tolist())  # the later sample of a pair
    assert np.allclose(fs.speed_mps[:, 1], 0.0)


def test_ground_velocity_is_subtracted():
    # in-place clip: the planted foot sweeps backwards at 1.5 m/s along -Z,
    # i.e. a planted foot SHOULD move with ground velocity (0, 0, -1.5)
    n = 21
    t = np.linspace(0, 1, n)
    p = np.zeros((n, 1, 3))
    p[:, 0, 2] = -1.5 * t
    assert foot_slide(p, t).worst_speed_mps == pytest.approx(1.5)
    fs = foot_slide(p, t, ground_velocity_mps=(0.0, 0.0, -1.5))
    assert fs.worst_speed_mps == pytest.approx(0.0, abs=1e-12)
    # per-sample velocities (N, 3) give the same
    fs2 = foot_slide(p, t, ground_velocity_mps=np.tile([0.0, 0.0, -1.5], (n, 1)))
    assert fs2.worst_speed_mps == pytest.approx(0.0, abs=1e-12)
    # deviation of 0.5 m/s from the expected sweep
    fs3 = foot_slide(p, t, ground_velocity_mps=(0.0, 0.0, -1.0))
    assert fs3.worst_speed_mps == pytest.approx(0.5)


def test_only_pairs_in_stance_at_both_ends_count():
    # foot lifts mid-clip; the swing moves fast but is not judged
    t = np.array([0.0, 0.1, 0.2, 0.3, 0.4])
    p = np.zeros((5, 1, 3))
    p[:, 0, 1] = [0.0, 0.0, 0.2, 0.0, 0.0]
    p[:, 0, 0] = [0.0, 0.01, 0.5, 1.0, 1.0]
    # the height rule alone (the vertical-speed rule is tested below): samples 1 and 3 are low
    fs = foot_slide(p, t, stance=stance_mask(p[:, :, 1], 0.03))
    assert fs.stance[:, 0].tolist() == [True, True, False, True, True]
    assert np.isnan(fs.step_m[1, 0]) and np.isnan(fs.step_m[2, 0])
    assert fs.worst_speed_mps == pytest.approx(0.1)  # 0.01 m in 0.1 s
    assert fs.worst_time_s == pytest.approx(0.1)


def test_vertical_motion_counts_only_when_not_horizontal():
    t = np.linspace(0, 1, 11)
    p = np.zeros((11, 1, 3))
    p[:, 0, 1] = 0.02 * t  # rises 2 cm over the clip: still within contact height
    assert foot_slide(p, t).worst_speed_mps == pytest.approx(0.0)
    assert foot_slide(p, t, horizontal=False).worst_speed_mps == pytest.approx(0.02)


def test_never_in_stance_gives_none():
    t = np.linspace(0, 1, 3)
    p = np.zeros((3, 1, 3))
    fs = foot_slide(p, t, stance=np.zeros((3, 1), bool))
    assert fs.worst_speed_mps is None and fs.worst_foot is None and fs.worst_time_s is None
    assert fs.foot_worst(0) == (None, None, None)


def test_contact_events_plant_and_lift_times():
    t = np.arange(8) * 0.1
    st = np.array(
        [
            [1, 0],
            [1, 0],
            [0, 1],
            [0, 1],
            [1, 1],
            [1, 0],
            [0, 0],
            [1, 1],
        ],
        bool,
    )
    ev = contact_events(st, t)
    assert ev[0] == [(0.0, pytest.approx(0.1)), (pytest.approx(0.4), pytest.approx(0.5)), (pytest.approx(0.7), pytest.approx(0.7))]
    assert ev[1] == [(pytest.approx(0.2), pytest.approx(0.4)), (pytest.approx(0.7), pytest.approx(0.7))]


def test_bad_shapes_raise_value_error():
    with pytest.raises(ValueError):
        foot_slide(np.zeros((3, 2)), np.zeros(4))
    with pytest.raises(ValueError):
        foot_slide(np.zeros((3, 1, 3)), np.arange(3.0), ground_velocity_mps=np.zeros((7, 3)))


# ---------------------------------------------------------------- authored contacts
# Hand-written markers on a 2 s clip; the intervals below are read off the
# event lists by hand (docs/sim.md: a leading lift opens at the clip start, a
# trailing plant closes at the clip's end).


def _marked_clip(markers, duration_s=2.0, start_s=0.0):
    from animsmith.model import Channel, Clip

    ch = Channel.make(0, "translation", [start_s, duration_s], [[0, 0, 0], [0, 0, 1]])
    extras = {"animsmith_contacts": markers} if markers is not ... else None
    return Clip(name="walk", channels=[ch], extras=extras)


GOOD = {
    "version": 1,
    "feet": {"left": "LeftFoot", "right": "RightFoot"},
    "events": [
        {"leg": "left", "kind": "lift", "time_s": 0.25},
        {"leg": "right", "kind": "plant", "time_s": 0.5},
        {"leg": "left", "kind": "plant", "time_s": 0.75},
        {"leg": "right", "kind": "lift", "time_s": 1.25},
        {"leg": "left", "kind": "lift", "time_s": 1.5},
        {"leg": "right", "kind": "plant", "time_s": 1.75},
    ],
}


def test_authored_contacts_intervals_by_hand():
    from animsmith.core.contacts import authored_contacts

    c = authored_contacts(_marked_clip(GOOD))
    assert c.intervals_s == {"LeftFoot": [(0.0, 0.25), (0.75, 1.5)], "RightFoot": [(0.5, 1.25), (1.75, 2.0)]}
    assert c.legs == {"LeftFoot": "left", "RightFoot": "right"}
    # a leg missing from "feet" is named by its leg name; unordered events are sorted
    doc = {"version": 1, "events": [{"leg": "hind", "kind": "lift", "time_s": 1.0},
                                    {"leg": "hind", "kind": "plant", "time_s": 0.5}]}
    assert authored_contacts(_marked_clip(doc)).intervals_s == {"hind": [(0.5, 1.0)]}


def test_authored_duty_factor_is_the_stance_time_by_hand():
    """GOOD over its 2 s: the left foot stands 0-0.25 and 0.75-1.5 s (1.0 s: duty 0.5), the
    right 0.5-1.25 and 1.75-2.0 s (1.0 s); over 0.5-1.5 s only 0.75-1.5 (0.75) and 0.5-1.25
    (0.75). A toe takes its foot's contacts; a bone the markers do not name, an empty span or
    a clip without markers: None."""
    from animsmith.core.gait import authored_duty_factors
    from animsmith.model import Skeleton

    sk = Skeleton.build(["Hips", "LeftFoot", "LeftToe", "RightFoot"], [-1, 0, 1, 0])
    clip = _marked_clip(GOOD)
    assert authored_duty_factors(clip, sk, [1, 3], 0.0, 2.0) == [pytest.approx(0.5), pytest.approx(0.5)]
    assert authored_duty_factors(clip, sk, [1, 3], 0.5, 1.5) == [pytest.approx(0.75), pytest.approx(0.75)]
    assert authored_duty_factors(clip, sk, [2, 0], 0.0, 2.0) == [pytest.approx(0.5), None]
    assert authored_duty_factors(clip, sk, [1], 1.0, 1.0) == [None]
    assert authored_duty_factors(_marked_clip(...), sk, [1, 3], 0.0, 2.0) == [None, None]


def test_authored_stance_mask_inclusive_at_plant_and_lift():
    from animsmith.core.contacts import authored_stance_mask

    t = np.array([0.0, 0.25, 0.25 + 2e-6, 0.5, 0.75 - 2e-6, 0.75, 1.0, 1.5, 1.75, 2.0])
    m = authored_stance_mask(_marked_clip(GOOD), ["LeftFoot", "Nope", "RightFoot"], t)
    assert m[:, 0].tolist() == [True, True, False, False, False, True, True, True, False, False]
    assert not m[:, 1].any()  # a foot the markers do not name is never in stance
    assert m[:, 2].tolist() == [False, False, False, True, True, True, True, False, True, True]
    # times within 1 µs of an event count (event times are rounded to 1 µs)
    assert authored_stance_mask(_marked_clip(GOOD), ["LeftFoot"], [0.25 + 9e-7, 0.75 - 9e-7]).all()
    # no markers, or markers naming none of the feet -> None (the caller infers)
    assert authored_stance_mask(_marked_clip(...), ["LeftFoot"], t) is None
    assert authored_stance_mask(_marked_clip(GOOD), ["Hips"], t) is None


def test_authored_stance_by_bone_index_takes_the_nearest_named_ancestor():
    from animsmith.core.contacts import authored_stance_mask
    from animsmith.model import Skeleton

    sk = Skeleton.build(["Hips", "LeftFoot", "LeftToe", "RightFoot"], [-1, 0, 1, 0],
                        [[0, 1, 0], [0.1, -1, 0], [0, 0, 0.1], [-0.1, -1, 0]])
    t = np.array([0.0, 0.5, 1.0, 1.8])
    m = authored_stance_mask(_marked_clip(GOOD), [2, 3], t, skeleton=sk)  # LeftToe -> LeftFoot's contacts
    assert m.tolist() == [[True, False], [False, True], [True, True], [False, True]]
    with pytest.raises(ValueError):
        authored_stance_mask(_marked_clip(GOOD), [2], t)


def _with(**changes):
    doc = {k: (list(v) if isinstance(v, list) else v) for k, v in GOOD.items()}
    doc.update(changes)
    return doc


def _event(**changes):
    e = {"leg": "left", "kind": "plant", "time_s": 0.5}
    e.update(changes)
    return {"version": 1, "events": [e]}


@pytest.mark.parametrize(
    "markers, reason",
    [
        ([1, 2], "is not an object"),
        ("contacts", "is not an object"),
        (_with(version=2), "version 2 is not supported"),
        (_with(version="1"), "version '1' is not supported"),
        (_with(version=True), "version True is not supported"),
        (_with(version=float("nan")), "version nan is not supported"),
        (_with(events={"a": 1}), "events is not a list"),
        (_with(feet=["LeftFoot"]), "feet is not an object"),
        (_with(feet={"left": 3}), "feet maps 'left' to 3"),
        (_with(feet={"left": "Foot", "right": "Foot"}), "named by two legs"),
        (_event(time_s=float("nan")), "event 0 has time_s nan"),
        (_event(time_s=float("inf")), "event 0 has time_s inf"),
        (_event(time_s=True), "event 0 has time_s True"),
        (_event(time_s="0.5"), "event 0 has time_s '0.5'"),
        (_event(time_s=None), "event 0 has time_s None"),
        (_event(time_s=10**400), "event 0 has time_s 1000000000"),
        (_with(version=10**400), "version 1000000000"),
        (_event(kind="land"), "event 0 has kind 'land'"),
        (_event(kind=np.array(["plant", "lift"])), "event 0 has kind array("),
        (_event(leg=7), "event 0 has leg 7"),
        (_event(leg=["x" * 500]), "event 0 has leg ['xxxx"),
        ({"version": 1, "events": [42]}, "event 0 is not an object"),
    ],
)
def test_hostile_markers_are_unusable_with_a_one_line_reason(markers, reason):
    from animsmith.core.contacts import authored_contacts, authored_stance_mask, parse_contact_markers

    clip = _marked_clip(markers)
    contacts, why = parse_contact_markers(clip)
    assert contacts is None and reason in why
    assert "\n" not in why and len(why) < 160
    assert authored_contacts(clip) is None
    assert authored_stance_mask(clip, ["LeftFoot"], [0.0, 1.0]) is None


def test_oversized_markers_are_ignored_without_parsing_them():
    from animsmith.core.contacts import MAX_CONTACT_EVENTS, MAX_CONTACT_LEGS, parse_contact_markers

    e = {"leg": "left", "kind": "plant", "time_s": 0.5}
    _, why = parse_contact_markers(_marked_clip({"version": 1, "events": [e] * (MAX_CONTACT_EVENTS + 1)}))
    assert why == f"animsmith_contacts has {MAX_CONTACT_EVENTS + 1} events (limit {MAX_CONTACT_EVENTS})"
    # exactly at the cap is accepted
    ok, why = parse_contact_markers(_marked_clip({"version": 1, "events": [e] * MAX_CONTACT_EVENTS}))
    assert why is None and ok.intervals_s == {"left": [(0.5, 2.0)]}
    many = [{"leg": f"l{i}", "kind": "plant", "time_s": 0.0} for i in range(MAX_CONTACT_LEGS + 1)]
    _, why = parse_contact_markers(_marked_clip({"version": 1, "events": many}))
    assert why == f"animsmith_contacts names more than {MAX_CONTACT_LEGS} legs"
    feet = {f"l{i}": f"f{i}" for i in range(MAX_CONTACT_LEGS + 1)}
    _, why = parse_contact_markers(_marked_clip({"version": 1, "feet": feet, "events": []}))
    assert "limit" in why


@pytest.mark.parametrize("extras", [None, [], "x", 3, {"other": 1}, {"animsmith_contact": GOOD}])
def test_no_markers_is_absent_not_an_error(extras):
    from animsmith.core.contacts import parse_contact_markers
    from animsmith.model import Clip

    assert parse_contact_markers(Clip(name="c", channels=[], extras=extras)) == (None, None)



@pytest.mark.slow
def test_fuzzed_extras_never_raise():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from animsmith.core.contacts import authored_stance_mask, parse_contact_markers

    scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
                        st.sampled_from(["plant", "lift", "left", "LeftFoot", "version", ""]))
    values = st.recursive(scalars, lambda kids: st.one_of(
        st.lists(kids, max_size=4),
        st.dictionaries(st.sampled_from(["leg", "kind", "time_s", "version", "feet", "events", "x"]), kids, max_size=4)),
        max_leaves=20)
    event = st.fixed_dictionaries({"leg": st.one_of(st.sampled_from(["left", "right"]), values),
                                   "kind": st.one_of(st.sampled_from(["plant", "lift"]), values),
                                   "time_s": st.one_of(st.floats(-1, 3), values)})
    doc = st.fixed_dictionaries({"version": st.one_of(st.just(1), values),
                                 "feet": st.one_of(st.just({"left": "LeftFoot"}), values),
                                 "events": st.one_of(st.lists(event, max_size=8), values)})

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(doc, values))
    def run(markers):
        clip = _marked_clip(markers)
        contacts, why = parse_contact_markers(clip)
        assert (contacts is None) == (why is not None)
        m = authored_stance_mask(clip, ["LeftFoot", "left", "right"], np.linspace(0, 2, 9))
        assert m is None or (m.shape == (9, 3) and m.dtype == bool)

    run()


# --- low AND still vertically: a landing foot is not planted yet ---------------------------

def _in_place_gait(cycles=2, fps=30.0, period_s=0.8, stance_share=0.5, speed=1.2, lift_m=0.09):
    """(times, (N, 1, 3) foot positions) of an in-place gait, built by hand.

    Stance (the first ``stance_share`` of each cycle): the foot is on the ground (y = 0)
    and sweeps backward at ``speed`` (z = -speed * time into stance). Swing (the rest,
    s in [0, 1]): y = lift_m * sin²(πs) (vertical speed lift_m·π·sin(2πs)/swing_s),
    z returns to the stance start along -L + L·(s − sin(2πs)/2π), L = speed · stance time.
    """
    stance_s = stance_share * period_s
    swing_s = period_s - stance_s
    n = int(round(cycles * period_s * fps)) + 1
    t = np.arange(n) / fps
    phase = np.mod(t, period_s)
    stride = speed * stance_s
    p = np.zeros((n, 1, 3))
    on = phase < stance_s - 1e-12
    p[on, 0, 2] = -speed * phase[on]
    s = (phase[~on] - stance_s) / swing_s
    p[~on, 0, 1] = lift_m * np.sin(np.pi * s) ** 2
    p[~on, 0, 2] = -stride + stride * (s - np.sin(2 * np.pi * s) / (2 * np.pi))
    return t, p


def test_a_landing_foot_still_descending_is_swing_not_stance():
    # 30 fps, 0.8 s cycle, stance 0.4 s (samples 0-11 of each 24), swing 0.4 s from sample 12.
    # Swing samples 13, 14, 22, 23 are within 3 cm of the ground (s = 1/12, 2/12, 10/12, 11/12:
    # 0.09 sin²(πs) = 0.6 cm, 2.25 cm) but rise or fall at 0.09π·|sin 2πs|/0.4 s ≈ 0.35 and
    # 0.61 m/s; every other low sample is on the ground, where the central difference
    # is at most (0.6 cm - 0) / (2/30 s) = 0.09 m/s, except the clip's last sample (48, the
    # landing), whose one-sided difference is (0 - 0.6 cm) / (1/30 s) = 0.18 m/s.
    t, p = _in_place_gait()
    h = p[:, :, 1]
    by_height = stance_mask(h, 0.03)[:, 0]
    swing_low = [13, 14, 22, 23, 37, 38, 46, 47]
    assert all(by_height[i] for i in swing_low)
    st = stance_mask(h, 0.03, t)[:, 0]
    assert [i for i in range(len(t)) if by_height[i] and not st[i]] == swing_low + [48]
    # the planted foot sweeps back at exactly 1.2 m/s: no slide against the in-place sweep
    ground = np.array([0.0, 0.0, -1.2])
    fs = foot_slide(p, t, ground_velocity_mps=ground)
    assert fs.worst_speed_mps == pytest.approx(0.0, abs=1e-9)
    # the height rule alone measures the swing's forward motion as slide (> 1 m/s)
    assert foot_slide(p, t, stance=by_height[:, None], ground_velocity_mps=ground).worst_speed_mps > 1.0


def test_the_vertical_speed_rule_holds_at_the_threshold_and_at_the_clip_ends():
    # heights rising 0.1 m/s exactly (binary-friendly steps: 0.125 s, 0.0125 m) are still
    # planted at the default 0.1 m/s; 0.2 m/s is not. The end samples use their one side.
    t = np.arange(5) * 0.125
    slow = np.array([0.0, 0.0125, 0.025, 0.0, 0.0])
    st = stance_mask(slow, 0.03, t)[:, 0]
    # speeds: 0: 0.1 (one-sided), 1: 0.1, 2: (0 - 0.0125)/0.25 = 0.05, 3: 0.1, 4: 0
    assert st.tolist() == [True, True, True, True, True]
    assert stance_mask(slow, 0.03, t, max_vertical_speed_mps=0.09)[:, 0].tolist() == [False, False, True, False, True]
    # a NaN height is never in stance and its neighbours are judged on their finite side:
    # sample 1 on (0 − 0) / 0.125 = 0, sample 3 on (0.02 − 0) / 0.125 = 0.16 m/s (as is 4)
    gap = np.array([0.0, 0.0, np.nan, 0.0, 0.02])
    assert stance_mask(gap, 0.03, t)[:, 0].tolist() == [True, True, False, False, False]


def test_a_planted_foot_that_really_slides_still_counts():
    # root motion, on the ground the whole time: still except 3 cm per 1/30 s for
    # samples 10-15 (0.9 m/s); the vertical rule does not hide a foot sliding flat
    n = 31
    t = np.arange(n) / 30.0
    p = np.zeros((n, 1, 3))
    p[11:16, 0, 0] = 0.03 * np.arange(1, 6)
    p[16:, 0, 0] = 0.15
    fs = foot_slide(p, t)
    assert fs.stance.all()
    assert fs.worst_speed_mps == pytest.approx(0.9)
    assert fs.worst_time_s == pytest.approx(t[11])
