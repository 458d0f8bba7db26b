"""CI output formats of `lint` (SARIF, GitHub, JUnit, Markdown), --output, --shard, merge-results.

The renderers are checked against a hand-built lint result (known findings,
known gaps), so every expected line is written out here, not copied from
output.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import pytest

from animsmith.checks import registry
from animsmith.ci.merge import merge_lint_docs
from animsmith.lint.shard import shard_of, shard_paths
from animsmith.lint import FileResult, LintResult
from animsmith.render import render_lint
from animsmith.results import CoverageGap, Finding
from builders import gait_clip
from lint_support import ROOT, run_cli, validate_json, write_clips, write_config

SARIF_SCHEMA = os.path.join(ROOT, "docs", "schema", "sarif-2.1.0.json")


def known_result() -> LintResult:
    """Two files: an error with awkward characters, a warning, a note and gaps."""
    a = FileResult(
        path="assets/ring.glb",
        findings=[
            Finding("gait-group", "error", "spread 100% too wide,\nsee: ring", group="run-ring", measured=0.2, expected=0.15),
            Finding("foot-slide", "warning", "left foot slides", clip="walk", bone="LeftFoot", time_s=0.5, measured=0.31, expected=0.25),
        ],
        coverage_gaps=[
            CoverageGap("bind-pose", "insufficient_rotation_evidence", "only 0 usable tracks", "first_frame_rest_delta", ["walk"]),
            CoverageGap("bind-pose", "insufficient_rotation_evidence", "only 0 usable tracks", "first_frame_rest_delta", ["run"]),
        ],
        clip_names=["walk", "run"],
    )
    b = FileResult(
        path="assets/b|c.glb",
        findings=[Finding("fps", "note", "fps is 24", clip="idle")],
        clip_names=["idle"],
    )
    return LintResult(files=[a, b])


# ---------------------------------------------------------------- SARIF


def test_sarif_validates_and_has_one_rule_per_check():
    import jsonschema

    doc = json.loads(render_lint(known_result(), "sarif"))
    with open(SARIF_SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(doc)
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    specs = registry()
    assert [r["id"] for r in rules] == list(specs)
    for r in rules:
        spec = specs[r["id"]]
        assert r["shortDescription"]["text"] == spec.summary
        assert spec.summary in r["help"]["text"]
        assert r["defaultConfiguration"]["level"] == spec.severity
    results = run["results"]
    assert [(x["ruleId"], x["level"]) for x in results] == [("gait-group", "error"), ("foot-slide", "warning"), ("fps", "note")]
    for x in results:
        assert rules[x["ruleIndex"]]["id"] == x["ruleId"]
    uris = [x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for x in results]
    assert uris == ["assets/ring.glb", "assets/ring.glb", "assets/b%7Cc.glb"]
    assert results[0]["message"]["text"] == "spread 100% too wide,\\u000asee: ring (measured 0.2000, expected 0.1500)"
    assert results[1]["properties"]["bone"] == "LeftFoot"
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert len(notes) == 2 and {n["associatedRule"]["id"] for n in notes} == {"bind-pose"}
    assert run["properties"]["summary"] == {
        "errors": 1, "warnings": 1, "notes": 1, "coverage_gaps": 2, "files": 2, "prediction_facets": {"available": 0, "required_unavailable": 0},
    }


def test_sarif_schema_rejects_a_bad_level():
    import jsonschema

    doc = json.loads(render_lint(known_result(), "sarif"))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with open(SARIF_SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(schema).validate(doc)


# ---------------------------------------------------------------- GitHub


def test_github_workflow_commands_and_escaping():
    lines = render_lint(known_result(), "github").splitlines()
    assert lines[0] == (
        "::error file=assets/ring.glb,title=animsmith gait-group (group 'run-ring')::"
        "spread 100%25 too wide,\\u000asee: ring (measured 0.2000, expected 0.1500)"
    )
    assert lines[1] == (
        "::warning file=assets/ring.glb,title=animsmith foot-slide (clip 'walk' bone 'LeftFoot' @0.500s)::"
        "left foot slides (measured 0.3100, expected 0.2500)"
    )
    assert lines[2] == "::notice file=assets/b|c.glb,title=animsmith fps (clip 'idle')::fps is 24"
    assert lines[-1] == "1 error(s), 1 warning(s), 1 note(s), 2 coverage gap(s), 0 available prediction facet(s), 0 required-unavailable prediction facet(s)"


def test_github_escape_rules():
    from animsmith.render.github import escape_data, escape_property

    assert escape_data("a%b\r\nc") == "a%25b%0D%0Ac"
    assert escape_property("x:y,z%\n") == "x%3Ay%2Cz%25%0A"


def test_github_real_newline_in_message_is_escaped():
    r = LintResult(files=[FileResult(path="a,b:c.glb", findings=[Finding("nan", "error", "line1\nline2\r%")])])
    (line, _) = render_lint(r, "github").splitlines()
    assert line == "::error file=a%2Cb%3Ac.glb,title=animsmith nan::line1\\u000aline2\\u000d%25"


def test_github_plain_lines_cannot_be_workflow_commands():
    """A coverage gap line starts with the file's path: a path that reads as a workflow
    command (or the older ##[ form) must not run as one; plain lines are escaped like
    the text output, not with the command escapes (no %25 in the log)."""
    gap = CoverageGap("bind-pose", "insufficient_rotation_evidence", "only 0 usable tracks", None, ["walk"])
    paths = ["::error title=X::pwned.glb", "  ::warning::y.glb", "##[error]z.glb", "100% \u202ex.glb", "ok::a.glb",
             "a##[add-mask]b.glb"]
    subject_gap = CoverageGap("bind-pose", "insufficient_rotation_evidence", "why", None, ["face ##[stop-commands]tok"])
    r = LintResult(files=[FileResult(path=p, coverage_gaps=[gap]) for p in paths]
                   + [FileResult(path="c.glb", coverage_gaps=[subject_gap])])
    lines = render_lint(r, "github").splitlines()[:-1]
    assert len(lines) == len(paths) + 1
    for line in lines:
        # the runner's two command forms: "::" leading (after blanks), "##[" anywhere
        assert not line.lstrip().startswith("::") and "##[" not in line
    assert lines[0].startswith("./::error title=X::pwned.glb:  coverage[bind-pose] insufficient_rotation_evidence ×1")
    assert lines[1].startswith("./  ::warning::y.glb:") and lines[2].startswith("#\\u0023[error]z.glb:")
    assert lines[3].startswith("100% \\u202ex.glb:") and lines[4].startswith("ok::a.glb:")
    assert lines[5].startswith("a#\\u0023[add-mask]b.glb:") and "face #\\u0023[stop-commands]tok" in lines[6]


# ---------------------------------------------------------------- JUnit


def test_junit_one_case_per_file_and_check():
    checks = ["gait-group", "foot-slide", "bind-pose", "fps", "nan"]
    root = ET.fromstring(render_lint(known_result(), "junit", checks=checks))
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["assets/ring.glb", "assets/b|c.glb"]
    cases = suites[0].findall("testcase")
    order = list(registry())
    assert [c.get("name") for c in cases] == sorted(checks, key=order.index)
    by = {c.get("name"): c for c in cases}
    fails = by["gait-group"].findall("failure")
    assert len(fails) == 1 and fails[0].get("type") == "gait-group"
    assert by["foot-slide"].find("failure") is None  # a warning does not fail
    assert "left foot slides" in by["foot-slide"].find("system-out").text
    assert by["bind-pose"].find("skipped") is not None
    assert by["nan"].find("failure") is None and by["nan"].find("skipped") is None
    assert root.get("tests") == "10" and root.get("failures") == "1" and root.get("skipped") == "1"
    assert suites[1].get("failures") == "0"


def test_junit_deny_warnings_fails_warnings():
    root = ET.fromstring(render_lint(known_result(), "junit", checks=["foot-slide"], deny_warnings=True))
    case = [c for c in root.iter("testcase") if c.get("name") == "foot-slide"][0]
    assert case.find("failure") is not None
    assert root.get("failures") == "2"  # gait-group (shown: it had output) + foot-slide


# ---------------------------------------------------------------- Markdown


def test_markdown_table():
    md = render_lint(known_result(), "markdown")
    lines = md.splitlines()
    assert "**1 error(s), 1 warning(s), 1 note(s), 2 coverage gap(s), 0 available prediction facet(s), 0 required-unavailable prediction facet(s)**" in lines
    head = lines.index("| severity | check | file | where | message |")
    rows = [ln for ln in lines[head + 2 :] if ln.startswith("| ")][:3]
    assert rows[0].startswith("| ❌ error | `gait-group` | assets/ring.glb | group 'run-ring' |")
    assert rows[2] == "| ℹ️ note | `fps` | assets/b\\|c.glb | clip 'idle' | fps is 24 |"
    # every table row has exactly 5 unescaped cell separators + edges
    for row in rows:
        assert row.replace("\\|", "").count("|") == 6
    assert "`insufficient_rotation_evidence` ×2" in md


def test_markdown_fits_a_github_comment():
    """GitHub refuses a comment over 65,536 characters: long findings and many gap
    lines are cut with a count of what is left out, not past the limit."""
    long_msg = "x" * 500
    files = [
        FileResult(
            path=f"assets/clip_{i:04d}.glb",
            findings=[Finding("gait-group", "error", long_msg, group=f"ring-{i}")],
            coverage_gaps=[CoverageGap("bind-pose", f"gap_{i}", long_msg, None, [f"c{k}" for k in range(9)])],
        )
        for i in range(300)
    ]
    md = render_lint(LintResult(files=files), "markdown")
    assert len(md) <= 65_536
    lines = md.splitlines()
    rows = [ln for ln in lines if ln.startswith("| ❌ error")]
    gap_rows = [ln for ln in lines if ln.startswith("| assets/")]
    assert 0 < len(rows) < 200 and f"… {300 - len(rows)} more finding(s) not shown." in lines
    assert f"… {300 - len(gap_rows)} more coverage gap line(s) not shown." in lines
    assert lines[-1] == "</details>"
    # at most five subjects per gap line, then the count of the rest (as the text output)
    assert gap_rows == [] or "| c0, c1, c2, c3, c4, … +4 more |" in gap_rows[0]


def test_markdown_one_huge_name_does_not_hide_the_other_rows():
    from animsmith.render.markdown import MAX_CELL_CHARS

    huge = "x" * 100_000
    files = [
        FileResult(path="a.glb", findings=[Finding("fps", "note", "fps is 24", clip=huge)],
                   coverage_gaps=[CoverageGap("bind-pose", "code", "why", None, [huge])]),
        FileResult(path="b.glb", findings=[Finding("fps", "note", "fps is 25", clip="walk")]),
    ]
    md = render_lint(LintResult(files=files), "markdown")
    assert len(md) < 20_000 and "not shown" not in md
    rows = [ln for ln in md.splitlines() if ln.startswith("| ℹ️ note")]
    assert len(rows) == 2 and "fps is 25" in rows[1]
    # the name is cut to the cell limit, with an ellipsis
    assert "| clip '" + "x" * (MAX_CELL_CHARS - 1 - len("clip '")) + "… |" in rows[0]


def test_markdown_cells_break_mentions_and_show_newlines_alike():
    name = "@org/team ~~gone~~\nnext"
    result = LintResult(
        files=[
            FileResult(
                path="a.glb",
                findings=[Finding("fps", "note", "clip " + name, clip="c")],
                coverage_gaps=[CoverageGap("bind-pose", "code", "why " + name, None, [name])],
            )
        ]
    )
    md = render_lint(result, "markdown")
    # "@" + zero-width space entity; "~" escaped; the newline shown as \u000a (its backslash escaped)
    shown = r"@&#8203;org/team \~\~gone\~\~\\u000anext"
    assert "@org" not in md
    # the finding's message and the gap's subject and reason render the name the same way
    assert md.count(shown) == 3


# ---------------------------------------------------------------- CLI


def _ring_dir(tmp_path):
    """Four one-clip files; a cross-file gait group over three of them (b is half a cycle off)."""
    for name, off in (("a", 0.0), ("b", 0.5), ("c", 0.0), ("d", 0.0)):
        write_clips(tmp_path / f"{name}.glb", [gait_clip(name, offset_cycles=off, velocity_mps=(0.0, 0.0, 1.0))])
    cfg = write_config(
        tmp_path / "animsmith.toml",
        '[gait_groups.g]\nclips = ["a.glb", "b.glb", "c.glb"]\nmax_gait_phase_spread = 0.15\n',
    )
    return cfg


def test_output_file_and_text_on_terminal(tmp_path, capsys):
    cfg = _ring_dir(tmp_path)
    out_file = tmp_path / "lint.sarif"
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "sarif", "--output", str(out_file), str(tmp_path)], capsys)
    assert code == 1 and err == ""
    assert out.splitlines()[-1].startswith("1 error(s)")
    assert "error[gait-group]" in out
    doc = json.loads(out_file.read_text())
    assert doc["runs"][0]["results"][0]["ruleId"] == "gait-group"


def test_output_unwritable_is_exit_2(tmp_path, capsys):
    cfg = _ring_dir(tmp_path)
    code, out, err = run_cli(["--config", cfg, "lint", "-o", str(tmp_path / "nope" / "x.json"), "--format", "json", str(tmp_path)], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "x.json" in err


def test_shard_partition_is_deterministic_and_balanced():
    paths = [f"dir/f{i:02d}.glb" for i in range(11)]
    shuffled = paths[5:] + paths[:5]
    for n in (1, 2, 3, 4):
        parts = [shard_paths(paths, i, n) for i in range(1, n + 1)]
        assert sorted(p for part in parts for p in part) == sorted(paths)
        assert max(map(len, parts)) - min(map(len, parts)) <= 1
        # independent of argument order
        assert [set(shard_paths(shuffled, i, n)) for i in range(1, n + 1)] == [set(p) for p in parts]
    # rank r -> shard r mod N + 1 (sorted path order)
    assert shard_of(["b", "a", "c"], 2) == [2, 1, 1]
    assert shard_of(["./x/a.glb", "x/b.glb"], 2) == [1, 2]


@pytest.mark.parametrize("bad", ["0/2", "3/2", "1/0", "a/b", "1", "1/2/3", " 1/4", "+1/4", "\uff11/4", "1/99999999999999999999", "1/1000001"])
def test_bad_shard_is_exit_2(tmp_path, capsys, bad):
    cfg = _ring_dir(tmp_path)
    code, out, err = run_cli(["--config", cfg, "lint", "--shard", bad, str(tmp_path)], capsys)
    assert code == 2 and "--shard" in err and out == ""


def _findings_by_path(doc):
    return {os.path.basename(f["path"]): (f["findings"], f["coverage_gaps"]) for f in doc["files"]}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_shards_merged_equal_linting_together(tmp_path, capsys, n):
    cfg = _ring_dir(tmp_path)
    code_all, out_all, _ = run_cli(["--config", cfg, "lint", "--format", "json", str(tmp_path)], capsys)
    whole = validate_json(out_all)
    assert code_all == 1 and whole["summary"]["errors"] == 1
    parts = []
    for i in range(1, n + 1):
        dest = tmp_path / f"shard{i}.json"
        run_cli(["--config", cfg, "lint", "--format", "json", "--shard", f"{i}/{n}", "-o", str(dest), str(tmp_path)], capsys)
        parts.append(str(dest))
    code, out, err = run_cli(["merge-results", *parts], capsys)
    merged = validate_json(out)
    assert err == ""
    assert code == code_all
    assert merged["summary"] == whole["summary"]
    assert _findings_by_path(merged) == _findings_by_path(whole)
    # text format of the merge ends with the same summary line as lint
    code_t, out_t, _ = run_cli(["merge-results", "--format", "text", *parts], capsys)
    code_l, out_l, _ = run_cli(["--config", cfg, "lint", str(tmp_path)], capsys)
    assert out_t == out_l and code_t == code_l
    # JUnit lists the same test cases either way (the checks that ran are recorded)
    code_j, out_j, _ = run_cli(["merge-results", "--format", "junit", *parts], capsys)
    _, out_lj, _ = run_cli(["--config", cfg, "lint", "--format", "junit", str(tmp_path)], capsys)
    assert out_j == out_lj and code_j == code_all


def test_json_records_the_checks_that_ran_and_junit_lists_only_them(tmp_path, capsys):
    """--select narrows the run; a group check runs only when a declared group arms it
    (time-complement: a sync group with a time_complement table); merge-results of a
    --select run has the same JUnit test cases as the run itself."""
    cfg = _ring_dir(tmp_path)  # one gait group, no sync group
    glb = str(tmp_path / "a.glb")

    def clip_checks_and(*group_checks):
        return [s.id for s in registry().values() if s.scope == "clip" or s.id in group_checks]

    _, out, _ = run_cli(["--config", cfg, "lint", "--format", "json", glb], capsys)
    assert validate_json(out)["checks"] == clip_checks_and("gait-group")
    _, out, _ = run_cli(["--config", cfg, "lint", "--format", "json", "--select", "fps,sync-group,nan", glb], capsys)
    assert validate_json(out)["checks"] == ["nan", "fps"]
    sync = write_config(tmp_path / "sync.toml", '[sync_groups.s]\nclips = ["a.glb", "c.glb"]\n')
    _, out, _ = run_cli(["--config", sync, "lint", "--format", "json", glb], capsys)
    assert validate_json(out)["checks"] == clip_checks_and("sync-group")
    armed = write_config(
        tmp_path / "tc.toml",
        '[sync_groups.s]\nclips = ["a.glb", "c.glb"]\n[sync_groups.s.time_complement]\nmin_reflected_time_advantage = 0.2\n',
    )
    _, out, _ = run_cli(["--config", armed, "lint", "--format", "json", glb], capsys)
    assert validate_json(out)["checks"] == clip_checks_and("sync-group", "time-complement")
    dest = tmp_path / "sel.json"
    run_cli(["lint", "--select", "fps", "--format", "json", "-o", str(dest), glb], capsys)
    _, merged, _ = run_cli(["merge-results", "--format", "junit", str(dest)], capsys)
    _, direct, _ = run_cli(["lint", "--select", "fps", "--format", "junit", glb], capsys)
    assert merged == direct
    assert [c.get("name") for c in ET.fromstring(merged).iter("testcase")] == ["fps"]


def test_merged_checks_keep_only_registered_ids():
    """A hostile (or newer) document's check list cannot multiply the JUnit test cases."""
    from animsmith.ci.merge import merged_checks

    ids = list(registry())
    docs = [{"checks": ["x123", ids[3], "nan"] + [f"x{i}" for i in range(1000)]}, {"checks": [ids[1]]}]
    assert merged_checks(docs) == [ids[0], ids[1], ids[3]] and ids[0] == "nan"
    assert merged_checks(docs + [{}]) is None  # a document without the record: unknown


def test_merge_refuses_an_incomplete_or_mixed_set_of_shards(tmp_path, capsys):
    """A shard that stopped with exit 2 writes no JSON: merging the others must not pass
    as the whole run. Each shard records its place and its run (file count and a hash of
    the sorted file list); the merge wants every shard of one run, once each."""
    import hashlib

    cfg = _ring_dir(tmp_path)
    glbs = sorted(str(p) for p in tmp_path.glob("*.glb"))
    parts = {}
    for i in (1, 2, 3):
        dest = tmp_path / f"s{i}.json"
        run_cli(["--config", cfg, "lint", "--format", "json", "--shard", f"{i}/3", "-o", str(dest), str(tmp_path)], capsys)
        parts[i] = str(dest)
    doc = validate_json(open(parts[2]).read())  # the shard record is in the schema
    listing = "\n".join(sorted(os.path.normpath(p).replace(os.sep, "/") for p in glbs))
    from animsmith import __version__

    # the ring contract declares groups: the order the files were given in (the folder's, sorted) counts too
    order = "order:" + "\x00".join(sorted(os.path.normpath(p).replace(os.sep, "/") for p in glbs))
    setup = "\n".join([__version__, hashlib.sha256(open(cfg, "rb").read()).hexdigest()[:16], "*", "", order])
    assert doc["shard"] == {"index": 2, "count": 3, "files": len(glbs),
                            "run": hashlib.sha256(listing.encode()).hexdigest()[:16],
                            "setup": hashlib.sha256(setup.encode()).hexdigest()[:16]}
    code, out, err = run_cli(["merge-results", parts[1], parts[3]], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("animsmith: shard 2/3 missing: the merged result would leave out its files")
    code, _, err = run_cli(["merge-results", parts[1], parts[2], parts[3], parts[2]], capsys)
    assert code == 2 and err == f"animsmith: {parts[2]}: shard 2/3 given twice (also {parts[2]})\n"
    # shards of another run: another shard count
    other = tmp_path / "o1.json"
    run_cli(["--config", cfg, "lint", "--format", "json", "--shard", "1/2", "-o", str(other), str(tmp_path)], capsys)
    code, _, err = run_cli(["merge-results", parts[2], str(other)], capsys)
    assert code == 2 and err == f"animsmith: {other}: shard 1/2 of another run than {parts[2]} (shard count, files or file list differ)\n"
    # an unsharded result beside shards
    whole = tmp_path / "whole.json"
    run_cli(["--config", cfg, "lint", "--format", "json", "-o", str(whole), str(tmp_path)], capsys)
    assert "shard" not in json.loads(whole.read_text())
    code, _, err = run_cli(["merge-results", parts[1], str(whole)], capsys)
    assert code == 2 and err == f"animsmith: {whole}: not a shard result, merged with shards ({parts[1]} is one)\n"
    # a shard given twice (files removed so only the shard record can tell)
    twice = json.loads(open(parts[1]).read())
    twice["files"] = []
    dup = tmp_path / "dup.json"
    dup.write_text(json.dumps(twice))
    code, _, err = run_cli(["merge-results", parts[1], str(dup), parts[2], parts[3]], capsys)
    assert code == 2 and err == f"animsmith: {dup}: shard 1/3 given twice (also {parts[1]})\n"
    # a shard that lost a file entry: counts disagree with the run
    short = json.loads(open(parts[3]).read())
    short["files"] = short["files"][1:]
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(short))
    code, _, err = run_cli(["merge-results", parts[1], parts[2], str(cut)], capsys)
    assert code == 2 and err == f"animsmith: the shards hold {len(glbs) - 1} file(s), their run had {len(glbs)}\n"
    bad = json.loads(open(parts[1]).read())
    bad["shard"]["index"] = 0
    badp = tmp_path / "bad.json"
    badp.write_text(json.dumps(bad))
    code, _, err = run_cli(["merge-results", str(badp)], capsys)
    assert code == 2 and "malformed" in err
    # and the complete set merges (the JSON of a merge is no shard)
    code, out, err = run_cli(["merge-results", parts[3], parts[1], parts[2]], capsys)
    assert code == 1 and err == "" and "shard" not in validate_json(out)


def test_merge_deny_warnings_and_errors(tmp_path, capsys):
    doc = json.loads(render_lint(LintResult(files=[FileResult(path="w.glb", findings=[Finding("fps", "warning", "w")])]), "json"))
    p = tmp_path / "w.json"
    p.write_text(json.dumps(doc))
    assert run_cli(["merge-results", str(p)], capsys)[0] == 0
    assert run_cli(["merge-results", "--deny-warnings", str(p)], capsys)[0] == 1
    code, _, err = run_cli(["merge-results", str(p), str(p)], capsys)
    assert code == 2 and "overlap" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, out, err = run_cli(["merge-results", str(bad)], capsys)
    assert code == 2 and "bad.json" in err and out == ""
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"command": "measure"}))
    assert run_cli(["merge-results", str(other)], capsys)[0] == 2


def test_merge_lint_docs_sums():
    d1 = {"schema_version": 1, "command": "lint", "config": None, "files": [{"path": "b.glb", "findings": [{"severity": "error"}], "coverage_gaps": []}], "summary": {}}
    d2 = {"schema_version": 1, "command": "lint", "config": None, "files": [{"path": "a.glb", "findings": [], "coverage_gaps": [{}]}], "summary": {}}
    m = merge_lint_docs([("1", d1), ("2", d2)])
    assert [f["path"] for f in m["files"]] == ["a.glb", "b.glb"]
    assert m["summary"] == {"errors": 1, "warnings": 0, "notes": 0, "coverage_gaps": 1, "files": 2, "prediction_facets": {"available": 0, "required_unavailable": 0}}


def test_every_format_from_the_cli(tmp_path, capsys):
    cfg = _ring_dir(tmp_path)
    for fmt in ("sarif", "github", "junit", "markdown"):
        code, out, err = run_cli(["--config", cfg, "lint", "--format", fmt, str(tmp_path)], capsys)
        assert code == 1 and err == "" and out
    code, out, _ = run_cli(["--config", cfg, "lint", "--format", "junit", "--select", "gait-group", str(tmp_path)], capsys)
    root = ET.fromstring(out)
    assert {c.get("name") for c in root.iter("testcase")} == {"gait-group"}
    assert root.get("failures") == "1"


def test_no_progress_bar_when_not_a_tty(tmp_path, capsys):
    from animsmith.commands.lint import _progress

    with _progress(100) as on_file:
        assert on_file is None  # pytest's stderr is not a terminal
    for i in range(7):
        write_clips(tmp_path / f"f{i}.glb", [gait_clip(f"c{i}", velocity_mps=(0.0, 0.0, 1.0))])
    code, out, err = run_cli(["lint", str(tmp_path)], capsys)
    assert err == "" and out.splitlines()[-1].startswith("0 error(s)")


def test_written_output_is_readable_by_others(tmp_path, capsys):
    cfg = _ring_dir(tmp_path)
    dest = tmp_path / "out.md"
    old = os.umask(0o022)
    try:
        run_cli(["--config", cfg, "lint", "--format", "markdown", "-o", str(dest), str(tmp_path)], capsys)
    finally:
        os.umask(old)
    assert (dest.stat().st_mode & 0o777) == 0o644


def test_junit_lists_group_checks_only_when_armed(tmp_path, capsys):
    glb = write_clips(tmp_path / "one.glb", [gait_clip("walk", velocity_mps=(0.0, 0.0, 1.0))])
    code, out, _ = run_cli(["lint", "--format", "junit", glb], capsys)
    names = [c.get("name") for c in ET.fromstring(out).iter("testcase")]
    clip_checks = [s.id for s in registry().values() if s.scope == "clip"]
    assert code == 0 and names == clip_checks


def test_sarif_of_real_files_validates(capsys):
    import jsonschema

    data = os.path.join(ROOT, "tests", "data")
    code, out, err = run_cli(["lint", "--format", "sarif", data], capsys)
    assert code in (0, 1) and err == ""
    doc = json.loads(out)
    with open(SARIF_SCHEMA, encoding="utf-8") as fh:
        jsonschema.Draft7Validator(json.load(fh)).validate(doc)
    results = doc["runs"][0]["results"]
    # same findings, in the same order, as the JSON output
    code_j, out_j, _ = run_cli(["lint", "--format", "json", data], capsys)
    lint = json.loads(out_j)
    assert [(r["ruleId"], r["level"]) for r in results] == [
        (f["check_id"], f["severity"]) for fr in lint["files"] for f in fr["findings"]
    ]
    assert code_j == code


def _fingerprints(result) -> list:
    run = json.loads(render_lint(result, "sarif"))["runs"][0]
    return [x["partialFingerprints"]["animsmithFinding/v2"] for x in run["results"]]


def test_sarif_fingerprints_tell_findings_apart_and_survive_new_numbers():
    """GitHub merges results with equal fingerprints into one alert: findings that
    differ only in the channel named by the message, or repeat exactly, must not
    share one; a finding whose measured numbers change between runs keeps its own."""
    def one(findings):
        return LintResult(files=[FileResult(path="a.glb", findings=findings)])

    track = [
        Finding("constant-track", "note", f"{kind} channel of 'Hips' never changes", clip="walk", bone="Hips")
        for kind in ("translation", "rotation", "scale")
    ]
    twice = [Finding("nan", "error", "rotation key 3 is NaN", clip="walk", bone="Hips")] * 2
    fps = _fingerprints(one(track + twice))
    assert len(set(fps)) == 5 and all(len(x) == 32 for x in fps)
    # the same problem with other measured numbers (and keys) -> the same identity
    before = _fingerprints(one([Finding("gait-group", "error", "phases spread by 0.20 cycle (cap 0.15)", group="ring", measured=0.2)]))
    after = _fingerprints(one([Finding("gait-group", "error", "phases spread by 0.31 cycle (cap 0.15)", group="ring", measured=0.31)]))
    assert before == after
    # another file, group, clip or check -> another identity
    other = LintResult(files=[FileResult(path="b.glb", findings=[Finding("gait-group", "error", "phases spread by 0.20 cycle (cap 0.15)", group="ring")])])
    assert _fingerprints(other) != before
    # the ordinal of a repeat is counted within the run, in file order, so it is stable
    assert set(_fingerprints(one(twice))) < set(fps)


def test_sarif_fingerprints_are_unique_on_real_files(capsys):
    data = os.path.join(ROOT, "tests", "data")
    code, out, _ = run_cli(["lint", "--format", "sarif", data], capsys)
    results = json.loads(out)["runs"][0]["results"]
    fps = [r["partialFingerprints"]["animsmithFinding/v2"] for r in results]
    assert len(results) > 10 and len(set(fps)) == len(fps)


def _official_sarif_schema():
    """The OASIS SARIF 2.1.0 (rtm.5) JSON schema, as shipped in the npm package
    @microsoft/jest-sarif (MIT; installed by .ci/run into tests/out/sarif), or None."""
    cands = [
        os.environ.get("ANIMSMITH_SARIF_SCHEMA"),
        os.path.join(ROOT, "tests", "out", "sarif", "node_modules", "@microsoft", "jest-sarif",
                     "lib", "schemas", "sarif-2.1.0-rtm.5.json"),
    ]
    for c in cands:
        if c and os.path.isfile(c):
            return c
    return None


def test_sarif_validates_against_the_official_schema():
    import jsonschema

    path = _official_sarif_schema()
    if path is None:
        pytest.skip("official SARIF 2.1.0 schema not installed (npm @microsoft/jest-sarif; .ci/run installs it)")
    with open(path, encoding="utf-8") as fh:
        schema = json.load(fh)
    validator = jsonschema.Draft4Validator(schema)
    doc = json.loads(render_lint(known_result(), "sarif"))
    validator.validate(doc)
    # Negative control: the official schema rejects a level SARIF does not define.
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(doc)


@pytest.mark.parametrize("fmt", ["sarif", "github", "junit", "markdown", "text"])
def test_only_json_computes_measurements(fmt, capsys, monkeypatch):
    """The per-clip measurement dicts appear in the JSON document only: other formats
    never compute them, and their output is what rendering a run with them gives."""
    from animsmith.checks import load_contract
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.lint import run as run_lint

    monkeypatch.chdir(ROOT)
    config, asset = "examples/run-ring.animsmith.toml", "examples/assets/run-ring.glb"
    full = run_lint([asset], load_contract(config), jobs=1, with_measurements=True)
    assert full.files[0].measurements["clips"]  # what JSON prints
    expected = render_lint(full, fmt, checks=full.checks, deny_warnings=False) if fmt != "text" else None
    calls = []
    real = ClipAnalysis.measurements
    monkeypatch.setattr(ClipAnalysis, "measurements", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    code, out, _ = run_cli(["--config", config, "lint", "--jobs", "1", "--format", fmt, asset], capsys)
    assert code == 1 and calls == []
    if expected is not None:
        assert out == expected
    run_cli(["--config", config, "lint", "--jobs", "1", "--format", "json", asset], capsys)
    assert len(calls) == 4  # the ring's four clips


def test_junit_several_errors_of_one_check_are_one_failure():
    """Four clips failing one check in one file: one <failure> (the Ant JUnit schema allows at
    most one per test case, and readers such as GitLab's show only the first), its message the
    first finding plus "(+3 more)", its text every finding."""
    findings = [Finding(check_id="loop-seam-vel", severity="error", message=f"seam {i}", clip=f"c{i}") for i in range(4)]
    r = LintResult(files=[FileResult(path="ring.glb", findings=findings)])
    root = ET.fromstring(render_lint(r, "junit", checks=["loop-seam-vel"]))
    (case,) = root.iter("testcase")
    (fail,) = case.findall("failure")
    assert fail.get("message").endswith("seam 0 (+3 more)")
    assert [line.split(": ", 1)[1] for line in fail.text.splitlines()] == [f"seam {i}" for i in range(4)]
    assert root.get("failures") == "1"


def test_junit_failure_headline_is_an_error_before_warnings():
    """With --deny-warnings a case can fail on warnings and errors: the headline is an error."""
    findings = [Finding(check_id="foot-slide", severity="warning", message="warn first", clip="a"),
                Finding(check_id="foot-slide", severity="error", message="the error", clip="b")]
    r = LintResult(files=[FileResult(path="x.glb", findings=findings)])
    root = ET.fromstring(render_lint(r, "junit", checks=["foot-slide"], deny_warnings=True))
    (fail,) = next(root.iter("testcase")).findall("failure")
    assert fail.get("message").endswith("the error (+1 more)")


def test_merge_refuses_shards_linted_differently(tmp_path, capsys):
    """Shards of one file list linted with another --select, --allow or contract are not one
    run: their union is no run's result (a shard with --select nan beside a full one passed,
    with findings neither run would give)."""
    cfg = _ring_dir(tmp_path)
    other = tmp_path / "other.toml"
    other.write_text(open(cfg).read() + "\n[checks.nan]\nseverity = \"warning\"\n")

    def shard(i, name, *extra, config=cfg):
        dest = tmp_path / name
        code, _, err = run_cli(["--config", str(config), "lint", "--format", "json", "--shard", f"{i}/2", *extra,
                                "-o", str(dest), str(tmp_path)], capsys)
        assert code in (0, 1), err
        return str(dest)

    a1, a2 = shard(1, "a1.json"), shard(2, "a2.json")
    assert run_cli(["merge-results", a1, a2], capsys)[0] in (0, 1)
    for second in (shard(2, "sel.json", "--select", "nan"), shard(2, "allow.json", "--allow", "gait-group"),
                   shard(2, "cfg.json", config=other)):
        code, out, err = run_cli(["merge-results", a1, second], capsys)
        assert (code, out) == (2, "")
        assert "was linted with another contract, --select/--allow, animsmith version or (with groups) file order than" in err


def test_failed_run_removes_a_stale_output(tmp_path, capsys):
    """A run that stops with exit 2 (a corrupt file) leaves no result: a --output FILE from an
    earlier run is removed, so the old shard is not merged as this run's."""
    cfg = _ring_dir(tmp_path)
    dest = tmp_path / "shard-1.json"
    code, _, err = run_cli(["--config", cfg, "lint", "--format", "json", "--shard", "1/1", "-o", str(dest), str(tmp_path)], capsys)
    assert code in (0, 1) and dest.exists(), err
    victim = sorted(tmp_path.glob("*.glb"))[0]
    victim.write_bytes(victim.read_bytes()[:40])
    code, _, err = run_cli(["--config", cfg, "lint", "--format", "json", "--shard", "1/1", "-o", str(dest), str(tmp_path)], capsys)
    assert code == 2 and not dest.exists(), err


def test_sarif_fingerprints_do_not_depend_on_how_the_path_is_spelled(tmp_path, capsys, monkeypatch):
    """`assets/`, `./assets/` and the absolute path of the same folder are one set of alerts."""
    (tmp_path / "assets").mkdir()
    cfg = _ring_dir(tmp_path / "assets")
    monkeypatch.chdir(tmp_path)
    prints = []
    for spelling in ("assets", "./assets/", str(tmp_path / "assets")):
        code, out, err = run_cli(["--config", cfg, "lint", "--format", "sarif", spelling], capsys)
        assert code in (0, 1), err
        results = json.loads(out)["runs"][0]["results"]
        assert results
        prints.append(sorted(r["partialFingerprints"]["animsmithFinding/v2"] for r in results))
    assert prints[0] == prints[1] == prints[2]


def test_github_annotations_list_errors_first():
    """GitHub shows at most 10 annotations of a kind per step: errors come before warnings and
    notes whatever the file order."""
    findings = [Finding(check_id="foot-slide", severity="warning", message=f"w{i}", clip="a") for i in range(12)]
    r = LintResult(files=[FileResult(path="a.glb", findings=findings),
                          FileResult(path="b.glb", findings=[Finding(check_id="gait-group", severity="error", message="spread", group="ring")])])
    lines = render_lint(r, "github").splitlines()
    assert lines[0].startswith("::error file=b.glb") and all(x.startswith("::warning") for x in lines[1:13])


def test_junit_keeps_non_utf8_names_apart():
    """A file name that is not UTF-8 (lone surrogates) is its \\udcXX escape in JUnit, as in JSON:
    `bad\\xffname.glb` no longer collapses into `badname.glb`."""
    r = LintResult(files=[FileResult(path="bad\udcffname.glb"), FileResult(path="badname.glb")])
    root = ET.fromstring(render_lint(r, "junit", checks=["nan"]))
    assert [s.get("name") for s in root.findall("testsuite")] == ["bad\\udcffname.glb", "badname.glb"]


def test_junit_keeps_names_with_control_characters_apart():
    """Control characters XML cannot carry are written as their \\uXXXX escape, as the text output
    shows them (they were dropped: `a\\x01.glb` and `a\\x02.glb` were one suite, every test case
    id twice)."""
    r = LintResult(files=[FileResult(path="a\x01.glb"), FileResult(path="a\x02.glb"), FileResult(path="a\ufffe.glb")])
    root = ET.fromstring(render_lint(r, "junit", checks=["nan"]))
    assert [s.get("name") for s in root.findall("testsuite")] == ["a\\u0001.glb", "a\\u0002.glb", "a\\ufffe.glb"]
    ids = [(c.get("classname"), c.get("name")) for c in root.iter("testcase")]
    assert len(ids) == len(set(ids)) == 3


def test_sarif_names_a_non_utf8_file_without_a_lone_surrogate():
    """SARIF is UTF-8 JSON: a clip's logical location names a non-UTF-8 file name by its \\udcXX
    text, as the text output shows it (it carried the lone surrogate itself, which is not Unicode)."""
    r = LintResult(files=[FileResult(path="ring-\udcff.glb", findings=[Finding("nan", "error", "bad", clip="walk")])])
    out = render_lint(r, "sarif")
    out.encode("utf-8")  # no lone surrogate left to encode
    (result,) = json.loads(out)["runs"][0]["results"]
    names = [loc["fullyQualifiedName"] for loc in result["locations"][0]["logicalLocations"]]
    assert names == ["ring-\\udcff.glb#walk"]


def test_stdout_under_a_c_locale_matches_the_output_file(tmp_path):
    """Under a C/POSIX locale Python's stdout writes a non-UTF-8 file name's raw bytes
    (surrogateescape): `--format json` on stdout was invalid UTF-8 (merge-results refused it)
    while `-o` wrote the \\\\udcXX escape. Both now write the same bytes."""
    import subprocess
    import sys

    name = os.fsencode(str(tmp_path)) + b"/bad\xffname.glb"
    try:
        with open(name, "wb") as fh:
            fh.write(open(os.path.join(ROOT, "examples", "assets", "fox-walk.glb"), "rb").read())
    except OSError:
        pytest.skip("this file system refuses non-UTF-8 names")
    env = dict(os.environ, LC_ALL="C", LANG="C")
    env.pop("PYTHONIOENCODING", None)
    env.pop("PYTHONUTF8", None)
    out_file = tmp_path / "out.json"
    base = [sys.executable, "-m", "animsmith", "lint", "--format", "json", str(tmp_path)]
    piped = subprocess.run(base, capture_output=True, env=env, cwd=ROOT, timeout=120)
    written = subprocess.run(base + ["-o", str(out_file)], capture_output=True, env=env, cwd=ROOT, timeout=120)
    assert piped.returncode == written.returncode == 0, piped.stderr
    assert piped.stdout == out_file.read_bytes()
    doc = json.loads(piped.stdout.decode("utf-8"))
    assert [f["path"].endswith("bad\udcffname.glb") for f in doc["files"]] == [True]


def test_junit_skips_clip_checks_on_a_file_without_animations(tmp_path, capsys):
    """A file without animations: clip checks had nothing to judge, so JUnit reports them
    skipped, not passed; required-bones (which judges the skeleton) still passes."""
    from gltf_raw import RawGltf

    raw = RawGltf()
    hips = raw.node("Hips", translation=[0.0, 1.0, 0.0])
    raw.scene([hips])
    path = tmp_path / "noanim.glb"
    path.write_bytes(raw.glb())
    code, out, err = run_cli(["lint", "--format", "junit", str(path)], capsys)
    assert code == 0, err
    cases = {c.get("name"): c for c in ET.fromstring(out).iter("testcase")}
    assert cases["duration-sanity"].find("skipped") is not None
    assert cases["nan"].find("skipped") is not None and cases["bind-pose"].find("skipped") is not None
    assert cases["required-bones"].find("skipped") is None


def test_shard_setup_ignores_select_order_repeats_and_crlf(tmp_path):
    """Shards run with `--select fps` and `--select fps,fps`, or with the same contract checked
    out with CRLF line ends, are one run's."""
    from animsmith.lint.shard import run_setup, shard_record
    from animsmith.checks import parse_contract

    lf = parse_contract(b'[rig]\nprofile = "auto"\n', str(tmp_path / "a.toml"))
    crlf = parse_contract(b'[rig]\r\nprofile = "auto"\r\n', str(tmp_path / "a.toml"))
    rec = [shard_record(["a.glb"], 1, 1, run_setup(c, sel, allow)) for c, sel, allow in
           ((lf, ["fps", "nan"], ["nan"]), (crlf, ["nan", "fps", "fps"], ["nan", "nan"]))]
    assert rec[0]["setup"] == rec[1]["setup"]
    assert shard_record(["a.glb"], 1, 1, run_setup(lf, ["fps"]))["setup"] != rec[0]["setup"]


def test_sarif_fingerprint_under_a_symlinked_working_directory(tmp_path, capsys, monkeypatch):
    """An absolute path through the shell's logical working directory (a symlinked checkout,
    macOS /tmp) is the same file as its relative spelling."""
    real = tmp_path / "real"
    (real / "assets").mkdir(parents=True)
    cfg = _ring_dir(real / "assets")
    link = tmp_path / "link"
    os.symlink(real, link)
    monkeypatch.chdir(link)
    monkeypatch.setenv("PWD", str(link))
    prints = []
    for spelling in ("assets", str(link / "assets")):
        code, out, err = run_cli(["--config", cfg, "lint", "--format", "sarif", spelling], capsys)
        prints.append(sorted(r["partialFingerprints"]["animsmithFinding/v2"] for r in json.loads(out)["runs"][0]["results"]))
    assert prints[0] and prints[0] == prints[1]


def test_junit_knows_a_file_without_animations_without_duration_sanity(tmp_path, capsys):
    """`lint --format junit --select fps` on a file without animations: fps had nothing to judge
    (skipped), though duration-sanity, whose gap used to be the only signal, did not run."""
    from gltf_raw import RawGltf

    raw = RawGltf()
    raw.scene([raw.node("Hips", translation=[0.0, 1.0, 0.0])])
    path = tmp_path / "noanim.glb"
    path.write_bytes(raw.glb())
    code, out, err = run_cli(["lint", "--format", "junit", "--select", "fps", str(path)], capsys)
    assert code == 0, err
    (case,) = ET.fromstring(out).iter("testcase")
    assert case.get("name") == "fps" and case.find("skipped") is not None


def _hostile_ring(folder):
    """A copy of the example ring whose file, clip and bone names are GitHub runner commands."""
    import struct

    src = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
    data = open(src, "rb").read()
    (n,) = struct.unpack_from("<I", data, 12)
    doc = json.loads(data[20 : 20 + n])
    doc["animations"][0]["name"] = "::error title=Clip::c"
    doc["animations"][1]["name"] = "##[warning]clip"
    for node in doc["nodes"]:
        if node.get("name", "").endswith("LeftFoot"):
            node["name"] = "::warning::LeftFoot"
    j = json.dumps(doc).encode()
    j += b" " * (-len(j) % 4)
    rest = data[20 + n :]
    path = os.path.join(str(folder), "::error title=File::x.glb")
    with open(path, "wb") as fh:
        fh.write(b"glTF" + struct.pack("<II", 2, 20 + len(j) + len(rest)) + struct.pack("<II", len(j), 0x4E4F534A) + j + rest)
    return path


@pytest.mark.parametrize("args, kind", [
    (["lint"], "text"), (["lint", "--format", "json"], "json"), (["lint", "--format", "sarif"], "json"),
    (["lint", "--format", "junit"], "xml"), (["lint", "--format", "markdown"], "markdown"),
    (["measure"], "text"), (["measure", "--format", "json"], "json"), (["measure", "speed"], "text"),
    (["inspect"], "text"), (["inspect", "--format", "json"], "json"),
])
def test_no_stdout_line_is_a_runner_command(tmp_path, capsys, monkeypatch, args, kind):
    """A step's stdout is its log, and GitHub's runner reads a line starting with `::` (after
    blanks) or holding `##[` as a command: asset names must not make one, in any format. JSON,
    SARIF and JUnit write `##[` as a character escape their readers decode back (the same
    document); text shows the first `:` of such a line as `\\u003a` (names were printed verbatim)."""
    from lint_support import run_cli

    path = _hostile_ring(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli([*args, "--", os.path.basename(path)], capsys)
    assert code in (0, 1), err
    for line in out.splitlines():
        assert not line.lstrip().startswith("::") and "##[" not in line, line
    if kind == "json":
        text = json.dumps(json.loads(out), ensure_ascii=False)
        assert "##[warning]clip" in text and "::error title=Clip::c" in text  # the same names, decoded
    elif kind == "xml":
        assert "##[warning]clip" in ET.tostring(ET.fromstring(out), encoding="unicode")
    elif kind == "text":
        assert "\\u003a:error title=File::x.glb" in out or "./::error title=File::x.glb" in out


def test_wrote_lines_and_sim_lines_are_runner_safe(tmp_path, capsys, monkeypatch):
    """Lines that start with or name an output path (`wrote ...`, `sim` summaries) cannot be runner
    commands either, and a carriage return inside a line starts a new one for the runner."""
    import shutil

    from lint_support import run_cli

    from animsmith.text import runner_safe_line

    monkeypatch.chdir(tmp_path)
    ring = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
    shutil.copy(ring, "ring.glb")
    runs = [
        ["sim", "ring", "-o", "::warning::r.glb"],
        ["sim", "bake", "biped", "-o", "##[error]b.glb"],
        ["transform", "ring.glb", "--gait-anchor", "-o", "##[error]t.glb"],
        ["report", "ring.glb", "-o", "##[error]p.html"],
    ]
    for args in runs:
        code, out, err = run_cli(args, capsys)
        assert code == 0, err
        for line in out.splitlines():
            assert not line.lstrip().startswith("::") and "##[" not in line, line
    assert runner_safe_line("ok\r::error::x") == "ok\r\\u003a:error::x"


def test_merge_refuses_shards_given_the_files_in_other_orders_when_groups_exist(tmp_path, capsys):
    """`walk` is in z.glb and a.glb (anchors 0.75 and 0.40), `ref` in m.glb (0.75); the group names
    the bare `walk`, which resolves to the first file given. Shards given the files in different
    orders judged the group twice (both `walk`s) or not at all, and merge-results accepted them;
    the order now belongs to the run's setup, so such shards are refused. Without groups the
    order decides nothing and is not recorded."""
    from builders import gait_clip
    from lint_support import write_clips, write_config

    z = write_clips(tmp_path / "z.glb", [gait_clip("walk")])
    a = write_clips(tmp_path / "a.glb", [gait_clip("walk", offset_cycles=0.35)])
    m = write_clips(tmp_path / "m.glb", [gait_clip("ref")])
    cfg = write_config(tmp_path / "g.toml", '[gait_groups.g]\nclips = ["walk", "ref"]\n')
    plain = write_config(tmp_path / "plain.toml", "[rig]\nprofile = \"auto\"\n")

    def shard(config, i, order, name):
        out = str(tmp_path / name)
        code, _, err = run_cli(["--config", config, "lint", "--format", "json", "--shard", f"{i}/2", "-o", out, *order], capsys)
        assert code in (0, 1), err
        return out

    for config, refused in ((cfg, True), (plain, False)):
        s1 = shard(config, 1, [z, a, m], "s1.json")
        s2 = shard(config, 2, [a, z, m], "s2.json")
        code, out, err = run_cli(["merge-results", s1, s2], capsys)
        if refused:
            assert code == 2 and out == "" and "file order" in err, err
        else:
            assert code in (0, 1), err
    first = shard(cfg, 1, [z, a, m], "s1g.json")
    same = shard(cfg, 2, [z, a, m], "s2same.json")
    assert run_cli(["merge-results", first, same], capsys)[0] in (0, 1)
    # no group check runs (--select leaves them out): the order decides nothing and is not recorded
    s1 = shard(cfg, 1, [z, a, m, "--select", "nan"], "n1.json")
    s2 = shard(cfg, 2, [a, z, m, "--select", "nan"], "n2.json")
    assert run_cli(["merge-results", s1, s2], capsys)[0] in (0, 1)
