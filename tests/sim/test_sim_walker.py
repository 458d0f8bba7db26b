"""Walker, catalog, bake and the validator (through the linter's core)."""

import json
import math
import os
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from animsmith.errors import AnimsmithError
from animsmith.sim.bake import CONTACTS_KEY, bake, read_contact_markers
from animsmith.sim.creature import catalog_creature, creature_from_dict, load_catalog, load_creature
from animsmith.sim.terrain import Terrain
from animsmith.sim.validate import measure_baked, validate_creature, walk_test
from animsmith.sim.walker import contact_events, foot_targets, simulate

# Gaitkit's published fox (seed 001), verbatim numbers
FOX_JSON = {
    "stride": 0.15, "duty": 0.7, "lift": 0.035, "clip_speed": 0.375,
    "segments": [
        {"name": "leg_0", "side": "L", "phase": 0.75, "knee": "forward", "upper": 0.11, "lower": 0.12, "home": [0.048, 0, 0.155]},
        {"name": "leg_1", "side": "L", "phase": 0, "knee": "back", "upper": 0.125, "lower": 0.14, "home": [0.048, 0, -0.175]},
        {"name": "leg_2", "side": "R", "phase": 0.25, "knee": "forward", "upper": 0.11, "lower": 0.12, "home": [-0.048, 0, 0.155]},
        {"name": "leg_3", "side": "R", "phase": 0.5, "knee": "back", "upper": 0.125, "lower": 0.14, "home": [-0.048, 0, -0.175]},
    ],
}


def test_catalog_fox_is_the_seed_fox(tmp_path):
    fox = catalog_creature("fox")
    p = tmp_path / "fox.json"
    p.write_text(json.dumps(FOX_JSON))
    seed = load_creature(str(p))
    assert (fox.stride, fox.duty, fox.lift, fox.clip_speed) == (0.15, 0.7, 0.035, 0.375)
    for a, b in zip(fox.legs, seed.legs):
        assert (a.name, a.side, a.phase, a.knee, a.segments, a.home) == (b.name, b.side, b.phase, b.knee, b.segments, b.home)
    assert fox.cycle_m == pytest.approx(0.15 / 0.7)


def test_catalog_gaits():
    cat = {c.name: c for c in load_catalog()}
    assert list(cat) == ["biped", "fox", "trotter", "beetle", "spider"]
    biped = cat["biped"]
    assert sorted(leg.phase for leg in biped.legs) == [0.0, 0.5] and biped.duty == pytest.approx(0.6)
    trot = {leg.name: leg.phase for leg in cat["trotter"].legs}
    assert trot["fore_left"] == trot["hind_right"] and trot["fore_right"] == trot["hind_left"]
    assert abs(trot["fore_left"] - trot["fore_right"]) == 0.5
    beetle = cat["beetle"]
    assert len(beetle.legs) == 6 and beetle.duty == 0.55
    groups = {}
    for leg in beetle.legs:
        groups.setdefault(leg.phase, []).append(leg.name)
    assert sorted(map(sorted, groups.values())) == [["l1", "l3", "r2"], ["l2", "r1", "r3"]]
    spider = cat["spider"]
    assert len(spider.legs) == 8 and spider.duty == 0.65
    assert all(len(leg.segments) == 3 for leg in spider.legs)


def test_bad_creature_files_name_the_key(tmp_path):
    with pytest.raises(AnimsmithError, match="duty"):
        creature_from_dict({**FOX_JSON, "duty": 1.5}, "x.toml")
    bad_leg = dict(FOX_JSON)
    bad_leg["segments"] = [dict(FOX_JSON["segments"][0], knee="sideways")]
    with pytest.raises(AnimsmithError, match=r"legs\[0\]\.knee"):
        creature_from_dict(bad_leg, "x.toml")
    p = tmp_path / "broken.toml"
    p.write_text("stride = [")
    with pytest.raises(AnimsmithError, match="broken.toml: invalid TOML"):
        load_creature(str(p))


# --------------------------------------------------------------------------
# walker
# --------------------------------------------------------------------------


def test_stance_foot_stands_still_in_the_world():
    fox = catalog_creature("fox")
    d = np.linspace(0.0, 3 * fox.cycle_m, 997)
    ft = foot_targets(fox, d)
    world_z = d[:, None] + ft.position_m[..., 2]
    both = ft.stance[1:] & ft.stance[:-1]
    step = np.abs(np.diff(world_z, axis=0))
    assert both.sum() > 1000
    assert np.max(np.where(both, step, 0.0)) < 1e-12
    assert np.all(ft.position_m[..., 1][ft.stance] == 0.0)
    # hand-computed plant point of leg_1 (phase 0): plants at d = 0 at home z + stride/2
    assert world_z[0, 1] == pytest.approx(-0.175 + 0.075)


def test_swing_apex_and_cycle_period():
    fox = catalog_creature("fox")
    leg = 1  # phase 0: mid-swing at t = duty + (1 - duty)/2 = 0.85
    d = np.array([0.85 * fox.cycle_m])
    ft = foot_targets(fox, d)
    assert ft.position_m[0, leg, 1] == pytest.approx(fox.lift)
    assert ft.position_m[0, leg, 2] == pytest.approx(fox.legs[leg].home[2])
    a = foot_targets(fox, np.array([0.03])).position_m
    b = foot_targets(fox, np.array([0.03 + 5 * fox.cycle_m])).position_m
    assert np.allclose(a, b, atol=1e-12)


def test_stopped_creature_stands_still_mid_step():
    fox = catalog_creature("fox")
    w = simulate(fox, np.linspace(0, 2, 50), speed_mps=1e-300 * 0 + 0.0 + 1e-12)
    assert np.allclose(w.foot_m, w.foot_m[:1], atol=1e-9)
    assert np.any(~w.stance[0])  # one foot is mid-swing, held in the air
    assert np.max(w.foot_m[0, :, 1]) > 0.0


def test_walk_is_a_pure_function_of_distance():
    fox = catalog_creature("fox")
    slow = simulate(fox, np.linspace(0, 4, 41), speed_mps=0.1)
    fast = simulate(fox, np.linspace(0, 1, 41), speed_mps=0.4)
    assert np.allclose(slow.foot_m, fast.foot_m, atol=1e-12)


def test_biped_rolls_over_its_stance_leg():
    biped = catalog_creature("biped")
    # left leg (phase 0) stance, right leg mid swing: t_R = 0.8 -> d = 0.3 cycles
    w = simulate(biped, np.array([0.3 * biped.cycle_m / biped.clip_speed]))
    up_in_world = w.body_rotation[0] @ [0, 1, 0]
    assert up_in_world[0] > 0.0  # the body leans toward +X, the left (stance) side
    assert math.degrees(math.asin(up_in_world[0])) == pytest.approx(biped.roll_deg)


@pytest.mark.parametrize("kind", ["slope", "steps", "rough"])
def test_planted_feet_on_terrain(kind):
    c = catalog_creature("trotter")
    terrain = Terrain(kind, c.body_height)
    w = simulate(c, np.linspace(0, 3 * c.cycle_m / c.clip_speed, 361), terrain=terrain)
    f = w.foot_m
    g = terrain.height_m(f[..., 0], f[..., 2])
    assert np.max(np.abs(np.where(w.stance, f[..., 1] - g, 0.0))) < 1e-9
    assert w.worst_shortfall_m < 1e-9
    if kind == "slope":
        # chassis pitches nose-up on the climb (plane fit through planted feet)
        nose = w.body_rotation[-1] @ [0, 0, 1]
        assert math.degrees(math.atan2(nose[1], nose[2])) == pytest.approx(8.0, abs=0.5)


@pytest.mark.parametrize("name", ["biped", "fox", "trotter", "beetle", "spider"])
@pytest.mark.parametrize("kind, cycles", [("slope", 8), ("steps", 32)])
def test_planted_feet_stay_on_a_long_climb(name, kind, cycles):
    """Climbs longer than the body height: every planted foot stays on the ground and the body
    keeps its height above the ground under it. (Casts started at world y = 0 and the body offset
    was clamped to ±body_height/2 as an absolute height: after 3-6 cycles of slope, 15-30 of
    steps, the casts missed, the body stopped rising and planted feet sank under the ground.)"""
    c = catalog_creature(name)
    terrain = Terrain(kind, c.body_height)
    t = np.linspace(0, cycles * c.cycle_m / c.clip_speed, 24 * cycles + 1)
    w = simulate(c, t, terrain=terrain)
    f = w.foot_m
    g = terrain.height_m(f[..., 0], f[..., 2])
    climb = terrain.height_m(w.travel_m[-1, 0], w.travel_m[-1, 2]) - terrain.height_m(w.travel_m[0, 0], w.travel_m[0, 2])
    assert climb > c.body_height  # past where the old window and clamp gave out
    assert np.max(np.abs(np.where(w.stance, f[..., 1] - g, 0.0))) <= 1e-5  # FABRIK's tolerance (spider)
    assert w.plant_weight.min() == 1.0  # no cast missed
    assert w.worst_shortfall_m < 1e-4
    under_body = terrain.height_m(w.body_position_m[:, 0], w.body_position_m[:, 2])
    assert np.all(np.abs(w.body_position_m[:, 1] - under_body - c.body_height) <= 0.5 * c.body_height)


def test_airborne_leg_returns_to_animated_pose():
    c = catalog_creature("fox")
    # a hole under the left feet's path from z = 0.8 m on
    t = np.linspace(0, 3.0, 301)
    terrain = Terrain("rough", c.body_height, holes=[(0.0, 0.2, 0.8, 10.0)])
    w = simulate(c, t, terrain=terrain)
    leg = 0
    over = ~np.isfinite(terrain.height_m(w.foot_target_m[:, leg, 0], w.foot_target_m[:, leg, 2]))
    assert over.any()
    assert w.plant_weight[-1, leg] == 0.0
    assert np.all(w.plant_weight[:, 2] == 1.0)  # the right legs never leave the ground
    # the weight fades linearly: 0.1 s at dt = 0.01 s -> 10 frames from 1 to 0
    drop = np.nonzero(w.plant_weight[:, leg] < 1.0)[0][0]
    assert w.plant_weight[drop + 4, leg] == pytest.approx(0.5, abs=1e-9)
    # weight 0: the foot follows the animated (flat-ground) pose carried by the body,
    # body-frame target + the body's height offset (body y − body_height − bob)
    from animsmith.sim.walker import body_bob_m

    off = w.body_position_m[:, 1] - c.body_height - body_bob_m(c, w.distance_m)
    animated_y = off + foot_targets(c, w.distance_m).position_m[:, leg, 1]
    gone = w.plant_weight[:, leg] == 0.0
    assert gone.sum() > 20
    assert np.allclose(w.foot_target_m[gone, leg, 1], animated_y[gone], atol=1e-12)
    assert np.all(np.isfinite(w.foot_m))


def test_contact_events_match_stance_edges():
    fox = catalog_creature("fox")
    ev = contact_events(fox, 0.0, 2 * fox.cycle_m, fox.clip_speed)
    plants = [e["time_s"] for e in ev if e["leg"] == "leg_0" and e["kind"] == "plant"]
    # leg_0 phase 0.75: plants at d = (k - 0.75)·C -> k = 1, 2
    cyc_s = fox.cycle_m / fox.clip_speed
    assert plants == pytest.approx([0.25 * cyc_s, 1.25 * cyc_s], abs=1e-6)
    lifts = [e["time_s"] for e in ev if e["leg"] == "leg_0" and e["kind"] == "lift"]
    assert lifts == pytest.approx([0.95 * cyc_s, 1.95 * cyc_s], abs=1e-6)


@pytest.mark.parametrize("name", ["biped", "fox", "spider"])
@pytest.mark.parametrize("cycles", [0.03, 0.1, 0.3, 1.0, 2.5])
def test_contact_events_give_the_walkers_stance(name, cycles):
    """The events, read back by the core's interval rule, are the walker's stance at
    every sample, including legs planted all through a bake shorter than a swing."""
    from animsmith.core.contacts import _leg_intervals

    c = catalog_creature(name)
    rng = np.random.default_rng(int(cycles * 100) + len(name))
    for start_cycles in rng.uniform(0.0, 1.0, 6):
        d0 = start_cycles * c.cycle_m
        d1 = d0 + cycles * c.cycle_m
        dur_s = (d1 - d0) / c.clip_speed
        ev = contact_events(c, d0, d1, c.clip_speed)
        d = np.linspace(d0, d1, 101)
        t_s = (d - d0) / c.clip_speed
        stance = foot_targets(c, d).stance
        for i, leg in enumerate(c.legs):
            evs = [(e["kind"], e["time_s"]) for e in ev if e["leg"] == leg.name]
            spans = _leg_intervals(evs, 0.0, dur_s)
            marked = np.zeros(t_s.shape, dtype=bool)
            for a, b in spans:
                marked |= (t_s >= a - 1e-6) & (t_s <= b + 1e-6)
            # samples within 1 µs of an event are on its edge either way
            edge = np.zeros(t_s.shape, dtype=bool)
            for _, te in evs:
                edge |= np.abs(t_s - te) <= 2e-6
            assert np.array_equal(marked[~edge], stance[~edge, i]), (leg.name, start_cycles, evs)


# --------------------------------------------------------------------------
# bake, load back, validate
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["fox", "spider"])
def test_bake_load_back_same_poses(tmp_path, name):
    from animsmith.core.pose import sample_pose
    from animsmith.io.gltf import load_asset
    from animsmith.io.write import write_glb

    c = catalog_creature(name)
    b = bake(c, terrain="rough", root_motion=True, fps=60)
    path = str(tmp_path / f"{name}.glb")
    write_glb(b.asset, path)
    back = load_asset(path)
    clip = back.clips[0]
    times = b.key_times_s
    grid = sample_pose(back.skeleton, clip, times)
    feet = [back.skeleton.find(f"{leg.name}_foot") for leg in c.legs]
    assert np.allclose(grid.model_position_m[:, feet, :], b.walk.foot_m, atol=2e-6)
    # every solved joint, not just the feet
    for li, leg in enumerate(c.legs):
        names = [f"{leg.name}_upper", f"{leg.name}_lower"] if leg.two_bone else [f"{leg.name}_seg{i}" for i in range(len(leg.segments))]
        bones = [back.skeleton.find(n) for n in names] + [feet[li]]
        assert np.allclose(grid.model_position_m[:, bones, :], b.walk.joints_m[li], atol=2e-6)
    markers = read_contact_markers(clip)
    assert markers is not None and set(markers) == {f"{leg.name}_foot" for leg in c.legs}
    assert clip.extras[CONTACTS_KEY]["version"] == 1


def test_biped_bake_resolves_lint_roles():
    from animsmith.core.roles import resolve_roles

    b = bake(catalog_creature("biped"))
    roles = resolve_roles(b.asset.skeleton)
    assert roles.names["hips"] == "Hips"
    assert roles.names["left_foot"] == "LeftFoot" and roles.names["right_foot"] == "RightFoot"


def test_in_place_bake_has_no_travel():
    b = bake(catalog_creature("trotter"))
    root = [ch for ch in b.clip.channels if ch.bone == 0 and ch.path == "translation"][0]
    assert np.allclose(root.values[:, [0, 2]], 0.0)
    rm = bake(catalog_creature("trotter"), root_motion=True)
    root = [ch for ch in rm.clip.channels if ch.bone == 0 and ch.path == "translation"][0]
    assert root.values[-1, 2] == pytest.approx(catalog_creature("trotter").cycle_m, rel=1e-6)


def test_validate_passes_the_catalog_walk():
    rep = validate_creature(catalog_creature("beetle"))
    assert rep.passed
    assert rep.walk_test["samples_per_cycle"] == 120 and rep.walk_test["cycles"] == 2
    assert rep.walk_test["foot_slide_mm"] < 1.0
    assert [t["terrain"] for t in rep.terrain_tests] == ["flat", "slope", "steps", "rough"]


def test_validator_catches_an_injected_2mm_slide():
    c = catalog_creature("fox")
    b = bake(c, cycles=2, samples_per_cycle=120, root_motion=True)
    k = 37
    root = [ch for ch in b.clip.channels if ch.bone == 0 and ch.path == "translation"][0]
    root.values[k, 0] += np.float32(0.002)  # every foot jumps 2 mm sideways at sample k
    m = measure_baked(b, through_glb=False)
    assert m.foot_slide_mm == pytest.approx(2.0, abs=0.01)
    assert measure_baked(b).foot_slide_mm == pytest.approx(m.foot_slide_mm)  # same through GLB bytes
    # expected culprits: legs planted across the jump (samples k-1..k or k..k+1)
    st = b.walk.stance
    planted = {leg.name for j, leg in enumerate(c.legs) if (st[k - 1, j] and st[k, j]) or (st[k, j] and st[k + 1, j])}
    assert m.slide_leg in planted
    assert m.slide_time_s in (pytest.approx(float(b.key_times_s[k])), pytest.approx(float(b.key_times_s[k + 1])))
    wt, failure = walk_test(c, b)
    assert not wt["passed"] and wt["foot_slide_mm"] == pytest.approx(2.0, abs=0.01)
    assert failure.message().startswith(f"fox: walk_test: leg {m.slide_leg} stance foot moved 2.0")
    assert f"@{m.slide_time_s:.3f}s" in failure.message()


def test_baked_glb_passes_khronos_validator(tmp_path, oracles):
    from animsmith.io.write import write_glb

    for name, terrain in (("biped", "steps"), ("spider", "flat")):
        path = str(tmp_path / f"{name}.glb")
        write_glb(bake(catalog_creature(name), terrain=terrain).asset, path)
        out = subprocess.run(["node", os.path.join(oracles, "validate.mjs"), path], capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "errors=0" in out.stdout


def test_lod_tiers():
    from animsmith.sim.walker import LodTiers

    tiers = LodTiers(near_m=24.0, far_m=60.0)
    assert [tiers.tier(d) for d in (None, 0.0, 24.0, 24.01, 60.0, 60.5)] == [0, 0, 0, 1, 1, 2]
    c = catalog_creature("spider")
    t = np.linspace(0, 2, 241)
    rough = Terrain("rough", c.body_height)
    full = simulate(c, t, terrain=rough)
    snapped = simulate(c, t, terrain=rough, camera_distance_m=30.0, lod=tiers)
    far = simulate(c, t, terrain=rough, camera_distance_m=100.0, lod=tiers)
    assert (full.lod_tier, snapped.lod_tier, far.lod_tier) == (0, 1, 2)
    # snapped feet still land on the ground targets (within one FABRIK pass), keyframes ignore terrain
    assert np.allclose(snapped.foot_target_m[..., [0, 2]], full.foot_target_m[..., [0, 2]])
    assert np.all(far.ground_m == 0.0)
    flat = simulate(c, t)
    # keyframes replay the flat cycle: within a few mm of the full flat solve (linear blend of 48 keys)
    assert np.max(np.abs(far.foot_m - flat.foot_m)) < 2e-3


def test_acceleration_tilts_the_body_into_it():
    c = catalog_creature("fox")
    t = np.linspace(0, 2, 201)
    speeding = simulate(c, t, distance_m=0.25 * t**2)  # 0.5 m/s² forward
    braking = simulate(c, t, distance_m=1.0 * t - 0.25 * t**2)  # −0.5 m/s²
    # seed: pitch = −a·pitch_per = −0.05° -> with +Z forward the nose dips by 0.05°
    # (exponential approach at 4/s over 2 s: 1 − 0.96^200 of the way)
    expect = 0.05 * (1 - 0.96**200)
    dip = np.degrees(np.arcsin(-speeding.body_rotation[-1][1, 2]))
    assert dip == pytest.approx(expect, rel=1e-3)
    rise = np.degrees(np.arcsin(-braking.body_rotation[-1][1, 2]))
    assert rise == pytest.approx(-expect, rel=1e-3)
    steady = simulate(c, t)
    assert np.array_equal(steady.body_rotation, np.broadcast_to(np.eye(3), steady.body_rotation.shape))
    # the pose is still a pure function of distance: feet planted while speeding up
    st = speeding.stance[1:] & speeding.stance[:-1]
    step = np.linalg.norm(np.diff(speeding.foot_m, axis=0), axis=-1)
    assert np.max(np.where(st, step, 0.0)) < 1e-9


def test_authored_contacts_drive_the_core_slide_measure(tmp_path):
    """Loaded back, the markers give the stance the core measures slide with (no inference)."""
    from animsmith.core.contacts import foot_slide
    from animsmith.core.pose import sample_pose
    from animsmith.io.gltf import load_asset
    from animsmith.io.write import write_glb
    from animsmith.sim.bake import contact_stance_mask

    c = catalog_creature("biped")
    b = bake(c, cycles=2, fps=120)  # in place
    path = str(tmp_path / "biped.glb")
    write_glb(b.asset, path)
    asset = load_asset(path)
    clip = asset.clips[0]
    times = clip.channels[0].times.astype(np.float64)
    authored = contact_stance_mask(clip, ["LeftFoot", "RightFoot"], times)
    # the markers agree with the walker's own stance except at the boundary samples
    assert np.mean(authored == b.walk.stance) > 0.97
    grid = sample_pose(asset.skeleton, clip, times)
    feet = grid.model_position_m[:, [asset.skeleton.find("LeftFoot"), asset.skeleton.find("RightFoot")], :]
    # in place: a planted foot sweeps back at the walking speed
    fs = foot_slide(feet, times, stance=authored, ground_velocity_mps=[0.0, 0.0, -c.clip_speed])
    assert fs.worst_speed_mps < 0.01
    from animsmith.model import Clip

    assert contact_stance_mask(Clip(name="no-markers", channels=[]), ["LeftFoot"], times) is None


@settings(max_examples=25, deadline=None)
@given(
    st.floats(0.05, 1.0),
    st.floats(0.3, 0.9),
    st.floats(0.0, 0.2),
    st.lists(st.floats(0.0, 0.999), min_size=1, max_size=6),
)
def test_stance_feet_never_slide_for_any_gait(stride, duty, lift, phases):
    doc = {
        "stride": stride, "duty": duty, "lift": lift, "clip_speed": 1.0,
        "legs": [{"name": f"l{i}", "phase": p, "segments": [1.0, 1.0], "home": [0.1 * i, 0.0, 0.0]} for i, p in enumerate(phases)],
    }
    c = creature_from_dict(doc)
    d = np.linspace(0.0, 2.5 * c.cycle_m, 800)
    ft = foot_targets(c, d)
    world_z = d[:, None] + ft.position_m[..., 2]
    both = ft.stance[1:] & ft.stance[:-1]
    assert np.max(np.where(both, np.abs(np.diff(world_z, axis=0)), 0.0)) < 1e-12


def test_look_ahead_cast_lifts_swing_over_steps():
    from animsmith.sim.walker import WalkOptions

    c = catalog_creature("trotter")
    steps = Terrain("steps", c.body_height)
    t = np.linspace(0, 4 * c.cycle_m / c.clip_speed, 481)
    ahead = simulate(c, t, terrain=steps)
    blind = simulate(c, t, terrain=steps, options=WalkOptions(look_ahead_s=0.0))
    swing = ~ahead.stance
    f = ahead.foot_target_m
    g = steps.height_m(f[..., 0], f[..., 2])
    assert np.all(f[..., 1][swing] >= g[swing] - 1e-12)  # never through a riser
    lifted = ahead.foot_target_m[..., 1] - blind.foot_target_m[..., 1]
    assert np.all(lifted >= -1e-12)
    assert lifted.max() > 0.5 * 0.06 * c.body_height * 0.5  # the cast saw a riser ahead and rose for it
    assert np.array_equal(ahead.stance, blind.stance)


def test_a_knee_pole_along_the_leg_still_bakes_the_solved_pose(tmp_path):
    """Knees "up" with the default hips: the foot passes straight below the hip, the pole lies
    along hip->foot, and the knee axis came out zero (a NaN segment frame baked as the identity:
    the foot 10 cm under the ground in the file). The axis now takes the IK's own fallback: the
    baked file's forward kinematics equal the walker's joints."""
    from animsmith.core.pose import sample_pose
    from animsmith.io.gltf import load_asset
    from animsmith.io.write import write_glb
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import creature_from_dict

    doc = {"name": "biped_up", "stride": 0.4, "duty": 0.5, "lift": 0.05, "clip_speed": 0.8, "body_height": 0.4,
           "legs": [{"name": "a", "side": "L", "phase": 0.0, "knee": "up", "segments": [0.25, 0.25], "home": [0.1, 0.0, 0.0]},
                    {"name": "b", "side": "R", "phase": 0.5, "knee": "up", "segments": [0.25, 0.25], "home": [-0.1, 0.0, 0.0]}]}
    b = bake(creature_from_dict(doc, "biped_up.toml"))
    assert all(np.all(np.isfinite(ax)) and np.allclose(np.linalg.norm(ax, axis=-1), 1.0) for ax in b.walk.knee_axis)
    path = str(tmp_path / "up.glb")
    write_glb(b.asset, path)
    a = load_asset(path)
    g = sample_pose(a.skeleton, a.clips[0], b.key_times_s)
    pos = g.model_position_m + b.walk.travel_m[:, None, :]  # an in-place bake: the travel added back
    for li, ids in enumerate(b.rig.segment_bones):
        for k, bone in enumerate(ids + [b.rig.foot_bones[li]]):
            assert np.max(np.linalg.norm(pos[:, bone] - b.walk.joints_m[li][:, k], axis=-1)) < 1e-5


def test_a_foot_planted_on_a_riser_edge_stays_on_its_step():
    """A one-leg hopper whose foot plants at world z = 0, the first riser edge of `steps`: its
    position, recomputed each frame, lands ~1e-17 m either side of the edge and floor(z/tread)
    dropped it a riser for single frames. The edge belongs to the upper step."""
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import creature_from_dict

    doc = {"name": "hopper", "stride": 0.2, "duty": 0.6, "lift": 0.03, "clip_speed": 0.3, "body_height": 0.3,
           "legs": [{"name": "a", "side": "C", "phase": 0.0, "knee": "back", "segments": [0.2, 0.2], "home": [0.0, 0.0, 0.0]}]}
    w = bake(creature_from_dict(doc, "hopper.toml"), terrain="steps", cycles=2, samples_per_cycle=120, root_motion=True).walk
    planted = w.stance[:, 0]
    on_edge = planted & (np.abs(w.foot_m[:, 0, 2]) < 1e-12)
    assert on_edge.sum() >= 3
    assert np.all(w.ground_m[on_edge, 0] == 0.0) and np.all(np.abs(w.foot_m[on_edge, 0, 1]) < 1e-9)
    t = Terrain("steps", 0.3)
    assert t.height_m(0.0, [-1e-17, 0.0, 1e-17]).tolist() == [0.0, 0.0, 0.0]
    assert t.height_m(0.0, [-1e-3]).tolist() == [-0.06 * 0.3]


@pytest.mark.parametrize("name", ["biped", "trotter"])
def test_walking_downhill_keeps_feet_planted_and_legs_in_reach(name):
    """Down the 8° slope (direction −Z): the body rides the ground level with no lag, so legs
    reach and planted feet stay put. The whole target used to be smoothed: the body lagged the
    terrain and rode 27-32 mm too high downhill (a biped's legs 8.7 mm short, feet sliding 5 mm)."""
    c = catalog_creature(name)
    terrain = Terrain("slope", c.body_height)
    t = np.linspace(0, 4 * c.cycle_m / c.clip_speed, 4 * 48 + 1)
    w = simulate(c, t, terrain=terrain, direction=(0.0, 0.0, -1.0))
    f = w.foot_m
    g = terrain.height_m(f[..., 0], f[..., 2])
    assert np.max(np.abs(np.where(w.stance, f[..., 1] - g, 0.0))) <= 1e-5
    assert w.worst_shortfall_m < 1e-4
    both = w.stance[1:] & w.stance[:-1]
    step = np.linalg.norm(np.diff(f, axis=0), axis=-1)
    assert np.max(np.where(both, step, 0.0)) < 1e-4  # a planted foot stays where it is (m per frame)


@pytest.mark.parametrize("name", ["biped", "trotter"])
def test_a_long_hole_on_a_slope_does_not_make_the_body_jump(name):
    """A hole two cycles long across the path on the 8° slope: the body's ground level runs
    across it from the level before to the level after (a ramp a little steeper than the slope:
    the windows at its edges see ground on one side only), so no frame moves the body by more
    than 4 % of its height, under a riser (holding the level and snapping it when the ground
    came back made it jump 24-28 cm, a third of the biped's height, in one frame)."""
    from animsmith.sim.walker import body_bob_m, path_level_m

    c = catalog_creature(name)
    z0 = 1.5 * c.cycle_m
    terrain = Terrain("slope", c.body_height, holes=[(-10.0, 10.0, z0, z0 + 2 * c.cycle_m)])
    t = np.linspace(0, 6 * c.cycle_m / c.clip_speed, 6 * 30 + 1)
    w = simulate(c, t, terrain=terrain)
    body = w.body_position_m[:, 1] - body_bob_m(c, w.distance_m)
    assert np.max(np.abs(np.diff(body))) < 0.04 * c.body_height
    level = path_level_m(terrain, w.travel_m, (0.0, 0.0, 1.0), 0.5 * c.cycle_m)
    assert np.all(np.isfinite(level)) and np.all(np.diff(level) >= -1e-12)  # climbing across the hole too


def test_lod_keyframes_replay_the_phase_of_any_distance_and_ride_the_ground_level():
    """Tier 2's keys are solved at the creature's own speed, so a stopped walk (speed 0, started
    0.37 cycles in) shows the full solve's pose, not phase 0 (0.37 m off); a `distance_m` profile
    is keyframed too (it ran the full simulation while reporting tier 2); on a slope the body
    rides the ground level (it stayed at the flat height, its feet half a metre underground)."""
    from animsmith.sim.walker import LodTiers, path_level_m

    c = catalog_creature("biped")
    far = dict(camera_distance_m=100.0, lod=LodTiers(near_m=24.0, far_m=60.0))
    t = np.linspace(0, 1, 31)
    joints = lambda w: np.concatenate(w.joints_m, axis=1)  # noqa: E731
    sd = 0.37 * c.cycle_m
    stopped = simulate(c, t, speed_mps=0.0, start_distance_m=sd)
    assert np.max(np.abs(joints(simulate(c, t, speed_mps=0.0, start_distance_m=sd, **far)) - joints(stopped))) < 1e-3
    by_distance = simulate(c, t, distance_m=1.2 * t, **far)
    by_speed = simulate(c, t, speed_mps=1.2, **far)
    assert by_distance.lod_tier == 2 and np.all(by_distance.ground_m == 0.0)
    assert np.allclose(joints(by_distance), joints(by_speed), atol=1e-9)
    slope = Terrain("slope", c.body_height)
    t = np.linspace(0, 3, 91)
    w = simulate(c, t, terrain=slope, **far)
    level = path_level_m(slope, w.travel_m, (0.0, 0.0, 1.0), 0.5 * c.cycle_m)
    flat = simulate(c, t, **far)
    assert np.allclose(w.body_position_m[:, 1], flat.body_position_m[:, 1] + level, atol=1e-9)


def test_the_level_over_a_hole_follows_the_distance_walked_and_bad_distances_are_refused():
    """Stopped for a while inside a long hole, the body stays where it is (the level was
    interpolated by frame, so a standing creature rose); a non-finite distance profile is a
    ValueError at every tier (tier 2 raised an IndexError)."""
    from animsmith.sim.walker import LodTiers

    c = catalog_creature("fox")
    z0 = 1.5 * c.cycle_m
    terrain = Terrain("slope", c.body_height, holes=[(-10.0, 10.0, z0, z0 + 3 * c.cycle_m)])
    walk_to = z0 + 1.5 * c.cycle_m
    d = np.concatenate([np.linspace(0.0, walk_to, 60), np.full(60, walk_to), np.linspace(walk_to, walk_to + 3 * c.cycle_m, 60)])
    t = np.arange(d.shape[0]) / 30.0
    w = simulate(c, t, terrain=terrain, distance_m=d)
    still = slice(62, 119)
    assert np.ptp(w.body_position_m[still, 1]) < 1e-3
    bad = d.copy()
    bad[5] = np.nan
    for lod in ({}, dict(camera_distance_m=100.0, lod=LodTiers(near_m=24.0, far_m=60.0))):
        with pytest.raises(ValueError, match="must be finite"):
            simulate(c, t, terrain=terrain, distance_m=bad, **lod)
