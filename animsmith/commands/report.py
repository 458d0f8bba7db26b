"""``animsmith [--config C] report PATHS... -o report.html [--clip NAME]`` (docs/report.md).

Lints PATHS exactly like ``lint`` (same contract, same checks, same judged
pose grids, sampled once) and writes ONE self-contained HTML file atomically.
Prints ``wrote <path> (<clips> clip(s), <findings> finding(s), <x.x> MB)``.
Exit 0 whenever the report is written (findings are shown, not judged); 2
for an unreadable input, a bad config, a ``--clip`` no file has, or a failed
write (nothing is written then).
"""

from __future__ import annotations

import click

from animsmith.commands._options import config_option, effective_config_path, split_ids
from animsmith.commands._output import check_output_path, contract_inputs, remove_stale_output, write_output


@click.command(
    "report",
    context_settings={"help_option_names": ["-h", "--help"]},
    short_help="Write one self-contained interactive HTML report.",
)
@click.argument("paths", nargs=-1, required=True, metavar="PATHS...")
@config_option
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False), required=True, metavar="OUT",
              help="HTML file to write, published by rename.")
@click.option("--clip", "clip_names", multiple=True, metavar="NAME",
              help="Show only this clip's view and findings (groups stay; one clip per page).")
@click.option("--select", "select", multiple=True, metavar="ID,..", help="Run only these checks.")
@click.pass_context
def report_cmd(ctx, paths, config_path, output, clip_names, select):
    """Write a self-contained HTML report of PATHS (files, globs or folders).

    Shows the summary and findings, one figure per declared gait group with a
    pair player, and per clip a skeleton view with foot/root trails and charts
    (clips past a budget of 1,000,000 bone-frames are listed, not drawn;
    --clip NAME draws one). The file needs no network and opens from disk.

    Exit 0 whenever the page is written, error findings included (`animsmith
    lint` is the gate); 2 on an unreadable input, a bad config or an unknown
    --clip (nothing written).
    """
    from animsmith.checks import load_contract
    from animsmith.errors import AnimsmithError
    from animsmith.lint import expand_paths, validate_check_ids
    from animsmith.report.collect import collect
    from animsmith.report.html import render_html

    if len(clip_names) > 1:
        raise click.UsageError(f"--clip takes one clip (given {len(clip_names)}): the page draws one clip at a time")
    clip_name = clip_names[0] if clip_names else None
    contract = load_contract(effective_config_path(ctx, config_path))
    selected = validate_check_ids(split_ids(select), "--select") if select else None
    files = expand_paths(list(paths))
    check_output_path(output, files + contract_inputs(contract))
    try:
        data = collect(files, contract, select=selected, clip_filter=clip_name)
        errors = [f.error for f in data.result.files if f.error]
        if errors:  # one line each, the last as the error
            raise AnimsmithError(errors[-1], more=errors[:-1])
        if clip_name is not None and not any(c.get("name") == clip_name for c in data.clips):
            names = list(dict.fromkeys(repr(str(c.get("name"))) for c in data.clips))
            listed = ", ".join(names[:10]) + (f", +{len(names) - 10} more" if len(names) > 10 else "")
            reason = f"no clip named {clip_name!r} " + (f"(clips: {listed})" if names else "(no file has animations)")
            raise AnimsmithError(reason, files[0]) if len(files) == 1 else AnimsmithError(reason + f" in {len(files)} files")
    except AnimsmithError:
        remove_stale_output(output)  # an old page must not pass for this run's, as with lint -o
        raise
    page = render_html(data, contract, clip_filter=clip_name)
    raw = page.encode("utf-8", "backslashreplace")  # as write_output writes it
    write_output(output, page)
    findings = sum(len(f.findings) for f in data.result.files)
    from animsmith.text import escape, runner_safe_line

    shown = escape(click.format_filename(output))
    click.echo(runner_safe_line(f"wrote {shown} ({len(data.clips)} clip(s), {findings} finding(s), {len(raw) / 1e6:.1f} MB)"))
    return 0
