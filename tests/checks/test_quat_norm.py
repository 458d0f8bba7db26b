"""quat-norm: rotation keys that are not unit quaternions.

Fixture: tests/support/mechanical_clips.py (thresholds tested with values exact in float32).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from checks_support import run_check
from mechanical_clips import make_asset


def test_quat_norm_exact_threshold():
    tol = 2.0**-10
    at = np.array([[0, 0, 0, 1], [0, 0, 0, 1 + tol], [0, 0, 0, 1]])
    assert run_check("quat-norm", make_asset(rot_values=at), options={"tolerance": tol})[0] == []
    past = at.copy()
    past[1, 3] = 1 + tol + 2.0**-20  # exact in float32
    findings, _ = run_check("quat-norm", make_asset(rot_values=past), options={"tolerance": tol})
    assert len(findings) == 1
    f = findings[0]
    assert (f.bone, f.time_s, f.expected) == ("spine", 0.5, 1.0)
    assert f.measured == pytest.approx(1 + tol + 2.0**-20, abs=0)


def test_quat_norm_default_reports_worst_key():
    q = np.array([[0, 0.65, 0, 0.65], [0, 0, 0, 1.0005], [0, 0, 0, 1.05]])  # |q0| = 0.919
    findings, _ = run_check("quat-norm", make_asset(rot_values=q))
    assert len(findings) == 1
    assert "worst at key 0" in findings[0].message and findings[0].time_s == 0.0
    assert findings[0].measured == pytest.approx(0.65 * math.sqrt(2), abs=1e-6)
    assert "2 key(s)" in findings[0].message  # 1.0005 is within 1e-3
