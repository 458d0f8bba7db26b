"""Print pose_grid throughput (clips/s) on a synthetic Mixamo-class clip.

65 bones (an Armature node scaled 0.01 over a 64-joint tree of depth ~10),
45 keys at 30 fps (1.5 s), LINEAR translation on the hips, LINEAR rotation on
every joint (smooth 5-45 deg swings) and LINEAR scale on 64 joints (~130 channels), each channel with its
own key-time array (equal bytes), as Blender exports do. Print-only, not a test.
Usage: python benchmarks/bench_pose.py [--seconds S]

``pose_grid`` is lazy (a check asks for the bones it needs); this times the whole
grid: every bone's local pose and model matrix (``model_matrix``), as the report
and ``loop-closure`` use it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from animsmith.core.pose import pose_grid
from animsmith.model import Channel, Clip, Skeleton


def synthetic_rig(bones: int = 65, seed: int = 0) -> Skeleton:
    rng = np.random.default_rng(seed)
    parents = [-1, 0]
    depth = [0, 1]
    for b in range(2, bones):
        cands = [i for i in range(1, b) if depth[i] < 10]
        p = cands[-1] if rng.random() < 0.6 else int(rng.choice(cands))
        parents.append(p)
        depth.append(depth[p] + 1)
    t = rng.normal(0, 10, (bones, 3))
    s = np.ones((bones, 3))
    s[0] = 0.01
    return Skeleton.build([f"b{i}" for i in range(bones)], parents, t, None, s)


def synthetic_clip(sk: Skeleton, keys: int = 45, fps: float = 30.0, seed: int = 1) -> Clip:
    rng = np.random.default_rng(seed)
    times = np.arange(keys) / fps
    chans = [Channel.make(1, "translation", times.copy(), rng.normal(0, 1, (keys, 3)))]
    for b in range(1, sk.bone_count):
        # smooth motion like mocap: 5-45 deg swings at 1 Hz about a random axis
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        half = np.radians(rng.uniform(5, 45)) * np.sin(2 * np.pi * times + rng.uniform(0, 6.3)) / 2
        q = np.concatenate([np.sin(half)[:, None] * axis, np.cos(half)[:, None]], axis=1)
        chans.append(Channel.make(b, "rotation", times.copy(), q))
        chans.append(Channel.make(b, "scale", times.copy(), np.ones((keys, 3))))
    return Clip(name="bench", channels=chans)


def main() -> None:
    ap = argparse.ArgumentParser(description="pose_grid throughput (clips/s) on a synthetic 65-bone clip")
    ap.add_argument("--seconds", type=float, default=2.0, help="how long to run (default 2)")
    seconds = ap.parse_args().seconds
    if not seconds > 0:  # also NaN
        ap.error("--seconds must be a positive number")
    sk = synthetic_rig()
    clip = synthetic_clip(sk)
    pose_grid(sk, clip).model_matrix
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        pose_grid(sk, clip).model_matrix  # the full grid (pose_grid itself is lazy)
        n += 1
    elapsed = time.perf_counter() - start
    print(
        f"pose_grid: {n / elapsed:.0f} clips/s ({1e3 * elapsed / n:.3f} ms/clip; "
        f"{sk.bone_count} bones, {len(clip.channels)} channels, {clip.max_key_count} frames)"
    )


if __name__ == "__main__":
    main()
