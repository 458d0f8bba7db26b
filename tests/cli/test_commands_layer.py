"""The commands' shared options and outputs (``commands/_options.py``, ``commands/_output.py``)
and the bottom-level helpers every layer uses (``animsmith/text.py``, ``animsmith/hints.py``):
what each one does, and the import rules that keep them where they are."""

from __future__ import annotations

import ast
import os

import click
import pytest

from animsmith.commands._options import FiniteFloat, clip_fps, split_ids
from animsmith.commands._output import check_output_path, contract_inputs, publish_output, refusal_line, write_output
from animsmith.checks import load_contract
from animsmith.errors import AnimsmithError, Refusal
from animsmith.hints import close_matches, closest, did_you_mean
from animsmith.text import ERROR_LINE_MAX_CHARS, RunnerSafeStream, error_line, escape, runner_safe, runner_safe_line

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "animsmith")


def _imports(path: str):
    """Every module ``path`` imports (module-level and inside functions), relative imports resolved."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    here = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".").split(".")
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[: len(here) - node.level] + ([node.module] if node.module else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


# --------------------------------------------------------------------------
# Import rules
# --------------------------------------------------------------------------


def test_no_command_imports_another_command_or_the_cli():
    folder = os.path.join(PACKAGE, "commands")
    commands = {f[:-3] for f in os.listdir(folder) if f.endswith(".py") and not f.startswith("_")}
    assert {"lint", "measure", "inspect", "transform", "collection", "report", "merge", "sim", "checks"} <= commands
    for name in sorted(commands):
        imported = _imports(os.path.join(folder, name + ".py"))
        assert "animsmith.cli" not in imported, name
        others = {f"animsmith.commands.{c}" for c in commands - {name}}
        assert not imported & others, (name, sorted(imported & others))


@pytest.mark.parametrize("module", ["text.py", "hints.py", os.path.join("commands", "_options.py"), os.path.join("commands", "_output.py")])
def test_shared_helpers_import_nothing_above_them(module):
    imported = {m for m in _imports(os.path.join(PACKAGE, module)) if m.startswith("animsmith")}
    if module in ("text.py", "hints.py"):  # the bottom layer: the standard library only
        assert imported == set(), imported
    else:  # the commands' helpers: never a command, never the CLI that loads the commands
        assert not {m for m in imported if m.startswith(("animsmith.cli", "animsmith.commands"))}, imported


# --------------------------------------------------------------------------
# Hints
# --------------------------------------------------------------------------


def test_a_typo_is_answered_with_the_closest_name_and_nonsense_with_nothing():
    choices = ["gait-group", "foot-slide", "loop-seam"]
    assert closest("gait-grup", choices) == "gait-group"  # one letter dropped
    assert did_you_mean("foot_slide", choices) == " (did you mean 'foot-slide'?)"
    assert closest("zzzz", choices) is None and did_you_mean("zzzz", choices) == ""
    # several close names, the closest first (difflib ratio 2*M/T: "list" 2*4/9 = 0.89,
    # "lint" 2*3/9 = 0.67 ("li" + "t"), "merge" 0); "lnt" ~ "list" is 2*2/7 = 0.57, below 0.6
    assert close_matches("lists", ["lint", "list", "merge"], n=2) == ["list", "lint"]
    assert close_matches("lnt", ["lint", "list", "merge"], n=2) == ["lint"]


def test_unknown_select_ids_name_the_closest_check(tmp_path, capsys):
    from animsmith.cli import main

    with pytest.raises(SystemExit) as info:
        main(["lint", "--select", "gait-grup", str(tmp_path)])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err == "animsmith: --select: unknown check 'gait-grup' (did you mean 'gait-group'?)\n"


# --------------------------------------------------------------------------
# Safe text
# --------------------------------------------------------------------------


def test_escape_shows_control_and_bidi_characters_and_keeps_joiners():
    assert escape("walk\x1b[31m") == "walk\\u001b[31m"
    assert escape("a\u202eb") == "a\\u202eb"  # right-to-left override
    assert escape("\U000e0001") == "\\U000e0001"  # a tag character beyond the BMP
    assert escape("\u0645\u200c\u06cc") == "\u0645\u200c\u06cc"  # Persian with a ZWNJ stays
    assert escape(escape("x\x00y")) == escape("x\x00y") == "x\\u0000y"


def test_runner_commands_are_defused_line_by_line():
    assert runner_safe_line("::error::boom") == "\\u003a:error::boom"
    assert runner_safe_line("  ::warning x") == "  \\u003a:warning x"
    assert runner_safe_line("ok ##[group]x") == "ok #\\u0023[group]x"
    assert runner_safe_line("a\r::set-output") == "a\r\\u003a:set-output"
    assert runner_safe("fine\n::stop-commands::x") == "fine\n\\u003a:stop-commands::x"
    # JSON keeps the document: "\u0023" decodes back to "#"
    assert runner_safe('{"a": "##[x"}', "json") == '{"a": "#\\u0023[x"}'


def test_runner_safe_stream_guards_complete_lines_and_the_rest_on_flush():
    import io

    raw = io.StringIO()
    stream = RunnerSafeStream(raw)
    stream.write("::a\n::b")
    assert raw.getvalue() == "\\u003a:a\n"
    stream.flush()
    assert raw.getvalue() == "\\u003a:a\n\\u003a:b"


def test_a_long_error_line_keeps_both_ends():
    text = "start-" + "x" * 5000 + "-the reason"
    shown = error_line(text)
    head, tail = ERROR_LINE_MAX_CHARS // 2, ERROR_LINE_MAX_CHARS * 2 // 5
    cut = len(text) - head - tail
    assert shown == text[:head] + f"...({cut} characters)..." + text[-tail:]
    assert shown.startswith("start-") and shown.endswith("-the reason")
    assert error_line("bad ##[x]\x07") == "bad #\\u0023[x]\\u0007"


# --------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------


def test_finite_float_accepts_the_range_and_words_every_refusal_alike():
    positive, at_least_zero = FiniteFloat(0.0), FiniteFloat(0.0, inclusive=True)
    assert positive.convert("2.5", None, None) == 2.5
    assert at_least_zero.convert("0", None, None) == 0.0
    for bad, said in (("0", "must be a finite number > 0, got 0"), ("nan", "must be a finite number > 0, got nan"),
                      ("inf", "must be a finite number > 0, got inf"), ("x", "'x' is not a number")):
        with pytest.raises(click.BadParameter) as info:
            positive.convert(bad, None, None)
        assert said in info.value.message


def test_split_ids_reads_repeated_and_comma_separated_flags_in_order():
    assert split_ids(("a,b", " c ", ",,d,")) == ["a", "b", "c", "d"]
    assert split_ids(None) == []


def test_clip_fps_takes_the_flag_then_the_contract_then_thirty(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[clips."walk*"]\nfps = 24\n', encoding="utf-8")
    contract = load_contract(str(cfg))
    assert clip_fps(contract, "walk_fwd", None, None) == 24.0
    assert clip_fps(contract, "run", None, None) == 30.0
    assert clip_fps(contract, "walk_fwd", None, 60) == 60.0
    assert clip_fps(None, "walk", None, None) == 30.0


# --------------------------------------------------------------------------
# Outputs
# --------------------------------------------------------------------------


def test_an_output_may_not_be_dash_empty_or_an_input(tmp_path):
    glb = tmp_path / "walk.glb"
    glb.write_bytes(b"x")
    check_output_path(None)
    check_output_path(str(tmp_path / "new.json"), [str(glb)])
    with pytest.raises(AnimsmithError, match="empty path"):
        check_output_path("")
    with pytest.raises(AnimsmithError, match=r"leave out -o to write to stdout"):
        check_output_path("-", stdout_without=True)
    with pytest.raises(AnimsmithError, match=r"name a file"):
        check_output_path("-")
    # the same file spelled another way (a relative path with "..")
    other = os.path.join(str(tmp_path), "sub", "..", "walk.glb")
    with pytest.raises(AnimsmithError, match="is also an input"):
        check_output_path(other, [str(glb)])


def test_contract_inputs_name_the_config_and_member_files(tmp_path):
    (tmp_path / "packs").mkdir()
    cfg = tmp_path / "c.toml"
    cfg.write_text('[gait_groups.ring]\nclips = ["walk", "packs/back.glb#back"]\n', encoding="utf-8")
    inputs = contract_inputs(load_contract(str(cfg)))
    assert inputs[0] == str(cfg)
    assert [os.path.normpath(p) for p in inputs[1:]] == [os.path.normpath(str(tmp_path / "packs" / "back.glb"))]


def test_write_output_publishes_utf8_and_a_failed_write_names_the_file(tmp_path):
    out = tmp_path / "r.txt"
    write_output(str(out), "héllo \udcff")  # a lone surrogate (a non-UTF-8 file name) as its escape
    assert out.read_bytes() == "héllo ".encode("utf-8") + b"\\udcff"
    publish_output(str(out), b"\x00\x01")
    assert out.read_bytes() == b"\x00\x01"
    missing = str(tmp_path / "no" / "r.txt")
    with pytest.raises(AnimsmithError) as info:
        publish_output(missing, b"x")
    assert info.value.path == missing and info.value.reason == "cannot write output: No such file or directory"


def test_refusal_line_names_the_code_and_the_escaped_reason():
    exc = Refusal("root-drift", "clip 'w\x1b' drifts")
    assert refusal_line(exc) == "animsmith: refused [root-drift]: clip 'w\\u001b' drifts"
