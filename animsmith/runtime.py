"""Process-wide settings for the commands that do the work.

:func:`keep_freed_heap` and :func:`collect_less_often` are called by the CLI before a
subcommand runs (not for ``--help``) and by spawned lint workers. Nothing here changes a
result.
:func:`decide_exit_status` records a command's exit status before it writes
its result, so a reader that goes away mid-write (``| head``) does not change it.
"""

from __future__ import annotations

import os
import sys

#: glibc ``mallopt`` parameter numbers (``<malloc.h>``)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

#: Blocks below this come from the heap (glibc's default starts at 128 KiB):
#: per-clip numpy temporaries of a few hundred KB are then reused from file
#: to file instead of being mapped, faulted in page by page, and unmapped.
MMAP_THRESHOLD_BYTES = 8 << 20
#: Free memory at the top of the heap is returned to the OS only beyond this
#: (glibc's default: 128 KiB, adapted at run time), so the next file's
#: temporaries do not fault fresh zeroed pages in again. It bounds what a
#: process keeps beyond its live data.
TRIM_THRESHOLD_BYTES = 32 << 20


#: Young-generation threshold of Python's cyclic garbage collector in a process that runs
#: a command (CPython's default is 700; the setting stays for the rest of the process): the
#: collector runs after this many more container objects were created than freed.
#: Loading one GLB parses its JSON into a few thousand dicts and lists, so the default ran
#: ~900 young and ~8 full collections per 1,000-clip lint, 5-10 % of its time, and found
#: nothing of ours to free: the analysis of a clip makes no reference cycles (plain
#: reference counting frees it all), only a few hundred objects of the standard library's
#: own (closures, ctypes) were collected. The collector stays on, for them.
COLLECTOR_THRESHOLD = 10_000


def collect_less_often() -> bool:
    """Raise the collector's young-generation threshold to :data:`COLLECTOR_THRESHOLD`
    (older generations keep their ratios); True when applied. A no-op when the collector
    is off or already runs less often (the embedding program's choice wins)."""
    import gc

    first, second, third = gc.get_threshold()
    if not gc.isenabled() or first == 0 or first >= COLLECTOR_THRESHOLD:
        return False
    gc.set_threshold(COLLECTOR_THRESHOLD, second, third)
    return True


#: the exit status a command decided before writing its result (None: not decided, 0)
_decided_exit_status = None


def decide_exit_status(status: int) -> int:
    """Record ``status`` as the command's exit status (returned unchanged)."""
    global _decided_exit_status
    _decided_exit_status = int(status)
    return status


def forget_exit_status() -> None:
    """Start a command with no decided status."""
    global _decided_exit_status
    _decided_exit_status = None


def decided_exit_status() -> int:
    """The status :func:`decide_exit_status` recorded, else 0."""
    return 0 if _decided_exit_status is None else _decided_exit_status


def keep_freed_heap() -> bool:
    """Tune glibc's allocator (see the thresholds above); True when applied.

    On a 1,000-clip lint this cuts minor page faults from ~15-60 thousand to
    ~7 thousand (docs/performance.md). A no-op off Linux, on a C library
    without ``mallopt`` or when it refuses, and when the user set
    ``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_`` or a ``glibc.malloc``
    tunable in ``GLIBC_TUNABLES`` (theirs win).
    """
    if not sys.platform.startswith("linux"):
        return False
    if "MALLOC_TRIM_THRESHOLD_" in os.environ or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    if "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):  # no _ctypes, no C library handle, no mallopt
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1 and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES) == 1
