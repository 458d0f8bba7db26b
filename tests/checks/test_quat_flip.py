"""quat-flip: adjacent rotation keys on opposite quaternion hemispheres.

Fixture: tests/support/mechanical_clips.py.
"""

from __future__ import annotations

import numpy as np

from checks_support import run_check
from mechanical_clips import yrot, make_asset


def test_quat_flip_counts_flips_and_names_the_first():
    q = yrot([0.0, 0.8, 1.6])
    q[1] = -q[1]
    findings, _ = run_check("quat-flip", make_asset(rot_values=q))
    assert len(findings) == 1
    f = findings[0]
    assert (f.severity, f.bone, f.measured, f.time_s) == ("warning", "spine", 2, 0.5)
    assert "first between keys 0 and 1" in f.message


def test_quat_flip_threshold_is_dot_below_zero():
    # dot exactly 0 (a 180° rotation between keys) is not a flip; the next float below is
    at = np.array([[0, 0, 0, 1], [0, 1, 0, 0], [0, 1, 0, 0]], dtype=float)
    assert run_check("quat-flip", make_asset(rot_values=at))[0] == []
    past = at.copy()
    past[1, 3] = -(2.0**-24)
    assert len(run_check("quat-flip", make_asset(rot_values=past))[0]) == 1
