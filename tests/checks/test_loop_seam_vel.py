"""The seam checks on a clean loop that starts on a foot plant, and on a real pop beside a
clean mirror bone.

Analytic in-place biped (hips static at 1 m; feet and arms under the hips): each foot's
forward velocity per 1/30 s step over a 24-step cycle is 16 stance steps at −1 m/s, then a
swing [0.5, 1.5, 2.0, 2.2, 2.4, 2.4, 2.5, 2.5] m/s (sums to 0: the loop closes). Changes
between consecutive steps, by hand: the plant 2.5 → −1 is 3.5 m/s, the lift −1 → 0.5 is
1.5 m/s, every other one at most 1.0. The right foot runs the same profile half a cycle
later. Starting the loop on the left plant puts that 3.5 m/s change at the seam: 2.33× the
left foot's largest change inside the clip (1.5), but the same event as the right foot's
plant inside it (3.5): a clean loop, whichever frame it starts on.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.model import Asset, Channel, Clip, Skeleton
from animsmith.io.write import write_glb
from lint_support import run_cli, validate_json, write_config
from checks_support import run_check
from loop_clips import LOOP, guard

NAMES = ["Hips", "LeftFoot", "RightFoot", "LeftArm", "RightArm"]
SWING = [0.5, 1.5, 2.0, 2.2, 2.4, 2.4, 2.5, 2.5]
STEPS, FPS = 24, 30.0
SEAM = ("loop-seam-vel", "loop-seam-rot", "loop-closure", "loop-seam")


def foot_z(start_step: int) -> np.ndarray:
    """(25,) z of a foot whose cycle is rolled to begin at ``start_step`` (closed: last = first)."""
    v = np.roll(np.array([-1.0] * 16 + SWING), -start_step)
    return np.concatenate([[0.0], np.cumsum(v / FPS)])


def x_quats(deg):
    a = np.radians(np.asarray(deg, float)) / 2
    return np.stack([np.sin(a), 0 * a, 0 * a, np.cos(a)], axis=1)


def clip(name: str, start_step: int, left_kink_deg: float = 0.0) -> Clip:
    k = np.arange(STEPS + 1)
    t = k / FPS
    u = k / STEPS
    chans = []
    for bone, x, shift in ((1, 0.1, start_step), (2, -0.1, start_step + 12)):
        z = foot_z(shift % STEPS)
        chans.append(Channel.make(bone, "translation", t, np.stack([np.full_like(z, x), np.full_like(z, -0.9), z], 1)))
    swing = 30.0 * np.sin(2 * np.pi * u)
    chans.append(Channel.make(3, "rotation", t, x_quats(swing + left_kink_deg * np.abs(np.sin(np.pi * u)))))
    chans.append(Channel.make(4, "rotation", t, x_quats(-swing)))
    return Clip(name=name, channels=chans)


def lint(tmp_path, capsys, *clips):
    for i, c in enumerate(clips):
        c.index = i
    sk = Skeleton.build(NAMES, [-1, 0, 0, 0, 0], [[0, 1, 0], [0.1, -0.9, 0], [-0.1, -0.9, 0], [0.2, 0.4, 0], [-0.2, 0.4, 0]])
    path = str(tmp_path / "mirror.glb")
    write_glb(Asset(skeleton=sk, clips=list(clips)), path)
    cfg = write_config(tmp_path / "a.toml", '[clips."*"]\nloop = true\nmovement_owner_xz = "gameplay"\n')
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", path], capsys)
    assert err == "" and code in (0, 1)
    return [f for f in validate_json(out)["files"][0]["findings"] if f["check_id"] in SEAM]


def test_the_hand_computed_changes():
    v = np.diff(foot_z(0)) * FPS
    changes = np.abs(np.diff(v))
    assert v[0] == pytest.approx(-1.0) and v[-1] == pytest.approx(2.5)
    assert abs(v[0] - v[-1]) == pytest.approx(3.5)  # the plant, at the seam
    assert changes.max() == pytest.approx(1.5)  # the lift: the largest change inside the clip


@pytest.mark.parametrize("start", [0, 5, 16, 20])
def test_a_clean_loop_passes_whichever_frame_it_starts_on(tmp_path, capsys, start):
    assert lint(tmp_path, capsys, clip(f"walk{start}", start)) == []


def test_a_pop_beside_a_clean_mirror_still_fails(tmp_path, capsys):
    """The left arm bounces across the wrap (its angular velocity flips: 3× its ordinary
    change); the right arm swings cleanly, so its inner changes are the ordinary ones."""
    (f,) = [f for f in lint(tmp_path, capsys, clip("pop", 5, left_kink_deg=25.0)) if f["check_id"] == "loop-seam-rot"]
    assert f["bone"] == "LeftArm" and f["severity"] == "error"


def test_seam_velocity_cap_exact():
    # steps .045/.035/−.035/−.045 m/s: largest inner change .07, 1.5x = .105 → cap .105 (0.09 passes);
    # .05/.03/−.03/−.05: inner .06 → 1.5x = .09 under the 0.1 floor, so the floor is the cap
    assert run_check("loop-seam-vel", guard(x=(0, 0.01125, 0.02, 0.01125, 0)), expect=LOOP)[0] == []  # 0.09
    assert run_check("loop-seam-vel", guard(x=(0, 0.0125, 0.02, 0.0125, 0)), expect=LOOP)[0] == []  # exactly 0.1
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.01375, 0.02, 0.01375, 0)), expect=LOOP)
    assert len(findings) == 1
    f = findings[0]
    assert (f.bone, f.time_s, f.expected) == ("root", 1.0, 0.1)
    assert f.measured == pytest.approx(0.11, abs=1e-6)


def test_seam_velocity_values():
    # out +1 m/s, in −1 m/s → 2.0; travelling at constant speed → 0 (closure fails, velocity clean)
    absolute = {"max_velocity_delta_mps": 0.1}
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.25, 0.5, 0.25, 0)), expect=LOOP, options=absolute)
    assert findings[0].measured == pytest.approx(2.0, abs=1e-6)
    # an open cycle (no travel bone: judged in model space) wraps from x = 1 back to 0 in one
    # 0.25 s frame: −4 m/s between steps of +1 m/s, a change of 5 m/s against none inside
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.25, 0.5, 0.75, 1.0)), expect=LOOP)
    assert findings[0].measured == pytest.approx(5.0, abs=1e-6) and findings[0].expected == pytest.approx(0.1)
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.025, 0.08, 0.05, 0)), expect=LOOP, options=absolute)
    assert findings[0].measured == pytest.approx(0.3, abs=1e-6)
    # by default the cap is relative: the triangle wave's seam change (2 m/s) is its ordinary
    # change at the turn-around (2 m/s inside the clip), so it passes
    assert run_check("loop-seam-vel", guard(x=(0, 0.25, 0.5, 0.25, 0)), expect=LOOP) == ([], [])


def test_seam_velocity_relative_cap_catches_three_times_the_inner_change():
    # step velocities 1, 1/3, −1/3, −1 m/s (keys .25 s apart, closing at 0): each inner change is
    # 2/3 m/s, the seam's (−1 → +1) is 2 m/s = 3x: cap max(0.1, 1.5 x 2/3) = 1.0 m/s
    x = np.cumsum([0.0, 0.25, 0.25 / 3, -0.25 / 3, -0.25])
    findings, _ = run_check("loop-seam-vel", guard(x=tuple(x)), expect=LOOP)
    assert len(findings) == 1
    f = findings[0]
    assert f.measured == pytest.approx(2.0, abs=1e-6) and f.expected == pytest.approx(1.0, abs=1e-6)
    assert (f.bone, f.time_s) == ("root", 1.0)
    assert "3.0x its largest step-to-step change inside the clip, 0.6667 m/s" in f.message
    # a ratio of 3.5 lets it through
    assert run_check("loop-seam-vel", guard(x=tuple(x)), expect=LOOP, options={"max_ratio": 3.0})[0] == []


def test_seam_messages_give_the_in_clip_reference():
    # x = 0, .25, .5, .25, 0 → step velocities +1, +1, −1, −1 m/s: largest in-clip change 2.0, seam 2.0
    findings, _ = run_check("loop-seam-vel", guard(x=(0, 0.25, 0.5, 0.25, 0)), expect=LOOP,
                            options={"max_velocity_delta_mps": 0.1})
    assert "inside the clip its largest step-to-step change is 2.0000 m/s" in findings[0].message
    findings, _ = run_check("loop-seam-rot", guard(rot_deg=(0, 10, 20, 10, 0)), expect=LOOP,
                            options={"max_angular_velocity_delta_degps": 5.0})
    assert "inside the clip its largest step-to-step change is 80.000 deg/s" in findings[0].message
