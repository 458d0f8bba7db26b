"""Analytic in-place biped clips on a whole-frame grid for the transform tests.

Rig (node index = bone index, parents first):
    0 root (0,0,0) -> 1 Hips (0,1,0) -> 2 LeftFoot (0.1,-0.9,0), 3 RightFoot (-0.1,-0.9,0)

Feet move by local translation: h_L(k) = A·sin(2π(k/P + offset)), h_R = −h_L,
with P = period_frames (default E − 1, an inclusive cycle). The L−R signal is
2A·sin(2π(k/P + offset)), so the core's stride anchor (trough of the first
harmonic) is (0.75 − offset) mod 1 and the L−R amplitude is 4A.

Key times are exactly f32(k / fps), k = 0..E−1; duration = f32((E−1)/fps).
This module holds helpers only (no tests).
"""

from __future__ import annotations

import math
import os
import sys
from typing import List, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from animsmith.model import Asset, Channel, Clip, Skeleton  # noqa: E402

NAMES = ["root", "Hips", "LeftFoot", "RightFoot"]
REST_T = [[0, 0, 0], [0, 1.0, 0], [0.1, -0.9, 0], [-0.1, -0.9, 0]]


def skeleton(names=None) -> Skeleton:
    return Skeleton.build(list(names or NAMES), [-1, 0, 1, 1], REST_T)


def frame_times(frames: int = 31, fps: float = 30.0) -> np.ndarray:
    return (np.arange(frames, dtype=np.float64) / fps).astype(np.float32)


def yaw_quats(angles_rad) -> np.ndarray:
    """Rotations about +Y by ``angles_rad`` (x, y, z, w)."""
    a = np.asarray(angles_rad, dtype=np.float64)
    return np.stack([np.zeros_like(a), np.sin(a / 2), np.zeros_like(a), np.cos(a / 2)], axis=-1)


def x_quat(angle_rad: float) -> np.ndarray:
    return np.array([math.sin(angle_rad / 2), 0.0, 0.0, math.cos(angle_rad / 2)])


def feet_values(frames: int, amp_m: float, offset: float, period_frames: Optional[float] = None):
    p = float(frames - 1 if period_frames is None else period_frames)
    k = np.arange(frames, dtype=np.float64)
    h = amp_m * np.sin(2 * np.pi * (k / p + offset))
    lf = np.stack([np.full(frames, 0.1), -0.9 + h, np.zeros(frames)], axis=1)
    rf = np.stack([np.full(frames, -0.1), -0.9 - h, np.zeros(frames)], axis=1)
    return lf, rf


def biped_clip(
    name: str = "walk",
    *,
    frames: int = 31,
    fps: float = 30.0,
    amp_m: float = 0.05,
    offset: float = 0.0,
    period_frames: Optional[float] = None,
    root_translation=None,
    root_rotation=None,
    hips_rotation=None,
    extra: Optional[List[Channel]] = None,
) -> Clip:
    """Feet channels (+ optional root T/R and hips R, each (E, ·)) on the exact frame grid."""
    t = frame_times(frames, fps)
    lf, rf = feet_values(frames, amp_m, offset, period_frames)
    chans = [Channel.make(2, "translation", t, lf), Channel.make(3, "translation", t, rf)]
    if root_translation is not None:
        chans.append(Channel.make(0, "translation", t, root_translation))
    if root_rotation is not None:
        chans.append(Channel.make(0, "rotation", t, root_rotation))
    if hips_rotation is not None:
        chans.append(Channel.make(1, "rotation", t, hips_rotation))
    chans.extend(extra or [])
    return Clip(name=name, channels=chans)


def asset_of(*clips: Clip, names=None) -> Asset:
    for i, c in enumerate(clips):
        c.index = i
    return Asset(skeleton=skeleton(names), clips=list(clips))


def write(tmp_path, *clips: Clip, name: str = "in.glb", names=None) -> str:
    from animsmith.io.write import write_glb

    path = str(tmp_path / name)
    write_glb(asset_of(*clips, names=names), path)
    return path


def drift_root(frames: int, total_m: float, axis: int = 0) -> np.ndarray:
    """Root translation moving linearly to ``total_m`` along ``axis`` at the last key."""
    v = np.zeros((frames, 3))
    v[:, axis] = np.linspace(0.0, total_m, frames)
    return v


def run_cli(capsys, *argv):
    """(exit code, stdout, stderr) of ``animsmith`` run in-process through its real entry point (cwd: an empty folder)."""
    import tempfile

    from animsmith.cli import main

    capsys.readouterr()
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as empty:  # no stray ./animsmith.toml is picked up
        os.chdir(empty)
        try:
            main(list(argv))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        finally:
            os.chdir(here)
    out = capsys.readouterr()
    return code, out.out, out.err


def roles_of(asset):
    from animsmith.core.roles import resolve_roles

    return resolve_roles(asset.skeleton)


def anchor_of_file(path: str, clip_name: str, fps: float = 30.0):
    """Stride anchor of a clip in a file, measured by the core on the clip's frame grid."""
    from animsmith.core.gait import gait_metrics
    from animsmith.core.pose import sample_pose
    from animsmith.io.gltf import load_asset

    asset = load_asset(path)
    clip = asset.clip(clip_name)
    frames = int(round(clip.duration_s * fps)) + 1
    grid = sample_pose(asset.skeleton, clip, frame_times(frames, fps).astype(np.float64))
    return gait_metrics(grid, roles_of(asset)), frames
