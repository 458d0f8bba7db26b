"""``animsmith merge-results a.json b.json ... [--format F] [--output FILE] [--deny-warnings]``.

Combines ``lint --format json`` results (e.g. the shards of a CI matrix,
``lint --shard I/N``) into one result with the summary and exit code of
linting all the files together (docs/ci.md). Exit 0 / 1 as ``lint``; 2 for
an unreadable, malformed or overlapping input, or an incomplete set of shards.
"""

from __future__ import annotations

import json
import sys

import click

from animsmith.commands._output import check_output_path, stdout_color, write_output
from animsmith.render import FORMATS
from animsmith.runtime import decide_exit_status


def _read_doc(path: str):
    """The checked lint document of ``path`` (``ci.merge.read_lint_doc``); ``AnimsmithError`` naming it."""
    from animsmith.ci.merge import read_lint_doc

    return read_lint_doc(path)


@click.command(
    "merge-results",
    context_settings={"help_option_names": ["-h", "--help"]},
    short_help="Combine sharded JSON lint results into one.",
)
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False), metavar="RESULT.json...")
@click.option(
    "--format", "fmt", type=click.Choice(list(FORMATS)), default=None,
    help="Output format of the merged result. Default: text on a terminal (the lint report and summary), "
    "json when stdout is a pipe or file, or with --output.",
)
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False), default=None, help="Write the merged result to FILE (the text report goes to the terminal).")
@click.option("--deny-warnings", is_flag=True, help="Exit 1 on warnings too.")
@click.option("--verbose", "-v", is_flag=True, help="Text output: list every available engine prediction facet too "
              "(the required-unavailable ones are always listed).")
def merge_cmd(results, fmt, output, deny_warnings, verbose=False):
    """Merge `animsmith lint --format json` RESULT files into one result.

    On a terminal it prints the text report and summary line of `lint`;
    piped, redirected or with --output it writes the merged JSON document
    (`--format` chooses any lint format).

    The summary and exit code are those of linting every file together; a
    file present in two results is an error (shards must not overlap), and
    `lint --shard` results must be every shard of one run, once each (a
    missing shard is exit 2, not a smaller clean result).
    """
    from animsmith.ci.merge import doc_exit_code, merge_lint_docs

    check_output_path(output, list(results), stdout_without=True)
    doc = merge_lint_docs([(p, _read_doc(p)) for p in results])
    if fmt is None:  # a person reads the summary; a pipe, a file or --output gets the document
        fmt = "json" if output is not None or not _stdout_is_terminal() else "text"
    if output is not None:
        write_output(output, _render(doc, fmt, deny_warnings, verbose=verbose))
        fmt = "text"
    color = fmt == "text" and stdout_color()
    status = decide_exit_status(doc_exit_code(doc, deny_warnings))
    from animsmith.render import for_stdout

    click.echo(for_stdout(_render(doc, fmt, deny_warnings, color=color, verbose=verbose), fmt), nl=False, color=color)
    return status


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _render(doc, fmt: str, deny_warnings: bool, color: bool = False, verbose: bool = False) -> str:
    """Render a merged JSON document in any lint format (``verbose``: text lists available facets too)."""
    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    if fmt == "text":
        return _text(doc, color, verbose)
    from animsmith.render import render_lint

    return render_lint(doc, fmt, deny_warnings=deny_warnings)


def _text(doc, color: bool, verbose: bool = False) -> str:
    """The text report of a JSON document (same lines as ``lint``)."""
    from animsmith.render.text import finding_line, gap_line, prediction_lines, summary_line
    from animsmith.render._doc import folded_gaps
    from animsmith.results import Finding
    from animsmith.text import escape

    lines = []
    for fr in doc["files"]:
        provenance, facets = fr.get("prediction_provenance"), fr.get("prediction_facets") or []
        if not fr["findings"] and not fr["coverage_gaps"] and provenance is None and not facets:
            lines.append(f"{escape(fr['path'])}: clean")
            continue
        lines.append(f"{escape(fr['path'])}:")
        lines += prediction_lines(provenance, facets, color, verbose)
        for f in fr["findings"]:
            lines.append(finding_line(Finding(**{k: f.get(k) for k in Finding.__dataclass_fields__}), color))
        lines += [gap_line(k, e, color) for k, e in folded_gaps(fr)]
    lines.append(summary_line(doc["summary"]))
    return "\n".join(lines) + "\n"
