"""foot-slide: feet that slide while planted, by contact markers or the height rule.

Fixtures: tests/support/treadmill_clips.py (speeds exact on the 1/32 s grid).
"""

from __future__ import annotations

import numpy as np
import pytest

from animsmith.core.roles import RoleMap

from checks_support import run_check
from treadmill_clips import NAMES, treadmill


def roles(**bones):
    return RoleMap(profile="custom", bones=dict(bones), names={r: NAMES[b] for r, b in bones.items()})


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


def test_root_motion_message_names_a_still_foot():
    findings, _ = run_check("foot-slide", treadmill(0.5, travel_m=2.0), expect={"speed_mps": 2.0})
    assert findings and all("expected a still foot under root motion" in f.message for f in findings)
    assert findings[0].measured == pytest.approx(1.0, abs=1e-9)  # feet creep forward at 2.0 − 1.0 m/s


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


@pytest.mark.parametrize("creature", ["fox", "spider"])
def test_every_leg_of_a_many_legged_walk_is_judged(creature):
    """A quadruped's or a spider's fore and middle feet slip like its hind ones. The baked
    walk (root motion, read back from its GLB bytes so its leg map names the legs) is clean
    on every leg; after the root jumps 2 cm sideways at key k and stays there, every foot the
    simulator had planted across k moves 0.02 m in one key step (about 0.6 m/s at 30 fps,
    over the 0.3 cap): one warning per such leg, the rear pair's named by side and every
    other leg by its name."""
    from animsmith.core.legs import resolve_rig
    from animsmith.io.gltf import load_asset_bytes
    from animsmith.io.write import asset_to_glb
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    def lint(asset):
        read = load_asset_bytes(asset_to_glb(asset), f"{creature}.glb")
        return run_check("foot-slide", read, expect=expect, roles=resolve_rig(read))

    crea = catalog_creature(creature)
    b = bake(crea, cycles=2, fps=30, root_motion=True)
    expect = {"speed_mps": b.speed_mps, "movement_owner_xz": "animation"}
    assert lint(b.asset) == ([], [])
    times = b.key_times_s
    k = len(times) // 2
    root = [ch for ch in b.clip.channels if ch.bone == 0 and ch.path == "translation"][0]
    root.values[k:, 0] += np.float32(0.02)
    step_mps = 0.02 / float(times[k] - times[k - 1])
    findings, gaps = lint(b.asset)
    planted = b.walk.stance[k - 1] & b.walk.stance[k]
    expected = sorted(f"{leg.name}_foot" for leg, p in zip(crea.legs, planted) if p)
    assert len(expected) > 2 and gaps == []  # more feet planted across k than one pair has
    assert sorted(f.bone for f in findings) == expected
    for f in findings:
        assert f.measured == pytest.approx(step_mps, rel=0.02)
        assert f.time_s == pytest.approx(times[k], abs=1e-6)
    others = [f.message for f in findings if " leg '" in f.message]
    assert others and all("(pair " in m and "foot skates during stance" in m for m in others)
