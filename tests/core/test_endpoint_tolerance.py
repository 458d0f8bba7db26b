"""The endpoint tolerance (core.endpoint): "the last key repeats the first" allows float noise,
judged in model space, and nothing more.

Fixture shaped like three.js's Xbot / Soldier exports: an ``Armature`` node (rotated −90° about
X, scaled 0.01) above a centimetre skeleton; every bone has rotation channels that close exactly,
and a few translation channels whose last key differs from the first by 1.5e-5 local units
(1.5e-7 m after the scale). Under R_x(−90°) local (x, y, z) maps to model (x, z, −y), so a foot at
local (±10, 0, −90 + 100·h) cm under the hips at local (0, 0, 100) stands at model
(±0.1, 0.1 + h, 0) m for h in metres: 0.9 − h below the hips at 1 m.
"""

from __future__ import annotations

import json
import math
import os
import subprocess

import numpy as np
import pytest

from animsmith.core.endpoint import POSITION_TOL_M, ROTATION_TOL_DEG, keys_differ, last_key_repeats_first, translation_unit_m
from animsmith.model import Asset, Channel, Clip, Skeleton
from transform_builders import anchor_of_file, frame_times, run_cli

NOISE_UNITS = 1.5e-5  # what the real exports leave on a closing key, in centimetres
NAMES = ["Armature", "Hips", "Spine", "LeftArm", "RightArm", "LeftFoot", "RightFoot"]
PARENTS = [-1, 0, 1, 2, 2, 1, 1]
ARM = math.radians(-90.0) / 2
REST_R = [[math.sin(ARM), 0, 0, math.cos(ARM)]] + [[0, 0, 0, 1]] * 6
REST_S = [[0.01] * 3] + [[1.0] * 3] * 6
REST_T = [[0, 0, 0], [0, 0, 100], [0, 0, 10], [20, 0, 40], [-20, 0, 40], [10, 0, -90], [-10, 0, -90]]


def xbot_skeleton() -> Skeleton:
    return Skeleton.build(NAMES, PARENTS, REST_T, REST_R, REST_S)


def x_quats(angles_rad) -> np.ndarray:
    a = np.asarray(angles_rad, dtype=np.float64)
    return np.stack([np.sin(a / 2), np.zeros_like(a), np.zeros_like(a), np.cos(a / 2)], axis=-1)


def xbot_clip(frames: int = 31, offset: float = 0.3, noise: float = NOISE_UNITS, arm_off_deg: float = 0.0) -> Clip:
    """An in-place walk, duplicated endpoint: the feet bob 5 cm (local Z, centimetres) in antiphase,
    hips / spine / arms swing about X and close exactly; the spine and left-arm translations are
    the rest offset with ``noise`` units added to the last key; the left arm's closing rotation
    key is ``arm_off_deg`` off its first."""
    t = frame_times(frames, 30.0)
    k = np.arange(frames, dtype=np.float64)
    h = 5.0 * np.sin(2 * np.pi * (k / (frames - 1) + offset))
    lf = np.stack([np.full(frames, 10.0), np.zeros(frames), -90.0 + h], axis=1)
    rf = np.stack([np.full(frames, -10.0), np.zeros(frames), -90.0 - h], axis=1)
    swing = np.sin(2 * np.pi * k / (frames - 1))
    arm = np.radians(20.0) * swing
    arm_l = arm.copy()
    arm_l[-1] = arm_l[0] + math.radians(arm_off_deg)
    spine_t = np.tile([0.0, 0.0, 10.0], (frames, 1))
    spine_t[-1, 2] += noise
    arm_t = np.tile([20.0, 0.0, 40.0], (frames, 1))
    arm_t[-1, 0] += noise
    chans = [
        Channel.make(5, "translation", t, lf),
        Channel.make(6, "translation", t, rf),
        Channel.make(1, "rotation", t, x_quats(np.radians(3.0) * swing)),
        Channel.make(2, "rotation", t, x_quats(np.radians(4.0) * swing)),
        Channel.make(3, "rotation", t, x_quats(arm_l)),
        Channel.make(4, "rotation", t, x_quats(-arm)),
        Channel.make(2, "translation", t, spine_t),
        Channel.make(3, "translation", t, arm_t),
    ]
    return Clip(name="walk", channels=chans)


def write_xbot(tmp_path, clip: Clip, name: str = "xbot.glb") -> str:
    from animsmith.io.write import write_glb

    path = str(tmp_path / name)
    write_glb(Asset(skeleton=xbot_skeleton(), clips=[clip]), path)
    return path


# --------------------------------------------------------------------------
# The rule
# --------------------------------------------------------------------------


def test_translation_unit_is_the_parent_scale_in_metres():
    sk = xbot_skeleton()
    assert translation_unit_m(sk, [0, 1, 2, 5]) == pytest.approx([1.0, 0.01, 0.01, 0.01], rel=1e-12)
    assert translation_unit_m(sk.in_units(0.01), [0, 1]) == pytest.approx([0.01, 1e-4], rel=1e-12)


def test_the_tolerance_is_a_tenth_of_a_millimetre_and_a_hundredth_of_a_degree():
    a = np.zeros((4, 3))
    b = np.array([[0.99e-4, 0, 0], [1.01e-4, 0, 0], [0, 0.6e-4, 0.6e-4], [0, 0.8e-4, 0.8e-4]])
    assert keys_differ("translation", a, b).tolist() == [False, True, False, True]
    # in centimetres under a 0.01 scale, 0.0099 units is 0.099 mm, 0.0101 units 0.101 mm
    assert keys_differ("translation", a[:2], [[0.0099, 0, 0], [0.0101, 0, 0]], np.full(2, 0.01)).tolist() == [False, True]
    q0 = x_quats([0.0, 0.0])
    q1 = x_quats(np.radians([0.0099, 0.0101]))
    assert keys_differ("rotation", q0, q1).tolist() == [False, True]
    assert keys_differ("rotation", q0, -q1).tolist() == [False, True]  # −q is the same rotation
    assert POSITION_TOL_M == 1e-4 and ROTATION_TOL_DEG == 0.01
    s0 = np.array([[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]])
    assert keys_differ("scale", s0, s0 + [[1.9e-4, 0, 0], [2.1e-4, 0, 0]]).tolist() == [False, True]
    assert keys_differ("translation", a[:1], [[np.nan, 0, 0]]).tolist() == [True]


def test_a_closing_key_off_by_exporter_noise_repeats_its_first():
    sk = xbot_skeleton()
    clip = xbot_clip()
    spine_t = clip.channels[6]
    assert float(np.max(np.abs(spine_t.values[-1] - spine_t.values[0]))) == pytest.approx(NOISE_UNITS, rel=0.05)
    assert last_key_repeats_first(sk, spine_t)  # 1.5e-7 m in model space
    # the same numbers on a root-level bone in metres are still noise (1.5e-5 m < 0.1 mm)
    assert last_key_repeats_first(None, spine_t)
    # 0.02 units under the 0.01 scale is 0.2 mm: a real difference
    far = xbot_clip(noise=0.02).channels[6]
    assert not last_key_repeats_first(sk, far)


# --------------------------------------------------------------------------
# measure, lint and gait-anchor agree on the file
# --------------------------------------------------------------------------


def test_measure_reads_the_export_as_a_duplicated_endpoint(tmp_path, capsys):
    path = write_xbot(tmp_path, xbot_clip())
    rc, out, err = run_cli(capsys, "measure", path, "--format", "json")
    assert rc == 0, err
    (clip,) = json.loads(out)["files"][0]["clips"]
    assert clip["loop_endpoint_mode"] == "duplicated_endpoint"


def test_gait_anchor_publishes_an_export_with_float_noise_endpoints(tmp_path, capsys):
    """The real-export case: refused ``mixed_endpoint`` when 1.5e-5 local units counted as an
    open loop; now a duplicated endpoint, rotated, valid, its stride anchor at frame 0."""
    path = write_xbot(tmp_path, xbot_clip(offset=0.3))
    before, frames = anchor_of_file(path, "walk")
    period = frames - 1
    assert before.gait_phase == pytest.approx((0.75 - 0.3) % 1.0, abs=0.5 / period)
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0, err
    (c,) = json.loads(stdout)["clips"]
    assert c["endpoint"] == "duplicated_endpoint" and c["period_frames"] == period
    assert c["closing_key_delta"] == pytest.approx(NOISE_UNITS, rel=0.1)  # the noise, in file units
    after, _ = anchor_of_file(str(out), "walk")
    gap = min(after.gait_phase, 1.0 - after.gait_phase)
    assert gap <= 0.5 / period


def test_the_output_passes_the_khronos_validator(tmp_path, capsys, oracles):
    path = write_xbot(tmp_path, xbot_clip(offset=0.3))
    out = tmp_path / "out.glb"
    rc, _, err = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor")
    assert rc == 0, err
    res = subprocess.run(["node", os.path.join(oracles, "validate.mjs"), str(out), "--report", str(out) + ".json"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "errors=0" in res.stdout, res.stdout


@pytest.mark.parametrize("off_deg", [7.0, 0.5])
def test_an_arm_really_off_is_still_refused_mixed_endpoint(tmp_path, capsys, off_deg):
    path = write_xbot(tmp_path, xbot_clip(arm_off_deg=off_deg))
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor")
    assert rc == 1 and stdout == ""
    assert "refused [mixed_endpoint]" in err
    assert "rotation of 'LeftArm'" in err and f"ends {off_deg:.3g} deg from its first key" in err
    assert not out.exists()


def xbot_stepping_clip(name: str, offset: float, frames: int = 31) -> Clip:
    """``xbot_clip`` with half-sine steps (each foot rests on the ground, then lifts 10 cm once a
    cycle: one plant and one lift, the foot-cycle topology) and the same float-noise closing keys."""
    c = xbot_clip(frames=frames, offset=offset)
    k = np.arange(frames, dtype=np.float64)
    u = k / (frames - 1)
    hl = 10.0 * np.maximum(0.0, np.sin(2 * np.pi * (u + offset)))
    hr = 10.0 * np.maximum(0.0, np.sin(2 * np.pi * (u + offset + 0.5)))
    c.channels[0].values = np.stack([np.full(frames, 10.0), np.zeros(frames), -90.0 + hl], axis=1).astype(np.float32)
    c.channels[1].values = np.stack([np.full(frames, -10.0), np.zeros(frames), -90.0 + hr], axis=1).astype(np.float32)
    c.name = name
    return c


def test_foot_cycle_retimes_a_ring_of_exports_with_float_noise_endpoints(tmp_path, capsys):
    """collection transform-foot-cycle proves every member with the gait-anchor proofs, so the
    same endpoint rule applies: these members are duplicated-endpoint loops, not mixed."""
    from animsmith.io.write import write_glb

    clips = [xbot_stepping_clip(n, o) for n, o in (("run_forward", 0.0), ("run_backward", 0.1))]
    for i, c in enumerate(clips):
        c.index = i
    path = str(tmp_path / "ring.glb")
    write_glb(Asset(skeleton=xbot_skeleton(), clips=clips), path)
    cfg = tmp_path / "ring.toml"
    cfg.write_text('[gait_groups.run-ring]\nclips = ["run_forward", "run_backward"]\n')
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                              "--reference", "run_forward", "-o", str(out), path, "--format", "json")
    assert rc == 0, err
    assert "mixed_endpoint" not in stdout
    assert out.exists()
