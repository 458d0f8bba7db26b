"""Throughput, scaling and memory of `animsmith lint` over a Mixamo-class pack (targets: docs/performance.md).

    python benchmarks/bench_lint.py [--clips 1000] [--pack DIR] [--quick]

Everything is measured in ONE run and printed with its target:

* the floor: reading every file of the pack and parsing its GLB JSON chunk
  (``json.loads``) in this process;
* lint clips/s on one core, in-process (``lint.run``, text output, so no
  measurement dicts) and as a real ``animsmith lint PACK`` subprocess (process
  start, imports, config, rendering included);
* ``--jobs 2`` speed-up over one core, in-process (``run_lint(jobs=2)``,
  worker start and group checks included) and as subprocesses, with the bound
  that a one-file lint process (start-up and imports, serial in every run)
  puts on the subprocess speed-up;
* the ratio lint subprocess wall time / floor;
* peak RSS of the whole-pack ``--jobs 1`` subprocess
  (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` right after it);
* ``animsmith --help`` cold start (best of 5 subprocesses);
* how in-process lint time grows with clips (250/500/1000 files), bones
  (20/65/130) and frames (30/60/120): per-clip times that stay flat = linear.

The pack comes from ``benchmarks/pack.py`` (1-2 s, 30 fps, 65 joints, LINEAR,
root motion on every other clip, a 4-clip gait ring per 4 files declared in
``animsmith.toml``). No timed unit tests: this only prints. The package's
``.pyc`` files are written first (``compileall``), as a wheel install does, so
subprocess start-up is not inflated by ``PYTHONDONTWRITEBYTECODE``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)


# ---------------------------------------------------------------------------
# Packs
# ---------------------------------------------------------------------------


def ring_config(names):
    """A TOML contract with one 4-clip gait group per 4 consecutive files."""
    lines = ["[rig]", 'profile = "auto"', ""]
    for g in range(len(names) // 4):
        members = ", ".join(f'"{n}"' for n in names[4 * g : 4 * g + 4])
        lines += [f"[gait_groups.ring-{g:04d}]", f"clips = [{members}]", ""]
    return "\n".join(lines)


def bones_of(count):
    """(names, parents, offsets) of a Mixamo rig cut down to / grown to ``count`` bones.

    Fewer bones: finger joints (then other leaves away from the legs) are
    dropped. More bones: extra 4-bone chains hang off Spine2 (accessories).
    """
    import numpy as np
    from pack import mixamo_bones

    names, parents, offsets = mixamo_bones()
    keep = list(range(len(names)))
    protected = {"Hips", "Spine", "Spine1", "Spine2", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase",
                 "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase"}
    while len(keep) > count:
        kids = {parents[i] for i in keep if parents[i] >= 0}
        leaves = [i for i in keep if i not in kids and names[i].split(":", 1)[1] not in protected]
        fingers = [i for i in leaves if "Hand" in names[i] and names[i] != "mixamorig:LeftHand" and names[i] != "mixamorig:RightHand"]
        keep.remove((fingers or leaves)[-1])
    remap = {old: new for new, old in enumerate(keep)}
    n2 = [names[i] for i in keep]
    p2 = [remap[parents[i]] if parents[i] >= 0 else -1 for i in keep]
    o2 = [list(offsets[i]) for i in keep]
    spine2 = n2.index("mixamorig:Spine2")
    k = 0
    while len(n2) < count:
        parent = spine2 if k % 4 == 0 else len(n2) - 1
        n2.append(f"mixamorig:Extra{k // 4}_{k % 4}")
        p2.append(parent)
        o2.append([0.02 * (k % 7 - 3), 0.05, -0.05])
        k += 1
    return n2, p2, np.asarray(o2, float)


def write_pack(out_dir, n_clips, *, bones=65, frames=None, seed=7):
    """``n_clips`` single-clip GLBs (+ ring config) -> sorted paths."""
    import numpy as np
    from pack import mixamo_clip

    from animsmith.io.write import asset_to_glb
    from animsmith.model import Asset, Skeleton

    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    names, parents, offsets = bones_of(bones)
    skeleton = Skeleton.build(names, parents, offsets)
    files = []
    for k in range(n_clips):
        duration = (frames - 1) / 30.0 if frames else 1.0 + (k % 31) / 30.0
        clip = mixamo_clip(names, rng, duration_s=duration, fps=30, speed_mps=1.5 if k % 2 else 0.0,
                           phase_offset_cycles=0.25 * (k % 4 == 2))
        name = f"clip_{k:05d}.glb"
        with open(os.path.join(out_dir, name), "wb") as fh:
            fh.write(asset_to_glb(Asset(skeleton=skeleton, clips=[clip])))
        files.append(name)
    with open(os.path.join(out_dir, "animsmith.toml"), "w") as fh:
        fh.write(ring_config(files))
    return [os.path.join(out_dir, f) for f in files]


# ---------------------------------------------------------------------------
# Timings
# ---------------------------------------------------------------------------


def read_and_parse_json(paths):
    """The floor: read each file and json.loads its GLB JSON chunk."""
    nodes = 0
    for p in paths:
        with open(p, "rb") as fh:
            data = fh.read()
        (json_len,) = struct.unpack_from("<I", data, 12)
        nodes += len(json.loads(data[20 : 20 + json_len]).get("nodes", ()))
    return nodes


def lint_in_process(paths, config, jobs=1):
    from animsmith.checks import load_contract
    from animsmith.lint import run as run_lint

    result = run_lint(paths, load_contract(config), jobs=jobs, with_measurements=False)
    return result


def precompile_package():
    """Write animsmith's .pyc files, as ``pip install`` of a wheel does.

    An editable install under ``PYTHONDONTWRITEBYTECODE=1`` (set on some CI
    machines) would otherwise recompile every module in every subprocess,
    ~30 ms of start-up that an installed package does not pay.
    """
    import compileall

    import animsmith

    return compileall.compile_dir(os.path.dirname(animsmith.__file__), quiet=1)


def best_of(fn, repeats):
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def animsmith_cmd():
    """The ``animsmith`` script of this interpreter's environment (not whatever ``PATH``
    finds first: another install, or a version-manager shim such as pyenv's, which
    adds ~50 ms to every process), else ``python -m animsmith``."""
    here = os.path.join(os.path.dirname(sys.executable), "animsmith")
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return [here]
    return [sys.executable, "-m", "animsmith"]


def _children_cpu_s():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_cli(args, cwd, cpu=None):
    """Wall seconds of one ``animsmith ARGS`` subprocess; its CPU seconds appended to ``cpu``."""
    c0 = _children_cpu_s()
    t0 = time.perf_counter()
    proc = subprocess.run(animsmith_cmd() + args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if cpu is not None:
        cpu.append(_children_cpu_s() - c0)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"animsmith {' '.join(args)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return dt


def per_clip_ms(paths, config, repeats):
    lint_in_process(paths[:4], config)  # warm
    dt, _ = best_of(lambda: lint_in_process(paths, config), repeats)
    return dt / len(paths) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=1000)
    ap.add_argument("--pack", default=None, help="existing pack folder from this script or pack.py (else a temp dir)")
    ap.add_argument("--scaling-clips", type=int, default=100, help="files per bones/frames scaling point")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="animsmith-bench-")
    try:
        pack = os.path.abspath(args.pack) if args.pack else os.path.join(tmp, "pack")  # the CLI runs in tmp
        paths = sorted(glob.glob(os.path.join(pack, "*.glb")))
        if len(paths) < args.clips or not os.path.exists(os.path.join(pack, "animsmith.toml")):
            paths = write_pack(pack, args.clips)
        paths = paths[: args.clips]
        config = os.path.join(pack, "animsmith.toml")
        if len(paths) != len(sorted(glob.glob(os.path.join(pack, "*.glb")))):
            config = os.path.join(tmp, "subset.toml")
            with open(config, "w") as fh:
                fh.write(ring_config([os.path.relpath(p, tmp) for p in paths]))
        n = len(paths)

        # --help cold start first (its RSS is tiny; the lint subprocess below sets the peak)
        precompile_package()
        help_s = min(run_cli(["--help"], tmp) for _ in range(5))

        read_and_parse_json(paths[:20])
        floor_s, _ = best_of(lambda: read_and_parse_json(paths), 3)
        lint_in_process(paths[:8], config)
        c0 = time.process_time()
        inproc_s, result = best_of(lambda: lint_in_process(paths, config), args.repeats)
        inproc_cpu_s = (time.process_time() - c0) / args.repeats
        summary = result.summary()
        inproc2_s, result2 = best_of(lambda: lint_in_process(paths, config, jobs=2), args.repeats)
        assert result2.summary() == summary, "--jobs 2 changed the result"

        cpu = []

        def best_cli(jobs):  # best of --repeats subprocess runs; CPU of that run
            runs = []
            for _ in range(args.repeats):
                c = []
                runs.append((run_cli(["lint", "--config", config] + jobs + paths, tmp, c), c[0]))
            wall, c = min(runs)
            cpu.append(c)
            return wall

        cli1_s = best_cli(["--jobs", "1"])
        rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
        cli2_s = best_cli(["--jobs", "2"])
        clia_s = best_cli([])  # default --jobs auto
        # the serial part of every run: process start, imports, built-in config, one file
        fixed_s = min(run_cli(["lint", "--jobs", "1", paths[0]], tmp) for _ in range(3))
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

        print(f"machine: {os.cpu_count()} CPU(s), {cpu_model()}; python {sys.version.split()[0]}; "
              f"1-min load average {load:.1f} (above 0 = other work competes for the cores)")
        print(f"pack: {n} files / {n} clips (65 joints, 30 fps, 1-2 s), {n // 4} gait groups; "
              f"lint result {summary['errors']} errors, {summary['warnings']} warnings")
        print(f"read+json floor:         {floor_s * 1e3:8.0f} ms  ({n / floor_s:7.0f} files/s)")
        print(f"lint in-process, 1 core: {inproc_s * 1e3:8.0f} ms  ({n / inproc_s:7.0f} clips/s, "
              f"{inproc_s / n * 1e3:.2f} ms/clip; target >= 1000 clips/s)")
        print(f"  (in-process CPU time {inproc_cpu_s * 1e3:.0f} ms = {inproc_cpu_s / n * 1e3:.2f} ms/clip)")
        print(f"lint in-process, jobs=2: {inproc2_s * 1e3:8.0f} ms  ({n / inproc2_s:7.0f} clips/s; "
              f"speed-up {inproc_s / inproc2_s:.2f}x, target >= 1.8x; worker start and group checks included)")
        print(f"lint subprocess, 1 core: {cli1_s * 1e3:8.0f} ms  ({n / cli1_s:7.0f} clips/s; process start included; "
              f"CPU {cpu[0] * 1e3:.0f} ms)")
        print(f"lint subprocess, --jobs 2: {cli2_s * 1e3:6.0f} ms  ({n / cli2_s:7.0f} clips/s; "
              f"speed-up {cli1_s / cli2_s:.2f}x, target >= 1.8x; CPU {cpu[1] * 1e3:.0f} ms)")
        bound = cli1_s / ((cli1_s - fixed_s) / 2 + fixed_s)
        print(f"  (one-file lint process: {fixed_s * 1e3:.0f} ms of start-up and imports that no worker shares; "
              f"with it serial, --jobs 2 can reach at most {bound:.2f}x)")
        from animsmith.lint import effective_jobs

        print(f"lint subprocess, default --jobs auto ({effective_jobs('auto', n)} process(es) here): "
              f"{clia_s * 1e3:.0f} ms ({n / clia_s:.0f} clips/s; CPU {cpu[2] * 1e3:.0f} ms)")
        print(f"ratio lint subprocess / floor (target <= 2.5): --jobs 1 {cli1_s / floor_s:.1f}, "
              f"default {clia_s / floor_s:.1f}; in-process 1 core / floor: {inproc_s / floor_s:.1f}")
        print(f"peak RSS, whole-pack lint subprocess: {rss_mb:.0f} MB (target <= 200 MB)")
        print(f"animsmith --help cold start: {help_s * 1e3:.0f} ms (best of 5; target <= 150 ms)")

        print("scaling (in-process lint, ms per clip; flat = linear):")
        row = []
        for k in (n // 4, n // 2, n):
            sub = paths[:k]
            cfg = os.path.join(tmp, f"clips{k}.toml")
            with open(cfg, "w") as fh:
                fh.write(ring_config([os.path.relpath(p, tmp) for p in sub]))
            row.append(f"{k} clips {per_clip_ms(sub, cfg, 1):.2f}")
        print("  clips:  " + " | ".join(row))
        m = args.scaling_clips
        row = []
        for bones in (20, 65, 130):
            d = os.path.join(tmp, f"bones{bones}")
            sub = write_pack(d, m, bones=bones, frames=31)
            row.append(f"{bones} bones {per_clip_ms(sub, os.path.join(d, 'animsmith.toml'), args.repeats):.2f}")
        print(f"  bones ({m} clips, 31 frames):  " + " | ".join(row))
        row = []
        for frames in (30, 60, 120):
            d = os.path.join(tmp, f"frames{frames}")
            sub = write_pack(d, m, frames=frames)
            row.append(f"{frames} frames {per_clip_ms(sub, os.path.join(d, 'animsmith.toml'), args.repeats):.2f}")
        print(f"  frames ({m} clips, 65 bones): " + " | ".join(row))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    main()
