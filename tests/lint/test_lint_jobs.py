"""``--jobs N``: N lint processes (this one and N−1 workers) sharing one chunk counter.

The output must be exactly the ``--jobs 1`` output (file order included) for
any N and start method, and a worker that dies or fails must not lose or
duplicate results, nor hang the run.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
import time

import pytest

from lint_support import ROOT, run_cli

from animsmith import lint
from animsmith.checks import load_contract
from animsmith.lint import pool

CONFIG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")
EXAMPLES = ["run-ring.glb", "fox-walk.glb", "spider-walk-rough.glb"]


def _pack(tmp_path, copies: int = 7, broken: bool = True):
    """3 x ``copies`` example files under distinct names, plus (``broken``) a truncated one in the middle."""
    paths = []
    for k in range(copies):
        for name in EXAMPLES:
            dst = tmp_path / f"{k:02d}-{name}"
            shutil.copy(os.path.join(ROOT, "examples", "assets", name), dst)
            paths.append(str(dst))
    if broken:
        bad = tmp_path / "10-broken.glb"
        bad.write_bytes((tmp_path / "00-fox-walk.glb").read_bytes()[:300])
        paths.insert(len(paths) // 2, str(bad))
    return paths


def _slow_parent(monkeypatch, delay_s: float):
    """Make this process lint slowly (workers keep the real speed) so workers
    surely get chunks; returns the list of files this process linted."""
    parent = os.getpid()
    real = pool.lint_file
    mine = []

    def slow(path, plan, *a, **k):
        if os.getpid() == parent:
            mine.append(path)
            time.sleep(delay_s)
        return real(path, plan, *a, **k)

    monkeypatch.setattr(pool, "lint_file", slow)
    return mine


def _doc(result):
    """The comparable content of a LintResult (paths, findings, gaps, errors, in order)."""
    out = []
    for f in result.files:
        out.append(
            (
                f.path,
                f.error,
                f.clip_names,
                [x.to_json() for x in f.findings],
                [g.to_json() for g in f.coverage_gaps],
            )
        )
    return out


def test_chunk_bounds_cover_every_file_once_in_order():
    # 10 files, 2 processes: ceil(10/8) = 2, then ceil(8/8) = 1 each
    assert pool.chunk_bounds(10, 2) == [(0, 2)] + [(i, i + 1) for i in range(2, 10)]
    for n, procs in ((1, 2), (7, 3), (1000, 2), (4321, 8)):
        chunks = pool.chunk_bounds(n, procs)
        assert chunks[0][0] == 0 and chunks[-1][1] == n
        assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:]))
        sizes = [hi - lo for lo, hi in chunks]
        assert max(sizes) <= 32 and sizes == sorted(sizes, reverse=True) and sizes[-1] == 1
    # 1,000 files on 2 processes: 32-file chunks while > 256 files are left
    assert pool.chunk_bounds(1000, 2)[0] == (0, 32)


@pytest.mark.parametrize("start_method", ["fork", "spawn", "forkserver"])
def test_jobs_n_gives_the_jobs_1_result(tmp_path, monkeypatch, start_method):
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start_method} start method here")
    monkeypatch.setenv("ANIMSMITH_START_METHOD", start_method)
    paths = _pack(tmp_path)
    contract = load_contract(CONFIG)
    one = _doc(lint.run(paths, contract, jobs=1))
    assert [p for p, *_ in one] == paths
    assert sum(1 for _, err, *_ in one if err) == 1
    mine = _slow_parent(monkeypatch, 0.02 if start_method == "fork" else 0.1)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    for jobs in (2, 3) if start_method == "fork" else (2,):
        del mine[:]
        assert _doc(lint.run(paths, contract, jobs=jobs)) == one, jobs
        assert 0 < len(mine) < len(paths)  # both this process and the workers linted
        assert not list((tmp_path / "scratch").glob("animsmith-lint-*"))  # the run's chunk folder is gone


def test_cli_json_identical_with_jobs(tmp_path, capsys, monkeypatch):
    paths = _pack(tmp_path, copies=3, broken=False)
    one = run_cli(["--config", CONFIG, "lint", "--format", "json", "--jobs", "1", *paths], capsys)
    two = run_cli(["--config", CONFIG, "lint", "--format", "json", "--jobs", "2", *paths], capsys)
    assert one[0] == two[0] == 1 and one[2] == two[2]
    assert one[1] == two[1]  # byte for byte: the measurements written ahead by each process are the text one process writes


def _in_worker(parent_pid: int) -> bool:
    return os.getpid() != parent_pid


def test_a_killed_worker_loses_no_file(tmp_path, monkeypatch):
    """A worker that dies mid-run (``os._exit``, as an OOM kill would) has its files linted here."""
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    paths = _pack(tmp_path)
    contract = load_contract(CONFIG)
    one = _doc(lint.run(paths, contract, jobs=1))
    parent = os.getpid()
    marker = tmp_path / "worker-died"
    mine = _slow_parent(monkeypatch, 0.01)
    slow = pool.lint_file
    done = []

    def dying(path, plan, *a, **k):
        if _in_worker(parent):
            done.append(path)
            if len(done) == 5:  # mid-chunk, after some chunks were delivered
                marker.write_text(path)
                os._exit(9)
        return slow(path, plan, *a, **k)

    monkeypatch.setattr(pool, "lint_file", dying)
    assert _doc(lint.run(paths, contract, jobs=2)) == one
    assert marker.exists() and marker.read_text() in mine  # its file was linted here


def test_a_worker_that_dies_holding_the_counter_lock(tmp_path, monkeypatch):
    """Claiming stops, the parent lints everything not delivered; no hang."""
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    paths = _pack(tmp_path, copies=2)
    contract = load_contract(CONFIG)
    one = _doc(lint.run(paths, contract, jobs=1))
    parent = os.getpid()
    marker = tmp_path / "worker-died"
    _slow_parent(monkeypatch, 0.01)
    real = pool._claim
    claims = []

    def claim(counter, timeout=None):
        if _in_worker(parent):
            claims.append(1)
            if len(claims) == 2:  # after one delivered chunk
                counter.get_lock().acquire()
                marker.touch()
                os._exit(9)
        return real(counter, timeout)

    monkeypatch.setattr(pool, "_claim", claim)
    started = time.monotonic()
    assert _doc(lint.run(paths, contract, jobs=2)) == one
    assert marker.exists() and time.monotonic() - started < 30


def test_an_error_is_raised_in_file_order(tmp_path, monkeypatch):
    """Files 4 and 15 both fail; 4 is slow, so (with the main process on the
    first chunk and a worker on the second) file 15 fails first. As with
    --jobs 1, the error raised is file 4's."""
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    paths = _pack(tmp_path)
    real = pool.lint_file

    def failing(path, plan, *a, **k):
        if path == paths[4]:
            time.sleep(0.5)
        if path in (paths[4], paths[15]):
            raise ValueError(f"bug on file {paths.index(path)}")
        return real(path, plan, *a, **k)

    monkeypatch.setattr(pool, "lint_file", failing)
    contract = load_contract(CONFIG)
    for jobs in (1, 2):
        with pytest.raises(ValueError, match="bug on file 4$"):
            lint.run(paths, contract, jobs=jobs)


class _NeedsTwoArguments(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a}/{b}")


def test_a_worker_error_that_cannot_be_rebuilt_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    paths = _pack(tmp_path)
    parent = os.getpid()
    _slow_parent(monkeypatch, 0.01)
    real = pool.lint_file

    def failing(path, plan, *a, **k):
        if _in_worker(parent):
            raise _NeedsTwoArguments("x", "y")
        return real(path, plan, *a, **k)

    monkeypatch.setattr(pool, "lint_file", failing)
    with pytest.raises(RuntimeError, match="_NeedsTwoArguments: x/y"):
        lint.run(paths, load_contract(CONFIG), jobs=2)


def test_a_worker_that_fails_to_start(tmp_path, monkeypatch):
    """The start error itself is raised; started workers are reaped; the collector is unfrozen."""
    import gc
    import multiprocessing.process

    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    paths = _pack(tmp_path, copies=2)
    real_start = multiprocessing.process.BaseProcess.start
    starts = []

    def start(self):
        starts.append(self)
        if len(starts) == 2:
            raise BlockingIOError("fork: Resource temporarily unavailable")
        return real_start(self)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", start)
    before = gc.get_freeze_count()
    with pytest.raises(BlockingIOError):
        lint.run(paths, load_contract(CONFIG), jobs=3)
    assert gc.get_freeze_count() == before
    assert starts[0].exitcode is not None and not multiprocessing.active_children()


KILL_MID_SEND = """
import os, sys, time
sys.path.insert(0, {tests!r})
sys.path.insert(0, os.path.join(os.path.dirname({tests!r}), "support"))
from animsmith import lint
from animsmith.lint import pool
from animsmith.checks import load_contract
from test_lint_jobs import _doc
paths = {paths!r}
contract = load_contract({config!r})
one = _doc(lint.run(paths, contract, jobs=1))
parent = os.getpid()
real = pool.lint_file
seen = []

def big_then_die(path, plan, *a, **k):
    out = real(path, plan, *a, **k)
    if os.getpid() != parent:
        seen.append(path)
        out.result.padding = b"x" * 400_000  # a chunk result far over the 64 KiB pipe buffer
        if len(seen) == 6:
            os._exit(9)
    else:
        time.sleep(0.02)
    return out

pool.lint_file = big_then_die
print("same" if _doc(lint.run(paths, contract, jobs=2)) == one else "different")
"""


def test_a_worker_killed_after_sending_large_results_does_not_hang(tmp_path):
    import subprocess
    import sys

    paths = _pack(tmp_path)
    code = KILL_MID_SEND.format(tests=os.path.dirname(os.path.abspath(__file__)), paths=paths, config=CONFIG)
    env = dict(os.environ, ANIMSMITH_START_METHOD="fork")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "same"


def test_forked_workers_import_nothing_the_parent_could_have(tmp_path):
    """Everything lint_file imports lazily is imported before the fork: a module
    the --jobs 1 run imports is not imported more often by the --jobs 2 run."""
    import collections
    import subprocess
    import sys

    paths = _pack(tmp_path, copies=3, broken=False)
    env = dict(os.environ, ANIMSMITH_START_METHOD="fork")

    def imports(jobs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "animsmith", "--config", CONFIG, "lint", "--jobs", jobs, *paths],
            capture_output=True, text=True, env=env, timeout=120,
        )
        assert proc.returncode == 1, proc.stderr[-1000:]
        return collections.Counter(
            line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")
        )

    one, two = imports("1"), imports("2")
    assert one["animsmith.io.gltf"] == 1
    # _winapi: a Windows-only module that multiprocessing probes (a failed import, listed per attempt)
    again = sorted(name for name, count in one.items() if two[name] > count and name != "_winapi")
    assert again == [], again


ORPHAN = """
import os, sys, tempfile, time
sys.path.insert(0, {tests!r})
tempfile.tempdir = {scratch!r}
from animsmith import lint
from animsmith.lint import pool
from animsmith.checks import load_contract
real = pool.lint_file
parent = os.getpid()

def slow(path, plan, *a, **k):
    if os.getpid() != parent:  # a worker is linting: the test may kill the parent now
        open(os.path.join({started!r}, str(os.getpid())), "w").close()
    time.sleep(0.05)
    return real(path, plan, *a, **k)

pool.lint_file = slow
print(os.getpid(), flush=True)
lint.run({paths!r}, load_contract({config!r}), jobs=2)
"""


def test_workers_of_a_killed_parent_stop_and_clean_up(tmp_path):
    """SIGKILL on the main process (no cleanup runs there): its workers notice, stop
    after their chunk and remove the chunk files and the folder."""
    import signal
    import subprocess
    import sys

    paths = _pack(tmp_path, broken=False)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    started = tmp_path / "started"
    started.mkdir()
    code = ORPHAN.format(tests=os.path.dirname(os.path.abspath(__file__)), scratch=str(scratch), paths=paths,
                         config=CONFIG, started=str(started))
    env = dict(os.environ, ANIMSMITH_START_METHOD="fork")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    proc.stdout.readline()
    deadline = time.monotonic() + 60  # a worker has started linting (slow on a loaded machine)
    while not any(started.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert any(scratch.iterdir())  # the run's chunk folder exists while its workers run
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 60  # the orphan finishes its chunk first: slow on a loaded machine
    while any(scratch.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(scratch.iterdir())  # folder and chunk files gone: the orphaned worker stopped and cleaned up


def test_a_worker_that_exits_holding_the_counter_lock(tmp_path, monkeypatch):
    """Exit code 0 (a Ctrl-C caught between acquiring and releasing, say) with the lock
    held: the main process stops claiming and lints the rest; no hang."""
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    paths = _pack(tmp_path, copies=2)
    contract = load_contract(CONFIG)
    one = _doc(lint.run(paths, contract, jobs=1))
    parent = os.getpid()
    _slow_parent(monkeypatch, 0.01)
    real = pool._claim

    def claim(counter, timeout=None):
        if _in_worker(parent):
            counter.get_lock().acquire()
            os._exit(0)
        return real(counter, timeout)

    monkeypatch.setattr(pool, "_claim", claim)
    started = time.monotonic()
    assert _doc(lint.run(paths, contract, jobs=2)) == one
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("how", ["close_early", "consumer_error", "start_failure"])
def test_the_chunk_folder_is_removed_on_every_exit(tmp_path, monkeypatch, how):
    import multiprocessing.process

    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    paths = _pack(tmp_path, copies=2)
    plan = lint.make_plan(load_contract(CONFIG), None, False)
    if how == "start_failure":
        monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", lambda self: (_ for _ in ()).throw(OSError("no fork")))
        with pytest.raises(OSError):
            list(pool.iter_outcomes(paths, plan, 2))
    else:
        gen = pool.iter_outcomes(paths, plan, 2)
        first = next(gen)
        assert first.result.path == paths[0]
        assert any(scratch.iterdir())  # the folder exists while the run goes on
        if how == "close_early":
            gen.close()
        else:
            with pytest.raises(KeyError):
                gen.throw(KeyError("consumer failed"))
    assert not any(scratch.iterdir())
    assert not multiprocessing.active_children()


def test_no_temporary_folder_means_one_process(tmp_path, monkeypatch):
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "does-not-exist"))
    paths = _pack(tmp_path, copies=2)
    contract = load_contract(CONFIG)
    assert _doc(lint.run(paths, contract, jobs=2)) == _doc(lint.run(paths, contract, jobs=1))


PARENT_PROBE = """
import multiprocessing, os, sys, time
sys.path.insert(0, {root!r})
from animsmith.lint.pool import _parent_alive

def child(method, parent_pid, out):
    open(out, "w").write("alive" if _parent_alive(method, parent_pid) else "dead at start")
    while _parent_alive(method, parent_pid):
        time.sleep(0.02)
    open(out, "w").write("orphaned")

if __name__ == "__main__":
    method, out = sys.argv[1], sys.argv[2]
    ctx = multiprocessing.get_context(method)
    p = ctx.Process(target=child, args=(method, os.getpid(), out))
    p.start()
    while not os.path.exists(out):
        time.sleep(0.01)
    print("started", flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_workers_see_their_main_process_die(tmp_path, method):
    """_parent_alive under every start method: true while the main process runs, false
    soon after it is killed (forkserver workers' OS parent is the fork server)."""
    import multiprocessing
    import signal
    import subprocess
    import sys

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    script = tmp_path / "probe.py"
    script.write_text(PARENT_PROBE.format(root=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
    out = tmp_path / "state"
    proc = subprocess.Popen([sys.executable, str(script), method, str(out)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "started"
    time.sleep(0.1)
    assert out.read_text() == "alive"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 15
    while out.read_text() != "orphaned" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.read_text() == "orphaned"
