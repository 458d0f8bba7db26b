"""The per-leg measurements on their fast paths give the numbers the documented rules give.

Independent expectations: the stance and vertical-speed rules written out sample by sample
in plain Python floats (the same IEEE operations, so equal bit for bit), foot heights whose
stance samples, phase and noise floor are worked out by hand, and the DFT bin as its two
written-out sums.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from animsmith.core.contacts import stance_mask, vertical_speed_mps
from animsmith.core.gait import NOISE_AMPLITUDE_FRACTION, _dft_bin, leg_phases


def _speed_by_rule(h, t):
    """|dh/dt| of one foot, sample by sample as vertical_speed_mps's docstring says it."""
    n = len(h)
    out = []
    for i in range(n):
        before = after = math.nan
        if i > 0 and t[i] - t[i - 1] > 0:
            before = (h[i] - h[i - 1]) / (t[i] - t[i - 1])
        if i < n - 1 and t[i + 1] - t[i] > 0:
            after = (h[i + 1] - h[i]) / (t[i + 1] - t[i])
        if math.isfinite(before) and math.isfinite(after):
            v = (h[i + 1] - h[i - 1]) / (t[i + 1] - t[i - 1])
        elif math.isfinite(before):
            v = before
        else:
            v = after
        out.append(abs(v) if math.isfinite(v) else math.inf)
    return out


def _grids():
    rng = np.random.default_rng(7)
    t = np.cumsum(rng.uniform(0.01, 0.05, size=12))
    h = rng.normal(scale=0.1, size=(12, 3))
    yield "uneven steps", h, t
    yield "30 fps", 0.1 * np.sin(np.arange(31) / 5.0)[:, None], np.arange(31) / 30.0
    yield "two samples", h[:2], t[:2]
    yield "three samples", h[:3], t[:3]
    bad = h.copy()
    bad[4, 0] = math.nan
    bad[7, 1] = math.inf
    yield "non-finite heights", bad, t
    held = t.copy()
    held[5] = held[4]  # a repeated key time: no step on that side
    yield "repeated time", h, held
    yield "centimetre heights", h * 100.0, t


@pytest.mark.parametrize("name,h,t", list(_grids()), ids=[g[0] for g in _grids()])
def test_vertical_speed_is_the_sample_by_sample_rule_bit_for_bit(name, h, t):
    got = vertical_speed_mps(h, t)
    assert got.shape == h.shape
    for f in range(h.shape[1]):
        assert got[:, f].tolist() == _speed_by_rule(h[:, f].tolist(), t.tolist())


def test_stance_of_a_landing_foot_and_a_planted_one_by_hand():
    """Foot 0 lands and lifts: 0.5, 0.2, 0.0, 0.0, 0.01, 0.3 m at 0.1 s steps. Low (within
    0.03 m of its lowest) at samples 2-4; its vertical speed there is 1.0, 0.05 and 1.5 m/s
    (central differences), so only sample 3 is stance. Foot 1 stays on the ground: always
    stance. Foot 2 has a NaN sample: never stance there, judged on its finite side elsewhere."""
    t = np.arange(6) * 0.1
    h = np.array([
        [0.5, 0.0, 0.0],
        [0.2, 0.0, 0.0],
        [0.0, 0.0, math.nan],
        [0.0, 0.0, 0.0],
        [0.01, 0.0, 0.0],
        [0.3, 0.0, 0.0],
    ])
    st = stance_mask(h, 0.03, t)
    assert st[:, 0].tolist() == [False, False, False, True, False, False]
    assert st[:, 1].all()
    assert st[:, 2].tolist() == [True, True, False, True, True, True]
    # the height rule alone keeps all three low samples of foot 0
    assert stance_mask(h, 0.03)[:, 0].tolist() == [False, False, True, True, True, False]


@pytest.mark.parametrize("length", [3, 4, 7, 8, 9, 16, 17, 30, 31, 64, 129])
@pytest.mark.parametrize("harmonic", [1, 2, 3])
def test_dft_bin_of_every_row_is_each_rows_two_sums(length, harmonic):
    rng = np.random.default_rng(length * 3 + harmonic)
    rows = rng.normal(size=(5, length))
    re, im = _dft_bin(rows, harmonic)
    for r in range(5):
        ang = 2.0 * np.pi * np.arange(length) * harmonic / length
        assert float(re[r]) == float(np.sum(rows[r] * np.cos(ang)))
        assert float(im[r]) == float(np.sum(rows[r] * np.sin(ang)))
        assert _dft_bin(rows[r], harmonic) == (float(re[r]), float(im[r]))


def _phases(pos, harmonic, periodic):
    """leg_phases of the feet pos[:, 1:] under the body pos[:, 0] (positions (N, 1 + L, 3))."""
    grid = SimpleNamespace(frame_count=pos.shape[0], model_positions_m=lambda bones: pos[:, bones])
    legs = SimpleNamespace(body=0, legs=[SimpleNamespace(foot=1 + i) for i in range(pos.shape[1] - 1)])
    return leg_phases(grid, legs, harmonic, periodic)


def _one_foot(swing_m, offset_m=0.0, frames=41):
    """A body held at x = ``offset_m`` and one foot 1 m below it whose height swings by
    ``swing_m`` peak to peak, lowest a quarter of the way into the cycle."""
    t = np.arange(frames) / (frames - 1)
    pos = np.zeros((frames, 2, 3))
    pos[:, :, 0] = offset_m
    pos[:, 1, 1] = -1.0 + 0.5 * swing_m * (1.0 - np.cos(2 * np.pi * (t - 0.25)))
    return pos


@pytest.mark.parametrize("offset_m", [0.0, 1000.0])
def test_the_noise_floor_is_the_mean_hips_to_foot_distance_wherever_the_rig_stands(offset_m):
    """The floor is 1e-6 x the mean hips-to-foot distance (1 m here, to within the swing):
    a 2 µm swing is a foot-height cycle with phase 0.25 and a 0.5 µm swing is not, also
    with the whole rig 1 km from the origin (where the coordinates alone would suggest a
    floor of a millimetre)."""
    assert NOISE_AMPLITUDE_FRACTION == 1e-6
    ((phase, why),) = _phases(_one_foot(2e-6, offset_m), 1, False)
    assert why is None and phase == pytest.approx(0.25, abs=1e-6)
    ((phase, why),) = _phases(_one_foot(0.5e-6, offset_m), 1, True)
    assert phase is None and why.startswith("no foot-height swing")


def test_positions_too_large_to_measure_safely_keep_their_reasons():
    """A foot at 1e200 m: its height swing and phase are still measured on their own terms
    (the foot 1e200 m below a body at the origin swings by 1e197 m)."""
    pos = _one_foot(0.0)
    pos[:, 1, 1] = -1e200 + 1e197 * np.sin(2 * np.pi * np.arange(41) / 40)
    with np.errstate(over="ignore"):  # the mean distance overflows; the swing does not
        ((phase, why),) = _phases(pos, 1, True)
        assert why is None and phase == pytest.approx(0.75, abs=1e-6)  # lowest at t = 0.75
        pos[3, 0, 1] = math.inf  # the body's height
        ((phase, why),) = _phases(pos, 1, True)
    assert phase is None and why == "non-finite foot or body positions"


# ---------------------------------------------------------------------------
# one stance decision for the foot-slide check and the duty factors
# ---------------------------------------------------------------------------


def _lint_one_clip(tmp_path, clip, monkeypatch):
    """Judge ``clip`` (on the test biped) as lint does with a speed pin, then measure it;
    returns (its legs measurements, how many times the stance was decided)."""
    from support.builders import biped_asset

    import animsmith.core.contacts as contacts
    from animsmith.checks import load_contract
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.lint.engine import rig_in_metres, run_clip_checks
    from animsmith.lint.plan import make_plan

    toml = tmp_path / "animsmith.toml"
    toml.write_text('[clips."*"]\nspeed_mps = 1.0\n', encoding="utf-8")
    contract = load_contract(str(toml))
    plan = make_plan(contract, None, True)
    asset, roles = rig_in_metres(biped_asset([clip]), contract)
    calls = []
    decide = contacts.feet_stance

    def counted(*args, **kwargs):
        calls.append(args[2])
        return decide(*args, **kwargs)

    monkeypatch.setattr(contacts, "feet_stance", counted)
    analysis = ClipAnalysis(asset, asset.clips[0], roles)
    findings, _ = run_clip_checks("walk.glb", asset, analysis, roles, plan)
    assert {f.check_id for f in findings} == {"foot-slide"}  # the check judged the stance
    m = analysis.measurements(**plan.measurement_options)
    return m, calls, analysis


def test_the_check_and_the_duty_factors_share_one_stance(tmp_path, monkeypatch):
    """Feet at 0.1 + 0.05·sin(2πt) m (left) and its mirror (right), 30 samples a cycle.
    By hand: the left foot is within 0.03 m of its lowest for sin ≤ −0.3945 (samples
    17-28) and its central vertical speed 0.312·|cos(12°·i)| m/s is at most 0.1 at
    samples 21-24 only: a duty factor of 4/30; the right foot's (samples 6-9) too. The
    foot-slide check decided that stance first; the measurement reads the same one."""
    from support.builders import gait_clip

    m, calls, analysis = _lint_one_clip(tmp_path, gait_clip("walk", velocity_mps=(0.0, 0.0, 1.0)), monkeypatch)
    assert [leg["duty_factor"] for leg in m["legs"]] == [4 / 30, 4 / 30]
    assert len(calls) == 1
    stance = analysis.feet_stance([2, 3], analysis.grid.model_positions_m([2, 3]), analysis.grid.times_s, 0.03)[0]
    assert np.flatnonzero(stance[:, 0]).tolist() == [21, 22, 23, 24]
    assert len(calls) == 1  # asked again with the same inputs: no new decision
    with pytest.raises(ValueError):
        stance[0, 0] = True  # shared, so read-only


def test_a_clip_starting_late_decides_each_grids_stance(tmp_path, monkeypatch):
    """Keys from 1/30 s (as many exporters write them): the check judges the keys' own
    span and the duty factor the grid from 0 s, so each decides its own stance."""
    from support.builders import gait_clip

    clip = gait_clip("walk", velocity_mps=(0.0, 0.0, 1.0))
    for ch in clip.channels:
        ch.times = (ch.times + np.float32(1.0 / 30.0)).astype(np.float32)
    m, calls, _ = _lint_one_clip(tmp_path, clip, monkeypatch)
    assert len(calls) == 2
    assert all(leg["duty_factor"] is not None for leg in m["legs"])
