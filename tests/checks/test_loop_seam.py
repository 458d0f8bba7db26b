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
    """pelvis + foot_l keyed at T5 with dyadic Z offsets: ratio is exact. The steps are 0.25 s,
    so the stride floor is 0.02 m per 1/30 s × 7.5 = 0.15 m per step."""
    sk = Skeleton.build(["pelvis", "foot_l"], [-1, 0], [[0, 1, 0], [0.125, -1, 0]])
    z = np.asarray(z_keys, dtype=np.float64)
    vals = np.stack([np.full_like(z, 0.125), np.full_like(z, -1.0), z], axis=1)
    return Asset(skeleton=sk, clips=[Clip(name="walk", channels=[Channel.make(1, "translation", T5, vals)])])


def test_loop_seam_ratio_exact_threshold():
    asset = seam_asset([0, 0.25, 0.5, 0.75, 1.0])  # seam 1 / step 0.25 = 4 exactly
    assert run_check("loop-seam", asset, expect=LOOP, options={"max_ratio": 4.0})[0] == []
    findings, _ = run_check("loop-seam", asset, expect=LOOP, options={"max_ratio": float(np.nextafter(4.0, 0))})
    assert len(findings) == 1 and findings[0].measured == 4.0 and findings[0].bone == "foot_l"


@pytest.mark.parametrize(
    "z_keys",
    [
        [0, 0.125, 0.5, 1.0, 1.5],  # first step 1/8, last step 1/2
        [0, 0.5, 1.0, 1.375, 1.5],  # first step 1/2, last step 1/8
    ],
)
def test_loop_seam_divides_by_the_larger_neighbouring_step(z_keys):
    # seam |z4 − z0| = 1.5 over max(|z1 − z0|, |z4 − z3|) = 0.5: exactly 3 either way round
    # (the smaller step alone would give 12, and is below the 0.15 m floor of this grid)
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


def paced_walk(fps, amp_m, periods=0.75):
    """pelvis + foot_l keyed at ``fps`` over 1 s; the foot moves forward by amp·sin(periods·2πt)
    relative to the hips, so the first step is amp·sin(periods·2π/fps) and the wrap jumps
    |amp·sin(periods·2π)|."""
    sk = Skeleton.build(["pelvis", "foot_l"], [-1, 0], [[0, 1, 0], [0.1, -1, 0]])
    t = np.arange(fps + 1) / float(fps)
    z = amp_m * np.sin(periods * 2 * np.pi * t)
    vals = np.stack([np.full_like(z, 0.1), np.full_like(z, -1.0), z], axis=1)
    return Asset(skeleton=sk, clips=[Clip(name="walk", channels=[Channel.make(1, "translation", t, vals)])])


@pytest.mark.parametrize("fps", [30, 60, 120])
def test_loop_seam_floor_is_the_same_foot_speed_at_every_frame_rate(fps):
    # a walk's foot at 0.15 m amplitude moves ~0.7 m/s relative to the hips: its first step
    # 0.15·sin(1.5π/fps) is 0.0235 m at 30 fps but 0.0118 m at 60 fps and 0.0059 m at
    # 120 fps, against a floor of 0.02 m per 1/30 s = 0.02·30/fps m per step; the walk is
    # judged at every rate, ratio 1/sin(1.5π/fps)
    findings, gaps = run_check("loop-seam", paced_walk(fps, 0.15), expect=LOOP)
    assert gaps == [] and len(findings) == 1
    assert findings[0].measured == pytest.approx(1 / math.sin(1.5 * math.pi / fps), rel=1e-5)
    # an idle's foot at 0.05 m amplitude (~0.24 m/s) is below the floor at every rate
    findings, gaps = run_check("loop-seam", paced_walk(fps, 0.05), expect=LOOP)
    assert findings == [] and [g.code for g in gaps] == ["measurement_unavailable"]
    step, floor = 0.05 * math.sin(1.5 * math.pi / fps), 0.02 * 30 / fps
    assert f"foot step {step:.4g} m is below the {floor:g} m floor" in gaps[0].message
    assert ("per 1/30 s" in gaps[0].message) == (fps != 30)


def test_a_slow_walk_names_the_floor_to_lower():
    """The simulator's biped walking in place at 0.3 m/s, keyed at 30 fps: its clip enters
    the gait in double support, both feet sweeping back at 0.3 m/s relative to the hips, so
    the neighbouring step at the seam is 0.3 / 30 = 0.01 m, under the 0.02 m floor (a gap
    that says which key to lower). With the floor at 0.005 m the seam is judged: the last key
    repeats the first pose, ratio 0, no finding and no gap."""
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    b = bake(catalog_creature("biped"), fps=30, speed_mps=0.3, root_motion=False)
    expect = {"loop": True}
    findings, gaps = run_check("loop-seam", b.asset, expect=expect)
    assert findings == [] and len(gaps) == 1
    assert "largest neighbouring foot step 0.01 m is below the 0.02 m floor" in gaps[0].message
    assert "[checks.loop-seam] min_stride_step_m" in gaps[0].message
    assert run_check("loop-seam", b.asset, expect=expect, options={"min_stride_step_m": 0.005}) == ([], [])
