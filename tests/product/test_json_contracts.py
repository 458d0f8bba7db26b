"""Every JSON output of lint and measure on real files validates against the shipped schemas.

The schemas (docs/schema/lint-output.schema.json, measure-output.schema.json)
are the documented machine contract; these runs use the corpus files and the
shipped examples (not our analytic fixtures), so a field that only real exports
produce (centimetre rigs, morph weights, multi-stride clips, clips that start
late) cannot escape the contract. Independent expectations: the schema and the
issue's key list, not our own output.
"""

from __future__ import annotations

import json
import os

import pytest

from lint_support import ROOT, run_cli, validate_json

DATA = os.path.join(ROOT, "tests", "data")
EXAMPLES = os.path.join(ROOT, "examples")
RING_CONFIG = os.path.join(EXAMPLES, "run-ring.animsmith.toml")
MEASURE_SCHEMA = os.path.join(ROOT, "docs", "schema", "measure-output.schema.json")
INSPECT_SCHEMA = os.path.join(ROOT, "docs", "schema", "inspect-output.schema.json")

# The key lists (issue 2: measure; issue 3: lint).
MEASURE_CLIP_KEYS = {
    "name", "duration_s", "frame_count", "gait_phase", "lr_amplitude_m", "cycles", "speed_mps",
    "heading_deg", "distance_m", "loop_seam_ratio",
}
SPEED_CLIP_KEYS = {"name", "speed_mps", "heading_deg", "distance_m", "duration_s", "travel_bone"}
FINDING_KEYS = {"check_id", "severity", "message", "clip", "group", "measured", "expected", "members"}
GAP_KEYS = {"check_id", "code", "scope", "subjects", "message"}
GROUP_KEYS = {"check_id", "anchors", "spread", "cap", "outliers"}
SUMMARY_KEYS = {"errors", "warnings", "notes", "coverage_gaps", "files", "prediction_facets"}


def validate_measure(text, schema_path=MEASURE_SCHEMA):
    """Parse ``text`` and validate it against a shipped schema (measure by default)."""
    import jsonschema

    doc = json.loads(text)
    with open(schema_path, encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)
    return doc


def nulls_have_reasons(clip):
    for key, value in clip.items():
        if value is None and key not in ("travel_bone", "travel_source_role"):
            assert isinstance(clip.get(key + "_unavailable"), str) and clip[key + "_unavailable"], key
        if key.endswith("_unavailable"):
            assert clip[key[: -len("_unavailable")]] is None, key


def test_lint_json_of_the_corpus_and_examples_validates(capsys):
    code, out, err = run_cli(["lint", "--format", "json", DATA, os.path.join(EXAMPLES, "assets")], capsys)
    assert code in (0, 1) and err == ""
    doc = validate_json(out)
    assert doc["schema_version"] == 1 and doc["command"] == "lint"
    n_files = sum(n.endswith((".glb", ".gltf")) for d in (DATA, os.path.join(EXAMPLES, "assets")) for n in os.listdir(d))
    assert set(doc["summary"]) == SUMMARY_KEYS and doc["summary"]["files"] == len(doc["files"]) == n_files
    for fr in doc["files"]:
        for f in fr["findings"]:
            assert FINDING_KEYS <= set(f)
        for g in fr["coverage_gaps"]:
            assert set(g) == GAP_KEYS
        for clip in fr["measurements"]["clips"].values():
            assert MEASURE_CLIP_KEYS <= set(clip)
            nulls_have_reasons(clip)


def test_lint_json_with_groups_validates_and_names_group_fields(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, _ = run_cli(["--config", RING_CONFIG, "lint", "--format", "json", "examples/assets/run-ring.glb"], capsys)
    assert code == 1
    doc = validate_json(out)
    group = doc["files"][0]["measurements"]["groups"]["run-ring"]
    assert GROUP_KEYS <= set(group)
    # anchors of the seed's ring: 0.75 / 0.75 / 0.50 / 0.75 (the user guide's numbers)
    assert group["anchors"] == pytest.approx(
        {"run_forward": 0.75, "run_backward": 0.75, "run_left": 0.50, "run_right": 0.75}, abs=1e-6
    )
    assert group["outliers"] == ["run_left"] and group["cap"] == 0.15


def test_merged_shards_validate_against_the_lint_schema(tmp_path, capsys):
    parts = []
    for i in (1, 2):
        part = tmp_path / f"shard-{i}.json"
        code, _, err = run_cli(["lint", "--format", "json", "--shard", f"{i}/2", "-o", str(part), DATA], capsys)
        assert code in (0, 1) and err == ""
        validate_json(part.read_text(encoding="utf-8"))
        parts.append(str(part))
    code, out, err = run_cli(["merge-results", *parts], capsys)
    assert code in (0, 1) and err == ""
    assert validate_json(out)["summary"]["files"] == 4


@pytest.mark.parametrize("speed", [False, True], ids=["measure", "measure-speed"])
def test_measure_json_of_the_corpus_and_examples_validates(capsys, speed):
    files = sorted(os.path.join(DATA, n) for n in os.listdir(DATA) if n.endswith(".glb"))
    files += sorted(os.path.join(EXAMPLES, "assets", n) for n in os.listdir(os.path.join(EXAMPLES, "assets")) if n.endswith(".glb"))
    code, out, err = run_cli(["measure", *(["speed"] if speed else []), "--format", "json", *files], capsys)
    assert code == 0 and err == ""
    doc = validate_measure(out)
    assert doc["schema_version"] == 1 and doc["command"] == "measure"
    assert [f["path"] for f in doc["files"]] == files
    for fr in doc["files"]:
        assert {"profile", "roles"} <= set(fr["rig"])
        for clip in fr["clips"]:
            assert (SPEED_CLIP_KEYS if speed else MEASURE_CLIP_KEYS) <= set(clip)
            nulls_have_reasons(clip)


def test_measure_schema_rejects_what_the_contract_forbids():
    import jsonschema

    good = {
        "schema_version": 1, "command": "measure", "metric": "speed",
        "files": [{"path": "a.glb", "rig": {"profile": "mixamo", "roles": {"hips": "Hips"}},
                   "units": {"setting": "metres", "metres_per_unit": 1.0, "standing_height_m": 0.95, "note": None},
                   "clips": [{"name": "walk", "speed_mps": 1.5, "heading_deg": 90.0, "distance_m": 1.5,
                              "duration_s": 1.0, "travel_bone": "Hips", "travel_source_role": "hips",
                              "travel_bone_reason": "root 'RootNode' is not animated in this clip; using hips"}]}],
    }
    validate_measure(json.dumps(good))
    for mutate in (
        lambda d: d.update(schema_version=2),
        lambda d: d["files"][0]["clips"][0].update(heading_deg=None),  # null without a reason
        lambda d: d["files"][0]["clips"][0].update(distance_m_unavailable="x"),  # reason beside a number
        lambda d: d["files"][0]["clips"][0].update(heading_deg=181.0),  # outside (-180, 180]
        lambda d: d["files"][0]["rig"]["roles"].update(tail="Tail"),  # not a role
        lambda d: d.pop("metric"),  # a speed clip is not a full measure clip
        lambda d: d["files"][0].pop("units"),  # every file says its units
        lambda d: d["files"][0]["units"].update(metres_per_unit=0),  # a unit has a size
        lambda d: d["files"][0]["units"].pop("note"),  # the note is null when plausible, never absent
    ):
        doc = json.loads(json.dumps(good))
        mutate(doc)
        with pytest.raises(jsonschema.ValidationError):
            validate_measure(json.dumps(doc))


def validate_inspect(text):
    return validate_measure(text, INSPECT_SCHEMA)


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(DATA) if n.endswith(".glb")))
def test_inspect_json_of_the_corpus_validates(capsys, name):
    code, out, err = run_cli(["inspect", "--format", "json", os.path.join(DATA, name)], capsys)
    assert code == 0 and err == ""
    doc = validate_inspect(out)
    # the inspect contents: roles (bone + convention, or why not), bone tree, clips
    assert [r["role"] for r in doc["rig"]["roles"]][:6] == ["root", "hips", "spine", "head", "left_foot", "right_foot"]
    assert all(("convention" in r) != (r["bone"] is None) for r in doc["rig"]["roles"])
    assert sum(b["parent"] == -1 for b in doc["bones"]) >= 1 and doc["clips"]
    for c in doc["clips"]:
        assert c["key_count_total"] >= c["key_count_max"] and sum(c["interpolations"].values()) == c["channel_count"]


def test_inspect_schema_rejects_a_role_without_bone_or_reason():
    import jsonschema

    doc = {"schema_version": 1, "command": "inspect", "path": "a.glb",
           "rig": {"profile": "mixamo", "roles": [{"role": "hips", "bone": None}]}, "bones": [], "clips": []}
    with pytest.raises(jsonschema.ValidationError):
        validate_inspect(json.dumps(doc))
    doc["rig"]["roles"][0]["unresolved"] = "no bone matches hips"
    validate_inspect(json.dumps(doc))
