"""loop-seam-rot: angular velocity across the wrap against the clip's own steps.

Fixtures: tests/support/loop_clips.py (GUARD: every measure hand-computable).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton

from checks_support import run_check
from loop_clips import LOOP, T5, yrot_deg, guard


def test_seam_rotation_cap_exact():
    absolute = {"max_angular_velocity_delta_degps": 5.0}
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 1.24975, 5, 0, 0)), expect=LOOP, options=absolute)[0] == []
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 1.25, 5, 0, 0)), expect=LOOP, options=absolute)[0] == []
    findings, _ = run_check("loop-seam-rot", guard(rot_deg=(0, 1.25025, 5, 0, 0)), expect=LOOP, options=absolute)
    assert len(findings) == 1
    assert findings[0].measured == pytest.approx(5.001, abs=1e-3) and findings[0].expected == 5.0


def test_seam_rotation_values():
    findings, _ = run_check("loop-seam-rot", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP,
                            options={"max_angular_velocity_delta_degps": 5.0})
    assert findings[0].measured == pytest.approx(80.0, abs=1e-3) and findings[0].bone == "root"
    # relative by default: 80 deg/s at the seam is the 80 deg/s turn-around inside the clip
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP)[0] == []
    # 40, 40/3, −40/3, −40 deg/s per step: the seam change (80) is 3x the inner one (26.67)
    findings, _ = run_check("loop-seam-rot", guard(rot_deg=(0, 10, 10 + 10 / 3, 10, 0)), expect=LOOP)
    assert findings[0].measured == pytest.approx(80.0, abs=1e-3)
    assert findings[0].expected == pytest.approx(40.0, abs=1e-3)
    assert run_check("loop-closure", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP)[0] == []
    # shortest-path steps through 180° agree: no seam change
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 10, 180, 350, 360)), expect=LOOP)[0] == []
    assert run_check("loop-seam-rot", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP,
                     options={"max_angular_velocity_delta_degps": 80.1})[0] == []


def test_seam_rotation_compares_vectors():
    # +10° about X out, −10° about Y (= +10° step from −10° back to 0) in: |(40,0,0) − (0,40,0)|/... = 20√2 deg/s
    times = [0, 0.5, 1.0, 1.5, 2.0]
    x10 = [math.sin(math.radians(5)), 0, 0, math.cos(math.radians(5))]
    x20 = [math.sin(math.radians(10)), 0, 0, math.cos(math.radians(10))]
    ym10 = [0, -math.sin(math.radians(5)), 0, math.cos(math.radians(5))]
    q = np.array([[0, 0, 0, 1], x10, x20, ym10, [0, 0, 0, 1]])
    sk = Skeleton.build(["root"], [-1])
    asset = Asset(skeleton=sk, clips=[Clip(name="guard", channels=[Channel.make(0, "rotation", times, q)])])
    findings, _ = run_check("loop-seam-rot", asset, expect=LOOP, options={"max_angular_velocity_delta_degps": 5.0})
    assert findings[0].measured == pytest.approx(20 * math.sqrt(2), abs=1e-3)
    assert findings[0].time_s == 2.0


def test_worst_bone_named_among_two_roots():
    sk = Skeleton.build(["first-root", "second-root"], [-1, -1])
    chans = [Channel.make(0, "rotation", T5, yrot_deg([0, 1, 2, 1, 0])),
             Channel.make(1, "rotation", T5, yrot_deg([0, 10, 20, 10, 0]))]
    asset = Asset(skeleton=sk, clips=[Clip(name="guard", channels=chans)])
    findings, _ = run_check("loop-seam-rot", asset, expect=LOOP, options={"max_angular_velocity_delta_degps": 5.0})
    assert [f.bone for f in findings] == ["second-root"]
