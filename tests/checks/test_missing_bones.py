"""missing-bones ([clips.*] animates_bones) and required-bones ([rig] required_bones)."""

from __future__ import annotations

from animsmith.model import Asset, Channel, Clip, Skeleton

from checks_support import run_check


def asset(names=("root", "hips", "spine", "spine"), keyed=(1,)):
    sk = Skeleton.build(list(names), [-1, 0, 1, 1][: len(names)])
    chans = [Channel.make(b, "rotation", [0, 1], [[0, 0, 0, 1], [0, 0, 0, 1]]) for b in keyed]
    return Asset(skeleton=sk, clips=[Clip(name="walk", channels=chans, index=0), Clip(name="idle", channels=[], index=1)])


def test_missing_bones_not_armed_without_list():
    assert run_check("missing-bones", asset()) == ([], [])
    assert run_check("missing-bones", asset(), expect={"animates_bones": []}) == ([], [])


def test_missing_bones_absent_and_unkeyed():
    findings, gaps = run_check("missing-bones", asset(), expect={"animates_bones": ["hips", "neck", "root"]})
    assert gaps == []
    assert [(f.clip, f.bone) for f in findings] == [("walk", "neck"), ("walk", "root")]
    assert "does not exist" in findings[0].message and "carries no keys" in findings[1].message
    # the same contract on another clip of the file is judged on that clip's keys
    findings, _ = run_check("missing-bones", asset(), "idle", expect={"animates_bones": ["hips"]})
    assert [(f.clip, f.bone) for f in findings] == [("idle", "hips")]


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
