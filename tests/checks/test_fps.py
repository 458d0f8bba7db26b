"""fps: duration and key times off the declared frame grid.

Fixture: tests/support/mechanical_clips.py (thresholds tested with values exact in float32).
"""

from __future__ import annotations

import numpy as np
import pytest

from checks_support import run_check
from mechanical_clips import make_asset


def test_fps_not_declared_is_not_armed():
    asset = make_asset(tr_times=(0, 0.51, 1.013), rot_times=(0, 0.5, 1.013))
    assert run_check("fps", asset) == ([], [])


def test_fps_duration_and_key_off_grid():
    # 32 fps: 1.013 s = 32.416 frames, key 0.51 s = 16.32 frames
    asset = make_asset(tr_times=(0, 0.51, 1.013), rot_times=(0, 0.5, 1.0))
    findings, _ = run_check("fps", asset, expect={"fps": 32})
    assert len(findings) == 2
    dur, key = findings
    assert "32.42 frames" in dur.message and dur.expected == 32.0
    assert key.bone == "hips" and key.time_s == pytest.approx(1.013, abs=1e-6)
    assert key.measured == pytest.approx(0.416, abs=1e-4)


def test_fps_frame_error_exact_threshold():
    # at 8 fps a key at 1/8 + 1/80 s is 0.1 frames off (in float64; f32 time adds < 1e-7 frames)
    cap = 0.125  # 1/8 frame, exact in binary
    t_at = (1 + cap) / 8  # exactly 1.125 frames → error 0.125
    asset = make_asset(tr_times=(0, t_at, 1.0))
    assert run_check("fps", asset, expect={"fps": 8}, options={"max_frame_error": cap})[0] == []
    t_past = float(np.nextafter(np.float32(t_at), np.float32(1)))
    asset = make_asset(tr_times=(0, t_past, 1.0))
    findings, _ = run_check("fps", asset, expect={"fps": 8}, options={"max_frame_error": cap})
    assert len(findings) == 1 and findings[0].time_s == t_past


def test_fps_invalid_is_gap():
    _, gaps = run_check("fps", make_asset(), expect={"fps": float("nan")})
    assert [(g.code, g.scope, g.subjects) for g in gaps] == [("invalid_declared_fps", "frame_grid", ["walk"])]
