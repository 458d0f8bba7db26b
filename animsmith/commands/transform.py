"""``animsmith transform FILE -o OUT --gait-anchor [--clip NAME] [--fps N] [--dry-run] [--in-place] [--format text|json]``.

Proves the rewrite (``animsmith.transform.gait_anchor``), builds the new GLB
byte-preservingly (``animsmith.io.patch``), re-loads it and proves it equals
the plan, then publishes it atomically. Exit 0 published (or dry run),
1 refused (nothing written, stdout empty in text mode), 2 operator error.
docs/transform.md.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

import click

from animsmith.commands._options import FiniteFloat, clip_fps, config_option, effective_config_path, format_option
from animsmith.commands._output import (
    check_output_path,
    external_buffers,
    external_files,
    publish_output,
    refusal_line,
    same_dir,
)

SCHEMA_VERSION = 1


def load_transform_contract(ctx: click.Context, local: Optional[str]):
    """The contract from --config (command or group), else ./animsmith.toml, else defaults."""
    from animsmith.checks import load_contract

    return load_contract(effective_config_path(ctx, local))


def _emit_json(doc: Dict[str, Any]) -> None:
    from animsmith.text import runner_safe

    click.echo(runner_safe(json.dumps(doc, indent=2, sort_keys=False), "json"))


@click.command("transform")
@click.argument("file", type=click.Path(dir_okay=False), metavar="FILE.glb")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), default=None, metavar="OUT",
              help="GLB file to write, published by rename (required unless --in-place or --dry-run).")
@click.option("--gait-anchor", "gait_anchor", is_flag=True,
              help="The operation (required): rotate each selected cyclic clip without root travel so its stride "
              "anchor lands at t = 0 (within half a frame; phases are circular, so 0.98 is -0.02).")
@click.option("--clip", "clip_names", multiple=True, metavar="NAME", help="Only this clip (repeatable; default: every clip).")
@click.option("--fps", "fps", type=FiniteFloat(0.0), default=None, help='Frame rate of the key grid, > 0 (default: the clip\'s fps in the contract, from [clips."<clip>"] or a key naming FILE, [clips."walk.glb"] / [clips."walk.glb#<clip>"]; else 30).')
@click.option("--dry-run", "dry_run", is_flag=True, help="Run every proof and print the plan; write nothing.")
@click.option("--in-place", "in_place", is_flag=True, help="Overwrite FILE with the result (-o may then be omitted or name FILE).")
@format_option("fmt_name")
@config_option
@click.pass_context
def transform_cmd(ctx, file, output, gait_anchor, clip_names, fps, dry_run, in_place, fmt_name, config_path):
    """Rewrite a clip safely (gait anchoring), or refuse with the reason.

    \b
    animsmith transform --gait-anchor FILE.glb -o OUT.glb
    animsmith transform --gait-anchor FILE.glb --in-place    (overwrite FILE)
    animsmith transform --gait-anchor FILE.glb --dry-run     (proofs only)

    --gait-anchor declares every selected clip a cyclic gait without root
    travel and refuses unless every proof holds (root drift, yaw, off-grid
    keys, duplicates, size): see docs/transform.md for the refusal codes.
    .glb files only. Exit 0 written (or dry run); 1 refused (nothing
    written, the reason on stderr); 2 bad flag, file or config.
    """
    from animsmith.errors import AnimsmithError, ConfigError, Refusal
    from animsmith.io.write import same_file

    if not gait_anchor:
        raise click.UsageError("choose an operation: --gait-anchor")
    contract = load_transform_contract(ctx, config_path)  # every key checked before any file is read
    if output is not None:
        check_output_path(output, [contract.path] if contract.path else [])  # never over the contract
    if output is None:
        if in_place:
            output = file
        elif not dry_run:
            raise click.UsageError("-o/--output OUT is required (or --in-place, or --dry-run)")
    if output is not None and same_file(output, file) and not in_place:
        raise AnimsmithError(f"output {output!r} is the input file; pass --in-place to overwrite it")
    if in_place and not same_file(output, file):  # both flags name where to write: they must agree
        raise click.UsageError(f"--in-place overwrites {file} but -o names another file ({output}); give one of them")

    from animsmith.core.legs import resolve_contract_rig
    from animsmith.io.gltf import load_asset_bytes, read_file_bytes
    from animsmith.transform import gait_anchored_glb, plan_gait_anchor, select_clips, verify_gait_anchored

    data = read_file_bytes(file)  # refuses directories, FIFOs, > 1 GiB, a file changing under us
    # judged in metres ([rig] units); the file is rewritten in its own units, byte for byte
    asset = load_asset_bytes(data, file, strict=False).in_units(contract.rig.metres_per_unit)
    if asset.container != "glb":
        raise AnimsmithError("transform edits .glb files only (convert the .gltf to .glb first)", file)

    if output is not None:
        for resource in external_files(asset, file):
            if same_file(output, resource):
                raise AnimsmithError(f"output {output!r} is a file the GLB reads ({resource}); choose another -o", file)
    if output is not None and external_buffers(asset) and not same_dir(output, file):
        raise AnimsmithError(
            "the GLB references external buffer files; write the output in the same folder as the input", file
        )
    try:
        roles = resolve_contract_rig(asset, contract.rig)
    except ValueError as exc:
        raise ConfigError(str(exc), contract.path or file) from None

    clips = select_clips(asset, clip_names)
    fps_by_clip = {c.name: clip_fps(contract, c.name, file, fps) for c in clips}

    doc: Dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "command": "transform",
        "operation": "gait-anchor",
        "input": file,
        "outcome": None,
        "output": None if dry_run else output,
        "clips": [],
        "refusal": None,
        "patch": None,  # what the rewrite changed; null when refused
    }
    try:
        plans = plan_gait_anchor(asset, roles, [c.name for c in clips], fps_of=lambda n: fps_by_clip[n])
        out_bytes, report = gait_anchored_glb(data, asset, plans)
        verify_gait_anchored(asset, out_bytes, plans, roles, output or file, base_dir=os.path.dirname(os.path.abspath(file)))
    except AnimsmithError as exc:  # e.g. the patcher's LoadError, which names no file
        raise exc.with_path(file) from None
    except Refusal as exc:
        from animsmith.runtime import decide_exit_status

        decide_exit_status(1)  # before writing: a reader that goes away keeps it
        doc["outcome"] = "refused"
        doc["output"] = None
        doc["refusal"] = exc.to_json()
        click.echo(refusal_line(exc), err=True)
        if fmt_name == "json":
            _emit_json(doc)
        return 1

    doc["clips"] = [p.to_json() for p in plans]
    doc["patch"] = {
        "in_place_accessors": len(report.in_place_accessors),
        "new_accessors": len(report.new_accessors),
        "json_rewritten": report.json_changed,
    }
    if dry_run:
        doc["outcome"] = "dry-run"
    else:
        publish_output(output, out_bytes)
        doc["outcome"] = "published"

    if fmt_name == "json":
        _emit_json(doc)
    else:
        from animsmith.text import runner_safe_line

        for p in plans:
            click.echo(runner_safe_line(p.text_line(dry_run=dry_run)))
        click.echo("dry run: nothing written" if dry_run else runner_safe_line(f"wrote {output}"))
    return 0
