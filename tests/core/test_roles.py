"""Role resolution across naming conventions, overrides and the corpus rigs."""

import os

import numpy as np
import pytest

from animsmith.core.bonenames import name_words, split_name
from animsmith.core.roles import ROLES, resolve_roles
from animsmith.model import Skeleton

LOCO = ("hips", "left_foot", "right_foot", "left_toe", "right_toe")


def chain_skeleton(names, parents=None, is_joint=None):
    """Bones in the given order; default parents: a hips-rooted star (bone 0 = parent of all)."""
    if parents is None:
        parents = [-1] + [0] * (len(names) - 1)
    return Skeleton.build(names, parents, is_joint=is_joint)


def legs(hips, lf, lt, rf, rt, extra=(), root=None):
    """root? -> hips -> (lf -> lt), (rf -> rt), extras under hips."""
    names, parents = [], []
    if root is not None:
        names.append(root)
        parents.append(-1)
    h = len(names)
    names.append(hips)
    parents.append(h - 1 if root is not None else -1)
    for foot, toe in ((lf, lt), (rf, rt)):
        names.append(foot)
        parents.append(h)
        names.append(toe)
        parents.append(len(names) - 2)
    for e in extra:
        names.append(e)
        parents.append(h)
    return Skeleton.build(names, parents)


def assert_roles(rm, expected, convention):
    for role, name in expected.items():
        assert rm.names.get(role) == name, (role, rm.names, rm.unresolved)
        assert rm.conventions[role] == convention


def test_split_name_and_words():
    assert split_name("Char1:DEF-foot.L") == ("Char1", "DEF", "foot.L")
    assert split_name("mixamorig7:LeftToeBase") == ("mixamorig7", "", "LeftToeBase")
    assert name_words("b_LeftFoot01_017") == ["b", "left", "foot"]
    assert split_name("mixamorigLeftToeBase") == ("mixamorig", "", "LeftToeBase")
    assert split_name("mixamorig3Hips") == ("mixamorig3", "", "Hips")
    # a fused prefix needs a capitalised name after it, and a colon namespace keeps its reading
    assert split_name("mixamorigs") == ("", "", "mixamorigs")
    assert split_name("Char:mixamorigHips") == ("Char", "", "mixamorigHips")
    # Godot's glTF importer writes the colon as '_' (GLTFDocument::_sanitize_bone_name)
    assert split_name("mixamorig_LeftFoot") == ("mixamorig", "", "LeftFoot")
    assert split_name("mixamorig12_Hips") == ("mixamorig12", "", "Hips")
    assert split_name("mixamorig_hips") == ("", "", "mixamorig_hips")


@pytest.mark.parametrize("ns", ["mixamorig:", "mixamorig1:", "mixamorig12:", "", "mixamorig", "mixamorig2", "mixamorig_", "mixamorig3_"])
def test_mixamo_any_namespace(ns):
    """``mixamorig``/``mixamorig2`` without the colon: three.js's GLTFExporter writes the names
    its loader sanitised (``PropertyBinding.sanitizeNodeName`` drops ``:``); ``mixamorig_``: Godot's
    glTF importer writes ``:`` as ``_``."""
    sk = legs(
        f"{ns}Hips", f"{ns}LeftFoot", f"{ns}LeftToeBase", f"{ns}RightFoot", f"{ns}RightToeBase",
        extra=[f"{ns}LeftUpLeg", f"{ns}Spine", f"{ns}Head", f"{ns}LeftHand", f"{ns}RightHand"],
    )
    rm = resolve_roles(sk)
    assert rm.profile == "mixamo"
    assert_roles(
        rm,
        {"hips": f"{ns}Hips", "left_foot": f"{ns}LeftFoot", "right_toe": f"{ns}RightToeBase",
         "spine": f"{ns}Spine", "head": f"{ns}Head", "left_hand": f"{ns}LeftHand"},
        "mixamo",
    )
    assert "root" in rm.unresolved  # mixamo has no root bone


def test_ue_mannequin():
    sk = legs("pelvis", "foot_l", "ball_l", "foot_r", "ball_r", extra=["spine_01", "head", "hand_l", "hand_r", "thigh_l"], root="root")
    rm = resolve_roles(sk)
    assert rm.profile == "ue-mannequin"
    assert_roles(rm, {"root": "root", "hips": "pelvis", "left_toe": "ball_l", "right_foot": "foot_r", "spine": "spine_01"}, "ue-mannequin")
    assert not rm.unresolved


def test_unity_humanoid_and_vroid():
    rm = resolve_roles(legs("Hips", "LeftFoot", "LeftToes", "RightFoot", "RightToes", extra=["LeftUpperLeg"]))
    assert rm.profile == "humanoid"
    assert_roles(rm, {"hips": "Hips", "left_toe": "LeftToes", "right_toe": "RightToes"}, "humanoid")
    rm2 = resolve_roles(legs("J_Bip_C_Hips", "J_Bip_L_Foot", "J_Bip_L_ToeBase", "J_Bip_R_Foot", "J_Bip_R_ToeBase"))
    assert rm2.profile == "humanoid" and rm2.names["left_toe"] == "J_Bip_L_ToeBase"


def test_mixamo_and_humanoid_told_apart_by_toe_names():
    # Hips/LeftFoot are shared; LeftToeBase is mixamo, LeftToes is humanoid
    assert resolve_roles(legs("Hips", "LeftFoot", "LeftToeBase", "RightFoot", "RightToeBase")).profile == "mixamo"
    assert resolve_roles(legs("Hips", "LeftFoot", "LeftToes", "RightFoot", "RightToes")).profile == "humanoid"


def test_rigify_prefers_def_bones():
    names = ["root", "DEF-hips", "ORG-foot.L", "MCH-foot.L", "DEF-foot.L", "DEF-toe.L", "ORG-foot.R", "DEF-foot.R", "DEF-toe.R", "DEF-thigh.L"]
    parents = [-1, 0, 1, 1, 1, 4, 1, 1, 7, 1]
    rm = resolve_roles(Skeleton.build(names, parents))
    assert rm.profile == "rigify"
    assert_roles(rm, {"hips": "DEF-hips", "left_foot": "DEF-foot.L", "right_foot": "DEF-foot.R", "left_toe": "DEF-toe.L"}, "rigify")


def rigify_spine_rig(prefix="DEF-", links=6, extra=()):
    """Rigify's human spine as its metarig lays it out: ``spine`` (the pelvis) with the
    thighs under it, ``spine.001`` .. ``spine.00<links>`` up the back (``spine.004`` on is
    the neck, ``spine.006`` the head), feet and toes under the thighs; ``extra`` bones hang
    from the scene root ``Armature``."""
    names = ["Armature", f"{prefix}spine"] + [f"{prefix}spine.{i:03d}" for i in range(1, links + 1)]
    parents = [-1, 0] + list(range(1, links + 1))
    for side in ("L", "R"):
        thigh = len(names)
        names += [f"{prefix}thigh.{side}", f"{prefix}foot.{side}", f"{prefix}toe.{side}"]
        parents += [1, thigh, thigh + 1]
    for e in extra:
        names.append(e)
        parents.append(0)
    return Skeleton.build(names, parents)


def test_rigify_spine_chain_gives_hips_spine_and_head():
    # deform-only export: DEF-spine is the hips, DEF-spine.001 the spine, DEF-spine.006 the head
    rm = resolve_roles(rigify_spine_rig())
    assert rm.profile == "rigify"
    assert_roles(rm, {"hips": "DEF-spine", "spine": "DEF-spine.001", "head": "DEF-spine.006"}, "rigify")
    assert rm.names["left_foot"] == "DEF-foot.L" and rm.names["right_toe"] == "DEF-toe.R"
    # the metarig itself (plain names) reads the same, with the rigify profile named too
    for profile in ("auto", "rigify"):
        rm = resolve_roles(rigify_spine_rig(prefix=""), profile)
        assert (rm.names["hips"], rm.names["spine"], rm.names["head"]) == ("spine", "spine.001", "spine.006")
    # a chain that stops below spine.006 has no head to give; the hips and spine still read
    rm = resolve_roles(rigify_spine_rig(links=3))
    assert (rm.names["hips"], rm.names["spine"]) == ("DEF-spine", "DEF-spine.001") and "head" not in rm.names
    # a head bone by name wins over the top of the chain
    rm = resolve_roles(rigify_spine_rig(extra=["DEF-head"]))
    assert rm.names["head"] == "DEF-head" and rm.names["spine"] == "DEF-spine.001"


def test_an_animal_metarigs_spine_is_its_tail_tip_and_no_role():
    """Rigify's wolf metarig: the pelvis spine.004 at the top of the tree, the tail running
    down spine.003, .002, .001 to spine (the tip), the back up spine.005 .. spine.011 (the
    head), the thighs under spine.005. Its bone named spine is the end of the tail: neither
    the hips nor the spine."""
    names = ["Armature", "DEF-spine.004", "DEF-spine.003", "DEF-spine.002", "DEF-spine.001", "DEF-spine"]
    parents = [-1, 0, 1, 2, 3, 4]
    for i in range(5, 12):
        names.append(f"DEF-spine.{i:03d}")
        parents.append(1 if i == 5 else len(names) - 2)
    for side in ("L", "R"):
        thigh = len(names)
        names += [f"DEF-thigh.{side}", f"DEF-foot.{side}", f"DEF-toe.{side}"]
        parents += [names.index("DEF-spine.005"), thigh, thigh + 1]
    rm = resolve_roles(Skeleton.build(names, parents))
    assert rm.profile == "rigify" and rm.names["left_foot"] == "DEF-foot.L"
    assert "DEF-spine" not in rm.names.values()
    assert "hips" not in rm.names and "spine" not in rm.names


def test_a_rig_that_names_its_hips_keeps_spine_as_the_spine():
    # hips > spine > spine.001: the name "hips" says which bone is the hips, and spine is the spine
    names = ["hips", "spine", "spine.001", "foot.L", "foot.R"]
    rm = resolve_roles(Skeleton.build(names, [-1, 0, 1, 0, 0]))
    assert (rm.names["hips"], rm.names["spine"]) == ("hips", "spine")
    # a generated Rigify rig exported whole (no skin): the controls "hips" and "head" and the
    # deform chain; deform bones rank first, so the hips and head are DEF-spine and DEF-spine.006
    rm = resolve_roles(rigify_spine_rig(extra=["hips", "head"]))
    assert (rm.names["hips"], rm.names["spine"], rm.names["head"]) == ("DEF-spine", "DEF-spine.001", "DEF-spine.006")


@pytest.mark.parametrize("suffix", [(".L", ".R"), ("_L", "_R"), (".l", ".r"), ("Left", "Right")])
def test_rigify_side_variants(suffix):
    l, r = suffix
    sep = "." if suffix[0] in ("Left",) else ""
    rm = resolve_roles(legs("hips", f"foot{sep}{l}", f"toe{sep}{l}", f"foot{sep}{r}", f"toe{sep}{r}"))
    assert rm.names["left_foot"] == f"foot{sep}{l}" and rm.names["right_toe"] == f"toe{sep}{r}"


def test_3dsmax_biped():
    sk = legs("Bip01 Pelvis", "Bip01 L Foot", "Bip01 L Toe0", "Bip01 R Foot", "Bip01 R Toe0", extra=["Bip01 Spine", "Bip01 Head"], root="Bip01")
    rm = resolve_roles(sk)
    assert rm.profile == "biped"
    assert_roles(rm, {"root": "Bip01", "hips": "Bip01 Pelvis", "left_toe": "Bip01 L Toe0", "right_foot": "Bip01 R Foot", "head": "Bip01 Head"}, "biped")


def test_namespace_prefix_is_stripped():
    rm = resolve_roles(legs("Char1:pelvis", "Char1:foot_l", "Char1:ball_l", "Char1:foot_r", "Char1:ball_r", root="Char1:root"))
    assert rm.profile == "ue-mannequin"
    assert rm.names["hips"] == "Char1:pelvis" and rm.names["root"] == "Char1:root"


def test_two_equally_good_candidates_are_unresolved_naming_both():
    names = ["Char1:Hips", "Char1:LeftFoot", "Char1:RightFoot", "Char2:LeftFoot"]
    rm = resolve_roles(chain_skeleton(names))
    assert "left_foot" not in rm.bones
    reason = rm.unresolved["left_foot"]
    assert "Char1:LeftFoot" in reason and "Char2:LeftFoot" in reason
    assert rm.names["right_foot"] == "Char1:RightFoot"


def _two_characters():
    names = []
    for ns in ("Char1:", "Char2:"):
        names += [ns + n for n in ("Hips", "Spine", "Head", "LeftFoot", "LeftToeBase", "RightFoot", "RightToeBase")]
    parents = [-1, 0, 1, 0, 3, 0, 5]
    return names, parents + [p + 7 if p >= 0 else -1 for p in parents]


def test_two_complete_characters_name_both_in_every_reason():
    """No convention resolves a role (every one is a tie), so none qualifies: the reason
    is still the tie, naming both bones, not "no bone matches"."""
    names, parents = _two_characters()
    rm = resolve_roles(Skeleton.build(names, parents))
    assert rm.bones == {} and rm.profile == "unknown"
    for role, stem in (("hips", "Hips"), ("left_foot", "LeftFoot"), ("right_toe", "RightToeBase")):
        reason = rm.unresolved[role]
        assert f"'Char1:{stem}'" in reason and f"'Char2:{stem}'" in reason, reason


def test_a_character_outside_the_default_scene_is_no_rival():
    names, parents = _two_characters()
    sk = Skeleton.build(names, parents)
    sk.in_scene = np.array([True] * 7 + [False] * 7)  # Char2 only in another scene
    rm = resolve_roles(sk)
    assert rm.profile == "mixamo"
    assert rm.names["hips"] == "Char1:Hips" and rm.names["right_toe"] == "Char1:RightToeBase"
    # the same names all in the scene again: a tie (the memo tells the two apart)
    assert "hips" not in resolve_roles(Skeleton.build(names, parents)).bones


def test_unresolved_reasons_say_why_a_matching_name_was_not_taken():
    # a convention with one role is set aside (a rig needs 2), but its match is named
    rm = resolve_roles(chain_skeleton(["Hips", "thing"]))
    assert rm.unresolved["hips"].startswith("'Hips' matches hips in the mixamo convention, which matched only 1 role(s)")
    # a node that matches by name but is not a skin joint
    sk = Skeleton.build(["Hips", "LeftFoot", "RightFoot", "Hand.L"], [-1, 0, 0, 0], is_joint=[True, True, True, False])
    rm = resolve_roles(sk)
    assert rm.names["hips"] == "Hips"
    assert rm.unresolved["left_hand"].startswith("'Hand.L' matches left_hand in the rigify convention but is not a skin joint")
    # profile none: only overrides
    rm = resolve_roles(chain_skeleton(["Hips", "LeftFoot"]), profile="none")
    assert rm.unresolved["hips"].startswith("the rig profile is none")
    # nothing matched at all
    assert resolve_roles(chain_skeleton(["a", "b"])).unresolved["hips"].startswith("no bone matches hips in any known")


def test_conflicting_conventions_with_equal_score_do_not_guess():
    # "Hips"/"LeftFoot"/"RightFoot" (mixamo/humanoid) and "pelvis"/"foot_l"/"foot_r" (UE)
    names = ["Hips", "LeftFoot", "RightFoot", "pelvis", "foot_l", "foot_r"]
    rm = resolve_roles(chain_skeleton(names))
    for role in ("hips", "left_foot", "right_foot"):
        assert role not in rm.bones
        assert "equally good" in rm.unresolved[role]


def test_non_joint_node_never_takes_a_foot_role():
    # a mesh node named like the foot bone (RobotExpressive pattern) is not a candidate
    names = ["Hips", "LeftFoot", "LeftFoot", "RightFoot"]
    sk = Skeleton.build(names, [-1, 0, 1, 0], is_joint=[True, True, False, True])
    rm = resolve_roles(sk)
    assert rm.bones["left_foot"] == 1


def test_overrides_win_and_validate():
    sk = legs("pelvis", "foot_l", "ball_l", "foot_r", "ball_r", extra=["custom_hip"], root="root")
    rm = resolve_roles(sk, overrides={"hips": "custom_hip"})
    assert rm.names["hips"] == "custom_hip" and rm.conventions["hips"] == "override"
    assert rm.profile == "ue-mannequin+custom"
    rm2 = resolve_roles(sk, overrides={"left_foot": "no_such_bone"})
    assert "left_foot" not in rm.bones or rm2.get("left_foot") is None
    assert "no_such_bone" in rm2.unresolved["left_foot"]
    with pytest.raises(ValueError):
        resolve_roles(sk, overrides={"tail": "x"})


def test_only_overrides_is_custom_and_nothing_is_unknown():
    sk = chain_skeleton(["a", "b", "c"])
    assert resolve_roles(sk).profile == "unknown"
    rm = resolve_roles(sk, overrides={"hips": "a", "left_foot": "b"})
    assert rm.profile == "custom" and rm.bones == {"hips": 0, "left_foot": 1}
    assert set(rm.unresolved) == set(ROLES) - {"hips", "left_foot"}


def test_forced_profile_and_unknown_profile():
    sk = legs("Hips", "LeftFoot", "LeftToes", "RightFoot", "RightToes")
    rm = resolve_roles(sk, profile="mixamo")
    assert rm.profile == "mixamo" and "left_toe" not in rm.bones  # LeftToes is not a mixamo name
    rm2 = resolve_roles(sk, profile="ue-mannequin")
    assert rm2.profile == "unknown" and not rm2.bones
    with pytest.raises(ValueError):
        resolve_roles(sk, profile="maya-hik")


def test_generic_words_fallback_takes_chain_top():
    # Fox-like names: two "LeftFoot" bones on one chain -> the one nearer the root
    names = ["b_Root_00", "b_Hip_01", "b_LeftFoot01_017", "b_LeftFoot02_018", "b_RightFoot01_021", "b_RightFoot02_022"]
    parents = [-1, 0, 1, 2, 1, 4]
    rm = resolve_roles(Skeleton.build(names, parents))
    assert rm.profile == "generic"
    assert rm.names["hips"] == "b_Hip_01"
    assert rm.names["left_foot"] == "b_LeftFoot01_017" and rm.names["right_foot"] == "b_RightFoot01_021"
    assert rm.names["root"] == "b_Root_00"


def test_generic_ignores_ik_helpers():
    names = ["hip", "foot_IK_L", "foot_L_ctrl", "LeftFoot_end", "pole_target_R"]
    rm = resolve_roles(chain_skeleton(names))
    assert "left_foot" not in rm.bones and "right_foot" not in rm.bones


# --------------------------------------------------------------------------
# Corpus rigs (tests/data/, copied from ../shared/corpus)
# --------------------------------------------------------------------------

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus(name):
    path = os.path.join(HERE, "data", name)
    if not os.path.exists(path):
        pytest.skip(f"{name} not in tests/data")
    from animsmith.io.gltf import load_asset

    return load_asset(path)


def test_corpus_robot_expressive():
    # Hips plus Blender-style "Foot.L"/"Foot.R": the rigify convention matches
    # four roles case-insensitively; the second "Foot.L" node is a mesh (not a
    # joint) and so cannot take the role; "Hand.L" is only a mesh node -> no hand.
    rm = resolve_roles(corpus("three_RobotExpressive.glb").skeleton)
    assert rm.profile == "rigify"
    assert rm.names["hips"] == "Hips"
    assert rm.names["left_foot"] == "Foot.L" and rm.names["right_foot"] == "Foot.R"
    sk = corpus("three_RobotExpressive.glb").skeleton
    assert sk.is_joint[rm.bones["left_foot"]]
    assert "left_hand" not in rm.bones


def test_corpus_fox_generic_words():
    # quadruped named b_<Word><nn>_<id>: only the word reading applies; hind feet
    # b_LeftFoot01_017 -> b_LeftFoot02_018 lie on one chain, the upper one wins
    rm = resolve_roles(corpus("khr_Fox.glb").skeleton)
    assert rm.profile == "generic"
    assert rm.names["hips"] == "b_Hip_01"
    assert rm.names["left_foot"] == "b_LeftFoot01_017"
    assert rm.names["right_foot"] == "b_RightFoot01_021"


def test_corpus_cesium_man_needs_inline_map():
    # leg_joint_L_5 / Skeleton_torso_joint_1 carry no role words
    sk = corpus("khr_CesiumMan.glb").skeleton
    rm = resolve_roles(sk)
    assert "hips" not in rm.bones and "left_foot" not in rm.bones
    rm2 = resolve_roles(
        sk,
        overrides={"hips": "Skeleton_torso_joint_1", "left_foot": "leg_joint_L_5", "right_foot": "leg_joint_R_5"},
    )
    assert rm2.profile == "custom"
    assert rm2.names["left_foot"] == "leg_joint_L_5"


def test_corpus_rigged_figure_has_no_named_roles():
    rm = resolve_roles(corpus("khr_RiggedFigure.glb").skeleton)
    assert "hips" not in rm.bones and "left_foot" not in rm.bones


def test_override_naming_two_bones_is_unresolved_not_the_first():
    """`[rig.roles] hips = "Hips"` on a rig with two joints called Hips: which one is meant
    is unknowable, so the role is unresolved with the reason (auto refuses the same way);
    a mesh node sharing a joint's name does not make it ambiguous (joints are preferred)."""
    from animsmith.core.roles import resolve_roles
    from animsmith.model import Skeleton

    sk = Skeleton.build(["root", "Hips", "Hips", "LeftFoot"], [-1, 0, 0, 1])
    roles = resolve_roles(sk, "none", {"hips": "Hips", "left_foot": "LeftFoot"})
    assert not roles.has("hips") and roles.get("left_foot") == 3
    assert roles.unresolved["hips"] == "[rig.roles] hips = 'Hips': 2 bones have that exact name (rename one in the source)"
    mesh = Skeleton.build(["root", "Hips", "Hips"], [-1, 0, 0], is_joint=[True, True, False])
    assert resolve_roles(mesh, "none", {"hips": "Hips"}).get("hips") == 1


def test_a_character_of_another_convention_outside_the_default_scene_takes_no_role():
    """UE character in the default scene, a Mixamo one only in another scene: the roles are
    the UE character's (the off-scene one does not even compete for the convention)."""
    names = ["Armature", "pelvis", "foot_l", "foot_r", "Armature2", "mixamorig:Hips", "mixamorig:LeftFoot", "mixamorig:RightFoot"]
    parents = [-1, 0, 1, 1, -1, 4, 5, 5]
    sk = Skeleton.build(names, parents)
    sk.in_scene = np.array([True] * 4 + [False] * 4)
    rm = resolve_roles(sk)
    assert rm.profile == "ue-mannequin"
    assert (rm.names["hips"], rm.names["left_foot"], rm.names["right_foot"]) == ("pelvis", "foot_l", "foot_r")
    # nothing in the default scene matches: the other scene's character is used
    sk2 = Skeleton.build(["cam", "Armature2", "mixamorig:Hips", "mixamorig:LeftFoot"], [-1, -1, 1, 2])
    sk2.in_scene = np.array([True, False, False, False])
    assert resolve_roles(sk2).names["hips"] == "mixamorig:Hips"
