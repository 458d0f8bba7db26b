"""foot_skate_ratio and per-foot contact timing in `measure`, on clips whose feet are placed by hand.

Rig: root (0,0,0) -> Hips (0,1,0) -> LeftFoot / RightFoot, each foot's local
translation animated, so a foot's model height is 1 + its local y. Keys at 20 fps over
1 s (21 keys, 20 steps): the resample the ratio uses lands on the keys.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton
from lint_support import run_cli, write_config

FPS = 20
N = 21  # keys over 1 s


def feet_asset(left_xyz, right_xyz, toes=None, name="clip"):
    """One clip; left/right foot MODEL positions (N, 3); toes: optional ((N,), (N,)) toe heights."""
    names = ["root", "Hips", "LeftFoot", "RightFoot"]
    parents = [-1, 0, 1, 1]
    rest = [[0, 0, 0], [0, 1.0, 0], [0.1, -0.9, 0], [-0.1, -0.9, 0]]
    if toes is not None:
        names += ["LeftToeBase", "RightToeBase"]
        parents += [2, 3]
        rest += [[0, 0, 0.15], [0, 0, 0.15]]
    sk = Skeleton.build(names, parents, rest)
    t = np.arange(N) / FPS
    hips = np.array([0.0, 1.0, 0.0])
    chans = [
        Channel.make(2, "translation", t, np.asarray(left_xyz, float) - hips),
        Channel.make(3, "translation", t, np.asarray(right_xyz, float) - hips),
    ]
    if toes is not None:
        for bone, foot, toe_h in ((4, left_xyz, toes[0]), (5, right_xyz, toes[1])):
            rel = np.stack([np.zeros(N), np.asarray(toe_h, float) - np.asarray(foot, float)[:, 1], np.full(N, 0.15)], axis=1)
            chans.append(Channel.make(bone, "translation", t, rel))
    clip = Clip(name=name, channels=chans)
    clip.index = 0
    return Asset(skeleton=sk, clips=[clip])


def foot_track(height, slide_steps=(), step_m=0.0, x=0.1, direction=(0.0, 0.0, 1.0)):
    """(N, 3): a foot at ``height`` that moves ``step_m`` along ``direction`` on each step i -> i+1 in slide_steps."""
    p = np.zeros((N, 3))
    p[:, 0] = x
    p[:, 1] = height
    d = np.asarray(direction, float)
    for i in range(1, N):
        p[i, [0, 2]] = p[i - 1, [0, 2]] + (step_m * d[[0, 2]] if (i - 1) in slide_steps else 0.0)
    return p


def measure(tmp_path, capsys, asset, cfg=None):
    from animsmith.io.write import write_glb

    glb = str(tmp_path / "feet.glb")
    write_glb(asset, glb)
    argv = ["measure", "--format", "json", glb]
    if cfg is not None:
        argv = ["--config", write_config(tmp_path / "animsmith.toml", cfg)] + argv
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    return json.loads(out)["files"][0]["clips"][0]


SLIDING = tuple(range(5, 11))  # 6 of the 20 steps


def test_planted_foot_sliding_3cm_for_6_of_20_frames_is_0_30(tmp_path, capsys):
    left = foot_track(0.0, SLIDING, 0.03)
    right = foot_track(0.30, x=-0.1)  # lifted, never in contact
    c = measure(tmp_path, capsys, feet_asset(left, right))
    assert c["foot_skate_ratio"] == pytest.approx(6 / 20)
    assert c["foot_skate_ground_mps"] == 0.0


def test_either_foot_counts_once_per_frame(tmp_path, capsys):
    # both feet planted; the right skids on 3 of the left's 6 steps and on 2 steps of its own
    left = foot_track(0.0, SLIDING, 0.03)
    right = foot_track(0.0, (8, 9, 10, 15, 16), 0.04, x=-0.1)
    c = measure(tmp_path, capsys, feet_asset(left, right))
    assert c["foot_skate_ratio"] == pytest.approx(8 / 20)


def test_skid_and_height_thresholds(tmp_path, capsys):
    # 2 cm per frame is under the 2.5 cm skid; a foot 6 cm above the ground is not in contact
    right = foot_track(0.0, x=-0.1)
    c = measure(tmp_path, capsys, feet_asset(foot_track(0.0, SLIDING, 0.02), right))
    assert c["foot_skate_ratio"] == 0.0
    c = measure(tmp_path, capsys, feet_asset(foot_track(0.06, SLIDING, 0.03), right))
    assert c["foot_skate_ratio"] == 0.0
    c = measure(tmp_path, capsys, feet_asset(foot_track(0.04, SLIDING, 0.03), right))
    assert c["foot_skate_ratio"] == pytest.approx(0.30)


def test_treadmill_frame_for_an_in_place_clip_with_a_declared_speed(tmp_path, capsys):
    # in place: the planted left foot sweeps back (−Z) 5 cm per frame = 1 m/s on every step
    left = foot_track(0.0, tuple(range(20)), 0.05, direction=(0.0, 0.0, -1.0))
    right = foot_track(0.30, x=-0.1)
    asset = feet_asset(left, right)
    assert measure(tmp_path, capsys, asset)["foot_skate_ratio"] == 1.0  # as it stands: every step skids
    on_pace = measure(tmp_path, capsys, asset, '[clips.clip]\nspeed_mps = 1.0\n')
    assert on_pace["foot_skate_ratio"] == 0.0 and on_pace["foot_skate_ground_mps"] == 1.0
    # a 0.4 m/s treadmill leaves 0.6 m/s = 3 cm per frame of skid on every step
    assert measure(tmp_path, capsys, asset, '[clips.clip]\nspeed_mps = 0.4\n')["foot_skate_ratio"] == 1.0
    # 0.6 m/s leaves 2 cm per frame: no skid
    assert measure(tmp_path, capsys, asset, '[clips.clip]\nspeed_mps = 0.6\n')["foot_skate_ratio"] == 0.0


@pytest.mark.parametrize("mode", ["--root-motion", "--in-place"])
def test_zero_on_the_simulator_flat_bakes(tmp_path, capsys, mode):
    glb = str(tmp_path / "walk.glb")
    code, _, err = run_cli(["sim", "bake", "biped", "-o", glb, mode, "--cycles", "2"], capsys)
    assert code == 0, err
    cfg = write_config(tmp_path / "animsmith.toml", '[clips.walk]\nspeed_mps = 1.2\n')
    code, out, err = run_cli(["--config", cfg, "measure", "--format", "json", glb], capsys)
    c = json.loads(out)["files"][0]["clips"][0]
    assert c["foot_skate_ratio"] == 0.0
    assert c["foot_skate_ground_mps"] == (1.2 if mode == "--in-place" else 0.0)


def test_in_place_gait_without_a_declared_speed_is_unavailable(tmp_path, capsys):
    glb = str(tmp_path / "walk.glb")
    run_cli(["sim", "bake", "biped", "-o", glb, "--in-place"], capsys)
    code, out, err = run_cli(["measure", "--format", "json", glb], capsys)
    c = json.loads(out)["files"][0]["clips"][0]
    assert c["foot_skate_ratio"] is None
    assert "declare [clips.*] speed_mps" in c["foot_skate_ratio_unavailable"]


def test_contact_timing_from_heel_and_toe_heights(tmp_path, capsys):
    # one cycle of 20 samples (+ the wrap duplicate): heel grounded on 16..19, 0..7; toe on 18..19, 0..10
    i = np.arange(N) % 20
    heel = np.where((i <= 7) | (i >= 16), 0.0, 0.10)
    toe = np.where((i <= 10) | (i >= 18), 0.0, 0.08)
    left = foot_track(0.0, x=0.1)
    left[:, 1] = heel
    # the right foot: the same pattern half a cycle later
    j = (np.arange(N) + 10) % 20
    right = foot_track(0.0, x=-0.1)
    right[:, 1] = np.where((j <= 7) | (j >= 16), 0.0, 0.10)
    rtoe = np.where((j <= 10) | (j >= 18), 0.0, 0.08)
    c = measure(tmp_path, capsys, feet_asset(left, right, toes=(toe, rtoe)))
    fc = c["foot_contacts"]
    assert fc["left"]["heel_bone"] == "LeftFoot" and fc["left"]["toe_bone"] == "LeftToeBase"
    # heel leaves after sample 7 (lift), toe after 10 (lift-off); heel back at 16 (strike), toe at 18 (landing)
    assert fc["left"]["lift_s"] == pytest.approx(7 / 20)
    assert fc["left"]["liftoff_s"] == pytest.approx(10 / 20)
    assert fc["left"]["strike_s"] == pytest.approx(16 / 20)
    assert fc["left"]["landing_s"] == pytest.approx(18 / 20)
    # right: sample k of the left pattern is sample k − 10 (mod 20)
    assert fc["right"]["lift_s"] == pytest.approx(17 / 20)
    assert fc["right"]["liftoff_s"] == pytest.approx(0 / 20)
    assert fc["right"]["strike_s"] == pytest.approx(6 / 20)
    assert fc["right"]["landing_s"] == pytest.approx(8 / 20)


def test_contact_timing_with_heel_only_has_equal_pairs(tmp_path, capsys):
    i = np.arange(N) % 20
    left = foot_track(0.0)
    left[:, 1] = np.where(i <= 9, 0.0, 0.1)
    right = foot_track(0.0, x=-0.1)
    right[:, 1] = np.where(i <= 9, 0.1, 0.0)
    c = measure(tmp_path, capsys, feet_asset(left, right))
    left_c = c["foot_contacts"]["left"]
    assert left_c["toe_bone"] is None
    assert left_c["lift_s"] == left_c["liftoff_s"] == pytest.approx(9 / 20)
    assert left_c["strike_s"] == left_c["landing_s"] == pytest.approx(0.0)
    assert c["foot_contacts"]["right"]["strike_s"] == pytest.approx(10 / 20)


def two_key_asset(duration_s):
    """Feet planted and still on a clip of two keys, 0 and ``duration_s``."""
    names = ["root", "Hips", "LeftFoot", "RightFoot"]
    sk = Skeleton.build(names, [-1, 0, 1, 1], [[0, 0, 0], [0, 1.0, 0], [0.1, -0.98, 0], [-0.1, -0.98, 0]])
    t = np.array([0.0, duration_s])
    chans = [Channel.make(b, "translation", t, np.tile(off, (2, 1))) for b, off in ((2, [0.1, -0.98, 0]), (3, [-0.1, -0.98, 0]))]
    clip = Clip(name="take", channels=chans)
    clip.index = 0
    return Asset(skeleton=sk, clips=[clip])


def test_a_long_take_is_measured_and_an_absurd_duration_is_refused_quickly(tmp_path, capsys):
    from animsmith.core.footskate import SKATE_MAX_SAMPLES, SKATE_FPS

    # 20 minutes: 24,001 samples at 20 fps, feet still -> no skid
    assert measure(tmp_path, capsys, two_key_asset(1200.0))["foot_skate_ratio"] == 0.0
    # a key at 10^6 s (a units mistake) would be 2*10^7 samples: refused with the reason, not sampled
    c = measure(tmp_path, capsys, two_key_asset(1.0e6))
    assert c["foot_skate_ratio"] is None
    assert SKATE_MAX_SAMPLES / SKATE_FPS == 1800.0
    assert "longer than 30 minutes" in c["foot_skate_ratio_unavailable"]


def _stretched(asset, factor):
    """The asset's clip with every key time multiplied by ``factor`` (same keys, longer clip)."""
    for ch in asset.clips[0].channels:
        ch.times = (np.asarray(ch.times, np.float64) * factor).astype(np.float32)
    return asset


def test_a_clip_far_longer_than_its_keys_is_not_resampled_at_20_fps(tmp_path, capsys):
    """21 keys stretched over 40 s (801 frames at 20 fps) are measured — a 3 cm slide spread
    over 2 s per key step moves 0.75 mm a frame, no skid, ratio 0 — and over 3 hours (past
    the 30-minute limit of the 20 fps resampling) the ratio is unavailable with the reason."""
    slide = foot_track(0.0, SLIDING, 0.03)
    lifted = foot_track(0.30, x=-0.1)
    c = measure(tmp_path, capsys, _stretched(feet_asset(slide, lifted), 40.0))
    assert c["duration_s"] == pytest.approx(40.0) and c["foot_skate_ratio"] == 0.0
    c = measure(tmp_path, capsys, _stretched(feet_asset(slide, lifted), 10800.0))
    assert c["foot_skate_ratio"] is None
    assert c["foot_skate_ratio_unavailable"] == (
        "clip lasts 10800 s, longer than 30 minutes at 20 fps (are its key times in seconds?)"
    )
