"""`animsmith lint` on packs shaped like real exports, next to the Khronos glTF-Validator.

    python benchmarks/bench_shapes.py [--files 250] [--clips-per-file 4] [--repeats 3]
                                      [--oracles DIR] [--packs DIR]

Two packs of the same clips (65 joints, 30 fps, 1-2 s, several clips per file, each
file's clips one gait group in ``animsmith.toml``; ``benchmarks/pack.py``):

* ``shared``: every channel of a clip reads one key-time accessor (Blender, Mixamo);
* ``per-channel``: one key-time accessor per channel, holding the same times, as
  three.js's GLTFExporter and COLLADA2GLTF write them.

For each, in ONE run (so the ratios compare numbers taken in the same minutes): the
floor (reading every file and ``json.loads`` of its GLB JSON chunk, in this process),
``animsmith lint`` as a subprocess in text and JSON output with ``--jobs 1``, ``--jobs
2`` and the default ``--jobs auto`` (best of ``--repeats`` rounds, each round running
every configuration once, so a change in the machine's load reaches all of them alike;
with each run's peak RSS),
and, when ``node`` and a copy of the oracles folder with ``node_modules`` are present
(``--oracles``: a writable copy of the oracles folder after ``npm ci``), the
Khronos glTF-Validator's ``validateBytes`` on every file in one node process. Printed
as ratios with their targets: lint / validator, lint / floor, json / text,
jobs 2 / jobs 1; plus ``animsmith --help`` cold start.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from bench_lint import animsmith_cmd, cpu_model, precompile_package, read_and_parse_json  # noqa: E402


def run_timed(cmd, cwd):
    """(wall seconds, peak RSS MB, CPU seconds) of one subprocess (CPU: user + system of the
    process and its workers, which on a busy shared machine moves far less than wall time)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    c0 = _children_cpu()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:4])}... failed ({proc.returncode}): {err.decode()[-500:]}")
    # the workers are the lint process's children: counted in RUSAGE_CHILDREN once it has waited for them
    cpu = usage.ru_utime + usage.ru_stime
    workers = _children_cpu() - c0 - cpu
    return wall, usage.ru_maxrss / 1024.0, cpu + max(0.0, workers)


def _children_cpu():
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def build_packs(root, files, clips_per_file):
    from pack import make_shape_pack

    packs = {}
    for shape, per_channel in (("shared", False), ("per-channel", True)):
        d = os.path.join(root, shape)
        paths = sorted(glob.glob(os.path.join(d, "*.glb")))
        if len(paths) != files or not os.path.exists(os.path.join(d, "animsmith.toml")):
            shutil.rmtree(d, ignore_errors=True)
            paths = make_shape_pack(d, files, clips_per_file=clips_per_file, per_channel_times=per_channel)
        packs[shape] = (d, paths)
    return packs


def validator_run(oracles, paths, cwd):
    """(process wall s, validation loop s, summary) of the Khronos validator over ``paths``."""
    c0 = _children_cpu()
    t0 = time.perf_counter()
    out = subprocess.run(["node", os.path.join(HERE, "validate_pack.mjs"), oracles] + paths, cwd=cwd,
                         capture_output=True, check=True).stdout
    wall = time.perf_counter() - t0
    summary = json.loads(out)
    summary["cpu"] = _children_cpu() - c0
    return wall, summary["seconds"], summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=250)
    ap.add_argument("--clips-per-file", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--oracles", default=None,
                    help="a writable copy of the oracles folder after `npm ci` (without it the validator is skipped)")
    ap.add_argument("--packs", default=None, help="folder to keep the two packs in (reused when complete)")
    ap.add_argument("--shapes", default="shared,per-channel")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="animsmith-shapes-")
    try:
        packs = build_packs(args.packs or tmp, args.files, args.clips_per_file)
        oracles = args.oracles
        have_validator = bool(oracles and shutil.which("node")
                              and os.path.isdir(os.path.join(oracles, "node_modules", "gltf-validator")))
        precompile_package()
        help_s = min(run_timed(animsmith_cmd() + ["--help"], tmp)[0] for _ in range(5))
        from animsmith.lint import effective_jobs

        load0 = os.getloadavg()[0]
        print(f"machine: {os.cpu_count()} CPU(s), {cpu_model()}; python {sys.version.split()[0]}; "
              f"1-min load average {load0:.1f} at the start")
        worst_rss = 0.0
        for shape in args.shapes.split(","):
            d, paths = packs[shape]
            n_clips = len(paths) * args.clips_per_file
            mb = sum(os.path.getsize(p) for p in paths) / 1e6
            read_and_parse_json(paths[:20])
            floor = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                read_and_parse_json(paths)
                floor = min(floor, time.perf_counter() - t0)
            t, cpu = {}, {}
            configs = [(fmt, jobs) for fmt in ("text", "json") for jobs in ("1", "2", "auto")]
            # interleaved: each round runs every configuration once, so a drift in the machine's
            # load reaches all of them alike; each keeps its best round
            for _ in range(args.repeats):
                for fmt, jobs in configs:
                    cmd = animsmith_cmd() + ["lint", "--config", os.path.join(d, "animsmith.toml"),
                                             "--format", fmt, "--jobs", jobs] + paths
                    wall, rss, c = run_timed(cmd, d)
                    worst_rss = max(worst_rss, rss)
                    if wall < t.get((fmt, jobs), float("inf")):
                        t[fmt, jobs], cpu[fmt, jobs] = wall, c
            print(f"\n[{shape}] {len(paths)} files x {args.clips_per_file} clips = {n_clips} clips, {mb:.0f} MB; "
                  f"--jobs auto = {effective_jobs('auto', len(paths))} process(es)")
            print(f"  read+json floor {floor * 1e3:.0f} ms")
            for fmt in ("text", "json"):
                cells = " | ".join(f"--jobs {j} {t[fmt, j] * 1e3:5.0f} ms = {n_clips / t[fmt, j]:5.0f} clips/s"
                                   f" (CPU {cpu[fmt, j] * 1e3:.0f})" for j in ("1", "2", "auto"))
                print(f"  lint {fmt:4s}: {cells}")
            text_auto, json_auto = t["text", "auto"], t["json", "auto"]
            print(f"  text --jobs auto: {n_clips / text_auto:.0f} clips/s (target >= 1000 on per-channel)")
            print(f"  json / text: --jobs auto {json_auto / text_auto:.2f}, --jobs 1 {t['json', '1'] / t['text', '1']:.2f}"
                  f" (target <= 1.3); CPU --jobs 1 {cpu['json', '1'] / cpu['text', '1']:.2f},"
                  f" --jobs auto {cpu['json', 'auto'] / cpu['text', 'auto']:.2f}")
            print(f"  jobs 2 / jobs 1: text {t['text', '2'] / t['text', '1']:.2f}, json {t['json', '2'] / t['json', '1']:.2f}")
            print(f"  lint / floor: text auto {text_auto / floor:.1f}, json auto {json_auto / floor:.1f}, "
                  f"json --jobs 1 {t['json', '1'] / floor:.1f}")
            if have_validator:
                vwall, vloop, vs = validator_run(oracles, paths, d)
                print(f"  Khronos validator {vs['validator']}: {vwall * 1e3:.0f} ms as a process "
                      f"({vloop * 1e3:.0f} ms validating; CPU {vs['cpu'] * 1e3:.0f} ms; "
                      f"{vs['errors']} errors, {vs['warnings']} warnings)")
                print(f"  lint / validator (processes): json auto {json_auto / vwall:.2f}, "
                      f"json --jobs 1 {t['json', '1'] / vwall:.2f}, text auto {text_auto / vwall:.2f} "
                      f"(target <= 0.25 = 4x faster); CPU json --jobs 1 / validator CPU "
                      f"{cpu['json', '1'] / vs['cpu']:.2f}")
            else:
                print("  Khronos validator: skipped (needs node and --oracles DIR with node_modules)")
        load1 = os.getloadavg()[0]
        print(f"\npeak RSS of any lint run: {worst_rss:.0f} MB (target <= 200 MB)")
        print(f"animsmith --help cold start: {help_s * 1e3:.0f} ms (best of 5; target <= 150 ms)")
        print(f"1-min load average at the end {load1:.1f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
