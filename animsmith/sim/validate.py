"""``sim validate``: prove each creature's baked walk on the linter's own core.

Walk test (Gaitkit's 1 mm rule): bake the creature walking straight ahead on
flat ground for two full cycles at 120 samples per cycle with root motion,
write it to GLB bytes and load them back (``io.write`` / ``io.gltf``), sample
the clip with ``core.pose.sample_pose``
at its key times, take the foot bones' model-space (= world) positions and
call ``core.contacts.foot_slide`` (the same function the lint ``foot-slide``
check uses) with the gait's known stance mask, full 3-D steps and ground
velocity 0. Any stance foot moving more than 1 mm between samples fails.

Terrain tests: the same on each terrain (flat, slope, steps, rough), plus
every planted foot must be within 1 mm of the ground under it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

import numpy as np

from animsmith.errors import AnimsmithError
from animsmith.sim.bake import Baked, bake
from animsmith.sim.creature import Creature, creature_errors
from animsmith.sim.terrain import TERRAINS, Terrain

SLIDE_LIMIT_MM = 1.0
GROUND_LIMIT_MM = 1.0
CYCLES = 2
SAMPLES_PER_CYCLE = 120


@dataclass
class Failure:
    creature: str
    test: str
    leg: str
    time_s: float
    measured_mm: float
    limit_mm: float
    what: str

    def message(self) -> str:
        return (
            f"{self.creature}: {self.test}: leg {self.leg} {self.what} {self.measured_mm:.3f} mm "
            f"@{self.time_s:.3f}s (limit {self.limit_mm:g} mm)"
        )

    def to_json(self) -> dict:
        return {
            "creature": self.creature,
            "test": self.test,
            "leg": self.leg,
            "time_s": round(self.time_s, 6),
            "measured_mm": round(self.measured_mm, 6),
            "limit_mm": self.limit_mm,
            "what": self.what,
        }


@dataclass
class BakedMeasure:
    """Core measurements of one baked clip."""

    foot_slide_mm: float
    slide_leg: Optional[str]
    slide_time_s: Optional[float]
    ground_error_mm: float
    ground_leg: Optional[str]
    ground_time_s: Optional[float]
    analytic_foot_slide_mm: float
    shortfall_mm: float


def measure_baked(baked: Baked, terrain: Optional[Terrain] = None, *, through_glb: bool = True) -> BakedMeasure:
    """Sample the baked clip through the core and measure slide and ground contact.

    ``through_glb``: serialise with the project's writer and read the bytes back
    with its loader first, so what is judged is exactly what a file would hold.
    A measurement that is not finite is an AnimsmithError naming the creature
    (never a NaN that compares as "within the limit").
    """
    with creature_errors(baked.walk.creature, "measure"):
        m = _measure_baked(baked, terrain, through_glb=through_glb)
        values = (m.foot_slide_mm, m.ground_error_mm, m.analytic_foot_slide_mm, m.shortfall_mm)
        if not all(np.isfinite(v) for v in values):
            raise AnimsmithError("the baked walk measures a non-finite slide, ground error or shortfall; check the creature's numbers")
    return m


def _measure_baked(baked: Baked, terrain: Optional[Terrain], *, through_glb: bool) -> BakedMeasure:
    from animsmith.core.contacts import foot_slide
    from animsmith.core.pose import sample_pose

    times = baked.key_times_s
    if through_glb:
        from animsmith.io.gltf import load_asset_bytes
        from animsmith.io.write import asset_to_glb

        asset = load_asset_bytes(asset_to_glb(baked.asset), f"<{baked.walk.creature.name}.glb>")
        clip = asset.clips[0]
    else:
        asset, clip = baked.asset, baked.clip
    grid = sample_pose(asset.skeleton, clip, times)
    feet = grid.model_position_m[:, baked.rig.foot_bones, :]
    if not baked.root_motion:
        feet = feet + baked.walk.travel_m[:, None, :]
    if not (np.all(np.isfinite(feet)) and np.all(np.isfinite(baked.walk.foot_m))):
        raise AnimsmithError("the baked feet are not finite; check the creature's numbers")
    stance = baked.walk.stance
    fs = foot_slide(feet, times, stance=stance, horizontal=False)
    legs = [leg.name for leg in baked.walk.creature.legs]
    slide_mm = 0.0 if fs.worst_step_m is None else fs.worst_step_m * 1e3
    # ground contact of planted feet
    ground_mm, g_leg, g_time = 0.0, None, None
    if terrain is not None:
        g = terrain.height_m(feet[..., 0], feet[..., 2])
        err = np.where(stance & np.isfinite(g), np.abs(feet[..., 1] - g), 0.0)
        if err.size:
            i, j = np.unravel_index(int(np.argmax(err)), err.shape)
            ground_mm, g_leg, g_time = float(err[i, j]) * 1e3, legs[j], float(times[i])
    # the walker's own (analytic) output, before baking
    a = foot_slide(baked.walk.foot_m, baked.walk.times_s, stance=stance, horizontal=False)
    return BakedMeasure(
        foot_slide_mm=slide_mm,
        slide_leg=None if fs.worst_foot is None else legs[fs.worst_foot],
        slide_time_s=fs.worst_time_s,
        ground_error_mm=ground_mm,
        ground_leg=g_leg,
        ground_time_s=g_time,
        analytic_foot_slide_mm=0.0 if a.worst_step_m is None else a.worst_step_m * 1e3,
        shortfall_mm=baked.walk.worst_shortfall_m * 1e3,
    )


@dataclass
class CreatureReport:
    name: str
    walk_test: dict
    terrain_tests: List[dict] = field(default_factory=list)
    failures: List[Failure] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def reach_note(self) -> Optional[str]:
        """For a failed creature whose feet fell more than the slide limit short of their
        targets in some test: which tests and how far, the cause of its failures."""
        tests = [("walk_test", self.walk_test)] + [(f"terrain:{t['terrain']}", t) for t in self.terrain_tests]
        short = [(name, t["shortfall_mm"]) for name, t in tests if t.get("shortfall_mm", 0.0) > SLIDE_LIMIT_MM]
        if self.passed or not short:
            return None
        worst = ", ".join(f"{name} {mm:.3f} mm" for name, mm in short)
        return (f"{self.name}: a foot falls short of its target (out of reach: {worst}), so planted feet "
                "are dragged; lengthen the leg segments or lower body_height")

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "passed": self.passed,
            "walk_test": self.walk_test,
            "terrain_tests": self.terrain_tests,
            "failures": [f.to_json() for f in self.failures],
        }


def _slide_failure(name: str, test: str, m: BakedMeasure) -> Optional[Failure]:
    if m.foot_slide_mm > SLIDE_LIMIT_MM:
        return Failure(name, test, m.slide_leg or "?", m.slide_time_s or 0.0, m.foot_slide_mm, SLIDE_LIMIT_MM, "stance foot moved")
    return None


def walk_test(creature: Creature, baked: Optional[Baked] = None) -> tuple:
    """(walk_test dict, failure or None) for the flat two-cycle walk."""
    b = baked or bake(creature, cycles=CYCLES, samples_per_cycle=SAMPLES_PER_CYCLE, root_motion=True)
    m = measure_baked(b)
    fail = _slide_failure(creature.name, "walk_test", m)
    return (
        {
            "foot_slide_mm": round(m.foot_slide_mm, 6),
            "analytic_foot_slide_mm": round(m.analytic_foot_slide_mm, 6),
            "shortfall_mm": round(m.shortfall_mm, 6),
            "cycles": CYCLES,
            "samples_per_cycle": SAMPLES_PER_CYCLE,
            "limit_mm": SLIDE_LIMIT_MM,
            "passed": fail is None,
        },
        fail,
    )


def terrain_test(creature: Creature, kind: str, baked: Optional[Baked] = None) -> tuple:
    """(terrain_tests entry, failures) for one terrain."""
    b = baked or bake(creature, terrain=kind, cycles=CYCLES, samples_per_cycle=SAMPLES_PER_CYCLE, root_motion=True)
    m = measure_baked(b, Terrain(kind, creature.body_height))
    fails = []
    f = _slide_failure(creature.name, f"terrain:{kind}", m)
    if f:
        fails.append(f)
    if m.ground_error_mm > GROUND_LIMIT_MM:
        fails.append(
            Failure(creature.name, f"terrain:{kind}", m.ground_leg or "?", m.ground_time_s or 0.0, m.ground_error_mm, GROUND_LIMIT_MM, "planted foot off the ground by")
        )
    return (
        {
            "terrain": kind,
            "foot_slide_mm": round(m.foot_slide_mm, 6),
            "ground_error_mm": round(m.ground_error_mm, 6),
            "shortfall_mm": round(m.shortfall_mm, 6),
            "passed": not fails,
        },
        fails,
    )


def validate_creature(creature: Creature, terrains: Sequence[str] = TERRAINS) -> CreatureReport:
    """Walk test plus one terrain test per terrain (the flat bake is shared)."""
    with creature_errors(creature, "validate"):
        return _validate_creature(creature, terrains)


def _validate_creature(creature: Creature, terrains: Sequence[str]) -> CreatureReport:
    flat = bake(creature, cycles=CYCLES, samples_per_cycle=SAMPLES_PER_CYCLE, root_motion=True)
    wt, fail = walk_test(creature, flat)
    rep = CreatureReport(name=creature.name, walk_test=wt)
    if fail:
        rep.failures.append(fail)
    for kind in terrains:
        entry, fails = terrain_test(creature, kind, flat if kind == "flat" else None)
        rep.terrain_tests.append(entry)
        rep.failures.extend(fails)
    return rep


def validate_catalog(creatures: Sequence[Creature], terrains: Sequence[str] = TERRAINS) -> List[CreatureReport]:
    return [validate_creature(c, terrains) for c in creatures]


def report_json(reports: Sequence[CreatureReport]) -> Dict:
    return {
        "schema_version": 1,
        "command": "sim validate",
        "creatures": [r.to_json() for r in reports],
        "passed": all(r.passed for r in reports),
    }
