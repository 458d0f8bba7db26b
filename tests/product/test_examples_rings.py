"""The two shipped rings: what examples/README.md says lint prints, and how each is rebuilt."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from lint_support import ROOT, run_cli

WALK = "examples/assets/walk-ring-root-motion.glb"
WALK_CFG = "examples/walk-ring-root-motion.animsmith.toml"
RUN = "examples/assets/run-ring.glb"
RUN_CFG = "examples/run-ring.animsmith.toml"


def test_the_root_motion_walk_ring_lints_clean(capsys, monkeypatch):
    """Clean with the loop checks armed: each member ends one stride from where it began,
    and the wrap is judged where the next cycle starts."""
    monkeypatch.chdir(ROOT)
    with open(os.path.join(ROOT, WALK_CFG), encoding="utf-8") as fh:
        assert "\nloop = true\n" in fh.read()
    assert run_cli(["--config", WALK_CFG, "lint", WALK], capsys) == (
        0,
        f"{WALK}: clean\n0 error(s), 0 warning(s), 0 note(s), 0 coverage gap(s), 0 available prediction facet(s), 0 required-unavailable prediction facet(s)\n",
        "",
    )


def test_the_walk_ring_measures_as_built(capsys, monkeypatch):
    """Travel speed = the catalog biped's clip speed, heading = each member's direction
    (0°, 180°, +90°, −90° about +Y from +Z), one stride each, every member in step."""
    import json

    from animsmith.sim.creature import catalog_creature
    from animsmith.sim.ring import WALK_RING

    monkeypatch.chdir(ROOT)
    code, out, _ = run_cli(["--config", WALK_CFG, "lint", "--format", "json", WALK], capsys)
    assert code == 0
    f = json.loads(out)["files"][0]
    clips = f["measurements"]["clips"]
    biped = catalog_creature("biped")
    for name, (x, _, z) in WALK_RING:
        m = clips[name]
        assert m["speed_mps"] == pytest.approx(biped.clip_speed, abs=1e-3)
        assert m["heading_deg"] == pytest.approx(np.degrees(np.arctan2(x, z)), abs=0.5)
        assert m["distance_m"] == pytest.approx(biped.cycle_m, abs=1e-3)
    group = f["measurements"]["groups"]["walk-ring"]
    assert group["spread"] == pytest.approx(0.0, abs=1e-4) and group["outliers"] == []


@pytest.mark.parametrize(
    "edit, checks, errors, warnings",
    [
        # the declared speed is not the speed the clips travel at
        (("speed_mps = 1.2", "speed_mps = 2.4"), {"root-motion-speed"}, 4, 0),
        # the clips travel although the contract says gameplay moves the character, planted
        # feet do not sweep back at speed_mps as they would in place, and an in-place loop
        # that ends one stride (1 m) from where it began pops at the wrap (loop-closure) and
        # jumps in velocity there (loop-seam-vel): the loop checks judge a travelling clip in
        # its travelling frame only when the animation owns the travel
        (('movement_owner_xz = "animation"', 'movement_owner_xz = "gameplay"'),
         {"in-place", "foot-slide", "loop-closure", "loop-seam-vel"}, 12, 8),
        # the loop checks are armed (loop = true) and judge every clip's seam: an absolute
        # 0.1 mm/s velocity cap, far below any walk's seam change, fails each of the four
        (("loop = true\n", "loop = true\n\n[checks.loop-seam-vel]\nmax_velocity_delta_mps = 0.0001\n"), {"loop-seam-vel"}, 4, 0),
    ],
)
def test_the_walk_ring_contract_arms_the_root_motion_checks(capsys, monkeypatch, tmp_path, edit, checks, errors, warnings):
    """`clean` means judged: the same file under a contract that misstates the clips fails."""
    import json

    monkeypatch.chdir(ROOT)
    with open(WALK_CFG, encoding="utf-8") as fh:
        text = fh.read()
    assert edit[0] in text
    cfg = tmp_path / "wrong.toml"
    cfg.write_text(text.replace(edit[0], edit[1]), encoding="utf-8")
    code, out, _ = run_cli(["--config", str(cfg), "lint", "--format", "json", WALK], capsys)
    doc = json.loads(out)
    assert code == 1
    assert {x["check_id"] for x in doc["files"][0]["findings"]} == checks
    assert (doc["summary"]["errors"], doc["summary"]["warnings"]) == (errors, warnings)


def test_the_walk_ring_is_rebuilt_by_sim_ring_root_motion(capsys, tmp_path):
    """`animsmith sim ring --root-motion` writes the shipped clips: the same bones and channels,
    every joint within 10 µm of the shipped file's at every judged frame."""
    from animsmith.core.pose import pose_grid
    from animsmith.io.gltf import load_asset

    out = tmp_path / "walk.glb"
    code, text, _ = run_cli(["sim", "ring", "--root-motion", "-o", str(out)], capsys)
    assert code == 0 and text == f"{out}: walk_forward, walk_backward, walk_left, walk_right\n"
    built, shipped = load_asset(str(out)), load_asset(os.path.join(ROOT, WALK))
    assert list(built.skeleton.names) == list(shipped.skeleton.names)
    for a, b in zip(built.clips, shipped.clips):
        assert a.name == b.name
        assert [(c.bone, c.path, c.key_count) for c in a.channels] == [(c.bone, c.path, c.key_count) for c in b.channels]
        pa, pb = pose_grid(built.skeleton, a), pose_grid(shipped.skeleton, b)
        np.testing.assert_allclose(pa.model_position_m, pb.model_position_m, atol=1e-5)


def test_the_walk_ring_travels_with_its_feet_planted():
    """Root motion, checked on the file itself: the hips advance one stride-cycle (1.0 m) along
    each member's direction, and the authored contacts are planted: a foot in contact moves less
    than 1 mm while the hips travel."""
    from animsmith.core.pose import pose_grid
    from animsmith.io.gltf import load_asset
    from animsmith.sim.bake import contact_stance_mask
    from animsmith.sim.ring import WALK_RING

    asset = load_asset(os.path.join(ROOT, WALK))
    names = list(asset.skeleton.names)
    for clip, (name, direction) in zip(asset.clips, WALK_RING):
        grid = pose_grid(asset.skeleton, clip)
        pos = grid.model_position_m
        travel = pos[-1, names.index("Hips")] - pos[0, names.index("Hips")]
        np.testing.assert_allclose(travel[[0, 2]], np.array(direction)[[0, 2]] * 1.0, atol=1e-3)
        feet = ["LeftFoot", "RightFoot"]
        stance = contact_stance_mask(clip, feet, grid.times_s)
        assert stance is not None and stance.any(axis=0).all()
        for k, foot in enumerate(feet):
            runs = np.split(np.arange(len(stance)), np.flatnonzero(np.diff(stance[:, k].astype(int))) + 1)
            planted_runs = [run for run in runs if stance[run[0], k] and len(run) > 1]
            assert planted_runs, (name, foot)
            for run in planted_runs:
                planted = pos[run, names.index(foot)]
                assert np.ptp(planted[:, [0, 2]], axis=0).max() < 1e-3, (name, foot)


def test_examples_readme_names_every_example_and_its_outcome(capsys, monkeypatch):
    """One line per example: the command it gives prints what the line says."""
    monkeypatch.chdir(ROOT)
    with open(os.path.join(ROOT, "examples", "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    for cfg, glb, code, says in ((RUN_CFG, RUN, 1, "1 error(s), 0 warning(s), 0 note(s), 4 coverage gap(s)"),
                                  (WALK_CFG, WALK, 0, f"{WALK}: clean")):
        command = f"animsmith --config {cfg} lint {glb}"
        assert f"`{command}`" in text
        item = text[text.index(command):].split("\n- ")[0]
        assert re.search(rf"exits {code}\b", item), item
        got = run_cli(["--config", cfg, "lint", glb], capsys)
        assert got[0] == code and says in got[1]
