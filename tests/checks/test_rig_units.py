"""[rig] units: a centimetre rig is judged in metres; an implausible rig size says which setting fits.

The centimetre biped is tests/support/transform_builders' metre biped with every length written
in centimetres (rest offsets, feet and root keys × 100): with ``units = "centimetres"`` every
number must equal the metre biped's, by construction (hips 0.9 m above the feet, L−R amplitude
4A, root speed as keyed); with the default metres it stands 90 m tall.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton
from transform_builders import NAMES, REST_T, biped_clip, frame_times, run_cli

CM = 100.0


def cm_skeleton() -> Skeleton:
    return Skeleton.build(NAMES, [-1, 0, 1, 1], np.asarray(REST_T, dtype=np.float64) * CM)


def cm_clip(name="walk", root_speed_mps=0.0, offset=0.0, **kw) -> Clip:
    """The metre biped clip with every translation key in centimetres."""
    c = biped_clip(name, offset=offset, **kw)
    for ch in c.channels:
        if ch.path == "translation":
            ch.values = (ch.values.astype(np.float64) * CM).astype(np.float32)
    if root_speed_mps:
        t = frame_times(31, 30.0).astype(np.float64)
        root = np.stack([np.zeros_like(t), np.zeros_like(t), root_speed_mps * t * CM], axis=1)
        c.channels.append(Channel.make(0, "translation", t, root))
    return c


def write_asset(tmp_path, skeleton, clips, name):
    from animsmith.io.write import write_glb

    for i, c in enumerate(clips):
        c.index = i
    path = str(tmp_path / name)
    write_glb(Asset(skeleton=skeleton, clips=list(clips)), path)
    return path


def toml(tmp_path, text, name="units.toml"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def measure_json(capsys, *argv):
    rc, out, err = run_cli(capsys, *argv, "--format", "json")
    assert rc == 0, err
    return json.loads(out)["files"]


# --------------------------------------------------------------------------
# The setting
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [('"metres"', 1.0), ('"meters"', 1.0), ('"Centimetres"', 0.01), ('"centimeters"', 0.01),
     ('"millimetres"', 0.001), ('"millimeters"', 0.001), ('"inches"', 0.0254), ("0.3048", 0.3048), ("2", 2.0),
     ('"m"', 1.0), ('"cm"', 0.01), ('"CM"', 0.01), ('"mm"', 0.001), ('"in"', 0.0254)],
)
def test_units_names_and_numbers(tmp_path, value, expected):
    from animsmith.checks import load_contract

    c = load_contract(toml(tmp_path, f"[rig]\nunits = {value}\n"))
    assert c.rig.metres_per_unit == pytest.approx(expected, rel=1e-15)
    assert load_contract(None).rig.metres_per_unit == 1.0  # glTF's metres by default


@pytest.mark.parametrize(
    "value, problem",
    [('"furlongs"', "unknown unit 'furlongs'"), ("0", "positive, finite number"), ("-0.01", "positive, finite number"),
     ("nan", "positive, finite number"), ("inf", "positive, finite number"), ("true", "got a boolean"),
     ("[1]", "got list")],
)
def test_bad_units_are_one_line_config_errors_before_any_input_is_read(tmp_path, capsys, value, problem):
    cfg = toml(tmp_path, f"[rig]\nunits = {value}\n")
    for argv in (["lint", "missing.glb"], ["measure", "missing.glb"], ["transform", "missing.glb", "--gait-anchor", "--dry-run"]):
        rc, out, err = run_cli(capsys, "--config", cfg, *argv)
        assert rc == 2 and out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "rig.units" in lines[0] and problem in lines[0], err
        assert "missing.glb" not in lines[0]


# --------------------------------------------------------------------------
# A centimetre rig in metres
# --------------------------------------------------------------------------


def test_centimetre_rig_measures_in_metres(tmp_path, capsys):
    path = write_asset(tmp_path, cm_skeleton(), [cm_clip(root_speed_mps=1.2, offset=0.1)], "cm.glb")
    cfg = toml(tmp_path, '[rig]\nunits = "centimetres"\n')
    (f,) = measure_json(capsys, "--config", cfg, "measure", path)
    (clip,) = f["clips"]
    # A = 0.05 m: the L−R signal has amplitude 4A = 0.2 m (builders; 30 samples a cycle catch
    # its peaks to 1 %), and exactly what the same clip written in metres measures
    assert clip["lr_amplitude_m"] == pytest.approx(0.2, rel=0.01)
    from transform_builders import write as write_metres

    (m,) = measure_json(capsys, "measure", write_metres(tmp_path, biped_clip(offset=0.1), name="m.glb"))
    assert clip["lr_amplitude_m"] == pytest.approx(m["clips"][0]["lr_amplitude_m"], rel=1e-6)
    assert clip["speed_mps"] == pytest.approx(1.2, rel=1e-6)
    assert clip["distance_m"] == pytest.approx(1.2, rel=1e-6)
    # at t = 0, h = 0.05·sin(0.2π) > 0 lifts the left foot: the right one (0.9 + h below the hips) is lower
    assert f["units"] == {"setting": "centimetres", "metres_per_unit": 0.01, "standing_height_m": pytest.approx(0.9 + 0.05 * np.sin(2 * np.pi * 0.1), abs=1e-6), "note": None}
    # the same file read as metres: 100 times larger, and the rig's size says so
    (g,) = measure_json(capsys, "measure", path)
    assert g["clips"][0]["lr_amplitude_m"] == pytest.approx(100 * clip["lr_amplitude_m"], rel=1e-9)
    assert g["units"]["standing_height_m"] == pytest.approx(100 * f["units"]["standing_height_m"], rel=1e-9)
    assert g["units"]["note"] == (
        f'hips stand {g["units"]["standing_height_m"]:.1f} m above the feet: a centimetre rig? set [rig] units = "centimetres"'
    )


def test_the_gap_and_the_note_appear_once_per_file(tmp_path, capsys):
    clips = [cm_clip("walk"), cm_clip("walk2", offset=0.25), cm_clip("walk3", offset=0.5)]
    path = write_asset(tmp_path, cm_skeleton(), clips, "cm3.glb")
    rc, out, err = run_cli(capsys, "lint", path, "--format", "json")
    doc = json.loads(out)
    gaps = [g for f in doc["files"] for g in f["coverage_gaps"] if g["check_id"] == "rig-units"]
    assert len(gaps) == 1
    (gap,) = gaps
    assert gap["code"] == "implausible_units" and gap["subjects"] == ["walk"]
    assert gap["message"].startswith('hips stand 90.0 m above the feet: a centimetre rig? set [rig] units = "centimetres"')
    rc, out, err = run_cli(capsys, "measure", path)
    assert rc == 0
    assert out.count("a centimetre rig?") == 1 and '  note: hips stand 90.0 m above the feet' in out
    # with the setting, neither
    cfg = toml(tmp_path, '[rig]\nunits = "centimetres"\n')
    rc, out, err = run_cli(capsys, "--config", cfg, "lint", path, "--format", "json")
    assert not [g for f in json.loads(out)["files"] for g in f["coverage_gaps"] if g["check_id"] == "rig-units"]
    rc, out, err = run_cli(capsys, "--config", cfg, "measure", path)
    assert "note:" not in out


def test_a_metre_rig_under_centimetres_is_caught_too(tmp_path, capsys):
    """The other way round: a metre rig declared centimetres stands 9 mm tall."""
    from transform_builders import skeleton

    path = write_asset(tmp_path, skeleton(), [biped_clip()], "m.glb")
    cfg = toml(tmp_path, '[rig]\nunits = "centimetres"\n')
    (f,) = measure_json(capsys, "--config", cfg, "measure", path)
    assert f["units"]["standing_height_m"] == pytest.approx(0.009, rel=1e-6)
    assert f["units"]["note"] == 'hips stand 9 mm above the feet: a metre rig? set [rig] units = "metres"'


def test_a_file_without_clips_is_judged_on_its_rest_pose(tmp_path, capsys):
    path = write_asset(tmp_path, cm_skeleton(), [], "rest.glb")
    rc, out, err = run_cli(capsys, "lint", path, "--format", "json")
    gaps = [g for f in json.loads(out)["files"] for g in f["coverage_gaps"] if g["check_id"] == "rig-units"]
    assert len(gaps) == 1 and gaps[0]["subjects"] == [] and "hips stand 90.0 m" in gaps[0]["message"]


def test_lazy_and_full_grids_agree_in_metres():
    from animsmith.core.pose import pose_grid, sample_pose

    sk = cm_skeleton().in_units(0.01)
    clip = cm_clip(root_speed_mps=1.0)
    lazy = pose_grid(sk, clip)
    full = sample_pose(sk, clip, lazy.times_s)
    part = lazy.model_positions_m([2, 3])
    assert np.array_equal(part, full.model_position_m[:, [2, 3]])
    # hand-computed: the left foot at t = 0 is (0.1, 1 − 0.9 + h(0), 0) m with h(0) = 0
    assert full.model_position_m[0, 2] == pytest.approx([0.1, 0.1, 0.0], abs=1e-7)
    assert np.allclose(full.model_matrix[..., :3, 3], full.model_position_m)


# --------------------------------------------------------------------------
# The Khronos Fox (a centimetre-scale rig)
# --------------------------------------------------------------------------

FOX = "/work/shared/corpus/khr_Fox.glb"


@pytest.mark.skipif(not os.path.exists(FOX), reason="the Khronos Fox is not in this checkout's shared corpus")
def test_fox_in_centimetres_is_plausible_and_in_metres_is_flagged_once(tmp_path, capsys):
    (plain,) = measure_json(capsys, "measure", FOX)
    assert plain["units"]["standing_height_m"] > 5.0
    assert plain["units"]["note"].endswith('a centimetre rig? set [rig] units = "centimetres"')
    cfg = toml(tmp_path, '[rig]\nunits = "centimetres"\n')
    (cm,) = measure_json(capsys, "--config", cfg, "measure", FOX)
    assert cm["units"]["note"] is None
    assert 0.05 < cm["units"]["standing_height_m"] < 1.0  # a fox's hips, in metres
    assert cm["units"]["standing_height_m"] == pytest.approx(plain["units"]["standing_height_m"] / 100, rel=1e-12)
    for a, b in zip(plain["clips"], cm["clips"]):
        if a["lr_amplitude_m"] is not None:
            assert b["lr_amplitude_m"] == pytest.approx(a["lr_amplitude_m"] / 100, rel=1e-9)
            assert b["lr_amplitude_m"] < 0.5  # a fox's feet part by decimetres, not metres
    rc, out, err = run_cli(capsys, "lint", FOX, "--format", "json")
    gaps = [g for f in json.loads(out)["files"] for g in f["coverage_gaps"] if g["check_id"] == "rig-units"]
    assert len(gaps) == 1
    rc, out, err = run_cli(capsys, "--config", cfg, "lint", FOX, "--format", "json")
    assert not [g for f in json.loads(out)["files"] for g in f["coverage_gaps"] if g["check_id"] == "rig-units"]


# --------------------------------------------------------------------------
# Transforms judge in metres and write the file's own units
# --------------------------------------------------------------------------


def test_gait_anchor_judges_in_metres_and_writes_centimetres(tmp_path, capsys):
    """A root that drifts 0.5 units (5 mm in centimetres, 0.5 m as metres) sideways: refused
    horizontal_drift as metres, published under units = "centimetres"; the written keys are the
    input's own centimetre values, rotated (a permutation of the input floats per channel)."""
    root = np.zeros((31, 3))
    root[:, 0] = np.linspace(0.0, 0.5, 31)
    clip = cm_clip(offset=0.3)
    clip.channels.append(Channel.make(0, "translation", frame_times(31, 30.0), root))
    path = write_asset(tmp_path, cm_skeleton(), [clip], "cm_walk.glb")
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor")
    assert rc == 1 and "refused [horizontal_drift]" in err and not out.exists()
    cfg = toml(tmp_path, '[rig]\nunits = "centimetres"\n')
    rc, stdout, err = run_cli(capsys, "--config", cfg, "transform", path, "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0, err
    (c,) = json.loads(stdout)["clips"]
    assert c["horizontal_drift_m"] == pytest.approx(0.005, rel=1e-5)
    from animsmith.io.gltf import load_asset

    before, after = load_asset(path), load_asset(str(out))
    for a, b in zip(before.clips[0].channels, after.clips[0].channels):
        if a.path == "translation" and a.bone in (2, 3):  # the feet, in centimetres
            va, vb = np.asarray(a.values), np.asarray(b.values)
            assert float(np.abs(vb).max()) > 50.0  # still centimetres (a foot 90 units below the hips)
            assert sorted(map(bytes, va[:-1])) == sorted(map(bytes, vb[:-1]))  # the same floats, rotated
    assert before.skeleton.rest_translation.tolist() == after.skeleton.rest_translation.tolist()


def test_a_small_creature_in_metres_is_not_a_units_mistake(tmp_path, capsys):
    """The simulator's beetle stands 34 mm (its body 34 mm above its feet, docs/sim.md): in metres,
    glTF's own unit, that is a small creature and no larger unit exists to suggest."""
    path = str(tmp_path / "beetle.glb")
    rc, _, err = run_cli(capsys, "sim", "bake", "beetle", "-o", path)
    assert rc == 0, err
    cfg = toml(tmp_path, '[rig.roles]\nhips = "body"\nleft_foot = "l1_foot"\nright_foot = "r1_foot"\n')
    (f,) = measure_json(capsys, "--config", cfg, "measure", path)
    assert 0.01 < f["units"]["standing_height_m"] < 0.05 and f["units"]["note"] is None
    rc, out, err = run_cli(capsys, "--config", cfg, "lint", path, "--format", "json")
    assert not [g for f in json.loads(out)["files"] for g in f["coverage_gaps"] if g["check_id"] == "rig-units"]
