"""The simulator's contact markers, read by the core, drive the lint foot-slide check.

End to end through files: ``animsmith sim bake biped`` writes a clean walk
(planted feet stand still in the world by construction) whose animation
extras carry plant/lift events; ``animsmith lint`` with a speed pin and the
right owner judges stance on those markers and stays clean; the same clip
without markers is judged by the contact-height rule (low and not moving
vertically) and stays clean too.
"""

import json

import numpy as np
import pytest

from checks_support import run_check
from lint_support import run_cli, write_config


def _bake(tmp_path, capsys, *flags):
    path = str(tmp_path / "walk.glb")
    code, out, err = run_cli(["sim", "bake", "biped", "-o", path, "--cycles", "2", *flags], capsys)
    assert code == 0, err
    return path


def _lint_foot_slide(tmp_path, capsys, path, owner):
    from animsmith.io.gltf import load_asset

    speed = load_asset(path).clips[0].extras["animsmith_sim"]["speed_mps"]
    cfg = write_config(tmp_path / "c.toml", f'[clips.walk]\nspeed_mps = {speed}\nmovement_owner_xz = "{owner}"\n')
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", path], capsys)
    doc = json.loads(out)
    found = [f for file in doc["files"] for f in file["findings"] if f["check_id"] == "foot-slide"]
    return code, found


@pytest.mark.parametrize("flag, owner", [("--in-place", "gameplay"), ("--root-motion", "animation")])
def test_baked_biped_lints_clean_on_its_markers_and_without_them(tmp_path, capsys, flag, owner):
    from animsmith.io.gltf import load_asset
    from animsmith.io.write import write_glb

    path = _bake(tmp_path, capsys, flag)
    code, found = _lint_foot_slide(tmp_path, capsys, path, owner)
    assert found == []
    asset = load_asset(path)
    asset.clips[0].extras = {"animsmith_sim": asset.clips[0].extras["animsmith_sim"]}  # markers stripped
    stripped = str(tmp_path / "stripped.glb")
    write_glb(asset, stripped)
    _, found = _lint_foot_slide(tmp_path, capsys, stripped, owner)
    assert found == []


def test_sim_wrappers_are_the_core_reader(tmp_path, capsys):
    from animsmith.core.contacts import authored_contacts, authored_stance_mask
    from animsmith.io.gltf import load_asset
    from animsmith.sim.bake import contact_stance_mask, read_contact_markers

    clip = load_asset(_bake(tmp_path, capsys)).clips[0]
    assert read_contact_markers(clip) == authored_contacts(clip).intervals_s
    t = np.linspace(0.0, clip.duration_s, 97)
    assert np.array_equal(contact_stance_mask(clip, ["LeftFoot", "RightFoot"], t),
                          authored_stance_mask(clip, ["LeftFoot", "RightFoot"], t))


def test_lint_and_sim_validate_call_the_same_core_foot_slide(monkeypatch):
    """Issue 4/6: one contact/slide measurement. Spy on the core function and
    run both callers; sim validate must still pass the catalog biped."""
    from animsmith.core import contacts
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature
    from animsmith.sim.validate import validate_creature

    calls = []
    real = contacts.foot_slide

    def spy(*args, **kwargs):
        calls.append(kwargs.get("stance") is not None)
        return real(*args, **kwargs)

    monkeypatch.setattr(contacts, "foot_slide", spy)
    b = bake(catalog_creature("biped"), cycles=2)
    assert run_check("foot-slide", b.asset, expect={"speed_mps": b.speed_mps, "movement_owner_xz": "gameplay"}) == ([], [])
    assert calls == [True]
    rep = validate_creature(catalog_creature("biped"))
    assert rep.passed and rep.walk_test["foot_slide_mm"] < 1.0
    assert len(calls) > 1 and all(calls)


def test_sim_validate_cli_passes(capsys):
    code, out, err = run_cli(["sim", "validate", "biped", "fox", "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["passed"] and [c["name"] for c in doc["creatures"]] == ["biped", "fox"]


def test_a_slow_root_motion_walk_without_an_owner_uses_the_travel_threshold(tmp_path, capsys):
    """A 0.4 m/s root-motion walk (planted feet still in model space) with no movement owner: under
    the default 0.5 m/s travel threshold it reads as in place, so its still feet are 0.4 m/s off the
    expected backward sweep, and the warning says what decided that; with [checks.foot-slide]
    travel_threshold_mps = 0.3 (as in-place and root-motion-speed take it) it is root motion: clean."""
    path = _bake(tmp_path, capsys, "--root-motion", "--speed", "0.4")
    pin = '[clips.walk]\nspeed_mps = 0.4\n'
    for extra, expect_warning in (("", True), ('[checks.foot-slide]\ntravel_threshold_mps = 0.3\n', False)):
        cfg = write_config(tmp_path / "c.toml", pin + extra)
        code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", path], capsys)
        found = [f for file in json.loads(out)["files"] for f in file["findings"] if f["check_id"] == "foot-slide"]
        if expect_warning:
            assert sorted(f["bone"] for f in found) == ["LeftFoot", "RightFoot"], err
            for f in found:
                assert abs(f["measured"] - 0.4) < 0.01  # a still foot against a 0.4 m/s sweep
                assert "the root travels 0.40 m/s, under [checks.foot-slide] travel_threshold_mps 0.50" in f["message"]
                assert "declare [clips.*] movement_owner_xz" in f["message"]
        else:
            assert found == [], [f["message"] for f in found]
