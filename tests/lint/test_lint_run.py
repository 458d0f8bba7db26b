"""The lint run as one assembly (``animsmith.lint.run``): shards, the callbacks the report
keeps its views with, the one summary count, the options the checks share with the
measurements, and the rule that counts each declared group member once."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from lint_support import ROOT, run_cli, write_config

from animsmith.checks import measurement_options
from animsmith.checks import load_contract
from animsmith.config import default_contract
from animsmith.lint import FileResult, expand_paths, make_plan, run, summary_of
from animsmith.lint.members import DistinctMembers, file_member_clip
from animsmith.lint.shard import shard_paths
from animsmith.render import render_lint
from animsmith.results import CoverageGap, Finding

CONFIG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")
ASSETS = os.path.join(ROOT, "examples", "assets")


def _by_path(result):
    return {f.path: [(x.check_id, x.severity, x.message) for x in f.findings] for f in result.files}


@pytest.mark.parametrize("count", [2, 3])
def test_shards_split_the_files_and_judge_each_group_once(count):
    """Every file in exactly one shard; the shards' findings together are the whole run's,
    the gait group's error included once (its members lie in several shards)."""
    paths = expand_paths([ASSETS])
    contract = load_contract(CONFIG)
    whole = run(paths, contract)
    seen, union = [], {}
    for index in range(1, count + 1):
        part = run(paths, contract, shard=(index, count))
        assert [f.path for f in part.files] == shard_paths(paths, index, count)
        assert part.shard["index"] == index and part.shard["count"] == count and part.shard["files"] == len(paths)
        seen += [f.path for f in part.files]
        union.update(_by_path(part))
    assert sorted(seen) == sorted(paths)
    assert union == _by_path(whole)
    group_errors = [x for f in whole.files for x in f.findings if x.check_id == "gait-group" and x.severity == "error"]
    assert len(group_errors) == 1  # the ring's four members judged together, once


def test_callbacks_see_every_file_and_clip_of_the_run():
    paths = expand_paths([ASSETS])
    assets, clips, done = [], [], []

    def on_asset(path, asset, roles):
        assets.append((path, len(asset.clips)))

    def on_clip(path, clip, analysis, measured):
        assert analysis.clip is clip
        clips.append((path, clip.name, measured))

    result = run(paths, load_contract(CONFIG), on_asset=on_asset, on_clip=on_clip, on_file=done.append)
    assert done == paths and [p for p, _ in assets] == paths
    assert [(p, n) for p, n, _ in clips] == [(f.path, n) for f in result.files for n in f.clip_names]
    assert sum(n for _, n in assets) == len(clips) == 10  # 1 + 4 + 1 + 4 clips in the four example files
    for path, name, measured in clips:  # the measurements handed over are the ones published
        (entry,) = [f for f in result.files if f.path == path]
        assert entry.measurements["clips"][name] is measured


def test_one_summary_counts_a_run_and_its_json_alike():
    def finding(severity):
        return Finding(check_id="fps", severity=severity, message="m", clip="c")

    files = [
        FileResult(path="a.glb", findings=[finding("error"), finding("note"), finding("note")]),
        FileResult(path="b.glb", findings=[finding("warning"), finding("note")],
                   coverage_gaps=[CoverageGap(check_id="fps", code="x", message="y", scope="clip", subjects=["c"])] * 2),
        FileResult(path="c.glb"),
    ]
    expected = {"errors": 1, "warnings": 1, "notes": 3, "coverage_gaps": 2, "files": 3,
                "prediction_facets": {"available": 0, "required_unavailable": 0}}
    assert summary_of(files) == expected
    from animsmith.lint import LintResult

    doc = json.loads(render_lint(LintResult(files=files), "json"))
    assert summary_of(doc["files"]) == expected == doc["summary"]


def test_checks_declare_the_options_the_measurements_take(tmp_path):
    # the documented defaults (docs/checks.md): loop-seam 0.02 m, foot-slide 0.03 m
    assert measurement_options(default_contract()) == {"min_stride_step_m": 0.02, "contact_height_m": 0.03}
    cfg = write_config(tmp_path / "c.toml", "[checks.loop-seam]\nmin_stride_step_m = 0.5\n\n[checks.foot-slide]\ncontact_height_m = 0.07\n")
    contract = load_contract(cfg)
    assert measurement_options(contract) == {"min_stride_step_m": 0.5, "contact_height_m": 0.07}
    assert make_plan(contract).measurement_options == {"min_stride_step_m": 0.5, "contact_height_m": 0.07}


def test_the_stride_floor_reaches_the_published_seam_ratio(tmp_path):
    """A floor above every foot step leaves no step to normalise the seam by: the published
    loop_seam_ratio of the looping run clips turns null, as the check's own verdict does."""
    path = os.path.join(ASSETS, "run-ring.glb")
    plain = run([path], load_contract(CONFIG)).files[0].measurements["clips"]
    assert any(m.get("loop_seam_ratio") is not None for m in plain.values())
    text = open(CONFIG, encoding="utf-8").read() + "\n[checks.loop-seam]\nmin_stride_step_m = 100.0\n"
    cfg = write_config(tmp_path / "floor.toml", text)
    floored = run([path], load_contract(cfg)).files[0].measurements["clips"]
    assert all(m.get("loop_seam_ratio") is None for m in floored.values())


def test_distinct_members():
    d = DistinctMembers()
    assert d.new_label("walk") and not d.new_label("walk")
    assert d.first_label("/a.glb", "walk", "walk") == "walk"
    assert d.new_label("a.glb#walk")
    assert d.first_label("/a.glb", "walk", "a.glb#walk") == "walk"  # the same clip, named another way
    assert d.first_label("/b.glb", "walk", "b.glb#walk") == "b.glb#walk"  # another file's clip of that name


class _Ref:
    def __init__(self, label, clip):
        self.label, self.clip = label, clip


def test_file_member_clip():
    assert file_member_clip(_Ref("a.glb", None), ["walk"]) == ("walk", None)
    assert file_member_clip(_Ref("a.glb#run", "run"), ["walk"]) == ("run", None)  # the caller says it is missing
    assert file_member_clip(_Ref("a.glb", None), []) == (None, "the file has no animations")
    assert file_member_clip(_Ref("a.glb", None), ["walk", "run"]) == (None, "file has 2 clips; name one as 'a.glb#<clip>'")


def test_collection_names_the_member_spelling_as_lint_does(tmp_path, capsys):
    pack = tmp_path / "pack.glb"
    shutil.copy(os.path.join(ASSETS, "run-ring.glb"), pack)
    cfg = write_config(tmp_path / "c.toml", '[gait_groups.ring]\nclips = ["pack.glb"]\n')
    code, out, err = run_cli(["--config", cfg, "collection", "transform-foot-cycle", "--group", "ring",
                              "--reference", "run_forward", "--dry-run", str(pack)], capsys)
    assert code == 2 and out == ""
    assert "group member 'pack.glb': file has 4 clips; name one as 'pack.glb#<clip>'" in err
    doc = json.loads(run_cli(["--config", cfg, "lint", "--format", "json", str(pack)], capsys)[1])
    messages = [f["message"] for f in doc["files"][0]["findings"]]
    assert "gait group 'ring' member 'pack.glb' not found: file has 4 clips; name one as 'pack.glb#<clip>'" in messages
