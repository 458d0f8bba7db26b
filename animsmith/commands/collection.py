"""``animsmith collection ...``: operations on a declared group of clips.

``animsmith [--config C] collection transform-foot-cycle --group NAME --reference CLIP
[--out-dir DIR | -o OUT] [--fps N] [--contact-height-m H] [--dry-run] [--format text|json] PATHS...``

Retimes every member of ``[gait_groups.NAME]`` onto the reference member's
contact phases (``animsmith.transform.foot_cycle``), re-loads the new files and
proves the result, then publishes every output or none. Exit 0 published (or
dry run), 1 refused (nothing written), 2 operator error. docs/transform.md.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Tuple

import click

from animsmith.commands._options import FiniteFloat, clip_fps, config_option, effective_config_path, format_option
from animsmith.commands._output import check_output_path, external_buffers, external_files, refusal_line, same_dir
from animsmith.io.paths import file_identity
from animsmith.text import runner_safe, runner_safe_line

SCHEMA_VERSION = 1


@click.group("collection")
def collection_grp():
    """Operations on a declared group of clips (see docs/transform.md)."""


def _publish_all(files: Dict[str, bytes]) -> None:
    """Every output or none: stage every file beside its target (``io.write.stage_bytes``:
    fsynced, the published mode), then rename them in turn, each existing target kept
    under a second name first; when a rename fails (a file another program holds open on
    Windows, a full disk...) the outputs already renamed are put back as they were (or
    removed when new) and the temps removed. An ``OSError`` becomes an ``AnimsmithError``
    naming the output."""
    from animsmith.errors import AnimsmithError
    from animsmith.io.write import keep_old_bytes, remove_quietly, stage_bytes, sync_directory

    staged: List[Tuple[str, str]] = []
    published: List[Tuple[str, Optional[str]]] = []  # (output, its earlier bytes' second name or None)
    current = None
    try:
        for current, data in files.items():
            staged.append(stage_bytes(current, data))
        for tmp, path in staged:
            current = path
            backup = keep_old_bytes(path)
            try:
                os.replace(tmp, path)
            except BaseException:
                if backup is not None:
                    remove_quietly(backup)
                raise
            published.append((path, backup))
    except BaseException as exc:
        for path, backup in reversed(published):  # undo, newest first
            try:
                if backup is None:
                    os.unlink(path)
                else:
                    os.replace(backup, path)
            except OSError:
                pass
        for tmp, _ in staged:
            remove_quietly(tmp)
        if isinstance(exc, OSError):
            raise AnimsmithError(f"cannot write output: {exc.strerror or exc}", path=current) from None
        raise
    for _, backup in published:
        if backup is not None:
            remove_quietly(backup)
    for folder in {os.path.dirname(os.path.abspath(path)) for _, path in staged}:
        sync_directory(folder)


def _phase(value: Optional[float]) -> str:
    """A stride anchor for the text line ("n/a" when it could not be measured)."""
    from animsmith.render.text import phase_text

    return "n/a" if value is None else phase_text(value)


def member_label(plan) -> str:
    """How the text output names a member: ``reference``; ``already aligned`` when its events
    sat on the reference's before retiming, as shown (0.001 cycle); else ``retimed``."""
    from animsmith.render.text import phase_text
    from animsmith.transform import foot_cycle as fc

    if plan.reference:
        return "reference"
    before, target = plan.events_before.phases, plan.target.phases
    off = any(phase_text(before[n]) != phase_text(target[n]) for n in fc.EVENT_NAMES)
    return "retimed" if off else "already aligned"


def _resolve_members(
    group, paths: List[str], assets: Dict[str, Any], aliases: Optional[Dict[str, str]] = None, metres_per_unit: float = 1.0
) -> List[Tuple[str, str, Any]]:
    """[(label, file, clip)] for every member (a member listed twice, or the same clip named
    two ways, once, as the group checks count it, under its first label; ``aliases`` gets every
    label -> that first label); AnimsmithError for a missing or ambiguous one. A member file
    loaded here is judged at ``metres_per_unit`` (``[rig] units``)."""
    from animsmith.errors import AnimsmithError
    from animsmith.hints import did_you_mean
    from animsmith.io.gltf import load_asset
    from animsmith.lint.members import DistinctMembers, file_member_clip

    out = []
    distinct = DistinctMembers()  # one clip named two ways is one member, as the group checks count it
    by_identity: Dict[str, str] = {}  # file identity -> the first spelling in assets
    for p in assets:
        by_identity.setdefault(file_identity(p), p)

    def add(label: str, f: str, clip) -> None:
        first = distinct.first_label(file_identity(f), clip.name, label)
        if first == label:
            out.append((label, f, clip))
        if aliases is not None:
            aliases[label] = first

    for ref in group.members:
        if not distinct.new_label(ref.label):
            continue
        if ref.file is not None:
            f = ref.file
            if f not in assets:
                match = by_identity.get(file_identity(f))
                if match is None:
                    assets[f] = load_asset(f, strict=False).in_units(metres_per_unit)
                    by_identity[file_identity(f)] = f
                else:
                    f = match
            asset = assets[f]
            name, why = file_member_clip(ref, asset.clip_names)
            if why is not None:
                raise AnimsmithError(f"group member {ref.label!r}: {why}")
            try:
                clip = asset.clip(name)
            except KeyError:
                hint = did_you_mean(ref.clip, asset.clip_names)
                raise AnimsmithError(f"group member {ref.label!r}: clip {ref.clip!r} not found{hint}", f) from None
            add(ref.label, f, clip)
            continue
        # a bare name is looked up in PATHS only (docs/transform.md), never in a file an earlier
        # "file.glb#clip" member loaded: the result must not depend on the members' order
        hits = [(p, assets[p].clip(ref.clip)) for p in dict.fromkeys(paths) if ref.clip in assets[p].clip_names]
        if not hits:
            hint = did_you_mean(ref.clip, [n for p in dict.fromkeys(paths) for n in assets[p].clip_names])
            raise AnimsmithError(f"group member {ref.label!r} not found in {', '.join(paths)}{hint}")
        if len(hits) > 1:
            raise AnimsmithError(f"group member {ref.label!r} is ambiguous: found in {', '.join(p for p, _ in hits)}")
        add(ref.label, hits[0][0], hits[0][1])
    return out


@collection_grp.command("transform-foot-cycle", short_help="Retime a gait group onto one member's foot contacts.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False), metavar="FILE.glb...")
@click.option("--group", "group_name", required=True, metavar="NAME", help="A [gait_groups.<name>] of the contract.")
@click.option("--reference", "reference", required=True, metavar="CLIP", help="The member whose contact phases every other member takes.")
@click.option("--out-dir", "out_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write each member file to DIR/<file name> (this or -o is required unless --dry-run).")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), default=None, metavar="OUT",
              help="GLB file to write when every member is in one input file.")
@click.option("--fps", "fps", type=FiniteFloat(0.0), default=None, help='Frame rate of the key grid, > 0 (default: each member\'s fps in the contract, from [clips."<clip>"] or a key naming its file, [clips."walk.glb"] / [clips."walk.glb#<clip>"]; else 30).')
@click.option("--contact-height-m", "contact_height_m", type=FiniteFloat(0.0, inclusive=True), default=None,
              help="Stance threshold above each foot's lowest point (default: [checks.foot-slide] contact_height_m, else 0.03).")
@click.option("--dry-run", "dry_run", is_flag=True, help="Run every proof, print the plan, write nothing.")
@format_option("fmt_name")
@config_option
@click.pass_context
def transform_foot_cycle_cmd(ctx, paths, group_name, reference, out_dir, output, fps, contact_height_m, dry_run, fmt_name, config_path):
    """Retime every member of a declared in-place ring onto the reference member's contact phases.

    FILE.glb...: the .glb files holding the group's members (files only: no
    folders or globs). Every output is published, or none. Exit 0 written (or
    dry run); 1 refused (nothing written, the reason on stderr); 2 bad flag,
    file or config. docs/transform.md.
    """
    from animsmith.checks import load_contract
    from animsmith.core.legs import resolve_contract_rig
    from animsmith.errors import AnimsmithError, ConfigError, Refusal
    from animsmith.io.patch import GlbPatch
    from animsmith.io.gltf import load_asset_bytes, read_file_bytes
    from animsmith.transform import foot_cycle as fc

    if (out_dir is None) == (output is None) and not dry_run:
        raise click.UsageError("give exactly one of --out-dir DIR or -o OUT")
    if output is not None:
        check_output_path(output)
    if out_dir == "-":
        raise click.UsageError("--out-dir -: '-' is not stdout here; name a folder (./- names one called '-')")
    contract = load_contract(effective_config_path(ctx, config_path))
    group = contract.gait_groups.get(group_name)
    if group is None:
        names = sorted(contract.gait_groups)
        declared = ", ".join(names[:10]) + (f", +{len(names) - 10} more" if len(names) > 10 else "") or "none"
        raise ConfigError(f"no [gait_groups.{group_name}] in the contract (declared: {declared})", contract.path)
    if contact_height_m is None:
        contact_height_m = float(contract.check_options("foot-slide", {"contact_height_m": fc.DEFAULT_CONTACT_HEIGHT_M})["contact_height_m"])

    raw: Dict[str, bytes] = {}
    assets: Dict[str, Any] = {}
    for p in paths:
        raw[p] = read_file_bytes(p)  # LoadError naming the file: missing, FIFO, too big, changed
        # judged in metres ([rig] units); members are rewritten in their own units
        assets[p] = load_asset_bytes(raw[p], p, strict=False).in_units(contract.rig.metres_per_unit)
        if assets[p].container != "glb":
            raise AnimsmithError("transforms edit .glb files only (convert the .gltf to .glb first)", p)
    aliases: Dict[str, str] = {}  # every declared spelling -> the member's first label
    members = _resolve_members(group, list(paths), assets, aliases, contract.rig.metres_per_unit)
    for _, f, _ in members:
        if f not in raw:
            raw[f] = read_file_bytes(f)
    ref = [m for m in members if reference in (m[0], m[2].name) or aliases.get(reference) == m[0]]
    if not ref:
        raise AnimsmithError(f"--reference {reference!r} is not a member of gait group {group_name!r} "
                             f"(members: {', '.join(m[0] for m in members)})")
    if len(ref) > 1:
        raise AnimsmithError(f"--reference {reference!r} is ambiguous in gait group {group_name!r}: it names "
                             f"{len(ref)} members ({', '.join(f'{m[0]} in {m[1]}' for m in ref)}); name one by its member label")
    sources = sorted({f for _, f, _ in members})
    targets: Dict[str, str] = {}
    if not dry_run:
        if output is not None:
            if len(sources) != 1:
                raise AnimsmithError(f"-o takes one output but the group spans {len(sources)} files; use --out-dir")
            targets[sources[0]] = output
        else:
            for f in sources:
                targets[f] = os.path.join(out_dir, os.path.basename(f))
            # compared ignoring case: on Windows and macOS (case-insensitive by default)
            # Walk.glb and walk.glb are one file, and the second would replace the first
            folded: Dict[str, str] = {}
            for f in sources:
                key = os.path.basename(f).casefold()
                if key in folded:
                    raise AnimsmithError(
                        f"member files {folded[key]} and {f} share a file name (ignoring case); --out-dir "
                        "would overwrite one with the other"
                    )
                folded[key] = f
        from animsmith.io.write import same_file

        # any input (a member file, a buffer or image file one reads, or the config), also through
        # a symlink the output would follow
        inputs = list(dict.fromkeys(list(paths) + sources + [r for f in assets for r in external_files(assets[f], f)]))
        inputs += [contract.path] if contract.path else []
        written: Dict[str, str] = {}
        for f, t in targets.items():
            for inp in inputs:
                if same_file(inp, t):
                    raise AnimsmithError(f"output {t!r} is an input file ({inp}); choose another --out-dir or -o")
            real = os.path.realpath(t)  # outputs are renamed into place: never written through a hard link
            if real in written:
                raise AnimsmithError(f"outputs {written[real]!r} and {t!r} are the same file; choose another --out-dir")
            written[real] = t
            if external_buffers(assets[f]) and not same_dir(f, t):
                raise AnimsmithError("the GLB references external buffer files; write the output in the same folder", f)

    roles_of = {}

    def roles(f):
        if f not in roles_of:
            try:
                roles_of[f] = resolve_contract_rig(assets[f], contract.rig)
            except ValueError as exc:
                raise ConfigError(str(exc), contract.path) from None
        return roles_of[f]

    doc: Dict[str, Any] = {
        "schema_version": SCHEMA_VERSION, "command": "collection transform-foot-cycle", "group": group_name,
        "reference": ref[0][2].name, "outcome": None, "outputs": [], "members": [], "refusal": None,
    }

    def in_file(f, prove, *args):
        """``prove(*args)``; a refusal names member file ``f`` when the group spans several."""
        try:
            return prove(*args)
        except Refusal as exc:
            raise fc.name_file(exc, f) if len(sources) > 1 else exc

    try:
        ref_label, ref_file, ref_clip = ref[0]
        ref_plan = in_file(ref_file, fc.plan_member, assets[ref_file], ref_clip, roles(ref_file),
                           clip_fps(contract, ref_clip.name, ref_file, fps), ref_file, contact_height_m, None)
        plans = []
        for label, f, clip in members:
            if (f, clip.name) == (ref_file, ref_clip.name):
                plans.append(ref_plan)
                continue
            plans.append(in_file(f, fc.plan_member, assets[f], clip, roles(f), clip_fps(contract, clip.name, f, fps), f,
                                 contact_height_m, ref_plan.events_before))
        # build every output in memory
        built: Dict[str, bytes] = {}
        for f in sources:
            patch = GlbPatch(raw[f])
            reps = []
            for p in plans:
                if p.source != f or p.reference:
                    continue
                clip = assets[f].clips[p.clip_index]
                seen = set()
                for i, vals in p.new_values.items():
                    s = clip.channels[i].sampler
                    if s in seen:
                        continue
                    seen.add(s)
                    reps.append((p.clip_index, s, vals))
            patch.replace_sampler_outputs(reps)
            built[f] = patch.to_bytes()
        # re-load and prove every member independently; everything else must be bit-identical
        reloaded = {
            f: load_asset_bytes(built[f], targets.get(f, f), base_dir=os.path.dirname(os.path.abspath(f)), strict=False).in_units(
                contract.rig.metres_per_unit
            )
            for f in sources
        }
        retimed = {(p.source, p.clip_index): p for p in plans if not p.reference}
        for f in sources:
            in_file(f, fc.verify_untouched, assets[f], reloaded[f], retimed, f)
        for p in plans:
            after = reloaded[p.source]
            in_file(p.source, fc.verify_retimed, after, after.clips[p.clip_index], roles(p.source), p, ref_plan,
                    contact_height_m)
    except Refusal as exc:
        from animsmith.runtime import decide_exit_status

        decide_exit_status(1)  # before writing: a reader that goes away keeps it
        doc["outcome"] = "refused"
        doc["refusal"] = exc.to_json()
        click.echo(refusal_line(exc), err=True)
        if fmt_name == "json":
            click.echo(runner_safe(json.dumps(doc, indent=2), "json"))
        return 1

    if dry_run:
        doc["outcome"] = "dry-run"
    else:
        if out_dir is not None:
            try:
                os.makedirs(out_dir, exist_ok=True)
            except OSError as exc:
                raise AnimsmithError(f"cannot create the output folder: {exc.strerror or exc}", path=out_dir) from None
        _publish_all({targets[f]: built[f] for f in sources})
        doc["outcome"] = "published"
        doc["outputs"] = [targets[f] for f in sources]
    for p in plans:
        doc["members"].append({
            "name": p.clip, "source": p.source, "output": targets.get(p.source), "reference": p.reference,
            "frames": p.frames, "fps": p.fps,
            "events_before": p.events_before.to_json(), "events_after": p.events_after.to_json() if p.events_after else None,
            "target": p.target.to_json(),
            "anchor_before": None if p.anchor_before is None else round(p.anchor_before, 6),
            "anchor_after": None if p.anchor_after is None else round(p.anchor_after, 6),
        })
    if fmt_name == "json":
        click.echo(runner_safe(json.dumps(doc, indent=2), "json"))
    else:
        from animsmith.render.text import phase_text

        for p in plans:
            b, a = p.events_before.phases, (p.events_after or p.events_before).phases
            ev = ", ".join(f"{n.replace('_', ' ')} {phase_text(b[n])}->{phase_text(a[n])}" for n in fc.EVENT_NAMES)
            what = member_label(p) + f" {p.clip!r}" + (f" in {p.source}" if len(sources) > 1 else "")  # as a refusal names it
            click.echo(runner_safe_line(f"{what}: {ev}; anchor {_phase(p.anchor_before)}->{_phase(p.anchor_after)}"))
        click.echo("dry run: nothing written" if dry_run else runner_safe_line("wrote " + ", ".join(targets[f] for f in sources)))
    return 0
