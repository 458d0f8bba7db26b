"""Behaviour that must not depend on the operating system (portability audit, 2026-12-01).

These run on Linux: each stands in for the Windows or macOS behaviour the way the
standard library would show it there (``ntpath`` rules, click's Windows argument
expansion, a cp1252 stdout with CRLF, EINVAL from a closed pipe, a case-insensitive
look-up of the contract's name) and checks against an independent expectation
(``pathlib``'s URIs, the POSIX order, the ``--output`` bytes).
"""

from __future__ import annotations

import errno
import io
import json
import ntpath
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from animsmith.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOX = os.path.join(ROOT, "examples", "assets", "fox-walk.glb")
RING = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
RING_CONFIG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")


def run_cli(argv, capsys):
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(None if argv is None else [str(a) for a in argv])
    out, err = capsys.readouterr()
    return (0 if info.value.code is None else info.value.code), out, err


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------


class _WindowsOs:
    """click.core's view of ``os`` on Windows (only ``name`` differs)."""

    name = "nt"

    def __getattr__(self, attr):
        return getattr(os, attr)


def test_windows_expands_globs_for_commands_that_take_files(tmp_path, capsys, monkeypatch):
    """cmd.exe passes `*.glb` as typed; click expands it on Windows as a POSIX shell does, so
    `measure *.glb` (files only) works there too. (Turning that off for lint's own globbing
    broke measure, collection, sim validate and `--config ~/...` on Windows.)"""
    import click.core

    shutil.copy(FOX, tmp_path / "fox-walk.glb")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(click.core, "os", _WindowsOs())
    monkeypatch.setattr(sys, "argv", ["animsmith", "measure", "*.glb"])
    code, out, err = run_cli(None, capsys)
    assert (code, err) == (0, ""), err
    assert out.startswith("fox-walk.glb")


def test_folder_order_is_the_same_with_either_separator(monkeypatch):
    """Files are ordered as if every separator were '/': Windows' '\\' sorts after letters
    and digits, so packs\\RunFast.glb came before packs\\Run\\a.glb there (and a bare group
    member name could resolve to another file)."""
    from animsmith.lint import path_order_key

    posix = ["packs/Run/a.glb", "packs/RunFast.glb", "packs/run/a.glb", "packs/run2.glb", "packs/run_b/z.glb"]
    expected = sorted(posix)
    monkeypatch.setattr(os, "sep", "\\")
    windows = [p.replace("/", "\\") for p in posix]
    assert sorted(windows) != [p.replace("/", "\\") for p in expected]  # the plain string order differs
    assert sorted(windows, key=path_order_key) == [p.replace("/", "\\") for p in expected]


def test_a_member_file_without_a_relative_path_is_named_in_full(tmp_path, capsys, monkeypatch):
    """On Windows os.path.relpath raises ValueError for a member on another drive or share;
    the group is still judged and the member named by its full path (was an internal error)."""
    shutil.copy(RING, tmp_path / "ring.glb")
    cfg = tmp_path / "ring.toml"
    clips = ", ".join(f'"ring.glb#{n}"' for n in ("run_forward", "run_backward", "run_left", "run_right", "nope"))
    cfg.write_text(f"[gait_groups.ring]\nclips = [{clips}]\n")
    member = str(tmp_path / "ring.glb")
    real_relpath = os.path.relpath

    def relpath(path, *args):
        if os.path.abspath(path) == member:
            raise ValueError("path is on mount 'D:', start on mount 'C:'")
        return real_relpath(path, *args)

    monkeypatch.setattr(os.path, "relpath", relpath)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["--config", "ring.toml", "lint", "--format", "json", FOX], capsys)
    assert code == 1 and err == "", err
    doc = json.loads(out)
    said = [x["message"] for x in doc["files"][0]["findings"] + doc["files"][0]["coverage_gaps"]]
    assert f"gait group 'ring' member 'ring.glb#nope' not found: no clip named 'nope' in {member}" in said
    assert any(x["check_id"] == "gait-group" and x["members"] for x in doc["files"][0]["findings"])  # judged


# --------------------------------------------------------------------------
# stdout
# --------------------------------------------------------------------------


def test_a_redirected_cp1252_crlf_stdout_writes_utf8_and_lf(monkeypatch):
    """Windows' redirected stdout (ANSI code page, CRLF) is switched to UTF-8 with LF, the
    bytes --output writes: '—' was byte 0x97 (invalid UTF-8 in JSON, SARIF and JUnit)."""
    from animsmith.cli import utf8_redirected_stdout

    monkeypatch.delenv("PYTHONIOENCODING", raising=False)
    monkeypatch.setattr(os, "linesep", "\r\n")
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="cp1252", newline="\r\n")
    utf8_redirected_stdout(stream)
    stream.write("cap 0.15 \u2014 ring\n")
    stream.flush()
    assert raw.getvalue() == "cap 0.15 \u2014 ring\n".encode("utf-8")
    # a terminal keeps its own encoding
    class Console(io.TextIOWrapper):
        def isatty(self):
            return True

    console = Console(io.BytesIO(), encoding="cp1252", newline="\r\n")
    utf8_redirected_stdout(console)
    assert console.encoding == "cp1252"
    # an error handler alone is kept; an encoding the user chose stays
    monkeypatch.setenv("PYTHONIOENCODING", ":replace")
    handler = io.TextIOWrapper(io.BytesIO(), encoding="cp1252", errors="replace", newline="\r\n")
    utf8_redirected_stdout(handler)
    assert (handler.encoding, handler.errors) == ("utf-8", "replace")
    monkeypatch.setenv("PYTHONIOENCODING", "cp1252")
    kept = io.TextIOWrapper(io.BytesIO(), encoding="cp1252", newline="\r\n")
    utf8_redirected_stdout(kept)
    assert kept.encoding == "cp1252"


def test_stdout_of_a_non_utf8_locale_matches_the_output_file(tmp_path):
    """A locale whose stdout is not UTF-8 (here ASCII: C locale with UTF-8 mode and locale
    coercion off) writes the same bytes as -o: UTF-8 '—' in the gait-group message, and a
    name the locale cannot decode as its \\udcXX escapes (the name came out as 'l??ufer')."""
    name = tmp_path / "l\u00e4ufer.glb"
    shutil.copy(RING, name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LC_CTYPE", "LANG", "LANGUAGE")}
    env.update(LC_ALL="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    out_file = tmp_path / "out.json"
    base = [sys.executable, "-m", "animsmith", "--config", RING_CONFIG, "lint", "--format", "json", str(name)]
    probe = subprocess.run([sys.executable, "-c", "import sys; print(sys.stdout.encoding)"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert probe.stdout.strip().lower() in ("ascii", "ansi_x3.4-1968"), probe.stdout  # the premise
    piped = subprocess.run(base, capture_output=True, env=env, cwd=ROOT, timeout=120)
    written = subprocess.run(base + ["-o", str(out_file)], capture_output=True, env=env, cwd=ROOT, timeout=120)
    assert piped.returncode == written.returncode == 1, piped.stderr
    assert piped.stdout == out_file.read_bytes()
    assert "\u2014".encode("utf-8") in piped.stdout
    doc = json.loads(piped.stdout.decode("utf-8"))
    assert doc["files"][0]["path"] == str(tmp_path / "l\udcc3\udca4ufer.glb")  # the locale's reading of the name


class _ClosedPipeOnWindows(io.StringIO):
    """A stdout whose reader went away, as Windows reports it: EINVAL, not EPIPE."""

    def write(self, s):
        raise OSError(errno.EINVAL, "Invalid argument")

    def isatty(self):
        return False


@pytest.mark.parametrize("argv, status", [(["lint", "--select", "nan", FOX], 0),
                                          (["--config", RING_CONFIG, "lint", RING], 1)])
def test_a_closed_pipe_on_windows_keeps_the_decided_status(capsys, monkeypatch, argv, status):
    """`animsmith lint ... | head` on Windows: the write fails with EINVAL; that is the reader
    going away (quiet, the command's status), not 'cannot write to stdout' with exit 2."""
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(sys, "stdout", _ClosedPipeOnWindows())
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == status
    assert capsys.readouterr().err == ""


def test_a_read_only_temp_is_removed_where_read_only_files_cannot_be(tmp_path, monkeypatch):
    """Replacing a read-only output: the temp file takes the output's mode (read-only), and
    Windows can neither replace a read-only file nor remove one. The publish fails with the
    output untouched and the temp file removed (it was left behind)."""
    import stat

    from animsmith.io.write import publish_bytes

    out = tmp_path / "x.glb"
    out.write_bytes(b"earlier")
    os.chmod(out, 0o444)
    real_unlink = os.unlink

    def unlink(path, *a, **k):
        if not os.stat(path).st_mode & stat.S_IWRITE:
            raise PermissionError(errno.EACCES, "Access is denied")
        return real_unlink(path, *a, **k)

    def replace(src, dst, *a, **k):
        raise PermissionError(errno.EACCES, "Access is denied")

    monkeypatch.setattr(os, "unlink", unlink)
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(PermissionError):
        publish_bytes(str(out), b"new")
    assert os.listdir(tmp_path) == ["x.glb"] and out.read_bytes() == b"earlier"


def test_checks_markdown_is_utf8_whatever_stdout_encoding():
    """`python -m animsmith.checks --markdown > docs/checks.md` on a cp1252 stdout: the same
    file (it raised UnicodeEncodeError on '≥')."""
    env = dict(os.environ, PYTHONIOENCODING="cp1252")
    proc = subprocess.run([sys.executable, "-m", "animsmith.checks", "--markdown"], cwd=ROOT, env=env,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(ROOT, "docs", "checks.md"), "rb") as fh:
        assert proc.stdout == fh.read()


# --------------------------------------------------------------------------
# text inputs written by Windows tools
# --------------------------------------------------------------------------

BOM = b"\xef\xbb\xbf"


def test_a_contract_with_a_byte_order_mark_is_the_same_contract(tmp_path):
    """PowerShell 5.1's `-Encoding utf8` writes a BOM: the contract parses, with the same digest
    (shards of one run agree whichever checkout wrote it)."""
    from animsmith.checks import parse_contract

    with open(RING_CONFIG, "rb") as fh:
        raw = fh.read()
    plain = parse_contract(raw, str(tmp_path / "c.toml"))
    marked = parse_contract(BOM + raw, str(tmp_path / "c.toml"))
    assert marked.digest == plain.digest
    assert sorted(marked.gait_groups) == sorted(plain.gait_groups)


def test_a_creature_file_with_a_byte_order_mark_validates(tmp_path, capsys):
    """A creature file (TOML or JSON) saved with a byte-order mark validates as without it."""
    with open(os.path.join(ROOT, "animsmith", "sim", "catalog", "biped.toml"), "rb") as fh:
        raw = fh.read()
    as_json = json.dumps(_creature_doc(raw)).encode("utf-8")
    for suffix, data in ((".toml", raw), (".json", as_json)):
        p = tmp_path / f"biped{suffix}"
        p.write_bytes(BOM + data)
        code, out, err = run_cli(["sim", "validate", p], capsys)
        assert code == 0 and err == "", err


def _creature_doc(raw: bytes) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    return tomllib.loads(raw.decode("utf-8"))


def test_merge_accepts_a_shard_with_a_byte_order_mark(tmp_path, capsys):
    shard = tmp_path / "shard.json"
    code, _, err = run_cli(["--config", RING_CONFIG, "lint", "--format", "json", "-o", shard, RING], capsys)
    assert code == 1, err
    marked = tmp_path / "marked.json"
    marked.write_bytes(BOM + shard.read_bytes())
    plain = run_cli(["merge-results", "--format", "json", shard], capsys)
    again = run_cli(["merge-results", "--format", "json", marked], capsys)
    assert again == plain and plain[0] == 1


# --------------------------------------------------------------------------
# paths
# --------------------------------------------------------------------------


@pytest.mark.parametrize("path", [r"C:\work\run ring.glb", "d:\\assets\\l\u00e4ufer.glb", r"\\srv\share\packs\x.glb"])
def test_sarif_uri_of_a_windows_path_is_pathlibs(path):
    """RFC 8089 as pathlib writes it: the drive's colon stays (was file:///C%3A/...), a share's
    server is the authority (was file:////srv/...)."""
    from animsmith.render.sarif import artifact_uri

    assert artifact_uri(path, ntpath) == pathlib.PureWindowsPath(path).as_uri()


@pytest.mark.parametrize("path", ["/work/run ring.glb", "/a/b:c.glb", "/x/l\u00e4ufer.glb"])
def test_sarif_uri_of_a_posix_path_is_pathlibs(path):
    from animsmith.render.sarif import artifact_uri

    assert artifact_uri(path) == pathlib.PurePosixPath(path).as_uri()


def test_a_creature_path_written_with_slashes_on_windows(tmp_path, capsys, monkeypatch):
    """`sim validate creatures/dog` (no suffix) is a file on Windows too, where os.sep is '\\'
    (it was looked up as a built-in creature name)."""
    folder = tmp_path / "creatures"
    folder.mkdir()
    shutil.copy(os.path.join(ROOT, "animsmith", "sim", "catalog", "biped.toml"), folder / "dog")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "sep", "\\")
    monkeypatch.setattr(os, "altsep", "/")
    monkeypatch.setattr(os.path, "sep", "\\")
    code, out, err = run_cli(["sim", "validate", "creatures/dog"], capsys)
    assert code == 0 and err == "", err


def test_the_contract_name_differing_in_case_is_an_error(tmp_path, capsys, monkeypatch):
    """./Animsmith.toml would be the contract on Windows and macOS (case-insensitive look-up)
    and ignored on Linux: an error naming it on every OS."""
    shutil.copy(RING_CONFIG, tmp_path / "Animsmith.toml")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["lint", FOX], capsys)
    assert (code, out) == (2, "")
    assert err == ("animsmith: bad config Animsmith.toml: the contract is found only as 'animsmith.toml'; this name "
                   "differs in case (Windows and macOS would read it, Linux would not): rename it, or pass --config\n")
    (tmp_path / "Animsmith.toml").rename(tmp_path / "animsmith.toml")
    code, _, err = run_cli(["lint", "--select", "nan", FOX], capsys)
    assert code == 0, err


# --------------------------------------------------------------------------
# help and usage (help audit, 2026-12-01)
# --------------------------------------------------------------------------


def test_a_mistyped_command_gets_a_suggestion(capsys):
    """The lazy top-level group suggested nothing (click looks in self.commands, which it
    leaves empty); its subgroups did."""
    code, out, err = run_cli(["lnt", "x.glb"], capsys)
    assert (code, out) == (2, "")
    assert err == "animsmith: No such command 'lnt'. Did you mean 'lint'? (see 'animsmith --help')\n"
    code, _, err = run_cli(["frobnicate"], capsys)
    assert err == "animsmith: No such command 'frobnicate'. (see 'animsmith --help')\n"


@pytest.mark.parametrize("group", [["--help"], ["collection", "--help"], ["sim", "--help"]])
def test_command_lists_are_not_cut_short(capsys, group):
    """Every command of a group is listed with a whole one-line summary (click cut long
    first sentences to '...')."""
    code, out, _ = run_cli(group, capsys)
    assert code == 0
    listing = out.split("Commands:\n", 1)[1]
    assert "..." not in listing and listing.strip()


def test_report_takes_one_clip(tmp_path, capsys):
    """A second --clip was silently dropped (the last one won)."""
    out_file = tmp_path / "r.html"
    code, out, err = run_cli(["report", RING, "-o", out_file, "--clip", "run_left", "--clip", "run_right"], capsys)
    assert (code, out) == (2, "") and not out_file.exists()
    assert err == ("animsmith: --clip takes one clip (given 2): the page draws one clip at a time "
                   "(see 'animsmith report --help')\n")


def test_checks_markdown_with_an_id_is_refused(capsys):
    """`checks gait-group --markdown` printed the whole reference, ignoring the ID."""
    code, out, err = run_cli(["checks", "gait-group", "--markdown"], capsys)
    assert (code, out) == (2, "") and "--markdown prints the whole reference" in err


@pytest.mark.parametrize("argv", [
    ["transform", RING, "--gait-anchor", "--dry-run"],
    ["collection", "transform-foot-cycle", "--group", "g", "--reference", "r", "--dry-run", RING],
    ["sim", "bake", "biped", "-o", "/nonexistent/x.glb"],
])
@pytest.mark.parametrize("value", ["nan", "0", "-inf", "x"])
def test_fps_is_refused_in_one_wording_everywhere(capsys, argv, value):
    """--fps that is not a finite number > 0: one message on every command (three wordings before)."""
    cmd = " ".join(a for a in argv[:2] if not a.startswith("-") and a != RING)
    code, out, err = run_cli([*argv, "--fps", value], capsys)
    reason = f"{value!r} is not a number" if value == "x" else f"must be a finite number > 0, got {value}"
    assert (code, out) == (2, "")
    assert err == f"animsmith: Invalid value for '--fps': {reason} (see 'animsmith {cmd} --help')\n"


# --------------------------------------------------------------------------
# one file, several names (a case-insensitive volume's other spelling, shown here with
# a hard link: both are one device and inode under two names)
# --------------------------------------------------------------------------


def test_a_file_under_two_names_is_linted_once(tmp_path, capsys):
    """`Walk.glb` and `walk.glb` on macOS's default volume are one file, as two hard links
    are; the resolved path told them apart, so the file was linted twice."""
    shutil.copy(FOX, tmp_path / "fox.glb")
    os.link(tmp_path / "fox.glb", tmp_path / "Fox-link.glb")
    code, out, err = run_cli(["lint", "--format", "json", "--select", "nan", tmp_path / "fox.glb",
                              tmp_path / "Fox-link.glb"], capsys)
    assert code == 0, err
    assert [f["path"] for f in json.loads(out)["files"]] == [str(tmp_path / "fox.glb")]


def test_a_group_member_named_through_two_names_counts_once(tmp_path, capsys):
    shutil.copy(RING, tmp_path / "ring.glb")
    os.link(tmp_path / "ring.glb", tmp_path / "Ring-link.glb")
    cfg = tmp_path / "ring.toml"
    clips = ['"ring.glb#run_forward"', '"Ring-link.glb#run_forward"', '"ring.glb#run_backward"',
             '"ring.glb#run_left"', '"ring.glb#run_right"']
    cfg.write_text(f"[gait_groups.ring]\nclips = [{', '.join(clips)}]\n")
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", tmp_path / "ring.glb"], capsys)
    assert code == 1, err
    finding = next(f for f in json.loads(out)["files"][0]["findings"] if f["check_id"] == "gait-group")
    assert [m["member"] for m in finding["members"]] == [
        "ring.glb#run_forward", "ring.glb#run_backward", "ring.glb#run_left", "ring.glb#run_right"]


def _on_a_terminal(argv, env):
    """stdout bytes of ``animsmith argv`` written to a pseudo-terminal."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "animsmith", *argv], stdout=slave, stderr=subprocess.PIPE,
                              env=env, cwd=ROOT, timeout=120)
        os.close(slave)
        slave = None
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other end is closed
                break
            if not data:
                break
            chunks.append(data)
        return proc.returncode, b"".join(chunks)
    finally:
        os.close(master)
        if slave is not None:
            os.close(slave)


def _colours(data: bytes) -> list:
    """The colour parameters (foreground/background SGR 30-49, 90-107) of the escapes in ``data``."""
    import re

    found = []
    for params in re.findall(rb"\x1b\[([0-9;]*)m", data):
        found += [p for p in params.split(b";") if p and (30 <= int(p) <= 49 or 90 <= int(p) <= 107)]
    return found


@pytest.mark.parametrize("argv", [["--config", RING_CONFIG, "lint", RING]])
def test_no_color_turns_colour_off_on_a_terminal(argv):
    """no-color.org: NO_COLOR set to anything turns colour off (a terminal got colour anyway;
    bold and other non-colour styles may stay)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    env["TERM"] = "xterm-256color"
    code, coloured = _on_a_terminal(argv, env)
    assert _colours(coloured)  # the premise: a terminal gets colour
    code2, plain = _on_a_terminal(argv, {**env, "NO_COLOR": "1"})
    assert code2 == code and _colours(plain) == [] and plain.strip()
