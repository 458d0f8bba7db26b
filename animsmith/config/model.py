"""The validated contract: what a project declares about its clips, rig and groups.

:class:`Contract` and its parts, as :mod:`animsmith.config.parser` builds them from the
TOML file (docs/config.md documents every key); :func:`default_contract` is the contract
of a project without a file.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Mapping, Optional, Tuple

@dataclass
class RigConfig:
    profile: str = "auto"
    roles: Dict[str, str] = field(default_factory=dict)
    required_bones: List[str] = field(default_factory=list)
    #: ``[rig] units`` as written (a unit name or a number); metres by default, as glTF says
    units: Any = "metres"
    #: metres per file unit (``core.units.metres_per_unit`` of ``units``)
    metres_per_unit: float = 1.0
    #: [rig.legs] as validated entries {name, side, pair, foot, toe} (core.legs)
    legs: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class ClipExpect:
    """A clip's declared expectations; ``None`` = not declared."""

    loop: Optional[bool] = None
    fps: Optional[float] = None
    duration_s: Optional[float] = None
    duration_tolerance_s: Optional[float] = None
    speed_mps: Optional[float] = None
    speed_tolerance_mps: Optional[float] = None
    movement_owner_xz: Optional[str] = None
    animates_bones: Optional[List[str]] = None
    max_loop_position_delta_m: Optional[float] = None
    max_loop_rotation_delta_deg: Optional[float] = None
    max_loop_velocity_delta_mps: Optional[float] = None
    max_loop_angular_velocity_delta_degps: Optional[float] = None

    def overlay(self, other: "ClipExpect") -> "ClipExpect":
        """A copy of self with every field ``other`` declares replaced."""
        merged = ClipExpect(**{f.name: getattr(self, f.name) for f in fields(self)})
        for f in fields(other):
            value = getattr(other, f.name)
            if value is not None:
                setattr(merged, f.name, value)
        return merged

    def declared(self) -> Dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self, key, None)
        return default if value is None else value


@dataclass(frozen=True)
class MemberRef:
    """One group member as declared: ``label`` is the string from the config.

    ``file`` is the absolute path of the member's file (None for a bare clip
    name); ``clip`` is the clip name (None for a single-clip file).
    """

    label: str
    file: Optional[str] = None
    clip: Optional[str] = None


class TableValues:
    """The keys of a table as attributes (``values.min_lr_amplitude_m``), defaults filled:
    a group's sub-table such as ``[sync_groups.<name>.time_complement]``."""

    def __init__(self, **values: Any):
        self.__dict__.update(values)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


class GroupEntry(TableValues):
    """One ``[gait_groups.<name>]`` or ``[sync_groups.<name>]`` entry.

    ``name``, ``clips`` (the members as written) and ``members`` (parsed, :class:`MemberRef`),
    then one attribute per key the group checks declare for the table, its default when the
    entry leaves it out (``entry.max_gait_phase_spread``). A sub-table a check declares
    (``time_complement``) is a :class:`TableValues` of its keys, or None when the entry has none.
    """

    def __init__(self, name: str, clips: List[str], members: List[MemberRef], **values: Any):
        super().__init__(name=name, clips=clips, members=members, **values)


@dataclass(frozen=True)
class EngineConfig:
    """``[engine]``: the runtime whose naming rules predict each clip's and node's handle."""

    profile: str
    version: str


@dataclass
class CheckSettings:
    enabled: bool = True
    severity: Optional[str] = None
    options: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Contract:
    """The validated contract (built-in defaults when ``path`` is None)."""

    path: Optional[str] = None
    base_dir: str = "."
    rig: RigConfig = field(default_factory=RigConfig)
    clips: Dict[str, ClipExpect] = field(default_factory=dict)
    #: ``[clips."file.glb"]`` / ``[clips."file.glb#clip"]`` entries, by key as written: the file
    #: (made absolute as a group member's is), the clip name or glob (None: every clip) and the entry
    file_clips: Dict[str, Tuple[MemberRef, ClipExpect]] = field(default_factory=dict)
    gait_groups: Dict[str, GroupEntry] = field(default_factory=dict)
    sync_groups: Dict[str, GroupEntry] = field(default_factory=dict)
    checks: Dict[str, CheckSettings] = field(default_factory=dict)
    #: ``[engine]`` (None: engine-neutral output)
    engine: Optional[EngineConfig] = None
    #: first 16 hex digits of the SHA-256 of the TOML bytes, CRLF read as LF ("" for the defaults):
    #: shards of one run must have read the same contract (``merge-results``)
    digest: str = ""

    # -- clips -------------------------------------------------------------
    def expect_for(self, clip_name: str, file: Optional[str] = None) -> Optional[ClipExpect]:
        """Effective ``[clips.*]`` entry for clip ``clip_name`` of ``file`` (None when nothing matches).

        Overlaid from least to most specific, later wins per field: the name globs that match
        (specificity = number of literal, non-wildcard characters; ties in file order), the
        exact-name entry, then, when ``file`` is given, the entries naming that file (the same
        file whatever path spells it, :func:`animsmith.io.paths.file_identity`): the whole-file
        ones (``file.glb``, in file order), the ``file.glb#glob`` ones as the name globs, and
        the ``file.glb#clip`` ones naming the clip exactly.
        """
        layers = glob_layers(self._globs(), clip_name)
        exact = self.clips.get(clip_name)
        if exact is not None:
            layers.append(exact)
        if file is not None and self.file_clips:
            layers += self._file_layers(clip_name, file)
        if not layers:
            return None
        out = ClipExpect()
        for expect in layers:
            out = out.overlay(expect)
        return out

    def _globs(self) -> list:
        """[(specificity, file order, pattern, match, expect)] of the glob entries, compiled once
        per contract (``fnmatch`` caches 32,768 patterns: past that it recompiled each one for
        every clip, minutes for a contract of 100,000 globs)."""
        cached = self.__dict__.get("_compiled_globs")
        if cached is None or cached[0] is not self.clips:
            out = [glob_entry(order, pattern, expect) for order, (pattern, expect) in enumerate(self.clips.items())
                   if is_glob(pattern)]
            cached = (self.clips, out)
            self.__dict__["_compiled_globs"] = cached
        return cached[1]

    def _file_layers(self, clip_name: str, file: str) -> List[ClipExpect]:
        """The entries naming ``file`` that apply to ``clip_name``, least specific first."""
        from animsmith.io.paths import file_identity

        cached = self.__dict__.get("_file_entries")
        if cached is None or cached[0] is not self.file_clips:
            by_file: Dict[str, tuple] = {}
            for order, (ref, expect) in enumerate(self.file_clips.values()):
                whole, globs, exact = by_file.setdefault(file_identity(ref.file), ([], [], []))
                if ref.clip is None:
                    whole.append(expect)
                    continue
                if is_glob(ref.clip):
                    globs.append(glob_entry(order, ref.clip, expect))
                exact.append((ref.clip, expect))  # a glob is also the exact entry of the name it spells
            cached = (self.file_clips, by_file, {})
            self.__dict__["_file_entries"] = cached
        _, by_file, seen = cached
        where = file if os.path.isabs(file) else os.path.join(os.getcwd(), file)  # the folder it was named from
        key = seen.get(where)
        if key is None:
            key = seen[where] = file_identity(where)
        whole, globs, exact = by_file.get(key, ((), (), ()))
        return list(whole) + glob_layers(globs, clip_name) + [expect for clip, expect in exact if clip == clip_name]

    def __getstate__(self):  # compiled patterns and file identities stay in this process (a worker finds its own)
        state = dict(self.__dict__)
        state.pop("_compiled_globs", None)
        state.pop("_file_entries", None)
        return state

    # -- checks ------------------------------------------------------------
    def settings(self, check_id: str) -> CheckSettings:
        return self.checks.get(check_id) or CheckSettings()

    def check_enabled(self, check_id: str) -> bool:
        return self.settings(check_id).enabled

    def check_severity(self, check_id: str, default: str) -> str:
        return self.settings(check_id).severity or default

    def check_options(self, check_id: str, defaults: Mapping[str, Any]) -> Dict[str, Any]:
        opts = dict(defaults)
        opts.update(self.settings(check_id).options)
        return opts

    def groups(self, table: str) -> Dict[str, Any]:
        return getattr(self, table)


def is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


def glob_entry(order: int, pattern: str, expect: ClipExpect) -> tuple:
    """(specificity, file order, pattern, match, expect) of one glob entry, its pattern compiled."""
    return glob_specificity(pattern), order, pattern, re.compile(fnmatch.translate(pattern)).match, expect


def glob_layers(globs: list, clip_name: str) -> List[ClipExpect]:
    """The entries of ``globs`` (:func:`glob_entry`) matching ``clip_name``, least specific first
    (ties in file order); a glob that is the name itself is the exact entry, not one of these."""
    hits = [(spec, order, expect) for spec, order, pattern, match, expect in globs
            if pattern != clip_name and match(clip_name)]
    return [expect for _, _, expect in sorted(hits, key=lambda g: (g[0], g[1]))]


def glob_specificity(pattern: str) -> int:
    """Literal characters in a glob (``run_*`` -> 4); more = more specific."""
    # a set counts no literal, whatever it lists (a ``]`` right after ``[`` or ``[!`` is one of its members)
    return len(re.sub(r"\[!?\]?[^\]]*\]|[*?]", "", pattern))


def default_contract() -> Contract:
    return Contract()

