"""``animsmith checks [ID]``: list the registry, or explain one check (docs/checks.md)."""

from __future__ import annotations

import click


@click.command(
    "checks",
    context_settings={"help_option_names": ["-h", "--help"]},
    short_help="List the checks, or explain one.",
)
@click.argument("check_id", required=False, metavar="[ID]")
@click.option("--markdown", is_flag=True, help="Print the full reference as Markdown (docs/checks.md; not with ID).")
def checks_cmd(check_id, markdown):
    """Without ID: every check with its default severity, scope and one-line
    summary. With ID: the check's documentation, what it needs and its
    [checks.<id>] config keys with defaults."""
    from animsmith.checks import explain, get_check, markdown as markdown_doc, registry

    if markdown:
        if check_id:
            raise click.UsageError("--markdown prints the whole reference; give it without ID (or ID without --markdown)")
        click.echo(markdown_doc(), nl=False)
        return 0
    if check_id:
        # the docstrings' reST literals (``x``) read as `x` in a terminal
        click.echo(explain(get_check(check_id)).replace("``", "`"), nl=False)
        return 0
    specs = list(registry().values())
    width = max(len(s.id) for s in specs)
    for s in specs:
        click.echo(f"{s.id:<{width}}  {s.severity:<7}  {s.scope:<5}  {s.summary}")
    return 0
