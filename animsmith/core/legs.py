"""Legs: which chains of a rig are legs, their sides and pairs, and how they were found.

``resolve_legs(asset, roles, declared=None) -> LegMap``; ``resolve_rig(asset, profile,
overrides, declared_legs) -> RoleMap`` (roles, then legs, then the biped roles that the
legs supply).

A leg has a name, a side (``left`` / ``right``), a pair index (pairs ordered from the
rear: a biped has pair 0 only; a quadruped pair 0 = hind, pair 1 = fore; a hexapod
pairs 0..2), a foot bone and an optional toe bone. Legs are ordered by pair, left
before right: leg 0 is the rear left leg. The body (hips) is the legs' nearest common
ancestor unless a source names it.

Where legs come from (the first source that gives legs wins)
-------------------------------------------------------------
1. ``config``: ``[rig.legs]`` in the contract (docs/config.md).
2. ``extras``: the file's leg map, ``asset.extras.animsmith_legs`` (``version`` 1,
   ``body``, ``legs`` [{``name``, ``side``, ``pair``, ``foot``, ``toe``}]; the
   simulator writes it). A map naming a bone the file does not have is ignored
   with the reason.
3. ``name``: front/hind words with side markers (``FrontLeg.L``, ``BackLeg.L``,
   ``hind_left``, ``Leg_FL``, ``Leg_BR``): a fore/front and a hind/back/rear end,
   each with both sides. A name that also names an arm, a hand, clothing, hair,
   a tail or the head (``LeftForeArm``, ``Skirt_Back_L``) is no leg. Then the biped roles: feet and hands both resolved, with
   the hands hanging within a quarter of the hips' height of the feet in the rest
   pose (the hips by name, else the feet's nearest common ancestor; ``b_LeftFoot01`` /
   ``b_LeftHand`` of the Khronos Fox, ``foot.L`` / ``hand.L`` of a Rigify dog): feet = pair 0,
   hands = pair 1. Else the left and right foot roles: one pair.
4. ``shape`` (names say nothing): :func:`core.legshape.legs_by_shape`.

Every refusal says why (``LegMap.unresolved``); the shape rule never picks between
equally good candidates.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from animsmith.core.legmap import (
    MAX_LEGS,
    SIDES,
    Leg,
    LegMap,
    ancestors,
    common_ancestor,
    end_joints,
    ordered_legs,
)
from animsmith.core.legshape import legs_by_shape

LEGS_KEY = "animsmith_legs"
LEGS_VERSION = 1

#: hands within this share of the hips' height above the feet are fore feet
HANDS_AS_FEET_FRACTION = 0.25
#: more bones than this naming one leg (fore left...) are no leg chain
MAX_NAMED_CHAIN = 64


# --------------------------------------------------------------------------
# Poses
# --------------------------------------------------------------------------


def rest_positions_m(skeleton) -> np.ndarray:
    """(B, 3) model-space rest positions."""
    from animsmith.core.fk import forward_kinematics

    _, pos, _ = forward_kinematics(
        skeleton,
        np.asarray(skeleton.rest_translation, dtype=np.float64)[None],
        np.asarray(skeleton.rest_rotation, dtype=np.float64)[None],
        np.asarray(skeleton.rest_scale, dtype=np.float64)[None],
        use_rest_matrix=np.asarray(skeleton.has_matrix, dtype=bool),
    )
    return np.asarray(pos[0], dtype=np.float64)


def first_frame_positions_m(asset) -> Tuple[Optional[np.ndarray], Optional[str]]:
    """((B, 3) model positions at the first clip's first grid time, clip name) or (None, None)."""
    from animsmith.core.pose import sample_pose
    from animsmith.core.timegrid import grid_times_s

    for clip in asset.clips:
        if not clip.channels:
            continue
        try:
            times = grid_times_s(clip)[:1]
            grid = sample_pose(asset.skeleton, clip, times)
        except Exception:  # malformed key times: the checks report them; no frame to judge
            return None, None
        pos = np.asarray(grid.model_position_m[0], dtype=np.float64)
        return (pos, clip.name) if np.all(np.isfinite(pos)) else (None, None)
    return None, None


# --------------------------------------------------------------------------
# Found by name
# --------------------------------------------------------------------------

_FORE = {"front", "fore", "frnt"}
_HIND = {"hind", "back", "rear"}
_CORNER = {"fl": ("fore", "left"), "fr": ("fore", "right"), "bl": ("hind", "left"), "br": ("hind", "right"), "hl": ("hind", "left"), "hr": ("hind", "right")}
_SIDE_WORDS = {"left": "left", "l": "left", "lf": "left", "lft": "left", "right": "right", "r": "right", "rt": "right", "rgt": "right"}
_FOOT_WORDS = {"foot", "feet", "paw", "hoof", "ankle"}
#: a name with one of these words is no leg whatever its front/back and side words say
#: (a biped's ``LeftForeArm``, a skirt's ``Skirt_Back_L``, hair, a cape, a tail)
_NOT_LEG_WORDS = {
    "arm", "forearm", "upperarm", "hand", "finger", "thumb", "pinky", "shoulder", "clavicle", "collar",
    "elbow", "wrist", "skirt", "hair", "bang", "bangs", "cape", "cloak", "coat", "cloth", "dress",
    "sleeve", "hood", "scarf", "ribbon", "tail", "ear", "eye", "brow", "lid", "lip", "cheek", "jaw",
    "mouth", "tongue", "tooth", "teeth", "wing", "breast", "bust", "chest", "neck", "head", "spine",
}


#: a name can only say fore/hind when it holds one of these (a cheap first test)
_CORNER_HINT = re.compile(r"front|fore|frnt|hind|back|rear|(?:^|[^a-z])(?:fl|fr|bl|br|hl|hr)(?:[^a-z]|$)", re.IGNORECASE)


def _corner_of(stem: str) -> Optional[Tuple[str, str]]:
    """(``fore``|``hind``, side) read from a bone name, or None."""
    from animsmith.core.bonenames import GENERIC_STOP_WORDS, name_words

    if not _CORNER_HINT.search(stem):
        return None
    raw = [w.lower() for w in re.split(r"[^A-Za-z0-9]+", stem) if w]
    words = name_words(stem)
    if any(w in GENERIC_STOP_WORDS or w in _NOT_LEG_WORDS for w in words):
        return None
    corners = {_CORNER[w] for w in raw if w in _CORNER}
    if len(corners) == 1 and not any(w in _FORE or w in _HIND for w in words):
        return corners.pop()
    ends = {"fore" for w in words if w in _FORE} | {"hind" for w in words if w in _HIND}
    sides = {_SIDE_WORDS[w] for w in words if w in _SIDE_WORDS}
    if len(ends) == 1 and len(sides) == 1:
        return ends.pop(), sides.pop()
    return None


def _legs_by_words(skeleton) -> Tuple[Optional[List[Leg]], Optional[str]]:
    from animsmith.core.bonenames import name_words, split_name

    names = skeleton.names
    parents = np.asarray(skeleton.parents)
    joints = np.asarray(skeleton.is_joint, dtype=bool)
    groups: Dict[Tuple[str, str], List[int]] = {}
    any_joint = bool(joints.any())
    for b, n in enumerate(names):
        if any_joint and not joints[b]:
            continue
        corner = _corner_of(split_name(str(n))[2])
        if corner is not None:
            groups.setdefault(corner, []).append(b)
    if not groups:
        return None, None
    ends_present = {end for end, _ in groups}
    if ends_present != {"fore", "hind"} or len(groups) != 4:
        shown = ", ".join(f"{e} {s}" for e, s in sorted(groups))
        return None, f"front/hind leg names found for {shown} only (needs both sides of the fore and the hind end)"
    ends_all = end_joints(skeleton)
    legs = []
    for (end, side), bones in sorted(groups.items()):
        if len(bones) > MAX_NAMED_CHAIN:
            return None, f"{len(bones)} bones name the {end} {side} leg (at most {MAX_NAMED_CHAIN})"
        top = min(bones, key=lambda b: int(skeleton.depth[b]))
        if any(top not in ancestors(parents, b) for b in bones):
            shown = " and ".join(repr(names[b]) for b in bones[:3])
            return None, f"two equally good {end} {side} leg chains: {shown}"
        footed = [b for b in bones if set(name_words(split_name(str(names[b]))[2])) & _FOOT_WORDS]
        if footed:
            foot = max(footed, key=lambda b: int(skeleton.depth[b]))
            if len(footed) > 1 and any(foot not in ancestors(parents, f) and f not in ancestors(parents, foot) for f in footed):
                return None, f"two equally good {end} {side} foot bones"
            foot = min(footed, key=lambda b: int(skeleton.depth[b]))
        else:
            below = [e for e in ends_all if top in ancestors(parents, e)]
            if not below:
                return None, f"the {end} {side} leg {names[top]!r} has no end joint below it"
            foot = below[0] if len(below) == 1 else common_ancestor(parents, below)
        pair = 0 if end == "hind" else 1
        legs.append(
            Leg(
                name=f"{end}_{side}",
                side=side,
                pair=pair,
                foot=int(foot),
                found_by="name",
                why=f"{end}/side words in {names[top]!r}" + (f" -> foot {names[foot]!r}" if foot != top else ""),
            )
        )
    return ordered_legs(legs), None


def _legs_by_roles(skeleton, roles, rest_pos: np.ndarray) -> Tuple[Optional[List[Leg]], Optional[str]]:
    if not (roles.has("left_foot") and roles.has("right_foot")):
        return None, None
    conv = roles.conventions
    names = skeleton.names
    y = rest_pos[:, 1]
    feet = (roles.get("left_foot"), roles.get("right_foot"))
    legs = [
        Leg("left", "left", 0, int(feet[0]), roles.get("left_toe"), "name", f"{conv.get('left_foot')} name {names[feet[0]]!r}"),
        Leg("right", "right", 0, int(feet[1]), roles.get("right_toe"), "name", f"{conv.get('right_foot')} name {names[feet[1]]!r}"),
    ]
    # the hips by name, else the feet's nearest common ancestor (the body the legs hang from)
    hips = roles.get("hips") if roles.has("hips") else common_ancestor(np.asarray(skeleton.parents), list(feet))
    if roles.has("left_hand") and roles.has("right_hand") and hips is not None:
        hands = (roles.get("left_hand"), roles.get("right_hand"))
        foot_y = max(float(y[f]) for f in feet)
        hips_h = float(y[hips]) - foot_y
        hand_h = max(float(y[h]) for h in hands) - foot_y
        if hips_h > 0 and np.isfinite(hand_h) and hand_h <= HANDS_AS_FEET_FRACTION * hips_h:
            for leg in legs:
                leg.name = f"hind_{leg.side}"
                leg.why += " (feet are the hind pair)"
            for side, h in zip(SIDES, hands):
                legs.append(
                    Leg(
                        f"fore_{side}", side, 1, int(h), None, "name",
                        f"{conv.get(side + '_hand')} name {names[h]!r}: in the rest pose the hands hang within a "
                        "quarter of the hips' height of the feet, so they are the fore pair",
                    )
                )
    return ordered_legs(legs), None


# --------------------------------------------------------------------------
# Declared maps: [rig.legs] and the file's extras
# --------------------------------------------------------------------------


def validate_leg_table(doc: Any, where: str) -> List[Dict[str, Any]]:
    """Validate a list of leg entries ``{name, side, pair, foot, toe?}`` (names are bone
    names); ValueError with ``where`` and the key at fault."""
    if not isinstance(doc, list):
        raise ValueError(f"{where}: expected a list of legs")
    if len(doc) > MAX_LEGS:
        raise ValueError(f"{where}: {len(doc)} legs; the limit is {MAX_LEGS}")
    out = []
    seen = set()
    for i, leg in enumerate(doc):
        w = f"{where}[{i}]"
        if not isinstance(leg, dict):
            raise ValueError(f"{w}: expected a table")
        name = leg.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{w}.name: expected a non-empty string")
        if name in seen:
            raise ValueError(f"{w}.name: duplicate leg name {name!r}")
        seen.add(name)
        side = leg.get("side")
        if side not in SIDES:
            raise ValueError(f"{w}.side: expected 'left' or 'right', got {side!r}")
        pair = leg.get("pair", 0)
        if isinstance(pair, bool) or not isinstance(pair, int) or not 0 <= pair < MAX_LEGS:
            raise ValueError(f"{w}.pair: expected a whole number from 0 (the rear pair), got {pair!r}")
        foot = leg.get("foot")
        if not isinstance(foot, str) or not foot:
            raise ValueError(f"{w}.foot: expected a bone name")
        toe = leg.get("toe")
        if toe is not None and (not isinstance(toe, str) or not toe):
            raise ValueError(f"{w}.toe: expected a bone name")
        # one bone is one foot: two legs on one foot would measure the same bone twice
        other = next((o for o in out if foot in (o["foot"], o["toe"]) or (toe is not None and toe in (o["foot"], o["toe"]))), None)
        if other is not None:
            bone = foot if foot in (other["foot"], other["toe"]) else toe
            raise ValueError(f"{w}.{'foot' if bone == foot else 'toe'}: leg {other['name']!r} already uses bone {bone!r}; each leg needs its own foot")
        if toe == foot:
            raise ValueError(f"{w}.toe: the toe is the foot bone {foot!r}")
        out.append({"name": name, "side": side, "pair": pair, "foot": foot, "toe": toe})
    taken = [(leg["pair"], leg["side"]) for leg in out]
    dup = sorted({t for t in taken if taken.count(t) > 1})
    if dup:
        raise ValueError(f"{where}: two legs are the {dup[0][1]} leg of pair {dup[0][0]}")
    pairs = sorted({p for p, _ in taken})
    for p in pairs:
        if (p, "left") not in taken or (p, "right") not in taken:
            missing = "right" if (p, "left") in taken else "left"
            raise ValueError(f"{where}: pair {p} has no {missing} leg (a pair is a left and a right leg)")
    if pairs and pairs != list(range(len(pairs))):
        raise ValueError(f"{where}: pairs must be numbered 0, 1, ... from the rear (got {pairs})")
    return out


def _bone(skeleton, name: str) -> Tuple[Optional[int], Optional[str]]:
    hits = [b for b, n in enumerate(skeleton.names) if n == name]
    joints = [b for b in hits if bool(skeleton.is_joint[b])]
    hits = joints or hits
    if not hits:
        return None, f"no bone named {name!r}"
    if len(hits) > 1:
        return None, f"{len(hits)} bones are named {name!r}"
    return hits[0], None


def _declared_legs(skeleton, entries: List[Dict[str, Any]], found_by: str, source: str) -> Tuple[Optional[List[Leg]], Optional[str]]:
    legs = []
    for e in entries:
        foot, why = _bone(skeleton, e["foot"])
        if foot is None:
            return None, f"{source} leg {e['name']!r}: {why}"
        toe = None
        if e.get("toe"):
            toe, why = _bone(skeleton, e["toe"])
            if toe is None:
                return None, f"{source} leg {e['name']!r} toe: {why}"
        legs.append(Leg(e["name"], e["side"], int(e["pair"]), int(foot), toe, found_by, f"{source} names {e['foot']!r}"))
    return ordered_legs(legs), None


def extras_leg_entries(asset) -> Tuple[Optional[List[Dict[str, Any]]], Optional[str], Optional[str]]:
    """(entries, body bone name, None) from ``asset.extras.animsmith_legs``; (None, None, None)
    without one; (None, None, reason) when it is unusable (never raised)."""
    ex = getattr(asset, "extras", None)
    if not isinstance(ex, dict) or LEGS_KEY not in ex:
        return None, None, None
    doc = ex[LEGS_KEY]
    if not isinstance(doc, dict) or doc.get("version") != LEGS_VERSION:
        return None, None, f"the file's {LEGS_KEY} is not a version-{LEGS_VERSION} leg map"
    body = doc.get("body")
    if body is not None and not isinstance(body, str):
        return None, None, f"the file's {LEGS_KEY}.body is not a bone name"
    try:
        entries = validate_leg_table(doc.get("legs"), f"{LEGS_KEY}.legs")
    except ValueError as exc:
        return None, None, f"the file's leg map is unusable: {exc}"
    return entries, body, None


# --------------------------------------------------------------------------
# Resolution
# --------------------------------------------------------------------------


def resolve_legs(asset, roles, declared: Optional[List[Dict[str, Any]]] = None, search: bool = True, shape: bool = True) -> LegMap:
    """The legs of ``asset`` (module docstring): ``declared`` ([rig.legs] entries, already
    validated), else the file's leg map, else names, else shape. ``search=False`` (the
    rig profile ``none``): only ``declared``; ``shape=False`` (a named profile): no shape."""
    skeleton = asset.skeleton
    parents = np.asarray(skeleton.parents)
    notes: List[str] = []

    def finish(legs: List[Leg], body: Optional[int] = None, from_roles: bool = False) -> LegMap:
        if body is None:
            body = roles.get("hips") if roles.has("hips") and all(
                roles.get("hips") in ancestors(parents, leg.foot) for leg in legs
            ) else common_ancestor(parents, [leg.foot for leg in legs])
        return LegMap(legs=legs, body=body, notes=notes, from_roles=from_roles, names=skeleton.names)

    if declared:
        legs, why = _declared_legs(skeleton, declared, "config", "[rig.legs]")
        if legs is None:
            return LegMap(unresolved=why, names=skeleton.names)
        return finish(legs)
    if not search:
        return LegMap(unresolved="the rig profile is none: only [rig.legs] declares legs", names=skeleton.names)
    entries, body_name, why = extras_leg_entries(asset)
    if why:
        notes.append(why)
    if entries:
        legs, why = _declared_legs(skeleton, entries, "extras", f"the file's leg map ({LEGS_KEY})")
        if legs is not None:
            body = None
            if body_name:
                body, _ = _bone(skeleton, body_name)
            return finish(legs, body)
        notes.append(why)
    rest = rest_positions_m(skeleton)
    if not np.all(np.isfinite(rest)):
        rest = np.nan_to_num(rest, nan=0.0, posinf=0.0, neginf=0.0)
    legs, why = _legs_by_words(skeleton)
    if legs:
        return finish(legs)
    if why:
        notes.append(why)
    legs, _ = _legs_by_roles(skeleton, roles, rest)
    if legs:
        return finish(legs, from_roles=True)
    if not shape:
        return LegMap(unresolved="no leg names match, and a named rig profile does not look for legs by shape", notes=notes, names=skeleton.names)
    frame, clip_name = first_frame_positions_m(asset)
    found = legs_by_shape(asset, rest, frame, clip_name)
    found.notes = notes + found.notes
    found.names = skeleton.names
    found.read_clips = True
    return found


_LEG_ROLES = {("left", "foot"): "left_foot", ("right", "foot"): "right_foot", ("left", "toe"): "left_toe", ("right", "toe"): "right_toe"}


def roles_with_legs(roles, legs: LegMap, skeleton, fill: bool = True):
    """The roles with hips and pair 0's feet/toes filled from the legs where the names did
    not resolve them (convention ``legs:<found_by>``); the role map keeps the legs.
    ``fill=False`` (a named rig profile) fills only from legs ``[rig.legs]`` declares, and
    from legs read from the profile's own foot names. Legs read from the foot roles fill only
    the hips: their body, the feet's nearest common ancestor, is the hips of a rig whose hips
    name no convention knows (Rigify's deform hips is ``DEF-spine``)."""
    roles.legs = legs
    if not legs.legs or not (fill or legs.from_roles or legs.legs[0].found_by == "config"):
        return roles
    names = skeleton.names
    fills: Dict[str, Tuple[int, str]] = {}
    if legs.body is not None:
        fills["hips"] = (legs.body, legs.legs[0].found_by)
    left, right = legs.pair_feet(0)
    if len(left) == 1 and len(right) == 1 and not legs.from_roles:
        for leg in (left[0], right[0]):
            fills[_LEG_ROLES[(leg.side, "foot")]] = (leg.foot, leg.found_by)
            if leg.toe is not None:
                fills[_LEG_ROLES[(leg.side, "toe")]] = (leg.toe, leg.found_by)
    from animsmith.core.roles import ROLES

    filled = False
    for role, (bone, how) in fills.items():
        if roles.has(role) or roles.unresolved.get(role, "").startswith("[rig.roles]"):
            continue
        filled = True
        roles.bones[role] = int(bone)
        roles.names[role] = str(names[bone])
        roles.conventions[role] = f"legs:{how}"
        roles.unresolved.pop(role, None)
    if filled and roles.profile == "unknown":
        roles.profile = f"legs:{legs.legs[0].found_by}"
    roles.bones = {r: roles.bones[r] for r in ROLES if r in roles.bones}
    roles.names = {r: roles.names[r] for r in ROLES if r in roles.names}
    roles.conventions = {r: roles.conventions[r] for r in ROLES if r in roles.conventions}
    return roles


#: resolved rigs kept by :func:`resolve_rig`, keyed by everything the resolution reads
#: (:func:`_rig_key`); the files of a pack usually share a handful of rig layouts
RIG_CACHE_SIZE = 64
RIG_CACHE: Dict[tuple, Any] = {}


def _rig_key(asset, profile, overrides, declared_legs) -> Optional[tuple]:
    """What the roles and legs of ``asset`` are resolved from, short of its clips: the
    skeleton's names, tree and rest pose (after ``[rig] units``), the file's leg map and
    the ``[rig]`` settings; None when something in it has no exact key."""
    sk = asset.skeleton
    ex = getattr(asset, "extras", None)
    try:
        arrays = tuple(
            np.ascontiguousarray(a).tobytes()
            for a in (sk.node_indices, sk.parents, sk.rest_translation, sk.rest_rotation, sk.rest_scale,
                      sk.rest_matrix, sk.has_matrix, sk.is_joint, sk.in_scene)
        )
        return (
            tuple(map(str, sk.names)), arrays, float(sk.metres_per_unit),
            repr(ex.get(LEGS_KEY)) if isinstance(ex, dict) and LEGS_KEY in ex else None,
            profile, None if overrides is None else tuple(overrides.items()), repr(declared_legs),
        )
    except Exception:  # noqa: BLE001 - an unusual skeleton is resolved every time
        return None


def resolve_rig(asset, profile: Optional[str] = "auto", overrides: Optional[Mapping[str, str]] = None, declared_legs=None):
    """Roles (``core.roles.resolve_roles``), then the legs, then the roles the legs supply
    (:func:`roles_with_legs`). The profile ``auto`` looks for legs everywhere; a named
    profile by config, leg map and names only (and takes roles from ``[rig.legs]`` only, and
    the hips from the legs its own foot names give);
    ``none`` from ``[rig.legs]`` only. ValueError for a bad profile or override.

    A rig resolved without reading the clips (every source but the shape rule) is kept
    (``memo.memo``, at most ``RIG_CACHE_SIZE``) and a copy (``RoleMap.copy``: no dict, list
    or leg shared) returned for the next file with the same skeleton and settings: the same
    roles and legs, resolved once per rig layout."""
    from animsmith.core.roles import normalise_profile, resolve_roles
    from animsmith.memo import memo

    key = _rig_key(asset, profile, overrides, declared_legs)
    kept = RIG_CACHE.get(key) if key is not None else None
    if kept is not None:
        return kept.copy()
    roles = resolve_roles(asset.skeleton, profile=profile, overrides=overrides)
    prof = normalise_profile(profile)
    legs = resolve_legs(asset, roles, declared_legs, search=prof != "none", shape=prof == "auto")
    out = roles_with_legs(roles, legs, asset.skeleton, fill=prof == "auto")
    if not legs.read_clips:
        memo(RIG_CACHE, RIG_CACHE_SIZE, key, out.copy)
    return out


def resolve_contract_rig(asset, rig):
    """:func:`resolve_rig` with a contract's ``[rig]`` table (``profile``, ``roles``,
    ``legs``: ``config.RigConfig``), as every command reads it."""
    return resolve_rig(asset, rig.profile, rig.roles or None, rig.legs or None)
