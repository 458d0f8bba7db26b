"""time-complement: a same-time pair whose gaits align better under reflected time.

Contracts and lint runs: tests/support/group_support.py (stride anchors known by construction).
"""

from __future__ import annotations

import math

import pytest

from builders import gait_clip
from group_support import sync_config, lint_json, by_check


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
