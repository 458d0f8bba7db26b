"""The rig's length unit (``[rig] units``) and whether the rig's size is plausible in it.

glTF positions are metres, but many exports are not: a centimetre rig (the
Khronos Fox, FBX pipelines without a 0.01 scale node) stands 40–180 units
tall. ``[rig] units`` names the file's unit — ``"metres"``,
``"centimetres"``, ``"millimetres"``, ``"inches"`` (US spellings and m, cm, mm, in accepted) or
a positive number of metres per unit — and forward kinematics scales every
model-space position by it (``Skeleton.metres_per_unit``), so every reported
number and every metre default (3 cm contact height, 1 cm loop closure,
0.1 m/s) means metres. Local key values and the file's bytes keep their
units: transforms write the file's own units.

Plausibility: the rig's standing height — the hips' model-space height above
the lower foot in the first frame of the file's first clip (the rest pose
when the file has no clip) — in metres. A person, an animal or a robot a
game animates stands between 5 cm and 5 m at the hips; outside that the unit
in force is almost certainly wrong, and :func:`units_advice` says which
setting would make it plausible. Below 5 cm counts only when ``[rig] units``
makes the file's unit smaller than a metre (a metre rig declared in
centimetres stands 9 mm tall): in metres, a rig that small is a small
creature — the simulator's beetle stands 34 mm — and no larger unit exists.
"""

from __future__ import annotations

import math
from typing import Dict, Optional, Tuple

#: metres per unit of each named unit, and the name ``[rig] units`` advice spells
UNIT_ALIASES: Dict[str, Tuple[float, str]] = {
    "metres": (1.0, "metres"),
    "meters": (1.0, "metres"),
    "centimetres": (0.01, "centimetres"),
    "centimeters": (0.01, "centimetres"),
    "millimetres": (0.001, "millimetres"),
    "millimeters": (0.001, "millimetres"),
    "inches": (0.0254, "inches"),
    # the symbols DCCs and engines show next to their unit settings
    "m": (1.0, "metres"),
    "cm": (0.01, "centimetres"),
    "mm": (0.001, "millimetres"),
    "in": (0.0254, "inches"),
}
#: what each unit is called in advice ("a centimetre rig?")
_ADJECTIVE = {"metres": "metre", "centimetres": "centimetre", "millimetres": "millimetre", "inches": "inch"}
#: a standing height outside [MIN, MAX] metres is implausible in the units in force
MIN_STANDING_HEIGHT_M = 0.05
MAX_STANDING_HEIGHT_M = 5.0


def metres_per_unit(value) -> float:
    """Metres per unit of a ``[rig] units`` value (a unit name, any letter case, or a positive
    finite number). ValueError with a one-line reason otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"must be a unit name ({', '.join(sorted(UNIT_ALIASES))}) or a positive number of metres per unit, got a boolean")
    if isinstance(value, (int, float)):
        v = float(value)
        if not (math.isfinite(v) and v > 0):
            raise ValueError(f"must be a positive, finite number of metres per unit, got {value!r}")
        return v
    if isinstance(value, str):
        key = value.strip().lower()
        if key in UNIT_ALIASES:
            return UNIT_ALIASES[key][0]
        raise ValueError(f"unknown unit {value!r} (one of: metres, centimetres, millimetres, inches — or meters, "
                         "centimeters, millimeters, or m, cm, mm, in — or a positive number of metres per unit)")
    raise ValueError(f"must be a unit name or a positive number of metres per unit, got {type(value).__name__}")


def standing_height_m(grid, roles, frame: int = 0) -> Tuple[Optional[float], Optional[str]]:
    """(hips height above the lower foot at ``frame``, in model-space metres, reason): None with
    a reason when the hips or both feet are unresolved or the pose is not finite."""
    import numpy as np

    if not roles.has("hips"):
        return None, "the hips role is unresolved"
    feet = [int(roles.get(r)) for r in ("left_foot", "right_foot") if roles.has(r)]
    if not feet:
        return None, "no foot role is resolved"
    bones = [int(roles.get("hips"))] + feet
    if grid.frame_count <= frame:
        return None, "no frame to measure"
    # the chains of the hips, feet and toes, the bones the gait metrics pose: one pass serves both
    posed = bones + [int(roles.get(r)) for r in ("left_toe", "right_toe") if roles.has(r)]
    y = np.asarray(grid.model_positions_m(posed)[frame, : len(bones), 1], dtype=np.float64)
    if not np.isfinite(y).all():
        return None, "non-finite pose"
    return float(y[0] - y[1:].min()), None


def units_advice(height_m: Optional[float], metres_per_unit_now: float) -> Optional[str]:
    """None when ``height_m`` (the standing height in metres under ``metres_per_unit_now``) is
    plausible or unknown; else one line naming the height and the ``[rig] units`` setting that
    makes it plausible: the first of metres, centimetres, millimetres and inches (the common
    DCC units first) that does, else a number of metres per unit,
    e.g. ``hips stand 41.2 m above the feet: a centimetre rig? set [rig] units = "centimetres"``."""
    if height_m is None or not math.isfinite(height_m):
        return None
    h = abs(height_m)
    if h <= MAX_STANDING_HEIGHT_M and (h >= MIN_STANDING_HEIGHT_M or float(metres_per_unit_now) >= 1.0):
        return None  # in metres (or larger units) a rig under 5 cm is a small creature: no larger unit to suggest
    shown = f"{height_m:.1f} m" if h >= 1.0 else f"{height_m * 1000:.3g} mm"
    what = f"hips stand {shown} above the feet"
    if h == 0.0:
        return f"{what}: the rig has no height to judge its units by"
    file_units = h / float(metres_per_unit_now)  # the height in the file's own units
    for name in ("metres", "centimetres", "millimetres", "inches"):  # the common DCC units first
        u = UNIT_ALIASES[name][0]
        if u != float(metres_per_unit_now) and MIN_STANDING_HEIGHT_M <= file_units * u <= MAX_STANDING_HEIGHT_M:
            return f'{what}: a{"n" if name == "inches" else ""} {_ADJECTIVE[name]} rig? set [rig] units = "{name}"'
    per_unit = 1.0 / file_units  # the number that makes the hips stand 1 m tall
    return f"{what}: set [rig] units to the file's metres per unit (about {per_unit:.3g} would make the hips stand 1 m tall)"


def file_standing_height_m(asset, roles, first_grid=None) -> Tuple[Optional[float], Optional[str]]:
    """(:func:`standing_height_m` of the file, reason): frame 0 of its first clip's judged grid
    (``first_grid`` when the caller already has it), or the rest pose when it has no clip."""
    from animsmith.core.pose import pose_grid, sample_pose
    from animsmith.model import Clip

    if first_grid is None:
        if asset.clips:
            first_grid = pose_grid(asset.skeleton, asset.clips[0])
        else:
            first_grid = sample_pose(asset.skeleton, Clip(name="rest", channels=[]), [0.0], duration_s=0.0)
    return standing_height_m(first_grid, roles)


def units_report(asset, roles, units_setting="metres", first_grid=None) -> Dict[str, object]:
    """The JSON-ready units record of one file (``measure``'s ``units``): the setting as written,
    metres per unit, the standing height in metres (None with ``standing_height_m_unavailable``)
    and ``note`` (:func:`units_advice`, None when plausible or unknown)."""
    u = float(getattr(asset.skeleton, "metres_per_unit", 1.0))
    height, why = file_standing_height_m(asset, roles, first_grid)
    out: Dict[str, object] = {"setting": units_setting, "metres_per_unit": u, "standing_height_m": height}
    if height is None:
        out["standing_height_m_unavailable"] = why
    out["note"] = units_advice(height, u)
    return out
