"""Throughput of `measure` over a pack of Mixamo-class clips (issue: core speed).

    python benchmarks/bench_measure.py [--clips 1000] [--pack DIR]

Prints, measured in one run on one core:
* the floor: reading every file and parsing its GLB JSON chunk (json.loads);
* `measure` in-process: load + roles + pose grid + every per-clip metric;
* clips/s for `measure` (target >= 1,000) and the ratio measure / floor
  (target <= 2).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_and_parse_json(paths):
    """The floor: read each file and json.loads its JSON chunk."""
    total = 0
    for p in paths:
        with open(p, "rb") as fh:
            data = fh.read()
        (json_len,) = struct.unpack_from("<I", data, 12)
        doc = json.loads(data[20 : 20 + json_len])
        total += len(doc.get("nodes", ()))
    return total


def measure_all(paths):
    from animsmith.core.analysis import analyze_asset
    from animsmith.io.gltf import load_asset

    clips = 0
    for p in paths:
        asset = load_asset(p)
        _roles, analyses = analyze_asset(asset)
        for a in analyses:
            a.measurements()
            clips += 1
    return clips


def best_of(fn, arg, repeats):
    best = float("inf")
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(arg)
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=1000)
    ap.add_argument("--pack", default=None, help="existing pack folder (default: build one in a temp dir)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    from pack import make_pack

    tmp = None
    if args.pack and os.path.isdir(args.pack) and glob.glob(os.path.join(args.pack, "*.glb")):
        paths = sorted(glob.glob(os.path.join(args.pack, "*.glb")))
    else:
        tmp = args.pack or tempfile.mkdtemp(prefix="animsmith-pack-")
        paths = make_pack(tmp, args.clips)
    # Warm imports and the page cache once.
    read_and_parse_json(paths[:10])
    measure_all(paths[:10])

    floor_s, _ = best_of(read_and_parse_json, paths, args.repeats)
    meas_s, clips = best_of(measure_all, paths, args.repeats)
    print(f"files: {len(paths)}  clips: {clips}")
    print(f"read+json floor: {floor_s * 1e3:8.1f} ms  ({len(paths) / floor_s:8.0f} files/s)")
    print(f"measure:         {meas_s * 1e3:8.1f} ms  ({clips / meas_s:8.0f} clips/s, target >= 1000)")
    print(f"ratio measure/floor: {meas_s / floor_s:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
