"""`merge-results` on hostile or malformed inputs: one named line on stderr, exit 2.

A result to merge is a CI artifact someone else wrote. Deep nesting, a
wrong-schema finding or gap, a non-finite number, a lone surrogate or an
oversized file must be refused up front as ``animsmith: <file>: <problem>``
(exit 2, nothing on stdout, no ``-o`` file) - never an internal error while
rendering, never a half-written output. Real ``lint --format json`` results
(the shipped examples, the tests/data corpus) must still merge unchanged.
"""

from __future__ import annotations

import copy
import glob
import json
import os
import sys

import pytest

from animsmith.cli import main
from lint_support import ROOT, run_cli, validate_json

FORMATS = ("json", "text", "sarif", "github", "junit", "markdown")
CORPUS = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "*.glb")))
EXAMPLES = os.path.join(ROOT, "examples")
RING_CONFIG = os.path.join(EXAMPLES, "run-ring.animsmith.toml")
MAX_RESULT_BYTES = 512 * 1024 * 1024  # animsmith.ci.merge.MAX_RESULT_BYTES, documented in docs/ci.md
MAX_RESULT_DEPTH = 64  # animsmith.ci.merge.MAX_RESULT_DEPTH
ID_RULE = "an identifier of letters, digits, '-', '_' and '.' (at most 100)"


def _lint_json(argv, dest):
    """Run ``animsmith <argv> --format json -o dest`` in-process (module fixtures have no capsys)."""
    with pytest.raises(SystemExit) as info:
        main([*argv[:-1], "--format", "json", "-o", str(dest), argv[-1]])
    assert info.value.code in (0, 1, None)
    with open(dest, encoding="utf-8") as fh:
        return json.load(fh)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """A real two-file lint result (the ring example: a gait-group error with members, gaps)."""
    folder = tmp_path_factory.mktemp("real")
    return _lint_json(["--config", RING_CONFIG, "lint", os.path.join(EXAMPLES, "assets")], folder / "ring.json")


def _finding(**over):
    f = {"check_id": "fps", "severity": "warning", "message": "m", "clip": "walk", "group": None, "bone": None,
         "time_s": 0.5, "measured": 1.0, "expected": 2.0, "members": None}
    f.update(over)
    return f


def _gap(**over):
    g = {"check_id": "bind-pose", "code": "insufficient_rotation_evidence", "scope": None, "subjects": ["walk"], "message": "m"}
    g.update(over)
    return g


def _set(path, value):
    """A mutation of the real document: ``doc[path...] = value`` (the last file is files[1])."""

    def apply(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return doc

    return apply


def _del(path):
    def apply(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
        return doc

    return apply


# (id, mutation of the real result, text replacements, expected problem)
BAD = [
    ("severity", _set(["files", 1, "findings"], [_finding(severity="catastrophic")]), {},
     "files[1].findings[0].severity: must be one of error, warning, note"),
    ("findings-ints", _set(["files", 1, "findings"], [1, 2]), {},
     "files[1].findings[0]: must be an object, not number"),
    ("no-message", _set(["files", 1, "findings"], [{"check_id": "fps", "severity": "error"}]), {},
     "files[1].findings[0].message: missing (must be a string)"),
    ("message-null", _set(["files", 1, "findings"], [_finding(message=None)]), {},
     "files[1].findings[0].message: must be a string"),
    ("check-id-escape", _set(["files", 1, "findings"], [_finding(check_id="fps\x1b[31m\nx")]), {},
     f"files[1].findings[0].check_id: must be {ID_RULE}"),
    ("clip-number", _set(["files", 1, "findings"], [_finding(clip=3)]), {},
     "files[1].findings[0].clip: must be a string or null"),
    ("time-text", _set(["files", 1, "findings"], [_finding(time_s="soon")]), {},
     "files[1].findings[0].time_s: must be a number or null"),
    ("time-bool", _set(["files", 1, "findings"], [_finding(time_s=True)]), {},
     "files[1].findings[0].time_s: must be a number or null"),
    ("members-ints", _set(["files", 1, "findings"], [_finding(members=[1])]), {},
     "files[1].findings[0].members[0]: must be an object or a string, not number"),
    ("nan", _set(["files", 1, "findings"], [_finding(measured=float("nan"))]), {},
     "files[1].findings[0].measured: not a finite number (NaN; JSON numbers must be finite)"),
    ("infinity", _set(["files", 1, "findings"], [_finding(expected=[1.0, float("inf")])]), {},
     "files[1].findings[0].expected[1]: not a finite number (Infinity; JSON numbers must be finite)"),
    ("1e400", _set(["files", 1, "findings"], [_finding(time_s="@T@")]), {'"@T@"': "1e400"},
     "files[1].findings[0].time_s: not a finite number (Infinity; JSON numbers must be finite)"),
    ("huge-int", _set(["files", 1, "findings"], [_finding(measured="@N@")]), {'"@N@"': str(10**30)},
     "files[1].findings[0].measured: integer out of range (more than 64 bits)"),
    ("-inf-in-measurements", _set(["files", 0, "measurements", "clips", "odd key"], {"x": float("-inf")}), {},
     'files[0].measurements.clips["odd key"].x: not a finite number (-Infinity; JSON numbers must be finite)'),
    ("gap-x", _set(["files", 1, "coverage_gaps"], [{"x": 1}]), {},
     f"files[1].coverage_gaps[0].check_id: missing (must be {ID_RULE})"),
    ("gap-no-subjects", _set(["files", 1, "coverage_gaps"], [{k: v for k, v in _gap().items() if k != "subjects"}]), {},
     "files[1].coverage_gaps[0].subjects: missing (must be an array)"),
    ("gap-subject-null", _set(["files", 1, "coverage_gaps"], [_gap(subjects=["a", None])]), {},
     "files[1].coverage_gaps[0].subjects[1]: must be a string, not null"),
    ("gap-scope-list", _set(["files", 1, "coverage_gaps"], [_gap(scope=["x"])]), {},
     "files[1].coverage_gaps[0].scope: must be a string or null"),
    ("file-not-object", _set(["files", 1], "b.glb"), {}, "files[1]: must be an object, not string"),
    ("no-path", _del(["files", 1, "path"]), {}, "files[1].path: missing (must be a string)"),
    ("no-gaps", _del(["files", 1, "coverage_gaps"]), {}, "files[1].coverage_gaps: missing (must be an array)"),
    ("measurements-list", _set(["files", 1, "measurements"], []), {}, "files[1].measurements: must be an object"),
    ("config-number", _set(["config"], 5), {}, "config: must be a string or null"),
    ("lone-surrogate", _set(["files", 1, "findings"], [_finding(message="@S@")]), {'"@S@"': '"a\\ud800b"'},
     "files[1].findings[0].message: not valid Unicode (a lone surrogate escape such as \\ud800)"),
    ("lone-surrogate-path", _set(["files", 1, "path"], "@S@"), {'"@S@"': '"x\\udc7f.glb"'},
     "files[1].path: not valid Unicode (a lone surrogate escape such as \\ud800)"),
    ("deep-measured", _set(["files", 1, "findings"], [_finding(measured="@D@")]), {'"@D@"': "[" * 100 + "]" * 100},
     f"files[1].findings[0].measured{'[0]' * 23}...: nested too deeply (more than {MAX_RESULT_DEPTH} levels)"),
    ("deep-array", None, {None: "[" * 100000 + "]" * 100000}, "not valid JSON (nested too deeply)"),
    ("deep-object", None, {None: '{"a":' * 3000 + "1" + "}" * 3000}, "not valid JSON (nested too deeply)"),
    # deeper than 512 levels is refused before parsing, whatever depth this Python's decoder
    # reaches (about 1,000 on 3.11, more on 3.13): the same message on every version
    ("deep-measured-600", _set(["files", 1, "findings"], [_finding(measured="@D@")]), {'"@D@"': "[" * 600 + "]" * 600},
     "not valid JSON (nested too deeply)"),
    ("deep-object-513", None, {None: '{"a":' * 513 + "1" + "}" * 513}, "not valid JSON (nested too deeply)"),
    ("object-512", None, {None: '{"a":' * 512 + "1" + "}" * 512}, "not an `animsmith lint --format json` result"),
]


def _write_bad(tmp_path, real, mutate, replace):
    if None in replace:
        text = replace[None]
    else:
        text = json.dumps(mutate(copy.deepcopy(real)))  # NaN / Infinity written as JSON's non-standard literals
        for old, new in replace.items():
            assert text.count(old) == 1
            text = text.replace(old, new)
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _refused(argv, capsys, path, problem, out_file=None):
    code, out, err = run_cli(argv, capsys)
    assert (code, out) == (2, ""), (code, out, err)
    assert err == f"animsmith: {path}: {problem}\n"
    if out_file is not None:
        assert not os.path.exists(out_file)
        assert not [n for n in os.listdir(os.path.dirname(out_file)) if n.startswith(".animsmith-")]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_input_is_one_named_line(tmp_path, capsys, real, case):
    _, mutate, replace, problem = case
    bad = _write_bad(tmp_path, real, mutate, replace)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({**real, "files": []}), encoding="utf-8")
    _refused(["merge-results", str(good), bad], capsys, bad, problem)
    for fmt in FORMATS:
        out_file = str(tmp_path / f"merged.{fmt}")
        _refused(["merge-results", "--format", fmt, "-o", out_file, str(good), bad], capsys, bad, problem, out_file)


def test_limits_are_the_documented_ones():
    import animsmith.ci.merge as ci

    assert (ci.MAX_RESULT_BYTES, ci.MAX_RESULT_DEPTH) == (MAX_RESULT_BYTES, MAX_RESULT_DEPTH)
    with open(os.path.join(ROOT, "docs", "ci.md"), encoding="utf-8") as fh:
        assert "512 MiB" in fh.read()


def test_too_large_is_refused_before_reading(tmp_path, capsys):
    """Over the cap: refused on its size (a sparse file: reading it would take 512 MiB)."""
    big = tmp_path / "huge.json"
    with open(big, "wb") as fh:
        fh.truncate(MAX_RESULT_BYTES + 1)
    out_file = str(tmp_path / "merged.sarif")
    problem = f"too large to merge ({MAX_RESULT_BYTES + 1} bytes; the limit is 512 MiB a file: split the run into more shards)"
    _refused(["merge-results", "--format", "sarif", "-o", out_file, str(big)], capsys, str(big), problem, out_file)


def test_at_the_cap_is_read(tmp_path, capsys, monkeypatch):
    """The cap is on the size: a result of exactly MAX_RESULT_BYTES is read (here a lowered cap)."""
    import animsmith.ci.merge as ci

    doc = json.dumps({"schema_version": 1, "command": "lint", "config": None, "files": [], "summary": {}})
    path = tmp_path / "r.json"
    path.write_text(doc, encoding="utf-8")
    monkeypatch.setattr(ci, "MAX_RESULT_BYTES", len(doc))
    code, out, err = run_cli(["merge-results", str(path)], capsys)
    assert (code, err) == (0, "") and validate_json(out)["summary"]["files"] == 0
    monkeypatch.setattr(ci, "MAX_RESULT_BYTES", len(doc) - 1)
    code, out, err = run_cli(["merge-results", str(path)], capsys)
    assert (code, out) == (2, "") and err.startswith(f"animsmith: {path}: too large to merge ({len(doc)} bytes;")


def test_old_errors_keep_their_wording(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, out, err = run_cli(["merge-results", str(bad)], capsys)
    assert (code, out) == (2, "")
    assert err == f"animsmith: {bad}: not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))\n"
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"command": "measure"}), encoding="utf-8")
    _refused(["merge-results", str(other)], capsys, str(other), "not an `animsmith lint --format json` result")
    ver = tmp_path / "ver.json"
    ver.write_text(json.dumps({"command": "lint", "files": [], "schema_version": 2}), encoding="utf-8")
    _refused(["merge-results", str(ver)], capsys, str(ver), "schema_version 2 is not supported (expected 1)")
    ver.write_text(json.dumps({"command": "lint", "files": [], "schema_version": "9" * 5000}), encoding="utf-8")
    _refused(["merge-results", str(ver)], capsys, str(ver), "schema_version of type string is not supported (expected 1)")


def _summary_line(s):
    facets = s["prediction_facets"]
    return (
        f"{s['errors']} error(s), {s['warnings']} warning(s), {s['notes']} note(s), {s['coverage_gaps']} coverage gap(s), "
        f"{facets['available']} available prediction facet(s), "
        f"{facets['required_unavailable']} required-unavailable prediction facet(s)"
    )


def test_real_results_still_merge(tmp_path, capsys):
    """Each corpus file (tests/data) linted on its own plus the shipped ring example, then
    merged: the files, findings, summary and exit code of linting them together, in every
    format; and the example's shards merge to its unsharded result."""
    parts = []
    for i, glb in enumerate(CORPUS):
        parts.append(str(tmp_path / f"corpus{i}.json"))
        _lint_json(["lint", glb], parts[-1])
    ring = _lint_json(["--config", RING_CONFIG, "lint", os.path.join(EXAMPLES, "assets")], tmp_path / "ring.json")
    parts.append(str(tmp_path / "ring.json"))
    corpus = _lint_json(["lint", *CORPUS], tmp_path / "corpus.json")
    code, out, err = run_cli(["merge-results", *parts], capsys)
    merged = validate_json(out)
    assert err == "" and code == 1
    by_path = {fr["path"]: fr for fr in corpus["files"] + ring["files"]}
    assert [fr["path"] for fr in merged["files"]] == sorted(by_path)
    assert all(fr == by_path[fr["path"]] for fr in merged["files"])
    expect = {k: corpus["summary"][k] + ring["summary"][k] for k in corpus["summary"] if k != "prediction_facets"}
    expect["prediction_facets"] = {"available": 0, "required_unavailable": 0}  # no [engine] profile
    assert merged["summary"] == expect and expect["files"] == len(CORPUS) + len(glob.glob(os.path.join(EXAMPLES, "assets", "*.glb"))) and expect["errors"] == 1
    for fmt in FORMATS:
        out_file = tmp_path / f"merged.{fmt}"
        code, out, err = run_cli(["merge-results", "--format", fmt, "-o", str(out_file), *parts], capsys)
        assert (code, err) == (1, "") and out_file.read_text(encoding="utf-8")
        assert out.endswith(_summary_line(expect) + "\n")
    # the example's shards
    shards = []
    for i in (1, 2):
        shards.append(str(tmp_path / f"ring{i}.json"))
        _lint_json(["--config", RING_CONFIG, "lint", "--shard", f"{i}/2", os.path.join(EXAMPLES, "assets")], shards[-1])
    code, out, err = run_cli(["merge-results", *shards], capsys)
    assert (code, err) == (1, "")
    merged = validate_json(out)
    assert merged["summary"] == ring["summary"] and merged["files"] == sorted(ring["files"], key=lambda fr: fr["path"])


def test_output_that_is_one_of_the_results_is_refused(tmp_path, capsys):
    """`merge-results a.json -o a.json` would replace an input with the merge."""
    from animsmith.lint import LintResult
    from animsmith.render import render_lint

    a = tmp_path / "a.json"
    a.write_text(render_lint(LintResult(files=[]), "json"))
    before = a.read_bytes()
    code, out, err = run_cli(["merge-results", str(a), "-o", str(tmp_path / "." / "a.json")], capsys)
    assert (code, out) == (2, "")
    assert err == f"animsmith: {tmp_path / '.' / 'a.json'}: --output is also an input ({a}); write the output elsewhere\n"
    assert a.read_bytes() == before


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse non-UTF-8 names")
def test_a_non_utf8_file_name_written_by_lint_merges(tmp_path, capsys):
    """`lint -o` writes a file name that is not UTF-8 as \\udcXX (U+DC80..U+DCFF, what
    os.fsdecode gives); merge-results accepts exactly that range and keeps the name."""
    import shutil

    raw = os.path.join(os.fsencode(tmp_path), b"f\xffx.glb")
    shutil.copy(os.path.join(ROOT, "examples", "assets", "fox-walk.glb"), raw)
    name = os.fsdecode(raw)
    shard = tmp_path / "s.json"
    code, _, err = run_cli(["lint", "--format", "json", "--shard", "1/1", "-o", str(shard), name], capsys)
    assert code in (0, 1) and err == ""
    assert "\\udcff" in shard.read_text(encoding="utf-8")
    merged = tmp_path / "m.json"
    code, out, err = run_cli(["merge-results", str(shard), "-o", str(merged)], capsys)
    assert code in (0, 1) and err == "", err
    assert json.loads(merged.read_text(encoding="utf-8"))["files"][0]["path"] == name


def test_running_out_of_memory_names_the_file(tmp_path, capsys, monkeypatch):
    """Parsing a result takes about 10x its size: when that does not fit, the one line names the
    file and says to split the run (it said `animsmith: out of memory`)."""
    import json as json_mod

    good = tmp_path / "r.json"
    code, out, _ = run_cli(["lint", "--format", "json", "-o", str(good), os.path.join(ROOT, "examples", "assets", "fox-walk.glb")], capsys)

    def no_memory(*a, **k):
        raise MemoryError

    monkeypatch.setattr(json_mod, "loads", no_memory)
    code, out, err = run_cli(["merge-results", str(good)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert str(good) in err and "out of memory parsing it" in err and "a merge holds every result at once" in err
