"""Snapshot and compare `lint --format json` and `measure --format json` outputs.

    python benchmarks/same_outputs.py save DIR [CORPUS]    # write packs + outputs under DIR
    python benchmarks/same_outputs.py check DIR [CORPUS]   # run again, compare byte for byte

A speed change must not change a single byte of output. ``save`` writes three small
packs (one clip per file; four clips per file with one key-time accessor shared by a
clip's channels; the same with one key-time accessor per channel, as three.js's
GLTFExporter writes them) and records the JSON of ``lint`` (``--jobs 1`` and
``--jobs 2``) and ``measure`` on them, on ``examples/`` and on a corpus of real files
(CORPUS, a folder of .glb files; tests/data by default). ``check`` re-runs the same
commands on the saved packs with the code as it is now and lists every output that
differs (exit 1).
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

CORPUS = os.path.join(ROOT, "tests", "data")


def cmd():
    here = os.path.join(os.path.dirname(sys.executable), "animsmith")
    return [here] if os.access(here, os.X_OK) else [sys.executable, "-m", "animsmith"]


def build(d):
    from pack import make_pack, make_shape_pack

    make_pack(os.path.join(d, "single"), 20)
    make_shape_pack(os.path.join(d, "shared"), 8, clips_per_file=4)
    make_shape_pack(os.path.join(d, "per-channel"), 8, clips_per_file=4, per_channel_times=True)


def runs(d, corpus_dir=CORPUS):
    """(name, argv, cwd) of every recorded command."""
    out = []
    for pack in ("single", "shared", "per-channel"):
        pd = os.path.join(d, pack)
        files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(pd, "*.glb")))
        for jobs in ("1", "2"):
            out.append((f"lint-{pack}-j{jobs}", ["lint", "--config", "animsmith.toml", "--format", "json",
                                                 "--jobs", jobs] + files, pd))
        out.append((f"measure-{pack}", ["measure", "--format", "json"] + files, pd))
    ex = sorted(glob.glob(os.path.join(ROOT, "examples", "assets", "*.glb")))
    out.append(("lint-examples", ["lint", "--format", "json", "--jobs", "1"] + ex, ROOT))
    out.append(("lint-seed", ["--config", "examples/run-ring.animsmith.toml", "lint", "--format", "json",
                              "examples/assets/run-ring.glb"], ROOT))
    out.append(("lint-seed-text", ["--config", "examples/run-ring.animsmith.toml", "lint",
                                   "examples/assets/run-ring.glb"], ROOT))
    out.append(("measure-examples", ["measure", "--format", "json"] + ex, ROOT))
    corpus = sorted(glob.glob(os.path.join(corpus_dir, "*.glb")))
    if corpus:
        out.append(("lint-corpus", ["lint", "--format", "json", "--jobs", "1"] + corpus, ROOT))
        out.append(("measure-corpus", ["measure", "--format", "json"] + corpus, ROOT))
        for p in corpus:
            out.append((f"measure-{os.path.basename(p)}", ["measure", "--format", "json", p], ROOT))
    return out


def run(argv, cwd):
    """stdout, stderr and exit status of one command, the checkout's own path written as
    ``<ROOT>`` so that two checkouts of the same code give the same bytes."""
    p = subprocess.run(cmd() + argv, cwd=cwd, capture_output=True)
    got = p.stdout + b"\n--- stderr ---\n" + p.stderr + f"\n--- exit {p.returncode} ---\n".encode()
    return got.replace(ROOT.encode(), b"<ROOT>")


def main() -> None:
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in ("save", "check"):
        raise SystemExit(__doc__)
    mode, d = sys.argv[1], os.path.abspath(sys.argv[2])
    corpus_dir = os.path.abspath(sys.argv[3]) if len(sys.argv) == 4 else CORPUS
    if mode == "save":
        build(d)
    bad = 0
    todo = runs(d, corpus_dir)
    for name, argv, cwd in todo:
        got = run(argv, cwd)
        path = os.path.join(d, "out", name + ".txt")
        if mode == "save":
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as fh:
                fh.write(got)
        else:
            with open(path, "rb") as fh:
                want = fh.read()
            if got != want:
                bad += 1
                with open(path + ".new", "wb") as fh:
                    fh.write(got)
                print(f"DIFFERS: {name} (new output in {path}.new)")
    print(f"{'saved' if mode == 'save' else 'checked'} {len(todo)} outputs; {bad} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
