"""root-motion-speed: measured root speed against the declared speed pin.

Fixtures: tests/support/treadmill_clips.py (speeds exact on the 1/32 s grid).
"""

from __future__ import annotations

import numpy as np
import pytest

from animsmith.model import Asset, Clip, Skeleton

from checks_support import run_check
from treadmill_clips import NAMES, treadmill


def test_speed_pin_matches_and_mismatches():
    asset = treadmill(travel_m=2.0)
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 2.0, "speed_tolerance_mps": 0.01}) == ([], [])
    findings, _ = run_check("root-motion-speed", asset, expect={"speed_mps": 1.0, "speed_tolerance_mps": 0.01})
    assert len(findings) == 1
    f = findings[0]
    assert (f.measured, f.expected, f.bone) == (pytest.approx(2.0), 1.0, "pelvis")
    assert "disagrees with the declared 1.00 ± 0.01" in f.message


def test_speed_tolerance_exact():
    asset = treadmill(travel_m=2.0)
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 2.25, "speed_tolerance_mps": 0.25})[0] == []
    # past the bound by one float32 step of the speed (2^-22 m/s at 2 m/s): the f32 cap rule
    tol = 0.25 - 2.0**-22
    assert len(run_check("root-motion-speed", asset, expect={"speed_mps": 2.25, "speed_tolerance_mps": tol})[0]) == 1
    # the check's default tolerance (0.1) applies when the clip declares none
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 2.0625})[0] == []
    assert len(run_check("root-motion-speed", asset, expect={"speed_mps": 2.125})[0]) == 1


def test_stray_pin():
    findings, _ = run_check("root-motion-speed", treadmill(), expect={"speed_mps": 1.0, "speed_tolerance_mps": 0.25})
    assert len(findings) == 1 and "stray" in findings[0].message and findings[0].expected == 1.0
    # a slow pin on a stationary clip is a plain mismatch, not a stray pin
    findings, _ = run_check("root-motion-speed", treadmill(), expect={"speed_mps": 0.25, "speed_tolerance_mps": 0.125})
    assert len(findings) == 1 and "stray" not in findings[0].message


def test_speed_not_armed_for_gameplay_owner():
    asset = treadmill(travel_m=2.0)
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 1.0, "movement_owner_xz": "gameplay"}) == ([], [])
    assert len(run_check("root-motion-speed", asset, expect={"speed_mps": 1.0, "movement_owner_xz": "animation"})[0]) == 1


def test_speed_gaps():
    _, gaps = run_check("root-motion-speed", treadmill(names=("a", "b", "c")), expect={"speed_mps": 1.0})
    assert [(g.code, g.scope) for g in gaps] == [("roles_unresolved", "root_motion_speed")]
    empty = Asset(skeleton=Skeleton.build(list(NAMES), [-1, 0, 0]), clips=[Clip(name="run", channels=[])])
    findings, gaps = run_check("root-motion-speed", empty, expect={"speed_mps": 1.0})
    assert findings == [] and [(g.code, g.scope) for g in gaps] == [("measurement_unavailable", "root_motion_speed")]


def test_stray_pin_threshold_exact():
    # stationary clip: a pin of exactly 0.5 m/s is a stray pin (≥), the float below is a plain mismatch
    findings, _ = run_check("root-motion-speed", treadmill(), expect={"speed_mps": 0.5, "speed_tolerance_mps": 0.125})
    assert len(findings) == 1 and "stray" in findings[0].message
    below = float(np.nextafter(0.5, 0))
    findings, _ = run_check("root-motion-speed", treadmill(), expect={"speed_mps": below, "speed_tolerance_mps": 0.125})
    assert len(findings) == 1 and "disagrees" in findings[0].message


def test_a_speed_authored_exactly_at_the_bound_passes():
    """A root travelling 1.1 m in 1 s measures 1.10000002 m/s from float32 keys: against a
    1.0 ± 0.1 pin that is at the bound, which passes (it errored); 1.11 m/s errors."""
    asset = treadmill(travel_m=1.1)
    assert float(np.float32(1.1)) - 1.1 > 0  # the stored 1.1 m is a little more than 1.1 m
    assert run_check("root-motion-speed", asset, expect={"speed_mps": 1.0, "speed_tolerance_mps": 0.1}) == ([], [])
    assert len(run_check("root-motion-speed", treadmill(travel_m=1.11), expect={"speed_mps": 1.0, "speed_tolerance_mps": 0.1})[0]) == 1


def test_a_late_start_names_the_hold_and_the_speed_over_the_keys():
    """An FBX2glTF walk exported from frame 1 (keys at 1/30 .. 31/30 s) travels 1.2 m over its keys'
    1.0 s, but a runtime holds its first pose from 0: 1.2 m in 31/30 s = 1.1613 m/s is what the
    check measures. The finding now says so, with the 1.20 m/s the keys travel at."""
    from builders import fbx2gltf_asset, fbx2gltf_walk

    from animsmith.model import Channel

    walk = fbx2gltf_walk("walk", frames=31, travel_mps=1.2)
    assert run_check("root-motion-speed", fbx2gltf_asset(walk), expect={"speed_mps": 1.2, "speed_tolerance_mps": 0.02}) == ([], [])
    late = Clip(name="walk", channels=[Channel.make(c.bone, c.path, c.times.astype(np.float64) + 1 / 30, c.values)
                                       for c in walk.channels])
    findings, _ = run_check("root-motion-speed", fbx2gltf_asset(late), expect={"speed_mps": 1.2, "speed_tolerance_mps": 0.02})
    assert len(findings) == 1 and findings[0].measured == pytest.approx(1.2 * 30 / 31, abs=1e-5)
    assert findings[0].message.endswith("disagrees with the declared 1.20 ± 0.02 m/s — playback scaled by this pin will "
                                        "slide or moonwalk; its keys start at 0.033s and the first pose is held until "
                                        "then, so over its keys alone it travels at 1.20 m/s, within the pin: start the "
                                        "keys at 0 s")
    # a pin the keys miss too: the speed over the keys, without the advice
    findings, _ = run_check("root-motion-speed", fbx2gltf_asset(late), expect={"speed_mps": 1.5, "speed_tolerance_mps": 0.02})
    assert findings[0].message.endswith("over its keys alone it travels at 1.20 m/s")


def test_a_start_within_float_noise_of_0_adds_no_note():
    """Keys from 1e-6 s (float noise, not an export range from frame 1): 1.2 m in 1.000001 s
    and in 1.0 s both show 1.20 m/s, so the message says nothing about a held first pose."""
    from builders import fbx2gltf_asset, fbx2gltf_walk

    from animsmith.model import Channel

    walk = fbx2gltf_walk("walk", frames=31, travel_mps=1.2)
    noisy = Clip(name="walk", channels=[Channel.make(c.bone, c.path, c.times.astype(np.float64) + 1e-6, c.values)
                                        for c in walk.channels])
    findings, _ = run_check("root-motion-speed", fbx2gltf_asset(noisy), expect={"speed_mps": 1.5, "speed_tolerance_mps": 0.02})
    assert len(findings) == 1 and findings[0].measured == pytest.approx(1.2 / (1 + 1e-6), abs=1e-5)
    assert findings[0].message.endswith("disagrees with the declared 1.50 ± 0.02 m/s — playback scaled by this pin "
                                        "will slide or moonwalk")
