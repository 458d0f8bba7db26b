"""duration-sanity: degenerate durations, empty clips, ragged channel ends, the duration pin.

Fixture: tests/support/mechanical_clips.py (thresholds tested with values exact in float32).
"""

from __future__ import annotations

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton

from checks_support import run_check
from mechanical_clips import yrot, make_asset


def test_duration_zero_is_error_with_pin_expected():
    asset = make_asset(rot_times=(0,), rot_values=yrot([0.0]), tr_times=(0,), tr_values=[[0, 0, 0]])
    findings, _ = run_check("duration-sanity", asset)
    assert [(f.severity, f.measured) for f in findings] == [("error", 0.0)]
    assert "degenerate" in findings[0].message
    findings, _ = run_check("duration-sanity", asset, expect={"duration_s": 1.0})
    assert len(findings) == 1 and findings[0].expected == 1.0


def test_empty_clip_is_one_warning():
    sk = Skeleton.build(["hips"], [-1])
    asset = Asset(skeleton=sk, clips=[Clip(name="empty", channels=[])])
    findings, _ = run_check("duration-sanity", asset)
    assert [(f.severity, f.clip) for f in findings] == [("warning", "empty")]
    findings, _ = run_check("duration-sanity", asset, expect={"duration_s": 1.0})
    assert [f.severity for f in findings] == ["warning", "error"]


def test_duration_pin_tolerance_exact():
    tol = 0.25
    for d in (0.75, 1.25):  # exactly at the tolerance: pass
        asset = make_asset(rot_times=(0, d / 2, d), tr_times=(0, d / 2, d))
        assert run_check("duration-sanity", asset, expect={"duration_s": 1.0, "duration_tolerance_s": tol})[0] == []
    d = float(np.nextafter(np.float32(1.25), np.float32(2)))
    asset = make_asset(rot_times=(0, 0.5, d), tr_times=(0, 0.5, d))
    findings, _ = run_check("duration-sanity", asset, expect={"duration_s": 1.0, "duration_tolerance_s": tol})
    assert len(findings) == 1 and findings[0].measured == d and findings[0].expected == 1.0
    # check-level default tolerance (0.017 s): one dropped frame at 30 fps is caught
    findings, _ = run_check("duration-sanity", make_asset(), expect={"duration_s": 1.0 + 1 / 30})
    assert len(findings) == 1 and "disagrees" in findings[0].message


def test_channels_end_at_different_times_warning():
    asset = make_asset(tr_times=(0, 0.15, 0.3))
    findings, _ = run_check("duration-sanity", asset)
    assert len(findings) == 1
    f = findings[0]
    assert (f.severity, f.bone) == ("warning", "hips")
    assert f.measured == pytest.approx(0.7, abs=1e-6) and f.time_s == pytest.approx(0.3, abs=1e-7)
    # single-key channels never count toward the spread
    one = Channel.make(1, "scale", [0.0], [[1, 1, 1]])
    assert run_check("duration-sanity", make_asset(extra=[one]))[0] == []


def test_end_spread_exact_threshold():
    cap = 2.0**-6
    asset = make_asset(tr_times=(0, 0.5, 1 - cap))
    assert run_check("duration-sanity", asset, options={"max_end_spread_s": cap})[0] == []
    asset = make_asset(tr_times=(0, 0.5, 1 - cap - 2.0**-20))
    assert len(run_check("duration-sanity", asset, options={"max_end_spread_s": cap})[0]) == 1


def test_end_spread_ignores_malformed_channels():
    # the translation channel's last key (0.25) is not its end: it is left to time-monotonic
    asset = make_asset(tr_times=(0, 0.5, 0.25))
    assert run_check("duration-sanity", asset)[0] == []
    nan_end = make_asset(tr_times=(0, 0.5, np.nan))
    assert run_check("duration-sanity", nan_end)[0] == []
