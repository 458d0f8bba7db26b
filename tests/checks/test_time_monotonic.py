"""time-monotonic: key times that go backwards, repeat, or start before zero.

Fixture: tests/support/mechanical_clips.py (thresholds tested with values exact in float32).
"""

from __future__ import annotations

import numpy as np

from checks_support import run_check
from mechanical_clips import make_asset


def test_non_increasing_times_one_error():
    findings, _ = run_check("time-monotonic", make_asset(tr_times=(0, 0.625, 0.375), tr_values=[[0, 0, 0]] * 3))
    assert len(findings) == 1
    assert "keys 1 and 2" in findings[0].message and findings[0].time_s == 0.375
    # a repeated time is not increasing either
    findings, _ = run_check("time-monotonic", make_asset(tr_times=(0, 0.5, 0.5)))
    assert len(findings) == 1 and findings[0].time_s == 0.5


def test_negative_time_threshold_exact():
    tol = 2.0**-10
    # exactly at the tolerance passes, the next float32 below fails
    ok, _ = run_check("time-monotonic", make_asset(tr_times=(-tol, 0.5, 1)), options={"negative_tolerance_s": tol})
    assert ok == []
    past = float(np.nextafter(np.float32(-tol), np.float32(-1)))
    bad, _ = run_check("time-monotonic", make_asset(tr_times=(past, 0.5, 1)), options={"negative_tolerance_s": tol})
    assert len(bad) == 1 and "negative key time" in bad[0].message and bad[0].measured == past
    # default tolerance: -1e-6 is export rounding, -0.01 is negative
    assert run_check("time-monotonic", make_asset(tr_times=(-1e-6, 0.5, 1)))[0] == []
    assert len(run_check("time-monotonic", make_asset(tr_times=(-0.01, 0.5, 1)))[0]) == 1


def test_negative_time_tolerance_is_compared_as_float32():
    """Key times are float32: -0.001 is stored as -0.0010000000475 (below -0.001 in float64);
    a key written as exactly -negative_tolerance_s passes, the next float32 below does not."""
    tol = 0.001
    at = float(np.float32(-tol))
    assert at < -tol  # the case the float64 comparison got wrong
    ok, _ = run_check("time-monotonic", make_asset(tr_times=(at, 0.5, 1)), options={"negative_tolerance_s": tol})
    assert ok == []
    below = float(np.nextafter(np.float32(at), np.float32(-1)))
    bad, _ = run_check("time-monotonic", make_asset(tr_times=(below, 0.5, 1)), options={"negative_tolerance_s": tol})
    assert len(bad) == 1 and bad[0].measured == below
