"""The table parser: a TOML document -> :class:`~animsmith.config.model.Contract`.

Validates every table (docs/config.md): top-level keys, then ``[rig]``, ``[clips.*]``,
``[gait_groups.*]``, ``[sync_groups.*]``, ``[engine]``, ``[checks.*]``, each table's
unknown keys before its bad values. The keys of the group tables and of ``[checks.<id>]``
come from the checks' declarations (:class:`~animsmith.config.schema.ContractSchema`).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from animsmith.config.model import CheckSettings, ClipExpect, Contract, EngineConfig, GroupEntry, MemberRef, RigConfig, TableValues
from animsmith.config.schema import MEMBERS_KEY, CheckKeys, ContractSchema, Key
from animsmith.config.values import (
    Problem,
    as_table,
    bone_list,
    join_key,
    key_part,
    names_a_file,
    parse_member,
    type_name,
    unknown,
    validate_value,
)
from animsmith.hints import did_you_mean

#: ``[clips."<name or glob>"]`` keys
CLIP_KEYS: Dict[str, Key] = {
    "loop": Key("bool"),
    "fps": Key("positive"),
    "duration_s": Key("number", 0.0),
    "duration_tolerance_s": Key("number", 0.0),
    "speed_mps": Key("number", 0.0),
    "speed_tolerance_mps": Key("number", 0.0),
    "movement_owner_xz": Key("string", choices=("gameplay", "animation")),
    "animates_bones": Key("list"),
    "max_loop_position_delta_m": Key("number", 0.0),
    "max_loop_rotation_delta_deg": Key("number", 0.0),
    "max_loop_velocity_delta_mps": Key("number", 0.0),
    "max_loop_angular_velocity_delta_degps": Key("number", 0.0),
}
#: a group's member list (``[<group table>.<name>] clips``)
MEMBERS = Key("list")
TOP_KEYS = ("rig", "clips", "gait_groups", "sync_groups", "engine", "checks")
ENGINE_KEYS = ("profile", "version")
RIG_KEYS = ("profile", "roles", "required_bones", "units", "legs")
LEG_KEYS = ("foot", "side", "pair", "toe")
SEVERITY_ALIASES = {"error": "error", "warning": "warning", "warn": "warning", "note": "note"}


class ContractParser:
    """Builds a :class:`Contract` from a TOML document, recording every problem
    (``problems``) and going on with the next key or entry, so one run reports all of a
    file's mistakes. ``schema``: the checks' keys (a :class:`ContractSchema`, or a function
    returning one, called when the document first needs it)."""

    def __init__(self, base_dir: str, schema: Union[ContractSchema, Callable[[], ContractSchema]]):
        self.base_dir = base_dir
        self.problems: List[Problem] = []
        self._schema = schema

    @property
    def schema(self) -> ContractSchema:
        if not isinstance(self._schema, ContractSchema):
            self._schema = self._schema()
        return self._schema

    @contextlib.contextmanager
    def each(self):
        """Record a problem raised inside and carry on after the block."""
        try:
            yield
        except Problem as exc:
            self.problems.append(exc)

    def known(self, table: Mapping[str, Any], allowed, prefix: str) -> Dict[str, Any]:
        """``table`` without its unknown keys, each recorded as a problem."""
        out = {}
        for k, v in table.items():
            if k in allowed:
                out[k] = v
            else:
                self.problems.append(Problem(join_key(prefix, k), unknown(k, allowed)))
        return out

    def fill(self, target: Any, table: Mapping[str, Any], spec: Mapping[str, Any], prefix: str) -> None:
        """Validate each (known) key of ``table`` by its declaration in ``spec`` into ``target``'s attributes."""
        for k, v in table.items():
            d = spec[k]
            with self.each():
                setattr(target, k, validate_value(v, d.type, join_key(prefix, k), minimum=d.minimum, maximum=d.maximum, choices=d.choices))

    def entries(self, doc: Mapping[str, Any], name: str) -> Dict[str, Any]:
        """The sub-tables of top-level table ``name`` ({} when absent or not a table)."""
        with self.each():
            return dict(as_table(doc.get(name, {}), name))
        return {}

    def contract(self, doc: Mapping[str, Any], path: str) -> Contract:
        misplaced = [k for k in doc if k not in TOP_KEYS and k in CLIP_KEYS]  # `loop = true` at the top
        for k in misplaced:
            self.problems.append(Problem(key_part(k), f"unknown key: a clip's {k} goes in a [clips.\"<name or glob>\"] table"))
        doc = self.known({k: v for k, v in doc.items() if k not in misplaced}, TOP_KEYS, "")
        c = Contract(path=path, base_dir=self.base_dir)
        if "rig" in doc:
            with self.each():
                c.rig = self.rig(as_table(doc["rig"], "rig"))
        for name, entry in self.entries(doc, "clips").items():
            with self.each():
                ref = self.clip_file(name)  # a key naming a file is that file's entry
                expect = self.clip(name, entry)
                if ref is None:
                    c.clips[name] = expect
                else:
                    c.file_clips[name] = (ref, expect)
        for table, build, into in (
            ("gait_groups", functools.partial(self.group, "gait_groups"), c.gait_groups),
            ("sync_groups", functools.partial(self.group, "sync_groups"), c.sync_groups),
        ):
            for name, entry in self.entries(doc, table).items():
                with self.each():
                    into[name] = build(name, entry)
        if "engine" in doc:
            with self.each():
                c.engine = self.engine(as_table(doc["engine"], "engine"))
        c.checks = self.checks(self.entries(doc, "checks"))
        return c

    def engine(self, table: Mapping[str, Any]) -> Optional[EngineConfig]:
        """``[engine]``: a known ``profile`` (required) and, optionally, one of its versions."""
        from animsmith.engine import PROFILES

        table = self.known(table, ENGINE_KEYS, "engine")
        if "profile" not in table:
            raise Problem("engine.profile", f"missing required key (one of: {', '.join(PROFILES)})")
        profile = validate_value(table["profile"], "string", "engine.profile")
        if profile not in PROFILES:
            hint = did_you_mean(profile, PROFILES) or f" (one of: {', '.join(PROFILES)})"
            raise Problem("engine.profile", f"unknown engine profile {profile!r}{hint}")
        known = PROFILES[profile].versions
        version = known[0]
        if "version" in table:
            version = validate_value(table["version"], "string", "engine.version")
            if version not in known:
                raise Problem(
                    "engine.version",
                    f"profile {profile!r} has no rules for version {version!r} (known: {', '.join(known)})",
                )
        return EngineConfig(profile=profile, version=version)

    def rig(self, table: Mapping[str, Any]) -> RigConfig:
        from animsmith.core.roles import PROFILE_ALIASES, ROLES

        table = self.known(table, RIG_KEYS, "rig")
        rig = RigConfig()
        if "profile" in table:
            with self.each():
                profile = validate_value(table["profile"], "string", "rig.profile")
                if profile.strip().lower() not in PROFILE_ALIASES:
                    hint = did_you_mean(profile, PROFILE_ALIASES) or f" (one of: {', '.join(sorted(PROFILE_ALIASES))})"
                    raise Problem("rig.profile", f"unknown rig profile {profile!r}{hint}")
                rig.profile = profile
        roles: Mapping[str, Any] = {}
        with self.each():
            roles = as_table(table.get("roles", {}), "rig.roles")
        for role in roles:  # the table's unknown keys before its bad values, as everywhere
            if role not in ROLES:
                self.problems.append(Problem(join_key("rig.roles", role), unknown(role, ROLES, "role") + f"; roles: {', '.join(ROLES)}"))
        for role, bone in roles.items():
            key = join_key("rig.roles", role)
            if role not in ROLES:
                continue
            with self.each():
                bone = validate_value(bone, "string", key)
                if not bone:
                    raise Problem(key, "must be a non-empty bone name")
                rig.roles[role] = bone
        if "required_bones" in table:
            with self.each():
                rig.required_bones = bone_list(table["required_bones"], "rig.required_bones")
        if "units" in table:
            from animsmith.core.units import metres_per_unit

            with self.each():
                try:
                    rig.metres_per_unit = metres_per_unit(table["units"])
                except ValueError as exc:
                    raise Problem("rig.units", str(exc)) from None
                rig.units = table["units"]
        if "legs" in table:
            with self.each():
                rig.legs = self.legs(as_table(table["legs"], "rig.legs"))
        return rig

    def legs(self, table: Mapping[str, Any]) -> List[Dict[str, Any]]:
        """``[rig.legs]``: {leg name: {foot, side, pair, toe?}} -> validated entries
        (``core.legs.validate_leg_table``: both sides of every pair, pairs 0, 1, ...)."""
        from animsmith.core.legs import validate_leg_table

        entries = []
        for name, entry in table.items():
            key = join_key("rig.legs", name)
            leg = self.known(as_table(entry, key), LEG_KEYS, key)
            for k in ("foot", "side"):
                if k not in leg:
                    raise Problem(key, f"missing {k!r} (a leg needs foot and side; pair defaults to 0)")
            entries.append(dict(leg, name=name))
        try:
            return validate_leg_table(entries, "rig.legs")
        except ValueError as exc:
            text = str(exc)
            for i, e in enumerate(entries):  # name the leg by its key, not its index
                text = text.replace(f"rig.legs[{i}].", join_key("rig.legs", e["name"]) + ".")
            key, _, problem = text.partition(": ")
            raise Problem(key, problem) from None

    def clip(self, pattern: str, entry: Any) -> ClipExpect:
        prefix = join_key("clips", pattern)
        if pattern in CLIP_KEYS and not isinstance(entry, dict):  # `[clips]` then `loop = true`
            raise Problem(prefix, f"must be a table, got {type_name(entry)}: clip keys go in a "
                           f"[clips.\"<name or glob>\"] table, not [clips] itself")
        table = self.known(as_table(entry, prefix), CLIP_KEYS, prefix)
        expect = ClipExpect()
        self.fill(expect, table, CLIP_KEYS, prefix)
        if expect.animates_bones is not None:
            with self.each():
                expect.animates_bones = bone_list(expect.animates_bones, join_key(prefix, "animates_bones"))
        return expect

    def clip_file(self, pattern: str) -> Optional[MemberRef]:
        """The file a ``[clips.*]`` key names, read as a group member's (``file.glb`` every clip of
        the file, ``file.glb#clip`` that clip, the clip part a name or glob; the file relative to
        the contract's folder), or None for a key that matches clip names in every file."""
        if not names_a_file(pattern):
            return None
        key = join_key("clips", pattern)
        ref = parse_member(pattern, self.base_dir, key)
        if any(c in pattern.partition("#")[0] for c in "*?"):
            raise Problem(key, "a glob in the file part: a key names one file (relative to the contract's folder); "
                               "'*' and '?' match clip names, after '#' (\"walk.glb#*\")")
        return ref

    def members(self, clips: List[str], prefix: str) -> List[MemberRef]:
        key = join_key(prefix, MEMBERS_KEY)
        if not clips:
            raise Problem(key, "must list at least one member")
        refs = []
        for label in clips:  # every bad member of the list, not only the first
            with self.each():
                refs.append(parse_member(label, self.base_dir, key))
        return refs

    def _group(self, group, name: str, entry: Any, table_name: str, spec: Mapping[str, Any], extra=()):
        """Known keys of a group entry filled into ``group``; its members parsed. Returns the table."""
        prefix = join_key(table_name, name)
        table = self.known(as_table(entry, prefix), tuple(spec) + tuple(extra), prefix)
        if MEMBERS_KEY not in table:  # recorded; the entry's other keys are still checked
            self.problems.append(Problem(join_key(prefix, MEMBERS_KEY), "missing required key"))
            self.fill(group, {k: v for k, v in table.items() if k in spec}, spec, prefix)
            return table
        before = len(self.problems)
        self.fill(group, {k: v for k, v in table.items() if k in spec}, spec, prefix)
        clips_key = join_key(prefix, MEMBERS_KEY)
        if all(p.key != clips_key for p in self.problems[before:]):  # members of a valid list only
            with self.each():
                group.members = self.members(group.clips, prefix)
        return table

    def group(self, table_name: str, name: str, entry: Any) -> GroupEntry:
        """One ``[<table_name>.<name>]`` entry: its members, the keys its checks declare and
        their sub-tables (each sub-table after the entry's own keys)."""
        shape = self.schema.group_table(table_name)
        g = GroupEntry(name=name, clips=[], members=[], **{k: d.default for k, d in shape.keys.items()},
                       **{sub: None for sub in shape.sub_tables})
        table = self._group(g, name, entry, table_name, {MEMBERS_KEY: MEMBERS, **shape.keys}, tuple(shape.sub_tables))
        for sub, keys in shape.sub_tables.items():
            raw = table.get(sub)
            if raw is None:
                continue
            sprefix = join_key(join_key(table_name, name), sub)
            with self.each():
                sub_table = self.known(as_table(raw, sprefix), keys, sprefix)
                values = TableValues(**{k: d.default for k, d in keys.items()})
                self.fill(values, sub_table, keys, sprefix)
                setattr(g, sub, values)
        return g

    def checks(self, table: Mapping[str, Any]) -> Dict[str, CheckSettings]:
        out: Dict[str, CheckSettings] = {}
        for check_id, entry in table.items():
            prefix = join_key("checks", check_id)
            specs = self.schema.checks  # asked for only when the file has a [checks.*] table
            with self.each():
                if check_id not in specs:
                    raise Problem(prefix, unknown(check_id, specs, "check id"))
                out[check_id] = self.check_settings(specs[check_id], as_table(entry, prefix), prefix)
        return out

    def check_settings(self, spec: CheckKeys, table: Mapping[str, Any], prefix: str) -> CheckSettings:
        if spec.group_table:  # a group's caps belong to its own table: say where, not only "unknown key"
            where = self.schema.group_table(spec.group_table).keys_of(spec.arming_key)
            tbl = f"[{spec.group_table}.<name>" + (f".{spec.arming_key}]" if spec.arming_key else "]")
            misplaced = [k for k in table if k in where and k not in spec.options and k != MEMBERS_KEY]
            for k in misplaced:
                self.problems.append(Problem(join_key(prefix, k), f"unknown key: a group's {k} goes in its {tbl} table"))
            table = {k: v for k, v in table.items() if k not in misplaced}
        table = self.known(table, ("enabled", "severity") + tuple(spec.options), prefix)
        s = CheckSettings()
        if table.get("severity") == "off" and table.get("enabled") is True:  # whichever came last must not win
            self.problems.append(Problem(join_key(prefix, "enabled"), "true contradicts severity = \"off\" (which means enabled = false)"))
        for k, v in table.items():
            key = join_key(prefix, k)
            with self.each():
                if k == "enabled":
                    s.enabled = validate_value(v, "bool", key)
                elif k == "severity":
                    sev = validate_value(v, "string", key)
                    if sev == "off":
                        s.enabled = False
                    elif sev in SEVERITY_ALIASES:
                        s.severity = SEVERITY_ALIASES[sev]
                    else:
                        raise Problem(
                            key, f"must be one of 'error', 'warning', 'note', 'off', got {sev!r}" + did_you_mean(sev, SEVERITY_ALIASES)
                        )
                else:
                    opt = spec.options[k]
                    s.options[k] = validate_value(
                        v, opt.type, key, minimum=opt.minimum, maximum=opt.maximum, choices=opt.choices
                    )
        return s
