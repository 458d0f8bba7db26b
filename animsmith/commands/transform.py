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
import sys
from typing import Any, Dict, List, Optional

import click

from animsmith.cli import config_option, effective_config_path

SCHEMA_VERSION = 1
DEFAULT_FPS = 30.0
DEFAULT_CONFIG = "animsmith.toml"


def same_file(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` name the same file (after resolving links)."""
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def _config_path(ctx: click.Context, local: Optional[str]) -> Optional[str]:
    path = effective_config_path(ctx, local)
    if path is None and os.path.isfile(DEFAULT_CONFIG):
        path = DEFAULT_CONFIG
    return path


def _toml(path: str) -> Dict[str, Any]:
    from animsmith.errors import ConfigError

    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", path) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {' '.join(str(exc).split())}", path) from None


def clip_fps_from_config(path: Optional[str], clip_name: str) -> Optional[float]:
    """``[clips.<name>] fps`` of the contract (None when absent).

    Uses ``animsmith.config.load_config`` when it exposes clip expectations,
    else reads the TOML table directly.
    """
    from animsmith.errors import ConfigError

    if path is None:
        return None
    try:
        from animsmith.config import load_config  # type: ignore[attr-defined]
    except ImportError:
        load_config = None
    if load_config is not None:
        contract = load_config(path)
        finder = getattr(contract, "clip_expectation", None) or getattr(contract, "clip", None)
        if callable(finder):
            try:
                exp = finder(clip_name)
            except (KeyError, LookupError):
                exp = None
            fps = None if exp is None else (exp.get("fps") if isinstance(exp, dict) else getattr(exp, "fps", None))
            if fps is not None:
                return float(fps)
    clips = _toml(path).get("clips", {})
    entry = clips.get(clip_name) if isinstance(clips, dict) else None
    if isinstance(entry, dict) and "fps" in entry:
        fps = entry["fps"]
        if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not fps > 0:
            raise ConfigError(f"[clips.{clip_name}] fps must be a positive number, got {fps!r}", path)
        return float(fps)
    return None


def _emit_json(doc: Dict[str, Any]) -> None:
    click.echo(json.dumps(doc, indent=2, sort_keys=False))


def _refusal_line(exc) -> str:
    return f"animsmith: refused [{exc.code}]: {exc.message}"


@click.command("transform")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), default=None, help="Where to publish the result (atomic).")
@click.option("--gait-anchor", "gait_anchor", is_flag=True, help="Rotate each selected in-place cyclic clip so its stride anchor lands at t = 0.")
@click.option("--clip", "clip_names", multiple=True, help="Only this clip (repeatable; default: every clip).")
@click.option("--fps", "fps", type=click.FloatRange(min=0, min_open=True), default=None, help="Frame rate of the key grid (default: [clips.<name>] fps, else 30).")
@click.option("--dry-run", "dry_run", is_flag=True, help="Run every proof and print the plan; write nothing.")
@click.option("--in-place", "in_place", is_flag=True, help="Allow OUT to be FILE itself (or omit -o).")
@click.option("--format", "fmt_name", type=click.Choice(["text", "json"]), default="text", show_default=True)
@config_option
@click.pass_context
def transform_cmd(ctx, file, output, gait_anchor, clip_names, fps, dry_run, in_place, fmt_name, config_path):
    """Rewrite a clip safely (gait anchoring), or refuse with the reason.

    --gait-anchor declares every selected clip an in-place cyclic gait and
    refuses (exit 1, nothing written) unless every proof holds: see
    docs/transform.md for the refusal codes.
    """
    from animsmith.errors import AnimsmithError, ConfigError, LoadError, Refusal

    if not gait_anchor:
        raise click.UsageError("choose an operation: --gait-anchor")
    if output is None:
        if in_place:
            output = file
        elif not dry_run:
            raise click.UsageError("-o/--output OUT is required (or --in-place, or --dry-run)")
    if output is not None and same_file(output, file) and not in_place:
        raise AnimsmithError(f"output {output!r} is the input file; pass --in-place to overwrite it")

    from animsmith.commands.measure import rig_settings
    from animsmith.core.roles import resolve_roles
    from animsmith.io.read import load_asset_bytes
    from animsmith.transform import gait_anchored_glb, plan_gait_anchor, select_clips, verify_gait_anchored

    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except IsADirectoryError:
        raise LoadError("is a directory, not a .glb file", file) from None
    except OSError as exc:
        raise LoadError(f"cannot read file: {exc.strerror or exc}", file) from None
    asset = load_asset_bytes(data, file, strict=False)
    if asset.container != "glb":
        raise AnimsmithError("transform edits .glb files only (convert the .gltf to .glb first)", file)

    profile, overrides, cfg = rig_settings(ctx, config_path, None)
    try:
        roles = resolve_roles(asset.skeleton, profile=profile, overrides=overrides)
    except ValueError as exc:
        raise ConfigError(str(exc), cfg or file) from None

    clips = select_clips(asset, clip_names)
    fps_by_clip = {c.name: (float(fps) if fps is not None else (clip_fps_from_config(cfg, c.name) or DEFAULT_FPS)) for c in clips}

    doc: Dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "command": "transform",
        "operation": "gait-anchor",
        "input": file,
        "outcome": None,
        "output": None if dry_run else output,
        "clips": [],
        "refusal": None,
    }
    try:
        plans = plan_gait_anchor(asset, roles, [c.name for c in clips], fps_of=lambda n: fps_by_clip[n])
        out_bytes, report = gait_anchored_glb(data, asset, plans)
        verify_gait_anchored(asset, out_bytes, plans, roles, output or file)
    except Refusal as exc:
        doc["outcome"] = "refused"
        doc["output"] = None
        doc["refusal"] = exc.to_json()
        click.echo(_refusal_line(exc), err=True)
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
        from animsmith.io.write import publish_bytes

        try:
            publish_bytes(output, out_bytes)
        except OSError as exc:
            raise AnimsmithError(f"cannot write output: {exc.strerror or exc}", output) from None
        doc["outcome"] = "published"

    if fmt_name == "json":
        _emit_json(doc)
    else:
        for p in plans:
            click.echo(p.text_line(dry_run=dry_run))
        click.echo("dry run: nothing written" if dry_run else f"wrote {output}")
    return 0
