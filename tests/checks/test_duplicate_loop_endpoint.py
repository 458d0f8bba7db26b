"""duplicate-loop-endpoint: a declared loop whose last key repeats its first pose.

Fixtures: tests/support/loop_clips.py.
"""

from __future__ import annotations

from checks_support import run_check
from loop_clips import LOOP, guard, walk


def test_duplicate_endpoint_inclusive_cycle_warns():
    findings, gaps = run_check("duplicate-loop-endpoint", walk(1.0), expect=LOOP)
    assert gaps == [] and len(findings) == 1
    f = findings[0]
    assert (f.severity, f.clip, f.time_s, f.measured, f.expected) == ("warning", "walk", 1.0, 1, 0)
    assert "1.000000s -> 0.968750s" in f.message


def test_open_cycle_is_not_a_duplicate():
    assert run_check("duplicate-loop-endpoint", walk(31 / 32, keys=32), expect=LOOP) == ([], [])
    assert run_check("duplicate-loop-endpoint", walk(0.75), expect=LOOP) == ([], [])


def test_duplicate_endpoint_tolerance():
    # a root translation (1 unit = 1 m): 2^-14 m (0.061 mm) from the first key is still a repeat of
    # it; 2^-13 m (0.122 mm) is not (tolerance 0.1 mm in model space)
    assert len(run_check("duplicate-loop-endpoint", guard(x=(0, 0.25, 0.5, 0.25, 2.0**-14)), expect=LOOP)[0]) == 1
    assert run_check("duplicate-loop-endpoint", guard(x=(0, 0.25, 0.5, 0.25, 2.0**-13)), expect=LOOP)[0] == []
    # a clip where nothing moves is not a duplicated endpoint (that is constant-track's business)
    assert run_check("duplicate-loop-endpoint", guard(), expect=LOOP) == ([], [])


def test_duplicate_endpoint_gap_on_bad_times():
    findings, gaps = run_check("duplicate-loop-endpoint", guard(times=[0, 0.5, 0.25, 0.75, 1.0]), expect=LOOP)
    assert findings == [] and [(g.code, g.scope) for g in gaps] == [("measurement_unavailable", "duplicate_loop_endpoint")]
