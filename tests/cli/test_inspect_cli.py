"""`animsmith inspect` on a GLB written from a known in-memory asset."""

import json
import os

import numpy as np
import pytest
from click.testing import CliRunner

from builders import biped_asset, gait_clip
from animsmith.cli import cli
from animsmith.io.write import write_glb
from animsmith.model import Channel

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def glb(tmp_path):
    walk = gait_clip("walk", frames=31)
    step = gait_clip("step", frames=5, duration_s=0.5)
    # one STEP rotation channel on the hips, 3 keys
    step.channels.append(
        Channel.make(1, "rotation", [0.0, 0.25, 0.5], np.tile([0, 0, 0, 1.0], (3, 1)), interpolation="STEP")
    )
    path = str(tmp_path / "ue.glb")
    write_glb(biped_asset([walk, step], convention="ue"), path)
    return path


def validate_inspect(text):
    """Parse inspect JSON and validate it against docs/schema/inspect-output.schema.json."""
    import jsonschema

    doc = json.loads(text)
    with open(os.path.join(os.path.dirname(HERE), "docs", "schema", "inspect-output.schema.json"), encoding="utf-8") as fh:
        jsonschema.Draft202012Validator(json.load(fh)).validate(doc)
    return doc


def test_inspect_json(glb):
    res = CliRunner().invoke(cli, ["inspect", glb, "--format", "json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    doc = validate_inspect(res.output)
    assert doc["command"] == "inspect"
    rig = doc["rig"]
    assert rig["profile"] == "ue-mannequin"
    rows = {r["role"]: r for r in rig["roles"]}
    assert rows["hips"]["bone"] == "pelvis" and rows["hips"]["convention"] == "ue-mannequin"
    assert rows["root"]["bone"] == "root"
    assert rows["left_toe"]["bone"] is None  # the builder rig has no ball_l
    assert "left_toe" in rows["left_toe"]["unresolved"]
    names = [b["name"] for b in doc["bones"]]
    assert names[:4] == ["root", "pelvis", "foot_l", "foot_r"]
    assert [b["parent"] for b in doc["bones"][:4]] == [-1, 0, 1, 1]
    clips = {c["name"]: c for c in doc["clips"]}
    assert clips["walk"]["channel_count"] == 3
    assert clips["walk"]["key_count_max"] == 31
    assert clips["walk"]["interpolations"] == {"LINEAR": 3}
    assert clips["step"]["interpolations"] == {"LINEAR": 3, "STEP": 1}
    assert clips["step"]["duration_s"] == pytest.approx(0.5)
    assert clips["step"]["start_s"] == 0.0
    assert clips["walk"]["weight_channel_count"] == 0


def test_inspect_text_lists_roles_tree_and_clips(glb):
    res = CliRunner().invoke(cli, ["inspect", glb], catch_exceptions=False)
    assert res.exit_code == 0
    out = res.output
    assert "rig profile: ue-mannequin" in out
    assert "unresolved:" in out and "[rig.roles]" in out  # markup is not eaten
    assert "    pelvis  [hips]" in out  # depth-1 indentation in the tree
    assert "STEP 1" in out


def test_inspect_corpus_cesium_man_start_time():
    p = os.path.join(HERE, "data", "khr_CesiumMan.glb")
    if not os.path.exists(p):
        pytest.skip("corpus file not in tests/data")
    res = CliRunner().invoke(cli, ["inspect", p, "--format", "json"], catch_exceptions=False)
    doc = validate_inspect(res.output)
    (c,) = doc["clips"]
    # the README of the corpus: one unnamed clip starting at 0.0417 s
    assert c["start_s"] == pytest.approx(0.0417, abs=1e-4)
    rows = {r["role"]: r for r in doc["rig"]["roles"]}
    # no hips/foot names: the legs are found by the skeleton's shape and supply those roles
    assert (rows["hips"]["bone"], rows["left_foot"]["bone"], rows["right_foot"]["bone"]) == (
        "Skeleton_torso_joint_1", "leg_joint_L_5", "leg_joint_R_5")
    assert rows["hips"]["convention"] == "legs:shape"
    assert [(leg["name"], leg["found_by"]) for leg in doc["rig"]["legs"]] == [("left", "shape"), ("right", "shape")]


def test_nodes_outside_the_default_scene_are_marked_and_no_rivals(tmp_path):
    """Two characters, one per scene, the default scene (1) showing B: inspect marks A's
    bones, and the roles are B's (A's equal names would otherwise tie every role)."""
    from gltf_raw import RawGltf

    raw = RawGltf()
    roots = []
    for ns in ("A:", "B:"):
        h = raw.node(ns + "Hips", children=[len(raw.doc.get("nodes", [])) + 1, len(raw.doc.get("nodes", [])) + 2])
        raw.node(ns + "LeftFoot")
        raw.node(ns + "RightFoot")
        roots.append(h)
    raw.scene([roots[0]], default=False)
    raw.scene([roots[1]], default=True)
    path = tmp_path / "two_scenes.glb"
    path.write_bytes(raw.glb())
    res = CliRunner().invoke(cli, ["inspect", "--format", "json", str(path)])
    assert res.exit_code == 0, res.output
    doc = validate_inspect(res.output)
    assert [(b["name"], b["in_scene"]) for b in doc["bones"]] == [
        ("A:Hips", False), ("A:LeftFoot", False), ("A:RightFoot", False),
        ("B:Hips", True), ("B:LeftFoot", True), ("B:RightFoot", True),
    ]
    roles = {r["role"]: r["bone"] for r in doc["rig"]["roles"]}
    assert (roles["hips"], roles["left_foot"], roles["right_foot"]) == ("B:Hips", "B:LeftFoot", "B:RightFoot")
    text = CliRunner().invoke(cli, ["inspect", str(path)]).output
    assert "A:LeftFoot (node) (not in scene)" in text and "B:LeftFoot (node)  [left_foot]" in text


def test_long_names_never_cut_the_numbers(tmp_path):
    """A clip name wider than the output (piped: 200 columns) would squeeze every
    number to '…': inspect and measure then print one block per clip instead."""
    name = "walk_" + "x" * 240
    path = str(tmp_path / "long.glb")
    write_glb(biped_asset([gait_clip(name, frames=31)], convention="ue"), path)
    for args in (["inspect", path], ["measure", path]):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 0, res.output
        assert "…" not in res.output
        assert f"  {name}\n" in res.output
    out = CliRunner().invoke(cli, ["inspect", path]).output
    assert "    dur s: 1.000\n" in out and "    max keys: 31\n" in out
    out = CliRunner().invoke(cli, ["measure", "--wide", path]).output
    assert "    frames: 31\n" in out
    # a short name keeps the table
    short = str(tmp_path / "short.glb")
    write_glb(biped_asset([gait_clip("walk", frames=31)], convention="ue"), short)
    out = CliRunner().invoke(cli, ["inspect", short]).output
    assert "dur s" in out and "    dur s:" not in out


def test_a_long_chain_prints_lines_of_bounded_width(tmp_path):
    """A chain of 3,000 nodes (a rope, a tail, or a hostile 140 KB file) indented two
    spaces per level would print ~9 MB of spaces (the text grows with the square of the
    chain's length); past 32 levels the tree keeps the indentation and names the depth."""
    from gltf_raw import RawGltf

    n = 3000
    raw = RawGltf()
    for i in range(n):
        raw.node(f"seg{i}", children=[i + 1] if i + 1 < n else None)
    raw.scene([0])
    t = raw.floats([0.0, 1.0], "SCALAR")
    v = raw.floats([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]], "VEC4")
    raw.animation("sway", [(n - 1, "rotation", t, v)])
    path = tmp_path / "chain.glb"
    path.write_bytes(raw.glb())
    res = CliRunner().invoke(cli, ["inspect", str(path)])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    # seg<i> sits at depth i: two spaces of the section, then two per level up to 32
    assert "  " + "  " * 31 + "seg31 (node)" in lines
    assert "  " + "  " * 32 + "seg32 (node)" in lines
    assert "  " + "  " * 32 + "seg33 (node) (depth 33)" in lines
    assert "  " + "  " * 32 + "seg2999 (node) (depth 2999)" in lines
    assert max(len(line) for line in lines if "seg" in line) < 100  # the tree's lines, whatever the depth
    doc = json.loads(CliRunner().invoke(cli, ["inspect", "--format", "json", str(path)]).output)
    assert [b["depth"] for b in doc["bones"]] == list(range(n))
