"""Groups in a lint run: members across files, member names, text and JSON alike, --jobs.

Contracts and lint runs: tests/support/group_support.py (stride anchors known by construction).
"""

from __future__ import annotations

import json

import pytest

from builders import gait_clip
from lint_support import run_cli, validate_json, write_clips, write_config
from group_support import gait_config, sync_config, lint_json, by_check, expected_spread, RING_SPREAD


RING4 = ["run_forward", "run_backward", "run_left", "run_right"]


def mixamo_pack(tmp_path):
    """Four one-clip files, every clip named 'mixamo.com' (Mixamo's habit)."""
    files = {}
    for stem, offset in (("fwd", 0.0), ("bwd", 0.0), ("left", 0.25), ("right", 0.0)):
        files[stem] = write_clips(tmp_path / f"{stem}.glb", [gait_clip("mixamo.com", offset_cycles=offset)])
    return files


def test_cross_file_group_judged_once(tmp_path, capsys):
    files = mixamo_pack(tmp_path)
    cfg = write_config(tmp_path / "ring.toml", gait_config(["fwd.glb", "bwd.glb", "left.glb#mixamo.com", "right.glb"]))
    paths = [files[s] for s in ("fwd", "bwd", "left", "right")]
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", *paths], capsys)
    doc = validate_json(out)
    assert err == "" and code == 1
    group_findings = [(i, f) for i, fr in enumerate(doc["files"]) for f in fr["findings"] if f["check_id"] == "gait-group"]
    assert len(group_findings) == 1 and group_findings[0][0] == 0  # once, on the first member's file
    f = group_findings[0][1]
    assert f["measured"] == pytest.approx(RING_SPREAD, abs=1e-6)
    rows = {m["member"]: m for m in f["members"]}
    assert rows["left.glb#mixamo.com"]["outlier"] is True
    # folder argument: same judgement
    code2, out2, _ = run_cli(["--config", cfg, "lint", str(tmp_path)], capsys)
    assert code2 == 1 and out2.count("error[gait-group]") == 1


def test_cross_file_member_not_linted_is_loaded_from_the_config_folder(tmp_path, capsys):
    files = mixamo_pack(tmp_path)
    cfg = write_config(tmp_path / "ring.toml", gait_config(["fwd.glb", "bwd.glb", "left.glb", "right.glb"]))
    code, out, _ = run_cli(["--config", cfg, "lint", files["fwd"]], capsys)
    assert code == 1 and out.count("error[gait-group]") == 1
    assert "left.glb=0.50" in out


def test_cross_file_missing_file_and_multi_clip_file(tmp_path, capsys):
    files = mixamo_pack(tmp_path)
    write_clips(tmp_path / "two.glb", [gait_clip("x"), gait_clip("y")])
    cfg = write_config(tmp_path / "ring.toml", gait_config(["fwd.glb", "bwd.glb", "absent.glb", "two.glb"]))
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", files["fwd"]], capsys)
    doc = validate_json(out)
    missing = [f for f in doc["files"][0]["findings"] if f["check_id"] == "gait-group"]
    assert code == 1 and [f["clip"] for f in missing] == ["absent.glb", "two.glb"]
    assert "cannot read member file" in missing[0]["message"]
    assert "name one as 'two.glb#<clip>'" in missing[1]["message"]
    # the hint keeps the member's folder as written in the config
    (tmp_path / "packs").mkdir()
    write_clips(tmp_path / "packs" / "two.glb", [gait_clip("x"), gait_clip("y")])
    cfg = write_config(tmp_path / "ring2.toml", gait_config(["fwd.glb", "bwd.glb", "packs/two.glb"]))
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", files["fwd"]], capsys)
    msgs = [f["message"] for f in validate_json(out)["files"][0]["findings"] if f["check_id"] == "gait-group"]
    assert any("name one as 'packs/two.glb#<clip>'" in m for m in msgs), msgs


def test_text_and_json_judge_groups_alike(tmp_path, capsys):
    """Text runs skip the per-clip measurement dicts; group verdicts must not change."""
    clips = [
        gait_clip("a"),
        gait_clip("b", frames=25, velocity_mps=(0, 0, 2.0)),  # 25 keys against 31: a sync-group error
        gait_clip("c", reverse=True),
        gait_clip("d", offset_cycles=0.25),
    ]
    glb = write_clips(tmp_path / "m.glb", clips)
    cfg = write_config(tmp_path / "c.toml", gait_config(["a", "b", "c", "d"]) + sync_config(["a", "b", "c", "d"]))
    code_t, out_t, _ = run_cli(["--config", cfg, "lint", glb], capsys)
    code_j, out_j, _ = run_cli(["--config", cfg, "lint", "--format", "json", glb], capsys)
    doc = validate_json(out_j)
    text_heads = [line.split()[0].rstrip(":") for line in out_t.splitlines() if line.startswith("  ")]
    json_heads = [f"{f['severity']}[{f['check_id']}]" for f in doc["files"][0]["findings"]]
    assert [h for h in text_heads if not h.startswith("coverage")] == json_heads
    assert {"error[gait-group]", "error[sync-group]", "warning[time-complement]"} <= set(json_heads)
    assert code_t == code_j == 1


@pytest.mark.slow
def test_cross_file_groups_with_jobs(tmp_path, capsys):
    files = mixamo_pack(tmp_path)
    cfg = write_config(tmp_path / "ring.toml", gait_config(["fwd.glb", "bwd.glb", "left.glb", "right.glb"]))
    paths = [files[s] for s in ("fwd", "bwd", "left", "right")]
    one = run_cli(["--config", cfg, "lint", "--jobs", "1", *paths], capsys)
    two = run_cli(["--config", cfg, "lint", "--jobs", "2", *paths], capsys)
    assert one == two and one[0] == 1 and one[1].count("error[gait-group]") == 1


def test_control_characters_in_names_are_escaped(tmp_path, capsys):
    clips = [gait_clip("a\u202eb"), gait_clip("c\nd", offset_cycles=0.5)]
    glb = write_clips(tmp_path / "x.glb", clips)
    cfg = write_config(tmp_path / "c.toml", gait_config(["a\u202eb", "c\nd"], cap=0.1))
    code, out, _ = run_cli(["--config", cfg, "lint", glb], capsys)
    assert code == 1
    assert "\u202e" not in out and "a\\u202eb" in out and "c\\u000ad" in out


def test_file_key_memo_follows_the_working_directory(tmp_path, monkeypatch):
    import os

    from animsmith.lint.discovery import file_key as _realpath  # a missing file's key is its resolved path

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    first = _realpath("x.glb")
    monkeypatch.chdir(tmp_path / "b")
    second = _realpath("x.glb")
    assert first == os.path.realpath(tmp_path / "a" / "x.glb")
    assert second == os.path.realpath(tmp_path / "b" / "x.glb")


def test_member_with_a_nan_key_time_is_unmeasurable_not_silently_measured(tmp_path, capsys):
    """A member file not in PATHS gets no clip checks, so its broken key times must show
    in the group verdict: the member is unmeasurable (as grid-based checks treat such a
    clip), in the same way as when the file is linted directly."""
    import struct

    files = mixamo_pack(tmp_path)
    path = write_clips(tmp_path / "nantime.glb", [gait_clip("mixamo.com")])
    data = bytearray(open(path, "rb").read())
    (json_len,) = struct.unpack_from("<I", data, 12)
    doc = json.loads(bytes(data[20 : 20 + json_len]))
    acc = doc["accessors"][doc["animations"][0]["samplers"][0]["input"]]
    view = doc["bufferViews"][acc["bufferView"]]
    bin_start = 20 + json_len + 8  # BIN chunk data
    struct.pack_into("<f", data, bin_start + view.get("byteOffset", 0) + acc.get("byteOffset", 0) + 5 * 4, float("nan"))
    open(path, "wb").write(bytes(data))
    cfg = write_config(tmp_path / "ring.toml", gait_config(["fwd.glb", "bwd.glb", "nantime.glb"]))
    for paths in ([files["fwd"]], [files["fwd"], str(tmp_path / "nantime.glb")]):
        code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", *paths], capsys)
        doc = validate_json(out)
        msgs = [f["message"] for fr in doc["files"] for f in fr["findings"] if f["check_id"] == "gait-group"]
        assert code == 1, err
        assert any("nantime.glb" in m and "key times are not finite" in m for m in msgs), msgs


def test_a_declared_fps_of_zero_is_a_contract_error(tmp_path, capsys):
    """`fps = 0` is no frame rate: the contract refuses it (exit 2, every one named) before any
    file is read. It used to load, `lint` reported it as invalid_declared_fps and sync-group fell
    back to the authored rates, while `transform` and `collection` retimed on 30 fps."""
    glb = write_clips(tmp_path / "sync.glb", [gait_clip("d1", frames=31), gait_clip("d3", frames=41)])
    cfg = write_config(tmp_path / "s.toml", '[sync_groups.s]\nclips = ["d1", "d3"]\nmax_frame_count_delta = 10\n'
                       '[clips.d1]\nfps = 0\n[clips.d3]\nfps = 0\n')
    for command in (["lint", "--format", "json", glb], ["transform", glb, "--gait-anchor", "--dry-run"]):
        code, out, err = run_cli(["--config", cfg, *command], capsys)
        assert code == 2 and out == "", err
        assert "clips.d1.fps: must be > 0, got 0" in err and "clips.d3.fps: must be > 0, got 0" in err


def test_a_member_file_without_animations_says_so(tmp_path, capsys):
    from animsmith.io.write import write_glb
    from animsmith.model import Asset

    from builders import biped_skeleton

    write_glb(Asset(skeleton=biped_skeleton(), clips=[]), str(tmp_path / "rig.glb"))
    code, doc = lint_json(tmp_path, capsys, [gait_clip("a"), gait_clip("b")], gait_config(["a", "b", "rig.glb"]))
    missing = [f for f in by_check(doc, "gait-group")[0] if "rig.glb" in f["message"]]
    assert code == 1 and len(missing) == 1 and missing[0]["message"].endswith("the file has no animations")


def test_a_bare_member_name_held_by_several_files_gets_a_note(tmp_path, capsys):
    """'walk' is a clip of both x.glb and y.glb: the first in argument order is used (as
    documented) and a note says so, naming the other file."""
    write_clips(tmp_path / "x.glb", [gait_clip("walk"), gait_clip("run")])
    write_clips(tmp_path / "y.glb", [gait_clip("walk", offset_cycles=0.5)])
    cfg = write_config(tmp_path / "animsmith.toml", gait_config(["walk", "run"]))
    x, y = str(tmp_path / "x.glb"), str(tmp_path / "y.glb")
    code, out, _ = run_cli(["--config", cfg, "lint", "--format", "json", x, y], capsys)
    doc = validate_json(out)
    notes = [f for f in by_check(doc, "gait-group")[0] if f["severity"] == "note"]
    assert code == 0 and len(notes) == 1
    assert notes[0]["clip"] == "walk" and notes[0]["measured"] == 2
    assert f"{x} is used (also in {y})" in notes[0]["message"]
    # named with its file: no note
    cfg = write_config(tmp_path / "animsmith.toml", gait_config(["x.glb#walk", "run"]))
    code, out, _ = run_cli(["--config", cfg, "lint", "--format", "json", x, y], capsys)
    assert by_check(validate_json(out), "gait-group") == ([], [])


def test_a_severity_override_leaves_the_ambiguity_note_a_note(tmp_path, capsys):
    write_clips(tmp_path / "x.glb", [gait_clip("walk"), gait_clip("run")])
    write_clips(tmp_path / "y.glb", [gait_clip("walk")])
    cfg = write_config(tmp_path / "animsmith.toml", gait_config(["walk", "run"]) + '[checks.gait-group]\nseverity = "error"\n')
    code, out, _ = run_cli(["--config", cfg, "lint", "--format", "json", str(tmp_path / "x.glb"), str(tmp_path / "y.glb")], capsys)
    findings = by_check(validate_json(out), "gait-group")[0]
    assert code == 0 and [f["severity"] for f in findings] == ["note"]


def test_the_same_clip_named_two_ways_counts_once(tmp_path, capsys):
    """`a`, `clips.glb#a` and `./clips.glb#a` are one clip: one member and one anchor. Counted
    three times it pulled the circular mean towards a (spread 0.199 against cap 0.15; the pair
    a/c spreads 0.125), and a group of one clip named twice passed as a group."""
    clips = [gait_clip("a"), gait_clip("c", offset_cycles=0.25)]
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "clips.glb#a", "./clips.glb#a", "c"]))
    findings, gaps = by_check(doc, "gait-group")
    assert code == 0 and findings == [] and gaps == []
    group = doc["files"][0]["measurements"]["groups"]["ring"]
    assert sorted(group["anchors"]) == ["a", "c"]
    assert group["spread"] == pytest.approx(expected_spread([0.75, 0.5]), abs=1e-6)
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "clips.glb#a"]))
    findings, gaps = by_check(doc, "gait-group")
    assert findings == [] and [g["code"] for g in gaps] == ["insufficient_measurable_members"]
