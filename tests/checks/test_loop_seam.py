"""loop-seam: feet that pop at the wrap of a declared loop.

Fixtures: tests/support/loop_clips.py (WALK: the wrap-jump ratio known in closed form).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton

from checks_support import run_check
from loop_clips import LOOP, T5, walk


def test_loop_seam_clean_and_popped_walk():
    assert run_check("loop-seam", walk(1.0), expect=LOOP) == ([], [])
    findings, _ = run_check("loop-seam", walk(0.75), expect=LOOP)
    assert len(findings) == 1
    f = findings[0]
    expected_ratio = 1 / math.sin(0.75 * 2 * math.pi / 32)
    assert f.measured == pytest.approx(expected_ratio, rel=1e-5) and f.expected == 1.5
    assert (f.clip, f.time_s) == ("walk", pytest.approx(1.0)) and f.bone in ("foot_l", "foot_r")
    assert "6.82×" in f.message


@pytest.mark.parametrize("stride_l,stride_r,bone", [(0.15, 0.3, "foot_r"), (0.3, 0.15, "foot_l")])
def test_loop_seam_names_the_foot_with_the_larger_wrap_jump(stride_l, stride_r, bone):
    # P = 0.75: each foot's wrap jump is |w(32) − w(0)| = 1 times its (0, 0.05, stride) offset,
    # so the foot with the 0.3 m stride jumps √(0.05² + 0.3²) = 0.304 m against 0.158 m
    findings, _ = run_check("loop-seam", walk(0.75, stride=stride_l, right_stride=stride_r), expect=LOOP)
    assert len(findings) == 1 and findings[0].bone == bone


def seam_asset(z_keys):
    """pelvis + foot_l keyed at T5 with dyadic Z offsets: ratio is exact."""
    sk = Skeleton.build(["pelvis", "foot_l"], [-1, 0], [[0, 1, 0], [0.125, -1, 0]])
    z = np.asarray(z_keys, dtype=np.float64)
    vals = np.stack([np.full_like(z, 0.125), np.full_like(z, -1.0), z], axis=1)
    return Asset(skeleton=sk, clips=[Clip(name="walk", channels=[Channel.make(1, "translation", T5, vals)])])


def test_loop_seam_ratio_exact_threshold():
    asset = seam_asset([0, 0.0625, 0.125, 0.1875, 0.25])  # seam 0.25 / step 0.0625 = 4 exactly
    assert run_check("loop-seam", asset, expect=LOOP, options={"max_ratio": 4.0})[0] == []
    findings, _ = run_check("loop-seam", asset, expect=LOOP, options={"max_ratio": float(np.nextafter(4.0, 0))})
    assert len(findings) == 1 and findings[0].measured == 4.0 and findings[0].bone == "foot_l"


@pytest.mark.parametrize(
    "z_keys",
    [
        [0, 0.03125, 0.125, 0.25, 0.375],  # first step 1/32, last step 1/8
        [0, 0.125, 0.25, 0.34375, 0.375],  # first step 1/8, last step 1/32
    ],
)
def test_loop_seam_divides_by_the_larger_neighbouring_step(z_keys):
    # seam |z4 − z0| = 0.375 over max(|z1 − z0|, |z4 − z3|) = 0.125: exactly 3 either way round
    # (the smaller step alone would give 12)
    findings, gaps = run_check("loop-seam", seam_asset(z_keys), expect=LOOP)
    assert gaps == [] and len(findings) == 1 and findings[0].measured == 3.0


def test_loop_seam_gaps():
    # no roles: bone names nobody recognises
    _, gaps = run_check("loop-seam", walk(0.75, names=("a", "b", "c")), expect=LOOP)
    assert [(g.code, g.scope, g.subjects) for g in gaps] == [("roles_unresolved", "loop_seam", ["walk"])]
    assert "hips/foot" in gaps[0].message
    # too short: two keys → two grid samples
    findings, gaps = run_check("loop-seam", walk(1.0, keys=2), expect=LOOP)
    assert findings == [] and gaps[0].code == "measurement_unavailable" and "too short" in gaps[0].message
    # a stride step below the 0.02 m floor: idle
    findings, gaps = run_check("loop-seam", walk(1.0, stride=0.001), expect=LOOP)
    assert findings == [] and "no usable stride step" in gaps[0].message
    # the floor is configurable
    findings, gaps = run_check("loop-seam", walk(0.75, stride=0.001), expect=LOOP, options={"min_stride_step_m": 0.0})
    assert gaps == [] and len(findings) == 1


def test_a_densely_keyed_walk_names_the_floor_to_lower():
    """The simulator's biped walking in place at 1.2 m/s, keyed at 120 fps: its clip enters
    the gait in double support, both feet sweeping back at 1.2 m/s relative to the hips, so
    the neighbouring step at the seam is 1.2 / 120 = 0.01 m, under the 0.02 m floor (a gap
    that says which key to lower). With the floor at 0.005 m the seam is judged: the last key
    repeats the first pose, ratio 0, no finding and no gap."""
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    b = bake(catalog_creature("biped"), fps=120, root_motion=False)
    expect = {"loop": True}
    findings, gaps = run_check("loop-seam", b.asset, expect=expect)
    assert findings == [] and len(gaps) == 1
    assert "largest neighbouring foot step 0.01 m is below the 0.02 m floor" in gaps[0].message
    assert "[checks.loop-seam] min_stride_step_m" in gaps[0].message
    assert run_check("loop-seam", b.asset, expect=expect, options={"min_stride_step_m": 0.005}) == ([], [])
