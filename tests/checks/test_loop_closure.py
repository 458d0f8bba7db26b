"""loop-closure: a declared loop whose last pose does not lead into its first pose.

Fixtures: tests/support/loop_clips.py (GUARD: every measure hand-computable).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton

from checks_support import run_check
from loop_clips import LOOP, T5, yrot_deg, guard


def ids(findings):
    return [f.check_id for f in findings]


def test_closure_position_cap_exact():
    assert run_check("loop-closure", guard(x=(0, 0.00225, 0.0045, 0.00675, 0.009)), expect=LOOP)[0] == []
    assert run_check("loop-closure", guard(x=(0, 0.0025, 0.005, 0.0075, 0.01)), expect=LOOP)[0] == []  # at the cap
    past = float(np.nextafter(np.float32(0.01), np.float32(1)))
    findings, _ = run_check("loop-closure", guard(x=(0, 0.0025, 0.005, 0.0075, past)), expect=LOOP)
    assert len(findings) == 1
    f = findings[0]
    assert (f.clip, f.bone, f.time_s, f.expected) == ("guard", "root", 1.0, 0.01)
    assert f.measured == pytest.approx(past, abs=0) and "in position" in f.message


def test_closure_rotation_cap_and_shortest_path():
    assert run_check("loop-closure", guard(rot_deg=(0, 0.25, 0.5, 0.75, 1.0)), expect=LOOP)[0] == []
    findings, _ = run_check("loop-closure", guard(rot_deg=(0, 0.3, 0.6, 0.9, 1.1)), expect=LOOP)
    assert len(findings) == 1 and findings[0].measured == pytest.approx(1.1, abs=1e-4)
    # an open cycle (the last key is not the first): steps of 0.5° and 1° allow a 1.5° wrap, and
    # the 350° end is 10° from the start, not 350°
    findings, _ = run_check("loop-closure", guard(rot_deg=(0, 0.5, 1, 349, 350)), expect=LOOP)
    assert findings[0].measured == pytest.approx(10.0, abs=1e-4) and findings[0].expected == pytest.approx(1.5)
    # turning in 90° steps, the 10° wrap is smaller than any step: an ordinary frame of an open cycle
    assert run_check("loop-closure", guard(rot_deg=(0, 90, 180, 270, 350)), expect=LOOP)[0] == []
    # last key = −identity is the same orientation
    q = yrot_deg([0, 10, 20, 10, 0])
    q[4] = -q[4]
    sk = Skeleton.build(["root"], [-1])
    asset = Asset(skeleton=sk, clips=[Clip(name="guard", channels=[Channel.make(0, "rotation", T5, q)])])
    assert run_check("loop-closure", asset, expect=LOOP)[0] == []


def test_closure_caps_via_options_and_both_dimensions():
    # an open cycle stepping 0.25 m and 5° per frame wraps 1.0 m and 20°: the allowance is
    # max(cap, 1.5 x the larger neighbouring step) = 0.375 m and 7.5°
    asset = guard(x=(0, 0.25, 0.5, 0.75, 1.0), rot_deg=(0, 5, 10, 15, 20))
    findings, _ = run_check("loop-closure", asset, expect=LOOP)
    assert [f.expected for f in findings] == [pytest.approx(0.375), pytest.approx(7.5, abs=1e-5)]
    assert [f.measured for f in findings] == [pytest.approx(1.0), pytest.approx(20.0)]
    assert "jumps 1.0000 m across the wrap" in findings[0].message
    assert run_check("loop-closure", asset, expect=LOOP,
                     options={"max_position_delta_m": 1.1, "max_rotation_delta_deg": 20.5})[0] == []


@pytest.mark.parametrize("rel, trips", [(-1e-5, False), (1e-5, True)])
def test_closure_rotation_default_cap_within_1e5_relative(rel, trips):
    # last key 1° × (1 ± 1e-5) from the first about Y (float32 key storage moves the
    # angle by ~1e-7 relative): the default 1° cap decides at that resolution
    end_deg = 1.0 * (1 + rel)
    q = yrot_deg([0, end_deg / 4, end_deg / 2, 3 * end_deg / 4, end_deg]).astype(np.float32).astype(np.float64)
    stored = math.degrees(2 * math.atan2(abs(q[4, 1] * q[0, 3] - q[0, 1] * q[4, 3]), abs(q[0] @ q[4])))
    assert (stored > 1.0) == trips  # independent: the stored keys are on that side of the cap
    findings, _ = run_check("loop-closure", guard(rot_deg=(0, end_deg / 4, end_deg / 2, 3 * end_deg / 4, end_deg)), expect=LOOP)
    assert [f.expected for f in findings] == ([1.0] if trips else [])
    if trips:
        assert findings[0].measured == pytest.approx(stored, rel=1e-6)
