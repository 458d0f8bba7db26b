"""Group checks on analytic clips whose stride anchors are known by construction.

builders.gait_clip: L−R signal = 2A·sin(2π(t/T + offset)) -> stride anchor
(0.75 − offset) mod 1 (the trough of the first harmonic); reverse=True plays
the cycle backwards -> anchor 0.25. Peak-to-peak lr amplitude ≈ 4A.
"""

from __future__ import annotations

import json
import math

import pytest

from builders import gait_clip
from lint_support import run_cli, validate_json, write_clips, write_config

RING4 = ["run_forward", "run_backward", "run_left", "run_right"]


def gait_config(members, cap=0.15, floor=0.03):
    clips = ", ".join(json.dumps(m) for m in members)
    return f"[gait_groups.ring]\nclips = [{clips}]\nmax_gait_phase_spread = {cap!r}\nmin_lr_amplitude_m = {floor!r}\n"


def sync_config(members, advantage=0.25, floor=0.03, extra=""):
    clips = ", ".join(json.dumps(m) for m in members)
    return (
        f"[sync_groups.ring]\nclips = [{clips}]\nmax_duration_delta_s = 0.001\nmax_frame_count_delta = 0\n"
        f"max_fps_delta = 0.01\n{extra}\n[sync_groups.ring.time_complement]\n"
        f"min_reflected_time_advantage = {advantage!r}\nmin_lr_amplitude_m = {floor!r}\n"
    )


def lint_json(tmp_path, capsys, clips, config, *extra_args, name="clips.glb"):
    glb = write_clips(tmp_path / name, clips)
    cfg = write_config(tmp_path / "animsmith.toml", config)
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", *extra_args, glb], capsys)
    assert err == ""
    return code, validate_json(out)


def by_check(doc, check_id):
    f = doc["files"][0]
    return (
        [x for x in f["findings"] if x["check_id"] == check_id],
        [g for g in f["coverage_gaps"] if g["check_id"] == check_id],
    )


def expected_spread(phases):
    """Max circular distance from the circular mean (independent re-derivation)."""
    z = sum(complex(math.cos(2 * math.pi * p), math.sin(2 * math.pi * p)) for p in phases)
    mu = math.atan2(z.imag, z.real) / (2 * math.pi)
    return max(min(abs(p - mu) % 1.0, 1 - abs(p - mu) % 1.0) for p in phases)


#: anchors [0.75, 0.75, 0.5, 0.75]: Σ sin = −3, Σ cos = −1, so the mean angle is atan2(−3, −1);
#: the outlier at π sits π − |atan2(−3, −1)| = atan(3) rad from it (the others only atan(1/3))
RING_SPREAD = math.atan(3) / (2 * math.pi)


# --------------------------------------------------------------------------
# gait-group
# --------------------------------------------------------------------------


def test_spread_of_the_ring_and_outlier(tmp_path, capsys):
    clips = [gait_clip("a"), gait_clip("b"), gait_clip("c", offset_cycles=0.25), gait_clip("d")]
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b", "c", "d"]))
    findings, gaps = by_check(doc, "gait-group")
    assert code == 1 and len(findings) == 1 and gaps == []
    assert findings[0]["measured"] == pytest.approx(expected_spread([0.75, 0.75, 0.5, 0.75]), abs=1e-6)
    assert findings[0]["measured"] == pytest.approx(RING_SPREAD, abs=1e-6)
    group = doc["files"][0]["measurements"]["groups"]["ring"]
    assert group["outliers"] == ["c"]
    assert group["anchors"]["c"] == pytest.approx(0.5, abs=1e-6)


def test_spread_exactly_at_the_cap_passes(tmp_path, capsys):
    # anchors 0.75 and 0.45: circular mean 0.60, each 0.15 away -> spread 0.15
    clips = [gait_clip("a"), gait_clip("b", offset_cycles=0.3)]
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b"], cap=0.15))
    findings, gaps = by_check(doc, "gait-group")
    assert findings == [] and gaps == [] and code == 0
    assert doc["files"][0]["measurements"]["groups"]["ring"]["spread"] == pytest.approx(0.15, abs=1e-7)
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b"], cap=0.149))
    findings, _ = by_check(doc, "gait-group")
    assert code == 1 and len(findings) == 1
    assert set(doc["files"][0]["measurements"]["groups"]["ring"]["outliers"]) == {"a", "b"}


def test_wrap_straddling_ring_has_small_spread(tmp_path, capsys):
    # anchors 0.98 and 0.02 (offsets -0.23 and 0.73): spread 0.02, not 0.48
    clips = [gait_clip("a", offset_cycles=-0.23), gait_clip("b", offset_cycles=0.73)]
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b"], cap=0.025))
    findings, _ = by_check(doc, "gait-group")
    assert findings == [] and code == 0
    group = doc["files"][0]["measurements"]["groups"]["ring"]
    assert group["anchors"]["a"] == pytest.approx(0.98, abs=1e-6)
    assert group["anchors"]["b"] == pytest.approx(0.02, abs=1e-6)
    assert group["spread"] == pytest.approx(0.02, abs=1e-6)
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b"], cap=0.015))
    assert code == 1 and len(by_check(doc, "gait-group")[0]) == 1


def test_amplitude_exactly_at_the_floor_counts_as_evidence(tmp_path, capsys):
    clips = [gait_clip("a"), gait_clip("b", offset_cycles=0.5)]
    # read the measured amplitude, then declare the floor at exactly that value
    _, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b"]))
    amps = doc["files"][0]["measurements"]["groups"]["ring"]["amplitudes_m"]
    assert amps["a"] == pytest.approx(4 * 0.05, rel=0.02)  # peak-to-peak of 2A·sin, sampled
    floor = min(amps.values())
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b"], cap=0.1, floor=floor))
    findings, gaps = by_check(doc, "gait-group")
    assert gaps == [] and len(findings) == 1  # antiphase pair: spread 0.25 > 0.1
    assert findings[0]["measured"] == pytest.approx(0.25, abs=1e-6)
    # a hair above (within the 1e-6 m allowance float32 data needs) still counts
    hair = max(amps.values()) + 0.5e-6
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b"], cap=0.1, floor=hair))
    assert by_check(doc, "gait-group")[1] == [] and code == 1
    # clearly above the floor: both members are noise -> gaps, no finding
    above = max(amps.values()) + 2e-6
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b"], cap=0.1, floor=above))
    findings, gaps = by_check(doc, "gait-group")
    assert findings == [] and code == 0
    codes = sorted(g["code"] for g in gaps)
    assert codes == ["insufficient_measurable_members", "measurement_unavailable", "measurement_unavailable"]
    assert all("evidence floor" in g["message"] for g in gaps if g["code"] == "measurement_unavailable")


def test_under_floor_member_is_excluded_as_noise(tmp_path, capsys):
    # c: tiny amplitude (4·0.001 = 0.004 m < 0.03 m) at a wildly different anchor
    clips = [gait_clip("a"), gait_clip("b"), gait_clip("c", amplitude_m=0.001, offset_cycles=0.5)]
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b", "c"]))
    findings, gaps = by_check(doc, "gait-group")
    assert findings == [] and code == 0
    assert [(g["code"], g["subjects"], g["scope"]) for g in gaps] == [
        ("measurement_unavailable", ["c"], "phase_measurement")
    ]


def test_missing_member_is_an_error(tmp_path, capsys):
    clips = [gait_clip("a"), gait_clip("b")]
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b", "nope"]))
    findings, gaps = by_check(doc, "gait-group")
    assert code == 1
    assert [(f["clip"], f["severity"]) for f in findings] == [("nope", "error")]
    assert "not found" in findings[0]["message"] and gaps == []


def test_unmeasurable_member_is_an_error(tmp_path, capsys):
    # amplitude 0: the feet never alternate -> no stride anchor at all
    clips = [gait_clip("a"), gait_clip("b"), gait_clip("still", amplitude_m=0.0)]
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b", "still"]))
    findings, _ = by_check(doc, "gait-group")
    assert code == 1
    assert [f["clip"] for f in findings] == ["still"]
    assert "cannot be measured" in findings[0]["message"]


def test_unresolved_roles_make_every_member_an_error(tmp_path, capsys):
    clips = [gait_clip("a"), gait_clip("b")]
    cfg = '[rig]\nprofile = "none"\n' + gait_config(["a", "b"])
    code, doc = lint_json(tmp_path, capsys, clips, cfg)
    findings, _ = by_check(doc, "gait-group")
    assert code == 1 and [f["clip"] for f in findings] == ["a", "b"]
    assert all("hips" in f["message"] for f in findings)


def test_severity_override_rewrites_group_findings(tmp_path, capsys):
    clips = [gait_clip("a"), gait_clip("b", offset_cycles=0.5)]
    cfg = gait_config(["a", "b", "gone"]) + '[checks.gait-group]\nseverity = "warning"\n'
    code, doc = lint_json(tmp_path, capsys, clips, cfg)
    findings, _ = by_check(doc, "gait-group")
    assert len(findings) == 2 and {f["severity"] for f in findings} == {"warning"}
    assert code == 0
    code, _ = lint_json(tmp_path, capsys, clips, cfg, "--deny-warnings")
    assert code == 1
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "b"]) + "[checks.gait-group]\nenabled = false\n")
    assert code == 0 and by_check(doc, "gait-group") == ([], [])


# --------------------------------------------------------------------------
# time-complement
# --------------------------------------------------------------------------


def test_time_reversed_member_triggers_time_complement(tmp_path, capsys):
    clips = [gait_clip("fwd"), gait_clip("back", reverse=True)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["fwd", "back"]))
    findings, gaps = by_check(doc, "time-complement")
    assert gaps == [] and len(findings) == 1
    f = findings[0]
    # anchors 0.75 and 0.25: S = (1 + cos π)/2 = 0, R = sim(0.75, 0.75) = 1, advantage 1
    assert f["severity"] == "warning" and f["measured"] == pytest.approx(1.0, abs=1e-9)
    assert f["expected"] == 0.25
    assert [m["member"] for m in f["members"]] == ["fwd", "back"]
    assert f["members"][1]["gait_phase"] == pytest.approx(0.25, abs=1e-6)
    assert code == 0  # a warning alone does not fail...
    code, _ = lint_json(tmp_path, capsys, clips, sync_config(["fwd", "back"]), "--deny-warnings")
    assert code == 1  # ...unless warnings are denied


def test_time_complement_threshold_is_strict(tmp_path, capsys):
    # anchors 0.75 / 0.15 (offset 0.6): S = (1+cos(1.2π))/2, R = (1+cos(0.2π))/2
    clips = [gait_clip("a"), gait_clip("b", offset_cycles=0.6)]
    s = (1 + math.cos(2 * math.pi * 0.6)) / 2
    r = (1 + math.cos(2 * math.pi * 0.1)) / 2
    assert r - s == pytest.approx(0.809, abs=1e-3)
    _, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"]))
    findings, _ = by_check(doc, "time-complement")
    assert len(findings) == 1 and findings[0]["measured"] == pytest.approx(r - s, abs=1e-6)
    measured = findings[0]["measured"]
    _, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"], advantage=measured))
    assert by_check(doc, "time-complement")[0] == []


def test_time_complement_same_phase_and_shifted_pairs_are_clean(tmp_path, capsys):
    clips = [gait_clip("a"), gait_clip("b"), gait_clip("c", offset_cycles=0.2)]
    _, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b", "c"]))
    assert by_check(doc, "time-complement") == ([], [])


def test_time_complement_drops_a_repeated_member(tmp_path, capsys):
    # docs/checks.md: unordered pairs "(i < j, declared order, duplicates dropped)": fwd listed
    # twice is one member, so the fwd/back pair warns once (not once per copy of fwd)
    clips = [gait_clip("fwd"), gait_clip("back", reverse=True)]
    _, doc = lint_json(tmp_path, capsys, clips, sync_config(["fwd", "back", "fwd"]))
    findings, gaps = by_check(doc, "time-complement")
    assert gaps == [] and len(findings) == 1
    assert [m["member"] for m in findings[0]["members"]] == ["fwd", "back"]


def test_time_complement_under_floor_is_a_gap_not_a_finding(tmp_path, capsys):
    clips = [gait_clip("fwd", amplitude_m=0.005), gait_clip("back", amplitude_m=0.005, reverse=True)]
    _, doc = lint_json(tmp_path, capsys, clips, sync_config(["fwd", "back"]))
    findings, gaps = by_check(doc, "time-complement")
    assert findings == []
    assert sorted(g["code"] for g in gaps) == [
        "insufficient_measurable_members",
        "measurement_unavailable",
        "measurement_unavailable",
    ]


# --------------------------------------------------------------------------
# sync-group
# --------------------------------------------------------------------------


def test_sync_group_clean_for_matching_members(tmp_path, capsys):
    clips = [gait_clip("a"), gait_clip("b", offset_cycles=0.1)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"]))
    assert by_check(doc, "sync-group") == ([], []) and code == 0


def test_sync_group_duration_frames_and_fps(tmp_path, capsys):
    # b: 1.1 s with 31 keys -> duration spread 0.1 s and fps 30 vs 27.27
    clips = [gait_clip("a"), gait_clip("b", duration_s=1.1)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"]))
    findings, _ = by_check(doc, "sync-group")
    assert code == 1
    msgs = [f["message"] for f in findings]
    assert any("duration spread" in m for m in msgs) and any("fps spread" in m for m in msgs)
    dur = next(f for f in findings if "duration spread" in f["message"])
    assert dur["measured"] == pytest.approx(0.1, abs=1e-6) and dur["expected"] == 0.001
    fps = next(f for f in findings if "fps spread" in f["message"])
    assert fps["measured"] == pytest.approx(30 - 30 / 1.1, abs=1e-4)
    # 41 keys over 1 s: frame count spread 10
    clips = [gait_clip("a"), gait_clip("b", frames=41)]
    _, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"]))
    findings, _ = by_check(doc, "sync-group")
    frames = [f for f in findings if "frame count spread" in f["message"]]
    assert len(frames) == 1 and frames[0]["measured"] == 10


def declared_fps_config(fps_a, fps_b):
    return (
        '[sync_groups.ring]\nclips = ["a", "b"]\nmax_duration_delta_s = 0.001\nmax_frame_count_delta = 10\n'
        f"max_fps_delta = 0.01\n[clips.a]\nfps = {fps_a!r}\n[clips.b]\nfps = {fps_b!r}\n"
    )


def test_sync_group_compares_declared_fps_over_authored_rates(tmp_path, capsys):
    # both members: 31 keys over 1 s (authored 30 fps); declared 30 and 24 -> fps spread exactly 6
    clips = [gait_clip("a"), gait_clip("b")]
    _, doc = lint_json(tmp_path, capsys, clips, declared_fps_config(30, 24))
    fps = [f for f in by_check(doc, "sync-group")[0] if "fps spread" in f["message"]]
    assert len(fps) == 1 and fps[0]["measured"] == 6.0 and fps[0]["expected"] == 0.01
    assert sorted(m["fps"] for m in fps[0]["members"]) == [24.0, 30.0]


def test_sync_group_equal_declared_fps_hides_different_authored_rates(tmp_path, capsys):
    # authored 30 fps (31 keys / 1 s) and 40 fps (41 keys / 1 s), both declared 30: no fps finding
    clips = [gait_clip("a"), gait_clip("b", frames=41)]
    _, doc = lint_json(tmp_path, capsys, clips, declared_fps_config(30, 30))
    # (frame-count spread 10 is at its cap of 10; durations and endpoint modes agree)
    assert by_check(doc, "sync-group") == ([], [])


def test_sync_group_endpoint_modes_must_agree(tmp_path, capsys):
    # a closes its cycle (last key = first pose); b travels, so it does not close
    clips = [gait_clip("a"), gait_clip("b", velocity_mps=(0, 0, 2.0))]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"]))
    findings, _ = by_check(doc, "sync-group")
    assert [f["measured"] for f in findings] == ["mixed"] and code == 1
    modes = doc["files"][0]["measurements"]["clips"]
    assert modes["a"]["loop_endpoint_mode"] != modes["b"]["loop_endpoint_mode"]


def test_sync_group_missing_member(tmp_path, capsys):
    clips = [gait_clip("a")]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "gone"]))
    findings, gaps = by_check(doc, "sync-group")
    assert code == 1 and [f["clip"] for f in findings] == ["gone"]
    assert [g["code"] for g in gaps] == ["insufficient_measurable_members"]


# --------------------------------------------------------------------------
# Members across files
# --------------------------------------------------------------------------


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
        gait_clip("b", velocity_mps=(0, 0, 2.0)),
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


def sync_caps_config(duration_cap, frame_cap, fps_cap):
    return (
        '[sync_groups.ring]\nclips = ["a", "b"]\n'
        f"max_duration_delta_s = {duration_cap!r}\nmax_frame_count_delta = {frame_cap!r}\nmax_fps_delta = {fps_cap!r}\n"
    )


def test_sync_group_caps_pass_exactly_at_and_trip_just_past(tmp_path, capsys):
    # a: 33 keys over 1 s, b: 41 keys over 1.25 s (dyadic: exact in float32): duration
    # spread exactly 0.25 s, frame-count spread exactly 8, both at (41 − 1)/1.25 = 32 fps
    clips = [gait_clip("a", frames=33), gait_clip("b", frames=41, duration_s=1.25)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_caps_config(0.25, 8, 0.0))
    assert by_check(doc, "sync-group") == ([], []) and code == 0
    # "at the cap" allows 1e-6 (docs/checks.md: float32 key data); 2e-6 under it trips
    code, doc = lint_json(tmp_path, capsys, clips, sync_caps_config(0.25 - 2e-6, 7, 0.0))
    findings, _ = by_check(doc, "sync-group")
    assert code == 1
    assert sorted((f["measured"], f["expected"]) for f in findings) == [(0.25, 0.25 - 2e-6), (8, 7)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_caps_config(0.25 - 0.5e-6, 8, 0.0))
    assert by_check(doc, "sync-group") == ([], []) and code == 0


def test_file_key_memo_follows_the_working_directory(tmp_path, monkeypatch):
    import os

    from animsmith.lint import _file_key as _realpath  # a missing file's key is its resolved path

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


# --------------------------------------------------------------------------
# Group-check audit: conventions, stride counts, duplicates, noise, floors
# --------------------------------------------------------------------------


def _open_cycle(name, amp, frames=30):
    """An open cycle: 30 unique keys of one stride at 30 fps (the wrap is one normal step)."""
    import numpy as np

    from animsmith.model import Channel, Clip

    t = np.arange(frames) / 30.0
    h = amp * np.sin(2 * np.pi * t)
    lf = np.stack([np.full_like(t, 0.1), -0.9 + h, 0 * t], 1)
    rf = np.stack([np.full_like(t, -0.1), -0.9 - h, 0 * t], 1)
    return Clip(name=name, channels=[Channel.make(0, "translation", t, np.zeros((frames, 3))),
                                     Channel.make(2, "translation", t, lf), Channel.make(3, "translation", t, rf)])


def test_sync_group_open_cycles_share_a_convention_whatever_their_step(tmp_path, capsys):
    """Small steps wrap within measure's 1 cm (unique_cycle), big ones do not (non_closing):
    both are open cycles, one convention; a duplicated endpoint next to them is not."""
    small, big = _open_cycle("small", 0.01), _open_cycle("big", 0.05)
    code, doc = lint_json(tmp_path, capsys, [small, big], sync_config(["small", "big"]), "--select", "sync-group")
    modes = {n: doc["files"][0]["measurements"]["clips"][n]["loop_endpoint_mode"] for n in ("small", "big")}
    assert modes == {"small": "unique_cycle", "big": "non_closing"}  # the premise
    assert by_check(doc, "sync-group") == ([], []) and code == 0
    dup = gait_clip("dup")  # 31 keys over 1 s, the last repeating the first pose
    code, doc = lint_json(tmp_path, capsys, [small, dup], sync_config(["small", "dup"]),
                          "--select", "sync-group", name="mixed.glb")
    convention = [f for f in by_check(doc, "sync-group")[0] if "endpoint conventions" in f["message"]]
    assert len(convention) == 1 and "[small=open, dup=duplicated_endpoint]" in convention[0]["message"]


def test_gait_group_members_with_different_stride_counts_are_an_error(tmp_path, capsys):
    # one stride and two strides in the same second: anchors can agree, the strides cannot
    clips = [gait_clip("one"), gait_clip("two", cycles=2)]
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["one", "two"]))
    cycles = {n: doc["files"][0]["measurements"]["clips"][n]["cycles"] for n in ("one", "two")}
    assert cycles == {"one": 1, "two": 2}
    findings = [f for f in by_check(doc, "gait-group")[0] if "strides" in f["message"]]
    assert code == 1 and len(findings) == 1
    assert findings[0]["members"] == [{"member": "one", "cycles": 1}, {"member": "two", "cycles": 2}]


def test_gait_group_member_listed_twice_counts_once(tmp_path, capsys):
    # anchors 0.75 and 0.45 (offset −0.30): alone they are 0.15 apart from their mean (at the cap);
    # counting "a" twice would pull the mean toward it and put b 0.2185 away
    clips = [gait_clip("a"), gait_clip("b", offset_cycles=0.30)]
    code, doc = lint_json(tmp_path, capsys, clips, gait_config(["a", "a", "b"], cap=0.15))
    record = doc["files"][0]["measurements"]["groups"]["ring"]
    assert record["spread"] == pytest.approx(0.15, abs=1e-6)
    assert by_check(doc, "gait-group")[0] == [] and code == 0


def test_gait_group_near_idle_noise_is_a_gap_whatever_its_shape(tmp_path, capsys):
    """A member swaying below the floor is excluded as noise whether its sway is periodic
    (has a phase) or not (no phase); an exact-zero swing stays an error (no phase subject)."""
    import numpy as np

    from animsmith.model import Channel, Clip

    t = np.linspace(0, 1, 31)
    noise = np.random.default_rng(1).normal(0, 0.0005, 31)
    noise[-1] = noise[0]
    idle = Clip(name="idle", channels=[
        Channel.make(0, "translation", t, np.zeros((31, 3))),
        Channel.make(2, "translation", t, np.stack([np.full(31, 0.1), -0.9 + noise, 0 * t], 1)),
        Channel.make(3, "translation", t, np.stack([np.full(31, -0.1), -0.9 - noise, 0 * t], 1)),
    ])
    for quiet in (idle, gait_clip("idle", amplitude_m=0.0005)):
        code, doc = lint_json(tmp_path, capsys, [gait_clip("a"), gait_clip("b"), quiet], gait_config(["a", "b", "idle"]))
        amp = doc["files"][0]["measurements"]["clips"]["idle"]["lr_amplitude_m"]
        assert 0 < amp < 0.03
        findings, gaps = by_check(doc, "gait-group")
        assert findings == [] and code == 0
        assert [(g["code"], g["subjects"]) for g in gaps] == [("measurement_unavailable", ["idle"])]


def test_time_complement_advantage_at_the_threshold_does_not_warn(tmp_path, capsys):
    # anchors 0.75 and 0.15: S = (1 + cos 2π·0.6)/2, R = (1 + cos 2π·(0.75 − 0.85))/2;
    # R − S = cos 36° exactly; a threshold at that value (float rounding aside) must not warn
    adv = math.cos(math.radians(36.0))
    clips = [gait_clip("a"), gait_clip("b", offset_cycles=0.60)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"], advantage=adv), "--select", "time-complement")
    assert by_check(doc, "time-complement") == ([], [])
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"], advantage=adv - 1e-4), "--select", "time-complement")
    findings = by_check(doc, "time-complement")[0]
    assert len(findings) == 1 and findings[0]["measured"] == pytest.approx(adv, abs=1e-6)


def test_sync_group_duration_cap_allows_float32_rounding_of_long_clips(tmp_path, capsys):
    # 40 s and 40.005 s are 0.005 apart as authored; float32 stores 40.005 as 40.005001068 (a step
    # is 3.8e-6 at 40 s), so the measured spread is 0.000001068 over a 0.005 cap: at the cap, passes
    import numpy as np

    assert float(np.float32(40.005)) - 40.0 > 0.005 + 1e-6  # the premise
    clips = [gait_clip("a", duration_s=40.0), gait_clip("b", duration_s=40.005)]
    cfg = sync_config(["a", "b"]).replace("max_duration_delta_s = 0.001", "max_duration_delta_s = 0.005")
    code, doc = lint_json(tmp_path, capsys, clips, cfg, "--select", "sync-group")
    assert by_check(doc, "sync-group") == ([], []) and code == 0
    clips = [gait_clip("a", duration_s=40.0), gait_clip("b", duration_s=40.0051)]
    code, doc = lint_json(tmp_path, capsys, clips, cfg, "--select", "sync-group")
    assert code == 1 and "duration spread" in by_check(doc, "sync-group")[0][0]["message"]


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


def test_sync_group_counts_a_member_listed_twice_once(tmp_path, capsys):
    clips = [gait_clip("walk"), gait_clip("run")]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["walk", "walk"]), "--select", "sync-group")
    findings, gaps = by_check(doc, "sync-group")
    assert findings == [] and [g["code"] for g in gaps] == ["insufficient_measurable_members"]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["nope", "nope", "run"]), "--select", "sync-group")
    findings, _ = by_check(doc, "sync-group")
    assert [f["measured"] for f in findings] == ["missing"]


def test_sync_group_fps_spread_allows_float32_durations(tmp_path, capsys):
    # 31 keys over 1 s and 242 keys over 241/30 s are both 30 fps as authored; (keys − 1) over a
    # float32 duration reads 30.0000017 for the second: at a cap of 0 that is not a spread
    import numpy as np

    long_d = 241 / 30
    assert abs(241 / float(np.float32(long_d)) - 30.0) > 1e-6  # the premise
    clips = [gait_clip("a"), gait_clip("b", frames=242, duration_s=long_d)]
    cfg = sync_config(["a", "b"]).replace("max_fps_delta = 0.01", "max_fps_delta = 0.0").replace(
        "max_duration_delta_s = 0.001", "max_duration_delta_s = 10.0").replace("max_frame_count_delta = 0", "max_frame_count_delta = 300")
    code, doc = lint_json(tmp_path, capsys, clips, cfg, "--select", "sync-group")
    assert [f for f in by_check(doc, "sync-group")[0] if "fps" in f["message"]] == []


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


def test_gait_group_message_shows_digits_that_tell_spread_and_cap_apart():
    """Two decimals, the seed's wording, unless they would show the cap as another value (0.015
    read "cap 0.01") or the spread equal to the cap (just past 0.15 read "0.15 ... (cap 0.15)")."""
    from animsmith.checks._clip import digits_apart as _digits_apart

    assert _digits_apart(0.1988, 0.15) == 2  # the seed transcript: spread by 0.20 cycle (cap 0.15)
    assert _digits_apart(0.02, 0.015) == 3
    assert _digits_apart(0.1500011, 0.15) == 6
    assert _digits_apart(0.1512, 0.15) == 3
    assert _digits_apart(1.504, 1.5) == 3  # loop-seam's ratio: "1.504× (cap 1.500)", not "1.50× (cap 1.50)"
