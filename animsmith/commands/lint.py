"""``animsmith lint [--config FILE] [--format text|json] [--select ID,..] [--allow ID,..]
[--deny-warnings] [--jobs N|auto] PATHS...`` (docs/lint.md).

Exit 0: no failing finding; 1: an error finding (or a warning with
``--deny-warnings``); 2: operator error (bad config, bad flag, unreadable
file) with one line per problem on stderr and nothing on stdout.
"""

from __future__ import annotations

import sys
from typing import List, Optional

import click

from animsmith.commands._options import config_option, effective_config_path, split_ids
from animsmith.commands._output import check_output_path, contract_inputs, remove_stale_output, stdout_color, write_output
from animsmith.render import FORMATS
from animsmith.runtime import decide_exit_status


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
    from animsmith.lint import expand_paths, run, validate_check_ids
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
    from animsmith.lint.shard import parse_shard

    try:
        shard_spec = parse_shard(shard) if shard is not None else None
        with _progress(len(files)) as on_file:
            result = run(
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
        write_output(output, render_lint(result, fmt, deny_warnings=deny_warnings, verbose=verbose))
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
