"""Would computing loop continuity for many clips per numpy call pay? Seam poses by batch size.

    python benchmarks/bench_seam_batch.py [--files 64] [--pack DIR] [--repeats 5]

``lint --format json`` measures each clip's loop continuity from every bone's model pose
at the four seam samples (0, 1, N-2, N-1). The local poses are sampled clip by clip; the
forward kinematics of all bones and the wrap arithmetic then run for several clips in
one call (``core.pose.batch_pose_at`` batches a file's clips today). This script takes
the per-channel pack of ``bench_shapes.py`` (built with ``benchmarks/pack.py`` when
``--pack`` has none), samples every clip's seam poses once, and times forward
kinematics plus ``core.seam.closed_loop_continuity_many`` with 1, 4, 16, 64 and 256
clips per call (best of ``--repeats``), printed as milliseconds per clip. If larger
batches than one file's clips cut the per-clip time by much, a chunk-wide batch would
pay; if not, the arithmetic itself, not the number of numpy calls, is what costs.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from animsmith.checks import load_contract  # noqa: E402
from animsmith.core.analysis import ClipAnalysis  # noqa: E402
from animsmith.core.fk import fk_bone_major  # noqa: E402
from animsmith.core.localpose import local_pose_and_animated  # noqa: E402
from animsmith.core.seam import closed_loop_continuity_many, seam_sample_frames  # noqa: E402
from animsmith.io.gltf import load_asset  # noqa: E402
from animsmith.lint.engine import rig_in_metres  # noqa: E402

BATCHES = (1, 4, 16, 64, 256)


def seam_samples(paths, contract):
    """[(skeleton, grid times, local t, r, s, animated mask)] of every clip at its seam samples."""
    out = []
    for path in paths:
        asset, roles = rig_in_metres(load_asset(path, strict=False), contract)
        for clip in asset.clips:
            grid = ClipAnalysis(asset, clip, roles).loop_grid
            times = grid.times_s[np.asarray(seam_sample_frames(grid.frame_count))]
            t, r, s, animated = local_pose_and_animated(asset.skeleton, clip, times)
            out.append((asset.skeleton, grid.times_s, t, r, s, animated))
    return out


def continuity_ms_per_clip(samples, batch: int, repeats: int) -> float:
    """Best of ``repeats``: ms per clip of FK + wrap arithmetic, ``batch`` clips per call."""
    skeleton = samples[0][0]
    fixed = np.asarray(skeleton.has_matrix, dtype=bool) & ~samples[0][5]
    bones = skeleton.bone_count
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for lo in range(0, len(samples), batch):
            part = samples[lo:lo + batch]
            model, rotation = fk_bone_major(
                skeleton,
                np.concatenate([p[2] for p in part]),
                np.concatenate([p[3] for p in part]),
                np.concatenate([p[4] for p in part]),
                fixed,
                unit=True,
            )
            n = len(part)
            positions = model[..., :3, 3].reshape(bones, n, 4, 3).transpose(1, 2, 0, 3)
            rotations = rotation.reshape(bones, n, 4, 4).transpose(1, 2, 0, 3)
            closed_loop_continuity_many([(p[1], positions[i], rotations[i]) for i, p in enumerate(part)])
        best = min(best, (time.perf_counter() - start) / len(samples))
    return best * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--pack", default=None, help="a per-channel pack directory (built there when it has none)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    pack = args.pack or os.path.join(tempfile.gettempdir(), "animsmith-seam-batch-pack")
    paths = sorted(glob.glob(os.path.join(pack, "*.glb")))
    if len(paths) < args.files or not os.path.exists(os.path.join(pack, "animsmith.toml")):
        from pack import make_shape_pack

        paths = make_shape_pack(pack, args.files, clips_per_file=4, per_channel_times=True)
    paths = sorted(paths)[: args.files]
    samples = seam_samples(paths, load_contract(os.path.join(pack, "animsmith.toml")))
    skeleton = samples[0][0]
    print(f"{len(samples)} clips, {skeleton.bone_count} bones, 4 seam samples each")
    for batch in BATCHES:
        ms = continuity_ms_per_clip(samples, batch, args.repeats)
        print(f"  {batch:4d} clip(s) per call: {ms:.3f} ms per clip (forward kinematics + wrap arithmetic)")


if __name__ == "__main__":
    main()
