"""Legs as data: found by the file's leg map, by name and by shape; gait per pair and per leg.

Independent expectations: the simulator's catalog (each creature's leg phases, sides and
``home`` positions, and its declared gait), hand-built skeletons whose lowest joints are
known by construction, and the Khronos CesiumMan measured through today's hand-written
role map.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from animsmith.cli import cli
from animsmith.model import Asset, Channel, Clip, Skeleton

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = [os.path.join(ROOT, "tests", "data"), "/work/shared/corpus"]
MEASURE_SCHEMA = os.path.join(ROOT, "docs", "schema", "measure-output.schema.json")


def corpus_path(name):
    for d in CORPUS:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    pytest.skip(f"{name} not available")


def run(*args):
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return res.exit_code, res.output


def measure_json(*args):
    import jsonschema

    code, out = run("measure", "--format", "json", *args)
    assert code == 0, out
    doc = json.loads(out)
    with open(MEASURE_SCHEMA, encoding="utf-8") as fh:
        jsonschema.validate(doc, json.load(fh))
    return doc


def circ(a, b):
    d = abs(a - b) % 1.0
    return min(d, 1.0 - d)


CREATURES = ["biped", "fox", "trotter", "beetle", "spider"]


@pytest.mark.parametrize("name", CREATURES)
def test_every_built_in_creature_resolves_all_its_legs_with_no_config(tmp_path, name):
    from animsmith.sim.creature import catalog_creature

    creature = catalog_creature(name)
    out = tmp_path / f"{name}.glb"
    code, text = run("sim", "bake", name, "-o", str(out))
    assert code == 0, text
    doc = measure_json(str(out))
    rig = doc["files"][0]["rig"]
    assert len(rig["legs"]) == len(creature.legs)
    assert {leg["found_by"] for leg in rig["legs"]} == {"extras"}
    catalog = {leg.name: leg for leg in creature.legs}
    # sides as the catalog says; pairs ordered by the legs' home Z from the rear
    for leg in rig["legs"]:
        assert leg["side"] == {"L": "left", "R": "right"}[catalog[leg["name"]].side]
    for side in ("left", "right"):
        zs = [catalog[leg["name"]].home[2] for leg in rig["legs"] if leg["side"] == side]
        assert zs == sorted(zs)
    (clip,) = doc["files"][0]["clips"]
    legs = clip["legs"]
    assert [leg["name"] for leg in legs] == [leg["name"] for leg in rig["legs"]]
    p0 = catalog[legs[0]["name"]].phase
    for leg in legs:
        expected = (catalog[leg["name"]].phase - p0) % 1.0
        assert circ(leg["offset"], expected) <= 0.02, (leg, expected)
        # contact markers: the duty factor is the catalog's, exactly (their stance time over
        # the cycle, not whole samples: the spider's 0.65 at 12 samples a cycle read 7/12)
        assert leg["duty_factor"] == pytest.approx(creature.duty, abs=1e-5), leg
    # without the markers the contact-height rule (low and not moving vertically) also finds
    # the catalog duty within one grid sample: a low foot still landing or lifting is swing
    from animsmith.io.gltf import load_asset
    from animsmith.io.write import write_glb

    asset = load_asset(str(out))
    asset.clips[0].extras = None
    bare = tmp_path / f"{name}-no-markers.glb"
    write_glb(asset, str(bare))
    (bare_clip,) = measure_json(str(bare))["files"][0]["clips"]
    for leg in bare_clip["legs"]:
        assert abs(leg["duty_factor"] - creature.duty) <= 1.0 / (bare_clip["frame_count"] - 1) + 1e-9, leg
    assert clip["gait_pattern"] == creature.gait
    # the clip's stride anchor stays pair 0's
    assert clip["pairs"][0]["gait_phase"] == clip["gait_phase"]
    assert len(clip["pairs"]) == len(creature.legs) // 2


@pytest.mark.parametrize("name, found_by", [("fox", "shape"), ("trotter", "name"), ("beetle", "shape"), ("spider", "shape")])
def test_without_the_leg_map_the_shape_finds_the_same_legs(name, found_by):
    """The simulator's bakes with the leg map removed: the shape rule alone (the trotter's
    ``hind_left`` ... names before it) finds every foot on the catalog's side, pairs in the
    order of the legs' home Z."""
    from animsmith.core.legs import resolve_rig
    from animsmith.sim.bake import bake, bone_names
    from animsmith.sim.creature import catalog_creature

    creature = catalog_creature(name)
    asset = bake(creature).asset
    asset.extras = None
    roles = resolve_rig(asset)
    legs = roles.legs.legs
    assert {leg.found_by for leg in legs} == {found_by}
    _, _, feet = bone_names(creature)
    by_foot = {feet[i]: leg for i, leg in enumerate(creature.legs)}
    names = asset.skeleton.names
    assert sorted(names[leg.foot] for leg in legs) == sorted(feet)
    for leg in legs:
        assert leg.side == {"L": "left", "R": "right"}[by_foot[names[leg.foot]].side]
    for side in ("left", "right"):
        zs = [by_foot[names[leg.foot]].home[2] for leg in legs if leg.side == side]
        assert zs == sorted(zs) and len(zs) == len(legs) // 2
    assert names[roles.legs.body] == "body"
    assert roles.conventions["hips"] == f"legs:{found_by}"


def test_cesium_man_resolves_hips_and_feet_by_shape_with_the_hand_mapped_anchor(tmp_path):
    path = corpus_path("khr_CesiumMan.glb")
    plain = measure_json(path)["files"][0]
    assert (plain["rig"]["roles"]["hips"], plain["rig"]["roles"]["left_foot"], plain["rig"]["roles"]["right_foot"]) == (
        "Skeleton_torso_joint_1", "leg_joint_L_5", "leg_joint_R_5")
    cfg = tmp_path / "cesium.animsmith.toml"
    cfg.write_text(
        '[rig]\nprofile = "none"\n[rig.roles]\nhips = "Skeleton_torso_joint_1"\n'
        'left_foot = "leg_joint_L_5"\nright_foot = "leg_joint_R_5"\n'
    )
    mapped = measure_json("--config", str(cfg), path)["files"][0]
    assert mapped["rig"]["profile"] == "custom"
    a, b = plain["clips"][0], mapped["clips"][0]
    assert a["gait_phase"] is not None and a["gait_phase"] == b["gait_phase"]
    assert a["lr_amplitude_m"] == b["lr_amplitude_m"]
    assert a["pairs"][0]["gait_phase"] == a["gait_phase"]


def test_khronos_fox_hands_on_the_ground_are_the_fore_pair():
    path = corpus_path("khr_Fox.glb")
    doc = measure_json(path)["files"][0]
    legs = {leg["name"]: leg for leg in doc["rig"]["legs"]}
    assert (legs["hind_left"]["foot"], legs["fore_left"]["foot"]) == ("b_LeftFoot01_017", "b_LeftHand_011")
    assert (legs["hind_right"]["pair"], legs["fore_right"]["pair"]) == (0, 1)
    assert {leg["found_by"] for leg in legs.values()} == {"name"}
    walk = next(c for c in doc["clips"] if c["name"] == "Walk")
    assert walk["pairs"][0]["gait_phase"] == walk["gait_phase"]  # pair 0 = the biped roles' feet
    assert walk["pairs"][1]["gait_phase"] is not None


def _chain_skeleton(names, parents, rest, joints=True):
    sk = Skeleton.build(names, parents, rest)
    if joints:
        sk.is_joint = np.ones(len(names), dtype=bool)
    return sk


def test_quadruped_front_back_names_and_corner_codes():
    from animsmith.core.legs import resolve_rig

    for corner in (("BackLeg.L", "BackLeg.R", "FrontLeg.L", "FrontLeg.R"), ("Leg_BL", "Leg_BR", "Leg_FL", "Leg_FR")):
        names = ["Armature", "spine"]
        parents = [-1, 0]
        rest = [[0, 0, 0], [0, 0.5, 0]]
        for i, base in enumerate(corner):
            x = 0.1 if base[-1] == "L" else -0.1
            z = -0.3 if "B" in base.split(".")[0][:5] or base.endswith(("BL", "BR")) else 0.3
            names += [base, base + "_lower", base + "_paw_end"]
            k = len(parents)
            parents += [1, k, k + 1]
            rest += [[x, 0, z], [0, -0.25, 0], [0, -0.25, 0]]
        roles = resolve_rig(Asset(skeleton=_chain_skeleton(names, parents, rest), clips=[]))
        got = {(leg.name, leg.pair, leg.side, names[leg.foot], leg.found_by) for leg in roles.legs.legs}
        assert got == {
            ("hind_left", 0, "left", corner[0] + "_paw_end", "name"),
            ("hind_right", 0, "right", corner[1] + "_paw_end", "name"),
            ("fore_left", 1, "left", corner[2] + "_paw_end", "name"),
            ("fore_right", 1, "right", corner[3] + "_paw_end", "name"),
        }
        assert names[roles.legs.body] == "spine" and roles.names["hips"] == "spine"


def test_a_legless_blob_has_no_legs_and_says_why():
    from animsmith.core.legs import resolve_rig

    # a ball of spikes: only the bottom spike lies at the bottom
    dirs = [(0, 1, 0), (0, -1, 0), (1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1)]
    names = ["blob"] + [f"spike{i}" for i in range(len(dirs))]
    sk = _chain_skeleton(names, [-1] + [0] * len(dirs), [[0, 1, 0]] + [list(np.multiply(d, 0.3)) for d in dirs])
    roles = resolve_rig(Asset(skeleton=sk, clips=[]))
    assert roles.legs.legs == []
    assert roles.legs.unresolved == (
        "no legs by shape: rest pose: only 'spike1' lies at the bottom of the skeleton "
        "(legs need two or more end joints within 15% of its height of the ground)"
    )
    assert "hips" not in roles.bones and "left_foot" not in roles.bones
    # a flat ring of spikes: nothing hangs
    ring = _chain_skeleton(names[:5], [-1, 0, 0, 0, 0], [[0, 1, 0], [0.3, 0, 0], [-0.3, 0, 0], [0, 0, 0.3], [0, 0, -0.3]])
    why = resolve_rig(Asset(skeleton=ring, clips=[])).legs.unresolved
    assert why == "no legs by shape: rest pose: the skeleton has no height (every joint at one level): nothing hangs"


def _crawler():
    """Standing in the rest pose: feet at y 0, hands at y 0.8; the clip's first frame
    drops the hands to y -0.05 (arms reaching below the knees-on-the-ground legs)."""
    names = ["pelvis", "thigh_a", "shin_a", "thigh_b", "shin_b", "chest", "arm_a", "hand_a", "arm_b", "hand_b"]
    parents = [-1, 0, 1, 0, 3, 0, 5, 6, 5, 8]
    rest = [
        [0, 1.0, 0], [0.1, 0, 0], [0, -1.0, 0], [-0.1, 0, 0], [0, -1.0, 0],
        [0, 0.5, 0], [0.2, 0, 0], [0, -0.7, 0], [-0.2, 0, 0], [0, -0.7, 0],
    ]
    return _chain_skeleton(names, parents, rest)


def test_a_crawl_whose_arms_hang_lower_than_its_legs_has_no_legs_by_shape(tmp_path):
    from animsmith.core.legs import resolve_rig

    sk = _crawler()
    t = np.array([0.0, 0.5, 1.0])
    low = np.array([[0, -1.55, 0]] * 3)
    clip = Clip("crawl", [Channel.make(7, "translation", t, low), Channel.make(9, "translation", t, low)])
    roles = resolve_rig(Asset(skeleton=sk, clips=[clip]))
    assert roles.legs.legs == []
    assert roles.legs.unresolved == (
        "no legs by shape: in the first frame of 'crawl', 'hand_a' hangs lower than the foot "
        "'shin_a' of the rest pose: which chains are legs is unclear"
    )
    assert "hips" not in roles.bones
    # the same rig standing still: its legs are the shins, the body the pelvis
    still = resolve_rig(Asset(skeleton=_crawler(), clips=[]))
    assert [(leg.name, sk.names[leg.foot]) for leg in still.legs.legs] == [("left", "shin_a"), ("right", "shin_b")]
    assert still.names["hips"] == "pelvis"


def _trotter_with(phases):
    from animsmith.sim.creature import catalog_creature

    c = catalog_creature("trotter")
    for leg in c.legs:
        leg.phase = phases[leg.name]
    c.gait = None
    return c


@pytest.mark.parametrize(
    "pattern, phases",
    [
        ("pace", {"fore_left": 0.0, "hind_left": 0.0, "fore_right": 0.5, "hind_right": 0.5}),
        ("bound", {"fore_left": 0.0, "fore_right": 0.0, "hind_left": 0.5, "hind_right": 0.5}),
        ("trot", {"fore_left": 0.0, "hind_right": 0.0, "fore_right": 0.5, "hind_left": 0.5}),
        ("irregular", {"fore_left": 0.0, "hind_right": 0.1, "fore_right": 0.3, "hind_left": 0.6}),
    ],
)
def test_gait_patterns_of_a_quadruped(pattern, phases):
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.core.legs import resolve_rig
    from animsmith.sim.bake import bake

    baked = bake(_trotter_with(phases))
    roles = resolve_rig(baked.asset)
    ca = ClipAnalysis(baked.asset, baked.clip, roles)
    m = ca.measurements()
    assert m["gait_pattern"] == pattern
    p0 = phases[m["legs"][0]["name"]]
    for leg in m["legs"]:
        assert circ(leg["offset"], (phases[leg["name"]] - p0) % 1.0) <= 0.02
    if pattern == "bound":  # left and right together: no left-right alternation to anchor
        assert m["pairs"][0]["gait_phase"] is None
        assert m["pairs"][0]["gait_phase_unavailable"].startswith("no foot-height swing") or m["pairs"][0][
            "gait_phase_unavailable"].startswith("no periodic")


def test_gait_pattern_rules():
    from animsmith.core.gait import gait_pattern, leg_offsets

    assert leg_offsets([0.25, 0.75]) == [0.0, 0.5]
    assert gait_pattern([0.0, 0.5], 1) == ("biped", None)
    assert gait_pattern([0.0, 0.2], 1) == ("irregular", None)
    assert gait_pattern([0.0, 0.5, 0.75, 0.25], 2) == ("walk", None)
    assert gait_pattern([0.0, 0.5, 0.25, 0.75], 2) == ("irregular", None)  # diagonal sequence
    # a hexapod metachronal wave: each pair a sixth ahead of the one behind, sides opposite
    left = [0.0, 1 / 6, 2 / 6]
    offs = [x for l in left for x in (l, (l + 0.5) % 1.0)]
    assert gait_pattern(offs, 3) == ("wave", None)
    assert gait_pattern([0.0, 0.5, None, 0.0], 2) == (None, "a leg has no phase")


def test_rig_legs_config_declares_legs_and_bad_entries_exit_2(tmp_path):
    path = corpus_path("khr_CesiumMan.glb")
    cfg = tmp_path / "legs.animsmith.toml"
    cfg.write_text(
        "[rig.legs]\n"
        'l = { foot = "leg_joint_L_3", side = "left" }\n'
        'r = { foot = "leg_joint_R_3", side = "right", pair = 0 }\n'
    )
    doc = measure_json("--config", str(cfg), path)["files"][0]
    assert [(leg["name"], leg["foot"], leg["found_by"]) for leg in doc["rig"]["legs"]] == [
        ("l", "leg_joint_L_3", "config"), ("r", "leg_joint_R_3", "config")]
    assert doc["rig"]["roles"]["left_foot"] == "leg_joint_L_3"
    bad = tmp_path / "bad.animsmith.toml"
    for body, problem in [
        ('l = { foot = "x", side = "up" }\n', "rig.legs.l.side: expected 'left' or 'right', got 'up'"),
        ('l = { foot = "x", side = "left" }\n', "rig.legs: pair 0 has no right leg (a pair is a left and a right leg)"),
        ('l = { side = "left" }\n', "rig.legs.l: missing 'foot'"),
        ('l = { foot = "x", side = "left", knee = 1 }\nr = { foot = "y", side = "right" }\n', "rig.legs.l.knee: unknown key"),
    ]:
        bad.write_text("[rig.legs]\n" + body)
        res = subprocess.run([sys.executable, "-m", "animsmith", "--config", str(bad), "measure", path], capture_output=True, text=True)
        assert res.returncode == 2 and res.stdout == ""
        assert problem in res.stderr and res.stderr.count("\n") == 1, res.stderr
    missing = tmp_path / "missing.animsmith.toml"
    missing.write_text('[rig.legs]\nl = { foot = "nope", side = "left" }\nr = { foot = "leg_joint_R_3", side = "right" }\n')
    doc = measure_json("--config", str(missing), path)["files"][0]
    assert doc["rig"]["legs"] == [] and doc["rig"]["legs_unavailable"] == "[rig.legs] leg 'l': no bone named 'nope'"


def test_inspect_shows_each_leg_and_how_it_was_found(tmp_path):
    out = tmp_path / "beetle.glb"
    assert run("sim", "bake", "beetle", "-o", str(out))[0] == 0
    code, text = run("inspect", str(out))
    assert code == 0
    assert "legs (6; body body; pairs from the rear):" in text
    assert "l3    left    0      l3_foot   -     extras: " in text
    assert "extras: the file's leg map (animsmith_legs) names 'l3_foot'" in text


def _write_creature(path, phases, start=None):
    """The catalog trotter with other leg phases, as a creature file."""
    import re

    from animsmith.sim.creature import CATALOG_DIR

    text = open(os.path.join(CATALOG_DIR, "trotter.toml"), encoding="utf-8").read()
    text = re.sub(r'(?m)^gait = .*\n', "", text)
    for name, phase in phases.items():
        text = re.sub(rf'(name = "{name}"\nside = "[LR]"\n)phase = [0-9.]+', rf"\g<1>phase = {phase}", text)
    path.write_text(text)
    return str(path)


def test_gait_group_of_a_trot_and_a_pace_is_an_error_naming_them(tmp_path):
    trot = {"fore_left": 0.0, "hind_right": 0.0, "fore_right": 0.5, "hind_left": 0.5}
    pace = {"fore_left": 0.5, "hind_left": 0.5, "fore_right": 0.0, "hind_right": 0.0}
    for name, phases in (("trot", trot), ("pace", pace)):
        src = _write_creature(tmp_path / f"{name}.toml", phases)
        assert run("sim", "bake", src, "-o", str(tmp_path / f"{name}.glb"))[0] == 0
    cfg = tmp_path / "ring.animsmith.toml"
    cfg.write_text('[gait_groups.quad]\nclips = ["trot.glb", "pace.glb"]\n')
    res = subprocess.run(
        [sys.executable, "-m", "animsmith", "--config", str(cfg), "lint", "--format", "json", str(tmp_path / "trot.glb"), str(tmp_path / "pace.glb")],
        capture_output=True, text=True,
    )
    assert res.returncode == 1, res.stderr
    doc = json.loads(res.stdout)
    found = [f for f in doc["findings"] if f["check_id"] == "gait-group"] if "findings" in doc else [
        f for file in doc["files"] for f in file["findings"] if f["check_id"] == "gait-group"]
    msgs = [f["message"] for f in found]
    assert any("members move in different gait patterns [trot.glb=trot, pace.glb=pace]" in m for m in msgs), msgs
    # pair 0 (hind): the trot's hind left leads by half a cycle, the pace's hind pair is the
    # same -> equal anchors; the fore pair: the trot's fore right leads, the pace's fore left
    # -> the fore anchors are half a cycle apart: that pair's spread is 0.25
    assert any(m.startswith("gait group 'quad' pair 1: stride-anchor phases spread by 0.25 cycle (cap 0.15)") for m in msgs), msgs
    assert not any(m.startswith("gait group 'quad': stride-anchor") for m in msgs), msgs


def test_report_draws_one_foot_height_row_per_leg(tmp_path):
    """A hexapod's page has six foot rows (leg order), each with the contact markers' stance;
    a biped's keeps its left and right rows."""
    from animsmith.sim.creature import catalog_creature

    for name, rows in (("beetle", ["l3", "r3", "l2", "r2", "l1", "r1"]), ("biped", ["left", "right"])):
        glb = tmp_path / f"{name}.glb"
        assert run("sim", "bake", name, "-o", str(glb))[0] == 0
        page = tmp_path / f"{name}.html"
        assert run("report", str(glb), "-o", str(page))[0] == 0
        text = page.read_text(encoding="utf-8")
        start = text.index('"feet_order":') + len('"feet_order":')
        order = json.loads(text[start:text.index("]", start) + 1])
        assert order == rows
        i = text.index('"feet":')
        feet = json.JSONDecoder().raw_decode(text[i + len('"feet":'):])[0]
        assert {f["source"] for f in feet.values()} == {"authored"}
        # stance share of the shown samples, the catalog duty within a sample or two
        duty = catalog_creature(name).duty
        for f in feet.values():
            st = f["stance"][:-1]
            assert abs(sum(st) / len(st) - duty) <= 2.0 / len(st)


EXAMPLE_BAKES = [
    ("fox-walk.glb", ["fox"]),
    ("spider-walk-rough.glb", ["spider", "--terrain", "rough", "--root-motion"]),
]


@pytest.mark.parametrize("name, args", EXAMPLE_BAKES)
def test_the_legged_examples_are_the_simulators_bakes_byte_for_byte(tmp_path, name, args):
    out = tmp_path / name
    assert run("sim", "bake", *args, "-o", str(out))[0] == 0
    with open(os.path.join(ROOT, "examples", "assets", name), "rb") as fh:
        assert out.read_bytes() == fh.read()


def test_the_legged_examples_resolve_every_leg_with_no_config():
    fox = measure_json(os.path.join(ROOT, "examples", "assets", "fox-walk.glb"))["files"][0]
    spider = measure_json(os.path.join(ROOT, "examples", "assets", "spider-walk-rough.glb"))["files"][0]
    assert len(fox["rig"]["legs"]) == 4 and fox["clips"][0]["gait_pattern"] == "walk"
    assert len(spider["rig"]["legs"]) == 8 and spider["clips"][0]["gait_pattern"] == "wave"


def test_the_legged_examples_contracts_judge_them():
    """What examples/README.md says lint prints for each legged example."""
    def lint(stem):
        return subprocess.run(
            [sys.executable, "-m", "animsmith", "--config", f"examples/{stem}.animsmith.toml", "lint", "--format", "json", f"examples/assets/{stem}.glb"],
            capture_output=True, text=True, cwd=ROOT,
        )

    fox = lint("fox-walk")
    assert fox.returncode == 0, fox.stderr
    doc = json.loads(fox.stdout)
    findings = [f for file in doc["files"] for f in file["findings"]]
    assert [(f["check_id"], f["severity"]) for f in findings] == [("duplicate-loop-endpoint", "warning")]
    gaps = [g for file in doc["files"] for g in file["coverage_gaps"]]
    assert gaps == []  # loop, foot-slide and in-place all judged the clip
    assert {"foot-slide", "in-place", "loop-closure", "loop-seam"} <= set(doc["checks"])
    spider = lint("spider-walk-rough")
    assert spider.returncode == 0, spider.stderr
    doc = json.loads(spider.stdout)
    assert [f for file in doc["files"] for f in file["findings"]] == []
    assert [g for file in doc["files"] for g in file["coverage_gaps"]] == []
    speed = doc["files"][0]["measurements"]["clips"]["walk_rough"]["speed_mps"]
    assert speed == pytest.approx(0.15, abs=1e-6)


def test_measure_text_prints_the_gait_of_a_multi_pair_clip(tmp_path):
    out = tmp_path / "trotter.glb"
    assert run("sim", "bake", "trotter", "-o", str(out))[0] == 0
    code, text = run("measure", str(out))
    assert code == 0
    # the trotter: diagonals together (catalog phases fore_left 0, fore_right 0.5, hind_left 0.5,
    # hind_right 0): offsets from the hind left leg 0, 0.5, 0.5, 0; duty 0.55 sampled on 17 keys
    line = next(l for l in text.splitlines() if "gait trot" in l)
    assert "leg offset/duty hind_left 0.00/" in line and "hind_right 0.50/" in line
    assert "fore_left 0.50/" in line and "fore_right 0.00/" in line


def test_an_unnamed_centimetre_biped_under_export_containers_is_found_by_shape():
    """RootNode -> Armature (scale 0.01) -> bones in centimetres named Bone, Bone.001...:
    the shape finds the hips and both feet; feet bobbing h_L = A·sin 2πu, h_R = −h_L
    give the stride anchor 0.75 (trough of 2A·sin) and legs half a cycle apart."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.core.legs import resolve_rig

    names = ["RootNode", "Armature", "Bone", "Bone.001", "Bone.002", "Bone.003", "Bone.004", "Bone.005"]
    parents = [-1, 0, 1, 2, 3, 2, 5, 2]
    rest = [[0, 0, 0], [0, 0, 0], [0, 100, 0], [10, -45, 0], [0, -45, 0], [-10, -45, 0], [0, -45, 0], [0, 60, 0]]
    scale = [[1, 1, 1], [0.01, 0.01, 0.01]] + [[1, 1, 1]] * 6
    sk = Skeleton.build(names, parents, rest, rest_scale=scale, is_joint=[False, False] + [True] * 6)
    t = np.linspace(0.0, 1.0, 31)
    a = 5.0  # cm
    h = a * np.sin(2 * np.pi * t)
    zeros = np.zeros_like(t)
    clip = Clip("walk", [
        Channel.make(4, "translation", t, np.stack([zeros, -45 + h, zeros], axis=1)),
        Channel.make(6, "translation", t, np.stack([zeros, -45 - h, zeros], axis=1)),
    ])
    asset = Asset(skeleton=sk, clips=[clip])
    roles = resolve_rig(asset)
    assert (roles.names["hips"], roles.names["left_foot"], roles.names["right_foot"]) == ("Bone", "Bone.002", "Bone.004")
    m = ClipAnalysis(asset, clip, roles).measurements()
    assert m["gait_phase"] == pytest.approx(0.75, abs=1e-6)
    # s = h_L − h_R = 2·a·0.01 m · sin(2πk/30) over one cycle's samples k = 0..29
    wave = np.sin(2 * np.pi * np.arange(30) / 30)
    assert m["lr_amplitude_m"] == pytest.approx(2 * a * 0.01 * (wave.max() - wave.min()), rel=1e-6)
    assert [leg["phase"] for leg in m["legs"]] == [pytest.approx(0.75, abs=1e-6), pytest.approx(0.25, abs=1e-6)]
    assert m["legs"][1]["offset"] == pytest.approx(0.5, abs=1e-6)
    assert m["gait_pattern"] == "biped"


@pytest.mark.parametrize(
    "doc, note",
    [
        ({"version": 2, "legs": []}, "the file's animsmith_legs is not a version-1 leg map"),
        ({"version": 1, "legs": "l"}, "the file's leg map is unusable: animsmith_legs.legs: expected a list of legs"),
        ({"version": 1, "legs": [{"name": "a", "side": "left", "pair": 0, "foot": "nope"},
                                 {"name": "b", "side": "right", "pair": 0, "foot": "leg_3_foot"}]},
         "the file's leg map (animsmith_legs) leg 'a': no bone named 'nope'"),
    ],
)
def test_an_unusable_leg_map_is_passed_over_with_the_reason(doc, note):
    """The fox bake with its leg map broken: the reason is kept, and the shape finds the legs."""
    from animsmith.core.legs import resolve_rig
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    asset = bake(catalog_creature("fox")).asset
    asset.extras = {"animsmith_legs": doc}
    legs = resolve_rig(asset).legs
    assert legs.notes == [note]
    assert [leg.found_by for leg in legs.legs] == ["shape"] * 4


def test_the_duty_factor_uses_the_contracts_contact_height(tmp_path):
    """The height rule with the contract's foot-slide contact height: the trotter's bake
    without its contact markers. At the default 0.03 m the rule (low and not moving
    vertically) finds the catalog duty 0.55 within one sample; a contact height of 0 keeps
    only the samples at each foot's exact lowest point, fewer than the planted ones."""
    from animsmith.io.write import write_glb
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    baked = bake(catalog_creature("trotter"))
    baked.clip.extras = None
    glb = tmp_path / "trotter.glb"
    write_glb(baked.asset, str(glb))
    cfg = tmp_path / "c.animsmith.toml"
    cfg.write_text("[checks.foot-slide]\ncontact_height_m = 0.0\n")
    narrow = measure_json("--config", str(cfg), str(glb))["files"][0]["clips"][0]
    default = measure_json(str(glb))["files"][0]["clips"][0]
    sample = 1.0 / (default["frame_count"] - 1)
    assert all(abs(leg["duty_factor"] - 0.55) <= sample + 1e-9 for leg in default["legs"])
    assert all(0.0 < n["duty_factor"] < d["duty_factor"] for n, d in zip(narrow["legs"], default["legs"]))


@pytest.mark.parametrize(
    "body, problem",
    [
        ('l = { foot = "leg_joint_L_5", side = "left" }\nr = { foot = "leg_joint_L_5", side = "right" }\n',
         "rig.legs.r.foot: leg 'l' already uses bone 'leg_joint_L_5'; each leg needs its own foot"),
        ('l = { foot = "leg_joint_L_4", side = "left", toe = "leg_joint_L_5" }\nr = { foot = "leg_joint_L_5", side = "right" }\n',
         "rig.legs.r.foot: leg 'l' already uses bone 'leg_joint_L_5'; each leg needs its own foot"),
        ('l = { foot = "leg_joint_L_5", side = "left", toe = "leg_joint_L_5" }\nr = { foot = "leg_joint_R_5", side = "right" }\n',
         "rig.legs.l.toe: the toe is the foot bone 'leg_joint_L_5'"),
    ],
)
def test_rig_legs_naming_one_bone_for_two_legs_exit_2_before_reading(tmp_path, body, problem):
    """One bone cannot be two feet: CesiumMan's left foot declared as both legs would make
    the body the foot itself and measure a constant left-right difference."""
    bad = tmp_path / "bad.animsmith.toml"
    bad.write_text("[rig.legs]\n" + body)
    res = subprocess.run([sys.executable, "-m", "animsmith", "--config", str(bad), "measure", str(tmp_path / "absent.glb")],
                         capture_output=True, text=True)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == f"animsmith: bad config {bad}: {problem}\n"


def test_a_leg_map_naming_one_foot_twice_is_passed_over():
    from animsmith.core.legs import extras_leg_entries

    doc = {"version": 1, "legs": [{"name": "a", "side": "left", "pair": 0, "foot": "f"},
                                  {"name": "b", "side": "right", "pair": 0, "foot": "f"}]}
    entries, _, why = extras_leg_entries(Asset(skeleton=_chain_skeleton(["f"], [-1], [[0, 0, 0]]), clips=[], extras={"animsmith_legs": doc}))
    assert entries is None
    assert why == "the file's leg map is unusable: animsmith_legs.legs[1].foot: leg 'a' already uses bone 'f'; each leg needs its own foot"


def _mixamo_biped_with(extra):
    """A Mixamo-named standing biped (hips 1 m up, feet at y 0.1, arms in an A-pose) with
    ``extra`` chains [(name, parent name, rest offset)] added; the feet bob in antiphase
    h_L = 0.05·sin 2πu, h_R = −h_L: stride anchor 0.75."""
    names = ["Armature", "mixamorig:Hips"]
    parents = [-1, 0]
    rest = [[0, 0, 0], [0, 1.0, 0]]

    def add(name, parent, offset):
        names.append(name)
        parents.append(names.index(parent))
        rest.append(offset)

    for side, x in (("Left", 0.1), ("Right", -0.1)):
        add(f"mixamorig:{side}UpLeg", "mixamorig:Hips", [x, 0, 0])
        add(f"mixamorig:{side}Leg", f"mixamorig:{side}UpLeg", [0, -0.45, 0])
        add(f"mixamorig:{side}Foot", f"mixamorig:{side}Leg", [0, -0.45, 0])
    add("mixamorig:Spine", "mixamorig:Hips", [0, 0.2, 0])
    add("mixamorig:Head", "mixamorig:Spine", [0, 0.5, 0])
    for side, x in (("Left", 1), ("Right", -1)):
        add(f"mixamorig:{side}Arm", "mixamorig:Spine", [x * 0.2, 0.3, 0])
        add(f"mixamorig:{side}ForeArm", f"mixamorig:{side}Arm", [x * 0.18, -0.18, 0])
        add(f"mixamorig:{side}Hand", f"mixamorig:{side}ForeArm", [x * 0.18, -0.18, 0])
    for name, parent, offset in extra:
        add(name, parent, offset)
    sk = _chain_skeleton(names, parents, rest)
    t = np.linspace(0.0, 1.0, 31)
    h = 0.05 * np.sin(2 * np.pi * t)
    z = np.zeros_like(t)
    clip = Clip("walk", [
        Channel.make(names.index("mixamorig:LeftFoot"), "translation", t, np.stack([z, -0.45 + h, z], axis=1)),
        Channel.make(names.index("mixamorig:RightFoot"), "translation", t, np.stack([z, -0.45 - h, z], axis=1)),
    ])
    return Asset(skeleton=sk, clips=[clip])


@pytest.mark.parametrize("extra", [
    [],
    # a skirt whose back strands carry side markers: 'back' + L/R, and the arms' 'ForeArm' + Left/Right
    [("Skirt_Back_L", "mixamorig:Hips", [0.12, -0.05, -0.12]), ("Skirt_Back_L.001", "Skirt_Back_L", [0, -0.3, -0.05]),
     ("Skirt_Back_R", "mixamorig:Hips", [-0.12, -0.05, -0.12]), ("Skirt_Back_R.001", "Skirt_Back_R", [0, -0.3, -0.05])],
    [("J_Sec_L_SkirtBack0_01", "mixamorig:Hips", [0.12, -0.05, -0.12]), ("J_Sec_R_SkirtBack0_01", "mixamorig:Hips", [-0.12, -0.05, -0.12])],
])
def test_a_mixamo_biped_keeps_one_pair_whatever_its_forearms_and_skirt_are_called(extra):
    """'LeftForeArm' holds fore + left, 'Skirt_Back_L' back + left: neither is a leg, so the
    biped keeps its two feet as pair 0 and walks as a biped."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.core.legs import resolve_rig

    asset = _mixamo_biped_with(extra)
    roles = resolve_rig(asset)
    names = asset.skeleton.names
    assert [(leg.name, leg.pair, names[leg.foot], leg.found_by) for leg in roles.legs.legs] == [
        ("left", 0, "mixamorig:LeftFoot", "name"), ("right", 0, "mixamorig:RightFoot", "name")]
    assert roles.legs.notes == []
    m = ClipAnalysis(asset, asset.clips[0], roles).measurements()
    assert [p["pair"] for p in m["pairs"]] == [0] and m["gait_pattern"] == "biped"
    assert m["gait_phase"] == pytest.approx(0.75, abs=1e-6)


def _turned_quadruped(yaw_deg, sweep_m=0.1, clips=("walk",)):
    """An unnamed quadruped (legs 'a'..'d' = hind left, hind right, fore left, fore right of
    the animal) turned by ``yaw_deg`` about Y: facing +Z at 0, +X at 90, -Z at 180. Each
    foot bobs h = 0.05·sin θ and slides z = −sweep·cos θ along the animal's forward axis,
    θ = 2π(u + p) with the lateral-sequence walk's catalog phases (hind left 0, fore left
    0.75, hind right 0.5, fore right 0.25): at the trough (stance) the foot moves backwards.
    ``clips`` names a clip per entry; a name starting with 'back' walks backwards."""
    a = np.radians(yaw_deg)
    c, s = np.cos(a), np.sin(a)

    def turn(v):
        v = np.asarray(v, dtype=np.float64)
        return np.stack([v[..., 0] * c + v[..., 2] * s, v[..., 1], -v[..., 0] * s + v[..., 2] * c], axis=-1)

    corners = {"a": (0.1, -0.3, 0.0), "b": (-0.1, -0.3, 0.5), "c": (0.1, 0.3, 0.75), "d": (-0.1, 0.3, 0.25)}
    names, parents, rest = ["Armature", "body"], [-1, 0], [[0, 0, 0], [0, 0.5, 0]]
    feet = {}
    for leg, (x, z, _) in corners.items():
        k = len(names)
        names += [f"{leg}_upper", f"{leg}_lower", f"{leg}_end"]
        parents += [1, k, k + 1]
        rest += [list(turn([x, 0, z])), [0, -0.25, 0], [0, -0.25, 0]]
        feet[leg] = k + 2
    names += ["neck", "head"]
    parents += [1, len(names) - 2]
    rest += [list(turn([0, 0.1, 0.35])), list(turn([0, 0.1, 0.15]))]
    sk = _chain_skeleton(names, parents, rest)
    t = np.linspace(0.0, 1.0, 31)
    out = []
    for name in clips:
        direction = -1.0 if name.startswith("back") else 1.0
        channels = []
        for leg, (_, _, p) in corners.items():
            th = 2 * np.pi * (direction * t + p)
            local = np.stack([np.zeros_like(t), -0.25 + 0.05 * np.sin(th), -sweep_m * np.cos(th)], axis=1)
            channels.append(Channel.make(feet[leg], "translation", t, turn(local)))
        out.append(Clip(name, channels))
    return Asset(skeleton=sk, clips=out)


def test_legs_by_shape_face_the_gltf_front_and_say_so():
    """Facing +Z, the animal's hind left foot is leg 0 and its lateral-sequence walk a walk
    (offsets from the hind left leg: the catalog phases' differences 0, 0.5, 0.75, 0.25)."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.core.legs import resolve_rig

    asset = _turned_quadruped(0)
    roles = resolve_rig(asset)
    names = asset.skeleton.names
    assert [(leg.name, names[leg.foot]) for leg in roles.legs.legs] == [
        ("hind_left", "a_end"), ("hind_right", "b_end"), ("fore_left", "c_end"), ("fore_right", "d_end")]
    assert roles.legs.legs[0].why == (
        "lowest end joint of a chain from 'body' (rest pose), left side (+X), pair 0 of 2 from the rear (-Z): "
        "facing +Z, the glTF front")
    assert roles.legs.notes == []
    m = ClipAnalysis(asset, asset.clips[0], roles).measurements()
    assert m["gait_pattern"] == "walk"
    for leg, expected in zip(m["legs"], (0.0, 0.5, 0.75, 0.25)):
        assert circ(leg["offset"], expected) <= 0.02


@pytest.mark.parametrize("yaw, axis", [(90, "+X"), (180, "-Z"), (-90, "-X")])
def test_a_stride_away_from_the_gltf_front_is_noted(yaw, axis):
    """The animal modelled facing another axis strides toward it: the shape rule keeps the
    glTF front (a backward or sideways clip strides the same way) and says the sides and
    pairs may be swapped."""
    from animsmith.core.legs import resolve_rig

    legs = resolve_rig(_turned_quadruped(yaw)).legs
    assert legs.notes == [
        f"the legs found by shape take the glTF front +Z, but 'walk' strides toward {axis}: if the character "
        f"faces {axis}, its sides and pairs are swapped; declare them in [rig.legs]"
    ]


def test_clips_striding_different_ways_or_not_at_all_leave_no_note():
    from animsmith.core.legs import resolve_rig

    assert resolve_rig(_turned_quadruped(0, sweep_m=0.0)).legs.notes == []
    # forwards and backwards: the strides disagree, nothing to say
    assert resolve_rig(_turned_quadruped(180, clips=("walk", "back_walk"))).legs.notes == []
    # backwards only: the note (the user knows which way the clip walks)
    assert len(resolve_rig(_turned_quadruped(0, clips=("back_walk",))).legs.notes) == 1


def test_a_tail_on_the_ground_is_no_leg():
    """An unnamed biped whose tail tip rests on the ground on the centre line, lower than
    its feet: legs come in left/right pairs, so the tail is passed over with a note and
    the feet (h_L = 0.05·sin 2πu, h_R = −h_L: stride anchor 0.75) are the legs."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.core.legs import resolve_rig

    names = ["pelvis", "thigh_a", "shin_a", "foot_a", "thigh_b", "shin_b", "foot_b", "chest", "head", "tail_1", "tail_2"]
    parents = [-1, 0, 1, 2, 0, 4, 5, 0, 7, 0, 9]
    rest = [[0, 1.0, 0], [0.1, 0, 0], [0, -0.45, 0], [0, -0.45, 0], [-0.1, 0, 0], [0, -0.45, 0], [0, -0.45, 0],
            [0, 0.5, 0], [0, 0.3, 0], [0, -0.2, -0.3], [0, -0.75, -0.4]]
    t = np.linspace(0.0, 1.0, 31)
    h = 0.05 * np.sin(2 * np.pi * t)
    sweep = -0.1 * np.cos(2 * np.pi * t)  # backwards while low: facing +Z
    zeros = np.zeros_like(t)
    clip = Clip("walk", [
        Channel.make(3, "translation", t, np.stack([zeros, -0.45 + h, sweep], axis=1)),
        Channel.make(6, "translation", t, np.stack([zeros, -0.45 - h, -sweep], axis=1)),
    ])
    asset = Asset(skeleton=_chain_skeleton(names, parents, rest), clips=[clip])
    roles = resolve_rig(asset)
    assert [(leg.name, names[leg.foot]) for leg in roles.legs.legs] == [("left", "foot_a"), ("right", "foot_b")]
    assert roles.legs.notes == ["'tail_2' hangs low on the centre line (rest pose): no leg, since legs come in left/right pairs"]
    assert roles.names["hips"] == "pelvis"
    m = ClipAnalysis(asset, clip, roles).measurements()
    assert m["gait_phase"] == pytest.approx(0.75, abs=1e-6) and m["gait_pattern"] == "biped"


def test_arms_reaching_the_ground_in_the_rest_pose_are_no_legs():
    """An unnamed long-armed biped: the hands hang as low as the ankles in the rest pose,
    but their chains climb 0.6 m (two thirds of the hips' height) above the pelvis first
    (spine, shoulders), while the legs go straight down from it: the hands are arms. The
    feet bob h_L = 0.05·sin 2πu, h_R = −h_L (stride anchor 0.75)."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.core.legs import resolve_rig

    names = ["pelvis", "thigh_a", "shin_a", "foot_a", "thigh_b", "shin_b", "foot_b",
             "spine", "shoulder_a", "arm_a", "hand_a", "shoulder_b", "arm_b", "hand_b"]
    parents = [-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 9, 7, 11, 12]
    rest = [[0, 1.0, 0], [0.1, 0, 0], [0, -0.45, 0], [0, -0.45, 0.05], [-0.1, 0, 0], [0, -0.45, 0], [0, -0.45, 0.05],
            [0, 0.6, 0], [0.2, 0, -0.05], [0.05, -0.7, 0], [0, -0.8, 0], [-0.2, 0, -0.05], [-0.05, -0.7, 0], [0, -0.8, 0]]
    t = np.linspace(0.0, 1.0, 31)
    h = 0.05 * np.sin(2 * np.pi * t)
    sweep = -0.1 * np.cos(2 * np.pi * t)
    clip = Clip("walk", [
        Channel.make(3, "translation", t, np.stack([np.zeros_like(t), -0.45 + h, 0.05 + sweep], axis=1)),
        Channel.make(6, "translation", t, np.stack([np.zeros_like(t), -0.45 - h, 0.05 - sweep], axis=1)),
    ])
    asset = Asset(skeleton=_chain_skeleton(names, parents, rest), clips=[clip])
    roles = resolve_rig(asset)
    assert [(leg.name, names[leg.foot]) for leg in roles.legs.legs] == [("left", "foot_a"), ("right", "foot_b")]
    assert roles.legs.notes == [
        f"'{hand}' reaches the ground (rest pose) on a chain that climbs above 'pelvis' first: an arm, no leg"
        for hand in ("hand_a", "hand_b")
    ]
    m = ClipAnalysis(asset, clip, roles).measurements()
    assert m["gait_phase"] == pytest.approx(0.75, abs=1e-6) and m["gait_pattern"] == "biped"


def _rigify_deform_biped(above="DEF-spine.001"):
    """A Rigify rig exported with deform bones only: the hips bone is ``DEF-spine`` (the
    base of Rigify's spine chain), the thighs hang from it, and no name says hips; ``above``
    names the bone above the hips (``DEF-spine.001`` in Rigify's chain)."""
    names = ["Armature", "DEF-spine", above, "DEF-thigh.L", "DEF-shin.L", "DEF-foot.L",
             "DEF-thigh.R", "DEF-shin.R", "DEF-foot.R"]
    parents = [-1, 0, 1, 1, 3, 4, 1, 6, 7]
    rest = [[0, 0, 0], [0, 1.0, 0], [0, 0.1, 0], [0.1, 0, 0], [0, -0.45, 0], [0, -0.45, 0],
            [-0.1, 0, 0], [0, -0.45, 0], [0, -0.45, 0]]
    return Skeleton.build(names, parents, rest)


@pytest.mark.parametrize("above,source", [("DEF-spine.001", "rigify"), ("DEF-chest", "legs:name")])
def test_a_rigify_deform_rig_takes_its_hips_from_the_legs_common_ancestor(above, source):
    """Rigify's ``DEF-spine`` is the hips by the rigify convention when a ``DEF-spine.001``
    chain goes up from it; without that chain no convention names it the hips, the feet
    resolve by name, and their nearest common ancestor is the hips. The feet bob ±5 cm in antiphase, the left
    as 0.05·sin(2πt) under the hips: the stride anchor (the L−R trough) is at 0.75."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.core.legs import resolve_rig

    t = np.linspace(0.0, 1.0, 31)
    h = 0.05 * np.sin(2 * np.pi * t)
    chans = [
        Channel.make(5, "translation", t, np.stack([0 * t, -0.45 + h, 0 * t], axis=1)),
        Channel.make(8, "translation", t, np.stack([0 * t, -0.45 - h, 0 * t], axis=1)),
    ]
    asset = Asset(skeleton=_rigify_deform_biped(above), clips=[Clip(name="run", channels=chans, index=0)])
    # the auto profile, and the rigify profile named outright (its own foot names give the legs)
    for profile in ("auto", "rigify", "blender"):
        roles = resolve_rig(asset, profile)
        assert roles.names["hips"] == "DEF-spine", profile
        assert roles.conventions["hips"] == source
        assert (roles.names["left_foot"], roles.names["right_foot"]) == ("DEF-foot.L", "DEF-foot.R")
        m = ClipAnalysis(asset, asset.clips[0], roles).measurements()
        assert m["gait_phase"] == pytest.approx(0.75, abs=0.01)
        assert m["lr_amplitude_m"] == pytest.approx(0.2, abs=0.005)
    # the profile none reads only [rig.roles] and [rig.legs]: nothing to fill from
    assert "hips" not in resolve_rig(asset, "none").names


def test_a_named_hips_is_kept_when_the_feet_name_the_legs():
    """Names that resolve the hips win over the legs' common ancestor (a ``root`` bone between
    the hips and the thighs' parent changes nothing)."""
    from animsmith.core.legs import resolve_rig

    sk = Skeleton.build(["Hips", "LeftFoot", "RightFoot"], [-1, 0, 0], [[0, 1, 0], [0.1, -0.9, 0], [-0.1, -0.9, 0]])
    roles = resolve_rig(Asset(skeleton=sk, clips=[]))
    assert roles.names["hips"] == "Hips" and roles.conventions["hips"] != "legs:name"


def test_a_rigify_quadruped_without_a_hips_name_keeps_its_fore_legs():
    """A Blender dog named as Rigify's quadruped metarig: hind legs ``thigh/shin/foot.L``, fore
    legs ``upper_arm/forearm/hand.L``, the pelvis called ``spine``. The hands stand on the
    ground, so they are the fore pair, measured against the feet's common ancestor when no
    name gives the hips. A trot by construction: each paw lifts as 0.04·max(0, sin 2π(t + φ))
    with φ = 0 (hind left, fore right) and ½ (hind right, fore left), so the leg offsets from
    the hind left are 0, ½, ½, 0 and the pattern is a trot."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.core.legs import resolve_rig

    names = ["spine", "spine.001", "thigh.L", "shin.L", "foot.L", "thigh.R", "shin.R", "foot.R",
             "upper_arm.L", "forearm.L", "hand.L", "upper_arm.R", "forearm.R", "hand.R"]
    parents = [-1, 0, 0, 2, 3, 0, 5, 6, 1, 8, 9, 1, 11, 12]
    rest = [[0, 0.6, -0.25], [0, 0.02, 0.5], [0.1, -0.05, 0], [0, -0.25, 0], [0, -0.3, 0],
            [-0.1, -0.05, 0], [0, -0.25, 0], [0, -0.3, 0], [0.1, -0.05, 0], [0, -0.27, 0],
            [0, -0.3, 0], [-0.1, -0.05, 0], [0, -0.27, 0], [0, -0.3, 0]]
    sk = Skeleton.build(names, parents, rest)
    t = np.linspace(0.0, 1.0, 41)
    chans = []
    for bone, phi in ((4, 0.0), (7, 0.5), (10, 0.5), (13, 0.0)):
        h = 0.04 * np.maximum(0.0, np.sin(2 * np.pi * (t + phi)))
        chans.append(Channel.make(bone, "translation", t, np.stack([0 * t, -0.3 + h, 0 * t], axis=1)))
    asset = Asset(skeleton=sk, clips=[Clip(name="trot", channels=chans, index=0)])
    roles = resolve_rig(asset)
    legs = roles.legs
    assert [(l.name, sk.names[l.foot], l.pair) for l in legs.legs] == [
        ("hind_left", "foot.L", 0), ("hind_right", "foot.R", 0), ("fore_left", "hand.L", 1), ("fore_right", "hand.R", 1)]
    assert sk.names[legs.body] == "spine" and roles.names["hips"] == "spine"
    m = ClipAnalysis(asset, asset.clips[0], roles).measurements()
    offsets = [leg["offset"] for leg in m["legs"]]
    assert offsets == pytest.approx([0.0, 0.5, 0.5, 0.0], abs=0.02)
    assert m["gait_pattern"] == "trot"
