"""The ``animsmith`` command line: a thin click group over the core.

Each command lives in ``animsmith/commands/<name>.py`` and is imported only
when it runs, so ``animsmith --help`` starts without numpy or scipy.
Commands parse, call the core, render and choose the exit code; nothing below
them prints or exits.
"""

from __future__ import annotations

import importlib
import io
import os
import sys
from typing import Any, List

import click

from animsmith import __version__

# name -> (module:attribute, one-line help shown by `animsmith --help`)
COMMANDS = {
    "lint": ("animsmith.commands.lint:lint_cmd", "Judge clips and declared groups against the TOML contract."),
    "measure": ("animsmith.commands.measure:measure_cmd", "Numbers without judgement: speed, stride anchor, amplitude."),
    "inspect": ("animsmith.commands.inspect:inspect_cmd", "Show the rig profile, resolved roles, bone tree and clips."),
    "checks": ("animsmith.commands.checks:checks_cmd", "List the checks, or explain one."),
    "transform": ("animsmith.commands.transform:transform_cmd", "Rewrite a clip safely (gait anchoring), or refuse."),
    "collection": ("animsmith.commands.collection:collection_grp", "Operations on a declared group of clips."),
    "report": ("animsmith.commands.report:report_cmd", "Write one self-contained interactive HTML report."),
    "merge-results": ("animsmith.commands.merge:merge_cmd", "Combine sharded JSON lint results into one."),
    "sim": ("animsmith.commands.sim:sim_grp", "Procedural gait simulator: bake, validate, catalog, ring."),
}


class ReaderGone(Exception):
    """stdout's reader went away while a command wrote (``| head``). Not an OSError, so
    click does not turn it into exit status 1; :func:`_main` keeps the decided status."""


def reader_gone(exc: OSError) -> bool:
    """``exc`` says stdout's reader went away: a broken pipe, or on Windows the EINVAL a
    write to a pipe whose reader closed raises there (CPython's subprocess treats it the same)."""
    import errno

    if isinstance(exc, BrokenPipeError):
        return True
    return sys.platform == "win32" and exc.errno == errno.EINVAL and _stdout_failed(exc)


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except OSError as exc:
            if reader_gone(exc):
                raise ReaderGone() from exc
            raise

    def make_context(self, info_name, args, parent=None, **extra):
        # `animsmith --help | head`: the group's own options print while the context is made
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except OSError as exc:
            if reader_gone(exc):
                raise ReaderGone() from exc
            raise

    def list_commands(self, ctx):
        return list(COMMANDS)

    def resolve_command(self, ctx, args):
        # click suggests close names from self.commands, which a lazy group leaves empty
        name = click.utils.make_str(args[0]) if args else ""
        if name and name not in COMMANDS and not name.startswith("-") and not ctx.resilient_parsing:
            from animsmith.hints import close_matches

            close = close_matches(name, COMMANDS, n=2)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)

    def get_command(self, ctx, name):
        entry = COMMANDS.get(name)
        if entry is None:
            return None
        module_name, attr = entry[0].split(":")
        module = importlib.import_module(module_name)
        return getattr(module, attr)

    def format_commands(self, ctx, formatter):
        rows = [(name, help_text) for name, (_, help_text) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="TOML contract for lint, measure, inspect, transform, collection and report (default: "
    "./animsmith.toml when present, else built-in defaults).",
)
@click.version_option(__version__, prog_name="animsmith")
@click.pass_context
def cli(ctx: click.Context, config_path):
    """AnimSmith: will these animation clips behave in a game runtime?

    Lints GLB/glTF skeletal clips against a TOML contract; above all, checks
    that a directional blend ring (run forward/back/left/right) shares one
    stride phase so blends do not skate the feet.

    \b
    The contract (--config, else ./animsmith.toml):
      [rig]                 profile, units, and [rig.roles] for bones the names do not give
      [clips."<glob>"]      loop, fps, speed_mps, ... expected of matching clips
      [clips."<file.glb>"]  the same for one file's clips (Mixamo: every clip is mixamo.com)
      [gait_groups.<name>]  clips = [...]: a blend ring judged by gait-group (travel_policy too)
      [sync_groups.<name>]  clips = [...]: clips that must share a duration and frame grid
      [engine]              profile = "threejs" | "bevy" | "godot": the runtime's handles
      [checks.<id>]         severity, enabled, and that check's options
    Example: configs/example.animsmith.toml. Documentation: README.md and docs/
    in the animsmith source; `animsmith checks --markdown` prints the check reference.
    """
    from animsmith.runtime import collect_less_often, keep_freed_heap

    keep_freed_heap()  # here, not in main(): `--help` and `--version` never get this far
    collect_less_often()
    ctx.ensure_object(dict)
    ctx.obj["config_path"] = config_path


def main(argv=None) -> None:
    """Console entry point: one-line errors and exit 2, never a traceback."""
    import warnings

    # NaN/Inf arithmetic on hostile clips is reported as findings; numpy's
    # RuntimeWarning lines (raised in our code or numpy's own Python, e.g.
    # linalg.norm) would be extra stderr noise (docs/hardening.md).
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"(animsmith|numpy)\.")
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        sys.stdout = _closed_stdout(argv if argv is not None else sys.argv[1:])
    utf8_redirected_stdout(sys.stdout)
    _escape_unencodable_output()
    previous = _exit_on_sigterm()
    try:
        _main(argv)
    finally:
        _restore_sigterm(previous)


#: flags that name the file a command's result goes to: with one of them, stdout only
#: carries a summary, so a closed stdout is a legitimate "file only" run
OUTPUT_FLAGS = ("-o", "--output", "--out-dir")


class _ClosedStdout(io.TextIOBase):
    """Stands in for a closed stdout: writing raises ``OSError`` (reported as ``cannot write
    to stdout: stdout is closed``, exit 2), so no result vanishes with exit status 0."""

    encoding = "utf-8"
    errors = "backslashreplace"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        import errno

        raise OSError(errno.EBADF, "stdout is closed")


def _closed_stdout(argv) -> Any:
    """What stdout becomes when the process started without one: nothing written goes
    missing silently, unless the command was told to write its result to a file."""
    given = [str(a) for a in argv or ()]
    if any(a in OUTPUT_FLAGS or a.startswith(("--output=", "--out-dir=")) or (a.startswith("-o") and len(a) > 2)
           for a in given):
        return open(os.devnull, "w")
    return _ClosedStdout()


OUTPUT_ESCAPE = "animsmith.escape"


def _escape_char(err):
    """Codec error handler: each character the stream cannot encode becomes ``\\uXXXX``
    (a surrogate pair above U+FFFF): valid inside JSON strings, readable in text."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    out = []
    for ch in err.object[err.start : err.end]:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)))
        else:
            out.append("\\u%04x" % cp)
    return "".join(out), err.end


def utf8_redirected_stdout(stream) -> None:
    """A stdout redirected to a file or pipe writes UTF-8 with ``\\n`` line ends, the bytes
    ``--output`` writes (JSON, SARIF and JUnit must be UTF-8), unless the user chose an
    encoding (``PYTHONIOENCODING``). Matters on Windows, where a redirected stdout is the
    ANSI code page (cp1252: ``—`` became byte 0x97) with ``\\r\\n``; a console (a TTY)
    keeps its own encoding."""
    if os.environ.get("PYTHONIOENCODING", "").partition(":")[0] or not hasattr(stream, "reconfigure"):
        return  # an encoding the user chose (an error handler alone, ":replace", is kept below)
    try:
        if stream.isatty():
            return
        utf8 = codecs_name(getattr(stream, "encoding", None)) == "utf-8"
        crlf = os.linesep != "\n"
        if not utf8 or crlf:
            stream.flush()
            changes = {} if utf8 else {"encoding": "utf-8", "errors": stream.errors}
            stream.reconfigure(**changes, **({"newline": "\n"} if crlf else {}))
    except (ValueError, OSError, AttributeError, LookupError):  # a stream that refuses: leave it
        pass


def codecs_name(encoding) -> str:
    """The canonical codec name of ``encoding`` ("" when unknown)."""
    import codecs

    try:
        return codecs.lookup(encoding).name if encoding else ""
    except LookupError:
        return ""


def _escape_unencodable_output() -> None:
    """Let stdout/stderr write what their encoding cannot hold as ``\\uXXXX`` escapes
    (an ASCII or Latin-1 terminal, a non-UTF-8 file name under strict UTF-8 or under a
    C/POSIX locale's surrogateescape) instead of failing with UnicodeEncodeError or writing
    invalid UTF-8; streams with another lenient handler keep it."""
    import codecs

    try:
        codecs.lookup_error(OUTPUT_ESCAPE)
    except LookupError:
        codecs.register_error(OUTPUT_ESCAPE, _escape_char)
    for stream in (sys.stdout, sys.stderr):
        # "surrogateescape" (a C/POSIX locale) would write a non-UTF-8 file name's raw bytes:
        # invalid UTF-8 in a JSON/SARIF document on stdout, where --output writes \udcXX
        if getattr(stream, "errors", None) in ("strict", "surrogateescape") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors=OUTPUT_ESCAPE)
            except (ValueError, OSError, AttributeError):  # pragma: no cover - a stream that refuses
                pass


def _is_stdout(obj) -> bool:
    """``obj`` is the process's stdout stream (or a console writing to it)."""
    for candidate in (obj, getattr(obj, "file", None)):
        if candidate is None:
            continue
        if candidate is sys.stdout or candidate is sys.__stdout__:
            return True
        try:
            if callable(getattr(candidate, "fileno", None)) and candidate.fileno() == 1:
                return True
        except (OSError, ValueError, AttributeError):
            pass
    return False


def _stdout_failed(exc: OSError) -> bool:
    """True when ``exc`` was raised writing to stdout (a full disk, an I/O error): some
    frame of its traceback was writing through the stdout stream."""
    tb = exc.__traceback__
    while tb is not None:
        if any(_is_stdout(v) for v in list(tb.tb_frame.f_locals.values())):
            return True
        tb = tb.tb_next
    return False


def _on_sigterm(signum, frame):  # noqa: ARG001 - signal handler signature
    # unwinds like Ctrl-C: `finally` blocks run, so a half-written temp file is
    # removed (io.write.publish_bytes) before the process ends with 128 + 15; a
    # second SIGTERM (a supervisor repeating itself) must not cut that cleanup short
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(128 + signum)


def _exit_on_sigterm():
    """Make SIGTERM end the command through SystemExit (cleanup runs); the previous handler, or None."""
    import signal

    try:
        return signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError, AttributeError):  # not the main thread, or no SIGTERM here
        return None


def _restore_sigterm(previous) -> None:
    import signal

    if previous is not None:
        try:
            signal.signal(signal.SIGTERM, previous)
        except (ValueError, OSError):
            pass


def _command_path(argv) -> str:
    """``animsmith [group] command`` named by ``argv``, for a usage error that names no
    command: click's parser reports an option missing its value (``lint --format``) without
    one, and the hint must point at that command's help, not the top-level one."""
    tokens = [str(a) for a in (sys.argv[1:] if argv is None else argv)]
    words: List[str] = ["animsmith"]
    group: click.Command = cli
    ctx = click.Context(cli)
    i = 0
    while i < len(tokens) and isinstance(group, click.Group):
        token = tokens[i]
        if token.startswith("-"):
            i += 2 if token == "--config" and group is cli else 1  # the one group option taking a value
            continue
        command = group.get_command(ctx, token)
        if command is None:
            break
        words.append(token)
        group = command
        i += 1
    return " ".join(words)


def _main(argv) -> None:
    """:func:`main`'s body: run the command, map every failure to its exit code."""
    from animsmith.errors import AnimsmithError

    from animsmith.runtime import decide_exit_status, decided_exit_status, forget_exit_status

    forget_exit_status()  # an in-process caller's previous command decided nothing here
    try:
        # on Windows click globs and ~-expands the arguments as a POSIX shell would (cmd.exe
        # does not): `measure *.glb`, `--config ~/x.toml` work there as on Linux
        rv = cli.main(args=argv, prog_name="animsmith", standalone_mode=False)
        decide_exit_status(rv if isinstance(rv, int) else 0)
        sys.stdout.flush()  # here, so a reader that went away is handled below (not at exit)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:
        _say("animsmith: aborted")
        sys.exit(2)
    except click.UsageError as exc:  # bad flag, value or command: one line, no usage block
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `animsmith`: the help text
            _quietly(exc.show)
            sys.exit(2)
        from animsmith.text import error_line

        where = exc.ctx.command_path if exc.ctx is not None else _command_path(argv)
        _say(f"animsmith: {error_line(' '.join(exc.format_message().split()))} (see '{where} --help')")
        sys.exit(2)
    except click.ClickException as exc:
        _quietly(exc.show)
        sys.exit(2 if exc.exit_code not in (0, 1) else exc.exit_code)
    except AnimsmithError as exc:
        from animsmith.text import error_line

        for line in exc.lines:
            _say(f"animsmith: {error_line(line)}")
        sys.exit(2)
    except (BrokenPipeError, ReaderGone):
        # the reader went away (`| head`): stop quietly with the status the command
        # decided before writing (lint's 1 for errors stays 1), else 0
        _to_devnull("stdout")
        sys.exit(decided_exit_status())
    except KeyboardInterrupt:
        _say("animsmith: interrupted")
        sys.exit(2)
    except MemoryError:
        _say("animsmith: out of memory")
        sys.exit(2)
    except OSError as exc:
        if reader_gone(exc):  # Windows' EINVAL for a closed pipe (BrokenPipeError is above)
            _to_devnull("stdout")
            sys.exit(decided_exit_status())
        if not _stdout_failed(exc):
            _internal_error(exc)
        _say(f"animsmith: cannot write to stdout: {exc.strerror or exc}")
        _to_devnull("stdout")
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - last line of defence
        _internal_error(exc)
    sys.exit(rv if isinstance(rv, int) else 0)


def _internal_error(exc: BaseException) -> None:
    """One ``internal error`` line and exit 2 (the traceback with ``ANIMSMITH_DEBUG``)."""
    if os.environ.get("ANIMSMITH_DEBUG"):
        raise exc
    from animsmith.text import error_line

    reason = " ".join(str(exc).split()) or type(exc).__name__
    _say(f"animsmith: internal error: {type(exc).__name__}: {error_line(reason)}")
    sys.exit(2)


def _to_devnull(name: str) -> None:
    """Replace ``sys.stdout``/``sys.stderr`` (``name``) by /dev/null, so the interpreter's
    final flush of a stream that failed does not print a note or change the exit status."""
    try:
        setattr(sys, name, open(os.devnull, "w"))
    except OSError:
        pass


def _quietly(show) -> None:
    """Run a stderr writer; a stderr that cannot take it (``2>/dev/full``) does not change
    the exit status the error decided (the text is lost, not turned into exit 1)."""
    try:
        show()
    except (OSError, ValueError):
        _to_devnull("stderr")


def _say(line: str) -> None:
    """One error line on stderr (:func:`_quietly`)."""
    _quietly(lambda: click.echo(line, err=True))
