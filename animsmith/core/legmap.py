"""The leg map of a rig: its legs (name, side, pair, foot, toe, how each was found) and
the body, and the skeleton-tree helpers that finding legs uses.

Legs are ordered by pair, left before right (pairs counted from the rear).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

SIDES = ("left", "right")
#: most legs a rig (or a leg map) may declare
MAX_LEGS = 64


@dataclass
class Leg:
    """One leg: ``foot``/``toe`` are bone indices; ``found_by`` is ``config``, ``extras``,
    ``name`` or ``shape``; ``why`` says how (the convention, or the shape rule)."""

    name: str
    side: str
    pair: int
    foot: int
    toe: Optional[int] = None
    found_by: str = "shape"
    why: str = ""


@dataclass
class LegMap:
    """The legs of one skeleton (ordered by pair, left first), the body bone, and the
    reason when no legs were found."""

    legs: List[Leg] = field(default_factory=list)
    body: Optional[int] = None
    unresolved: Optional[str] = None
    #: reasons earlier sources were passed over (a leg map naming a missing bone ...)
    notes: List[str] = field(default_factory=list)
    #: the legs are the biped roles' feet (and hands): they add no role
    from_roles: bool = False
    #: low chains the shape rule found to be no legs (a tail on the centre line)
    no_legs: List[int] = field(default_factory=list)
    names: Sequence[str] = ()
    #: the clips' poses decided these legs (the shape rule), not the skeleton alone: such a
    #: map belongs to its file and is never reused for another (``core.legs.resolve_rig``)
    read_clips: bool = False

    @property
    def pairs(self) -> List[int]:
        return sorted({leg.pair for leg in self.legs})

    def copy(self) -> "LegMap":
        """A copy sharing no list or leg with this map (what a cached rig hands out: a
        caller may change its copy without touching the next file's)."""
        out = copy.copy(self)
        out.legs = [copy.copy(leg) for leg in self.legs]
        out.notes = list(self.notes)
        out.no_legs = list(self.no_legs)
        out.names = copy.copy(self.names)
        return out

    def pair_feet(self, pair: int) -> Tuple[List[Leg], List[Leg]]:
        """(left legs, right legs) of one pair."""
        left = [leg for leg in self.legs if leg.pair == pair and leg.side == "left"]
        right = [leg for leg in self.legs if leg.pair == pair and leg.side == "right"]
        return left, right

    def to_json(self) -> List[Dict[str, Any]]:
        names = self.names
        return [
            {
                "name": leg.name,
                "side": leg.side,
                "pair": leg.pair,
                "foot": str(names[leg.foot]),
                "toe": None if leg.toe is None else str(names[leg.toe]),
                "found_by": leg.found_by,
                "why": leg.why,
            }
            for leg in self.legs
        ]


def ordered_legs(legs: List[Leg]) -> List[Leg]:
    """``legs`` by pair (from the rear), left before right."""
    return sorted(legs, key=lambda leg: (leg.pair, SIDES.index(leg.side)))


def pair_label(pair: int, pair_count: int) -> str:
    """``hind``/``fore`` for two pairs, ``""`` for one, else ``pair<i>``."""
    if pair_count == 1:
        return ""
    if pair_count == 2:
        return ("hind", "fore")[pair]
    return f"pair{pair}"


def default_leg_name(side: str, pair: int, pair_count: int) -> str:
    label = pair_label(pair, pair_count)
    return f"{label}_{side}" if label else side


# --------------------------------------------------------------------------
# Tree helpers
# --------------------------------------------------------------------------


def ancestors(parents, bone: int) -> List[int]:
    """``bone`` and its ancestors up to the root, nearest first (bounded on a cyclic table)."""
    out = []
    b = int(bone)
    while b >= 0 and len(out) <= len(parents):
        out.append(b)
        b = int(parents[b])
    return out


def common_ancestor(parents, bones: Sequence[int]) -> Optional[int]:
    """Nearest common ancestor (a bone is its own ancestor), or None (different roots)."""
    bones = [int(b) for b in bones]
    if not bones:
        return None
    chain = ancestors(parents, bones[0])
    common = set(chain)
    for b in bones[1:]:
        common &= set(ancestors(parents, b))
    for b in chain:
        if b in common:
            return b
    return None


def end_joints(skeleton) -> List[int]:
    """Skin joints with no joint below them (every node when the file has no skin), in the
    default scene when it shows any."""
    joints = np.asarray(skeleton.is_joint, dtype=bool)
    use = joints if joints.any() else np.ones(len(skeleton.names), dtype=bool)
    in_scene = getattr(skeleton, "in_scene", None)
    if in_scene is not None and np.any(in_scene):
        use = use & np.asarray(in_scene, dtype=bool)
    parents = np.asarray(skeleton.parents)
    has_child = np.zeros(len(use), dtype=bool)
    for b in np.nonzero(use)[0]:
        p = int(parents[b])
        while p >= 0:  # a joint child anywhere below makes the bone no end (mesh nodes between)
            if use[p]:
                has_child[p] = True
                break
            p = int(parents[p])
    return [int(b) for b in np.nonzero(use & ~has_child)[0]]
