"""bind-pose on hand-built rotation tracks (rest = identity, first keys about Y by known angles)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip
from builders import biped_skeleton
from checks_support import run_check


def y_quat(deg):
    h = math.radians(deg) / 2
    return [0.0, math.sin(h), 0.0, math.cos(h)]


def rot_clip(first_angles_deg, bones=(1, 2, 3), extra=()):
    t = np.array([0.0, 0.5, 1.0])
    chans = [Channel.make(b, "rotation", t, [y_quat(a), y_quat(a + 10), y_quat(a)]) for b, a in zip(bones, first_angles_deg)]
    chans += list(extra)
    return Asset(skeleton=biped_skeleton(), clips=[Clip(name="pose", channels=chans)])


def test_mean_rest_delta_above_cap_warns_naming_the_worst_bone():
    findings, gaps = run_check("bind-pose", rot_clip([30, 60, 90]))
    assert gaps == [] and len(findings) == 1
    f = findings[0]
    assert f.severity == "warning" and f.bone == "RightFoot" and f.time_s == 0.0
    assert f.measured == pytest.approx(60.0, abs=1e-6) and f.expected == 45.0


def test_cap_option():
    asset = rot_clip([30, 60, 90])
    assert run_check("bind-pose", asset, options={"max_mean_rest_delta_deg": 60.1}) == ([], [])
    assert len(run_check("bind-pose", asset, options={"max_mean_rest_delta_deg": 59.9})[0]) == 1


def test_sign_of_the_quaternion_does_not_matter():
    t = np.array([0.0, 1.0])
    neg = [Channel.make(b, "rotation", t, [[-v for v in y_quat(10)], y_quat(10)]) for b in (1, 2, 3)]
    asset = Asset(skeleton=biped_skeleton(), clips=[Clip(name="pose", channels=neg)])
    assert run_check("bind-pose", asset, options={"max_mean_rest_delta_deg": 10.5}) == ([], [])
    assert len(run_check("bind-pose", asset, options={"max_mean_rest_delta_deg": 9.5})[0]) == 1


def test_fewer_than_three_usable_tracks_is_a_gap():
    t = np.array([0.0, 1.0])
    zero = Channel.make(3, "rotation", t, [[0, 0, 0, 0], y_quat(5)])  # zero first key: not evidence
    findings, gaps = run_check("bind-pose", rot_clip([80, 80], bones=(1, 2), extra=[zero]))
    assert findings == []
    assert [(g.code, g.scope, g.subjects, g.message) for g in gaps] == [
        (
            "insufficient_rotation_evidence",
            "first_frame_rest_delta",
            ["pose"],
            "only 2 usable first-frame rotation track(s); at least three are required",
        )
    ]


def test_first_keys_authored_exactly_at_the_cap_pass():
    """Three first keys of exactly 45° (the default cap) measure 45.0000006° from float32 keys:
    at the cap, which passes (it warned); the next float32 degree value above the cap warns."""
    from animsmith.checks.bind_pose import first_frame_rest_deltas_deg

    asset = rot_clip([45, 45, 45])
    mean = float(np.mean([d for _, d in first_frame_rest_deltas_deg(asset.skeleton, asset.clips[0])]))
    assert mean != 45.0 and np.float32(mean) == np.float32(45.0)  # float32 noise in the last bits only
    assert run_check("bind-pose", asset) == ([], [])
    above = float(np.nextafter(np.float32(45.0), np.float32(90.0)))
    assert len(run_check("bind-pose", rot_clip([above + 1e-4] * 3))[0]) == 1
