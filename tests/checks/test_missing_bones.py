"""missing-bones: bones a clip is declared to animate ([clips.*] animates_bones).
"""

from __future__ import annotations

from checks_support import run_check
from bone_clips import asset


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
