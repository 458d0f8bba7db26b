"""The TOML contract: what a project declares about its clips, rig and groups.

``load_contract(path=None) -> Contract`` reads and validates the file strictly
(docs/config.md documents every key). Without a path it loads
``./animsmith.toml`` when present, else the built-in defaults
(:func:`default_contract`).

A bad file raises :class:`~animsmith.errors.ConfigError`: one line
``bad config <path>: <key.path>: <problem>`` per problem, every problem of
the file at once (``ConfigError.lines``; top-level keys, then rig, clips,
gait groups, sync groups, checks, each table's unknown keys first); an
unknown key names the closest valid key (``difflib``) when there is one.

Tables
------
* ``[rig]``: ``profile`` (string, default ``"auto"``), ``roles`` {role: bone
  name}, ``required_bones`` (list of bone names), ``units`` (``"metres"``,
  ``"centimetres"``, ``"millimetres"``, ``"inches"``, US spellings and the symbols
  ``"m"``, ``"cm"``, ``"mm"``, ``"in"`` too, or a positive number of metres per unit;
  default metres: ``core.units``), ``legs`` {leg name: {``foot``, ``side``
  (``left``/``right``), ``pair`` (0 = the rear pair, default 0), optional ``toe``}}
  (``core.legs``).
* ``[clips."<name or glob>"]``: :class:`ClipExpect` fields. Effective
  expectation of a clip = every matching glob entry overlaid in order of
  specificity (fewer literal characters first; equal specificity in file
  order), then the exact-name entry last. A field left unset does not
  override.
* ``[gait_groups.<name>]``: ``clips``, ``max_gait_phase_spread`` (0.15 cycle,
  in [0, 0.5]), ``min_lr_amplitude_m`` (0.03 m, ≥ 0); ``travel_policy``
  (``"uniform"`` | ``"pinned"`` | ``"accepted"``, default none),
  ``max_speed_delta_mps`` (0.1, ≥ 0), ``max_stride_length_delta_m`` (0.1, ≥ 0).
* ``[sync_groups.<name>]``: ``clips``, ``max_duration_delta_s`` (0.001),
  ``max_frame_count_delta`` (0), ``max_fps_delta`` (0.01); optional
  ``[sync_groups.<name>.time_complement]`` with ``min_reflected_time_advantage``
  (in [0, 1], default 0.25) and ``min_lr_amplitude_m`` (≥ 0, default 0.03).
* ``[engine]``: ``profile`` (required in the table: ``bevy`` | ``threejs`` | ``godot``)
  and ``version`` (optional, one the profile knows; its rules were read from that
  version): arms the ``engine-addressability`` check (:mod:`animsmith.engine`).
* ``[checks.<id>]``: ``enabled`` (bool), ``severity`` (``error`` |
  ``warning`` | ``note``; ``warn`` is accepted for ``warning``, ``off`` means
  ``enabled = false``) and the check's own keys (its ``CONFIG``).

Group members: ``"clip"`` (a clip name in the linted files), ``"file.glb"``
(a single-clip file) or ``"file.glb#clip"``; file paths are relative to the
config file's folder (:class:`MemberRef`).
"""

from __future__ import annotations

import contextlib
import fnmatch
import math
import os
import re
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Mapping, Optional, Tuple

from animsmith.errors import ConfigError, unreadable_reason
from animsmith.hints import closest, did_you_mean

DEFAULT_CONFIG_NAME = "animsmith.toml"
SEVERITY_ALIASES = {"error": "error", "warning": "warning", "warn": "warning", "note": "note"}
MEMBER_FILE_SUFFIXES = (".glb", ".gltf")


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


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


@dataclass
class GaitGroup:
    name: str
    clips: List[str]
    members: List[MemberRef]
    max_gait_phase_spread: float = 0.15
    min_lr_amplitude_m: float = 0.03
    travel_policy: Optional[str] = None
    max_speed_delta_mps: float = 0.1
    max_stride_length_delta_m: float = 0.1


@dataclass
class TimeComplement:
    min_reflected_time_advantage: float = 0.25
    min_lr_amplitude_m: float = 0.03


@dataclass
class SyncGroup:
    name: str
    clips: List[str]
    members: List[MemberRef]
    max_duration_delta_s: float = 0.001
    max_frame_count_delta: int = 0
    max_fps_delta: float = 0.01
    time_complement: Optional[TimeComplement] = None


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
    gait_groups: Dict[str, GaitGroup] = field(default_factory=dict)
    sync_groups: Dict[str, SyncGroup] = field(default_factory=dict)
    checks: Dict[str, CheckSettings] = field(default_factory=dict)
    #: ``[engine]`` (None: engine-neutral output)
    engine: Optional[EngineConfig] = None
    #: first 16 hex digits of the SHA-256 of the TOML bytes, CRLF read as LF ("" for the defaults):
    #: shards of one run must have read the same contract (``merge-results``)
    digest: str = ""

    # -- clips -------------------------------------------------------------
    def expect_for(self, clip_name: str) -> Optional[ClipExpect]:
        """Effective ``[clips.*]`` entry for ``clip_name`` (None when nothing matches).

        Matching globs are overlaid from least to most specific (specificity =
        number of literal, non-wildcard characters; ties in file order), then
        the exact-name entry.
        """
        globs = [(spec, order, expect) for spec, order, pattern, match, expect in self._globs()
                 if pattern != clip_name and match(clip_name)]
        exact = self.clips.get(clip_name)
        if not globs and exact is None:
            return None
        out = ClipExpect()
        for _, _, expect in sorted(globs, key=lambda g: (g[0], g[1])):
            out = out.overlay(expect)
        if exact is not None:
            out = out.overlay(exact)
        return out

    def _globs(self) -> list:
        """[(specificity, file order, pattern, match, expect)] of the glob entries, compiled once
        per contract (``fnmatch`` caches 32,768 patterns: past that it recompiled each one for
        every clip, minutes for a contract of 100,000 globs)."""
        cached = self.__dict__.get("_compiled_globs")
        if cached is None or cached[0] is not self.clips:
            out = []
            for order, (pattern, expect) in enumerate(self.clips.items()):
                if is_glob(pattern):
                    out.append((glob_specificity(pattern), order, pattern, re.compile(fnmatch.translate(pattern)).match, expect))
            cached = (self.clips, out)
            self.__dict__["_compiled_globs"] = cached
        return cached[1]

    def __getstate__(self):  # compiled patterns stay in this process (a worker compiles its own)
        state = dict(self.__dict__)
        state.pop("_compiled_globs", None)
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


def glob_specificity(pattern: str) -> int:
    """Literal characters in a glob (``run_*`` -> 4); more = more specific."""
    # a set counts no literal, whatever it lists (a ``]`` right after ``[`` or ``[!`` is one of its members)
    return len(re.sub(r"\[!?\]?[^\]]*\]|[*?]", "", pattern))


def default_contract() -> Contract:
    return Contract()


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def _toml():
    try:
        import tomllib  # type: ignore[import-not-found]
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib


def find_config(path: Optional[str]) -> Optional[str]:
    """The config path to load: ``path`` (``""`` too: an explicit, bad path), else
    ./animsmith.toml when anything of that name is there (a dangling link or a folder is
    then an error, not silently the defaults), else None. A ./Animsmith.toml (another
    letter case) is an error: it would be the contract on Windows and macOS only."""
    if path is not None:
        return str(path)
    # only the exact name is the contract: on Windows and macOS (case-insensitive by
    # default) lexists also finds Animsmith.toml, which Linux CI would not; a name that
    # differs in case is an error on every OS instead of a contract on some
    try:
        names = os.listdir(".")
    except OSError:  # an unreadable working directory: by name alone
        return DEFAULT_CONFIG_NAME if os.path.lexists(DEFAULT_CONFIG_NAME) else None
    if DEFAULT_CONFIG_NAME in names:
        return DEFAULT_CONFIG_NAME
    variants = sorted(n for n in names if n.casefold() == DEFAULT_CONFIG_NAME)
    if variants:
        raise ConfigError(
            f"bad config {variants[0]}: the contract is found only as '{DEFAULT_CONFIG_NAME}'; this name differs "
            "in case (Windows and macOS would read it, Linux would not): rename it, or pass --config"
        )
    return None


def load_contract(path: Optional[str] = None) -> Contract:
    """Load and validate the contract at ``path`` (see :func:`find_config`)."""
    chosen = find_config(path)
    if chosen is None:
        return default_contract()
    if not chosen:
        raise ConfigError("bad config '': empty path")
    import stat

    try:
        st = os.stat(chosen)
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block, /dev/zero never end
            raise ConfigError(f"bad config {chosen}: not a regular file")
        if st.st_size > CONFIG_MAX_BYTES:
            raise ConfigError(f"bad config {chosen}: {st.st_size} bytes; the limit is {CONFIG_MAX_BYTES}")
        with open(chosen, "rb") as fh:
            raw = fh.read(st.st_size + 1)
    except OSError as exc:
        raise ConfigError(f"bad config {chosen}: {unreadable_reason(exc)}") from None
    if len(raw) != st.st_size:  # rewritten under us (an editor, a checkout): neither version is certain
        raise ConfigError(f"bad config {chosen}: file changed while being read ({st.st_size} bytes, then {len(raw)})")
    return parse_contract(raw, chosen)


#: largest TOML contract read (a real one is a few KB)
CONFIG_MAX_BYTES = 16 * 1024 * 1024


def parse_contract(raw: bytes, path: str = "<config>", base_dir: Optional[str] = None) -> Contract:
    """Validate TOML bytes into a :class:`Contract` (``ConfigError`` on any problem).

    A leading UTF-8 byte-order mark (Windows PowerShell 5.1's ``-Encoding utf8``, older
    Notepad) is not part of the contract: it is dropped before parsing and hashing."""
    from animsmith.io.text import strip_utf8_bom

    raw = strip_utf8_bom(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"bad config {path}: not UTF-8 text") from None
    try:
        doc = _toml().loads(text)
    except Exception as exc:  # TOMLDecodeError
        raise ConfigError(f"bad config {path}: invalid TOML: {_toml_problem(exc, text)}") from None
    if base_dir is None:
        base_dir = os.path.dirname(os.path.abspath(path)) if path != "<config>" else os.getcwd()
    parser = _Parser(base_dir)
    try:
        contract = parser.contract(doc, path)
    except _Problem as exc:  # pragma: no cover - every entry is guarded; kept as a last line
        parser.problems.append(exc)
    if parser.problems:
        lines = [f"bad config {path}: {p.key}: {p.problem}" for p in parser.problems]
        raise ConfigError(lines[-1], more=lines[:-1])
    import hashlib

    contract.digest = hashlib.sha256(raw.replace(b"\r\n", b"\n")).hexdigest()[:16]  # CRLF checkouts agree
    return contract


class _Problem(Exception):
    def __init__(self, key: str, problem: str):
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


def key_part(name: str) -> str:
    """A TOML key as written in a dotted path (quoted unless bare-safe)."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else '"' + name.replace('"', '\\"') + '"'


def join_key(prefix: str, name: str) -> str:
    return f"{prefix}.{key_part(name)}" if prefix else key_part(name)


def unknown(word: str, choices, what: str = "key") -> str:
    hint = closest(word, choices)
    return f"unknown {what}" + (f" (did you mean '{hint}'?)" if hint else "")


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


def _table(value: Any, key: str) -> dict:
    if not isinstance(value, dict):
        raise _Problem(key, f"must be a table, got {_type_name(value)}")
    return value


def _toml_problem(exc: Exception, text: str) -> str:
    """The parser's complaint, in one line. A decimal integer longer than Python converts
    (4,300 digits) is named by its line, not by the interpreter's advice to raise the limit."""
    import sys

    message = " ".join(str(exc).split())
    if "integer string conversion" in message:
        limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
        where = ""
        for m in re.finditer(r"(?m)^[^#\n]*=\s*[+-]?([0-9][0-9_]*)", text):  # a value, not a comment
            if len(m.group(1).replace("_", "")) > limit:
                where = f" at line {text.count(chr(10), 0, m.start(1)) + 1}"
                break
        return f"an integer of more than {limit} digits{where}"
    return message


def _digits(n: int) -> str:
    """Decimal digits of ``n`` (exact up to ~3,900 digits; Python will not print an int past
    4,300 digits, so beyond that from its bit length, checked against a power of ten)."""
    n = abs(int(n))
    if n.bit_length() <= 13_000:
        return str(len(str(n)))
    digits = int(n.bit_length() * math.log10(2)) + 1
    if n.bit_length() > 200_000:  # a power of ten that large costs seconds: an estimate
        return f"about {digits}"
    if 10 ** (digits - 1) > n:  # the bit length overestimates by at most one digit
        digits -= 1
    return str(digits)


def bone_list(value: Any, key: str) -> List[str]:
    """A list of bone names: non-empty strings, each kept once (in order)."""
    names = validate_value(value, "list", key)
    if any(not n for n in names):
        raise _Problem(key, "must list non-empty bone names")
    return list(dict.fromkeys(names))


#: largest integer a contract value may hold (2^53: exact as a float, which checks compare it with)
MAX_CONFIG_INTEGER = 2**53


def validate_value(value: Any, kind: str, key: str, *, minimum=None, maximum=None, choices=None) -> Any:
    """Type/range-check one value; returns it normalised (numbers as float)."""
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _Problem(key, f"must be a number, got {_type_name(value)}")
        try:
            value = float(value)
        except OverflowError:  # TOML integers have no size limit
            raise _Problem(key, f"must be a finite number, got an integer of {_digits(value)} digits") from None
        if not math.isfinite(value):
            raise _Problem(key, "must be a finite number")
    elif kind == "integer":
        given = value
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and math.isfinite(value) and value.is_integer():
                value = int(value)
            else:
                raise _Problem(key, f"must be an integer, got {_type_name(value)}")
        if abs(value) > MAX_CONFIG_INTEGER:  # compared with float measurements: keep it exact
            shown = f"{given!r}" if isinstance(given, float) else f"an integer of {_digits(value)} digits"
            raise _Problem(key, f"must be at most {MAX_CONFIG_INTEGER} in magnitude, got {shown}")
    elif kind == "bool":
        if not isinstance(value, bool):
            raise _Problem(key, f"must be true or false, got {_type_name(value)}")
    elif kind == "string":
        if not isinstance(value, str):
            raise _Problem(key, f"must be a string, got {_type_name(value)}")
    elif kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _Problem(key, "must be a list of strings")
    if kind == "positive":  # a rate: 0 is no frame rate at all
        value = validate_value(value, "number", key)
        if value <= 0:
            raise _Problem(key, f"must be > 0, got {value:g}")
    if kind in ("number", "integer"):
        if minimum is not None and value < minimum:
            raise _Problem(key, f"must be ≥ {minimum:g}, got {value:g}")
        if maximum is not None and value > maximum:
            raise _Problem(key, f"must be ≤ {maximum:g}, got {value:g}")
    if choices is not None and value not in choices:
        hint = closest(str(value), choices)
        extra = f" (did you mean '{hint}'?)" if hint else ""
        raise _Problem(key, f"must be one of {', '.join(repr(c) for c in choices)}, got {value!r}{extra}")
    return value


# name -> (kind, minimum, maximum, choices)
CLIP_KEYS: Dict[str, Tuple[str, Optional[float], Optional[float], Optional[Tuple[str, ...]]]] = {
    "loop": ("bool", None, None, None),
    "fps": ("positive", None, None, None),
    "duration_s": ("number", 0.0, None, None),
    "duration_tolerance_s": ("number", 0.0, None, None),
    "speed_mps": ("number", 0.0, None, None),
    "speed_tolerance_mps": ("number", 0.0, None, None),
    "movement_owner_xz": ("string", None, None, ("gameplay", "animation")),
    "animates_bones": ("list", None, None, None),
    "max_loop_position_delta_m": ("number", 0.0, None, None),
    "max_loop_rotation_delta_deg": ("number", 0.0, None, None),
    "max_loop_velocity_delta_mps": ("number", 0.0, None, None),
    "max_loop_angular_velocity_delta_degps": ("number", 0.0, None, None),
}

GAIT_GROUP_KEYS = {
    "clips": ("list", None, None, None),
    "max_gait_phase_spread": ("number", 0.0, 0.5, None),
    "min_lr_amplitude_m": ("number", 0.0, None, None),
    "travel_policy": ("string", None, None, ("uniform", "pinned", "accepted")),
    "max_speed_delta_mps": ("number", 0.0, None, None),
    "max_stride_length_delta_m": ("number", 0.0, None, None),
}
SYNC_GROUP_KEYS = {
    "clips": ("list", None, None, None),
    "max_duration_delta_s": ("number", 0.0, None, None),
    "max_frame_count_delta": ("integer", 0, None, None),
    "max_fps_delta": ("number", 0.0, None, None),
}
TIME_COMPLEMENT_KEYS = {
    "min_reflected_time_advantage": ("number", 0.0, 1.0, None),
    "min_lr_amplitude_m": ("number", 0.0, None, None),
}
TOP_KEYS = ("rig", "clips", "gait_groups", "sync_groups", "engine", "checks")
ENGINE_KEYS = ("profile", "version")
RIG_KEYS = ("profile", "roles", "required_bones", "units", "legs")
LEG_KEYS = ("foot", "side", "pair", "toe")


def parse_member(label: str, base_dir: str, key: str) -> MemberRef:
    """``clip`` | ``file.glb`` | ``file.glb#clip`` -> MemberRef (file made absolute)."""
    if not label:
        raise _Problem(key, "member names must not be empty")
    file_part, sep, clip = label.partition("#")
    if sep and not file_part.lower().endswith(MEMBER_FILE_SUFFIXES) and not any(c in file_part for c in "./\\"):
        return MemberRef(label=label, clip=label)  # a bare clip name with '#' (the loader's "walk#1" for a duplicate)
    if sep or file_part.lower().endswith(MEMBER_FILE_SUFFIXES):
        if not file_part.lower().endswith(MEMBER_FILE_SUFFIXES):
            raise _Problem(key, f"member '{label}': the part before '#' must be a .glb or .gltf file")
        if sep and not clip:
            raise _Problem(key, f"member '{label}': empty clip name after '#'")
        path = os.path.normpath(os.path.join(base_dir, file_part))
        return MemberRef(label=label, file=path, clip=clip if sep else None)
    return MemberRef(label=label, clip=label)


class _Parser:
    """Builds a :class:`Contract`, recording every problem (``problems``) and going on
    with the next key or entry, so one run reports all of a file's mistakes."""

    def __init__(self, base_dir: str):
        self.base_dir = base_dir
        self.problems: List[_Problem] = []

    @contextlib.contextmanager
    def each(self):
        """Record a problem raised inside and carry on after the block."""
        try:
            yield
        except _Problem as exc:
            self.problems.append(exc)

    def known(self, table: Mapping[str, Any], allowed, prefix: str) -> Dict[str, Any]:
        """``table`` without its unknown keys, each recorded as a problem."""
        out = {}
        for k, v in table.items():
            if k in allowed:
                out[k] = v
            else:
                self.problems.append(_Problem(join_key(prefix, k), unknown(k, allowed)))
        return out

    def fill(self, target: Any, table: Mapping[str, Any], spec: Mapping[str, tuple], prefix: str) -> None:
        """Validate each (known) key of ``table`` by ``spec`` into ``target``'s attributes."""
        for k, v in table.items():
            kind, lo, hi, choices = spec[k]
            with self.each():
                setattr(target, k, validate_value(v, kind, join_key(prefix, k), minimum=lo, maximum=hi, choices=choices))

    def entries(self, doc: Mapping[str, Any], name: str) -> Dict[str, Any]:
        """The sub-tables of top-level table ``name`` ({} when absent or not a table)."""
        with self.each():
            return dict(_table(doc.get(name, {}), name))
        return {}

    def contract(self, doc: Mapping[str, Any], path: str) -> Contract:
        misplaced = [k for k in doc if k not in TOP_KEYS and k in CLIP_KEYS]  # `loop = true` at the top
        for k in misplaced:
            self.problems.append(_Problem(key_part(k), f"unknown key: a clip's {k} goes in a [clips.\"<name or glob>\"] table"))
        doc = self.known({k: v for k, v in doc.items() if k not in misplaced}, TOP_KEYS, "")
        c = Contract(path=path, base_dir=self.base_dir)
        if "rig" in doc:
            with self.each():
                c.rig = self.rig(_table(doc["rig"], "rig"))
        for table, build, into in (
            ("clips", self.clip, c.clips),
            ("gait_groups", self.gait_group, c.gait_groups),
            ("sync_groups", self.sync_group, c.sync_groups),
        ):
            for name, entry in self.entries(doc, table).items():
                with self.each():
                    into[name] = build(name, entry)
        if "engine" in doc:
            with self.each():
                c.engine = self.engine(_table(doc["engine"], "engine"))
        c.checks = self.checks(self.entries(doc, "checks"))
        return c

    def engine(self, table: Mapping[str, Any]) -> Optional[EngineConfig]:
        """``[engine]``: a known ``profile`` (required) and, optionally, one of its versions."""
        from animsmith.engine import PROFILES

        table = self.known(table, ENGINE_KEYS, "engine")
        if "profile" not in table:
            raise _Problem("engine.profile", f"missing required key (one of: {', '.join(PROFILES)})")
        profile = validate_value(table["profile"], "string", "engine.profile")
        if profile not in PROFILES:
            hint = did_you_mean(profile, PROFILES) or f" (one of: {', '.join(PROFILES)})"
            raise _Problem("engine.profile", f"unknown engine profile {profile!r}{hint}")
        known = PROFILES[profile].versions
        version = known[0]
        if "version" in table:
            version = validate_value(table["version"], "string", "engine.version")
            if version not in known:
                raise _Problem(
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
                    raise _Problem("rig.profile", f"unknown rig profile {profile!r}{hint}")
                rig.profile = profile
        roles: Mapping[str, Any] = {}
        with self.each():
            roles = _table(table.get("roles", {}), "rig.roles")
        for role in roles:  # the table's unknown keys before its bad values, as everywhere
            if role not in ROLES:
                self.problems.append(_Problem(join_key("rig.roles", role), unknown(role, ROLES, "role") + f"; roles: {', '.join(ROLES)}"))
        for role, bone in roles.items():
            key = join_key("rig.roles", role)
            if role not in ROLES:
                continue
            with self.each():
                bone = validate_value(bone, "string", key)
                if not bone:
                    raise _Problem(key, "must be a non-empty bone name")
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
                    raise _Problem("rig.units", str(exc)) from None
                rig.units = table["units"]
        if "legs" in table:
            with self.each():
                rig.legs = self.legs(_table(table["legs"], "rig.legs"))
        return rig

    def legs(self, table: Mapping[str, Any]) -> List[Dict[str, Any]]:
        """``[rig.legs]``: {leg name: {foot, side, pair, toe?}} -> validated entries
        (``core.legs.validate_leg_table``: both sides of every pair, pairs 0, 1, ...)."""
        from animsmith.core.legs import validate_leg_table

        entries = []
        for name, entry in table.items():
            key = join_key("rig.legs", name)
            leg = self.known(_table(entry, key), LEG_KEYS, key)
            for k in ("foot", "side"):
                if k not in leg:
                    raise _Problem(key, f"missing {k!r} (a leg needs foot and side; pair defaults to 0)")
            entries.append(dict(leg, name=name))
        try:
            return validate_leg_table(entries, "rig.legs")
        except ValueError as exc:
            text = str(exc)
            for i, e in enumerate(entries):  # name the leg by its key, not its index
                text = text.replace(f"rig.legs[{i}].", join_key("rig.legs", e["name"]) + ".")
            key, _, problem = text.partition(": ")
            raise _Problem(key, problem) from None

    def clip(self, pattern: str, entry: Any) -> ClipExpect:
        prefix = join_key("clips", pattern)
        if pattern in CLIP_KEYS and not isinstance(entry, dict):  # `[clips]` then `loop = true`
            raise _Problem(prefix, f"must be a table, got {_type_name(entry)}: clip keys go in a "
                           f"[clips.\"<name or glob>\"] table, not [clips] itself")
        table = self.known(_table(entry, prefix), CLIP_KEYS, prefix)
        expect = ClipExpect()
        self.fill(expect, table, CLIP_KEYS, prefix)
        if expect.animates_bones is not None:
            with self.each():
                expect.animates_bones = bone_list(expect.animates_bones, join_key(prefix, "animates_bones"))
        return expect

    def members(self, clips: List[str], prefix: str) -> List[MemberRef]:
        key = join_key(prefix, "clips")
        if not clips:
            raise _Problem(key, "must list at least one member")
        refs = []
        for label in clips:  # every bad member of the list, not only the first
            with self.each():
                refs.append(parse_member(label, self.base_dir, key))
        return refs

    def _group(self, group, name: str, entry: Any, table_name: str, spec: Mapping[str, tuple], extra=()):
        """Known keys of a group entry filled into ``group``; its members parsed. Returns the table."""
        prefix = join_key(table_name, name)
        table = self.known(_table(entry, prefix), tuple(spec) + tuple(extra), prefix)
        if "clips" not in table:  # recorded; the entry's other keys are still checked
            self.problems.append(_Problem(join_key(prefix, "clips"), "missing required key"))
            self.fill(group, {k: v for k, v in table.items() if k in spec}, spec, prefix)
            return table
        before = len(self.problems)
        self.fill(group, {k: v for k, v in table.items() if k in spec}, spec, prefix)
        clips_key = join_key(prefix, "clips")
        if all(p.key != clips_key for p in self.problems[before:]):  # members of a valid list only
            with self.each():
                group.members = self.members(group.clips, prefix)
        return table

    def gait_group(self, name: str, entry: Any) -> GaitGroup:
        g = GaitGroup(name=name, clips=[], members=[])
        self._group(g, name, entry, "gait_groups", GAIT_GROUP_KEYS)
        return g

    def sync_group(self, name: str, entry: Any) -> SyncGroup:
        g = SyncGroup(name=name, clips=[], members=[])
        table = self._group(g, name, entry, "sync_groups", SYNC_GROUP_KEYS, ("time_complement",))
        tc_raw = table.get("time_complement")
        if tc_raw is not None:
            tprefix = join_key(join_key("sync_groups", name), "time_complement")
            with self.each():
                tc_table = self.known(_table(tc_raw, tprefix), TIME_COMPLEMENT_KEYS, tprefix)
                tc = TimeComplement()
                self.fill(tc, tc_table, TIME_COMPLEMENT_KEYS, tprefix)
                g.time_complement = tc
        return g

    def checks(self, table: Mapping[str, Any]) -> Dict[str, CheckSettings]:
        from animsmith.checks import registry

        specs = registry()
        out: Dict[str, CheckSettings] = {}
        for check_id, entry in table.items():
            prefix = join_key("checks", check_id)
            with self.each():
                if check_id not in specs:
                    raise _Problem(prefix, unknown(check_id, specs, "check id"))
                out[check_id] = self.check_settings(specs[check_id], _table(entry, prefix), prefix)
        return out

    def check_settings(self, spec, table: Mapping[str, Any], prefix: str) -> CheckSettings:
        if spec.group_table:  # a group's caps belong to its own table: say where, not only "unknown key"
            group_keys = {"gait_groups": GAIT_GROUP_KEYS, "sync_groups": SYNC_GROUP_KEYS}[spec.group_table]
            where = TIME_COMPLEMENT_KEYS if spec.arming_key == "time_complement" else group_keys
            tbl = f"[{spec.group_table}.<name>" + (f".{spec.arming_key}]" if spec.arming_key else "]")
            misplaced = [k for k in table if k in where and k not in spec.config and k != "clips"]
            for k in misplaced:
                self.problems.append(_Problem(join_key(prefix, k), f"unknown key: a group's {k} goes in its {tbl} table"))
            table = {k: v for k, v in table.items() if k not in misplaced}
        table = self.known(table, ("enabled", "severity") + tuple(spec.config), prefix)
        s = CheckSettings()
        if table.get("severity") == "off" and table.get("enabled") is True:  # whichever came last must not win
            self.problems.append(_Problem(join_key(prefix, "enabled"), "true contradicts severity = \"off\" (which means enabled = false)"))
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
                        raise _Problem(
                            key, f"must be one of 'error', 'warning', 'note', 'off', got {sev!r}" + did_you_mean(sev, SEVERITY_ALIASES)
                        )
                else:
                    opt = spec.config[k]
                    s.options[k] = validate_value(
                        v, opt.type, key, minimum=opt.minimum, maximum=opt.maximum, choices=opt.choices
                    )
        return s


#: alias used by ``measure`` / ``inspect``
load_config = load_contract


# ---------------------------------------------------------------------------
# Group-table keys, for `animsmith checks ID` and docs/checks.md
# ---------------------------------------------------------------------------

GROUP_KEY_DOCS = {
    "clips": "Members: a clip name, \"file.glb\" or \"file.glb#clip\" (paths relative to the config).",
    "max_gait_phase_spread": "Largest allowed circular distance (cycles) of a member's stride anchor from the circular mean.",
    "min_lr_amplitude_m": "Members whose left-right foot-height swing is below this are coverage gaps (exactly at it counts).",
    "travel_policy": "How members' travel is judged: \"uniform\" (equal speed and stride length), \"pinned\" "
    "(each member's measured speed against its [clips.*] speed_mps) or \"accepted\" (recorded only).",
    "max_speed_delta_mps": "uniform: allowed spread of member speeds (m/s); pinned: the tolerance of a pin without speed_tolerance_mps; "
    "without a policy: the spread above which a note lists the members' travel.",
    "max_stride_length_delta_m": "uniform: allowed spread of member stride lengths (m) (speed × duration ÷ strides); "
    "without a policy: the spread above which a note lists the members' travel.",
    "max_duration_delta_s": "Allowed duration spread (max − min), seconds.",
    "max_frame_count_delta": "Allowed spread of authored key counts.",
    "max_fps_delta": "Allowed fps spread (declared fps, else authored (keys − 1)/duration).",
    "min_reflected_time_advantage": "Warn when reflected-time similarity beats same-time similarity by more than this.",
}


def group_table_keys(check_id: str):
    """(table header, [(key, type, default, range text, doc)]) of the group table a check reads, or None."""
    tables = {
        "gait-group": ("[gait_groups.<name>]", GAIT_GROUP_KEYS, GaitGroup(name="", clips=[], members=[])),
        "sync-group": ("[sync_groups.<name>]", SYNC_GROUP_KEYS, SyncGroup(name="", clips=[], members=[])),
        "time-complement": ("[sync_groups.<name>.time_complement]", TIME_COMPLEMENT_KEYS, TimeComplement()),
    }
    if check_id not in tables:
        return None
    header, spec, defaults = tables[check_id]
    rows = []
    for key, (kind, lo, hi, choices) in spec.items():
        default = None if key == "clips" else getattr(defaults, key)
        rng = ", ".join(p for p in ((f"≥ {lo:g}" if lo is not None else ""), (f"≤ {hi:g}" if hi is not None else "")) if p)
        if choices:
            rng = "one of " + ", ".join(f"\"{c}\"" for c in choices)
        rows.append((key, kind, default, rng, GROUP_KEY_DOCS[key]))
    return header, rows
