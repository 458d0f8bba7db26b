"""Audit of issue 6's stated simulator behaviours not covered elsewhere:
seed defaults and smoothing rates, FABRIK iteration cap, bake flags."""

import numpy as np
import pytest

from animsmith.sim.creature import catalog_creature
from animsmith.sim.terrain import Terrain
from animsmith.sim.walker import simulate


def test_seed_defaults_and_body_height_smoothing_at_6_per_s():
    from animsmith.sim import attitude as att
    from animsmith.sim.walker import LodTiers, WalkOptions, body_bob_m

    # the Roblox seed's defaults, converted to seconds / per-second rates
    o = WalkOptions()
    assert (o.look_ahead_s, o.plant_smoothing_s, o.height_rate, o.tilt_rate) == (0.15, 0.1, 6.0, 4.0)
    assert (att.LOOK_AHEAD_S, att.PLANT_SMOOTHING_S, att.HEIGHT_RATE, att.TILT_RATE) == (0.15, 0.1, 6.0, 4.0)
    # on steps, the snapped-feet tier applies the raw mean plant delta (clamped) on top of the
    # ground level; the full tier must follow that delta with the seed's per-frame exponential
    # approach H += (target − H)·min(dt·6, 1), starting at the first target (the level, the
    # root's own height, is not smoothed: a smoothed level lagged a slope by ~2 cm)
    from animsmith.sim.walker import path_level_m

    c = catalog_creature("trotter")
    steps = Terrain("steps", c.body_height)
    t = np.linspace(0, 4 * c.cycle_m / c.clip_speed, 401)
    dt = t[1] - t[0]
    full = simulate(c, t, terrain=steps)
    raw = simulate(c, t, terrain=steps, camera_distance_m=30.0, lod=LodTiers(near_m=24.0, far_m=60.0))
    assert raw.lod_tier == 1
    bob = body_bob_m(c, full.distance_m)
    level = path_level_m(steps, full.travel_m, (0.0, 0.0, 1.0), 0.5 * c.cycle_m)
    assert np.ptp(level) > 0.03 * c.body_height  # the steps really move the body
    target = raw.body_position_m[:, 1] - c.body_height - bob - level
    assert np.ptp(target) > 0.002 * c.body_height  # and the feet's offset from that level
    expect = np.empty_like(target)
    h = target[0]
    for i, x in enumerate(target):
        h += (x - h) * min(dt * 6.0, 1.0)
        expect[i] = h
    np.testing.assert_allclose(full.body_position_m[:, 1] - c.body_height - bob - level, expect, atol=1e-12)
    # smoothed, not springy: never beyond the range of the targets seen so far
    assert np.all(expect <= np.maximum.accumulate(target) + 1e-15)


def test_fabrik_stops_at_the_iteration_cap_and_at_the_tolerance():
    from animsmith.sim.ik import fabrik, initial_chain

    lengths = np.array([0.05, 0.05, 0.05])
    root = np.zeros((1, 3))
    tg = np.array([[0.06, -0.05, 0.03]])  # reachable, off the seeded plane
    start = initial_chain(root, tg, lengths, (0, 1, 0))
    capped = fabrik(start, lengths, tg, tolerance_m=1e-12, max_iterations=1)
    assert capped.iterations == 1 and capped.residual_m[0] > 1e-12
    loose = fabrik(start, lengths, tg, tolerance_m=1e-5, max_iterations=500)
    assert loose.residual_m[0] <= 1e-5 and loose.iterations < 500  # stopped by the tolerance, not the cap
    seg = np.linalg.norm(np.diff(capped.points_m[0], axis=0), axis=-1)
    assert np.allclose(seg, lengths, atol=1e-12)  # every pass keeps the bone lengths


def test_bake_flags_speed_fps_cycles_and_root_modes(tmp_path, capsys):
    from animsmith.cli import main
    from animsmith.io.gltf import load_asset

    fox = catalog_creature("fox")
    cycle_m = 0.15 / 0.7
    paths = {}
    for mode in ("--root-motion", "--in-place"):
        out = tmp_path / f"fox{mode}.glb"
        with pytest.raises(SystemExit) as exc:
            main(["sim", "bake", "fox", "-o", str(out), "--speed", "0.5", "--fps", "60", "--cycles", "3", mode])
        assert exc.value.code == 0
        paths[mode] = str(out)
    capsys.readouterr()
    duration = 3 * cycle_m / 0.5
    for mode, path in paths.items():
        clip = load_asset(path).clips[0]
        assert clip.name == "walk"
        assert clip.duration_s == pytest.approx(duration, rel=1e-6)
        root = [ch for ch in clip.channels if ch.bone == 0 and ch.path == "translation"][0]
        assert root.key_count == round(duration * 60) + 1
        travel = root.values[-1, 2] - root.values[0, 2]
        expect = 3 * cycle_m if mode == "--root-motion" else 0.0
        assert travel == pytest.approx(expect, abs=1e-6)
        assert np.allclose(root.values[:, 0], root.values[0, 0])  # straight ahead: no sideways travel
    assert fox.clip_speed == 0.375


def test_terrain_validation_fails_a_planted_foot_off_the_ground():
    # a clip baked on flat ground judged against the 8° slope: its planted feet sit
    # at y = 0 while the ground under them rises tan(8°)·z — a ground failure, not a slide
    import math

    from animsmith.sim.bake import bake
    from animsmith.sim.validate import CYCLES, SAMPLES_PER_CYCLE, terrain_test

    fox = catalog_creature("fox")
    flat = bake(fox, cycles=CYCLES, samples_per_cycle=SAMPLES_PER_CYCLE, root_motion=True)
    entry, fails = terrain_test(fox, "slope", flat)
    assert entry["passed"] is False and entry["foot_slide_mm"] < 1.0
    assert [f.what for f in fails] == ["planted foot off the ground by"]
    slope = Terrain("slope", fox.body_height)
    f, st = flat.walk.foot_m, flat.walk.stance
    assert np.allclose(f[..., 1][st], 0.0, atol=1e-9)
    z = f[..., 2][st]
    assert np.allclose(slope.height_m(f[..., 0][st], z) - slope.height_m(f[..., 0][st], 0 * z), math.tan(math.radians(8.0)) * z, atol=1e-9)
    expect_mm = np.max(np.abs(slope.height_m(f[..., 0], f[..., 2])[st])) * 1e3
    assert fails[0].measured_mm == pytest.approx(expect_mm, rel=1e-3)
    assert expect_mm > 1.0
