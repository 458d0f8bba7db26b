"""Operator errors at the command line (issue 8): bad TOML, bad flags,
unreadable paths, an empty folder, a file changing while it is read, and
transform / lint --output / report publishing by rename only.

Every failure must be exit 2 with exactly one stderr line starting
``animsmith: `` (naming the file where there is one) and an empty stdout;
a refused transform is exit 1 with one ``animsmith: refused [...]`` line; no
run may leave a temp file or a half-written output behind.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import sys

import pytest

from animsmith.cli import main
from animsmith.io import gltf as read_mod
from animsmith.io import write as write_mod
from animsmith.io.write import write_glb
from builders import biped_asset, gait_clip

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOX = os.path.join(ROOT, "examples", "assets", "fox-walk.glb")  # transform refuses it: its keys are off the 30 fps grid
CONFIG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")


def run(argv, capsys):
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    code = 0 if info.value.code is None else info.value.code
    return code, out, err


def one_line_exit_2(argv, capsys, *, names=None, needle=None):
    """Run; require exit 2, empty stdout, one stderr line ``animsmith: [names: ]...``."""
    code, out, err = run(argv, capsys)
    lines = err.splitlines()
    assert code == 2, (argv, code, err)
    assert len(lines) == 1, (argv, err)
    assert lines[0].startswith(f"animsmith: {names}: " if names else "animsmith: "), lines[0]
    assert "Traceback" not in err and "internal error" not in err, err
    assert out == "", out
    if needle:
        assert needle.lower() in lines[0].lower(), lines[0]
    return lines[0]


def no_temp_files(folder) -> bool:
    return not [n for n in os.listdir(folder) if n.startswith(".animsmith-")]


@pytest.fixture
def walk(tmp_path):
    """An anchorable in-place gait clip (transform publishes it)."""
    path = tmp_path / "walk.glb"
    write_glb(biped_asset([gait_clip("walk", frames=31, offset_cycles=0.25)]), str(path))
    return path


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./animsmith.toml from the checkout


COMMANDS = [
    ["lint"],
    ["measure", "--format", "json"],
    ["inspect"],
    ["transform", "--gait-anchor", "--dry-run"],
]


# --------------------------------------------------------------------------
# Bad TOML
# --------------------------------------------------------------------------

BAD_TOML = [
    (b"[rig\nprofile = 'auto'\n", "invalid TOML"),
    (b"[rig]\nprofile = \"auto\"\nprofile = \"mixamo\"\n", "invalid TOML"),  # duplicate key
    (b"\xff\xfe[rig]\n", "not UTF-8"),
    (b"[rig]\nprofile = 3\n", "profile"),
    (b"[gait_groups.g]\nclips = \"a\"\n", "clips"),
    (b"[checks.nosuch]\nenabled = true\n", "nosuch"),
]


@pytest.mark.parametrize("text,needle", BAD_TOML, ids=[n for _, n in BAD_TOML])
@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_bad_toml_is_one_line(tmp_path, capsys, cmd, text, needle):
    cfg = tmp_path / "bad.toml"
    cfg.write_bytes(text)
    line = one_line_exit_2(cmd + ["--config", cfg, FOX], capsys)
    assert "bad.toml" in line and needle.lower() in line.lower(), line


def test_config_that_is_a_fifo_or_device_does_not_block(tmp_path, capsys):
    fifo = tmp_path / "contract.toml"
    os.mkfifo(fifo)
    one_line_exit_2(["lint", "--config", fifo, FOX], capsys, needle="not a regular file")
    one_line_exit_2(["lint", "--config", "/dev/zero", FOX], capsys, needle="not a regular file")


def test_missing_config_is_one_line(tmp_path, capsys):
    one_line_exit_2(["lint", "--config", tmp_path / "nope.toml", FOX], capsys, needle="nope.toml")


# --------------------------------------------------------------------------
# Bad flags: one line, no usage block
# --------------------------------------------------------------------------

BAD_FLAGS = [
    (["lint", "--bogus", FOX], "no such option"),
    (["lint", "--jobs", "0", FOX], "--jobs"),
    (["lint", "--format", "xml", FOX], "--format"),
    (["lint", "--select", "no-such-check", FOX], "no-such-check"),
    (["lint", "--shard", "3/2", FOX], "shard"),
    (["lint"], "missing argument"),
    (["measure", "--profile", "nope", FOX], "nope"),
    (["transform", FOX], "--gait-anchor"),
    (["transform", "--gait-anchor", FOX], "--output"),
    (["transform", "--gait-anchor", "--fps", "nan", "--dry-run", FOX], "--fps"),
    (["transform", "--gait-anchor", "--fps", "-1", "--dry-run", FOX], "--fps"),
    (["inspect", "--format", "yaml", FOX], "--format"),
    (["no-such-command"], "no such command"),
    (["--config"], "--config"),
]


@pytest.mark.parametrize("argv,needle", BAD_FLAGS, ids=[" ".join(map(str, a[:3]))[:40] for a, _ in BAD_FLAGS])
def test_bad_flags_are_one_line(capsys, argv, needle):
    line = one_line_exit_2(argv, capsys, needle=needle)
    assert "Usage:" not in line


@pytest.mark.parametrize("argv,where", [
    (["lint", "--format"], "animsmith lint"),
    (["--config", "c.toml", "lint", FOX, "--jobs"], "animsmith lint"),
    (["collection", "transform-foot-cycle", FOX, "--group"], "animsmith collection transform-foot-cycle"),
    (["sim", "bake", "biped", "--fps"], "animsmith sim bake"),
    (["measure", "speed", FOX, "--clip"], "animsmith measure"),
    (["--config"], "animsmith"),
])
def test_an_option_missing_its_value_points_at_its_command_help(capsys, argv, where):
    """click reports an option missing its value without naming the command: the hint
    named the top-level help, which does not list the option."""
    line = one_line_exit_2(argv, capsys, needle="requires an argument")
    assert line.endswith(f"(see '{where} --help')"), line


# --------------------------------------------------------------------------
# Unreadable paths
# --------------------------------------------------------------------------


@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_missing_file(tmp_path, capsys, cmd):
    p = str(tmp_path / "gone.glb")
    one_line_exit_2(cmd + [p], capsys, names=p)


@pytest.mark.parametrize("cmd", COMMANDS + [["report", "-o", "r.html"]], ids=[c[0] for c in COMMANDS] + ["report"])
def test_a_name_with_two_spaces_in_a_row_is_shown_as_it_is(tmp_path, capsys, cmd):
    """The error names the file the user has: `walk  v2.glb`, not `walk v2.glb` (lint and
    report joined their files' errors and squeezed every run of spaces to one)."""
    p = tmp_path / "walk  v2.glb"
    p.write_bytes(b"")
    one_line_exit_2(cmd + [p], capsys, names=str(p), needle="truncated GLB")
    config = tmp_path / "my  contract.toml"
    config.write_text("[rig]\nprofile = 3\n")
    line = one_line_exit_2(["--config", config] + cmd + [FOX], capsys)
    assert line == f"animsmith: bad config {config}: rig.profile: must be a string, got integer"


@pytest.mark.parametrize("cmd", COMMANDS + [["report", "-o", "r.html"]], ids=[c[0] for c in COMMANDS] + ["report"])
def test_a_name_with_a_line_break_is_shown_with_it_escaped(tmp_path, capsys, cmd):
    """`walk<LF>2.glb` is shown as `walk\\u000a2.glb` by every command (lint, report and
    a bad --config showed `walk 2.glb`, a name that does not exist)."""
    p = tmp_path / "walk\n2.glb"
    p.write_bytes(b"")
    shown = str(tmp_path / "walk\\u000a2.glb")
    one_line_exit_2(cmd + [p], capsys, names=shown, needle="truncated GLB")
    config = tmp_path / "my\ncontract.toml"
    config.write_text("[rig]\nprofile = 3\n")
    line = one_line_exit_2(["--config", config] + cmd + [FOX], capsys)
    assert line == f"animsmith: bad config {tmp_path / 'my'}\\u000acontract.toml: rig.profile: must be a string, got integer"


@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_dangling_symlink(tmp_path, capsys, cmd):
    p = tmp_path / "link.glb"
    os.symlink(tmp_path / "nowhere.glb", p)
    one_line_exit_2(cmd + [p], capsys, names=str(p))


@pytest.mark.parametrize("cmd", COMMANDS[1:], ids=[c[0] for c in COMMANDS[1:]])
def test_directory_named_like_a_file(tmp_path, capsys, cmd):
    p = tmp_path / "folder.glb"
    p.mkdir()
    code, out, err = run(cmd + [p], capsys)
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("animsmith: "), err
    assert str(p) in err and out == ""


@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_fifo_is_refused_without_blocking(tmp_path, capsys, cmd):
    p = tmp_path / "pipe.glb"
    os.mkfifo(p)
    one_line_exit_2(cmd + [p], capsys, names=str(p), needle="not a regular file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads chmod 000 files; the symlink/directory cases cover it")
@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_permission_denied(tmp_path, capsys, cmd):
    p = tmp_path / "locked.glb"
    shutil.copy(FOX, p)
    os.chmod(p, 0)
    one_line_exit_2(cmd + [p], capsys, names=str(p), needle="permission denied")


def test_folder_with_no_clips(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no clips here")
    one_line_exit_2(["lint", empty], capsys, needle="no .glb/.gltf files")


@pytest.mark.parametrize("cmd", [["lint"], ["report", "-o", "r.html"]])
def test_every_missing_path_is_named(tmp_path, capsys, cmd):
    """Two typos and an empty folder next to a real file: one line per problem, all of
    them in one run (the first typo used to hide the rest), exit 2, nothing written."""
    empty = tmp_path / "empty"
    empty.mkdir()
    a, b = str(tmp_path / "nope.glb"), str(tmp_path / "nope2.glb")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code, out, err = run(cmd + [a, b, a, "", str(empty), FOX], capsys)
    finally:
        os.chdir(cwd)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"animsmith: {a}: no such file or directory",  # named twice: once
        f"animsmith: {b}: no such file or directory",
        "animsmith: an empty path argument ('')",
        f"animsmith: no .glb/.gltf files found in {empty}",
    ]
    assert not (tmp_path / "r.html").exists()


def test_glob_matching_nothing(tmp_path, capsys):
    one_line_exit_2(["lint", str(tmp_path / "*.glb")], capsys)


# --------------------------------------------------------------------------
# A file that changes while it is read
# --------------------------------------------------------------------------


def _lying_stat(monkeypatch, target: str, delta: int):
    """os.stat as seen by the loader reports ``target`` ``delta`` bytes off
    (the file grew or was truncated between stat and read)."""
    real = os.stat
    full = os.path.realpath(target)

    def fake(path, *a, **kw):
        st = real(path, *a, **kw)
        if isinstance(path, (str, bytes, os.PathLike)) and os.path.realpath(os.fsdecode(path)) == full and stat.S_ISREG(st.st_mode):
            fields = list(st[:10])
            fields[6] = max(0, st.st_size + delta)
            return os.stat_result(fields)
        return st

    monkeypatch.setattr(read_mod.os, "stat", fake)


@pytest.mark.parametrize("delta", [-100, 100], ids=["truncated", "grew"])
@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_file_changing_while_read(tmp_path, capsys, monkeypatch, cmd, delta):
    p = tmp_path / "moving.glb"
    shutil.copy(FOX, p)
    _lying_stat(monkeypatch, str(p), delta)
    one_line_exit_2(cmd + [p], capsys, names=str(p), needle="changed while being read")


def test_file_truncated_for_real_between_stat_and_read(tmp_path, capsys, monkeypatch):
    """The file really shrinks after the loader stats it."""
    p = tmp_path / "shrinks.glb"
    shutil.copy(FOX, p)
    real_open = open

    def truncating_open(path, mode="r", *a, **kw):
        if os.fspath(path) == str(p) and "r" in mode:
            with real_open(path, "r+b") as fh:
                fh.truncate(100)
        return real_open(path, mode, *a, **kw)

    monkeypatch.setattr("builtins.open", truncating_open)
    one_line_exit_2(["measure", p], capsys, names=str(p), needle="changed while being read")


# --------------------------------------------------------------------------
# Transform: publish by rename only, refusals leave nothing
# --------------------------------------------------------------------------


def test_transform_publishes_by_rename(walk, tmp_path, capsys):
    out = tmp_path / "out.glb"
    out.write_bytes(b"old bytes")
    before = os.stat(out).st_ino
    code, stdout, err = run(["transform", "--gait-anchor", walk, "-o", out], capsys)
    assert code == 0, err
    assert os.stat(out).st_ino != before  # a new file renamed over the old one, not rewritten in place
    assert read_mod.load_asset(str(out)).clips[0].name == "walk"
    assert no_temp_files(tmp_path)


def test_transform_in_place_replaces_by_rename(walk, tmp_path, capsys):
    before = os.stat(walk).st_ino
    code, _, err = run(["transform", "--gait-anchor", "--in-place", walk], capsys)
    assert code == 0, err
    assert os.stat(walk).st_ino != before
    assert no_temp_files(tmp_path)


def test_transform_refusal_leaves_no_file(tmp_path, capsys):
    src = tmp_path / "fox.glb"
    shutil.copy(FOX, src)
    out = tmp_path / "fox-out.glb"
    code, stdout, err = run(["transform", "--gait-anchor", src, "-o", out], capsys)
    assert code == 1 and stdout == ""
    assert len(err.splitlines()) == 1 and err.startswith("animsmith: refused ["), err
    assert not out.exists() and no_temp_files(tmp_path)


def test_transform_refusal_keeps_existing_output(tmp_path, capsys):
    src = tmp_path / "fox.glb"
    shutil.copy(FOX, src)
    out = tmp_path / "fox-out.glb"
    out.write_bytes(b"keep me")
    code, _, _ = run(["transform", "--gait-anchor", src, "-o", out], capsys)
    assert code == 1 and out.read_bytes() == b"keep me" and no_temp_files(tmp_path)


def test_output_equal_to_input_needs_in_place(walk, tmp_path, capsys, monkeypatch):
    data = walk.read_bytes()
    one_line_exit_2(["transform", "--gait-anchor", walk, "-o", walk], capsys, needle="--in-place")
    # other spellings of the same file: relative, through a symlink, a hard link
    monkeypatch.chdir(tmp_path)
    one_line_exit_2(["transform", "--gait-anchor", walk, "-o", "./walk.glb"], capsys, needle="--in-place")
    os.symlink(walk, tmp_path / "alias.glb")
    one_line_exit_2(["transform", "--gait-anchor", walk, "-o", tmp_path / "alias.glb"], capsys, needle="--in-place")
    os.link(walk, tmp_path / "hard.glb")
    one_line_exit_2(["transform", "--gait-anchor", tmp_path / "hard.glb", "-o", walk], capsys, needle="--in-place")
    assert walk.read_bytes() == data and no_temp_files(tmp_path)


def test_transform_output_folder_missing(walk, tmp_path, capsys):
    out = tmp_path / "no" / "such" / "dir" / "out.glb"
    one_line_exit_2(["transform", "--gait-anchor", walk, "-o", out], capsys, names=str(out), needle="cannot write output")
    assert no_temp_files(tmp_path)


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()], ids=["ENOSPC", "killed"])
@pytest.mark.parametrize("stage", ["fsync", "replace"])
def test_transform_interrupted_publish_leaves_old_output(walk, tmp_path, capsys, monkeypatch, failure, stage):
    """A failure or ^C while publishing: exit 2 with one line, no temp file,
    an existing output keeps its bytes."""
    out = tmp_path / "out.glb"
    out.write_bytes(b"previous result")

    def boom(*a, **kw):
        raise failure

    monkeypatch.setattr(write_mod.os, stage, boom)
    if isinstance(failure, KeyboardInterrupt):
        # click ends the ^C line on the terminal with a newline before the message
        code, stdout, err = run(["transform", "--gait-anchor", walk, "-o", out], capsys)
        assert code == 2 and [ln for ln in err.splitlines() if ln] == ["animsmith: aborted"], err
    else:
        line = one_line_exit_2(["transform", "--gait-anchor", walk, "-o", out], capsys)
        assert str(out) in line and "No space" in line
    monkeypatch.undo()
    assert out.read_bytes() == b"previous result"
    assert no_temp_files(tmp_path)


# --------------------------------------------------------------------------
# lint --output and report: never half-written
# --------------------------------------------------------------------------


def test_lint_output_interrupted_keeps_old_file(tmp_path, capsys, monkeypatch):
    out = tmp_path / "result.json"
    out.write_text("previous")

    def boom(*a, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(write_mod.os, "replace", boom)
    line = one_line_exit_2(["lint", "--format", "json", "--output", out, FOX], capsys, names=str(out), needle="cannot write output")
    assert out.read_text() == "previous" and no_temp_files(tmp_path)
    assert line.count("\n") == 0


def test_lint_output_not_written_when_a_file_is_bad(tmp_path, capsys):
    bad = tmp_path / "bad.glb"
    bad.write_bytes(b"glTF\x02\x00\x00\x00\xff\xff\xff\xff")
    out = tmp_path / "result.json"
    one_line_exit_2(["lint", "--format", "json", "--output", out, bad], capsys, names=str(bad))
    assert not out.exists() and no_temp_files(tmp_path)


def test_lint_output_is_complete(tmp_path, capsys):
    import json

    out = tmp_path / "result.json"
    code, _, err = run(["lint", "--format", "json", "--output", out, FOX], capsys)
    assert code in (0, 1), err
    assert json.loads(out.read_text())["files"]
    assert no_temp_files(tmp_path)


def test_lint_output_into_missing_folder(tmp_path, capsys):
    out = tmp_path / "nope" / "r.json"
    one_line_exit_2(["lint", "--format", "json", "--output", out, FOX], capsys, names=str(out))


def test_report_interrupted_keeps_old_file(tmp_path, capsys, monkeypatch):
    out = tmp_path / "report.html"
    out.write_text("previous")

    def boom(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(write_mod.os, "replace", boom)
    code, _, err = run(["report", "-o", out, FOX], capsys)
    assert code == 2 and [ln for ln in err.splitlines() if ln] == ["animsmith: aborted"], err
    assert out.read_text() == "previous" and no_temp_files(tmp_path)


def test_report_bad_input_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.glb"
    bad.write_bytes(b"not a glb")
    out = tmp_path / "report.html"
    one_line_exit_2(["report", "-o", out, bad], capsys, names=str(bad))
    assert not out.exists() and no_temp_files(tmp_path)


def test_python_m_animsmith_bad_file_has_no_traceback(tmp_path):
    """The real process (not in-process): one line, exit 2."""
    import subprocess

    bad = tmp_path / "bad.glb"
    bad.write_bytes(b"glTF" + b"\x02\x00\x00\x00" + b"\x00\x00\x00\x40")
    proc = subprocess.run([sys.executable, "-m", "animsmith", "lint", str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [proc.stderr.strip()] and proc.stderr.startswith(f"animsmith: {bad}: ")


def test_merge_results_refuses_a_fifo(tmp_path, capsys):
    fifo = tmp_path / "shard.json"
    os.mkfifo(fifo)
    one_line_exit_2(["merge-results", fifo], capsys, names=str(fifo), needle="not a regular file")


def test_merge_results_bad_json_is_one_line(tmp_path, capsys):
    bad = tmp_path / "shard.json"
    bad.write_bytes(b"{\xff")
    one_line_exit_2(["merge-results", bad], capsys, names=str(bad), needle="not valid JSON")


# --- outputs that are inputs, links, non-regular files; empty values; SIGTERM -----------------


@pytest.mark.parametrize("cmd", ["lint", "report"])
def test_output_that_is_an_input_is_refused_before_any_work(tmp_path, capsys, cmd):
    glb = tmp_path / "walk.glb"
    shutil.copy(FOX, glb)
    cfg = tmp_path / "c.toml"
    shutil.copy(CONFIG, cfg)
    before = glb.read_bytes(), cfg.read_bytes()
    fmt = ["--format", "json"] if cmd == "lint" else []
    for target, given in ((glb, glb), (cfg, glb), (tmp_path / "." / "walk.glb", glb)):
        line = one_line_exit_2([cmd, "--config", cfg, *fmt, "-o", target, given], capsys, names=str(target),
                               needle="is also an input")
        assert line.endswith("write the output elsewhere")
    assert (glb.read_bytes(), cfg.read_bytes()) == before and no_temp_files(tmp_path)


@pytest.mark.parametrize("cmd", ["lint", "report"])
def test_output_that_is_a_group_member_file_is_refused(tmp_path, capsys, cmd):
    """A member file read only for a group (not in PATHS) is an input too."""
    member = tmp_path / "mem.glb"
    shutil.copy(FOX, member)
    cfg = tmp_path / "c.toml"
    cfg.write_text('[gait_groups.g]\nclips = ["walk", "mem.glb"]\n')
    before = member.read_bytes()
    fmt = ["--format", "json"] if cmd == "lint" else []
    line = one_line_exit_2(["--config", cfg, cmd, *fmt, "-o", member, FOX],
                           capsys, names=str(member), needle="is also an input")
    assert str(member) in line and member.read_bytes() == before


@pytest.mark.parametrize("cmd", ["lint", "report"])
def test_output_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path, capsys, cmd):
    target = tmp_path / "real.out"
    target.write_text("old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.out"
    os.symlink(target, link)
    fmt = ["--format", "json"] if cmd == "lint" else []
    code, _, err = run([cmd, *fmt, "-o", link, FOX], capsys)
    assert code in (0, 1), err
    assert os.path.islink(link) and os.readlink(link) == str(target)
    assert target.read_text() != "old" and stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert no_temp_files(tmp_path)


def test_output_that_exists_and_is_not_a_regular_file_is_refused(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    one_line_exit_2(["lint", "--format", "json", "-o", fifo, FOX], capsys, names=str(fifo),
                    needle="exists and is not a regular file")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and no_temp_files(tmp_path)
    (tmp_path / "dir").mkdir()
    link = tmp_path / "to-dir"
    os.symlink(tmp_path / "dir", link)
    one_line_exit_2(["report", "-o", link, FOX], capsys, needle="is a directory")  # click's own check
    assert os.path.isdir(tmp_path / "dir") and os.path.islink(link)


@pytest.mark.parametrize("argv,needle", [
    (["lint", "--select", "", FOX], "--select: no check id given"),
    (["lint", "--allow", ",", FOX], "--allow: no check id given"),
    (["report", "--select", "", "-o", "r.html", FOX], "--select: no check id given"),
    (["lint", "--shard", "", FOX], "--shard: expected I/N"),
    (["lint", "--config", "", FOX], "bad config '': empty path"),
    (["--config", "", "lint", FOX], "bad config '': empty path"),
    (["lint", "-o", "", FOX], "--output: empty path"),
])
def test_empty_values_are_errors_not_defaults(tmp_path, capsys, monkeypatch, argv, needle):
    """An empty value is a mistake (an unset CI variable), never 'no checks' or 'no config'."""
    monkeypatch.chdir(tmp_path)
    one_line_exit_2(argv, capsys, needle=needle)
    assert os.listdir(tmp_path) == []


SLOW_PUBLISH = """
import os, sys, time
from animsmith.io import write
real_fsync = write.os.fsync
def slow_fsync(fd):
    real_fsync(fd)
    time.sleep(60)  # the temp file is complete and waiting to be renamed
write.os.fsync = slow_fsync
from animsmith.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("cmd", ["lint", "report"])
def test_sigterm_while_publishing_leaves_no_temp_file(tmp_path, cmd):
    """SIGTERM (a CI job cancelled) unwinds like Ctrl-C: the temp file beside the
    output is removed, an existing output keeps its bytes, exit 143."""
    import signal
    import subprocess
    import time

    out = tmp_path / "result.out"
    out.write_text("previous")
    fmt = ["--format", "json"] if cmd == "lint" else []
    proc = subprocess.Popen([sys.executable, "-c", SLOW_PUBLISH, cmd, *fmt, "-o", str(out), FOX],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while no_temp_files(tmp_path) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert not no_temp_files(tmp_path), proc.communicate(timeout=5)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 143 and "Traceback" not in err, err
    assert out.read_text() == "previous" and no_temp_files(tmp_path)


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse non-UTF-8 names")
@pytest.mark.parametrize("cmd", ["lint", "report"])
def test_file_name_that_is_not_utf8_is_written_escaped(tmp_path, capsys, cmd):
    """os.fsdecode turns byte 0xff of a name into U+DCFF; a written output holds it as the
    JSON/JS escape \\udcff (valid UTF-8 text that reads back to the same name)."""
    import json

    raw = os.path.join(os.fsencode(tmp_path), b"b\xffd.glb")
    shutil.copy(FOX, raw)
    name = os.fsdecode(raw)
    out = tmp_path / "out.txt"
    fmt = ["--format", "json"] if cmd == "lint" else []
    code, _, err = run([cmd, *fmt, "-o", out, name], capsys)
    assert code in (0, 1) and err == "", err
    text = out.read_bytes().decode("utf-8")  # strict: the file is valid UTF-8
    assert "\\udcff" in text
    if cmd == "lint":
        assert json.loads(text)["files"][0]["path"] == name


def test_a_second_sigterm_does_not_cut_the_cleanup_short():
    """The first SIGTERM raises SystemExit(143) to unwind; from then on SIGTERM is ignored,
    so `finally` blocks (temp file, worker pool, temp folder) finish; main() restores the
    previous handler afterwards."""
    import signal

    from animsmith import cli

    previous = cli._exit_on_sigterm()
    try:
        with pytest.raises(SystemExit) as info:
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # the handler runs between bytecodes
                pass
        assert info.value.code == 143
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGTERM)  # ignored: this test goes on
        for _ in range(1000):
            pass
    finally:
        cli._restore_sigterm(previous)
    assert signal.getsignal(signal.SIGTERM) is previous


CORPUS_FOX = os.path.join(ROOT, "tests", "data", "khr_Fox.glb")  # has findings


def _cli_process(args, encoding="utf-8", **kw):
    import subprocess

    return subprocess.run([sys.executable, "-m", "animsmith", *map(str, args)], capture_output=True,
                          encoding=encoding, timeout=120, **kw)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "utf-8:strict"])
@pytest.mark.parametrize("argv", [["lint", "--format", "json"], ["lint", "--format", "sarif"], ["lint"], ["measure"],
                                  ["inspect"], ["measure", "--format", "json"]])
def test_any_output_encoding_escapes_what_it_cannot_hold(tmp_path, argv, encoding):
    """A non-ASCII file name under an ASCII/Latin-1 (or strict UTF-8) stdout: written as
    \\uXXXX (valid JSON), never an internal UnicodeEncodeError."""
    import json

    name = tmp_path / "läufer☃.glb"
    shutil.copy(CORPUS_FOX, name)
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "animsmith", *argv, str(name)], capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONIOENCODING": encoding})
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stderr == b""
    try:  # click writes UTF-8 to a stream that declares ASCII; otherwise the declared encoding
        stdout = proc.stdout.decode("utf-8")
    except UnicodeDecodeError:
        stdout = proc.stdout.decode(encoding.split(":")[0])
    if "json" in argv or "sarif" in argv:
        json.loads(stdout)  # still valid JSON
    if argv[-1] == "json":
        assert json.loads(stdout)["files"][0]["path"] == str(name)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["lint", FOX], ["measure", FOX], ["checks"], ["--help"]])
def test_a_full_stdout_is_one_line_exit_2(argv):
    with open("/dev/full", "w") as full:
        import subprocess

        proc = subprocess.run([sys.executable, "-m", "animsmith", *argv], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == "animsmith: cannot write to stdout: No space left on device\n"


@pytest.mark.slow
def test_a_closed_stdout_is_exit_2_not_silent_success(tmp_path):
    """Results written to a closed stdout would vanish: exit 2. With -o the file is the
    result and stdout only a summary, so a closed stdout is a legitimate file-only run."""
    import subprocess

    def closed(args):
        return subprocess.run([sys.executable, "-m", "animsmith", *map(str, args)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, timeout=120, preexec_fn=lambda: os.close(1))

    for args in (["measure", FOX], ["lint", "--format", "json", FOX]):
        proc = closed(args)
        assert proc.returncode == 2
        assert proc.stderr == "animsmith: cannot write to stdout: stdout is closed\n"
    out = tmp_path / "r.json"
    proc = closed(["lint", "--format", "json", "-o", out, FOX])
    assert proc.returncode in (0, 1) and proc.stderr == "" and out.stat().st_size > 0
    proc = closed(["report", f"--output={tmp_path / 'r.html'}", FOX])
    assert proc.returncode == 0 and proc.stderr == "" and (tmp_path / "r.html").exists()


def _reader_gone(args):
    """Run with stdout a pipe whose reader has already gone (`| true`, `| head` after its line)."""
    import subprocess

    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([sys.executable, "-m", "animsmith", *map(str, args)], stdout=w,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(w)


@pytest.mark.slow
def test_a_reader_that_goes_away_keeps_the_decided_exit_status(tmp_path):
    """`animsmith lint ... | head`: the run's own status, quietly (click and rich turn a
    broken pipe into 1, which CI reads as error findings)."""
    ring_cfg = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")
    ring = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
    direct = subprocess_status(["lint", FOX])
    assert direct == 0
    cases = [
        (["lint", FOX], 0),
        (["lint", "--format", "json", FOX], 0),
        (["--config", ring_cfg, "lint", ring], 1),
        (["--config", ring_cfg, "lint", "--format", "sarif", ring], 1),
        (["measure", FOX], 0),
        (["inspect", FOX], 0),
        (["checks"], 0),
        (["--help"], 0),
        (["--version"], 0),
        (["lint", "--help"], 0),
    ]
    for args, status in cases:
        proc = _reader_gone(args)
        assert (proc.returncode, proc.stderr) == (status, ""), args
    # a refused transform writes its JSON and exits 1: still 1 when nobody reads it
    spider = os.path.join(ROOT, "examples", "assets", "spider-walk-rough.glb")
    args = ["transform", "--gait-anchor", "--dry-run", "--format", "json", spider]
    assert subprocess_status(args) == 1
    proc = _reader_gone(args)
    assert proc.returncode == 1 and proc.stderr.startswith("animsmith: refused [")


def test_error_lines_cannot_carry_a_runner_command(tmp_path, capsys):
    """A GitHub runner reads "##[cmd]" anywhere in a step's output, stderr included: an
    error line naming such a file shows it as #\\u0023[."""
    bad = tmp_path / "bad##[add-mask]x.glb"
    bad.write_bytes(b"glTF" + b"\0" * 20)
    code, out, err = run(["lint", "--format", "github", str(bad)], capsys)
    assert code == 2 and out == "" and "##[" not in err and "bad#\\u0023[add-mask]x.glb" in err


def test_a_decided_status_does_not_leak_into_the_next_in_process_run(monkeypatch):
    """main() twice in one process (an embedding tool, the test harness): the second
    command's broken pipe exits with its own status, not the first command's."""
    from animsmith.cli import main

    ring_cfg = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")
    ring = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    with pytest.raises(SystemExit) as first:
        main(["--config", ring_cfg, "lint", ring])
    assert first.value.code == 1

    class Gone(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Gone())
    with pytest.raises(SystemExit) as second:
        main(["inspect", FOX])
    assert second.value.code == 0


def subprocess_status(args) -> int:
    import subprocess

    return subprocess.run([sys.executable, "-m", "animsmith", *map(str, args)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=120).returncode


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_stderr_keeps_the_decided_exit_status():
    """`2>/dev/full`: the error line is lost, but an operator error stays exit 2 (not 1,
    which CI would read as findings)."""
    import subprocess

    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "animsmith", "lint", "does-not-exist.glb"],
                              stdout=subprocess.PIPE, stderr=full, timeout=120)
        assert proc.returncode == 2 and proc.stdout == b""
        proc = subprocess.run([sys.executable, "-m", "animsmith", "lint", "--jobs", "0", FOX],
                              stdout=subprocess.PIPE, stderr=full, timeout=120)
        assert proc.returncode == 2


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse non-UTF-8 names")
def test_sarif_names_a_non_utf8_file_by_its_bytes(tmp_path, capsys):
    import json

    raw = os.path.join(os.fsencode(tmp_path), b"f\xe9x.glb")
    shutil.copy(CORPUS_FOX, raw)
    out = tmp_path / "r.sarif"
    code, _, err = run(["lint", "--format", "sarif", "-o", out, os.path.relpath(os.fsdecode(raw))], capsys)
    assert code in (0, 1) and err == "", err
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(out.read_text())["runs"][0]["results"] for loc in r.get("locations", [])}
    assert uris and all(u.endswith("f%E9x.glb") for u in uris), uris


@pytest.mark.parametrize("argv", [["measure"], ["measure", "speed"], ["inspect"], ["lint", "--format", "markdown"],
                                  ["lint"]])
def test_control_and_bidi_characters_in_names_are_shown_escaped(tmp_path, capsys, argv):
    """A clip named with a right-to-left override and an ANSI escape must not reorder or
    recolour the terminal or a rendered PR comment: both are printed as \\uXXXX."""
    from lint_support import write_clips

    name = "walk\u202e\x1b[31mred"
    glb = write_clips(tmp_path / "w.glb", [gait_clip(name, velocity_mps=(0.0, 0.0, 1.0))])
    code, out, err = run([*argv, glb], capsys)
    assert code in (0, 1), err
    assert "\u202e" not in out and "\x1b" not in out
    if argv != ["lint"]:  # lint's text output names a clip only in findings
        assert "u202e" in out and "u001b" in out  # shown as escapes (markdown also escapes '\\' and '[')


def test_error_lines_escape_control_characters_and_stay_short(tmp_path, capsys):
    line = one_line_exit_2(["checks", "nan\x1b[31m"], capsys)
    assert "\x1b" not in line and "nan\\u001b[31m" in line
    code, out, err = run(["checks", "x" * 100_000], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert len(err) < 1200 and "characters)..." in err
    long_path = "/".join(["/tmp", "d" * 400, "e" * 400, "f" * 400, "x.glb"])
    line = one_line_exit_2(["lint", long_path], capsys)
    assert len(line) < 1200 and line.endswith("x.glb: no such file or directory")  # the reason survives the cut
    bell = tmp_path / "a\x07.toml"
    bell.write_text("[rigg]\n")
    line = one_line_exit_2(["--config", bell, "lint", FOX], capsys)
    assert "\x07" not in line and "a\\u0007.toml" in line


def test_extreme_fps_and_repeated_clip_flags(capsys):
    ring = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
    code, _, err = run(["--config", CONFIG, "transform", "--gait-anchor", "--dry-run", "--fps", "1e300", ring], capsys)
    assert code == 1 and err.startswith("animsmith: refused [budget_exceeded]: ")
    assert "1e+300 frames x " in err and len(err) < 400  # not a 300-digit frame count
    code, out, _ = run(["measure", "--format", "json", "--clip", "run_left", "--clip", "run_left", ring], capsys)
    import json

    assert code == 0 and [c["name"] for c in json.loads(out)["files"][0]["clips"]] == ["run_left"]
