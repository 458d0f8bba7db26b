"""Metamorphic relations of `measure`'s numbers: transformations of one analytic clip whose
effect on the stride anchor, amplitude, speed and heading is known exactly.

Rig: Armature (the transformed parent) -> root -> Hips -> LeftFoot, RightFoot. Feet move by
local translation h_L = A·sin(2π(k/30 + o)), h_R = −h_L on 31 keys (the last repeats the first),
so the anchor is (0.75 − o) mod 1 and the L−R amplitude 4A (tests/support/transform_builders.py);
the root walks along +Z at v m/s. Every relation compares the measurements of the transformed
file with those of the original, through the real writer and loader.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from transform_builders import frame_times, run_cli, yaw_quats
from animsmith.model import Asset, Channel, Clip, Skeleton

NAMES = ["Armature", "root", "Hips", "LeftFoot", "RightFoot"]
PARENTS = [-1, 0, 1, 2, 2]
REST_T = np.array([[0, 0, 0], [0, 0, 0], [0, 1.0, 0], [0.1, -0.9, 0], [-0.1, -0.9, 0]], dtype=np.float64)
FRAMES, FPS, AMP_M, OFFSET, SPEED_MPS = 31, 30.0, 0.05, 0.1, 1.2


def feet(offset=OFFSET, amp=AMP_M):
    k = np.arange(FRAMES)
    h = amp * np.sin(2 * np.pi * (k / (FRAMES - 1) + offset))
    lf = REST_T[3] + np.stack([0 * h, h, 0 * h], axis=1)
    rf = REST_T[4] + np.stack([0 * h, -h, 0 * h], axis=1)
    return lf, rf


def root_path(speed=SPEED_MPS):
    z = speed * frame_times(FRAMES, FPS).astype(np.float64)
    return np.stack([0 * z, 0 * z, z], axis=1)


def asset(lf, rf, root, *, unit=1.0, arm_t=(0, 0, 0), arm_r=(0, 0, 0, 1), arm_s=1.0, left=3, right=4, order=None):
    """The rig and one clip; ``unit`` scales every translation (rest and keys), ``arm_*`` is
    the Armature's rest TRS, ``left``/``right`` the bones the two feet channels drive, and
    ``order`` (E indices) re-orders every channel's keys."""
    rest = REST_T * unit
    rest[0] = arm_t
    rot = np.tile([0.0, 0.0, 0.0, 1.0], (5, 1))
    rot[0] = arm_r
    scale = np.ones((5, 3))
    scale[0] = arm_s
    sk = Skeleton.build(NAMES, PARENTS, rest, rot, scale)
    idx = np.arange(FRAMES) if order is None else np.asarray(order)
    t = frame_times(FRAMES, FPS)
    chans = [
        Channel.make(left, "translation", t, lf[idx] * unit),
        Channel.make(right, "translation", t, rf[idx] * unit),
        Channel.make(1, "translation", t, root[idx] * unit),
    ]
    return Asset(skeleton=sk, clips=[Clip(name="walk", channels=chans)])


def measured(capsys, tmp_path, a, name):
    """The clip's `measure --format json` record, from the file the writer makes of ``a``."""
    from animsmith.io.write import write_glb

    path = str(tmp_path / f"{name}.glb")
    write_glb(a, path)
    rc, stdout, stderr = run_cli(capsys, "measure", path, "--format", "json")
    assert rc == 0, stderr
    (clip,) = json.loads(stdout)["files"][0]["clips"]
    return clip


def cyc(a, b):
    """Circular distance of two phases (cycles)."""
    d = abs(a - b) % 1.0
    return min(d, 1.0 - d)


@pytest.fixture
def base(capsys, tmp_path):
    lf, rf = feet()
    m = measured(capsys, tmp_path, asset(lf, rf, root_path()), "base")
    assert m["gait_phase"] == pytest.approx(0.75 - OFFSET, abs=1e-6)
    lr = 2 * AMP_M * np.sin(2 * np.pi * (np.arange(FRAMES - 1) / (FRAMES - 1) + OFFSET))  # one cycle of L − R
    assert m["lr_amplitude_m"] == pytest.approx(lr.max() - lr.min(), abs=1e-6)
    assert m["speed_mps"] == pytest.approx(SPEED_MPS, rel=1e-6) and m["heading_deg"] == pytest.approx(0.0, abs=1e-6)
    return m


@pytest.mark.parametrize("unit, arm_s", [(100.0, 0.01), (1.0, 2.0)])
def test_scale_of_the_scene(capsys, tmp_path, base, unit, arm_s):
    """A centimetre export (translations x100 under a 0.01 Armature scale) measures the same in
    metres; an Armature scale of 2 doubles amplitude and speed. The anchor never moves."""
    lf, rf = feet()
    m = measured(capsys, tmp_path, asset(lf, rf, root_path(), unit=unit, arm_s=arm_s), "scaled")
    k = unit * arm_s
    assert cyc(m["gait_phase"], base["gait_phase"]) < 1e-6
    assert m["lr_amplitude_m"] == pytest.approx(k * base["lr_amplitude_m"], rel=1e-6)
    assert m["speed_mps"] == pytest.approx(k * base["speed_mps"], rel=1e-6)
    assert m["distance_m"] == pytest.approx(k * base["distance_m"], rel=1e-6)


@pytest.mark.parametrize("yaw_deg", [90.0, -30.0, 180.0])
def test_yaw_of_the_scene(capsys, tmp_path, base, yaw_deg):
    """Turning the whole character about +Y turns its heading by the same angle (+90° takes +Z
    to +X, heading 0 -> 90) and changes nothing else."""
    lf, rf = feet()
    q = yaw_quats(math.radians(yaw_deg))
    m = measured(capsys, tmp_path, asset(lf, rf, root_path(), arm_r=q), "yawed")
    assert cyc(m["gait_phase"], base["gait_phase"]) < 1e-6
    assert m["lr_amplitude_m"] == pytest.approx(base["lr_amplitude_m"], rel=1e-6)
    assert m["speed_mps"] == pytest.approx(base["speed_mps"], rel=1e-6)
    turned = (m["heading_deg"] - base["heading_deg"] - yaw_deg) % 360.0
    assert min(turned, 360.0 - turned) < 1e-4
    assert m["yaw_deg"] == pytest.approx(base["yaw_deg"], abs=1e-6)


def test_translation_of_the_scene(capsys, tmp_path, base):
    lf, rf = feet()
    m = measured(capsys, tmp_path, asset(lf, rf, root_path(), arm_t=(1000.0, 5.0, -300.0)), "moved")
    assert cyc(m["gait_phase"], base["gait_phase"]) < 1e-6
    assert m["lr_amplitude_m"] == pytest.approx(base["lr_amplitude_m"], rel=1e-5)
    assert m["speed_mps"] == pytest.approx(base["speed_mps"], rel=1e-5)


def test_mirror_moves_the_anchor_half_a_cycle(capsys, tmp_path, base):
    """Left and right swapped: the L−R signal changes sign, so its trough moves by half a cycle."""
    lf, rf = feet()
    m = measured(capsys, tmp_path, asset(lf, rf, root_path(), left=4, right=3), "mirrored")
    assert cyc(m["gait_phase"], base["gait_phase"] + 0.5) < 1e-6
    assert m["lr_amplitude_m"] == pytest.approx(base["lr_amplitude_m"], rel=1e-6)


@pytest.mark.parametrize("k", [1, 7, 19])
def test_starting_the_loop_later_moves_the_anchor_earlier(capsys, tmp_path, base, k):
    """The same duplicated-endpoint loop started k frames later (unique frames rotated, the last
    key repeating the new first): the anchor moves by −k/30 cycle, the amplitude stays."""
    lf, rf = feet()
    order = [(i % (FRAMES - 1) + k) % (FRAMES - 1) for i in range(FRAMES)]
    still = np.zeros((FRAMES, 3))
    m = measured(capsys, tmp_path, asset(lf, rf, still, order=order), f"later{k}")
    assert cyc(m["gait_phase"], base["gait_phase"] - k / (FRAMES - 1)) < 1e-6
    assert m["lr_amplitude_m"] == pytest.approx(base["lr_amplitude_m"], rel=1e-6)
    assert m["loop_endpoint_mode"] == "duplicated_endpoint"


def test_playing_backwards_reflects_the_anchor(capsys, tmp_path, base):
    """Keys in reverse order: the L−R signal s(t) becomes s(−t), so the anchor a becomes 1 − a
    (the reflection `time-complement` uses), and the root travels the other way."""
    lf, rf = feet()
    order = list(range(FRAMES - 1, -1, -1))
    m = measured(capsys, tmp_path, asset(lf, rf, root_path(), order=order), "reversed")
    assert cyc(m["gait_phase"], 1.0 - base["gait_phase"]) < 1e-6
    assert m["speed_mps"] == pytest.approx(base["speed_mps"], rel=1e-6)
    assert cyc(m["heading_deg"] / 360.0, (base["heading_deg"] + 180.0) / 360.0) < 1e-6
