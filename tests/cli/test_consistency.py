"""One behaviour across commands: the missing-file wording, folder discovery in
`measure`/`inspect`, no `-0.0` in any output, a `measure` table that fits 100
columns, and `merge-results` speaking text to a person and JSON to a program."""

from __future__ import annotations

import json
import os
import re
import shutil

import numpy as np
import pytest

from animsmith.model import Channel
from animsmith.numtext import fixed
from builders import gait_clip
from lint_support import ROOT, run_cli, write_clips

RING = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
RING_CONFIG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")
NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0\.0+(?![\d])")


# ---------------------------------------------------------------------------
# a path that names nothing: one wording on every command
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["lint", "{m}"],
        ["measure", "{m}"],
        ["measure", "speed", "{m}"],
        ["inspect", "{m}"],
        ["report", "{m}", "-o", "{out}.html"],
        ["transform", "{m}", "-o", "{out}.glb", "--gait-anchor"],
        ["transform", "{m}", "-o", "{out}.glb", "--gait-anchor", "--dry-run"],
        ["--config", RING_CONFIG, "collection", "transform-foot-cycle", "--group", "run-ring",
         "--reference", "run_forward", "-o", "{out}.glb", "{m}"],
        ["merge-results", "{m}"],
        ["sim", "validate", "{m}.toml"],
        ["sim", "bake", "{m}.toml", "-o", "{out}.glb"],
    ],
    ids=lambda a: " ".join(x for x in a if not x.startswith(("{", "/"))),
)
def test_a_missing_file_is_worded_the_same_on_every_command(argv, tmp_path, capsys):
    missing = str(tmp_path / "nowhere" / "walk.glb")
    out = str(tmp_path / "out")
    argv = [a.replace("{m}", missing).replace("{out}", out) for a in argv]
    named = next(a for a in argv if a.startswith(missing))
    code, stdout, err = run_cli(argv, capsys)
    assert (code, stdout, err) == (2, "", f"animsmith: {named}: no such file or directory\n")
    assert not os.listdir(tmp_path)  # nothing written


def test_a_missing_config_is_worded_the_same(tmp_path, capsys):
    missing = str(tmp_path / "nope.toml")
    for argv in (["--config", missing, "lint", RING], ["measure", "--config", missing, RING]):
        code, out, err = run_cli(argv, capsys)
        assert (code, out, err) == (2, "", f"animsmith: bad config {missing}: no such file or directory\n")


# ---------------------------------------------------------------------------
# measure / inspect find files in folders as lint does
# ---------------------------------------------------------------------------


def _pack(tmp_path):
    pack = tmp_path / "pack"
    (pack / "sub").mkdir(parents=True)
    (pack / ".cache").mkdir()
    shutil.copy(RING, pack / "b-ring.glb")
    write_clips(pack / "a.glb", [gait_clip("walk_a")])
    write_clips(pack / "sub" / "c.glb", [gait_clip("walk_c", offset_cycles=0.25)])
    write_clips(pack / ".cache" / "hidden.glb", [gait_clip("hidden")])  # hidden folders are skipped
    (pack / "notes.txt").write_text("not an asset")
    return pack


def test_measure_and_inspect_take_folders_and_globs_like_lint(tmp_path, capsys):
    pack = _pack(tmp_path)
    expected = [str(pack / "a.glb"), str(pack / "b-ring.glb"), str(pack / "sub" / "c.glb")]
    code, out, _ = run_cli(["lint", str(pack), "--format", "json"], capsys)
    assert code == 0 and [f["path"] for f in json.loads(out)["files"]] == expected
    code, out, _ = run_cli(["measure", str(pack), "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0 and [f["path"] for f in doc["files"]] == expected
    # the builder's clips: anchor 0.75 at offset 0, 0.50 a quarter cycle in (builders.py)
    assert doc["files"][0]["clips"][0]["gait_phase"] == pytest.approx(0.75, abs=0.01)
    assert doc["files"][2]["clips"][0]["gait_phase"] == pytest.approx(0.50, abs=0.01)
    code, out, _ = run_cli(["measure", "speed", str(pack / "*.glb")], capsys)
    assert code == 0 and "walk_a" in out and "run_left" in out and "walk_c" not in out
    code, out, _ = run_cli(["inspect", str(pack), "--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 0 and [f["path"] for f in doc["files"]] == expected
    assert [[c["name"] for c in f["clips"]] for f in doc["files"]] == [
        ["walk_a"], ["run_forward", "run_backward", "run_left", "run_right"], ["walk_c"]
    ]
    import jsonschema

    with open(os.path.join(ROOT, "docs", "schema", "inspect-output.schema.json"), encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.validate(doc, schema)
    code, one, _ = run_cli(["inspect", str(pack / "a.glb"), "--format", "json"], capsys)
    single = json.loads(one)
    jsonschema.validate(single, schema)
    assert "files" not in single and single["path"] == str(pack / "a.glb")
    assert {k: v for k, v in single.items() if k not in ("schema_version", "command")} == doc["files"][0]
    code, text, _ = run_cli(["inspect", str(pack)], capsys)
    assert code == 0 and [line for line in text.split("\n") if line.startswith(str(pack))] == expected


def test_an_empty_folder_is_refused_as_lint_refuses_it(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    for cmd in ("lint", "measure", "inspect"):
        code, out, err = run_cli([cmd, str(tmp_path / "empty")], capsys)
        assert (code, out) == (2, "") and err == f"animsmith: no .glb/.gltf files found in {tmp_path / 'empty'}\n"


# ---------------------------------------------------------------------------
# -0.0 is never printed
# ---------------------------------------------------------------------------


def test_fixed_drops_the_sign_of_a_value_that_rounds_to_zero():
    assert fixed(-0.0, 1) == "0.0"
    assert fixed(-0.04, 1) == "0.0"
    assert fixed(-0.00004, 3) == "0.000"
    assert fixed(-0.06, 1) == "-0.1"
    assert fixed(0.0, 2) == "0.00"
    assert fixed(-1.5, 0) == "-2"
    assert fixed(float("-inf"), 2) == "-inf"


def _yawing_clip(name, yaw_deg):
    """A walk whose root turns by ``yaw_deg`` about +Y over the clip (LINEAR keys)."""
    clip = gait_clip(name)
    t = np.linspace(0.0, 1.0, 31)
    half = np.radians(yaw_deg) * t / 2.0
    q = np.stack([np.zeros_like(t), np.sin(half), np.zeros_like(t), np.cos(half)], axis=1)
    clip.channels.append(Channel.make(0, "rotation", t, q))
    return clip


def test_no_negative_zero_in_measure_inspect_or_lint(tmp_path, capsys):
    # a turn of a thousandth of a degree either way: one clip measures a tiny negative yaw
    path = write_clips(tmp_path / "turns.glb", [_yawing_clip("left", 0.001), _yawing_clip("right", -0.001)])
    code, out, _ = run_cli(["measure", path, "--format", "json"], capsys)
    yaws = [c["yaw_deg"] for c in json.loads(out)["files"][0]["clips"]]
    assert code == 0 and len(yaws) == 2 and min(yaws) < 0 < max(yaws)
    assert max(abs(y) for y in yaws) == pytest.approx(0.001, rel=0.05)
    code, text, _ = run_cli(["measure", "--wide", path], capsys)
    assert code == 0 and not NEGATIVE_ZERO.search(text), text
    rows = {line.split()[0]: line.split() for line in text.split("\n") if line.startswith(("left ", "right "))}
    yaw_col = 9  # clip dur frames phase amp cycles speed heading dist seam yaw endpoint
    assert rows["left"][yaw_col + 1] == rows["right"][yaw_col + 1] == "0.0"
    for argv in (["inspect", path], ["measure", "speed", path], ["lint", path], ["lint", path, "--format", "json"],
                 ["measure", path, "--format", "json"]):
        code, text, err = run_cli(argv, capsys)
        assert code in (0, 1) and not NEGATIVE_ZERO.search(text + err), (argv, text)


def test_negative_zero_key_time_is_shown_unsigned(tmp_path, capsys):
    clip = gait_clip("walk")
    for ch in clip.channels:  # the first key at -0.0 s: a float the file may carry
        ch.times[0] = np.float32(-0.0)
    path = write_clips(tmp_path / "negzero.glb", [clip])
    assert np.signbit(clip.channels[0].times[0])
    for argv in (["inspect", path], ["inspect", path, "--format", "json"], ["measure", path, "--format", "json"],
                 ["measure", "speed", path, "--format", "json"], ["lint", path, "--format", "json"]):
        code, text, _ = run_cli(argv, capsys)
        assert code == 0 and not NEGATIVE_ZERO.search(text), (argv, text)
    code, text, _ = run_cli(["inspect", path, "--format", "json"], capsys)
    assert json.loads(text)["clips"][0]["start_s"] == 0.0


# ---------------------------------------------------------------------------
# measure's text fits 100 columns; --wide shows every column
# ---------------------------------------------------------------------------


def test_measure_table_fits_100_columns_and_wide_has_every_column(capsys):
    code, text, _ = run_cli(["measure", RING], capsys)
    lines = text.rstrip("\n").split("\n")
    assert code == 0 and max(len(line) for line in lines) <= 100, text
    header = next(line for line in lines if line.startswith("clip "))
    assert header.split() == ["clip", "dur", "s", "phase", "L-R", "amp", "m", "cycles", "speed", "m/s", "heading", "deg", "seam"]
    assert sum(1 for line in lines if line.startswith("run_")) == 4  # one row per clip: a table, not blocks
    code, wide, _ = run_cli(["measure", "--wide", RING], capsys)
    header = next(line for line in wide.split("\n") if line.startswith("clip "))
    for title in ("frames", "dist m", "yaw deg", "endpoint"):
        assert title in header
    # the ring is 31 keys over 1 s per clip, in place (docs/sim.md: `sim ring`)
    row = next(line for line in wide.split("\n") if line.startswith("run_forward "))
    assert row.split()[1:3] == ["1.000", "31"]


def test_measure_help_names_every_column_wide_adds_and_its_width(capsys):
    """`--wide`'s help lists exactly the columns the default table leaves out, and its
    "about N columns" is within 10 of the widest row on the shipped ring."""
    code, default, _ = run_cli(["measure", RING], capsys)
    code, wide, _ = run_cli(["measure", "--wide", RING], capsys)
    def titles(text):
        header = next(line for line in text.split("\n") if line.startswith("clip "))
        return [t for t in re.split(r"\s{2,}", header.strip())]
    added = [t for t in titles(wide) if t not in titles(default)]
    assert added == ["frames", "dist m", "yaw deg", "endpoint", "skate"]
    code, helptext, _ = run_cli(["measure", "--help"], capsys)
    helptext = " ".join(helptext.split())
    option = helptext.split("--wide", 1)[1]
    assert "adds " + ", ".join(added) + ";" in option, option
    stated = int(re.search(r"about (\d+) columns", option).group(1))
    widest = max(len(line) for line in wide.rstrip("\n").split("\n"))
    assert abs(stated - widest) <= 10, (stated, widest)


# ---------------------------------------------------------------------------
# merge-results: text for a person, JSON for a program
# ---------------------------------------------------------------------------


def _shards(tmp_path, capsys):
    paths = []
    for i in (1, 2):
        out = str(tmp_path / f"shard-{i}.json")
        code, _, _ = run_cli(["--config", RING_CONFIG, "lint", RING, "--format", "json", "--shard", f"{i}/2", "-o", out], capsys)
        assert code in (0, 1)
        paths.append(out)
    return paths


def test_merge_results_prints_text_on_a_terminal_and_json_otherwise(tmp_path, capsys, monkeypatch):
    shards = _shards(tmp_path, capsys)
    code, whole_text, _ = run_cli(["--config", RING_CONFIG, "lint", RING], capsys)
    assert code == 1
    # piped (the test's stdout is not a terminal): the merged JSON document
    code, out, _ = run_cli(["merge-results", *shards], capsys)
    assert code == 1 and json.loads(out)["summary"]["errors"] == 1
    # on a terminal: the same report and summary line `lint` prints for all the files at once
    from animsmith.commands import merge

    monkeypatch.setattr(merge, "_stdout_is_terminal", lambda: True)
    monkeypatch.setenv("NO_COLOR", "1")
    code, out, _ = run_cli(["merge-results", *shards], capsys)
    assert code == 1 and out == whole_text
    code, out, _ = run_cli(["merge-results", "--format", "json", *shards], capsys)
    assert json.loads(out)["summary"]["errors"] == 1
    # --output: the file gets JSON, the terminal the text
    merged = tmp_path / "merged.json"
    code, out, _ = run_cli(["merge-results", "-o", str(merged), *shards], capsys)
    assert code == 1 and out == whole_text and json.loads(merged.read_text())["summary"]["errors"] == 1


# ---------------------------------------------------------------------------
# the README's [clips."run_*"] example says what it prints
# ---------------------------------------------------------------------------


def test_readme_run_clips_example_is_the_shipped_contract_and_prints_what_it_says(capsys):
    import tomli

    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    snippet = re.search(r'```toml\n(\[clips\."run_\*"\]\n.*?)```', readme, re.DOTALL).group(1)
    example = os.path.join(ROOT, "configs", "example.animsmith.toml")
    with open(example, "rb") as fh:
        shipped = tomli.load(fh)
    # every key the README shows is in the shipped contract with the same value
    assert tomli.loads(snippet)["clips"]["run_*"] == shipped["clips"]["run_*"]
    said = re.search(r"On the\s+shipped ring it prints `(\d+) error\(s\), (\d+) warning\(s\)`", readme)
    assert said, "README.md must say what configs/example.animsmith.toml prints on the shipped ring"
    code, out, _ = run_cli(["--config", example, "lint", RING], capsys)
    summary = out.rstrip("\n").split("\n")[-1]
    assert code == 1 and summary.startswith(f"{said.group(1)} error(s), {said.group(2)} warning(s),"), summary
    # and the kinds of finding it names
    kinds = {m.group(1) for m in re.finditer(r"^  (?:error|warning)\[([a-z-]+)\]", out, re.MULTILINE)}
    assert kinds == {"gait-group", "duplicate-loop-endpoint", "foot-slide"}


def test_report_page_numbers_have_no_negative_zero():
    """The report page formats its numbers with one function (`fmt` in report.js); run it
    in node on values that round to zero from below."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    with open(os.path.join(ROOT, "animsmith", "report", "assets", "report.js"), encoding="utf-8") as fh:
        line = next(l for l in fh if l.strip().startswith("function fmt(v, d)"))
    script = line + 'console.log(JSON.stringify([fmt(-0.0001, 2), fmt(-0, 3), fmt(-0.004, 2), fmt(-0.006, 2), fmt(1.5, 1), fmt(null), fmt(-0.0000001)]));'
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["0.00", "0.000", "0.00", "-0.01", "1.5", "—", "0.000"]


def test_no_negative_zero_in_json_or_the_report_pages_data(tmp_path, capsys):
    """Keys stored as -0.0 (x of the feet, z of everything: a float the file may carry) and a
    root that walks straight back: no JSON number and no number in the report page's data
    is -0.0 (JSON keeps a sign a zero does not have; a reader of the data sees it)."""
    from animsmith.render.json import plain

    assert str(plain(-0.0)) == "0.0" and str(plain([np.float64(-0.0)])[0]) == "0.0"
    clip = gait_clip("back", velocity_mps=(0.0, 0.0, -1.0))
    for ch in clip.channels:
        ch.values[:, 2] = np.where(ch.values[:, 2] == 0.0, np.float32(-0.0), ch.values[:, 2])
    path = write_clips(tmp_path / "negzero.glb", [clip])
    assert np.signbit(clip.channels[1].values[0, 2])
    cfg = tmp_path / "c.toml"
    cfg.write_text('[clips."*"]\nloop = true\nmovement_owner_xz = "animation"\nspeed_mps = 1.0\n')
    for argv in (["--config", str(cfg), "lint", path, "--format", "json"], ["measure", path, "--format", "json"],
                 ["inspect", path, "--format", "json"]):
        code, text, _ = run_cli(argv, capsys)
        assert code in (0, 1) and not re.search(r"(?<![\w.])-0(\.0+)?(?![\d.])", text), (argv, text)
    out = tmp_path / "r.html"
    code, _, _ = run_cli(["--config", str(cfg), "report", path, "-o", str(out)], capsys)
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', out.read_text("utf-8"), re.S)
    assert code == 0 and data and "0.0" in data.group(1)
    assert not re.search(r"(?<![\w.])-0(\.0+)?(?![\d.])", data.group(1))


def test_a_negative_key_time_near_zero_keeps_its_sign(tmp_path, capsys):
    """`fixed` drops the sign of what rounds to zero; a key 20 µs before the start is still
    reported as negative, with the digits that show it."""
    clip = gait_clip("walk")
    for ch in clip.channels:
        ch.times[0] = np.float32(-2e-5)
    path = write_clips(tmp_path / "early.glb", [clip])
    code, out, _ = run_cli(["lint", path, "--select", "time-monotonic", "--config", _zero_tolerance(tmp_path)], capsys)
    assert code == 1 and "(key 0 at -2e-05s)" in out, out


def _zero_tolerance(tmp_path):
    p = tmp_path / "zero.toml"
    p.write_text("[checks.time-monotonic]\nnegative_tolerance_s = 0.0\n")
    return str(p)


def test_measure_rig_line_wraps_within_100_columns():
    """A full-body rig resolves ten roles: the rig line continues on indented lines,
    never splitting a role=bone pair, and says the same as one long line would."""
    from animsmith.commands.measure import _rig_lines

    pairs = [f"{r}=mixamorig:{b}" for r, b in (
        ("root", "Root"), ("hips", "Hips"), ("spine", "Spine"), ("head", "Head"),
        ("left_foot", "LeftFoot"), ("right_foot", "RightFoot"), ("left_toe", "LeftToeBase"),
        ("right_toe", "RightToeBase"), ("left_hand", "LeftHand"), ("right_hand", "RightHand"),
    )]
    lines = _rig_lines("mixamo", pairs)
    assert len(lines) > 1 and max(len(line) for line in lines) <= 100
    assert all(line.startswith("    ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == "rig: mixamo (" + ", ".join(pairs) + ")"
    assert _rig_lines("auto", ["hips=Hips"]) == ["  rig: auto (hips=Hips)"]
    assert _rig_lines("unknown", []) == ["  rig: unknown (none)"]
