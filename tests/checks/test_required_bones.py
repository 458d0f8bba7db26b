"""required-bones: bones the rig contract requires ([rig] required_bones).
"""

from __future__ import annotations

from animsmith.model import Asset, Clip, Skeleton

from checks_support import run_check
from bone_clips import asset


def test_required_bones_absent_and_ambiguous_reported_once_per_file():
    a = asset()
    findings, gaps = run_check("required-bones", a, required_bones=["root", "head", "spine"])
    assert gaps == []
    assert [(f.bone, f.measured) for f in findings] == [("head", 0), ("spine", 2)]
    # the rig is judged once: the file's second clip reports nothing
    assert run_check("required-bones", a, "idle", required_bones=["head"]) == ([], [])
    assert run_check("required-bones", a, required_bones=["root", "hips"]) == ([], [])
    assert run_check("required-bones", a) == ([], [])


def test_required_bones_empty_skeleton_is_gap():
    empty = Asset(skeleton=Skeleton.build([], []), clips=[Clip(name="walk", channels=[])])
    findings, gaps = run_check("required-bones", empty, required_bones=["hips"])
    assert findings == [] and [(g.code, g.scope) for g in gaps] == [("skeleton_unavailable", "required_bone_presence")]


def test_a_file_without_animations_is_judged_not_silently_clean(tmp_path, capsys):
    """A rig-only GLB: required-bones judges its skeleton (findings without a clip), and
    duration-sanity says no clip check could judge it (gap no_clips, scope file)."""
    import json

    from animsmith.io.write import write_glb

    from lint_support import run_cli, validate_json, write_config

    rig = Asset(skeleton=Skeleton.build(["root", "Hips", "Head", "Head"], [-1, 0, 1, 1]), clips=[])
    path = str(tmp_path / "rig.glb")
    write_glb(rig, path)
    cfg = write_config(tmp_path / "animsmith.toml", '[rig]\nrequired_bones = ["Hips", "Spine", "Head"]\n')
    code, out, err = run_cli(["--config", str(cfg), "lint", "--format", "json", path], capsys)
    doc = validate_json(out)
    fr = doc["files"][0]
    assert code == 1 and err == ""
    assert [(f["check_id"], f["clip"], f["bone"], f["measured"]) for f in fr["findings"]] == [
        ("required-bones", None, "Spine", 0), ("required-bones", None, "Head", 2)
    ]
    assert [(g["check_id"], g["code"], g["scope"], g["subjects"]) for g in fr["coverage_gaps"]] == [
        ("duration-sanity", "no_clips", "file", [])
    ]
    # without the contract: not "clean", a gap
    code, out, _ = run_cli(["lint", path], capsys)
    assert code == 0 and "clean" not in out and "no_clips" in out
    assert json.loads(run_cli(["lint", "--format", "json", "--select", "nan", path], capsys)[1])["files"][0]["coverage_gaps"] == []
