"""The gait group's travel policy on a root-motion ring whose numbers are known by construction.

builders.gait_clip translates the root at a constant velocity: speed = |v|, heading =
atan2(vx, vz). Every member holds 2 strides over 0.8 s, so stride length = speed × 0.8 / 2:
forward/backward at 1.00 m/s -> 0.40 m; the strafes travel 20 % faster, 1.20 m/s -> 0.48 m.
"""

from __future__ import annotations

import json

import pytest

from builders import gait_clip
from lint_support import run_cli, validate_json, write_clips, write_config
from group_support import gait_config, lint_json, by_check, expected_spread, RING_SPREAD

DURATION_S = 0.8
STRIDES = 2
VELOCITY = {
    "fwd": (0.0, 0.0, 1.0),
    "back": (0.0, 0.0, -1.0),
    "left": (-1.2, 0.0, 0.0),
    "right": (1.2, 0.0, 0.0),
}
HEADING = {"fwd": 0.0, "back": 180.0, "left": -90.0, "right": 90.0}


def ring(strafe_speed=1.2, in_place=()):
    clips = []
    for name, v in VELOCITY.items():
        scale = (strafe_speed / 1.2) if name in ("left", "right") else 1.0
        vel = (0.0, 0.0, 0.0) if name in in_place else tuple(c * scale for c in v)
        clips.append(gait_clip(name, frames=33, duration_s=DURATION_S, cycles=STRIDES, velocity_mps=vel))
    return clips


def config(policy=None, pins=None, extra=""):
    text = '[gait_groups.ring]\nclips = ["fwd", "back", "left", "right"]\n'
    if policy:
        text += f'travel_policy = "{policy}"\n'
    text += extra
    for name, pin in (pins or {}).items():
        text += f"\n[clips.{name}]\n" + "".join(f"{k} = {v!r}\n" for k, v in pin.items())
    return text


def lint(tmp_path, capsys, clips, cfg, fmt="json"):
    glb = write_clips(tmp_path / "ring.glb", clips)
    path = write_config(tmp_path / "animsmith.toml", cfg)
    code, out, err = run_cli(["--config", path, "lint", "--format", fmt, "--select", "gait-group", glb], capsys)
    assert err == ""
    return code, (validate_json(out) if fmt == "json" else out)


def findings(doc):
    return doc["files"][0]["findings"]


def travel(doc):
    return doc["files"][0]["measurements"]["groups"]["ring"]["travel"]


def test_uniform_errors_naming_the_faster_strafes_with_speeds_and_stride_lengths(tmp_path, capsys):
    code, doc = lint(tmp_path, capsys, ring(), config("uniform"))
    assert code == 1
    [f] = findings(doc)
    assert f["severity"] == "error" and f["check_id"] == "gait-group"
    assert f["measured"] == pytest.approx(0.2, abs=1e-5)  # speed spread 1.20 − 1.00
    assert f["expected"] == pytest.approx(0.1)
    msg = f["message"]
    assert "Slowest fwd, back (1.00 m/s); fastest left, right (1.20 m/s)" in msg
    assert "left 1.20 m/s, stride 0.48 m, heading -90°" in msg
    assert "right 1.20 m/s, stride 0.48 m, heading 90°" in msg
    assert "fwd 1.00 m/s, stride 0.40 m, heading 0°" in msg
    assert "stride-length spread 0.08 m" in msg


def test_walking_straight_back_with_float_noise_reads_heading_180(tmp_path, capsys):
    """−Z is heading 180: a backward member whose root drifts 1e-9 m/s to −X has atan2 just
    above −180°, and the message names the same direction as an exact backward walk."""
    clips = ring()
    clips[1] = gait_clip("back", frames=33, duration_s=DURATION_S, cycles=STRIDES, velocity_mps=(-1e-9, 0.0, -1.0))
    code, doc = lint(tmp_path, capsys, clips, config("uniform"))
    [f] = findings(doc)
    assert "back 1.00 m/s, stride 0.40 m, heading 180°" in f["message"], f["message"]
    assert "-180" not in f["message"]
    back = next(m for m in travel(doc)["members"] if m["member"] == "back")
    assert back["heading_deg"] == pytest.approx(-180.0, abs=1e-6)  # the number stays as measured


def test_uniform_passes_a_ring_that_travels_alike(tmp_path, capsys):
    code, doc = lint(tmp_path, capsys, ring(strafe_speed=1.0), config("uniform"))
    assert code == 0 and findings(doc) == []
    t = travel(doc)
    assert t["speed_spread_mps"] == pytest.approx(0.0, abs=1e-6)


def test_uniform_stride_length_tolerance_is_its_own_cap(tmp_path, capsys):
    # speeds 0.2 m/s apart pass a 0.25 m/s cap, but the strides (0.08 m apart) fail a 0.05 m cap
    cfg = config("uniform", extra="max_speed_delta_mps = 0.25\nmax_stride_length_delta_m = 0.05\n")
    code, doc = lint(tmp_path, capsys, ring(), cfg)
    assert code == 1
    [f] = findings(doc)
    assert "stride-length spread 0.08 m, cap 0.05 m" in f["message"]
    assert f["measured"] == pytest.approx(0.08, abs=1e-6) and f["expected"] == pytest.approx(0.05)


def test_accepted_passes_and_records_every_member(tmp_path, capsys):
    code, doc = lint(tmp_path, capsys, ring(), config("accepted"))
    assert code == 0 and findings(doc) == []
    t = travel(doc)
    assert t["policy"] == "accepted"
    members = {m["member"]: m for m in t["members"]}
    assert list(members) == ["fwd", "back", "left", "right"]
    for name, v in VELOCITY.items():
        speed = abs(sum(c for c in v))
        assert members[name]["speed_mps"] == pytest.approx(speed, abs=1e-6)
        assert members[name]["stride_length_m"] == pytest.approx(speed * DURATION_S / STRIDES, abs=1e-6)
        assert members[name]["heading_deg"] == pytest.approx(HEADING[name], abs=1e-6)
        assert members[name]["source"] == "measured"
    assert t["speed_spread_mps"] == pytest.approx(0.2, abs=1e-6)
    assert t["stride_length_spread_m"] == pytest.approx(0.08, abs=1e-6)


def test_no_policy_gives_exactly_one_note(tmp_path, capsys):
    code, doc = lint(tmp_path, capsys, ring(), config())
    assert code == 0
    notes = [f for f in findings(doc) if f["check_id"] == "gait-group"]
    assert len(notes) == 1 and notes[0]["severity"] == "note"
    msg = notes[0]["message"]
    assert "no travel_policy is declared" in msg
    assert '"uniform"' in msg and '"pinned"' in msg and '"accepted"' in msg
    assert "left 1.20 m/s, stride 0.48 m" in msg and "back 1.00 m/s, stride 0.40 m" in msg


def test_no_policy_note_survives_a_severity_override(tmp_path, capsys):
    cfg = config() + '\n[checks.gait-group]\nseverity = "error"\n'
    code, doc = lint(tmp_path, capsys, ring(), cfg)
    assert code == 0
    assert [f["severity"] for f in findings(doc)] == ["note"]


def test_no_policy_and_equal_travel_says_nothing(tmp_path, capsys):
    code, doc = lint(tmp_path, capsys, ring(strafe_speed=1.0), config())
    assert code == 0 and findings(doc) == []


PINS = {"fwd": 1.0, "back": 1.0, "left": 1.2, "right": 1.2}


def test_pinned_with_one_member_unpinned_errors_naming_it(tmp_path, capsys):
    pins = {k: {"speed_mps": v} for k, v in PINS.items() if k != "back"}
    code, doc = lint(tmp_path, capsys, ring(), config("pinned", pins))
    assert code == 1
    [f] = findings(doc)
    assert f["clip"] == "back" and "'back' declares no speed_mps" in f["message"]


def test_pinned_all_members_on_their_pins_pass(tmp_path, capsys):
    pins = {k: {"speed_mps": v} for k, v in PINS.items()}
    code, doc = lint(tmp_path, capsys, ring(), config("pinned", pins))
    assert code == 0 and findings(doc) == []


def test_pinned_off_by_more_than_its_tolerance_errors(tmp_path, capsys):
    # right travels 1.20: a 1.05 pin with tolerance 0.1 is 0.15 off; left's 1.15 pin is 0.05 off (passes)
    pins = {k: {"speed_mps": v} for k, v in PINS.items()}
    pins["right"] = {"speed_mps": 1.05, "speed_tolerance_mps": 0.1}
    pins["left"] = {"speed_mps": 1.15, "speed_tolerance_mps": 0.1}
    code, doc = lint(tmp_path, capsys, ring(), config("pinned", pins))
    assert code == 1
    [f] = findings(doc)
    assert f["clip"] == "right"
    assert f["measured"] == pytest.approx(1.2, abs=1e-6) and f["expected"] == pytest.approx(1.05)
    assert "0.15 m/s off its speed_mps pin 1.05 (tolerance 0.10 m/s)" in f["message"]


def test_pinned_without_tolerance_uses_the_group_speed_delta(tmp_path, capsys):
    pins = {k: {"speed_mps": v} for k, v in PINS.items()}
    pins["fwd"] = {"speed_mps": 0.85}  # 0.15 off; the group's max_speed_delta_mps = 0.2 allows it
    code, doc = lint(tmp_path, capsys, ring(), config("pinned", pins, extra="max_speed_delta_mps = 0.2\n"))
    assert code == 0 and findings(doc) == []


def test_in_place_member_is_a_gap_unless_pinned(tmp_path, capsys):
    code, doc = lint(tmp_path, capsys, ring(in_place=("back",)), config("uniform"))
    gaps = [g for g in doc["files"][0]["coverage_gaps"] if g["scope"] == "travel_policy"]
    assert [(g["code"], g["subjects"], g["message"]) for g in gaps] == [
        ("measurement_unavailable", ["back"], "in-place; declare speed_mps to compare")
    ]
    # pinned at 1.0 m/s, the in-place member counts at its pin: stride = 1.0 × 0.8 / 2
    code, doc = lint(tmp_path, capsys, ring(in_place=("back",)), config("accepted", {"back": {"speed_mps": 1.0}}))
    back = {m["member"]: m for m in travel(doc)["members"]}["back"]
    assert back["source"] == "declared" and back["heading_deg"] is None
    assert back["speed_mps"] == pytest.approx(1.0) and back["stride_length_m"] == pytest.approx(0.4)
    assert not [g for g in doc["files"][0]["coverage_gaps"] if g["scope"] == "travel_policy"]


def test_text_output_lists_each_member(tmp_path, capsys):
    code, out = lint(tmp_path, capsys, ring(), config("uniform"), fmt="text")
    assert code == 1
    assert "left 1.20 m/s, stride 0.48 m, heading -90°" in out


def test_unknown_policy_is_a_one_line_config_error(tmp_path, capsys):
    glb = write_clips(tmp_path / "ring.glb", ring())
    path = write_config(tmp_path / "animsmith.toml", config("uniforn"))
    code, out, err = run_cli(["--config", path, "lint", glb], capsys)
    assert code == 2
    assert "gait_groups.ring.travel_policy" in err and "did you mean 'uniform'" in err


def test_seed_ring_declares_no_policy_and_stays_silent(capsys):
    """The seed ring's members run in place without pins: nothing to compare, so no note."""
    import os

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cfg = os.path.join(root, "examples", "run-ring.animsmith.toml")
    glb = os.path.join(root, "examples", "assets", "run-ring.glb")
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", glb], capsys)
    doc = validate_json(out)
    t = doc["files"][0]["measurements"]["groups"]["run-ring"]["travel"]
    assert t["policy"] is None
    assert {m["source"] for m in t["members"]} == {"in_place"}
    assert not [f for f in doc["files"][0]["findings"] if "travel" in f["message"]]
    assert json.dumps(t)  # plain JSON


def test_report_group_section_carries_the_travel_table(tmp_path, capsys):
    import re

    glb = write_clips(tmp_path / "ring.glb", ring())
    path = write_config(tmp_path / "animsmith.toml", config("accepted"))
    out = tmp_path / "r.html"
    code, _, err = run_cli(["--config", path, "report", glb, "-o", str(out)], capsys)
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S).group(1))
    (group,) = data["groups"]
    rows = {m["member"]: m for m in group["travel"]["members"]}
    assert rows["left"]["stride_length_m"] == pytest.approx(0.48, abs=1e-6)
    assert rows["fwd"]["heading_deg"] == pytest.approx(0.0, abs=1e-6)
    # the phase record still drives the figure: every member measured, none excluded
    assert {m["status"] for m in group["members"]} == {"measured"}
    assert "renderTravelTable" in text


def test_core_travel_rules():
    from animsmith.core.travel import is_in_place, member_travel, spread, stride_length_m

    assert stride_length_m(1.5, 1.2, 3) == pytest.approx(0.6)
    assert stride_length_m(1.5, 1.2, 0) is None and stride_length_m(None, 1.0, 1) is None
    assert stride_length_m(1.0, 1.0, True) is None  # a bool is no stride count
    assert is_in_place(0.049) and not is_in_place(0.05) and not is_in_place(None)
    assert is_in_place(2.0, "gameplay") and not is_in_place(0.0, "animation")
    assert spread([1.0, None, 1.3, float("nan"), 1.1]) == pytest.approx(0.3) and spread([1.0]) is None
    t = member_travel("w", speed_mps=0.0, heading_deg=None, duration_s=1.0, cycles=2, pin_mps=1.4)
    assert (t.source, t.speed_mps, t.stride_length_m) == ("declared", 1.4, pytest.approx(0.7))
    t = member_travel("w", speed_mps=0.0, heading_deg=None, duration_s=1.0, cycles=2)
    assert t.source == "in_place" and t.speed_mps is None and "declare speed_mps" in t.reason
    t = member_travel("w", speed_mps=None, heading_deg=None, duration_s=1.0, cycles=2, speed_unavailable="no root")
    assert t.source == "measured" and t.speed_mps is None and t.reason == "no root"


def test_simulator_bakes_as_file_members(tmp_path, capsys):
    """`sim bake --root-motion` keeps the biped's 1.0 m cycle and shortens the cycle time as the
    speed rises: equal stride lengths, speeds 20 % apart."""
    for name, speed in (("fwd", 1.2), ("back", 1.2), ("left", 1.44), ("right", 1.44)):
        code, _, err = run_cli(["sim", "bake", "biped", "--root-motion", "--speed", str(speed), "-o", str(tmp_path / f"{name}.glb")], capsys)
        assert code == 0, err
    members = ", ".join(f'"{n}.glb"' for n in ("fwd", "back", "left", "right"))
    path = write_config(tmp_path / "animsmith.toml", f'[gait_groups.ring]\nclips = [{members}]\ntravel_policy = "accepted"\n')
    files = [str(tmp_path / f"{n}.glb") for n in ("fwd", "back", "left", "right")]
    code, out, err = run_cli(["--config", path, "lint", "--format", "json", "--select", "gait-group", *files], capsys)
    assert code == 0, err
    doc = validate_json(out)
    t = next(f["measurements"]["groups"]["ring"]["travel"] for f in doc["files"] if f["measurements"]["groups"])
    got = {m["member"]: (m["speed_mps"], m["stride_length_m"]) for m in t["members"]}
    assert got["fwd.glb"] == (pytest.approx(1.2, abs=1e-4), pytest.approx(1.0, abs=1e-4))
    assert got["left.glb"] == (pytest.approx(1.44, abs=1e-4), pytest.approx(1.0, abs=1e-4))
    assert t["speed_spread_mps"] == pytest.approx(0.24, abs=1e-4)
    assert t["stride_length_spread_m"] == pytest.approx(0.0, abs=1e-4)


def test_pinned_file_member_without_a_pin_names_the_clips_key_to_add(tmp_path, capsys):
    """A member given as `file.glb#clip` is pinned by its clip's name: the error says which key."""
    clips = ring()
    write_clips(tmp_path / "a.glb", clips[:2])
    write_clips(tmp_path / "b.glb", clips[2:])
    cfg = (
        '[gait_groups.ring]\nclips = ["a.glb#fwd", "a.glb#back", "b.glb#left", "b.glb#right"]\n'
        'travel_policy = "pinned"\n'
        '[clips.fwd]\nspeed_mps = 1.0\n[clips.back]\nspeed_mps = 1.0\n[clips.left]\nspeed_mps = 1.2\n'
    )
    path = write_config(tmp_path / "animsmith.toml", cfg)
    code, out, err = run_cli(
        ["--config", path, "lint", "--format", "json", "--select", "gait-group", str(tmp_path / "a.glb"), str(tmp_path / "b.glb")],
        capsys,
    )
    assert code == 1 and err == ""
    [f] = [f for file in validate_json(out)["files"] for f in file["findings"]]
    assert f["clip"] == "b.glb#right"
    assert "declares no speed_mps" in f["message"] and '[clips."right"] speed_mps' in f["message"]


def test_diagonal_member_is_judged_like_any_other(tmp_path, capsys):
    """A forward-left diagonal at 1.3 m/s (velocity (-0.919, 0, 0.919)): heading -45°, stride
    1.3 × 0.8 / 2 = 0.52 m, and it is the fastest member the uniform error names."""
    import math

    v = 1.3 / math.sqrt(2.0)
    clips = ring() + [gait_clip("fwd_left", frames=33, duration_s=DURATION_S, cycles=STRIDES, velocity_mps=(-v, 0.0, v))]
    cfg = '[gait_groups.ring]\nclips = ["fwd", "back", "left", "right", "fwd_left"]\ntravel_policy = "uniform"\n'
    code, doc = lint(tmp_path, capsys, clips, cfg)
    assert code == 1
    [f] = findings(doc)
    assert f["measured"] == pytest.approx(0.3, abs=1e-5)
    assert "fastest fwd_left (1.30 m/s)" in f["message"]
    diag = {m["member"]: m for m in travel(doc)["members"]}["fwd_left"]
    assert diag["heading_deg"] == pytest.approx(-45.0, abs=1e-4)
    assert diag["stride_length_m"] == pytest.approx(0.52, abs=1e-6)


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


def test_gait_group_message_shows_digits_that_tell_spread_and_cap_apart():
    """Two decimals, the seed's wording, unless they would show the cap as another value (0.015
    read "cap 0.01") or the spread equal to the cap (just past 0.15 read "0.15 ... (cap 0.15)")."""
    from animsmith.checks._clip import digits_apart as _digits_apart

    assert _digits_apart(0.1988, 0.15) == 2  # the seed transcript: spread by 0.20 cycle (cap 0.15)
    assert _digits_apart(0.02, 0.015) == 3
    assert _digits_apart(0.1500011, 0.15) == 6
    assert _digits_apart(0.1512, 0.15) == 3
    assert _digits_apart(1.504, 1.5) == 3  # loop-seam's ratio: "1.504× (cap 1.500)", not "1.50× (cap 1.50)"


def test_pinned_mixamo_ring_names_the_member_file_key_to_add(tmp_path, capsys):
    """Mixamo downloads, every clip 'mixamo.com': `[clips."mixamo.com"]` would pin all four files,
    so the table to add for the unpinned one is its own file key; the pins the others declare by
    file key are each judged against their own file (1.0 m/s walks, in place by the game)."""
    for stem in ("fwd", "back", "left", "right"):
        write_clips(tmp_path / f"{stem}.glb", [gait_clip("mixamo.com")])
    cfg = (
        '[gait_groups.ring]\nclips = ["fwd.glb", "back.glb", "left.glb", "right.glb#mixamo.com"]\n'
        'travel_policy = "pinned"\n[clips."mixamo.com"]\nmovement_owner_xz = "gameplay"\n'
        '[clips."fwd.glb"]\nspeed_mps = 1.0\n[clips."back.glb#mixamo.com"]\nspeed_mps = 0.8\n'
        '[clips."left.glb#*"]\nspeed_mps = 0.9\n'
    )
    path = write_config(tmp_path / "animsmith.toml", cfg)
    code, out, err = run_cli(["--config", path, "lint", "--format", "json", "--select", "gait-group",
                              *(str(tmp_path / f"{s}.glb") for s in ("fwd", "back", "left", "right"))], capsys)
    assert code == 1 and err == ""
    doc = validate_json(out)
    [f] = [f for file in doc["files"] for f in file["findings"]]
    assert f["clip"] == "right.glb#mixamo.com"
    assert "add [clips.\"right.glb#mixamo.com\"] speed_mps" in f["message"]
    travel = doc["files"][0]["measurements"]["groups"]["ring"]["travel"]["members"]
    assert [m["speed_pin_mps"] for m in travel] == [1.0, 0.8, 0.9, None]
