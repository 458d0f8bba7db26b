"""The worker pool of ``--jobs N``: this process and ``N - 1`` workers (forked on Linux,
spawned elsewhere) claim chunks of files from one shared counter and lint them with
:func:`~animsmith.lint.engine.lint_file`; :func:`iter_outcomes` yields the outcomes in
file order, the same as one process gives them."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from animsmith.io.write import remove_quietly
from animsmith.lint.engine import FileOutcome, lint_file
from animsmith.lint.plan import Plan


def chunk_bounds(n_files: int, processes: int, largest: int = 32) -> List[Tuple[int, int]]:
    """``[(lo, hi)]`` file ranges for ``processes`` lint processes, in order.

    Guided sizes: each chunk is ceil(files left / (4 x processes)), clamped
    to 1..``largest``: large chunks early (few messages), single files at the
    end, so no process waits long for another's last chunk.
    """
    out: List[Tuple[int, int]] = []
    lo = 0
    while lo < n_files:
        size = max(1, min(largest, -(-(n_files - lo) // (4 * processes))))
        out.append((lo, min(n_files, lo + size)))
        lo += size
    return out


def _claim(counter, timeout: Optional[float] = None) -> Optional[int]:
    """The next unclaimed chunk number from the shared ``counter`` (None: lock not had in ``timeout``)."""
    lock = counter.get_lock()
    if not (lock.acquire() if timeout is None else lock.acquire(True, timeout)):
        return None
    try:
        i = counter.value
        counter.value = i + 1
    finally:
        lock.release()
    return i


def _error_info(exc: BaseException) -> Tuple[str, str, Optional[bytes]]:
    """(type name, message, pickled exception or None) of a worker's exception."""
    import pickle

    try:
        blob: Optional[bytes] = pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - an exception that cannot be pickled
        blob = None
    return type(exc).__name__, str(exc), blob


def _rebuilt_error(info: Tuple[str, str, Optional[bytes]]) -> BaseException:
    """The worker's exception again (a RuntimeError naming it when it cannot be rebuilt here)."""
    import pickle

    name, message, blob = info
    if blob is not None:
        try:
            exc = pickle.loads(blob)
            if isinstance(exc, BaseException):
                return exc
        except Exception:  # noqa: BLE001 - e.g. an __init__ that needs other arguments
            pass
    return RuntimeError(f"{name}: {message}")


def _lint_chunk(paths: Sequence[str], bounds: Tuple[int, int], plan: Plan) -> Tuple[Optional[List[FileOutcome]], Optional[Exception]]:
    """(outcomes of ``paths[lo:hi]``, None), or (None, the exception) when linting one of them raised."""
    lo, hi = bounds
    try:
        outcomes = [lint_file(p, plan) for p in paths[lo:hi]]
    except Exception as exc:  # noqa: BLE001 - the caller raises it in file order
        return None, exc
    if plan.with_measurements:
        _write_measurements(outcomes)
    return outcomes, None


def _write_measurements(outcomes: List[FileOutcome]) -> None:
    """Each clip's measurement dict as ``render.json.WrittenJSON``: its JSON text is written
    with the chunk, by whichever process linted it, while the others lint theirs, and the
    process that renders the whole document copies it (``lint --format json``'s largest
    part) instead of writing every clip's measurements alone at the end."""
    from animsmith.render.json import written_json

    for outcome in outcomes:
        clips = outcome.result.measurements.get("clips")
        if clips:
            for name, measured in clips.items():
                clips[name] = written_json(measured)


def _chunk_folder() -> Optional[str]:
    """A new temporary folder for chunk results, or None when none can be made."""
    import tempfile

    try:
        return tempfile.mkdtemp(prefix="animsmith-lint-")
    except OSError:
        return None


def _chunk_path(folder: str, i: int) -> str:
    return os.path.join(folder, f"chunk-{i}.pickle")


def _parent_alive(method: str, parent_pid: int) -> bool:
    """Whether the process that started this worker is still running.

    fork: the parent pid changes when the parent dies (the worker is adopted).
    spawn/forkserver: the worker's parent in the process tree is not the main
    process (forkserver) or ``getppid`` keeps a dead parent's id (Windows), so
    multiprocessing's sentinel on the main process decides. (Not used for fork:
    later-forked siblings hold copies of that sentinel and keep it "alive".)
    """
    if method == "fork":
        return os.getppid() == parent_pid
    import multiprocessing

    parent = multiprocessing.parent_process()
    return parent is None or parent.is_alive()


def _worker_main(
    plan: Plan, paths: List[str], chunks: List[Tuple[int, int]], counter, folder: str, announce, method: str, parent_pid: int
) -> None:
    """A worker process: claim chunks until none are left (or one fails, or the parent is gone).

    Each chunk's ``(outcomes, error info)`` is written to a file in ``folder``
    first; only then is the chunk number put on ``announce``. Messages are a few
    bytes, written to the pipe in one atomic write, so a worker killed at any
    moment never leaves a half-sent message for the parent to wait on. A worker
    whose parent died (killed without cleaning up) stops and removes its files.
    """
    import pickle
    import signal

    from animsmith.runtime import collect_less_often, keep_freed_heap

    keep_freed_heap()  # a spawned worker does not inherit the CLI's settings (a forked one does)
    collect_less_often()
    try:  # a forked worker inherits the CLI's SIGTERM handler; the parent's terminate() means: stop now
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    except (ValueError, OSError, AttributeError):
        pass
    written: List[str] = []
    orphaned = False
    try:
        while True:
            i = None
            while i is None:  # never block for good on a lock whose holder died
                if not _parent_alive(method, parent_pid):
                    orphaned = True
                    return
                i = _claim(counter, timeout=1.0)
            if i >= len(chunks):
                break
            outcomes, exc = _lint_chunk(paths, chunks[i], plan)
            item = (outcomes, None if exc is None else _error_info(exc))  # raised again by the parent, in file order
            written.append(_chunk_path(folder, i))
            with open(written[-1], "wb") as fh:
                pickle.dump(item, fh, protocol=pickle.HIGHEST_PROTOCOL)
            announce.put(i)
            if item[1] is not None:
                break
    except BaseException:  # noqa: BLE001 - Ctrl-C, a full disk...: whatever is not announced is linted by the parent
        pass
    finally:
        orphaned = orphaned or not _parent_alive(method, parent_pid)
        if orphaned:  # nobody will read or remove the files
            for path in written:
                remove_quietly(path)
            try:
                os.rmdir(folder)
            except OSError:
                pass
        announce.close()
        if orphaned:
            announce.cancel_join_thread()  # nobody reads the pipe any more: never wait on it
        else:
            announce.join_thread()  # every announcement is in the pipe before this process ends


def pool_start_method() -> str:
    """``fork`` on Linux (workers inherit the imported modules and the plan: no
    re-import, no pickled plan), else ``spawn`` (macOS and Windows, where forking
    a process that has loaded system frameworks is unsafe).
    ``ANIMSMITH_START_METHOD`` overrides it (tests run both)."""
    import multiprocessing
    import sys

    wanted = os.environ.get("ANIMSMITH_START_METHOD")
    methods = multiprocessing.get_all_start_methods()
    if wanted in methods:
        return wanted
    return "fork" if sys.platform.startswith("linux") and "fork" in methods else "spawn"


#: ``--jobs auto`` never uses more processes than this (each holds ~45 MB)
AUTO_MAX_WORKERS = 8
#: ... nor more than one per this many files (a forked worker costs a few ms
#: to start, a spawned one ~0.3 s of imports)
AUTO_FILES_PER_WORKER = {"fork": 64, "spawn": 256, "forkserver": 256}


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def jobs_cap() -> int:
    """The most lint processes ``--jobs N`` starts: 4 per usable CPU, at least AUTO_MAX_WORKERS."""
    return max(AUTO_MAX_WORKERS, 4 * usable_cpus())


def effective_jobs(jobs: Any, n_files: int) -> int:
    """Lint processes (this one included) for ``jobs`` (an int >= 1, or ``"auto"``) over ``n_files``.

    ``auto`` = min(usable CPUs, AUTO_MAX_WORKERS, n_files // files-per-worker),
    at least 1: small runs stay in one process, where starting workers would
    cost more than it saves. An explicit N is capped at :func:`jobs_cap` (a typo
    such as ``-j 1000`` must not start a thousand processes on a small machine).
    """
    if jobs != "auto":
        return max(1, min(int(jobs), jobs_cap()))
    if n_files < 2 * min(AUTO_FILES_PER_WORKER.values()):
        return 1  # decided without importing multiprocessing (~5 ms)
    per_worker = AUTO_FILES_PER_WORKER.get(pool_start_method(), 256)
    return max(1, min(usable_cpus(), AUTO_MAX_WORKERS, n_files // per_worker))


def _import_lint_modules() -> None:
    """Import what :func:`lint_file` imports lazily (the loader, analysis, numpy.fft...)."""
    import json  # noqa: F401 - the loader's parser when orjson is not installed

    import numpy.fft  # noqa: F401 - used by the gait metrics

    from animsmith.checks.context import ClipContext  # noqa: F401
    from animsmith.core.analysis import ClipAnalysis  # noqa: F401
    from animsmith.core.contacts import foot_slide  # noqa: F401 - the foot-slide check's
    from animsmith.core.roles import resolve_roles  # noqa: F401
    from animsmith.core.units import units_report  # noqa: F401 - the rig-units check's
    from animsmith.core.legs import resolve_contract_rig  # noqa: F401
    from animsmith.io.gltf import load_asset  # noqa: F401
    from animsmith.render.json import written_json  # noqa: F401 - measurements written ahead


def iter_outcomes(paths: Sequence[str], plan: Plan, jobs: int):
    """One :class:`FileOutcome` per path, in path order, from ``jobs`` processes.

    ``jobs > 1``: this process and ``jobs - 1`` workers (:func:`_worker_main`)
    claim chunks (:func:`chunk_bounds`) from one shared counter, so the lint
    work is spread evenly and this process is never idle waiting. Outcomes are
    yielded in path order as soon as all earlier ones are in; an exception
    from linting a file is raised where ``jobs = 1`` would raise it. A worker
    that dies (killed, out of memory) costs time, not results: whatever it did
    not deliver is linted here.
    """
    paths = list(paths)
    # one process: one job, one file, or no writable temporary folder for the workers' results
    folder = _chunk_folder() if jobs > 1 and len(paths) > 1 else None
    if folder is None:
        for p in paths:
            yield lint_file(p, plan)
        return
    import gc
    import multiprocessing
    import pickle
    import queue
    import shutil

    method = pool_start_method()
    mp = multiprocessing.get_context(method)
    chunks = chunk_bounds(len(paths), jobs)
    n_workers = min(jobs - 1, len(chunks) - 1)
    started: List[Any] = []
    queues: List[Any] = []
    # chunk -> (outcomes, None) | (None, exception) | (None, worker error info)
    done: Dict[int, Tuple[Optional[List[FileOutcome]], Any]] = {}
    next_out = 0

    def drain(wait: float = 0.0) -> None:
        for q in queues:
            try:
                while True:
                    i = q.get(timeout=wait) if wait else q.get_nowait()
                    if next_out <= i < len(chunks) and i not in done:
                        path = _chunk_path(folder, i)
                        try:
                            with open(path, "rb") as fh:
                                done[i] = pickle.load(fh)
                        except Exception:  # noqa: BLE001 - unreadable: linted here instead
                            pass
                        remove_quietly(path)
            except queue.Empty:
                pass

    def ready():
        nonlocal next_out
        while next_out in done:
            outcomes, error = done.pop(next_out)
            next_out += 1
            if error is not None:
                raise error if isinstance(error, BaseException) else _rebuilt_error(error)
            yield from outcomes

    def dead() -> bool:
        return any(w.exitcode not in (None, 0) for w in started)

    def none_left() -> bool:
        return all(w.exitcode is not None for w in started)

    # fork: move the parent's objects out of the collector's view while the
    # workers run, so their collections do not write to (and so copy) the
    # pages they share with the parent; unfrozen again afterwards
    frozen = method == "fork"
    try:
        counter = mp.Value("q", 0)
        queues.extend(mp.Queue() for _ in range(n_workers))
        workers = [
            mp.Process(
                target=_worker_main,
                args=(plan, paths, chunks, counter, folder, q, method, os.getpid()),
                daemon=True,
                name=f"animsmith-lint-{k + 1}",
            )
            for k, q in enumerate(queues)
        ]
        if frozen:
            _import_lint_modules()  # once here, not once per process after the fork
            gc.freeze()
        for w in workers:
            w.start()
            started.append(w)
        while True:
            i = _claim(counter, timeout=1.0)
            if i is None:  # the lock is held by a worker that died (or exited) holding it
                if dead() or none_left():
                    break
                continue
            if i >= len(chunks):
                break
            done[i] = _lint_chunk(paths, chunks[i], plan)
            drain()
            yield from ready()
        # every chunk is claimed (or claiming broke down): collect the rest
        while len(done) + next_out < len(chunks):
            drain(wait=0.02)
            if dead() or none_left():
                drain()
                break
        for i in range(next_out, len(chunks)):
            if i not in done:  # lost with a worker: lint it here
                done[i] = _lint_chunk(paths, chunks[i], plan)
        yield from ready()
    finally:
        try:
            for w in started:
                if w.is_alive():
                    w.terminate()
                w.join()
            for q in queues:
                q.close()
                q.cancel_join_thread()
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            if frozen:
                gc.unfreeze()
