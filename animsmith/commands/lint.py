"""``animsmith lint [--config FILE] [--format text|json] [--select ID,..] [--allow ID,..]
[--deny-warnings] [--jobs N] PATHS...`` (docs/lint.md).

Exit 0: no failing finding; 1: an error finding (or a warning with
``--deny-warnings``); 2: operator error (bad config, bad flag, unreadable
file) with one line per problem on stderr and nothing on stdout.
"""

from __future__ import annotations

import sys
from typing import List, Optional

import click

from animsmith.cli import config_option, effective_config_path
from animsmith.render import FORMATS


def split_ids(values) -> List[str]:
    out: List[str] = []
    for v in values or ():
        out += [p.strip() for p in str(v).split(",") if p.strip()]
    return out


def _stdout_is_tty() -> bool:
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
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Lint files in N processes (same output order).")
@click.pass_context
def lint_cmd(ctx, paths, config_path, fmt, select, allow, deny_warnings, jobs):
    """Lint each clip of PATHS (files, globs or folders: *.glb, *.gltf found
    recursively) and every group declared in the TOML contract.

    Without --config, ./animsmith.toml is used when present, else built-in
    defaults (no clip expectations, no groups).
    """
    from animsmith.config import load_contract
    from animsmith.errors import AnimsmithError
    from animsmith.lint import expand_paths, run_lint, validate_check_ids
    from animsmith.render import render_lint

    contract = load_contract(effective_config_path(ctx, config_path))
    selected: Optional[List[str]] = None
    if select:
        selected = validate_check_ids(split_ids(select), "--select")
    allowed = set(validate_check_ids(split_ids(allow), "--allow"))
    files = expand_paths(list(paths))
    result = run_lint(files, contract, select=selected, jobs=jobs, with_measurements=(fmt != "text"))
    errors = [f.error for f in result.files if f.error]
    if errors:
        for line in errors[:-1]:
            click.echo(f"animsmith: {line}", err=True)
        raise AnimsmithError(errors[-1])
    if allowed:
        result = result.without_checks(allowed)
    color = fmt == "text" and _stdout_is_tty()
    click.echo(render_lint(result, fmt, color=color), nl=False, color=color)
    return result.exit_code(deny_warnings)
