"""nan: non-finite key times, key values and cubic tangents.

Fixture: tests/support/mechanical_clips.py.
"""

from __future__ import annotations

import numpy as np

from animsmith.model import Channel

from checks_support import run_check
from mechanical_clips import make_asset


def test_nan_value_is_one_error_naming_the_bone():
    tv = [[0, 0, 0], [0, np.nan, 0.5], [0, 0, 1]]
    findings, _ = run_check("nan", make_asset(tr_values=tv))
    assert len(findings) == 1
    f = findings[0]
    assert (f.severity, f.clip, f.bone) == ("error", "walk", "hips")
    assert "element 4" in f.message and "key 1" in f.message and f.time_s == 0.5


def test_infinite_time_is_a_nan_finding_and_inf_value_too():
    findings, _ = run_check("nan", make_asset(tr_times=(0, 0.5, np.inf)))
    assert [f.bone for f in findings] == ["hips"] and "non-finite key time" in findings[0].message
    findings, _ = run_check("nan", make_asset(rot_values=np.array([[0, 0, 0, 1], [0, 0, 0, np.inf], [0, 0, 0, 1]])))
    assert [f.bone for f in findings] == ["spine"] and "key 1" in findings[0].message


def test_nan_in_cubic_tangent_is_reported():
    ch = Channel.make(
        0, "scale", [0, 1], [[1, 1, 1], [1, 1, 1]], interpolation="CUBICSPLINE",
        out_tangents=[[0, 0, 0], [0, np.nan, 0]],
    )
    findings, _ = run_check("nan", make_asset(extra=[ch]))
    assert len(findings) == 1
    # raw layout per key: in(3) value(3) out(3); key 1 out-tangent y = 9 + 6 + 1
    assert "element 16" in findings[0].message
