"""The seed's run ring and the `animsmith sim` command group."""

import json
import os

import numpy as np
import pytest

from animsmith.sim.ring import ring_asset

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RING_GLB = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
RING_CONFIG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")

SEED_TRANSCRIPT = """examples/assets/run-ring.glb:
  error[gait-group]: gait group 'run-ring': stride-anchor phases spread by 0.20 cycle (cap 0.15) — directional blends between these clips will skate or pop. Measured: [run_forward=0.75, run_backward=0.75, run_left=0.50, run_right=0.75] (measured 0.1988, expected 0.1500)
  coverage[bind-pose] insufficient_rotation_evidence ×4 (scopes: first_frame_rest_delta; subjects: run_backward, run_forward, run_left, run_right): only 0 usable first-frame rotation track(s); at least three are required
1 error(s), 0 warning(s), 0 note(s), 4 coverage gap(s), 0 available prediction facet(s), 0 required-unavailable prediction facet(s)
"""


def run_cli(args, capsys):
    from animsmith.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_ring_regenerates_identical_bytes(tmp_path, capsys):
    out = tmp_path / "run-ring.glb"
    code, _, _ = run_cli(["sim", "ring", "-o", str(out)], capsys)
    assert code == 0
    with open(RING_GLB, "rb") as fh:
        committed = fh.read()
    assert out.read_bytes() == committed


def test_ring_anchors_through_the_core():
    from animsmith.core.circular import circular_spread_cycles
    from animsmith.core.gait import gait_metrics
    from animsmith.core.pose import pose_grid
    from animsmith.core.roles import resolve_roles
    from animsmith.io.gltf import load_asset

    asset = load_asset(RING_GLB)
    roles = resolve_roles(asset.skeleton)
    phases = {c.name: gait_metrics(pose_grid(asset.skeleton, c), roles).gait_phase for c in asset.clips}
    # by construction (animsmith/sim/ring.py): right foot's swing apex at 3/4 of the clip,
    # a quarter-cycle later entry for run_left
    assert phases == pytest.approx({"run_forward": 0.75, "run_backward": 0.75, "run_left": 0.5, "run_right": 0.75}, abs=1e-6)
    # circular mean of (0.75, 0.75, 0.5, 0.75) is atan2(-3, -1)/2π mod 1; spread = its distance to 0.5
    mean = (np.arctan2(-3.0, -1.0) / (2 * np.pi)) % 1.0
    assert circular_spread_cycles(phases.values()) == pytest.approx(mean - 0.5, abs=1e-6)
    assert f"{mean - 0.5:.4f}" == "0.1988"


def test_ring_trips_no_other_check():
    asset = ring_asset()
    ends = set()
    for clip in asset.clips:
        assert all(ch.path == "translation" for ch in clip.channels)  # no rotation evidence
        for ch in clip.channels:
            assert np.all(np.diff(ch.times) > 0)
            assert np.all(np.isfinite(ch.values))
            assert np.ptp(ch.values, axis=0).max() > 1e-3  # never a constant track
            ends.add(float(ch.times[-1]))
        # inclusive cycle: the last key repeats the first pose
        for ch in clip.channels:
            assert np.array_equal(ch.values[0], ch.values[-1])
    assert len(ends) == 1


def test_ring_lints_to_the_seed_transcript(capsys, monkeypatch):
    pytest.importorskip("animsmith.commands.lint")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    code, out, _ = run_cli(["--config", "examples/run-ring.animsmith.toml", "lint", "examples/assets/run-ring.glb"], capsys)
    assert out == SEED_TRANSCRIPT
    assert code == 1


def test_sim_validate_json_shape(capsys):
    code, out, _ = run_cli(["sim", "validate", "fox", "--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["schema_version"] == 1 and doc["command"] == "sim validate"
    fox = doc["creatures"][0]
    assert fox["name"] == "fox"
    assert set(fox["walk_test"]) >= {"foot_slide_mm", "cycles", "samples_per_cycle", "passed"}
    assert fox["walk_test"]["passed"] is True
    assert [t["terrain"] for t in fox["terrain_tests"]] == ["flat", "slope", "steps", "rough"]
    validate_against_schema(doc)


def validate_against_schema(doc):
    import jsonschema

    with open(os.path.join(ROOT, "docs", "schema", "sim-validate.schema.json"), encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.validate(doc, schema)


def test_sim_validate_fails_with_exit_1_naming_leg_and_time(capsys, tmp_path):
    # a creature whose hind legs cannot reach the ground at mid-stance: the feet drag
    bad = tmp_path / "stilt.toml"
    bad.write_text(
        """stride = 0.3
duty = 0.6
lift = 0.02
clip_speed = 0.5
body_height = 0.3
[[legs]]
name = "short"
side = "L"
phase = 0.0
knee = "back"
segments = [0.12, 0.12]
home = [0.05, 0.0, 0.0]
[[legs]]
name = "long"
side = "R"
phase = 0.5
knee = "back"
segments = [0.2, 0.2]
home = [-0.05, 0.0, 0.0]
"""
    )
    code, out, _ = run_cli(["sim", "validate", str(bad)], capsys)
    assert code == 1
    code, js, _ = run_cli(["sim", "validate", str(bad), "--format", "json"], capsys)
    assert code == 1
    doc = json.loads(js)
    validate_against_schema(doc)
    assert doc["passed"] is False and doc["creatures"][0]["failures"][0]["leg"] == "short"
    assert "error: stilt: walk_test: leg short stance foot moved" in out
    assert "@" in out and "(limit 1 mm)" in out
    # the cause: the short leg (reach 0.24 m) hangs from 0.3 m and its foot swings 0.15 m
    # either side of the hip at the ends of a stance, sqrt(0.3² + 0.15²) = 0.3354 m away: it
    # falls 0.3354 − (0.24 − 1e-4) = 95.5 mm short (the IK's reach margin is 1e-4 m)
    (cause,) = [line for line in out.splitlines() if line.startswith("  cause: ")]
    expect_mm = (np.hypot(0.3, 0.15) - (0.24 - 1e-4)) * 1e3
    walk_mm = float(cause.split("walk_test ")[1].split(" mm")[0])
    assert walk_mm == pytest.approx(expect_mm, abs=0.5)
    assert doc["creatures"][0]["walk_test"]["shortfall_mm"] == pytest.approx(walk_mm, abs=1e-3)
    assert "out of reach" in cause and "lengthen the leg segments or lower body_height" in cause
    code, out, _ = run_cli(["sim", "validate", "fox"], capsys)
    assert code == 0 and "cause:" not in out


def test_sim_catalog_lists_foot_slide(capsys):
    code, out, _ = run_cli(["sim", "catalog", "--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    names = [c["name"] for c in doc["creatures"]]
    assert names == ["biped", "fox", "trotter", "beetle", "spider"]
    assert all(c["walk_test"]["foot_slide_mm"] < 1.0 for c in doc["creatures"])


def test_sim_bake_cli_and_operator_errors(tmp_path, capsys):
    from animsmith.io.gltf import load_asset

    out = tmp_path / "fox.glb"
    code, text, _ = run_cli(["sim", "bake", "fox", "-o", str(out), "--terrain", "slope", "--cycles", "2", "--fps", "60"], capsys)
    assert code == 0 and out.exists()
    asset = load_asset(str(out))
    clip = asset.clips[0]
    assert clip.name == "walk_slope"
    # two cycles of the fox at 0.375 m/s = 2 · (0.15/0.7)/0.375 s
    assert clip.duration_s == pytest.approx(2 * (0.15 / 0.7) / 0.375, rel=1e-6)
    code, _, err = run_cli(["sim", "bake", "unicorn", "-o", str(tmp_path / "u.glb")], capsys)
    assert code == 2 and "unknown creature 'unicorn'" in err
    code, _, _ = run_cli(["sim", "bake", "fox", "-o", str(tmp_path / "x.glb"), "--fps", "0"], capsys)
    assert code == 2
    code, _, err = run_cli(["sim", "bake", "fox", "-o", str(tmp_path / "missing" / "x.glb")], capsys)
    assert code == 2 and "cannot write output" in err


@pytest.mark.parametrize("fps", [24, 30, 60])
def test_baked_walk_gait_anchors_and_stays_a_closed_loop(tmp_path, capsys, fps):
    """The simulator's own walk (a duplicated endpoint whose closing rotation keys differ from
    key 0 by a float32 ulp or two) is gait-anchored: its unique frames rotate, the last key
    becomes an exact copy of the first, the anchor lands within half a frame of 0 and `measure`
    still reads a duplicated endpoint (it was rotated as an open loop, a pose held mid-clip;
    then refused as an inexact endpoint)."""
    from animsmith.io.gltf import load_asset

    src, out = str(tmp_path / "walk.glb"), str(tmp_path / "anchored.glb")
    rc, _, err = run_cli(["sim", "bake", "biped", "-o", src, "--fps", str(fps)], capsys)
    assert rc == 0, err
    rc, stdout, err = run_cli(["transform", src, "-o", out, "--gait-anchor", "--fps", str(fps), "--format", "json"], capsys)
    assert rc == 0, err
    (c,) = json.loads(stdout)["clips"]
    frames = c["frames"]
    assert c["endpoint"] == "duplicated_endpoint" and c["period_frames"] == frames - 1
    assert min(c["phase_after"], 1 - c["phase_after"]) * (frames - 1) <= 0.5 + 1e-6
    for ch in load_asset(out).clips[0].channels:
        assert ch.values[-1].tobytes() == ch.values[0].tobytes()
    rc, stdout, _ = run_cli(["measure", out, "--format", "json"], capsys)
    assert json.loads(stdout)["files"][0]["clips"][0]["loop_endpoint_mode"] == "duplicated_endpoint"


def test_a_constant_pitch_is_one_key_and_the_pose_keeps_it(tmp_path, capsys):
    """The fox on the 8° slope holds a constant chassis pitch (the plane through its planted feet),
    which float noise (~3e-8) used to keep as an 18-key "moving" track that `constant-track` flagged.
    It is one key now: the pose still pitches ~8° nose-up, and the file lints clean with the
    documented fox roles."""
    from animsmith.core.pose import sample_pose
    from animsmith.io.gltf import load_asset

    out = tmp_path / "fox-slope.glb"
    code, _, err = run_cli(["sim", "bake", "fox", "-o", str(out), "--terrain", "slope"], capsys)
    assert code == 0, err
    asset = load_asset(str(out))
    clip = asset.clips[0]
    body = list(asset.skeleton.names).index("body")
    (rot,) = [ch for ch in clip.channels if ch.bone == body and ch.path == "rotation"]
    assert rot.key_count == 1
    pose = sample_pose(asset.skeleton, clip, [0.0, float(clip.duration_s) / 2])
    x, y, z, w = pose.model_rotation[1, body]
    nose = np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])  # rotated +Z
    assert np.degrees(np.arctan2(nose[1], nose[2])) == pytest.approx(8.0, abs=0.5)
    cfg = tmp_path / "fox.toml"
    cfg.write_text('[rig.roles]\nhips = "body"\nleft_foot = "leg_1_foot"\nright_foot = "leg_3_foot"\n')
    code, text, err = run_cli(["--config", str(cfg), "lint", str(out)], capsys)
    assert code == 0 and "constant-track" not in text, text + err


def test_still_channels_are_one_key_or_none():
    from animsmith.sim.bake import STILL_TOLERANCE, _still_channel

    t = np.arange(5, dtype=np.float32) / 30
    q = np.tile([0.0, 0.0, 0.0, 1.0], (5, 1))
    pitched = np.tile([np.sin(0.07), 0.0, 0.0, np.cos(0.07)], (5, 1))
    noise = np.array([0.0, 3e-8, -2e-8, 0.0, 1e-8])[:, None]
    assert _still_channel(0, "rotation", t, q + noise, [0, 0, 0, 1]) is None  # the rest pose
    assert _still_channel(0, "rotation", t, -q, [0, 0, 0, 1]) is None  # -q is the same rotation
    one = _still_channel(0, "rotation", t, pitched + noise, [0, 0, 0, 1])
    assert one.key_count == 1 and np.allclose(one.values[0], pitched[0], atol=1e-7) and one.times[0] == 0.0
    # a held yaw of −90° against a +90° rest (x, y, z, w = 0, ∓s, 0, c): not the rest pose, although
    # each component alone matches the rest with one sign or the other
    s45 = np.sin(np.pi / 4)
    held = _still_channel(0, "rotation", t, np.tile([0.0, -s45, 0.0, s45], (5, 1)), [0.0, s45, 0.0, s45])
    assert held is not None and held.key_count == 1
    moving = pitched.copy()
    moving[3, 0] += 2 * STILL_TOLERANCE
    assert _still_channel(0, "rotation", t, moving, [0, 0, 0, 1]).key_count == 5


def test_ring_is_a_full_body_biped_on_the_walkers_feet():
    """The shipped ring draws a character: spine, head, arms and knees, every bone moved by translation
    only. Its hips and ankles are exactly the analytic walker's (hip height plus bob, the foot targets),
    each thigh and shin keeps 0.5 m, and the knees bend forward (+Z, the way the character faces)."""
    from animsmith.core.pose import pose_grid
    from animsmith.core.roles import resolve_roles
    from animsmith.io.gltf import load_asset
    from animsmith.sim.ring import HIP_HEIGHT_M, RING, ring_gait
    from animsmith.sim.walker import body_bob_m, foot_targets

    asset = load_asset(RING_GLB)
    names = [n.split(":")[-1] for n in asset.skeleton.names]
    for bone in ("Hips", "Spine", "Spine2", "Neck", "Head", "LeftArm", "LeftForeArm", "LeftHand", "RightHand",
                 "LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot"):
        assert bone in names
    roles = resolve_roles(asset.skeleton)
    assert roles.profile == "mixamo"
    assert {"hips", "spine", "head", "left_foot", "right_foot", "left_hand", "right_hand"} <= set(roles.names)
    gait = ring_gait()
    u = np.arange(31) / 30
    for clip, (name, direction, entry) in zip(asset.clips, RING):
        assert clip.name == name
        assert {ch.path for ch in clip.channels} == {"translation"}
        grid = pose_grid(asset.skeleton, clip)
        assert grid.frame_count == 31
        pos = grid.model_position_m
        at = {n: pos[:, i] for i, n in enumerate(names)}
        distance = (entry + u) * gait.cycle_m
        feet = foot_targets(gait, distance, direction).position_m
        feet[-1] = feet[0]
        hips_y = HIP_HEIGHT_M + body_bob_m(gait, distance)
        hips_y[-1] = hips_y[0]
        np.testing.assert_allclose(at["Hips"][:, 1], hips_y, atol=1e-6)
        np.testing.assert_allclose(at["Hips"][:, [0, 2]], 0.0, atol=1e-6)
        for k, side in enumerate(("Left", "Right")):
            np.testing.assert_allclose(at[f"{side}Foot"], feet[:, k], atol=1e-6)
            hip, knee, ankle = at[f"{side}UpLeg"], at[f"{side}Leg"], at[f"{side}Foot"]
            np.testing.assert_allclose(np.linalg.norm(knee - hip, axis=1), 0.5, atol=1e-6)
            np.testing.assert_allclose(np.linalg.norm(ankle - knee, axis=1), 0.5, atol=1e-6)
            assert np.all(knee[:, 2] > (hip[:, 2] + ankle[:, 2]) / 2 + 0.02)  # bent forward
            assert np.ptp(at[f"{side}Hand"][:, 2]) > 0.2  # the arms swing
        assert at["Head"][:, 1].min() > at["Spine2"][:, 1].max() > at["Hips"][:, 1].max()
