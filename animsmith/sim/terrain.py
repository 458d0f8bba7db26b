"""Heightfield terrains and downward casts (metres, +Y up, travel along +Z).

A terrain is a pure function ``height_m(x, z)`` (vectorised). The sizes scale
with the creature (``scale_m`` = its body height) so every creature meets the
same relative difficulty:

* ``flat``: 0.
* ``slope``: ``z·tan(8°)`` (climbing along travel).
* ``steps``: ``floor(z / tread) · riser`` with tread = 1.5·scale and riser =
  0.06·scale (stairs up along travel); a point within 0.1 mm of a riser's edge is on
  the upper step.
* ``rough``: a fixed sum of three sinusoid products, amplitude ≈ 0.04·scale
  (smooth, deterministic "noise").

:func:`cast_down` drops a ray from ``ray_height_m`` above a point to
``ray_length_m`` below it and returns the ground height where it hits, NaN when
the ground is outside that span or absent (``holes``: regions with no ground,
for airborne tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import List, Tuple

import numpy as np

TERRAINS = ("flat", "slope", "steps", "rough")

SLOPE_DEG = 8.0
STEP_TREAD = 1.5
STEP_RISER = 0.06
ROUGH_AMPLITUDE = 0.04
#: a point this close to a riser's edge (metres, along travel) stands on the upper step
EDGE_SNAP_M = 1e-4


@dataclass
class Terrain:
    """A named heightfield; ``holes`` = list of (x0, x1, z0, z1) rectangles with no ground."""

    kind: str = "flat"
    scale_m: float = 1.0
    holes: List[Tuple[float, float, float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.kind not in TERRAINS:
            raise ValueError(f"unknown terrain {self.kind!r} (expected one of {', '.join(TERRAINS)})")

    def height_m(self, x, z) -> np.ndarray:
        """Ground height under (x, z); NaN inside a hole."""
        x = np.asarray(x, dtype=np.float64)
        z = np.asarray(z, dtype=np.float64)
        s = self.scale_m
        if self.kind == "flat":
            h = np.zeros(np.broadcast(x, z).shape)
        elif self.kind == "slope":
            h = z * math.tan(math.radians(SLOPE_DEG)) + 0.0 * x
        elif self.kind == "steps":
            q = z / (STEP_TREAD * s)
            # a point within EDGE_SNAP_M of a riser's edge is on the upper step: a planted foot
            # recomputed each frame (and solved to FABRIK's 1e-5 m) lands either side of it and
            # would drop a riser for a frame
            edge = np.round(q)
            q = np.where(np.abs(q - edge) * (STEP_TREAD * s) <= EDGE_SNAP_M, edge, q)
            h = np.floor(q) * (STEP_RISER * s) + 0.0 * x
        else:
            k = 2.0 * math.pi / s
            h = ROUGH_AMPLITUDE * s * (
                0.5 * np.sin(0.9 * k * x + 0.3) * np.cos(0.7 * k * z + 1.1)
                + 0.3 * np.sin(1.7 * k * z + 0.5)
                + 0.2 * np.cos(2.3 * k * (x + z) + 2.0)
            )
        for x0, x1, z0, z1 in self.holes:
            inside = (x >= x0) & (x <= x1) & (z >= z0) & (z <= z1)
            h = np.where(inside, np.nan, h)
        return h


def cast_down(terrain: Terrain, point_m, ray_height_m: float, ray_length_m: float) -> np.ndarray:
    """Ground height hit by a ray from ``point + ray_height`` down to ``point − ray_length``.

    ``point_m`` (..., 3); returns (...) heights, NaN for a miss.
    """
    p = np.asarray(point_m, dtype=np.float64)
    h = terrain.height_m(p[..., 0], p[..., 2])
    top = p[..., 1] + ray_height_m
    bottom = p[..., 1] - ray_length_m
    with np.errstate(invalid="ignore"):
        hit = np.isfinite(h) & (h <= top) & (h >= bottom)
    return np.where(hit, h, np.nan)


def look_ahead_point(foot_m, velocity_mps, look_ahead_s: float) -> np.ndarray:
    """Where the cast starts: ``foot + velocity × look_ahead`` (seconds of lead)."""
    return np.asarray(foot_m, dtype=np.float64) + np.asarray(velocity_mps, dtype=np.float64) * look_ahead_s
