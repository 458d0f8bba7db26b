"""``animsmith inspect PATHS... [--format text|json]``: rig profile, roles, bone tree, clips."""

from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List

import click

from animsmith.commands import _output
from animsmith.commands._options import config_option, format_option, load_rig_contract


def rig_json(roles) -> Dict[str, Any]:
    from animsmith.core.roles import ROLES

    out = []
    for role in ROLES:
        if role in roles.bones:
            out.append({"role": role, "bone": roles.names[role], "bone_index": int(roles.bones[role]), "convention": roles.conventions.get(role)})
        else:
            out.append({"role": role, "bone": None, "unresolved": roles.unresolved.get(role, "not resolved")})
    doc: Dict[str, Any] = {"profile": roles.profile, "roles": out}
    legs = getattr(roles, "legs", None)
    if legs is not None:
        doc["legs"] = legs.to_json()
        doc["body"] = None if legs.body is None else str(legs.names[legs.body])
        if not legs.legs:
            doc["legs_unavailable"] = legs.unresolved or "no legs found"
        if legs.notes:
            doc["legs_notes"] = list(legs.notes)
    return doc


def bones_json(skeleton) -> List[Dict[str, Any]]:
    return [
        {
            "index": b,
            "name": str(skeleton.names[b]),
            "parent": int(skeleton.parents[b]),
            "node": int(skeleton.node_indices[b]),
            "joint": bool(skeleton.is_joint[b]),
            "in_scene": bool(skeleton.in_scene[b]),
            "depth": int(skeleton.depth[b]),
        }
        for b in range(skeleton.bone_count)
    ]


def travel_json(travel) -> Dict[str, Any]:
    """The clip's travel bone (core.trajectory.travel_bone_of_clip): bone, role, why."""
    return {"bone": travel.name, "role": travel.role, "reason": travel.reason}


def clip_json(clip, travel=None) -> Dict[str, Any]:
    interp = Counter(ch.interpolation for ch in clip.channels)
    paths = Counter(ch.path for ch in clip.channels)
    return {
        "name": clip.name,
        "index": int(clip.index),
        "duration_s": float(clip.duration_s) + 0.0,  # + 0.0: never -0.0
        "start_s": float(clip.start_s) + 0.0,
        "channel_count": len(clip.channels),
        "key_count_max": int(clip.max_key_count),
        "key_count_total": int(sum(ch.key_count for ch in clip.channels)),
        "animated_bones": len({ch.bone for ch in clip.channels}),
        "paths": dict(sorted(paths.items())),
        "interpolations": dict(sorted(interp.items())),
        "weight_channel_count": int(clip.weight_channel_count),
        "pointer_channel_count": int(getattr(clip, "pointer_channel_count", 0)),
        **({} if travel is None else {"travel_bone": travel_json(travel)}),
    }


#: deepest level the bone tree indents: deeper bones stay at this indentation and say
#: their depth, so a long chain (a tail, a rope, a hostile file) prints lines of bounded
#: width instead of text growing with the square of the chain's length
TREE_INDENT_LEVELS = 32


def _tree_lines(skeleton, roles) -> List[str]:
    """One line per bone, indented two spaces per level of depth (at most
    :data:`TREE_INDENT_LEVELS` levels; a deeper bone ends with ``(depth N)``)."""
    from animsmith.text import escape

    role_of: Dict[int, List[str]] = {}
    for role, b in roles.bones.items():
        role_of.setdefault(int(b), []).append(role)
    lines = []
    for b in range(skeleton.bone_count):
        tag = ("" if bool(skeleton.is_joint[b]) else " (node)") + ("" if bool(skeleton.in_scene[b]) else " (not in scene)")
        r = f"  [{', '.join(role_of[b])}]" if b in role_of else ""
        depth = int(skeleton.depth[b])
        deep = f" (depth {depth})" if depth > TREE_INDENT_LEVELS else ""
        lines.append("  " * min(depth, TREE_INDENT_LEVELS) + f"{escape(skeleton.names[b])}{tag}{deep}{r}")
    return lines


@click.command("inspect", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, metavar="PATHS...")
@format_option("fmt_name")
@click.option("--profile", default=None, metavar="PROFILE", help="Rig profile (auto, mixamo, ue-mannequin, humanoid, rigify, biped, generic, none = only [rig.roles]); overrides [rig] profile.")
@config_option
@click.pass_context
def inspect_cmd(ctx, paths, fmt_name, profile, config_path):
    """Show the rig profile and resolved roles (bone + naming convention, or
    why unresolved), the legs (side, pair, foot, and how each was found: the
    [rig.legs] config, the file's leg map, names or shape; or why none), the bone
    tree, and each clip's duration, start time, channel and key counts,
    interpolations, morph-weight channel count, the count of skipped node-less
    (KHR_animation_pointer) channels and its travel bone (the bone speed and heading
    follow, and why).

    PATHS are files, folders (searched for .glb/.gltf files) and globs, as
    for `lint`; several files are shown one after another (JSON: a `files`
    list).
    """
    from animsmith.lint import expand_paths

    prof, overrides, cfg, contract = load_rig_contract(ctx, config_path, profile)
    metres = contract.rig.metres_per_unit
    legs = contract.rig.legs or None
    inspected = [_inspect_file(file, prof, overrides, cfg, metres, legs) for file in expand_paths(paths)]
    docs = [doc for doc, _, _ in inspected]
    if fmt_name == "json":
        import json

        from animsmith.text import runner_safe

        head = {"schema_version": 1, "command": "inspect"}
        doc = {**head, **docs[0]} if len(docs) == 1 else {**head, "files": docs}
        click.echo(runner_safe(json.dumps(doc, indent=2, allow_nan=False, ensure_ascii=False), "json"))
        return 0
    console = _output.console()
    for i, (doc, roles, sk) in enumerate(inspected):
        if i:
            console.print()
        _print_file(console, doc, roles, sk)
    return 0


def _inspect_file(file: str, prof: str, overrides, cfg, metres: float = 1.0, legs=None):
    """(document: path, rig, bones, clips; its RoleMap with its legs; its Skeleton) of one
    file, positions in metres at ``metres`` per file unit; ``legs``: ``[rig.legs]``."""
    from animsmith.core.legs import resolve_rig
    from animsmith.core.trajectory import travel_bone_of_clip
    from animsmith.errors import AnimsmithError, ConfigError
    from animsmith.io.gltf import load_asset

    try:
        asset = load_asset(file).in_units(metres)
    except AnimsmithError as exc:
        raise exc.with_path(file)
    try:
        roles = resolve_rig(asset, profile=prof, overrides=overrides, declared_legs=legs)
    except ValueError as exc:
        raise ConfigError(str(exc), cfg or file) from None
    return {
        "path": file,
        "rig": rig_json(roles),
        "bones": bones_json(asset.skeleton),
        "clips": [clip_json(c, travel_bone_of_clip(asset.skeleton, c, roles)) for c in asset.clips],
    }, roles, asset.skeleton


def _print_file(console, doc: Dict[str, Any], roles, sk) -> None:
    from rich.text import Text

    from animsmith.numtext import fixed
    from animsmith.text import escape

    file = doc["path"]
    console.print(Text(escape(file), style="bold"), soft_wrap=True)
    console.print(f"rig profile: {roles.profile}", markup=False)
    role_rows = []
    for row in doc["rig"]["roles"]:
        if row["bone"] is not None:
            role_rows.append([row["role"], escape(row["bone"]), row["convention"] or ""])
        else:
            role_rows.append([row["role"], "-", "unresolved: " + row["unresolved"]])
    # a table when it fits, else one block per role (no role or bone name cut to "…")
    _output.print_table(console, ["role", "bone", "convention / reason"], ["left", "left", "left"], role_rows, wrap_last=True)
    rig = doc["rig"]
    if "legs" in rig:
        if rig["legs"]:
            console.print(f"legs ({len(rig['legs'])}; body {escape(rig['body'] or '-')}; pairs from the rear):", markup=False)
            leg_rows = [
                [escape(leg["name"]), leg["side"], str(leg["pair"]), escape(leg["foot"]), escape(leg["toe"] or "-"), f"{leg['found_by']}: {escape(leg['why'])}"]
                for leg in rig["legs"]
            ]
            _output.print_table(console, ["leg", "side", "pair", "foot", "toe", "found by"], ["left"] * 6, leg_rows, wrap_last=True)
        else:
            console.print(f"legs: none ({escape(rig['legs_unavailable'])})", markup=False, soft_wrap=True)
        for note in rig.get("legs_notes", []):
            console.print(f"  note: {escape(note)}", markup=False, soft_wrap=True)
    console.print(f"bones ({sk.bone_count}; '(node)' = not a skin joint, '(not in scene)' = not in the default scene):", markup=False)
    for line in _tree_lines(sk, roles):
        console.print("  " + line, markup=False, soft_wrap=True)
    console.print()
    cols = (
        ("clip", "left"),
        ("dur s", "right"),
        ("start s", "right"),
        ("channels", "right"),
        ("max keys", "right"),
        ("keys", "right"),
        ("interpolations", "left"),
        ("weights", "right"),
        ("pointers", "right"),
        ("travel bone", "left"),
    )
    rows = []
    for c in doc["clips"]:
        rows.append([
            Text(escape(c["name"])),
            fixed(c["duration_s"], 3),
            fixed(c["start_s"], 4),
            str(c["channel_count"]),
            str(c["key_count_max"]),
            str(c["key_count_total"]),
            ", ".join(f"{k} {v}" for k, v in c["interpolations"].items()) or "-",
            str(c["weight_channel_count"]),
            str(c["pointer_channel_count"]),
            Text(escape(c["travel_bone"]["bone"] or "-")),
        ])
    console.print(f"clips ({len(doc['clips'])}):", markup=False)
    _output.print_table(console, [c[0] for c in cols], [c[1] for c in cols], rows)
    # why each clip's travel bone was chosen: once when every clip agrees
    reasons = [(c["name"], c["travel_bone"]["reason"]) for c in doc["clips"]]
    if len(reasons) > 1 and len({r for _, r in reasons}) == 1:
        console.print(f"  travel bone (every clip): {escape(reasons[0][1])}", markup=False, soft_wrap=True)
    else:
        for name, why in reasons:
            console.print(f"  {escape(name)}: travel bone: {escape(why)}", markup=False, soft_wrap=True)
