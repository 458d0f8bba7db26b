"""`[engine]` profiles and the engine-addressability check: handles predicted from each
runtime's naming rules (expected values written from those rules by hand, and checked
against three.js itself when node and the oracles are installed)."""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest

from gltf_raw import RawGltf
from lint_support import run_cli, validate_json

TIMES = np.array([0.0, 0.5, 1.0], np.float32)


def _moving(raw, node, dx):
    """Accessors of a translation that moves ``node`` by ``dx`` along x over the clip."""
    t = raw.floats(TIMES, "SCALAR")
    v = raw.floats(np.array([[0, 0, 0], [dx / 2, 0, 0], [dx, 0, 0]], np.float32), "VEC3")
    return (node, "translation", t, v, "LINEAR")


def clips_file(tmp_path, names, fname="clips.glb"):
    """A root node and one clip per entry of ``names`` (None: an unnamed animation)."""
    raw = RawGltf()
    root = raw.node("root")
    raw.scene([root])
    for k, name in enumerate(names):
        raw.animation(name, [_moving(raw, root, 0.1 * (k + 1))])
    path = tmp_path / fname
    path.write_bytes(raw.glb())
    return str(path)


def colliding_feet(tmp_path, fname="feet.glb"):
    """root -> nodes 'foot' (#1), 'foot' (#2), 'foot_1' (#3), each moved by its own track:
    three.js renames #2 to 'foot_1' and #3 keeps 'foot_1', so both are 'foot_1'."""
    raw = RawGltf()
    a = raw.node("foot", translation=[0.0, 0.0, 0.0])
    b = raw.node("foot", translation=[0.0, 1.0, 0.0])
    c = raw.node("foot_1", translation=[0.0, 2.0, 0.0])
    root = raw.node("root", children=[a, b, c])
    raw.scene([root])
    raw.animation("walk", [_moving(raw, a, 0.1), _moving(raw, b, 0.2), _moving(raw, c, 0.5)])
    path = tmp_path / fname
    path.write_bytes(raw.glb())
    return str(path), (a, b, c)


def contract(tmp_path, body, name="engine.toml"):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return str(path)


def lint_json(tmp_path, capsys, cfg, *paths, extra=()):
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", *extra, *paths], capsys)
    return code, validate_json(out), err


def facets(doc, file_index=0):
    return doc["files"][file_index]["prediction_facets"]


# ---------------------------------------------------------------------------
# bevy
# ---------------------------------------------------------------------------


def test_bevy_labels_three_clips_by_index_whatever_their_names(tmp_path, capsys):
    glb = clips_file(tmp_path, ["dup", None, "dup"])
    cfg = contract(tmp_path, '[engine]\nprofile = "bevy"\n')
    code, doc, err = lint_json(tmp_path, capsys, cfg, glb)
    assert code == 0 and err == ""
    got = [(f["code"], f["state"], f["handle"]) for f in facets(doc)]
    assert got == [("animation_asset_label", "available", f"Animation{i}") for i in range(3)]
    assert [f["sources"][0]["name"] for f in facets(doc)] == ["dup", None, "dup"]
    assert doc["summary"]["prediction_facets"] == {"available": 3, "required_unavailable": 0}
    prov = doc["files"][0]["prediction_provenance"]
    assert (prov["profile"], prov["version"], prov["runtime"]) == ("bevy", "0.19", "Bevy")
    assert "engine-addressability" in doc["checks"]


def test_bevy_text_counts_available_facets_and_lists_them_only_when_verbose(tmp_path, capsys):
    glb = clips_file(tmp_path, ["walk", "run"])
    cfg = contract(tmp_path, '[engine]\nprofile = "bevy"\n')
    code, out, _ = run_cli(["--config", cfg, "lint", "--select", "engine-addressability", glb], capsys)
    assert code == 0
    assert out.splitlines() == [
        f"{glb}:",
        "  engine profile bevy 0.19 (Bevy): 2 available, 0 required-unavailable prediction facet(s)",
        "0 error(s), 0 warning(s), 0 note(s), 0 coverage gap(s), 2 available prediction facet(s), "
        "0 required-unavailable prediction facet(s)",
    ]
    code, out, _ = run_cli(["--config", cfg, "lint", "--verbose", "--select", "engine-addressability", glb], capsys)
    assert "  prediction[engine-addressability] animation_asset_label animations[1] 'run': available as 'Animation1'" in out


# ---------------------------------------------------------------------------
# three.js
# ---------------------------------------------------------------------------


def test_threejs_sanitize_and_uniquify_rules():
    from animsmith.engine import ThreeUniqueNames, threejs_sanitize_node_name

    # PropertyBinding.sanitizeNodeName: whitespace -> "_", then [ ] . : / removed
    assert threejs_sanitize_node_name("mixamorig:Hips") == "mixamorigHips"
    assert threejs_sanitize_node_name("Left Thigh.001") == "Left_Thigh001"
    assert threejs_sanitize_node_name("a[b]/c\td") == "abc_d"
    unique = ThreeUniqueNames()
    # the uniquifier never looks at names already given: 'foot_1' is handed out twice
    assert [unique(n) for n in ["foot", "foot", "foot_1", "foot"]] == ["foot", "foot_1", "foot_1", "foot_2"]


def test_threejs_colliding_feet_are_one_required_unavailable_facet_and_exit_1(tmp_path, capsys):
    glb, (a, b, c) = colliding_feet(tmp_path)
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    code, doc, _ = lint_json(tmp_path, capsys, cfg, glb)
    assert code == 1
    bad = [f for f in facets(doc) if f["state"] == "required_unavailable"]
    assert len(bad) == 1
    assert (bad[0]["code"], bad[0]["handle"], bad[0]["reasons"]) == ("node_binding_name", "foot_1", ["node_name_collision"])
    assert [(s["kind"], s["index"], s["name"]) for s in bad[0]["sources"]] == [("node", b, "foot"), ("node", c, "foot_1")]
    ok = {f["subject"]: f["handle"] for f in facets(doc) if f["state"] == "available" and f["code"] == "node_binding_name"}
    assert ok == {f"nodes[{a}] 'foot'": "foot"}
    assert doc["summary"]["prediction_facets"]["required_unavailable"] == 1
    # the text names both nodes; --allow and a severity do not hide it
    for extra in ((), ("--allow", "engine-addressability")):
        code, out, _ = run_cli(["--config", cfg, "lint", *extra, glb], capsys)
        assert code == 1
        line = [x for x in out.splitlines() if x.startswith("  prediction[")]
        assert len(line) == 1 and "node_binding_name 'foot_1': required unavailable (node_name_collision)" in line[0]
        assert f"nodes[{b}] 'foot'" in line[0] and f"nodes[{c}] 'foot_1'" in line[0]
    sev = contract(tmp_path, '[engine]\nprofile = "threejs"\n[checks.engine-addressability]\nseverity = "note"\n', "sev.toml")
    assert run_cli(["--config", sev, "lint", glb], capsys)[0] == 1
    # only turning the check off removes the facets
    off = contract(tmp_path, '[engine]\nprofile = "threejs"\n[checks.engine-addressability]\nenabled = false\n', "off.toml")
    code, doc, _ = lint_json(tmp_path, capsys, off, glb)
    assert code == 0 and facets(doc) == [] and "engine-addressability" not in doc["checks"]
    assert doc["files"][0]["prediction_provenance"]["profile"] == "threejs"


def test_threejs_mixamo_name_alone_is_available_sanitized(tmp_path, capsys):
    raw = RawGltf()
    hips = raw.node("mixamorig:Hips")
    raw.scene([hips])
    raw.animation("mixamo.com", [_moving(raw, hips, 0.3)])
    glb = tmp_path / "mixamo.glb"
    glb.write_bytes(raw.glb())
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    code, doc, _ = lint_json(tmp_path, capsys, cfg, str(glb))
    assert code == 0
    got = {(f["code"], f["state"], f["handle"]) for f in facets(doc)}
    assert got == {("clip_name", "available", "mixamo.com"), ("node_binding_name", "available", "mixamorigHips")}


def test_threejs_duplicate_clip_name_is_unavailable_for_the_later_clip(tmp_path, capsys):
    glb = clips_file(tmp_path, ["walk", None, "walk", "animation_1"])
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    code, doc, _ = lint_json(tmp_path, capsys, cfg, glb)
    assert code == 1
    clips = [(f["subject"], f["state"], f["handle"]) for f in facets(doc) if f["code"] == "clip_name"]
    # an unnamed animation is 'animation_<index>'; findByName returns the first of a name
    assert clips == [
        ("animations[0] 'walk'", "available", "walk"),
        ("animations[1] (unnamed)", "available", "animation_1"),
        ("animations[2] 'walk'", "required_unavailable", "walk"),
        ("animations[3] 'animation_1'", "required_unavailable", "animation_1"),
    ]


def test_threejs_names_match_the_loader_on_every_shipped_and_corpus_file(oracles):
    """Every node's predicted three.js name equals the name three.js r187 gives it."""
    from animsmith.engine import threejs_scene_objects
    from animsmith.io.gltf import load_asset

    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = [os.path.join(here, "examples", "assets", n) for n in sorted(os.listdir(os.path.join(here, "examples", "assets")))]
    corpus = os.path.join(here, "..", "shared", "corpus")
    if os.path.isdir(corpus):
        files += [os.path.join(corpus, n) for n in sorted(os.listdir(corpus)) if n.endswith(".glb")]
    compared = 0
    for path in files:
        listing = json.loads(subprocess.run(
            ["node", os.path.join(oracles, "sample.mjs"), path, "--list"], capture_output=True, text=True, check=True
        ).stdout)
        _, objects = threejs_scene_objects(load_asset(path, strict=False).gltf)
        for node in listing["nodes"]:
            if node["in_scene"]:
                assert objects[node["index"]].name == node["three_name"], (path, node)
                compared += 1
    assert compared > 20


def test_threejs_binds_the_wrong_node_where_the_facet_says(tmp_path, oracles):
    """three.js itself: node #3 'foot_1' does not follow its own track (its twin #2 is found
    first), while with every node renamed apart it does."""
    glb, (a, b, c) = colliding_feet(tmp_path)
    script = os.path.join(oracles, "sample.mjs")

    def x_at_end(*extra):
        out = subprocess.run(
            ["node", script, glb, "--clip", "walk", "--nodes", f"#{c}", "--times", "1", "--local", *extra],
            capture_output=True, text=True, check=True,
        ).stdout
        return json.loads(out)["samples"][0]["nodes"][f"#{c}"]["local"]["position"][0]

    assert x_at_end("--rename-nodes") == pytest.approx(0.5, abs=1e-6)  # its own track: +0.5 m
    assert x_at_end() == pytest.approx(0.0, abs=1e-6)  # by name, the track moved node #2 instead


# ---------------------------------------------------------------------------
# godot
# ---------------------------------------------------------------------------


def test_godot_rules():
    from animsmith.engine import godot_animation_names, godot_sanitize_animation_name

    assert godot_sanitize_animation_name("mixamo.com") == "mixamocom"
    assert godot_sanitize_animation_name('a:b@c/d"e%f') == "abcdef"
    assert godot_sanitize_animation_name("walk,left[1]") == "walk_left_1]"
    names = godot_animation_names(["walk", "walk", None, "walk2", None])
    assert [n for n, _, _ in names] == ["walk", "walk2", "Animation", "walk22", "Animation2"]


def test_godot_duplicate_clip_name_is_unavailable_for_the_duplicate(tmp_path, capsys):
    glb = clips_file(tmp_path, ["Run|loop", "mixamo.com", "Run|loop"])
    cfg = contract(tmp_path, '[engine]\nprofile = "godot"\nversion = "4"\n')
    code, doc, _ = lint_json(tmp_path, capsys, cfg, glb)
    assert code == 1
    got = [(f["state"], f["handle"], f["reasons"]) for f in facets(doc)]
    assert got == [
        ("available", "Run|loop", []),
        ("available", "mixamocom", []),
        ("required_unavailable", "Run|loop2", ["duplicate_clip_name"]),
    ]


# ---------------------------------------------------------------------------
# contract, formats, merge
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, needle",
    [
        ('[engine]\nprofile = "unity"\n', "engine.profile: unknown engine profile 'unity'"),
        ('[engine]\nprofile = "bevy"\nimporter = "x"\n', "engine.importer: unknown key"),
        ('[engine]\nversion = "r187"\n', "engine.profile: missing required key"),
        ('[engine]\nprofile = "threejs"\nversion = "r150"\n', "engine.version: profile 'threejs' has no rules for version 'r150'"),
        ('[engine]\nprofile = 3\n', "engine.profile: must be a string"),
    ],
)
def test_contract_errors_exit_2_before_any_input_is_read(tmp_path, capsys, body, needle):
    cfg = contract(tmp_path, body)
    code, out, err = run_cli(["--config", cfg, "lint", str(tmp_path / "missing.glb")], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err and "missing.glb" not in err


def test_without_a_profile_json_says_null_and_zero(tmp_path, capsys):
    glb = clips_file(tmp_path, ["walk"])
    cfg = contract(tmp_path, "")
    code, doc, _ = lint_json(tmp_path, capsys, cfg, glb)
    assert code == 0
    assert doc["files"][0]["prediction_provenance"] is None and facets(doc) == []
    assert doc["summary"]["prediction_facets"] == {"available": 0, "required_unavailable": 0}
    assert "engine-addressability" not in doc["checks"]


def test_ci_formats_carry_unavailable_facets_as_failures(tmp_path, capsys):
    glb, _ = colliding_feet(tmp_path)
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    outs = {}
    for fmt in ("markdown", "sarif", "junit", "github"):
        code, outs[fmt], _ = run_cli(["--config", cfg, "lint", "--format", fmt, "--allow", "engine-addressability", glb], capsys)
        assert code == 1, fmt
    assert "| ❌ unavailable | `engine-addressability` |" in outs["markdown"]
    assert "1 required-unavailable prediction facet(s)" in outs["markdown"]
    sarif = json.loads(outs["sarif"])["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in sarif] == [("engine-addressability", "error")]
    assert '<testcase classname="' in outs["junit"] and 'type="engine-addressability"' in outs["junit"]
    assert 'failures="1"' in outs["junit"]
    assert outs["github"].startswith("::error file=") and "prediction node_binding_name" in outs["github"]


def test_merge_results_sums_facets_and_fails_on_an_unavailable_one(tmp_path, capsys):
    feet, _ = colliding_feet(tmp_path)
    clips = clips_file(tmp_path, ["walk", "run"])
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    parts = []
    for k, path in enumerate((feet, clips)):
        out = tmp_path / f"r{k}.json"
        run_cli(["--config", cfg, "lint", "--format", "json", "-o", str(out), path], capsys)
        parts.append(str(out))
    code, out, _ = run_cli(["merge-results", *parts], capsys)
    merged = validate_json(out)
    singles = [json.loads(open(p, encoding="utf-8").read())["summary"]["prediction_facets"] for p in parts]
    assert code == 1
    assert merged["summary"]["prediction_facets"] == {
        k: singles[0][k] + singles[1][k] for k in ("available", "required_unavailable")
    }
    assert merged["summary"]["prediction_facets"]["required_unavailable"] == 1
    code, text, _ = run_cli(["merge-results", "--format", "text", *parts], capsys)
    assert code == 1 and "required unavailable (node_name_collision)" in text
    code, _, _ = run_cli(["merge-results", parts[1]], capsys)
    assert code == 0


def test_sarif_with_an_unavailable_facet_validates(tmp_path, capsys):
    import jsonschema

    glb, _ = colliding_feet(tmp_path)
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    _, out, _ = run_cli(["--config", cfg, "lint", "--format", "sarif", glb], capsys)
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(here, "docs", "schema", "sarif-2.1.0.json"), encoding="utf-8") as fh:
        jsonschema.Draft7Validator(json.load(fh)).validate(json.loads(out))
    result = json.loads(out)["runs"][0]["results"][0]
    assert result["properties"]["predictionFacet"]["reasons"] == ["node_name_collision"]


def test_junit_engine_case_passes_when_every_facet_is_available(tmp_path, capsys):
    glb = clips_file(tmp_path, ["walk", "run"])
    cfg = contract(tmp_path, '[engine]\nprofile = "godot"\n')
    code, out, _ = run_cli(["--config", cfg, "lint", "--format", "junit", glb], capsys)
    assert code == 0
    assert 'name="engine-addressability" />' in out and "<failure" not in out


def test_report_lists_the_predictions(tmp_path, capsys):
    import re

    glb, _ = colliding_feet(tmp_path)
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    page = tmp_path / "r.html"
    code, _, _ = run_cli(["--config", cfg, "report", glb, "-o", str(page)], capsys)
    assert code == 0
    text = page.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S).group(1))
    assert [(e["profile"], e["version"]) for e in data["engine"]] == [("threejs", "r187")]
    states = [(p["code"], p["state"]) for p in data["predictions"]]
    assert states[0] == ("node_binding_name", "required_unavailable")
    assert sorted(states[1:]) == [("clip_name", "available"), ("node_binding_name", "available")]
    assert data["summary"]["prediction_facets"] == {"available": 2, "required_unavailable": 1}


def test_seed_transcript_matches_the_user_guide_when_it_is_at_hand(capsys, monkeypatch):
    """The README command's stdout equals the guide's four transcript lines, byte for byte."""
    import glob

    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    seeds = glob.glob(os.path.join(here, "..", "shared", "seeds", "004_*.txt"))
    if not seeds:
        pytest.skip("the user guide (../shared/seeds) is not next to this checkout")
    lines = open(seeds[0], encoding="utf-8").read().splitlines()
    cmd = "$ animsmith --config examples/run-ring.animsmith.toml lint examples/assets/run-ring.glb"
    start = lines.index(cmd) + 1
    expected = lines[start:start + 4]
    assert expected[-1].endswith("   # exits 1")
    expected[-1] = expected[-1][: -len("   # exits 1")]
    monkeypatch.chdir(here)
    code, out, err = run_cli(cmd.split()[2:], capsys)
    assert (code, out, err) == (1, "\n".join(expected) + "\n", "")


def tricky_scene(tmp_path):
    """Names that meet every renaming path of the loader: a two-primitive mesh named like
    a node, an unnamed node holding an unnamed mesh, white space and reserved characters,
    a named camera and scene, a node named like a renamed repeat, and a skin."""
    raw = RawGltf()
    pos = raw.accessor(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32), "VEC3", min=[0, 0, 0], max=[1, 1, 0])
    body = raw._list("meshes")
    body.append({"name": "Body", "primitives": [{"attributes": {"POSITION": pos}}, {"attributes": {"POSITION": pos}}]})
    body.append({"primitives": [{"attributes": {"POSITION": pos}}]})
    raw._list("cameras").append({"name": "Cam", "type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.1}})
    hips = raw.node("mixamorig:Hips")
    arm = raw.node("Left Arm.001")
    clash = raw.node("Body_1")  # the mesh's second primitive will be named 'Body_2', its first 'Body_1'
    cam = raw.node("Cam", camera=0)
    anon = raw.node(None, mesh=1)
    holder = raw.node("Body", mesh=0)
    root = raw.node("Scene", children=[hips, arm, clash, cam, anon, holder])
    raw.doc.setdefault("skins", []).append({"joints": [hips, arm]})
    raw._list("scenes").append({"name": "Scene", "nodes": [root]})
    raw.doc["scene"] = 0
    raw.animation("idle", [_moving(raw, hips, 0.1), _moving(raw, arm, 0.1), _moving(raw, clash, 0.1), _moving(raw, anon, 0.1)])
    path = tmp_path / "tricky.glb"
    path.write_bytes(raw.glb())
    return str(path)


def test_threejs_names_of_a_tricky_scene_match_the_loader(tmp_path, oracles):
    from animsmith.engine import predict_threejs_nodes, threejs_scene_objects
    from animsmith.io.gltf import load_asset

    path = tricky_scene(tmp_path)
    listing = json.loads(subprocess.run(
        ["node", os.path.join(oracles, "sample.mjs"), path, "--list"], capture_output=True, text=True, check=True
    ).stdout)
    gltf = load_asset(path, strict=False).gltf
    _, objects = threejs_scene_objects(gltf)
    got = {n: objects[n].name for n in objects}
    want = {node["index"]: node["three_name"] for node in listing["nodes"] if node["in_scene"]}
    assert got == want
    # the node literally named 'Body_1' shares its name with the mesh's first primitive
    facets = {p.subject: (p.state, p.handle) for p in predict_threejs_nodes(gltf)}
    assert facets["nodes[0] 'mixamorig:Hips'"] == ("available", "mixamorigHips")
    assert facets["nodes[1] 'Left Arm.001'"] == ("available", "Left_Arm001")
    assert facets["nodes[4] (unnamed)"] == ("available", "mesh_1")  # the node is its mesh, named mesh_<index>
    # 'Body_1' is also the mesh's first primitive, but the search meets the node first: available,
    # and three.js indeed moves node #2 by its own track (+0.1 m)
    assert facets["nodes[2] 'Body_1'"] == ("available", "Body_1")
    out = subprocess.run(
        ["node", os.path.join(oracles, "sample.mjs"), path, "--clip", "idle", "--nodes", "#2", "--times", "1", "--local"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert json.loads(out)["samples"][0]["nodes"]["#2"]["local"]["position"][0] == pytest.approx(0.1, abs=1e-6)


def prototype_names(tmp_path):
    """Nodes named after properties every JavaScript object inherits, and one named like
    the loader's rename of the first: GLTFLoader keeps its used names in a plain object,
    so `name in used` is already true for 'constructor' and the count `++` makes is NaN."""
    raw = RawGltf()
    names = ["constructor", "toString", "__proto__", "constructor_NaN", "hasOwnProperty"]
    nodes = [raw.node(n, translation=[0.0, float(k), 0.0]) for k, n in enumerate(names)]
    root = raw.node("root", children=nodes)
    raw.scene([root])
    raw.animation("walk", [_moving(raw, n, 0.1 * (k + 1)) for k, n in enumerate(nodes)])
    path = tmp_path / "proto.glb"
    path.write_bytes(raw.glb())
    return str(path), nodes


def test_threejs_names_inherited_by_every_javascript_object_get_a_nan_suffix(tmp_path, capsys):
    from animsmith.engine import ThreeUniqueNames

    unique = ThreeUniqueNames()
    got = [unique(n) for n in ["constructor", "constructor", "valueOf", "__proto__", "constructor_NaN", "walk"]]
    assert got == ["constructor_NaN", "constructor_NaN", "valueOf_NaN", "__proto___NaN", "constructor_NaN", "walk"]
    glb, nodes = prototype_names(tmp_path)
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    code, doc, _ = lint_json(tmp_path, capsys, cfg, glb)
    assert code == 1
    bad = [f for f in facets(doc) if f["state"] == "required_unavailable"]
    assert [(f["handle"], f["reasons"]) for f in bad] == [("constructor_NaN", ["node_name_collision"])]
    assert [(s["index"], s["name"]) for s in bad[0]["sources"]] == [(nodes[0], "constructor"), (nodes[3], "constructor_NaN")]
    ok = {f["sources"][0]["name"]: f["handle"] for f in facets(doc) if f["state"] == "available" and f["code"] == "node_binding_name"}
    assert ok == {"toString": "toString_NaN", "__proto__": "__proto___NaN", "hasOwnProperty": "hasOwnProperty_NaN"}


def test_threejs_prototype_names_match_the_loader(tmp_path, oracles):
    from animsmith.engine import threejs_scene_objects
    from animsmith.io.gltf import load_asset

    glb, nodes = prototype_names(tmp_path)
    listing = json.loads(subprocess.run(
        ["node", os.path.join(oracles, "sample.mjs"), glb, "--list"], capture_output=True, text=True, check=True
    ).stdout)
    _, objects = threejs_scene_objects(load_asset(glb, strict=False).gltf)
    want = {node["index"]: node["three_name"] for node in listing["nodes"] if node["in_scene"]}
    assert {n: objects[n].name for n in want} == want
    assert want[nodes[0]] == want[nodes[3]] == "constructor_NaN"


def test_merge_results_verbose_lists_the_available_facets_as_lint_does(tmp_path, capsys):
    glb = clips_file(tmp_path, ["walk", "run"])
    cfg = contract(tmp_path, '[engine]\nprofile = "bevy"\n')
    part = tmp_path / "r.json"
    run_cli(["--config", cfg, "lint", "--format", "json", "-o", str(part), "--select", "engine-addressability", glb], capsys)
    code, lint_out, _ = run_cli(["--config", cfg, "lint", "--verbose", "--select", "engine-addressability", glb], capsys)
    code, merged, _ = run_cli(["merge-results", "--format", "text", "--verbose", str(part)], capsys)
    assert code == 0
    assert merged == lint_out
    assert "animations[0] 'walk': available as 'Animation0'" in merged
    code, quiet, _ = run_cli(["merge-results", "--format", "text", str(part)], capsys)
    assert "available as" not in quiet


@pytest.mark.parametrize("names, lost, kept", [([None, "Animation"], 0, 1), (["Animation", None], 0, 1)])
def test_godot_unnamed_clip_meeting_a_named_animation_loses_the_earlier_one(tmp_path, capsys, names, lost, kept):
    """GLTFDocument imports clips in file order and AnimationLibrary.add_animation replaces an
    animation of the same name: the clip imported later is the one 'Animation' plays, and the
    earlier one is gone from the library, whichever of the two is the unnamed one."""
    glb = clips_file(tmp_path, names)
    cfg = contract(tmp_path, '[engine]\nprofile = "godot"\n')
    code, doc, _ = lint_json(tmp_path, capsys, cfg, glb)
    assert code == 1
    got = [(f["state"], f["handle"], f["reasons"]) for f in facets(doc)]
    assert got[kept] == ("available", "Animation", [])
    assert got[lost] == ("required_unavailable", "Animation", ["duplicate_clip_name"])
    assert [s["index"] for s in facets(doc)[lost]["sources"]] == [lost, kept]


def test_godot_unnamed_clip_skips_the_names_of_non_joint_nodes(tmp_path, capsys):
    """Godot names an unnamed clip from the scene's unique-name set, which holds the names of
    the nodes that are not skin joints: a node 'Animation' (and a second one, 'Animation2')
    push the clip to 'Animation3'; a joint named 'Animation' does not."""
    from animsmith.engine import godot_animation_names

    assert [n for n, _, _ in godot_animation_names([None, None], {"Animation", "Animation3"})] == ["Animation2", "Animation4"]
    raw = RawGltf()
    a = raw.node("Anim.ation")
    b = raw.node("Animation")
    joint = raw.node("Animation2")
    root = raw.node("root", children=[a, b, joint])
    raw.scene([root])
    raw.doc.setdefault("skins", []).append({"joints": [joint]})
    raw.animation(None, [_moving(raw, root, 0.1)])
    glb = tmp_path / "godot-nodes.glb"
    glb.write_bytes(raw.glb())
    cfg = contract(tmp_path, '[engine]\nprofile = "godot"\n')
    code, doc, _ = lint_json(tmp_path, capsys, cfg, str(glb))
    assert code == 0
    assert [(f["state"], f["handle"]) for f in facets(doc)] == [("available", "Animation3")]


def test_threejs_animation_only_file_without_a_scene(tmp_path, capsys):
    """An animation-only export (no scene: its clips are played on a character loaded from
    another file) binds its tracks by name on that model: the names are predicted, available,
    and only two animated nodes that end up with one three.js name are unavailable."""
    raw = RawGltf()
    hips = raw.node("mixamorig:Hips")
    foot_a = raw.node("foot")
    foot_b = raw.node("foot")
    foot_c = raw.node("foot_1")
    raw.animation("walk", [_moving(raw, hips, 0.3), _moving(raw, foot_a, 0.1), _moving(raw, foot_b, 0.1), _moving(raw, foot_c, 0.1)])
    path = tmp_path / "anim-only.glb"
    path.write_bytes(raw.glb())
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    code, doc, _ = lint_json(tmp_path, capsys, cfg, str(path))
    nodes = [f for f in facets(doc) if f["code"] == "node_binding_name"]
    by_state = {(f["state"], f["handle"]) for f in nodes}
    # sanitizeNodeName drops ':'; 'foot' keeps its name, the second 'foot' becomes 'foot_1'
    # (createUniqueName), and 'foot_1' keeps 'foot_1': two nodes named 'foot_1'
    assert ("available", "mixamorigHips") in by_state and ("available", "foot") in by_state
    assert ("required_unavailable", "foot_1") in by_state
    assert len(nodes) == 3 and code == 1

    raw = RawGltf()
    hips = raw.node("mixamorig:Hips")
    raw.animation("walk", [_moving(raw, hips, 0.3)])
    path.write_bytes(raw.glb())
    code, doc, _ = lint_json(tmp_path, capsys, cfg, str(path))
    assert code == 0
    assert [(f["state"], f["handle"]) for f in facets(doc) if f["code"] == "node_binding_name"] == [("available", "mixamorigHips")]
