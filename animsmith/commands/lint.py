"""``animsmith lint [--config FILE] [--format text|json] [--select ID,..] [--allow ID,..]
[--deny-warnings] [--jobs N|auto] PATHS...`` (docs/lint.md).

Exit 0: no failing finding; 1: an error finding (or a warning with
``--deny-warnings``); 2: operator error (bad config, bad flag, unreadable
file) with one line per problem on stderr and nothing on stdout.
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional, Sequence

import click

from animsmith.cli import config_option, effective_config_path
from animsmith.render import FORMATS
from animsmith.runtime import decide_exit_status


def split_ids(values) -> List[str]:
    out: List[str] = []
    for v in values or ():
        out += [p.strip() for p in str(v).split(",") if p.strip()]
    return out


class JobsParam(click.ParamType):
    """``--jobs``: a positive integer or ``auto``."""

    name = "N|auto"

    def convert(self, value, param, ctx):
        if isinstance(value, int) or value == "auto":
            return value
        text = str(value).strip().lower()
        if text == "auto":
            return "auto"
        try:
            n = int(text)
        except ValueError:
            n = 0
        if n < 1:
            self.fail(f"{value!r} is not a positive integer or 'auto'", param, ctx)
        return n


def stdout_color() -> bool:
    """Colour on stdout: only on a terminal, and not when ``NO_COLOR`` is set to anything
    (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


@click.command(
    "lint",
    context_settings={"help_option_names": ["-h", "--help"]},
    short_help="Judge clips and declared groups against the TOML contract.",
)
@click.argument("paths", nargs=-1, required=True, metavar="PATHS...")
@config_option
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="text", show_default=True, help="Output format.")
@click.option("--select", "select", multiple=True, metavar="ID,..", help="Run only these checks.")
@click.option("--allow", "allow", multiple=True, metavar="ID,..", help="Hide these checks' findings (and ignore them for the exit code).")
@click.option("--deny-warnings", is_flag=True, help="Exit 1 on warnings too.")
@click.option("--verbose", "-v", is_flag=True, help="Text output: list every available engine prediction facet too "
              "(the required-unavailable ones are always listed).")
@click.option(
    "--jobs", "-j", type=JobsParam(), default="auto", show_default=True, metavar="N|auto",
    help="Lint files in N processes: this one and N-1 workers (same output order; N is capped at "
    "max(8, 4 x usable CPUs)). auto: one per usable CPU, at most 8, and only with >= 64 files per process "
    "(>= 256 on macOS and Windows, where workers are spawned); fewer files are linted in one process.",
)
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False), default=None, help="Write the --format output to FILE; the text report still goes to the terminal (docs/ci.md).")
@click.option("--shard", "shard", default=None, metavar="I/N", help="Lint only shard I of N of the files (deterministic). For merge-results write each shard with "
              "--format json -o FILE (docs/ci.md).")
@click.pass_context
def lint_cmd(ctx, paths, config_path, fmt, select, allow, deny_warnings, jobs, output=None, shard=None, verbose=False):
    """Lint each clip of PATHS (files, globs or folders: *.glb, *.gltf found
    recursively, hidden folders and node_modules skipped) and every group
    declared in the TOML contract.

    Without --config, ./animsmith.toml is used when present, else built-in
    defaults (no clip expectations, no groups).

    Exit 0: no failing finding (warnings, notes and coverage gaps may
    remain); 1: an error finding, a warning with --deny-warnings, or a
    required-unavailable engine prediction ([engine] profile; --allow does
    not hide it); 2: bad
    config, flag or file (one line per problem on stderr). Every check:
    `animsmith checks`; one check and its [checks.<id>] keys: `animsmith
    checks ID`. Formats: docs/lint.md (text, json), docs/ci.md (sarif,
    github, junit, markdown).
    """
    from animsmith.checks import load_contract
    from animsmith.errors import AnimsmithError
    from animsmith.lint import expand_paths, run_lint, validate_check_ids
    from animsmith.render import render_lint

    contract = load_contract(effective_config_path(ctx, config_path))
    checked: dict = {}
    problems: List[str] = []  # every unknown id of both flags in one run
    for flag, value in (("--select", select), ("--allow", allow)):
        if value:
            try:
                checked[flag] = validate_check_ids(split_ids(value), flag)
            except AnimsmithError as exc:
                problems += exc.lines
    if problems:
        raise AnimsmithError(problems[-1], more=problems[:-1])
    selected: Optional[List[str]] = checked.get("--select")
    allowed = set(checked.get("--allow", ()))
    files = expand_paths(list(paths))
    check_output_path(output, files + contract_inputs(contract), stdout_without=True)
    # CI additions (docs/ci.md): --shard, --output, progress bar on a TTY
    from animsmith.ci import parse_shard, run_lint_ci

    try:
        shard_spec = parse_shard(shard) if shard is not None else None
        with _progress(len(files)) as on_file:
            result = run_lint_ci(
                # only the JSON document carries per-clip measurements; the other formats never compute them
                files, contract, select=selected, jobs=jobs, with_measurements=(fmt == "json"),
                shard=shard_spec, on_file=on_file, allow=sorted(allowed),
            )
        errors = [f.error for f in result.files if f.error]
        if errors:  # one line each, the last as the error
            raise AnimsmithError(errors[-1], more=errors[:-1])
    except AnimsmithError:
        remove_stale_output(output)
        raise
    if allowed:
        result = result.without_checks(allowed)
    if output is not None:
        _write_output(output, render_lint(result, fmt, deny_warnings=deny_warnings, verbose=verbose))
        fmt = "text"
    color = fmt == "text" and stdout_color()
    status = decide_exit_status(result.exit_code(deny_warnings))
    from animsmith.render import for_stdout

    text = render_lint(result, fmt, color=color, deny_warnings=deny_warnings, verbose=verbose)
    click.echo(for_stdout(text, fmt), nl=False, color=color)
    return status


#: show a progress bar (stderr, TTY only) when more files than this are linted
PROGRESS_MIN_FILES = 5


def _progress(total: int):
    """Context manager yielding a per-file callback: a rich bar on a TTY stderr, else None."""
    import contextlib

    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty or total <= PROGRESS_MIN_FILES:
        return contextlib.nullcontext(None)

    @contextlib.contextmanager
    def bar():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(
            TextColumn("linting"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=Console(stderr=True), transient=True,
        ) as progress:
            task = progress.add_task("lint", total=total)
            yield lambda _path: progress.advance(task)

    return bar()


def remove_stale_output(path: Optional[str]) -> None:
    """Remove a regular file at ``--output`` (already checked to be no input) when the run
    stops with exit 2: a result left by an earlier run must not pass for this one's (a
    shard that failed would otherwise be merged from its old JSON)."""
    import stat

    if not path:
        return
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)
    except OSError:
        pass


def contract_inputs(contract) -> List[str]:
    """The files a run reads because of its contract: the config and every group member file."""
    out = [contract.path] if contract.path else []
    for table in ("gait_groups", "sync_groups"):
        for group in (getattr(contract, table, None) or {}).values():
            out += [ref.file for ref in group.members if ref.file]
    return out


def check_output_path(path: Optional[str], inputs: Sequence[str] = (), *, stdout_without: bool = False) -> None:
    """``AnimsmithError`` (exit 2, before any work) when ``--output`` is empty, is ``-``
    (stdout's usual spelling: a file named '-' would surprise; ``stdout_without``: the
    command writes to stdout when -o is left out) or names one of the command's input
    files (its GLBs, its config, the results it merges)."""
    from animsmith.errors import AnimsmithError
    from animsmith.io.write import same_file

    if path is None:
        return
    if not path:
        raise AnimsmithError("--output: empty path")
    if path == "-":
        instead = "leave out -o to write to stdout" if stdout_without else "name a file"
        raise AnimsmithError(f"--output -: '-' is not stdout here ({instead}; ./- names a file called '-')")
    for inp in inputs:
        if inp and same_file(path, inp):
            raise AnimsmithError(f"--output is also an input ({inp}); write the output elsewhere", path=path)


def _write_output(path: str, text: str) -> None:
    from animsmith.errors import AnimsmithError
    from animsmith.io.write import publish_bytes

    # a file name that is not UTF-8 arrives as lone surrogates (os.fsdecode): written as the
    # escape \udcXX, which JSON reads back to the same name, instead of failing the write
    data = text.encode("utf-8", "backslashreplace")
    try:
        publish_bytes(path, data)
    except OSError as exc:
        raise AnimsmithError(f"cannot write output: {exc.strerror or exc}", path=path) from None
