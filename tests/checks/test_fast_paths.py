"""The per-clip checks' fast paths give the same findings and gaps as the general paths.

Every fast path (``animsmith.checks._clip.FAST_PATHS``) only decides, from
whole-clip facts shared by the checks, that a check has nothing to report and
returns early; otherwise the general path runs. These tests run each check on
many clips — clean ones, broken ones and ones sitting exactly on a threshold —
with the fast paths on and off and require identical output, and test each
"provably nothing to report" decision against an independent float64
computation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.checks import _clip, bind_pose
from animsmith.checks._clip import ClipFacts, clip_facts
from animsmith.checks.context import ClipContext
from animsmith.core.analysis import ClipAnalysis
from animsmith.model import Asset, Channel, Clip, Skeleton

from checks_support import run_check

CHECKS = [
    "nan",
    "time-monotonic",
    "quat-norm",
    "quat-flip",
    "duration-sanity",
    "constant-track",
    "bind-pose",
    "duplicate-loop-endpoint",
    "loop-closure",
]
NAMES = ["hips", "spine", "chest", "neck", "head", "arm"]


def skeleton(rest=None):
    return Skeleton.build(NAMES, [-1, 0, 1, 2, 3, 2], [[0, 0.1 * i, 0] for i in range(6)], rest_rotation=rest)


def yquat(angle_rad):
    a = np.asarray(angle_rad, dtype=np.float64)
    return np.stack([np.zeros_like(a), np.sin(a / 2), np.zeros_like(a), np.cos(a / 2)], axis=-1)


def random_quats(rng, n, step=0.3):
    """n unit quaternions walking by up to ``step`` radians per key (no hemisphere flip)."""
    q = [np.array([0.0, 0.0, 0.0, 1.0])]
    for _ in range(n - 1):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        h = rng.uniform(0, step) / 2
        d = np.array([*(axis * math.sin(h)), math.cos(h)])
        a, b = q[-1], d
        q.append(
            np.array(
                [
                    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
                ]
            )
        )
    return np.array(q)


def random_clip(rng, defect: str) -> Asset:
    """A clip of 6 rotation channels + hips translation with one kind of defect.

    The channels share one key-time array (as the loader gives channels with one
    sampler input) unless ``defect`` is "own-times" or replaces a channel.
    """
    n = int(rng.integers(1, 9))
    times = np.arange(n, dtype=np.float64) / 30.0
    rest = None
    chans = []
    for bone in range(6):
        q = random_quats(rng, n)
        chans.append(Channel.make(bone, "rotation", times, q))
    chans.append(Channel.make(0, "translation", times, rng.normal(size=(n, 3))))
    if defect != "own-times":
        shared = chans[0].times
        for ch in chans:
            ch.times = shared
        if defect == "shared-nan-time":
            shared[int(rng.integers(0, n))] = np.nan
        elif defect == "shared-non-increasing" and n > 2:
            shared[-1] = shared[-2]
        elif defect == "shared-negative":
            shared -= rng.choice([1e-4, 1.5e-4, 1e-3])
    k = int(rng.integers(0, n))
    c = int(rng.integers(0, 6))
    v = chans[c].values
    if defect == "nan-value":
        v[k, int(rng.integers(0, 4))] = np.nan
    elif defect == "inf-value":
        chans[6].values[k, 1] = -np.inf
    elif defect == "nan-time":
        chans[c] = Channel.make(c, "rotation", np.where(np.arange(n) == k, np.nan, times), v)
    elif defect == "non-increasing" and n > 2:
        bad = times.copy()
        bad[k] = bad[max(k - 1, 0)]
        chans[c] = Channel.make(c, "rotation", bad, v)
    elif defect == "negative":
        chans[c] = Channel.make(c, "rotation", times - 1e-3, v)
    elif defect == "short-channel":
        chans[c] = Channel.make(c, "rotation", times[: max(n - 1, 1)], v[: max(n - 1, 1)])
    elif defect == "non-unit":
        v[k] *= 1.0 + rng.choice([-1, 1]) * rng.choice([5e-4, 1e-3, 2e-3, 0.5])
    elif defect == "flip":
        v[k:] *= -1.0
    elif defect == "constant":
        v[:] = v[0]
    elif defect == "near-constant":
        v[:] = yquat([0.0] + [rng.choice([0.999e-3, 1e-3, 1.001e-3])] * (n - 1))
    elif defect == "bind":
        rest = yquat(rng.uniform(0, 3.0, size=6))
    elif defect == "zero-key":
        chans[c] = Channel.make(c, "rotation", [], np.zeros((0, 4)))
    elif defect == "single-key":
        chans[c] = Channel.make(c, "rotation", times[:1], v[:1])
    elif defect == "cubic-nan":
        tan = np.zeros((n, 3))
        tan[k, 0] = np.nan
        chans[6] = Channel.make(0, "translation", times, chans[6].values, "CUBICSPLINE", tan, np.zeros((n, 3)))
    elif defect == "zero-quat":
        v[0] = 0.0
    elif defect == "out-of-range-bone":
        chans[c] = Channel.make(17, "rotation", times, v, node=17)
    return Asset(skeleton=skeleton(rest), clips=[Clip(name="walk", channels=chans)])


DEFECTS = [
    "none",
    "own-times",
    "shared-nan-time",
    "shared-non-increasing",
    "shared-negative",
    "nan-value",
    "inf-value",
    "nan-time",
    "non-increasing",
    "negative",
    "short-channel",
    "non-unit",
    "flip",
    "constant",
    "near-constant",
    "bind",
    "zero-key",
    "single-key",
    "cubic-nan",
    "zero-quat",
    "out-of-range-bone",
]


def both_paths(monkeypatch, check_id, asset, **kw):
    """(fast output, general output) of one check, as comparable tuples."""
    out = []
    for fast in (True, False):
        monkeypatch.setattr(_clip, "FAST_PATHS", fast)
        findings, gaps = run_check(check_id, asset, **kw)
        out.append(([vars(f) for f in findings], [vars(g) for g in gaps]))
    return out


@pytest.mark.parametrize("defect", DEFECTS)
def test_fast_and_general_paths_agree_on_random_clips(monkeypatch, defect):
    rng = np.random.default_rng(DEFECTS.index(defect))
    for _ in range(12):
        asset = random_clip(rng, defect)
        for check_id in CHECKS:
            fast, general = both_paths(monkeypatch, check_id, asset, expect={"loop": True})
            assert fast == general, (defect, check_id)


def test_fast_paths_are_taken_on_a_clean_clip():
    asset = random_clip(np.random.default_rng(1), "none")
    clip = asset.clips[0]
    facts = ClipFacts(clip)
    rot = facts.flat("rotation")
    assert facts.all_finite and facts.key_times.increasing and facts.key_times.count == 1
    assert rot.norms_within(1e-3) and rot.no_hemisphere_flips() and rot.all_rotations_move(1e-3)
    count, mean = bind_pose.rough_rest_deltas(asset.skeleton, ClipFacts(clip).flat("rotation"))
    assert count == 6 and mean is not None
    own = ClipFacts(random_clip(np.random.default_rng(1), "own-times").clips[0]).key_times
    assert own.count == 7 and own.increasing and own.end_spread_s == 0.0


# ------------------------------------------------------------ thresholds hit exactly


def lengths(q):
    return np.linalg.norm(np.asarray(q, dtype=np.float32).astype(np.float64), axis=-1)


def test_quat_norm_tolerance_at_the_measured_error(monkeypatch):
    q = yquat([0.0, 0.4, 0.8])
    q[1] *= 1.0 + 2.0**-10
    asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [Channel.make(1, "rotation", [0, 0.5, 1], q)])])
    err = float(abs(lengths(asset.clips[0].channels[0].values)[1] - 1.0))
    for tol in (err, np.nextafter(err, 0), np.nextafter(err, 1), err * (1 - 1e-10), err * (1 + 1e-10)):
        fast, general = both_paths(monkeypatch, "quat-norm", asset, options={"tolerance": float(tol)})
        assert fast == general
    # the decision itself: True only when every |‖q‖ − 1| ≤ tolerance (independent float64 norm)
    rot = ClipFacts(asset.clips[0]).flat("rotation")
    assert not rot.norms_within(err) and rot.norms_within(err + 2e-9)


def test_quat_flip_dot_near_zero(monkeypatch):
    for d in (0.0, 1e-30, -1e-30, 1e-7, -1e-7, 1e-6):
        q = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, d]])  # dot(q1, q2) = d
        asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [Channel.make(1, "rotation", [0, 0.5, 1], q)])])
        fast, general = both_paths(monkeypatch, "quat-flip", asset)
        assert fast == general
        v = asset.clips[0].channels[0].values.astype(np.float64)
        dots = np.sum(v[:-1] * v[1:], axis=1)
        if ClipFacts(asset.clips[0]).flat("rotation").no_hemisphere_flips():
            assert np.all(dots > 0)


def angle_rad(a, b):
    """Angle between two quaternions, independent formula: 2·atan2(|vector part of â*·b̂|, |scalar part|)."""
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    v = a[3] * b[:3] - b[3] * a[:3] - np.cross(a[:3], b[:3])
    return 2.0 * math.atan2(np.linalg.norm(v), abs(a @ b))


@pytest.mark.parametrize("scale", [1 - 1e-9, 1.0, 1 + 1e-9, 1 - 1e-6, 1 + 1e-6])
def test_constant_rotation_epsilon_at_the_measured_angle(monkeypatch, scale):
    q = yquat([0.0, 3e-3, 1.5e-3])
    asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [Channel.make(1, "rotation", [0, 0.5, 1], q)])])
    v = asset.clips[0].channels[0].values.astype(np.float64)
    angle = max(angle_rad(v[0], r) for r in v)
    eps = angle * scale
    fast, general = both_paths(monkeypatch, "constant-track", asset, options={"rotation_epsilon_rad": eps})
    assert fast == general
    if ClipFacts(asset.clips[0]).flat("rotation").all_rotations_move(eps):
        assert angle > eps


def test_constant_rotation_at_exactly_its_epsilon_is_a_note(monkeypatch):
    """"every key is within rotation_epsilon_rad" is <=: with the epsilon set to each
    channel's own largest angle (independent formula), every channel gets its note on
    both paths; one float step below, none does. (A pre-filter computing the angle by
    acos came out ~1e-13 rad above atan2 and dropped channels before the exact test.)"""
    rng = np.random.default_rng(11)
    notes = misses = 0
    for _ in range(60):
        q = yquat(rng.uniform(-2e-3, 2e-3, 3).tolist())
        asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [Channel.make(1, "rotation", [0, 0.5, 1], q)])])
        v = asset.clips[0].channels[0].values.astype(np.float64)
        angle = max(angle_rad(v[0], r) for r in v)
        if angle == 0.0:
            continue
        fast, general = both_paths(monkeypatch, "constant-track", asset, options={"rotation_epsilon_rad": angle})
        assert fast == general
        notes += len(fast[0]) == 1
        below = np.nextafter(angle * (1 - 1e-9), 0.0)
        fast_b, general_b = both_paths(monkeypatch, "constant-track", asset, options={"rotation_epsilon_rad": below})
        assert fast_b == general_b and fast_b[0] == []
        misses += len(fast[0]) == 0
    # the check's own angle formula may differ from the independent one in the last bit,
    # more often with other numpy/libm builds (numpy 2.4: 60 of 60 noted; 1.24: 54); a
    # strict < would note almost none
    assert notes >= 45 and misses <= 15


def test_constant_rotation_with_a_small_epsilon_is_not_dropped_by_the_prefilter(monkeypatch):
    """A reviewer's case: two keys 9.999999902e-05 rad apart (atan2 formula) at epsilon 1e-4.
    The acos pre-filter read the angle ~6e-8 rad high and dropped the channel."""
    q = np.array([[0.45605137944221497, -0.7400529980659485, 0.022914616391062737, -0.4937748908996582],
                  [0.4560535252094269, -0.7400551438331604, 0.02286479063332081, -0.493772029876709]])
    asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [Channel.make(1, "rotation", [0, 1], q)])])
    v = asset.clips[0].channels[0].values.astype(np.float64)
    assert angle_rad(v[0], v[1]) < 1e-4  # the premise, by the independent formula
    fast, general = both_paths(monkeypatch, "constant-track", asset, options={"rotation_epsilon_rad": 1e-4})
    assert fast == general and len(fast[0]) == 1


def test_a_constant_rotation_is_constant_at_epsilon_zero(monkeypatch):
    """Identical keys are 0 rad apart: noted even with rotation_epsilon_rad = 0 (the angle
    formula left ~1e-17 rad for a non-identity quaternion)."""
    q = np.tile(np.array([0.3, 0.5, -0.2, 0.7]) / np.linalg.norm([0.3, 0.5, -0.2, 0.7]), (3, 1))
    asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [Channel.make(1, "rotation", [0, 0.5, 1], q)])])
    fast, general = both_paths(monkeypatch, "constant-track", asset, options={"rotation_epsilon_rad": 0.0})
    assert fast == general and len(fast[0]) == 1 and fast[0][0]["measured"] == 0.0


def test_quat_norm_at_exactly_its_tolerance_never_contradicts_itself(monkeypatch):
    """"off by more than the tolerance": with the tolerance set exactly to a key's
    error |‖q‖ − 1| (as the check words its count), no finding may say "0 key(s) off"
    (the channel was picked by a differently rounded norm), and one float step below
    it the key must be reported (it was sometimes missed for the same reason)."""
    from animsmith.checks import quat_norm

    rng = np.random.default_rng(1)
    monkeypatch.setattr(_clip, "FAST_PATHS", False)
    for _ in range(1500):
        q = rng.normal(size=4)
        q = q / np.linalg.norm(q) * (1 + rng.choice([1e-3, 2e-3, 5e-4]) * rng.choice([-1, 1]))
        asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [Channel.make(1, "rotation", [0, 1], [[0, 0, 0, 1.0], q])])])
        err = float(quat_norm.norm_errors(asset.clips[0].channels[0].values)[1])
        at, _ = run_check("quat-norm", asset, options={"tolerance": err})
        assert at == [], at[0].message
        below, _ = run_check("quat-norm", asset, options={"tolerance": float(np.nextafter(err, 0.0))})
        assert len(below) == 1 and " 1 key(s) off" in below[0].message


@pytest.mark.parametrize("fast", [True, False])
def test_durations_authored_exactly_at_a_bound_pass(monkeypatch, fast):
    """0.517 s against 0.5 ± 0.017 is stored as 0.51700002 (float32) and passes; the
    next float32 up fails. Channels ending 1.0 and 0.983 are 0.017 apart as authored
    (0.01700002 after storage): no warning at a 0.017 cap; 0.9829 is a warning."""
    monkeypatch.setattr(_clip, "FAST_PATHS", fast)

    def clip(last_a, last_b=None):
        chans = [Channel.make(1, "translation", [0.0, 0.25, last_a], np.zeros((3, 3)))]
        if last_b is not None:
            chans.append(Channel.make(2, "translation", [0.0, 0.25, last_b], np.zeros((3, 3))))
        return Asset(skeleton=skeleton(), clips=[Clip("walk", chans)])

    assert float(np.float32(0.517)) > 0.517  # the premise: storage rounds up past the bound
    pin = {"duration_s": 0.5, "duration_tolerance_s": 0.017}
    assert run_check("duration-sanity", clip(0.517), expect=pin) == ([], [])
    assert run_check("duration-sanity", clip(0.483), expect=pin) == ([], [])
    over = float(np.nextafter(np.float32(0.517), np.float32(1)))
    findings, _ = run_check("duration-sanity", clip(over), expect=pin)
    assert len(findings) == 1 and "disagrees with the declared" in findings[0].message
    spread = {"max_end_spread_s": 0.017}
    assert float(np.float32(1.0)) - float(np.float32(0.983)) > 0.017  # the premise again
    assert run_check("duration-sanity", clip(1.0, 0.983), options=spread) == ([], [])
    findings, _ = run_check("duration-sanity", clip(1.0, 0.9829), options=spread)
    assert len(findings) == 1 and "channels end at different times" in findings[0].message
    # the documented rule alone decides: max(end) > f32(min(end) + cap) (a reviewer's pair, where
    # the float64 spread is under the cap but float32 storage puts the ends apart)
    lo, hi, cap = 0.11268353, 0.8126835, 0.7
    expect_apart = bool(np.float32(hi) > np.float32(float(np.float32(lo)) + cap))
    findings, _ = run_check("duration-sanity", clip(hi, lo), options={"max_end_spread_s": cap})
    assert bool(findings) == expect_apart
    # a cap beyond float32's range never warns; huge key times are judged in float32 too
    assert run_check("duration-sanity", clip(3e38, -3e38), options={"max_end_spread_s": 1e39}) == ([], [])
    findings, _ = run_check("duration-sanity", clip(1e8, 99999984.0), options={"max_end_spread_s": 5.0})
    assert len(findings) == 1  # 16 s apart at a float32 step of 8 s: f32(99999984 + 5) = 99999992 < 1e8


def test_quat_norm_huge_tolerance_does_not_overflow(monkeypatch):
    """(1 + tolerance)² overflowed for a tolerance of 1e154 or more (a check_failed gap)."""
    q = [[0, 0, 0, 1.0], [0, 0, 0, 2.0]]
    asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [Channel.make(1, "rotation", [0, 1], q)])])
    for tol in (1e154, 1e200, 1.7e308):
        fast, general = both_paths(monkeypatch, "quat-norm", asset, options={"tolerance": tol})
        assert fast == general == ([], [])


def test_channels_without_keys_do_not_crash_a_check(monkeypatch):
    """A clip built in memory whose channels hold no key (the loader refuses such
    accessors): every clip check answers on both paths, none raises."""
    from animsmith.checks import registry

    empty = Channel.make(1, "rotation", np.zeros(0), np.zeros((0, 4)))
    asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [empty])])
    for spec in registry().values():
        if spec.scope == "clip":
            fast, general = both_paths(monkeypatch, spec.id, asset)
            assert fast == general, spec.id


@pytest.mark.parametrize("epsilon", [-1.0, 0.0, 3.0, math.pi, 7.0, 4 * math.pi, float("nan")])
def test_constant_rotation_epsilon_out_of_the_fast_range(monkeypatch, epsilon):
    asset = random_clip(np.random.default_rng(3), "none")
    fast, general = both_paths(monkeypatch, "constant-track", asset, options={"rotation_epsilon_rad": epsilon})
    assert fast == general


@pytest.mark.parametrize("delta", [-2e-3, -1e-3, -1e-4, 0.0, 1e-4, 1e-3])
def test_bind_pose_cap_near_the_mean(monkeypatch, delta):
    firsts = [10.0, 20.0, 33.0]
    chans = [Channel.make(b, "rotation", [0, 1], yquat([math.radians(a), 0.0])) for b, a in zip((1, 2, 3), firsts)]
    asset = Asset(skeleton=skeleton(), clips=[Clip("walk", chans)])
    exact = float(np.mean([d for _, d in bind_pose.first_frame_rest_deltas_deg(asset.skeleton, asset.clips[0])]))
    count, rough = bind_pose.rough_rest_deltas(asset.skeleton, ClipFacts(asset.clips[0]).flat("rotation"))
    assert count == 3 and abs(rough - exact) < 1e-5
    fast, general = both_paths(monkeypatch, "bind-pose", asset, options={"max_mean_rest_delta_deg": exact + delta})
    assert fast == general


def test_bind_pose_rough_mean_matches_the_exact_formula():
    rng = np.random.default_rng(5)
    for _ in range(50):
        asset = random_clip(rng, "bind")
        deltas = bind_pose.first_frame_rest_deltas_deg(asset.skeleton, asset.clips[0])
        count, rough = bind_pose.rough_rest_deltas(asset.skeleton, ClipFacts(asset.clips[0]).flat("rotation"))
        assert count == len(deltas)
        assert abs(rough - float(np.mean([d for _, d in deltas]))) < 1e-5


@pytest.mark.filterwarnings("ignore:overflow encountered")  # the general path normalises 1e200
def test_bind_pose_extreme_rest_lengths_fall_back(monkeypatch):
    for scale in (1e-30, 1e30, 1e-200, 1e200):
        rest = np.tile([0.0, 0.0, 0.0, scale], (6, 1))
        chans = [Channel.make(b, "rotation", [0, 1], yquat([0.5, 0.0])) for b in (1, 2, 3)]
        asset = Asset(skeleton=skeleton(rest), clips=[Clip("walk", chans)])
        fast, general = both_paths(monkeypatch, "bind-pose", asset, options={"max_mean_rest_delta_deg": 28.0})
        assert fast == general


@pytest.mark.parametrize("spread", [0.0, 0.017, 0.0171, -1.0])
def test_duration_end_spread_cap(monkeypatch, spread):
    a = Channel.make(1, "rotation", [0, 0.5, 1.0], yquat([0.0, 0.4, 0.8]))
    b = Channel.make(2, "rotation", [0, 0.5, 0.983], yquat([0.0, 0.4, 0.8]))
    asset = Asset(skeleton=skeleton(), clips=[Clip("walk", [a, b])])
    fast, general = both_paths(monkeypatch, "duration-sanity", asset, options={"max_end_spread_s": spread})
    assert fast == general


def _contexts(asset, clip, count=2):
    """``count`` contexts of one clip sharing one analysis, as the lint engine builds them."""
    analysis = ClipAnalysis(asset, clip, None)
    return [
        ClipContext(check_id=f"c{i}", severity="error", path="<memory>", asset=asset, clip=clip, analysis=analysis,
                    roles=None, expect=None, options={}, contract=None)
        for i in range(count)
    ]


def test_facts_follow_a_replaced_channel():
    asset = random_clip(np.random.default_rng(7), "none")
    clip = asset.clips[0]
    ctx, _ = _contexts(asset, clip)
    assert clip_facts(ctx).all_finite
    bad = clip.channels[2].values.copy()
    bad[0, 0] = np.nan
    clip.channels[2] = Channel.make(2, "rotation", clip.channels[2].times, bad)
    assert not clip_facts(ctx).all_finite
    assert len(run_check("nan", asset)[0]) == 1


def test_facts_are_held_by_the_clips_analysis():
    asset = random_clip(np.random.default_rng(8), "none")
    clip = asset.clips[0]
    one, two = _contexts(asset, clip)
    assert clip_facts(one) is clip_facts(two)  # every check of the clip shares them
    (other,) = _contexts(asset, clip, 1)
    assert clip_facts(other) is not clip_facts(one)  # another analysis, facts of its own
    one.analysis.check_state.clear()  # what the lint engine does once the clip is judged
    assert clip_facts(one) is clip_facts(two) and clip_facts(one) is not clip_facts(other)
