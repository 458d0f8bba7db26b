"""Rig roles: which bone is the hips, the left foot, ... across naming conventions.

``resolve_roles(skeleton, profile="auto", overrides=None) -> RoleMap``.

How a bone name is read, and the names each convention gives each role: :mod:`core.bonenames`.

Resolution
----------
* Nodes only another scene shows (not reachable from the default scene: a
  second character kept there) are no candidates, unless no convention
  matches anything in the default scene. Ranking of candidates for one role
  within one convention: default-scene nodes first, then joint bones before
  non-joint nodes (non-joint nodes are never hips/feet/toes/hands/
  spine/head when the skeleton has joints; they may be ``root`` by an exact
  convention name such as ``root`` or ``Bip01``, never by the generic word
  reading), then the
  layer prefix rank, then a case-exact name. **Two candidates that rank
  equally are never guessed**: the role is unresolved with a reason naming
  both.
* ``profile="auto"``: every convention is resolved; conventions with fewer
  than 2 roles are discarded; ``generic`` competes only when no named
  convention qualifies; the winner has the most resolved roles, then the
  most "signature" bones (names only that convention uses, e.g. ``LeftUpLeg``
  for mixamo, ``LeftUpperLeg`` for humanoid) plus namespace evidence
  (``mixamorig``), then the fixed order mixamo, ue-mannequin, humanoid,
  rigify, biped, generic. A role the winner did not resolve is filled from
  the other conventions when they propose exactly one bone; different bones
  -> unresolved naming them. When another convention scores equally with the
  winner but maps a role to a different bone, that role is unresolved.
* A named profile (``"mixamo"``, ``"ue-mannequin"``, ``"humanoid"``,
  ``"rigify"``, ``"biped"``, ``"generic"``; aliases ``ue``, ``unity``,
  ``vrm``, ``blender``, ``3dsmax``) resolves that convention only;
  ``"none"``/``"custom"`` resolves nothing but the overrides. Any other name ->
  ``ValueError``.
* An unresolved role's reason is the first that applies: equal candidates in
  a convention (naming them: two characters ``Char1:LeftFoot`` and
  ``Char2:LeftFoot``), a bone matched by a convention that was set aside for
  matching fewer than 2 roles, a matching node that is not a skin joint, the
  profile ``none``; else no bone matched.
* ``overrides`` ``{role: exact bone name}`` win role by role (convention
  ``"override"``); an unknown role -> ``ValueError``; a bone name that does
  not exist, or that several bones share, -> that role unresolved with the
  reason (as ``auto`` refuses to pick between equal candidates).

Profile label: the winning convention (``mixamo``...), ``custom`` when only
overrides resolved roles, ``<profile>+custom`` when both contributed,
``unknown`` when nothing resolved.
"""

from __future__ import annotations

import copy

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from animsmith.core.bonenames import (
    CONVENTION_SIGNATURES,
    biped_parts,
    match_generic,
    match_humanoid,
    match_mixamo,
    match_rigify,
    match_ue_mannequin,
    rigify_spine_chain,
    split_name,
)

ROLES = (
    "root",
    "hips",
    "spine",
    "head",
    "left_foot",
    "right_foot",
    "left_toe",
    "right_toe",
    "left_hand",
    "right_hand",
)

CONVENTIONS = ("mixamo", "ue-mannequin", "humanoid", "rigify", "biped", "generic")

PROFILE_ALIASES = {
    "auto": "auto",
    "mixamo": "mixamo",
    "ue-mannequin": "ue-mannequin",
    "ue": "ue-mannequin",
    "unreal": "ue-mannequin",
    "humanoid": "humanoid",
    "unity": "humanoid",
    "vrm": "humanoid",
    "rigify": "rigify",
    "blender": "rigify",
    "biped": "biped",
    "3dsmax": "biped",
    "generic": "generic",
    "none": "none",
    "custom": "none",
}

_LAYER_RANK = {"DEF": 3, "": 2, "ORG": 1, "MCH": 0}


@dataclass
class RoleMap:
    """Resolved roles of one skeleton.

    Attributes:
        profile: label (``mixamo``, ``ue-mannequin``, ``humanoid``, ``rigify``,
            ``biped``, ``generic``, ``custom``, ``<p>+custom``, ``unknown``).
        bones: {role: bone index} for resolved roles.
        names: {role: bone name}.
        conventions: {role: convention that matched, or ``"override"``}.
        unresolved: {role: reason} for every role in ROLES not resolved.
    """

    profile: str = "unknown"
    bones: Dict[str, int] = field(default_factory=dict)
    names: Dict[str, str] = field(default_factory=dict)
    conventions: Dict[str, str] = field(default_factory=dict)
    unresolved: Dict[str, str] = field(default_factory=dict)
    #: the rig's legs (``core.legs.LegMap``) once resolved (``core.legs.resolve_rig``)
    legs: Any = None

    def get(self, role: str) -> Optional[int]:
        return self.bones.get(role)

    def copy(self) -> "RoleMap":
        """A copy sharing no dict and no legs with this map (what a cached rig hands out: a
        caller may change its copy without touching the next file's)."""
        out = copy.copy(self)
        out.bones = dict(self.bones)
        out.names = dict(self.names)
        out.conventions = dict(self.conventions)
        out.unresolved = dict(self.unresolved)
        if self.legs is not None:
            out.legs = self.legs.copy()
        return out

    def has(self, role: str) -> bool:
        return role in self.bones

    def override_problems(self, roles) -> str:
        """``"; "``-joined reasons why ``[rig.roles]`` overrides of ``roles`` did not
        resolve (a typo in a bone name must be named where the role is missed), or ``""``."""
        return "; ".join(
            self.unresolved[r] for r in roles if self.unresolved.get(r, "").startswith("[rig.roles]")
        )

    def to_json(self) -> dict:
        out = {
            "profile": self.profile,
            "roles": {r: self.names[r] for r in ROLES if r in self.names},
            "conventions": {r: self.conventions[r] for r in ROLES if r in self.conventions},
            "unresolved": {r: self.unresolved[r] for r in ROLES if r in self.unresolved},
        }
        if self.legs is not None:
            out["legs"] = self.legs.to_json()
            if not self.legs.legs:
                out["legs_unavailable"] = self.legs.unresolved or "no legs found"
        return out


# --------------------------------------------------------------------------
# Resolution
# --------------------------------------------------------------------------


@dataclass
class _Outcome:
    bones: Dict[str, int] = field(default_factory=dict)
    ambiguous: Dict[str, str] = field(default_factory=dict)
    evidence: float = 0.0
    #: {role: bone} a name matched but left out (not a skin joint)
    skipped: Dict[str, int] = field(default_factory=dict)


def _candidates(
    skeleton, convention: str, parsed, skipped: Optional[Dict[str, int]] = None, scene_only: bool = False
) -> Dict[str, List[Tuple[tuple, int]]]:
    """{role: [(rank tuple, bone)]} of every bone matching ``convention``.

    Rank: in the default scene, skin joint, layer prefix, case-exact name.
    ``skipped`` collects {role: first bone} of name matches left out for not being
    skin joints (for the unresolved reason)."""
    any_joint = bool(getattr(skeleton, "is_joint", None) is not None and skeleton.is_joint.any())
    in_scene = getattr(skeleton, "in_scene", None)
    out: Dict[str, List[Tuple[tuple, int]]] = {}
    biped_roots: Dict[str, List[int]] = {}
    chain = rigify_spine_chain(parsed, skeleton.parents) if convention == "rigify" else {}
    for b, (ns, layer, stem) in enumerate(parsed):
        if scene_only and not in_scene[b]:
            continue
        if convention == "mixamo":
            matches = match_mixamo(ns, stem)
        elif convention == "ue-mannequin":
            matches = match_ue_mannequin(ns, stem)
        elif convention == "humanoid":
            matches = match_humanoid(ns, stem)
        elif convention == "rigify":
            matches = chain[b] if b in chain else match_rigify(ns, stem)
        elif convention == "biped":
            bp = biped_parts(stem)
            matches = [] if bp is None else [(bp[1], True)]
            if bp is not None:
                biped_roots.setdefault(bp[0], [])
        else:
            matches = match_generic(ns, stem)
        joint = bool(skeleton.is_joint[b]) if any_joint else True
        scene = 1 if in_scene is None else int(bool(in_scene[b]))
        for role, exact in matches:
            if any_joint and not joint and (role != "root" or convention == "generic"):
                if skipped is not None:
                    skipped.setdefault(role, b)
                continue
            rank = (scene, int(joint), _LAYER_RANK.get(layer, 0), int(exact))
            out.setdefault(role, []).append((rank, b))
    if convention == "biped" and biped_roots:
        for b, (ns, layer, stem) in enumerate(parsed):
            if stem in biped_roots and not (scene_only and not in_scene[b]):
                joint = bool(skeleton.is_joint[b]) if any_joint else True
                scene = 1 if in_scene is None else int(bool(in_scene[b]))
                out.setdefault("root", []).append(((scene, int(joint), 2, 1), b))
    return out


def _on_one_chain(skeleton, bones: Sequence[int]) -> Optional[int]:
    """The bone nearest the root when all ``bones`` lie on one parent chain, else None."""
    ordered = sorted(bones, key=lambda b: int(skeleton.depth[b]))
    for upper, lower in zip(ordered, ordered[1:]):
        p = int(skeleton.parents[lower])
        while p >= 0 and p != upper:
            p = int(skeleton.parents[p])
        if p != upper:
            return None
    return ordered[0]


def _resolve_convention(skeleton, convention: str, parsed, scene_only: bool = False) -> _Outcome:
    out = _Outcome()
    cands = _candidates(skeleton, convention, parsed, out.skipped, scene_only)
    names = skeleton.names
    for role, lst in cands.items():
        best = max(r for r, _ in lst)
        top = sorted({b for r, b in lst if r == best})
        if len(top) == 1:
            out.bones[role] = top[0]
            continue
        if convention == "generic":
            chain = _on_one_chain(skeleton, top)
            if chain is not None:
                out.bones[role] = chain
                continue
        shown = " and ".join(repr(names[b]) for b in top[:3]) + (" ..." if len(top) > 3 else "")
        out.ambiguous[role] = f"{_equally_good(len(top))} {convention} candidates: {shown}"
    # evidence for breaking ties between conventions with equal role counts
    sig = CONVENTION_SIGNATURES.get(convention, set())
    stems = {stem for _, _, stem in parsed}
    out.evidence = float(len(sig & stems))
    if convention == "mixamo":
        out.evidence += 2.0 * sum(1 for ns, _, _ in parsed if ns.lower().startswith("mixamorig"))
    return out


def normalise_profile(profile: Optional[str]) -> str:
    """The convention a ``[rig] profile`` value names (aliases resolved, ``None`` -> ``auto``);
    ``ValueError`` listing the accepted names for any other value."""
    key = "auto" if profile is None else str(profile).strip().lower()
    if key not in PROFILE_ALIASES:
        raise ValueError(
            f"unknown rig profile {profile!r} (expected one of: "
            + ", ".join(sorted(set(PROFILE_ALIASES)))
            + ")"
        )
    return PROFILE_ALIASES[key]


def _bone_by_exact_name(skeleton, name: str) -> Optional[int]:
    hits = [b for b, n in enumerate(skeleton.names) if n == name]
    if not hits:
        return None
    joints = [b for b in hits if bool(skeleton.is_joint[b])]
    return (joints or hits)[0]


def _exact_name_count(skeleton, name: str) -> int:
    """How many bones :func:`_bone_by_exact_name` chooses among: the skin joints named
    ``name`` when there are any, else every node of that name."""
    hits = [b for b, n in enumerate(skeleton.names) if n == name]
    joints = [b for b in hits if bool(skeleton.is_joint[b])]
    return len(joints or hits)


def validate_overrides(overrides: Optional[Mapping[str, str]]) -> Dict[str, str]:
    """Check override keys are roles and values strings; ValueError otherwise."""
    if not overrides:
        return {}
    clean: Dict[str, str] = {}
    for role, name in dict(overrides).items():
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r} in [rig.roles] (roles: {', '.join(ROLES)})")
        if not isinstance(name, str) or not name:
            raise ValueError(f"[rig.roles] {role} must be a non-empty bone name string")
        clean[role] = name
    return clean


_CACHE: Dict[tuple, RoleMap] = {}
_CACHE_MAX = 256


def _copy(rm: RoleMap) -> RoleMap:
    return RoleMap(rm.profile, dict(rm.bones), dict(rm.names), dict(rm.conventions), dict(rm.unresolved))


def _equally_good(count: int) -> str:
    """"two equally good", "three equally good", ... (the number of tied candidates)."""
    words = {2: "two", 3: "three", 4: "four", 5: "five"}
    return f"{words.get(count, str(count))} equally good"


def resolve_roles(skeleton, profile: Optional[str] = "auto", overrides: Optional[Mapping[str, str]] = None) -> RoleMap:
    """Resolve ROLES on ``skeleton`` (see the module docstring for every rule).

    Results are memoised on (names, parents, joints, scene membership, profile,
    overrides): a pack of files sharing one rig resolves once.
    """
    prof = normalise_profile(profile)
    ovr = validate_overrides(overrides)
    key = (
        tuple(str(n) for n in skeleton.names),
        np.asarray(skeleton.parents).tobytes(),
        np.asarray(skeleton.is_joint).tobytes(),
        np.asarray(getattr(skeleton, "in_scene", ())).tobytes(),
        prof,
        tuple(sorted(ovr.items())),
    )
    hit = _CACHE.get(key)
    if hit is None:
        hit = _resolve(skeleton, prof, ovr)
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        _CACHE[key] = hit
    return _copy(hit)


#: what an unresolved root role costs: the root is read only when there is no hips role
#: (core.trajectory.travel_bone_of_clip), so a static container above the skeleton needs no mapping
ROOT_ROLE_HINT = "needed only when no hips role resolves (a static container needs no mapping); then map it in [rig.roles]"


def _why_unmatched(role: str, prof: str, label: str, outcomes: Dict[str, "_Outcome"], names) -> str:
    """The reason ``role`` has no bone, from what the conventions saw (first that applies):
    equal candidates in a convention (e.g. two characters in one file), a match in a
    convention that was set aside for resolving fewer than 2 roles, a matching node
    that is not a skin joint; else no name matched. The hint that follows says what
    to do: map the role in ``[rig.roles]``; for the root role, :data:`ROOT_ROLE_HINT`."""
    fix = ROOT_ROLE_HINT if role == "root" else "map it in [rig.roles]"
    if prof == "none":
        return f"the rig profile is none: only [rig.roles] maps roles; {fix}"
    for c in CONVENTIONS:
        o = outcomes.get(c)
        if o is not None and role in o.ambiguous:
            return f"{o.ambiguous[role]}; {fix}"
    for c in CONVENTIONS:
        o = outcomes.get(c)
        if o is not None and role in o.bones and c != label:
            return (
                f"{names[o.bones[role]]!r} matches {role} in the {c} convention, which matched only "
                f"{len(o.bones)} role(s) (a rig needs 2 to be recognised); {fix}"
            )
    for c in CONVENTIONS:
        o = outcomes.get(c)
        if o is not None and role in o.skipped:
            return f"{names[o.skipped[role]]!r} matches {role} in the {c} convention but is not a skin joint; {fix}"
    where = f"the {label} profile" if label else (f"the {prof} profile" if prof != "auto" else "any known naming convention")
    return f"no bone matches {role} in {where}; {fix}"


def _resolve(skeleton, prof: str, ovr: Dict[str, str]) -> RoleMap:
    parsed = [split_name(str(n)) for n in skeleton.names]
    names = skeleton.names
    outcomes: Dict[str, _Outcome] = {}

    bones: Dict[str, int] = {}
    conv: Dict[str, str] = {}
    unresolved: Dict[str, str] = {}
    label = ""

    if prof not in ("none",):
        order = CONVENTIONS if prof == "auto" else (prof,)
        # nodes only another scene shows (a second character kept there) are no candidates,
        # unless the default scene holds nothing any convention matches
        in_scene = getattr(skeleton, "in_scene", None)
        scene_only = in_scene is not None and bool(np.any(in_scene)) and not bool(np.all(in_scene))
        outcomes = {c: _resolve_convention(skeleton, c, parsed, scene_only) for c in order}
        if scene_only and not any(o.bones or o.ambiguous for o in outcomes.values()):
            outcomes = {c: _resolve_convention(skeleton, c, parsed) for c in order}
        if prof == "auto":
            ranked = sorted(
                (
                    (len(o.bones), o.evidence, -CONVENTIONS.index(c), c)
                    for c, o in outcomes.items()
                    if len(o.bones) >= 2 and c != "generic"
                ),
                reverse=True,
            )
            if not ranked and len(outcomes["generic"].bones) >= 2:
                ranked = [(len(outcomes["generic"].bones), 0.0, 0, "generic")]
        else:
            ranked = [(len(outcomes[prof].bones), 0.0, 0, prof)]
        if ranked and ranked[0][0] > 0:
            winner = ranked[0][3]
            label = winner
            w = outcomes[winner]
            equals = [r[3] for r in ranked[1:] if r[0] == ranked[0][0] and r[1] == ranked[0][1]]
            for role in ROLES:
                if role in w.bones:
                    b = w.bones[role]
                    rivals = sorted({outcomes[c].bones[role] for c in equals if role in outcomes[c].bones} - {b})
                    if rivals:
                        shown = " and ".join(repr(names[x]) for x in [b] + rivals)
                        unresolved[role] = f"{_equally_good(1 + len(rivals))} candidates: {shown}"
                        continue
                    bones[role], conv[role] = b, winner
                elif role in w.ambiguous:
                    unresolved[role] = w.ambiguous[role]
                elif prof == "auto":
                    proposals: Dict[int, str] = {}
                    for c in CONVENTIONS:
                        o = outcomes[c]
                        if c != winner and role in o.bones:
                            proposals.setdefault(o.bones[role], c)
                    if len(proposals) == 1:
                        (b, c), = proposals.items()
                        bones[role], conv[role] = b, c
                    elif len(proposals) > 1:
                        shown = " and ".join(f"{names[b]!r} ({c})" for b, c in proposals.items())
                        unresolved[role] = f"{_equally_good(len(proposals))} candidates: {shown}"
        elif prof != "auto" and outcomes[prof].ambiguous:
            label = prof
            unresolved.update(outcomes[prof].ambiguous)

    custom = False
    for role, name in ovr.items():
        b = _bone_by_exact_name(skeleton, name)
        same = _exact_name_count(skeleton, name)
        if b is None or same > 1:
            bones.pop(role, None)
            conv.pop(role, None)
            unresolved[role] = (
                f"[rig.roles] {role} = {name!r}: no bone with that exact name" if b is None
                else f"[rig.roles] {role} = {name!r}: {same} bones have that exact name (rename one in the source)"
            )
            continue
        bones[role], conv[role] = b, "override"
        unresolved.pop(role, None)
        custom = True

    for role in ROLES:
        if role not in bones and role not in unresolved:
            unresolved[role] = _why_unmatched(role, prof, label, outcomes if prof != "none" else {}, names)

    used_profile = bool(label) and any(c != "override" for c in conv.values())
    if used_profile and custom:
        final = f"{label}+custom"
    elif used_profile:
        final = label
    elif custom:
        final = "custom"
    else:
        final = "unknown"
    return RoleMap(
        profile=final,
        bones={r: bones[r] for r in ROLES if r in bones},
        names={r: str(names[bones[r]]) for r in ROLES if r in bones},
        conventions={r: conv[r] for r in ROLES if r in conv},
        unresolved={r: unresolved[r] for r in ROLES if r in unresolved},
    )


# --------------------------------------------------------------------------
# Mirror bones
# --------------------------------------------------------------------------

#: a side marker in a bone name: the words Left/Right (any case, not inside another
#: word) or a lone L/R letter between separators (``thigh_l``, ``Foot.L``, ``J_Bip_L_Foot``)
_SIDE_MARK = re.compile(r"(?<![a-z])(Left|LEFT)|(?<![A-Za-z])left|(?<![a-z])(Right|RIGHT)|(?<![A-Za-z])right"
                        r"|(?<![A-Za-z])[LlRr](?![A-Za-z])")
_SIDE_SWAP = {"Left": "Right", "LEFT": "RIGHT", "left": "right", "Right": "Left", "RIGHT": "LEFT", "right": "left",
              "L": "R", "l": "r", "R": "L", "r": "l"}


def _digitless(name: str) -> str:
    return re.sub(r"\d+", "", name)


def mirror_bones(names: Sequence[str]) -> np.ndarray:
    """(B,) int: each bone's mirror (the bone named like it with left and right swapped,
    digits ignored: ``b_LeftFoot01_017`` ↔ ``b_RightFoot01_021``, ``thigh_l`` ↔ ``thigh_r``,
    ``Foot.L`` ↔ ``Foot.R``), or −1 when it has no side or its mirror is not one unique bone."""
    keys: Dict[str, List[int]] = {}
    for i, n in enumerate(names):
        keys.setdefault(_digitless(n), []).append(i)
    out = np.full(len(names), -1, dtype=np.int64)
    for i, n in enumerate(names):
        key = _digitless(n)
        swapped = _SIDE_MARK.sub(lambda m: _SIDE_SWAP[m.group(0)], key)
        hits = keys.get(swapped, []) if swapped != key else []
        if len(hits) == 1 and len(keys[key]) == 1:
            out[i] = hits[0]
    return out
