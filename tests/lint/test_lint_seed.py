"""The user guide's transcript (seeds/004), byte for byte, and the example config."""

from __future__ import annotations

import os

import pytest
import subprocess
import sys

from lint_support import ROOT, run_cli, validate_json

SEED_STDOUT = (
    "examples/assets/run-ring.glb:\n"
    "  error[gait-group]: gait group 'run-ring': stride-anchor phases spread by 0.20 cycle (cap 0.15) — "
    "directional blends between these clips will skate or pop. Measured: [run_forward=0.75, "
    "run_backward=0.75, run_left=0.50, run_right=0.75] (measured 0.1988, expected 0.1500)\n"
    "  coverage[bind-pose] insufficient_rotation_evidence ×4 (scopes: first_frame_rest_delta; subjects: "
    "run_backward, run_forward, run_left, run_right): only 0 usable first-frame rotation track(s); at least "
    "three are required\n"
    "1 error(s), 0 warning(s), 0 note(s), 4 coverage gap(s), 0 available prediction facet(s), "
    "0 required-unavailable prediction facet(s)\n"
)
CONFIG = "examples/run-ring.animsmith.toml"
ASSET = "examples/assets/run-ring.glb"


def test_readme_command_prints_the_seed_transcript_and_exits_1():
    """The README's main command as a real process (stdout piped: no colour)."""
    proc = subprocess.run(
        [sys.executable, "-m", "animsmith", "--config", CONFIG, "lint", ASSET],
        cwd=ROOT,
        capture_output=True,
    )
    assert proc.stdout.decode("utf-8") == SEED_STDOUT
    assert proc.stderr == b""
    assert proc.returncode == 1


def test_seed_transcript_in_process_and_with_command_config(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert run_cli(["--config", CONFIG, "lint", ASSET], capsys) == (1, SEED_STDOUT, "")
    # the lint command's own --config means the same
    assert run_cli(["lint", "--config", CONFIG, ASSET], capsys) == (1, SEED_STDOUT, "")


def test_without_config_the_file_is_silent_about_groups(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no ./animsmith.toml here
    code, out, err = run_cli(["lint", os.path.join(ROOT, ASSET)], capsys)
    assert code == 0 and err == ""
    assert "gait-group" not in out and "sync-group" not in out and "time-complement" not in out
    assert out.endswith("0 error(s), 0 warning(s), 0 note(s), 4 coverage gap(s), 0 available prediction facet(s), 0 required-unavailable prediction facet(s)\n")


def test_per_clip_default_checks_stay_silent_on_the_ring(capsys, monkeypatch):
    """Only the bind-pose gaps and the gait-group error: every other check is quiet."""
    monkeypatch.chdir(ROOT)
    code, out, _ = run_cli(["--config", CONFIG, "lint", "--format", "json", ASSET], capsys)
    doc = validate_json(out)
    f = doc["files"][0]
    assert [x["check_id"] for x in f["findings"]] == ["gait-group"]
    assert {g["check_id"] for g in f["coverage_gaps"]} == {"bind-pose"}
    assert code == 1


def test_json_of_the_seed_run(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, _ = run_cli(["--config", CONFIG, "lint", "--format", "json", ASSET], capsys)
    doc = validate_json(out)
    assert code == 1
    assert doc["schema_version"] == 1 and doc["command"] == "lint"
    assert doc["summary"] == {
        "errors": 1, "warnings": 0, "notes": 0, "coverage_gaps": 4, "files": 1, "prediction_facets": {"available": 0, "required_unavailable": 0},
    }
    f = doc["files"][0]
    assert f["path"] == ASSET
    finding = f["findings"][0]
    assert finding["group"] == "run-ring" and finding["clip"] is None and finding["severity"] == "error"
    # circular spread of 0.75/0.75/0.50/0.75 (reference §4.4 worked example)
    assert abs(finding["measured"] - 0.1988) < 1e-4 and finding["expected"] == 0.15
    group = f["measurements"]["groups"]["run-ring"]
    assert group["outliers"] == ["run_left"]
    assert abs(group["anchors"]["run_left"] - 0.50) < 1e-4
    assert set(f["measurements"]["clips"]) == {"run_forward", "run_backward", "run_left", "run_right"}
    gaps = f["coverage_gaps"]
    assert len(gaps) == 4 and {g["code"] for g in gaps} == {"insufficient_rotation_evidence"}
    assert all(g["scope"] == "first_frame_rest_delta" for g in gaps)


@pytest.mark.slow
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_jobs_2_output_is_identical(capsys, monkeypatch, start_method):
    import multiprocessing

    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start_method} start method on this platform")
    monkeypatch.setenv("ANIMSMITH_START_METHOD", start_method)
    monkeypatch.chdir(ROOT)
    # three files (the ring twice via different spellings is deduplicated, so use the other examples)
    paths = [ASSET, "examples/assets/fox-walk.glb", "examples/assets/spider-walk-rough.glb"]
    paths = [p for p in paths if os.path.exists(p)]
    one = run_cli(["--config", CONFIG, "lint", "--jobs", "1", *paths], capsys)
    two = run_cli(["--config", CONFIG, "lint", "--jobs", "2", *paths], capsys)
    assert one == two
    assert one[1].startswith(SEED_STDOUT.splitlines()[0] + "\n")


def test_pool_start_method_default_and_override(monkeypatch):
    import multiprocessing
    import sys

    from animsmith.lint import pool_start_method

    monkeypatch.delenv("ANIMSMITH_START_METHOD", raising=False)
    expected = "fork" if sys.platform.startswith("linux") else "spawn"
    assert pool_start_method() == expected
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "spawn")
    assert pool_start_method() == "spawn"
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "no-such-method")  # ignored, not an error
    assert pool_start_method() == expected
    assert expected in multiprocessing.get_all_start_methods()


def test_jobs_auto_worker_count(monkeypatch):
    import animsmith.lint.pool as lint

    monkeypatch.setattr(lint, "usable_cpus", lambda: 4)
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    assert lint.effective_jobs("auto", 10) == 1  # too few files to pay for a worker
    assert lint.effective_jobs("auto", 127) == 1
    assert lint.effective_jobs("auto", 128) == 2  # 64 files per forked worker
    assert lint.effective_jobs("auto", 100000) == 4  # capped by the CPUs
    monkeypatch.setattr(lint, "usable_cpus", lambda: 64)
    assert lint.effective_jobs("auto", 100000) == lint.AUTO_MAX_WORKERS == 8
    monkeypatch.setenv("ANIMSMITH_START_METHOD", "spawn")
    assert lint.effective_jobs("auto", 511) == 1  # spawned workers re-import: 256 files each
    assert lint.effective_jobs("auto", 512) == 2
    assert lint.effective_jobs(3, 1) == 3 and lint.effective_jobs("2", 5) == 2
    # an explicit N is capped at 4 per usable CPU (at least 8): `-j 1000` is a typo, not a plan
    monkeypatch.setattr(lint, "usable_cpus", lambda: 2)
    assert lint.effective_jobs(1000, 5000) == 8 and lint.effective_jobs(8, 5000) == 8
    monkeypatch.setattr(lint, "usable_cpus", lambda: 64)
    assert lint.effective_jobs(1000, 5000) == 256 and lint.effective_jobs(100, 5000) == 100


def test_jobs_flag_accepts_auto_and_refuses_junk(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    auto = run_cli(["--config", CONFIG, "lint", "--jobs", "auto", ASSET], capsys)
    one = run_cli(["--config", CONFIG, "lint", "-j", "1", ASSET], capsys)
    assert auto == one and auto[0] == 1
    for bad in ("0", "-1", "two", ""):
        code, out, err = run_cli(["--config", CONFIG, "lint", "--jobs", bad, ASSET], capsys)
        assert code == 2 and out == "" and "--jobs" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_forked_pool_unfreezes_the_collector(monkeypatch):
    import gc

    from animsmith.checks import load_contract
    from animsmith.lint import run as run_lint

    monkeypatch.setenv("ANIMSMITH_START_METHOD", "fork")
    monkeypatch.chdir(ROOT)
    before = gc.get_freeze_count()
    result = run_lint([ASSET, ASSET], load_contract(CONFIG), jobs=2)
    assert gc.get_freeze_count() == before  # objects frozen for the workers are collectable again
    assert result.summary() == run_lint([ASSET, ASSET], load_contract(CONFIG), jobs=1).summary()
    assert result.summary()["errors"] == 1  # the ring's gait-group error (groups are judged once)
