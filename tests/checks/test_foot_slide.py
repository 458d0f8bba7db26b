"""Speed pins and travel: in-place, root-motion-speed, foot-slide.

TREADMILL(W) (ue-mannequin names ``pelvis``/``foot_l``/``foot_r`` so roles
auto-resolve): 33 keys over 1 s, t = k/32. The left foot uses u = k/32 mod 1,
the right u = (k/32 + 0.5) mod 1. Stance (u < 0.5): on the ground (y offset 0),
z offset = (0.5 − 2u)·W, i.e. the planted foot sweeps BACKWARD (−Z) at exactly
2W m/s. Swing (u ≥ 0.5, s = 2u − 1): lifted (y offset 0.05 + 0.03 sin πs, well
above the 0.03 m contact height) and z = (s − 0.5)·W. Every value is a dyadic
fraction, so speeds on the 1/32 s grid are exact.

TRAVELLING(d) adds a 2-key hips translation (0,1,0) → (0,1,d) over 1 s: root
speed d m/s (Hips is the travel bone: no Root role). With d = 2W the planted
foot is still in model space (a clean root-motion clip).
"""

from __future__ import annotations

import numpy as np
import pytest

from animsmith.core.roles import RoleMap
from animsmith.model import Asset, Channel, Clip, Skeleton

from checks_support import run_check

NAMES = ("pelvis", "foot_l", "foot_r")


def foot_offsets(u, sweep_w):
    u = np.mod(u, 1.0)
    stance = u < 0.5
    s = 2 * u - 1
    y = np.where(stance, 0.0, 0.05 + 0.03 * np.sin(np.pi * s))
    z = np.where(stance, (0.5 - 2 * u) * sweep_w, (s - 0.5) * sweep_w)
    return np.stack([0 * u, y, z], axis=1)


def treadmill(sweep_w=0.5, travel_m=None, keys=33, names=NAMES):
    sk = Skeleton.build(list(names), [-1, 0, 0], [[0, 1, 0], [0.125, -1, 0], [-0.125, -1, 0]])
    k = np.arange(keys)
    t = k / 32.0 if keys > 2 else np.array([0.0, 1.0])
    u = t
    chans = [
        Channel.make(1, "translation", t, np.array([0.125, -1, 0]) + foot_offsets(u, sweep_w)),
        Channel.make(2, "translation", t, np.array([-0.125, -1, 0]) + foot_offsets(u + 0.5, sweep_w)),
    ]
    if travel_m is not None:
        chans.append(Channel.make(0, "translation", [0, 1], [[0, 1, 0], [0, 1, travel_m]]))
    return Asset(skeleton=sk, clips=[Clip(name="run", channels=chans)])


def roles(**bones):
    return RoleMap(profile="custom", bones=dict(bones), names={r: NAMES[b] for r, b in bones.items()})


# ------------------------------------------------------------ in-place


def test_in_place_not_armed_without_owner():
    assert run_check("in-place", treadmill(travel_m=2.0), expect={"speed_mps": 2.0}) == ([], [])


def test_in_place_gameplay_but_travelling():
    findings, _ = run_check("in-place", treadmill(travel_m=2.0), expect={"movement_owner_xz": "gameplay"})
    assert len(findings) == 1
    f = findings[0]
    assert (f.clip, f.bone, f.measured, f.expected) == ("run", "pelvis", pytest.approx(2.0), 0.0)
    assert "glide" in f.message
    assert run_check("in-place", treadmill(), expect={"movement_owner_xz": "gameplay"}) == ([], [])


def test_in_place_animation_but_stationary():
    findings, _ = run_check("in-place", treadmill(), expect={"movement_owner_xz": "animation"})
    assert len(findings) == 1 and "run in place" in findings[0].message and findings[0].measured == 0.0
    assert run_check("in-place", treadmill(travel_m=2.0), expect={"movement_owner_xz": "animation"}) == ([], [])


def test_a_slow_root_motion_gait_is_told_about_the_threshold():
    """A root that travels, only slower than the 0.5 m/s threshold (the fox walks at 0.375):
    the message says which option to lower; a root that does not travel gets no such hint."""
    slow, _ = run_check("in-place", treadmill(travel_m=0.375), expect={"movement_owner_xz": "animation"})
    assert len(slow) == 1 and slow[0].measured == pytest.approx(0.375)
    assert "set [checks.in-place] travel_threshold_mps below its speed" in slow[0].message
    still, _ = run_check("in-place", treadmill(travel_m=0.04), expect={"movement_owner_xz": "animation"})
    assert len(still) == 1 and "travel_threshold_mps" not in still[0].message
    lowered, _ = run_check("in-place", treadmill(travel_m=0.375), expect={"movement_owner_xz": "animation"},
                           options={"travel_threshold_mps": 0.1})
    assert lowered == []


def test_in_place_threshold_exact():
    below = float(np.nextafter(np.float32(0.5), np.float32(0)))
    # 0.5 m/s travels (≥), the float32 below does not
    assert len(run_check("in-place", treadmill(travel_m=0.5), expect={"movement_owner_xz": "gameplay"})[0]) == 1
    assert run_check("in-place", treadmill(travel_m=below), expect={"movement_owner_xz": "gameplay"})[0] == []
    assert run_check("in-place", treadmill(travel_m=0.5), expect={"movement_owner_xz": "animation"})[0] == []
    assert len(run_check("in-place", treadmill(travel_m=below), expect={"movement_owner_xz": "animation"})[0]) == 1


def test_in_place_gaps():
    _, gaps = run_check("in-place", treadmill(names=("a", "b", "c")), expect={"movement_owner_xz": "gameplay"})
    assert [(g.code, g.scope, g.subjects) for g in gaps] == [("roles_unresolved", "travel_mode", ["run"])]
    assert "root/hips role not resolved" in gaps[0].message
    # hips translation overflowing float32 range → non-finite displacement
    big = np.finfo(np.float32).max
    asset = treadmill()
    asset.clips[0].channels.append(Channel.make(0, "translation", [0, 1], [[0, 1, -big], [0, 1, big]]))
    findings, gaps = run_check("in-place", asset, expect={"movement_owner_xz": "gameplay"})
    # speed either measures (float64 holds 2·f32max) or is a gap — never a silent pass
    assert len(findings) + len(gaps) == 1


# ------------------------------------------------------------ root-motion-speed


def test_speed_pin_matches_and_mismatches():
    asset = treadmill(travel_m=2.0)
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 2.0, "speed_tolerance_mps": 0.01}) == ([], [])
    findings, _ = run_check("root-motion-speed", asset, expect={"speed_mps": 1.0, "speed_tolerance_mps": 0.01})
    assert len(findings) == 1
    f = findings[0]
    assert (f.measured, f.expected, f.bone) == (pytest.approx(2.0), 1.0, "pelvis")
    assert "disagrees with the declared 1.00 ± 0.01" in f.message


def test_speed_tolerance_exact():
    asset = treadmill(travel_m=2.0)
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 2.25, "speed_tolerance_mps": 0.25})[0] == []
    # past the bound by one float32 step of the speed (2^-22 m/s at 2 m/s): the f32 cap rule
    tol = 0.25 - 2.0**-22
    assert len(run_check("root-motion-speed", asset, expect={"speed_mps": 2.25, "speed_tolerance_mps": tol})[0]) == 1
    # the check's default tolerance (0.1) applies when the clip declares none
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 2.0625})[0] == []
    assert len(run_check("root-motion-speed", asset, expect={"speed_mps": 2.125})[0]) == 1


def test_stray_pin():
    findings, _ = run_check("root-motion-speed", treadmill(), expect={"speed_mps": 1.0, "speed_tolerance_mps": 0.25})
    assert len(findings) == 1 and "stray" in findings[0].message and findings[0].expected == 1.0
    # a slow pin on a stationary clip is a plain mismatch, not a stray pin
    findings, _ = run_check("root-motion-speed", treadmill(), expect={"speed_mps": 0.25, "speed_tolerance_mps": 0.125})
    assert len(findings) == 1 and "stray" not in findings[0].message


def test_speed_not_armed_for_gameplay_owner():
    asset = treadmill(travel_m=2.0)
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 1.0, "movement_owner_xz": "gameplay"}) == ([], [])
    assert len(run_check("root-motion-speed", asset, expect={"speed_mps": 1.0, "movement_owner_xz": "animation"})[0]) == 1


def test_speed_gaps():
    _, gaps = run_check("root-motion-speed", treadmill(names=("a", "b", "c")), expect={"speed_mps": 1.0})
    assert [(g.code, g.scope) for g in gaps] == [("roles_unresolved", "root_motion_speed")]
    empty = Asset(skeleton=Skeleton.build(list(NAMES), [-1, 0, 0]), clips=[Clip(name="run", channels=[])])
    findings, gaps = run_check("root-motion-speed", empty, expect={"speed_mps": 1.0})
    assert findings == [] and [(g.code, g.scope) for g in gaps] == [("measurement_unavailable", "root_motion_speed")]


# ------------------------------------------------------------ foot-slide


def test_foot_slide_not_armed_without_pin():
    assert run_check("foot-slide", treadmill(sweep_w=0.1), expect={"movement_owner_xz": "gameplay"}) == ([], [])


def test_in_place_treadmill_at_declared_speed_is_clean():
    for owner in ("gameplay", None):  # undeclared owner: a stationary root means in place
        assert run_check("foot-slide", treadmill(0.5), expect={"speed_mps": 1.0, "movement_owner_xz": owner}) == ([], [])


def test_in_place_treadmill_too_slow_slides_both_feet():
    findings, _ = run_check("foot-slide", treadmill(0.25), expect={"speed_mps": 1.0, "movement_owner_xz": "gameplay"})
    assert [f.bone for f in findings] == ["foot_l", "foot_r"]
    left, right = findings
    assert left.measured == pytest.approx(0.5, abs=1e-9) and left.expected == 0.3
    assert left.severity == "warning" and left.clip == "run"
    # first stance pairs: the left foot's (0, 1); the right foot lands at t = 16/32 from 5.6 cm
    # (it was at 0.05 + 0.03·sin(π·15/16) m one key before), so that landing key falls at
    # (0 − 0.056 m) / (2/32 s) ≈ −0.9 m/s and is swing: its first stance pair is (17, 18)
    assert left.time_s == pytest.approx(1 / 32) and right.time_s == pytest.approx(18 / 32)
    assert "0.50 m/s off (expected a 1.00 m/s backward sweep in place" in left.message


def test_in_place_slide_threshold_exact():
    # sweep 1.0 m/s against a 1.25 m/s pin: deviation exactly 0.25
    expect = {"speed_mps": 1.25, "movement_owner_xz": "gameplay"}
    assert run_check("foot-slide", treadmill(0.5), expect=expect, options={"max_slide_mps": 0.25})[0] == []
    cap = float(np.nextafter(0.25, 0))
    assert len(run_check("foot-slide", treadmill(0.5), expect=expect, options={"max_slide_mps": cap})[0]) == 2


def test_in_place_feet_planted_deviate_by_full_speed():
    findings, _ = run_check("foot-slide", treadmill(0.0), expect={"speed_mps": 1.0, "movement_owner_xz": "gameplay"})
    assert [f.measured for f in findings] == [pytest.approx(1.0), pytest.approx(1.0)]


def test_root_motion_planted_feet_are_clean_and_slip_is_caught():
    # root travels 1 m/s over feet that sweep back 1 m/s: planted in model space
    for owner in ("animation", None):
        asset = treadmill(0.5, travel_m=1.0)
        assert run_check("foot-slide", asset, expect={"speed_mps": 1.0, "movement_owner_xz": owner}) == ([], [])
    asset = treadmill(0.5, travel_m=1.25)  # feet creep forward 0.25 m/s
    expect = {"speed_mps": 1.25, "movement_owner_xz": "animation"}
    assert run_check("foot-slide", asset, expect=expect, options={"max_slide_mps": 0.25})[0] == []
    findings, _ = run_check("foot-slide", asset, expect=expect, options={"max_slide_mps": float(np.nextafter(0.25, 0))})
    assert [f.measured for f in findings] == [pytest.approx(0.25, abs=1e-12)] * 2


def test_contact_height_decides_stance():
    # raise the contact height above the swing lift (0.08 m): swing pairs now count and slide
    expect = {"speed_mps": 1.0, "movement_owner_xz": "gameplay"}
    assert len(run_check("foot-slide", treadmill(0.5), expect=expect, options={"contact_height_m": 0.1})[0]) == 2


def test_foot_slide_role_gaps():
    expect = {"speed_mps": 1.0, "movement_owner_xz": "gameplay"}
    findings, gaps = run_check("foot-slide", treadmill(0.25), expect=expect, roles=roles(hips=0, left_foot=1))
    assert [f.bone for f in findings] == ["foot_l"]
    assert [(g.code, g.scope, g.subjects) for g in gaps] == [("roles_unresolved", "right_foot_stance", ["run"])]
    # toe-only roles are still judged
    findings, gaps = run_check("foot-slide", treadmill(0.25), expect=expect, roles=roles(hips=0, left_toe=1, right_toe=2))
    assert gaps == [] and [f.bone for f in findings] == ["foot_l", "foot_r"]


def test_foot_slide_too_short_and_unknown_travel():
    _, gaps = run_check("foot-slide", treadmill(0.5, keys=2), expect={"speed_mps": 1.0, "movement_owner_xz": "gameplay"})
    assert [(g.code, g.scope) for g in gaps] == [("measurement_unavailable", "foot_stance")]
    assert "too short" in gaps[0].message
    # no owner and no root/hips role: cannot tell root motion from in place
    _, gaps = run_check("foot-slide", treadmill(0.5), expect={"speed_mps": 1.0}, roles=roles(left_foot=1, right_foot=2))
    assert [(g.code, g.scope) for g in gaps] == [("roles_unresolved", "foot_stance")]


def test_stray_pin_threshold_exact():
    # stationary clip: a pin of exactly 0.5 m/s is a stray pin (≥), the float below is a plain mismatch
    findings, _ = run_check("root-motion-speed", treadmill(), expect={"speed_mps": 0.5, "speed_tolerance_mps": 0.125})
    assert len(findings) == 1 and "stray" in findings[0].message
    below = float(np.nextafter(0.5, 0))
    findings, _ = run_check("root-motion-speed", treadmill(), expect={"speed_mps": below, "speed_tolerance_mps": 0.125})
    assert len(findings) == 1 and "disagrees" in findings[0].message


def test_root_motion_message_names_a_still_foot():
    findings, _ = run_check("foot-slide", treadmill(0.5, travel_m=2.0), expect={"speed_mps": 2.0})
    assert findings and all("expected a still foot under root motion" in f.message for f in findings)
    assert findings[0].measured == pytest.approx(1.0, abs=1e-9)  # feet creep forward at 2.0 − 1.0 m/s


def test_malformed_key_times_are_gaps_for_grid_checks():
    asset = treadmill(0.5)
    t = np.arange(33) / 32.0
    t[5] = t[3]  # a repeated key time
    asset.clips[0].channels[0] = Channel.make(1, "translation", t, asset.clips[0].channels[0].values)
    expect = {"speed_mps": 1.0, "movement_owner_xz": "gameplay", "loop": True}
    for cid in ("foot-slide", "loop-seam", "loop-closure", "loop-seam-vel", "loop-seam-rot", "in-place"):
        findings, gaps = run_check(cid, asset, expect=expect)
        assert findings == [] and [g.code for g in gaps] == ["measurement_unavailable"], cid
        assert "time-monotonic" in gaps[0].message, cid


# ------------------------------------------------------------ foot-slide on authored contacts
# A baked simulator walk (animsmith.sim.bake) is clean by construction: a
# planted foot stands still in the world (root motion) or sweeps back at
# exactly the walking speed (in place). Its contact markers say when each foot
# is planted. The height rule (0.03 m above the foot's lowest point) also
# counts the start and end of every swing, when the foot is still low but
# already moving fast, so without markers the same clip warns.


def _baked_walk(root_motion):
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    b = bake(catalog_creature("biped"), cycles=2, fps=30, root_motion=root_motion)
    owner = "animation" if root_motion else "gameplay"
    return b, {"speed_mps": b.speed_mps, "movement_owner_xz": owner}


@pytest.mark.parametrize("root_motion", [False, True])
def test_baked_walk_with_markers_does_not_warn(root_motion):
    b, expect = _baked_walk(root_motion)
    assert "animsmith_contacts" in b.clip.extras
    assert run_check("foot-slide", b.asset, expect=expect) == ([], [])


@pytest.mark.parametrize("root_motion", [False, True])
def test_stripped_markers_fall_back_to_the_height_rule(root_motion):
    """The simulator's clean walk without its markers: the contact-height rule (low AND
    not moving vertically) finds the same planted samples as the markers, give or take the
    plant and lift samples themselves, and the clip lints clean at its true speed."""
    from animsmith.core.contacts import authored_stance_mask, feet_stance
    from animsmith.core.pose import key_span_grid

    b, expect = _baked_walk(root_motion)
    times = b.key_times_s
    authored = authored_stance_mask(b.clip, ["LeftFoot", "RightFoot"], times)
    b.clip.extras = None
    assert run_check("foot-slide", b.asset, expect=expect) == ([], [])
    sk = b.asset.skeleton
    feet = [sk.names.index("LeftFoot"), sk.names.index("RightFoot")]
    grid = key_span_grid(sk, b.clip)
    assert np.allclose(grid.times_s, times)
    stance, by_markers, _ = feet_stance(b.clip, sk, feet, grid.model_position_m[:, feet, :], times)
    assert not by_markers.any()
    # every sample the rule calls stance is one the markers call stance, and it misses at most
    # the plant or lift sample of each contact (two per contact, 2 cycles x 1 contact per foot)
    assert not (stance & ~authored).any()
    assert ((authored & ~stance).sum(axis=0) <= 2 * 3).all()


def test_markers_with_an_injected_slide_still_warn():
    # root motion at 30 fps: the root jumps 2 cm sideways at key k and stays
    # there, so every foot planted across k moves 0.02 m in 1/30 s = 0.6 m/s
    # (> 0.3 cap); no other pair slides.
    b, expect = _baked_walk(True)
    root = [ch for ch in b.clip.channels if ch.bone == 0 and ch.path == "translation"][0]
    k = 20
    root.values[k:, 0] += np.float32(0.02)
    times = b.key_times_s
    findings, gaps = run_check("foot-slide", b.asset, expect=expect)
    planted = b.walk.stance[k - 1] & b.walk.stance[k]
    expected_bones = [name for name, p in zip(["LeftFoot", "RightFoot"], planted) if p]
    assert expected_bones and [f.bone for f in findings] == expected_bones and gaps == []
    for f in findings:
        assert f.measured == pytest.approx(0.6, abs=0.01)
        assert f.time_s == pytest.approx(times[k], abs=1e-6)
        assert "stance from authored contact markers" in f.message


def test_malformed_markers_fall_back_and_say_why():
    # a clean walk whose markers are unusable is judged on the height rule and stays clean;
    # a 2 cm sideways root jump at key k (0.6 m/s, see above) still warns for every foot the
    # simulator had planted across k, and the message says why the markers were ignored
    b, expect = _baked_walk(True)
    b.clip.extras["animsmith_contacts"]["version"] = 99
    assert run_check("foot-slide", b.asset, expect=expect) == ([], [])
    root = [ch for ch in b.clip.channels if ch.bone == 0 and ch.path == "translation"][0]
    k = 20
    root.values[k:, 0] += np.float32(0.02)
    findings, _ = run_check("foot-slide", b.asset, expect=expect)
    planted = b.walk.stance[k - 1] & b.walk.stance[k]
    assert [f.bone for f in findings] == [name for name, p in zip(["LeftFoot", "RightFoot"], planted) if p]
    assert findings and all(f.measured == pytest.approx(0.6, abs=0.01) for f in findings)
    assert all("contact markers ignored: animsmith_contacts version 99 is not supported" in f.message for f in findings)


def test_a_speed_authored_exactly_at_the_bound_passes():
    """A root travelling 1.1 m in 1 s measures 1.10000002 m/s from float32 keys: against a
    1.0 ± 0.1 pin that is at the bound, which passes (it errored); 1.11 m/s errors."""
    asset = treadmill(travel_m=1.1)
    assert float(np.float32(1.1)) - 1.1 > 0  # the stored 1.1 m is a little more than 1.1 m
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 1.0, "speed_tolerance_mps": 0.1}) == ([], [])
    assert len(run_check("root-motion-speed", treadmill(travel_m=1.11), expect={"speed_mps": 1.0, "speed_tolerance_mps": 0.1})[0]) == 1


def test_a_late_starting_clip_is_judged_over_its_keys():
    """The treadmill at its declared speed with every key 1/30 s (and 0.5 s) later: a
    runtime holds the first pose until the first key, where the left foot is planted; that
    hold is not a stance the clip animates (duplicate-loop-endpoint reports it), so the
    check judges the keys' own span, which is the clean treadmill. The hold judged as
    stance would be a still foot against a 1 m/s sweep: 1 m/s off."""
    expect = {"speed_mps": 1.0, "movement_owner_xz": "gameplay"}
    for start in (1 / 30, 0.5):
        asset = treadmill(0.5)
        for ch in asset.clips[0].channels:
            ch.times = ch.times + np.float32(start)
        assert asset.clips[0].start_s == pytest.approx(start)
        assert run_check("foot-slide", asset, expect=expect) == ([], [])
    # a real slide inside the keys' span is still found: the too-slow treadmill, shifted
    asset = treadmill(0.25)
    for ch in asset.clips[0].channels:
        ch.times = ch.times + np.float32(0.5)
    findings, _ = run_check("foot-slide", asset, expect=expect)
    assert [f.measured for f in findings] == [pytest.approx(0.5, abs=1e-6)] * 2
    assert findings[0].time_s == pytest.approx(0.5 + 1 / 32)
