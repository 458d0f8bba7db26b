"""Gait as data: creature files (TOML or JSON) and the built-in catalog.

Schema (metres, cycles; body frame: +X left, +Y up, +Z forward, origin on the
ground under the body):

```toml
name = "fox"
stride = 0.15        # how far a planted foot sweeps back per stance (= body travel per stance)
duty = 0.7           # share of the cycle a foot is on the ground
lift = 0.035         # swing apex height
clip_speed = 0.375   # speed (m/s) the baked clip is authored at
body_height = 0.19   # hip height above the ground at rest (optional, default: 0.85 × shortest leg reach)
bob = 0.004          # body bob amplitude (optional, default 0)
roll_deg = 0.0       # biped roll over the stance leg (optional, default 0)
naming = "generic"   # "generic" (<leg>_seg<i>, <leg>_foot) or "mixamo" (bipeds: Hips, LeftUpLeg...)

[[legs]]
name = "leg_0"
side = "L"           # L | R | C
phase = 0.75         # offset in the cycle, [0, 1)
knee = "forward"     # forward | back | up
segments = [0.11, 0.12]   # two = two-bone IK; three or more = FABRIK ("upper"/"lower" also accepted)
home = [0.048, 0, 0.155]  # foot at mid-stance, body frame
hip = [0.048, 0.19, 0.155] # optional mount point (default [home.x, body_height, home.z])
```

JSON files use the same keys; Gaitkit's ``"segments": [...]`` list of legs is
accepted in place of ``"legs"``. Errors are :class:`~animsmith.errors.AnimsmithError`
naming the file and the key.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from animsmith.errors import AnimsmithError

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


def _num(doc: dict, key: str, where: str, path: str, *, default: Any = None, lo: float = -math.inf, hi: float = math.inf, lo_open: bool = False) -> float:
    if key not in doc:
        if default is None:
            raise AnimsmithError(f"{where}{key}: missing", path)
        return float(default)
    v = doc[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        raise AnimsmithError(f"{where}{key}: expected a finite number, got {v!r}", path)
    v = float(v)
    if v < lo or v > hi or (lo_open and v == lo):
        bound = f"> {lo:g}" if lo_open else f">= {lo:g}"
        raise AnimsmithError(f"{where}{key}: {v:g} out of range (needs {bound}{'' if hi == math.inf else f' and <= {hi:g}'})", path)
    return v


def _vec3(v: Any, what: str, path: str) -> Tuple[float, float, float]:
    if not isinstance(v, (list, tuple)) or len(v) != 3 or not all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(float(x)) for x in v
    ):
        raise AnimsmithError(f"{what}: expected [x, y, z] of finite numbers, got {v!r}", path)
    return float(v[0]), float(v[1]), float(v[2])


def _leg(doc: Any, i: int, body_height: Optional[float], path: str) -> Leg:
    where = f"legs[{i}]."
    if not isinstance(doc, dict):
        raise AnimsmithError(f"legs[{i}]: expected a table", path)
    name = doc.get("name", f"leg_{i}")
    if not isinstance(name, str) or not name:
        raise AnimsmithError(f"{where}name: expected a non-empty string", path)
    side = doc.get("side", "C")
    if side not in SIDES:
        raise AnimsmithError(f"{where}side: expected one of {', '.join(SIDES)}, got {side!r}", path)
    knee = doc.get("knee", "back")
    if knee not in KNEES:
        raise AnimsmithError(f"{where}knee: expected one of {', '.join(KNEES)}, got {knee!r}", path)
    phase = _num(doc, "phase", where, path, lo=0.0, hi=1.0)
    if "segments" in doc:
        seg = doc["segments"]
        if not isinstance(seg, (list, tuple)) or len(seg) < 2:
            raise AnimsmithError(f"{where}segments: expected a list of two or more lengths", path)
        segments = tuple(_num({"s": s}, "s", f"{where}segments[{j}]", path, lo=0.0, lo_open=True) for j, s in enumerate(seg))
    else:
        segments = (
            _num(doc, "upper", where, path, lo=0.0, lo_open=True),
            _num(doc, "lower", where, path, lo=0.0, lo_open=True),
        )
    if "home" not in doc:
        raise AnimsmithError(f"{where}home: missing", path)
    home = _vec3(doc["home"], f"{where}home", path)
    if "hip" in doc:
        hip = _vec3(doc["hip"], f"{where}hip", path)
    else:
        h = body_height if body_height is not None else 0.85 * sum(segments)
        hip = (home[0], home[1] + h, home[2])
    return Leg(name=name, side=side, phase=phase % 1.0, knee=knee, segments=segments, home=home, hip=hip)


def creature_from_dict(doc: Any, path: str = "<creature>") -> Creature:
    """Validate a parsed creature document (module docstring schema)."""
    if not isinstance(doc, dict):
        raise AnimsmithError("creature file must hold a table/object", path)
    known = {"name", "description", "stride", "duty", "lift", "clip_speed", "body_height", "bob", "roll_deg", "naming", "legs", "segments"}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise AnimsmithError(f"unknown key {unknown[0]!r} (expected one of {', '.join(sorted(known))})", path)
    name = doc.get("name") or os.path.splitext(os.path.basename(path))[0]
    if not isinstance(name, str):
        raise AnimsmithError("name: expected a string", path)
    stride = _num(doc, "stride", "", path, lo=0.0, lo_open=True)
    duty = _num(doc, "duty", "", path, lo=0.0, hi=1.0, lo_open=True)
    if duty >= 1.0:
        raise AnimsmithError(f"duty: {duty:g} out of range (needs > 0 and < 1)", path)
    lift = _num(doc, "lift", "", path, lo=0.0)
    clip_speed = _num(doc, "clip_speed", "", path, lo=0.0, lo_open=True)
    body_height = _num(doc, "body_height", "", path, default=-1.0) if "body_height" in doc else None
    if body_height is not None and body_height <= 0:
        raise AnimsmithError(f"body_height: {body_height:g} out of range (needs > 0)", path)
    legs_doc = doc.get("legs", doc.get("segments"))
    if not isinstance(legs_doc, list) or not legs_doc:
        raise AnimsmithError("legs: expected a non-empty list of legs", path)
    legs = [_leg(d, i, body_height, path) for i, d in enumerate(legs_doc)]
    names = [leg.name for leg in legs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise AnimsmithError(f"legs: duplicate leg name {dup[0]!r}", path)
    naming = doc.get("naming", "generic")
    if naming not in NAMINGS:
        raise AnimsmithError(f"naming: expected one of {', '.join(NAMINGS)}, got {naming!r}", path)
    if naming == "mixamo" and sorted(leg.side for leg in legs) != ["L", "R"]:
        raise AnimsmithError("naming: 'mixamo' needs exactly one L and one R leg", path)
    if body_height is None:
        body_height = legs[0].hip[1] - legs[0].home[1]
    return Creature(
        name=name,
        stride=stride,
        duty=duty,
        lift=lift,
        clip_speed=clip_speed,
        legs=legs,
        body_height=body_height,
        bob=_num(doc, "bob", "", path, default=0.0, lo=0.0),
        roll_deg=_num(doc, "roll_deg", "", path, default=0.0, lo=-45.0, hi=45.0),
        naming=naming,
        description=str(doc.get("description", "")),
        source=path,
    )


def load_creature(path: str) -> Creature:
    """Read a ``.toml`` or ``.json`` creature file."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read((1 << 20) + 1)
    except OSError as exc:
        raise AnimsmithError(f"cannot read creature file: {exc.strerror or exc}", path) from None
    if len(raw) > 1 << 20:
        raise AnimsmithError("creature file larger than 1 MiB", path)
    if path.lower().endswith(".json"):
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise AnimsmithError(f"invalid JSON: {exc}", path) from None
    else:
        try:
            import tomllib  # type: ignore[import-not-found]
        except ImportError:  # pragma: no cover
            import tomli as tomllib  # type: ignore[no-redef]
        try:
            doc = tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise AnimsmithError(f"invalid TOML: {exc}", path) from None
    return creature_from_dict(doc, path)


def catalog_names() -> List[str]:
    return list(CATALOG_ORDER)


def catalog_creature(name: str) -> Creature:
    """A built-in creature by name (AnimsmithError naming the choices when unknown)."""
    if name not in CATALOG_ORDER:
        raise AnimsmithError(f"unknown creature {name!r} (built-in: {', '.join(CATALOG_ORDER)}; or give a .toml/.json path)")
    return load_creature(os.path.join(CATALOG_DIR, f"{name}.toml"))


def resolve_creature(name_or_path: str) -> Creature:
    """A catalog name, or a path to a creature file."""
    if name_or_path in CATALOG_ORDER:
        return catalog_creature(name_or_path)
    if name_or_path.lower().endswith((".toml", ".json")) or os.path.sep in name_or_path:
        return load_creature(name_or_path)
    return catalog_creature(name_or_path)


def load_catalog(names: Optional[Sequence[str]] = None) -> List[Creature]:
    return [resolve_creature(n) for n in (names or CATALOG_ORDER)]
