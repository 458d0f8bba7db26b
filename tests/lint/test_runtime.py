"""animsmith.runtime.keep_freed_heap: freed numpy temporaries are reused, not re-faulted."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

# 400 allocations of 320 KB (80 pages each) freed right away: without reuse every
# one faults 80 fresh zeroed pages in (32,000 faults); with reuse only the first few do.
PATTERN = """
import resource, sys
import numpy as np
from animsmith.runtime import keep_freed_heap
applied = keep_freed_heap() if sys.argv[1] == "tune" else None
warm = [np.ones(1000) for _ in range(10)]
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(200):
    a = np.ones(40_000)
    b = a * 2.0
    del a, b
print(applied, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _run(mode, **env):
    out = subprocess.run(
        [sys.executable, "-c", PATTERN, mode], capture_output=True, text=True, check=True,
        env={**os.environ, **env},
    ).stdout.split()
    return out[0], int(out[1])


GLIBC_LINUX = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC_LINUX, reason="mallopt tuning is for glibc on Linux")
def test_tuned_heap_reuses_freed_temporaries():
    applied, faults = _run("tune")
    assert applied == "True"
    assert faults < 2_000  # vs 32,000 if every temporary were faulted in afresh


def test_user_malloc_settings_win():
    assert _run("tune", MALLOC_TRIM_THRESHOLD_="131072")[0] == "False"
    assert _run("tune", GLIBC_TUNABLES="glibc.malloc.trim_threshold=131072")[0] == "False"


def test_help_does_not_tune_or_import_ctypes():
    code = "import sys; from animsmith.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\nprint('ctypes' in sys.modules, file=sys.stderr)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stderr.strip().splitlines()[-1] == "False"


def test_collector_runs_less_often_and_the_embedders_choice_wins():
    import gc

    from animsmith.runtime import COLLECTOR_THRESHOLD, collect_less_often

    saved, enabled = gc.get_threshold(), gc.isenabled()
    try:
        gc.set_threshold(700, 10, 10)  # CPython's default
        assert collect_less_often() is True
        assert gc.get_threshold() == (COLLECTOR_THRESHOLD, 10, 10)  # older generations keep their ratios
        gc.set_threshold(50_000, 3, 4)  # a program that already collects less often keeps its setting
        assert collect_less_often() is False and gc.get_threshold() == (50_000, 3, 4)
        gc.set_threshold(700, 10, 10)
        gc.disable()  # and one that switched the collector off keeps it off
        assert collect_less_often() is False and not gc.isenabled() and gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*saved)
        (gc.enable if enabled else gc.disable)()


# lint every shipped example and the real exports in tests/data with the collector off, then count what a full
# collection finds unreachable: the objects only the collector could free (reference cycles)
CYCLES = """
import gc, glob, os, sys
from animsmith.checks import parse_contract
from animsmith.lint import run
paths = sorted(glob.glob(os.path.join(sys.argv[1], "*.glb")) + glob.glob(os.path.join(sys.argv[2], "*.glb")))
gc.collect()
gc.disable()
result = run(paths, parse_contract(b""), jobs=1, with_measurements=True)
assert len(result.files) == len(paths) >= 5
gc.set_debug(gc.DEBUG_SAVEALL)
print(gc.collect(), len(paths))
"""


def test_linting_makes_no_reference_cycles_for_the_collector_to_find():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run(
        [sys.executable, "-c", CYCLES, os.path.join(root, "examples", "assets"), os.path.join(root, "tests", "data")],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    unreachable, files = int(out[0]), int(out[1])
    # a cycle per clip would leave hundreds; what is left is the interpreter's own few objects
    assert unreachable < 40, (unreachable, files)
