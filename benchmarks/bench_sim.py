"""Simulator throughput (issue: simulator speed). Print-only, not a test.

    python benchmarks/bench_sim.py [--batch 200000]

Prints, on one core:
* two-bone IK solves/s (batched law-of-cosines; target >= 1,000,000);
* FABRIK solves/s for 3-segment chains (4 joints incl. the mount) with every
  residual <= 0.1 mm (tolerance 1e-5 m; target >= 200,000);
* the whole catalog validated (`sim validate`: walk test + four terrain tests
  per creature, through bake -> core pose -> core foot_slide) in seconds
  (target < 1 s);
* the LOD tiers' cost for one spider batch.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402


def best_of(fn, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=200_000)
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    from animsmith.sim.creature import load_catalog
    from animsmith.sim.ik import fabrik, initial_chain, two_bone
    from animsmith.sim.validate import validate_catalog
    from animsmith.sim.walker import LodTiers, simulate

    rng = np.random.default_rng(0)
    m = args.batch

    hips = rng.normal(size=(m, 3))
    tg = hips + rng.normal(size=(m, 3)) * 0.4
    t = best_of(lambda: two_bone(hips, tg, 0.45, 0.45, (0.0, 0.0, 1.0)))
    print(f"two-bone IK: {m / t:,.0f} solves/s ({m:,} per batch, {t * 1e3:.1f} ms)")

    lengths = np.array([0.04, 0.05, 0.06])
    root = rng.normal(size=(m, 3))
    direction = rng.normal(size=(m, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    target = root + direction * rng.uniform(0.04, 0.14, size=(m, 1))
    holder = {}

    def run_fabrik():
        start = initial_chain(root, target, lengths, (0.0, 1.0, 0.0))
        holder["sol"] = fabrik(start, lengths, target, tolerance_m=1e-5, max_iterations=64)

    t = best_of(run_fabrik, 3)
    sol = holder["sol"]
    print(
        f"FABRIK 3-segment: {m / t:,.0f} solves/s (max residual {sol.residual_m.max() * 1e3:.4f} mm, "
        f"{sol.iterations} iterations for the slowest chain, {t * 1e3:.1f} ms per {m:,})"
    )

    cat = load_catalog()
    validate_catalog(cat[:1])  # warm imports
    t = best_of(lambda: validate_catalog(cat), 3)
    print(f"whole catalog validated ({len(cat)} creatures x walk test + 4 terrains): {t:.3f} s")

    from animsmith.sim.terrain import Terrain

    spider = cat[-1]
    times = np.linspace(0, 10, 1201)
    rough = Terrain("rough", spider.body_height)
    for dist, name in ((0.0, "full IK"), (30.0, "snapped feet"), (100.0, "keyframes")):
        tt = best_of(lambda: simulate(spider, times, camera_distance_m=dist, lod=LodTiers(), terrain=rough), 3)
        print(f"LOD {name:<13} spider on rough ground, 1,201 frames x 8 legs: {tt * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
