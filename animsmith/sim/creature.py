"""Gait as data: creature files (TOML or JSON) and the built-in catalog.

Schema (metres, cycles; body frame: +X left, +Y up, +Z forward, origin on the
ground under the body):

```toml
name = "fox"
stride = 0.15        # how far a planted foot sweeps back per stance (= body travel per stance)
duty = 0.7           # share of the cycle a foot is on the ground
lift = 0.035         # swing apex height
clip_speed = 0.375   # speed (m/s) the baked clip is authored at
body_height = 0.19   # hip height above the ground at rest (optional, default: 0.85 × the shortest leg reach, or legs[0] hip − home when it sets hip)
bob = 0.004          # body bob amplitude (optional, default 0)
roll_deg = 0.0       # biped roll over the stance leg (optional, default 0)
naming = "generic"   # "generic" (<leg>_seg<i>, <leg>_foot) or "mixamo" (bipeds: Hips, LeftUpLeg...)
gait = "walk"        # optional: the pattern the phases make (core.gait.GAIT_PATTERNS), what measure reports

[[legs]]
name = "leg_0"
side = "L"           # L | R | C
phase = 0.75         # offset in the cycle, [0, 1)
knee = "forward"     # forward | back | up
segments = [0.11, 0.12]   # two = two-bone IK; three or more = FABRIK ("upper"/"lower" also accepted)
home = [0.048, 0, 0.155]  # foot at mid-stance, body frame
hip = [0.048, 0.19, 0.155] # optional mount point (default [home.x, home.y + body_height, home.z])
```

JSON files use the same keys; Gaitkit's ``"segments": [...]`` list of legs is
accepted in place of ``"legs"``. Errors are :class:`~animsmith.errors.AnimsmithError`
naming the file and the key.

Limits (docs/sim.md, "Limits and errors"; the constants below): a regular
file of at most 1 MiB of UTF-8; at most 64 legs, 64 segments per leg and 256
bones; lengths and coordinates within 100 m (stride, body_height and segments
at least 1 mm); duty in [0.01, 0.99]; clip_speed in [0.001, 100] m/s; names of
at most 128 characters without control characters. Values quoted in errors
are short and escaped (:func:`_show`).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from animsmith.errors import AnimsmithError, unreadable_reason

CATALOG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "catalog")
CATALOG_ORDER = ("biped", "fox", "trotter", "beetle", "spider")
KNEES = ("forward", "back", "up")
SIDES = ("L", "R", "C")
NAMINGS = ("generic", "mixamo")


@dataclass
class Leg:
    name: str
    side: str
    phase: float
    knee: str
    segments: Tuple[float, ...]
    home: Tuple[float, float, float]
    hip: Tuple[float, float, float]

    @property
    def reach_m(self) -> float:
        return float(sum(self.segments))

    @property
    def two_bone(self) -> bool:
        return len(self.segments) == 2


@dataclass
class Creature:
    name: str
    stride: float
    duty: float
    lift: float
    clip_speed: float
    legs: List[Leg]
    body_height: float
    bob: float = 0.0
    roll_deg: float = 0.0
    naming: str = "generic"
    description: str = ""
    #: the gait pattern the legs' phases make (``core.gait.GAIT_PATTERNS``), when declared
    gait: Optional[str] = None
    source: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    @property
    def cycle_m(self) -> float:
        """Metres per full gait cycle: stride / duty."""
        return self.stride / self.duty

    def leg_names(self) -> List[str]:
        return [leg.name for leg in self.legs]

    def to_json(self) -> Dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "stride": self.stride,
            "duty": self.duty,
            "lift": self.lift,
            "clip_speed": self.clip_speed,
            "body_height": self.body_height,
            "bob": self.bob,
            "roll_deg": self.roll_deg,
            "naming": self.naming,
            "gait": self.gait,
            "cycle_m": self.cycle_m,
            "legs": [
                {
                    "name": leg.name,
                    "side": leg.side,
                    "phase": leg.phase,
                    "knee": leg.knee,
                    "segments": list(leg.segments),
                    "home": list(leg.home),
                    "hip": list(leg.hip),
                    "solver": "two-bone" if leg.two_bone else "fabrik",
                }
                for leg in self.legs
            ],
        }


# --------------------------------------------------------------------------
# Limits (docs/sim.md, "Limits and errors"): generous next to the catalog (at most 8
# legs of 3 segments, body heights 0.035-0.8 m, speeds 0.15-1.4 m/s), tight
# enough that no creature file can make a walk overflow or run away in time
# or memory.
# --------------------------------------------------------------------------

#: largest creature file read (a real one is a few KB)
MAX_FILE_BYTES = 1 << 20
MAX_LEGS = 64
#: segments per leg
MAX_SEGMENTS = 64
#: bones of the baked skeleton: the body, plus per leg its segments and a foot
MAX_BONES = 256
#: creature and leg names (they become bone names and are printed)
MAX_NAME_CHARS = 128
#: stride, body_height and every segment length are at least this (1 mm)
MIN_LENGTH_M = 1e-3
#: every length and coordinate (stride, lift, body_height, bob, segments, home, hip)
MAX_LENGTH_M = 100.0
MIN_DUTY, MAX_DUTY = 0.01, 0.99
MIN_SPEED_MPS, MAX_SPEED_MPS = 1e-3, 100.0
MAX_ROLL_DEG = 45.0
#: longest excerpt of a string value quoted in an error message
SHOWN_CHARS = 40


def _err(reason: str, path: Optional[str]) -> AnimsmithError:
    """An error naming ``path`` with its control characters escaped (one line)."""
    from animsmith.text import escape

    return AnimsmithError(reason, None if path is None else escape(path))


def creature_label(creature: "Creature") -> str:
    """What errors about ``creature`` name: its file, else its name."""
    return creature.source or creature.name


def _show(v: Any) -> str:
    """A short, one-line, escaped rendering of a value from a creature file.

    Numbers with ``:g`` (never hundreds of digits), strings quoted, escaped
    and cut at :data:`SHOWN_CHARS`, containers by kind and size.
    """
    from animsmith.text import escape

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        if -(10**15) < v < 10**15:
            return str(v)
        try:
            return f"{float(v):g}"
        except OverflowError:
            return "an integer beyond the float range"
    if isinstance(v, float):
        return number_text(v)
    if isinstance(v, str):
        cut = escape(v[:SHOWN_CHARS]) + ("..." if len(v) > SHOWN_CHARS else "")
        return f"'{cut}'"
    if isinstance(v, (list, tuple)):
        return f"a list of {len(v)} item{'s' if len(v) != 1 else ''}"
    if isinstance(v, dict):
        return "a table"
    return f"a {type(v).__name__}"


def number_text(v: float) -> str:
    """``v`` with ``:g`` (never hundreds of digits), or its shortest exact form when ``:g``
    rounds it (100.0001 is not shown as 100 next to "needs <= 100")."""
    text = f"{v:g}"
    try:
        return text if float(text) == v or v != v else repr(float(v))
    except (ValueError, OverflowError):
        return text


def _range_text(lo: float, hi: float, lo_open: bool, hi_open: bool) -> str:
    parts = []
    if lo > -math.inf:
        parts.append(f"{'>' if lo_open else '>='} {lo:g}")
    if hi < math.inf:
        parts.append(f"{'<' if hi_open else '<='} {hi:g}")
    return " and ".join(parts)


def _number(v: Any, what: str, path: str, *, lo: float = -math.inf, hi: float = math.inf, lo_open: bool = False, hi_open: bool = False) -> float:
    """``v`` as a float within the bounds, else an error naming ``what``."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        raise _err(f"{what}: expected a finite number, got {_show(v)}", path)
    try:
        f = float(v)
    except OverflowError:  # an integer beyond the float range
        f = math.inf if v > 0 else -math.inf
    if not math.isfinite(f) or f < lo or f > hi or (lo_open and f == lo) or (hi_open and f == hi):
        raise _err(f"{what}: {_show(v)} out of range (needs {_range_text(lo, hi, lo_open, hi_open)})", path)
    return f


def _num(doc: dict, key: str, where: str, path: str, *, default: Any = None, **bounds: Any) -> float:
    if key not in doc:
        if default is None:
            raise _err(f"{where}{key}: missing", path)
        return float(default)
    return _number(doc[key], f"{where}{key}", path, **bounds)


def _length(doc: dict, key: str, where: str, path: str, **kw: Any) -> float:
    """A length in [MIN_LENGTH_M, MAX_LENGTH_M]."""
    return _num(doc, key, where, path, lo=MIN_LENGTH_M, hi=MAX_LENGTH_M, **kw)


def _name(v: Any, what: str, path: str) -> str:
    """A non-empty printable name of at most MAX_NAME_CHARS characters."""
    from animsmith.text import escape

    if not isinstance(v, str) or not v:
        raise _err(f"{what}: expected a non-empty string, got {_show(v)}", path)
    if len(v) > MAX_NAME_CHARS:
        raise _err(f"{what}: {len(v)} characters; the limit is {MAX_NAME_CHARS}", path)
    for ch in v:
        if escape(ch) != ch:
            raise _err(f"{what}: control character U+{ord(ch):04X} in {_show(v)}", path)
    return v


def _choice(v: Any, choices: Sequence[str], what: str, path: str) -> str:
    if not isinstance(v, str) or v not in choices:
        raise _err(f"{what}: expected one of {', '.join(choices)}, got {_show(v)}", path)
    return v


def _vec3(v: Any, what: str, path: str) -> Tuple[float, float, float]:
    if not isinstance(v, (list, tuple)) or len(v) != 3:
        raise _err(f"{what}: expected [x, y, z] of finite numbers, got {_show(v)}", path)
    x, y, z = (_number(c, f"{what}[{k}]", path, lo=-MAX_LENGTH_M, hi=MAX_LENGTH_M) for k, c in enumerate(v))
    return x, y, z


#: the keys a leg may have (Gaitkit's JSON uses upper/lower instead of segments)
LEG_KEYS = frozenset({"name", "side", "phase", "knee", "segments", "upper", "lower", "home", "hip"})


def _leg(doc: Any, i: int, body_height: Optional[float], path: str) -> Leg:
    where = f"legs[{i}]."
    if not isinstance(doc, dict):
        raise _err(f"legs[{i}]: expected a table, got {_show(doc)}", path)
    unknown = sorted(str(k) for k in set(doc) - LEG_KEYS)
    if unknown:  # a misspelt "knee" or "hip" would silently take its default
        raise _err(f"{where[:-1]}: unknown key {_show(unknown[0])} (expected one of {', '.join(sorted(LEG_KEYS))})", path)
    name = _name(doc.get("name", f"leg_{i}"), f"{where}name", path)
    side = _choice(doc.get("side", "C"), SIDES, f"{where}side", path)
    knee = _choice(doc.get("knee", "back"), KNEES, f"{where}knee", path)
    phase = _num(doc, "phase", where, path, lo=0.0, hi=1.0)
    if "segments" in doc:
        seg = doc["segments"]
        if not isinstance(seg, (list, tuple)) or len(seg) < 2:
            raise _err(f"{where}segments: expected a list of two or more lengths, got {_show(seg)}", path)
        if len(seg) > MAX_SEGMENTS:
            raise _err(f"{where}segments: {len(seg)} segments; the limit is {MAX_SEGMENTS} per leg", path)
        segments = tuple(_number(s, f"{where}segments[{j}]", path, lo=MIN_LENGTH_M, hi=MAX_LENGTH_M) for j, s in enumerate(seg))
    else:
        segments = (_length(doc, "upper", where, path), _length(doc, "lower", where, path))
    if "home" not in doc:
        raise _err(f"{where}home: missing", path)
    home = _vec3(doc["home"], f"{where}home", path)
    if "hip" in doc:
        hip = _vec3(doc["hip"], f"{where}hip", path)
    else:
        h = body_height if body_height is not None else 0.85 * sum(segments)
        hip = (home[0], home[1] + h, home[2])
    return Leg(name=name, side=side, phase=phase % 1.0, knee=knee, segments=segments, home=home, hip=hip)


def creature_from_dict(doc: Any, path: str = "<creature>") -> Creature:
    """Validate a parsed creature document (module docstring schema; limits above)."""
    if not isinstance(doc, dict):
        raise _err("creature file must hold a table/object", path)
    known = {"name", "description", "stride", "duty", "lift", "clip_speed", "body_height", "bob", "roll_deg", "naming", "gait", "legs", "segments"}
    unknown = sorted(str(k) for k in set(doc) - known)
    if unknown:
        raise _err(f"unknown key {_show(unknown[0])} (expected one of {', '.join(sorted(known))})", path)
    raw_name = doc.get("name")
    if raw_name is None or raw_name == "":
        name = _name(os.path.splitext(os.path.basename(path))[0], "name (from the file name)", path)
    else:
        name = _name(raw_name, "name", path)
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise _err(f"description: expected a string, got {_show(description)}", path)
    stride = _length(doc, "stride", "", path)
    duty = _num(doc, "duty", "", path, lo=MIN_DUTY, hi=MAX_DUTY)
    lift = _num(doc, "lift", "", path, lo=0.0, hi=MAX_LENGTH_M)
    clip_speed = _num(doc, "clip_speed", "", path, lo=MIN_SPEED_MPS, hi=MAX_SPEED_MPS)
    body_height = _length(doc, "body_height", "", path) if "body_height" in doc else None
    bob = _num(doc, "bob", "", path, default=0.0, lo=0.0, hi=MAX_LENGTH_M)
    roll_deg = _num(doc, "roll_deg", "", path, default=0.0, lo=-MAX_ROLL_DEG, hi=MAX_ROLL_DEG)
    legs_doc = doc.get("legs", doc.get("segments"))
    if not isinstance(legs_doc, list) or not legs_doc:
        raise _err(f"legs: expected a non-empty list of legs, got {_show(legs_doc)}", path)
    if len(legs_doc) > MAX_LEGS:
        raise _err(f"legs: {len(legs_doc)} legs; the limit is {MAX_LEGS}", path)
    # without body_height: the first leg's own hip decides it when it sets one, else 0.85 x
    # the shortest leg's reach, and every default hip is mounted at that one height (each
    # leg's own reach put a fox's longer hind hips 3 cm above the body; the first leg's reach
    # left shorter legs unable to reach the ground when a longer one came first)
    shared_height = body_height
    if shared_height is None and not (isinstance(legs_doc[0], dict) and "hip" in legs_doc[0]):
        reaches = [sum(_leg(d, i, 1.0, path).segments) for i, d in enumerate(legs_doc)]
        shared_height = 0.85 * min(reaches)
    first = _leg(legs_doc[0], 0, shared_height, path)
    if shared_height is None:
        shared_height = first.hip[1] - first.home[1]
    legs = [first] + [_leg(d, i, shared_height, path) for i, d in enumerate(legs_doc) if i > 0]
    bones = 1 + sum(len(leg.segments) + 1 for leg in legs)
    if bones > MAX_BONES:
        raise _err(f"legs: {bones} bones (the body, plus per leg its segments and a foot); the limit is {MAX_BONES}", path)
    names = [leg.name for leg in legs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise _err(f"legs: duplicate leg name {_show(dup[0])}", path)
    naming = _choice(doc.get("naming", "generic"), NAMINGS, "naming", path)
    gait = None
    if "gait" in doc:
        from animsmith.core.gait import GAIT_PATTERNS

        gait = _choice(doc["gait"], GAIT_PATTERNS, "gait", path)
    if naming == "mixamo" and sorted(leg.side for leg in legs) != ["L", "R"]:
        raise _err("naming: 'mixamo' needs exactly one L and one R leg", path)
    if body_height is None:
        body_height = legs[0].hip[1] - legs[0].home[1]
        if not MIN_LENGTH_M <= body_height <= MAX_LENGTH_M:
            raise _err(
                f"body_height: not set, and legs[0] hip - home gives {body_height + 0.0:g} "
                f"(needs {_range_text(MIN_LENGTH_M, MAX_LENGTH_M, False, False)}); set body_height",
                path,
            )
    return Creature(
        name=name,
        stride=stride,
        duty=duty,
        lift=lift,
        clip_speed=clip_speed,
        legs=legs,
        body_height=body_height,
        bob=bob,
        roll_deg=roll_deg,
        naming=naming,
        description=description,
        gait=gait,
        source=path,
    )


def parse_creature(raw: bytes, path: str = "<creature>") -> Creature:
    """Validate the bytes of a ``.json`` (by ``path``'s suffix) or ``.toml`` creature file
    (a leading UTF-8 byte-order mark ignored)."""
    from animsmith.io.text import exceeds_depth, strip_utf8_bom

    raw = strip_utf8_bom(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _err("not UTF-8 text", path) from None
    is_json = path.lower().endswith(".json")
    kind = "JSON" if is_json else "TOML"
    if is_json:
        if exceeds_depth(raw):  # one limit, whatever depth this Python's decoder reaches
            raise _err("invalid JSON: nested too deeply", path)
    try:
        if is_json:
            doc = json.loads(text)
        else:
            try:
                import tomllib  # type: ignore[import-not-found]
            except ImportError:  # pragma: no cover
                import tomli as tomllib  # type: ignore[no-redef]
            doc = tomllib.loads(text)
    except RecursionError:
        raise _err(f"invalid {kind}: nested too deeply", path) from None
    except ValueError as exc:  # JSONDecodeError, TOMLDecodeError, an over-long integer
        raise _err(f"invalid {kind}: {exc}", path) from None
    try:
        return creature_from_dict(doc, path)
    except RecursionError:  # pragma: no cover - nothing recurses into values; kept as a last line
        raise _err("nested too deeply", path) from None


def load_creature(path: str) -> Creature:
    """Read a ``.toml`` or ``.json`` creature file (a regular file of at most MAX_FILE_BYTES)."""
    import stat

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block, /dev/zero never end
            raise _err("not a regular file", path)
        if st.st_size > MAX_FILE_BYTES:
            raise _err(f"{st.st_size} bytes; the limit for a creature file is {MAX_FILE_BYTES}", path)
        # O_NONBLOCK: should the path turn into a FIFO after the stat, opening it cannot block
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise _err("not a regular file", path)
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise _err(unreadable_reason(exc), path) from None
    if len(raw) > MAX_FILE_BYTES:
        raise _err(f"over {MAX_FILE_BYTES} bytes; the limit for a creature file", path)
    return parse_creature(raw, path)


@contextlib.contextmanager
def creature_errors(creature: "Creature", doing: str = "simulate"):
    """Turn arithmetic failures while working on ``creature`` into a named one-line error."""
    try:
        yield
    except AnimsmithError as exc:
        if exc.path is None:
            from animsmith.text import escape

            exc.with_path(escape(creature_label(creature)))
        raise
    except (ArithmeticError, ValueError) as exc:  # OverflowError, ZeroDivisionError, LinAlgError...
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise _err(f"cannot {doing} creature {_show(creature.name)}: {type(exc).__name__}: {reason}", creature_label(creature)) from None


def catalog_creature(name: str) -> Creature:
    """A built-in creature by name (AnimsmithError naming the choices when unknown)."""
    if name not in CATALOG_ORDER:
        raise AnimsmithError(f"unknown creature {_show(name)} (built-in: {', '.join(CATALOG_ORDER)}; or give a .toml/.json path)")
    return load_creature(os.path.join(CATALOG_DIR, f"{name}.toml"))


def resolve_creature(name_or_path: str) -> Creature:
    """A catalog name, or a path to a creature file (a ``.toml``/``.json`` name, or any
    name with a folder separator: ``/`` everywhere, and ``\\`` too on Windows)."""
    if name_or_path in CATALOG_ORDER:
        return catalog_creature(name_or_path)
    seps = {"/", os.sep, os.altsep} - {None}
    if name_or_path.lower().endswith((".toml", ".json")) or any(s in name_or_path for s in seps):
        return load_creature(name_or_path)
    return catalog_creature(name_or_path)


def load_catalog(names: Optional[Sequence[str]] = None) -> List[Creature]:
    return [resolve_creature(n) for n in (names or CATALOG_ORDER)]
