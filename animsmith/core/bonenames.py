"""Bone names: how a name is read and which role each naming convention gives it.

How a bone name is read
-----------------------
1. Namespaces are stripped: the part after the last ``:`` (``Char1:Hips`` ->
   ``Hips``, ``mixamorig7:LeftFoot`` -> ``LeftFoot``) and after the last ``|``.
   three.js drops the ``:`` from node names (``PropertyBinding.sanitizeNodeName``),
   so a Mixamo rig re-exported by its ``GLTFExporter`` names its hips
   ``mixamorigHips``, and Godot's glTF importer writes it as ``_``
   (``mixamorig_Hips`` in what Godot exports): a ``mixamorig``/``mixamorigN`` prefix
   fused to a capitalised name, or joined to it by ``_``, is read as that namespace
   (``mixamorigLeftFoot``, ``mixamorig_LeftFoot`` -> ``LeftFoot``).
2. A Blender/Rigify layer prefix ``DEF-`` / ``ORG-`` / ``MCH-`` is set aside
   and ranks the match (DEF- deform bones are preferred, then no prefix, then
   ORG-, then MCH-).

Conventions (``RoleMap.conventions`` names the one that matched each role)
--------------------------------------------------------------------------
* ``mixamo``: ``Hips``, ``Spine``, ``Head``, ``LeftFoot``, ``LeftToeBase``,
  ``LeftHand`` (+ Right*), any ``mixamorigN:`` namespace or none; no root.
* ``ue-mannequin``: ``root``, ``pelvis``, ``spine_01``, ``head``, ``foot_l``,
  ``ball_l``, ``hand_l`` (+ ``_r``).
* ``humanoid`` (Unity / VRM): ``Hips``, ``Spine``, ``Head``, ``LeftFoot``,
  ``LeftToes``, ``LeftHand``; VRoid ``J_Bip_C_Hips``, ``J_Bip_L_Foot``,
  ``J_Bip_L_ToeBase``...
* ``rigify`` (Blender): ``root``, ``hips``/``pelvis``, ``spine``, ``head``,
  ``foot``/``toe``/``hand`` with a side suffix ``.L``/``.R``, ``_L``, ``.l``,
  ``-L``, ``.Left``...; base words compare case-insensitively (a case-exact
  match ranks higher). Rigify's spine chain (:func:`rigify_spine_chain`):
  ``spine`` with a ``spine.001`` child is the hips (``DEF-spine`` in a
  deform-only export), ``spine.001`` the spine, the top of a chain reaching
  ``spine.006`` the head, unless the rig also names a ``hips``/``pelvis`` (or
  ``head``) bone. A ``spine`` under ``spine.001`` is the tail tip of an animal
  metarig (the wolf's) and no role.
* ``biped`` (3ds Max): ``<base> Pelvis``, ``<base> Spine``, ``<base> Head``,
  ``<base> L Foot``, ``<base> L Toe0``, ``<base> L Hand``; root = the bone
  named ``<base>`` itself (``Bip01``).
* ``generic`` (last resort): the name split into words (camelCase, ``_``,
  ``.``, ``-``; digits dropped), e.g. ``b_LeftFoot01_017`` -> left + foot.
  Names carrying IK/pole/target/control/end/twist/roll/helper words never match.
  When several bones match one role and they all lie on one parent chain (Fox:
  ``b_LeftFoot01`` -> ``b_LeftFoot02``) the one nearest the root is taken.
"""

from __future__ import annotations

import re
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple


# --------------------------------------------------------------------------
# Reading names
# --------------------------------------------------------------------------


#: a Mixamo namespace whose ``:`` three.js removed or Godot made ``_``: ``mixamorigHips``,
#: ``mixamorig2LeftFoot``, ``mixamorig_Hips``
_FUSED_MIXAMO_RE = re.compile(r"^(mixamorig\d*)_?([A-Z].*)$")


def split_name(name: str) -> Tuple[str, str, str]:
    """``name`` -> (namespace, layer prefix, stem): ``"c:DEF-foot.L"`` -> ("c", "DEF", "foot.L")."""
    ns = ""
    stem = name
    for sep in (":", "|"):
        if sep in stem:
            head, stem = stem.rsplit(sep, 1)
            ns = (ns + sep + head) if ns else head
    if not ns:
        fused = _FUSED_MIXAMO_RE.match(stem)
        if fused:
            ns, stem = fused.group(1), fused.group(2)
    m = re.match(r"^(DEF|ORG|MCH)[-_.](.+)$", stem)
    if m:
        return ns, m.group(1), m.group(2)
    return ns, "", stem


_WORD_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
#: words that mark a bone as a helper (IK target, pole, control, twist, end, prop...), never a
#: body part, whatever else its name says
GENERIC_STOP_WORDS = {
    "ik", "fk", "pole", "target", "tgt", "ctrl", "control", "ctl", "end", "twist", "roll",
    "helper", "aux", "nub", "tip", "null", "rev", "reverse", "ref", "offset", "locator", "loc",
    "grip", "prop", "weapon", "mch", "org", "socket", "effector", "goal", "constraint",
}
_GENERIC_PART = {
    "hip": "hips", "hips": "hips", "pelvis": "hips",
    "foot": "foot", "feet": "foot", "ankle": "foot",
    "toe": "toe", "toes": "toe", "toebase": "toe", "ball": "toe",
    "hand": "hand", "wrist": "hand",
    "head": "head",
    "spine": "spine",
    "root": "root",
}


def name_words(stem: str) -> List[str]:
    """Lower-case words of a name, digits dropped: ``b_LeftFoot01_017`` -> [b, left, foot]."""
    words: List[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", stem):
        for w in _WORD_RE.findall(chunk):
            if not w.isdigit():
                words.append(w.lower())
    return words


# --------------------------------------------------------------------------
# Conventions: stem -> [(role, case_exact)]
# --------------------------------------------------------------------------

def _exact_table(table: Mapping[str, Sequence[str]]) -> Callable[[str, str], List[Tuple[str, bool]]]:
    lookup: Dict[str, List[str]] = {}
    for role, names in table.items():
        for n in names:
            lookup.setdefault(n, []).append(role)

    def match(ns: str, stem: str) -> List[Tuple[str, bool]]:
        if stem in lookup:
            return [(r, True) for r in lookup[stem]]
        return []

    return match


match_mixamo = _exact_table(
    {
        "hips": ["Hips"], "spine": ["Spine"], "head": ["Head"],
        "left_foot": ["LeftFoot"], "right_foot": ["RightFoot"],
        "left_toe": ["LeftToeBase"], "right_toe": ["RightToeBase"],
        "left_hand": ["LeftHand"], "right_hand": ["RightHand"],
    }
)
match_ue_mannequin = _exact_table(
    {
        "root": ["root"], "hips": ["pelvis"], "spine": ["spine_01"], "head": ["head"],
        "left_foot": ["foot_l"], "right_foot": ["foot_r"],
        "left_toe": ["ball_l"], "right_toe": ["ball_r"],
        "left_hand": ["hand_l"], "right_hand": ["hand_r"],
    }
)
match_humanoid = _exact_table(
    {
        "hips": ["Hips", "J_Bip_C_Hips"], "spine": ["Spine", "J_Bip_C_Spine"],
        "head": ["Head", "J_Bip_C_Head"],
        "left_foot": ["LeftFoot", "J_Bip_L_Foot"], "right_foot": ["RightFoot", "J_Bip_R_Foot"],
        "left_toe": ["LeftToes", "J_Bip_L_ToeBase"], "right_toe": ["RightToes", "J_Bip_R_ToeBase"],
        "left_hand": ["LeftHand", "J_Bip_L_Hand"], "right_hand": ["RightHand", "J_Bip_R_Hand"],
    }
)

_RIGIFY_SIDED = re.compile(r"^(foot|toe|hand)(?:[._-]?)(L|R|Left|Right)$", re.IGNORECASE)
_RIGIFY_CENTRE = {"root": "root", "hips": "hips", "pelvis": "hips", "spine": "spine", "head": "head"}


def match_rigify(ns: str, stem: str) -> List[Tuple[str, bool]]:
    low = stem.lower()
    if low in _RIGIFY_CENTRE:
        return [(_RIGIFY_CENTRE[low], stem == low)]
    m = _RIGIFY_SIDED.match(stem)
    if not m:
        return []
    base, side = m.group(1), m.group(2)
    # a separator is required for the short L/R form ("footl" is not a side suffix)
    if len(side) == 1 and len(stem) == len(base) + 1:
        return []
    side_word = "left" if side.lower().startswith("l") else "right"
    role = f"{side_word}_{base.lower()}"
    exact = base == base.lower() and side in ("L", "R") and stem[len(base)] == "."
    return [(role, exact)]


#: Rigify's spine chain: ``spine`` (the hips: the metarig's pelvis bone), ``spine.001`` up the
#: back, the human metarig's head at ``spine.006`` (``DEF-`` / ``ORG-`` / plain alike)
_RIGIFY_CHAIN_RE = re.compile(r"^spine\.(\d{3})$", re.IGNORECASE)
RIGIFY_HEAD_LINK = 6


def rigify_spine_chain(parsed: Sequence[Tuple[str, str, str]], parents: Sequence[int]) -> Dict[int, List[Tuple[str, bool]]]:
    """{bone: [(role, case_exact)]} of the Rigify spine chains of a skeleton, replacing what
    :func:`match_rigify` reads from those bones' names alone.

    A chain is a bone ``spine`` followed child by child by ``spine.001``, ``spine.002``...
    (same namespace and layer prefix). Rigify names its hips ``spine`` (the metarig's
    pelvis bone, ``DEF-spine`` in a deform-only export), so with a ``spine.001`` child:
    ``spine`` is the hips, ``spine.001`` the spine, and the top of a chain that reaches
    ``spine.006`` (the human metarig's head) the head. A rig that also names a bone
    ``hips``/``pelvis`` (or ``head``) in the same namespace and layer keeps that name's
    reading: its ``spine`` stays the spine (and no chain bone is the head).

    Rigify's animal metarigs (the wolf's among them) run the chain the other way: the pelvis is a
    link in the middle (``spine.004`` in the wolf's), the tail goes down to ``spine.001`` and
    ends in ``spine``, its tip. A ``spine`` whose parent is ``spine.001`` is that tip, and no
    role (the hips then come from the legs: the feet's nearest common ancestor).
    """
    children: Dict[int, List[int]] = {}
    for b, p in enumerate(parents):
        if int(p) >= 0:
            children.setdefault(int(p), []).append(b)
    named = {(ns, layer, stem.lower()) for ns, layer, stem in parsed}
    out: Dict[int, List[Tuple[str, bool]]] = {}
    for b, (ns, layer, stem) in enumerate(parsed):
        if stem.lower() != "spine":
            continue
        up = int(parents[b])
        if up >= 0 and parsed[up][:2] == (ns, layer) and _link(parsed[up][2]) == 1:
            out[b] = []  # an animal metarig's tail tip: no role
            continue
        if (ns, layer, "hips") in named or (ns, layer, "pelvis") in named:
            continue
        chain = [b]
        while True:
            nxt = [
                c for c in children.get(chain[-1], ())
                if parsed[c][:2] == (ns, layer) and _link(parsed[c][2]) == len(chain)
            ]
            if len(nxt) != 1:
                break
            chain.append(nxt[0])
        if len(chain) < 2:
            continue
        out[b] = [("hips", stem == "spine")]
        out[chain[1]] = [("spine", parsed[chain[1]][2] == parsed[chain[1]][2].lower())]
        if len(chain) > RIGIFY_HEAD_LINK and (ns, layer, "head") not in named:
            top = parsed[chain[-1]][2]
            out[chain[-1]] = [("head", top == top.lower())]
    return out


def _link(stem: str) -> int:
    """The number of a Rigify chain link ``spine.NNN`` (``spine.003`` -> 3), else −1."""
    m = _RIGIFY_CHAIN_RE.match(stem)
    return int(m.group(1)) if m else -1


_BIPED_RE = re.compile(r"^(?P<base>\S+?) (?P<part>Pelvis|Spine|Head|L Foot|R Foot|L Toe0|R Toe0|L Hand|R Hand)$")
_BIPED_PART = {
    "Pelvis": "hips", "Spine": "spine", "Head": "head",
    "L Foot": "left_foot", "R Foot": "right_foot", "L Toe0": "left_toe", "R Toe0": "right_toe",
    "L Hand": "left_hand", "R Hand": "right_hand",
}


def biped_parts(stem: str) -> Optional[Tuple[str, str]]:
    m = _BIPED_RE.match(stem)
    if not m:
        return None
    return m.group("base"), _BIPED_PART[m.group("part")]


def match_generic(ns: str, stem: str) -> List[Tuple[str, bool]]:
    words = name_words(stem)
    if not words or any(w in GENERIC_STOP_WORDS for w in words):
        return []
    parts = [_GENERIC_PART[w] for w in words if w in _GENERIC_PART]
    if len(parts) != 1:
        return []
    part = parts[0]
    sides = {("left" if w in ("left", "l", "lf", "lft") else "right") for w in words if w in ("left", "l", "lf", "lft", "right", "r", "rt", "rgt")}
    if part in ("foot", "toe", "hand"):
        if len(sides) != 1:
            return []
        return [(f"{sides.pop()}_{part}", False)]
    if sides:
        return []
    return [(part, False)]


CONVENTION_SIGNATURES = {
    "mixamo": {"LeftUpLeg", "RightUpLeg", "LeftArm", "Spine1", "Spine2", "LeftForeArm", "LeftToe_End"},
    "ue-mannequin": {"thigh_l", "calf_l", "spine_02", "clavicle_l"},
    "humanoid": {"LeftUpperLeg", "LeftLowerLeg", "LeftUpperArm", "UpperChest", "Chest", "J_Bip_L_UpperLeg"},
    "rigify": {"thigh.L", "shin.L", "upper_arm.L", "forearm.L", "spine.001"},
    "biped": set(),
    "generic": set(),
}
