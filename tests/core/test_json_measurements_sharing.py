"""The JSON measurements computed once per file or vectorised over bones and legs give the
numbers an independent computation gives: a hand-computed pose, or the clip-by-clip,
bone-by-bone path they replace, byte for byte."""

from __future__ import annotations

import math

import numpy as np
import pytest

from animsmith.core.analysis import ClipAnalysis, prime_loop_continuity
from animsmith.core.pose import pose_grid
from animsmith.core.roles import resolve_roles
from animsmith.core.seam import closed_loop_continuity_many, loop_continuity, seam_sample_frames
from animsmith.model import Asset, Channel, Clip, Skeleton

CONTINUITY_FIELDS = ("position_delta_m", "rotation_delta_deg", "seam_velocity_delta_mps", "seam_angular_velocity_delta_degps")


def _quats(rng, n):
    """n random unit quaternions (x, y, z, w)."""
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


#: a 7-bone tree with two branches (each bone's parent)
PARENTS = [-1, 0, 1, 2, 1, 4, 0]


def _skeleton():
    rng = np.random.default_rng(5)
    rest = {"rest_translation": rng.normal(size=(7, 3)), "rest_rotation": _quats(rng, 7), "rest_scale": np.ones((7, 3))}
    return Skeleton.build([f"b{i}" for i in range(7)], PARENTS, **rest)


def _clip(seed, frames=9, bad=None):
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0 + 0.1 * seed, frames)
    chans = [Channel.make(0, "translation", t, rng.normal(size=(frames, 3)))]
    chans += [Channel.make(b, "rotation", t, _quats(rng, frames)) for b in range(6)]
    if bad is not None:
        chans[1].values[-1, 0] = bad
    return Clip(f"c{seed}", chans)


def _seams(sk, clip):
    grid = pose_grid(sk, clip)
    p, q = grid.model_pose_at(seam_sample_frames(grid.frame_count))
    return grid, (grid.times_s, p, q)


# ---------------------------------------------------------------------------
# loop continuity of a file's clips in one pass
# ---------------------------------------------------------------------------


def test_continuity_of_a_slide_and_a_turn_by_hand():
    """One bone sliding 0.3 m/s along X and turning 90°/s about Y over 1 s (31 samples):
    the wrap is 0.3 m and 90°, and the seam velocity changes are 0 (a constant pace
    on both sides of the wrap), computed by hand, not by the code."""
    sk = Skeleton.build(["root"], [-1], rest_translation=np.zeros((1, 3)), rest_rotation=np.array([[0.0, 0.0, 0.0, 1.0]]),
                        rest_scale=np.ones((1, 3)))
    t = np.linspace(0.0, 1.0, 31)
    pos = np.stack([0.3 * t, np.zeros_like(t), np.zeros_like(t)], axis=1)
    half = np.radians(90.0 * t) / 2.0
    rot = np.stack([np.zeros_like(t), np.sin(half), np.zeros_like(t), np.cos(half)], axis=1)
    clip = Clip("slide", [Channel.make(0, "translation", t, pos), Channel.make(0, "rotation", t, rot)])
    _, sample = _seams(sk, clip)
    (lc,) = closed_loop_continuity_many([sample])
    assert lc.position_delta_m[0] == pytest.approx(0.3, abs=1e-6)
    assert lc.rotation_delta_deg[0] == pytest.approx(90.0, abs=1e-4)
    assert lc.seam_velocity_delta_mps[0] == pytest.approx(0.0, abs=1e-4)
    assert lc.seam_angular_velocity_delta_degps[0] == pytest.approx(0.0, abs=1e-2)


def test_many_clips_in_one_pass_give_each_clip_its_own_bytes():
    sk = _skeleton()
    clips = [_clip(1), _clip(2, frames=12), _clip(3, frames=5), _clip(4, frames=30)]
    samples = [_seams(sk, c)[1] for c in clips]
    together = closed_loop_continuity_many(samples)
    for clip, lc in zip(clips, together):
        alone = loop_continuity(pose_grid(sk, clip))
        assert lc is not None and alone.unavailable is None
        for name in CONTINUITY_FIELDS:
            assert getattr(lc, name).tobytes() == getattr(alone, name).tobytes(), (clip.name, name)


def test_an_unusable_clip_is_left_to_the_clip_by_clip_path():
    """A non-finite pose, or too few samples, is not measured in the batch (None), and the
    other clips' numbers do not change; loop_continuity says why on its own."""
    sk = _skeleton()
    clips = [_clip(1), _clip(2, bad=np.nan), _clip(3, frames=2), _clip(4)]
    samples = []
    for c in clips:
        grid = pose_grid(sk, c)
        n = grid.frame_count
        frames = seam_sample_frames(n) if n >= 3 else [0, 0, 0, 0]
        p, q = grid.model_pose_at(frames)
        samples.append((grid.times_s, p, q))
    got = closed_loop_continuity_many(samples)
    assert got[1] is None and got[2] is None
    assert loop_continuity(pose_grid(sk, clips[1])).unavailable == "non-finite or zero-length pose at a loop endpoint"
    for k in (0, 3):
        alone = loop_continuity(pose_grid(sk, clips[k]))
        for name in CONTINUITY_FIELDS:
            assert getattr(got[k], name).tobytes() == getattr(alone, name).tobytes()


def test_priming_a_file_fills_every_clips_continuity_with_its_own_bytes():
    sk = _skeleton()
    asset = Asset(skeleton=sk, clips=[_clip(1), _clip(2, frames=12), _clip(5, bad=np.inf), _clip(6)])
    roles = resolve_roles(sk)
    primed = [ClipAnalysis(asset, c, roles) for c in asset.clips]
    prime_loop_continuity(primed)
    assert ["continuity" in a.__dict__ for a in primed] == [True, True, False, True]
    for a in primed:
        alone = ClipAnalysis(asset, a.clip, roles).continuity
        assert a.continuity.unavailable == alone.unavailable
        for name in CONTINUITY_FIELDS:
            assert np.asarray(getattr(a.continuity, name)).tobytes() == np.asarray(getattr(alone, name)).tobytes()
        assert a.continuity.worst("rotation_delta_deg") == alone.worst("rotation_delta_deg")


# ---------------------------------------------------------------------------
# the duplicated-endpoint test: one concatenation per path, shared
# ---------------------------------------------------------------------------


def _loop_clip(last_offset_m=0.0, extra=()):
    """Bone 1 turns 0 → 60° → 0 about Y and bone 0 slides out and back: the last key
    repeats the first unless ``last_offset_m`` moves bone 0's last key along X."""
    t = np.array([0.0, 0.5, 1.0])
    half = np.radians([0.0, 60.0, 0.0]) / 2.0
    rot = np.stack([np.zeros(3), np.sin(half), np.zeros(3), np.cos(half)], axis=1)
    pos = np.array([[0.0, 1.0, 0.0], [0.2, 1.0, 0.0], [last_offset_m, 1.0, 0.0]])
    return Clip("loop", [Channel.make(0, "translation", t, pos), Channel.make(1, "rotation", t, rot), *extra])


def _two_bones():
    return Skeleton.build(["hips", "spine"], [-1, 0], rest_translation=np.zeros((2, 3)),
                          rest_rotation=np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), rest_scale=np.ones((2, 3)))


def test_duplicated_endpoint_by_hand():
    from animsmith.core.analysis import duplicated_endpoint

    sk = _two_bones()
    assert duplicated_endpoint(_loop_clip(), sk) == (True, None)
    # 1 mm off at the end: more than the 0.1 mm tolerance
    assert duplicated_endpoint(_loop_clip(0.001), sk) == (False, "a translation channel's last key differs from its first")
    # 0.05 mm off: float noise, the same pose
    assert duplicated_endpoint(_loop_clip(0.00005), sk) == (True, None)


def test_a_one_key_channel_takes_no_part_in_the_ends_but_in_finiteness():
    from animsmith.core.analysis import duplicated_endpoint

    sk = _two_bones()
    zero = Channel.make(0, "rotation", np.array([0.0]), np.zeros((1, 4)))  # no usable rotation, one key
    assert duplicated_endpoint(_loop_clip(extra=[zero]), sk) == (True, None)
    nan = Channel.make(0, "rotation", np.array([0.0]), np.array([[0.0, np.nan, 0.0, 1.0]]))
    assert duplicated_endpoint(_loop_clip(extra=[nan]), sk) == (False, "non-finite key values")
    mid = _loop_clip()
    mid.channels[0].values[1, 2] = np.inf  # a middle key, not an end
    assert duplicated_endpoint(mid, sk) == (False, "non-finite key values")


def test_keys_by_path_ends_are_each_channels_own_first_and_last_keys():
    from animsmith.core.endpoint import _first_and_last_keys, keys_by_path

    rng = np.random.default_rng(3)
    chans = [Channel.make(b, "translation", np.linspace(0, 1, k), rng.normal(size=(k, 3))) for b, k in ((0, 4), (1, 2), (2, 7))]
    chans.append(Channel.make(1, "rotation", np.linspace(0, 1, 5), _quats(rng, 5)))
    keyed = keys_by_path(chans)
    group, flat = keyed["translation"]
    assert [ch.bone for ch in group] == [0, 1, 2] and flat.shape == (13, 3)
    ends = _first_and_last_keys(group, flat)
    for i, ch in enumerate(group):
        assert ends[i, 0].tolist() == np.asarray(ch.values[0], dtype=np.float64).tolist()
        assert ends[i, 1].tolist() == np.asarray(ch.values[-1], dtype=np.float64).tolist()
    assert keyed["rotation"][1].shape == (5, 4)


# ---------------------------------------------------------------------------
# the legs' phases and duty factors, and the seam ratio, vectorised
# ---------------------------------------------------------------------------


def _phase_one_leg(s, harmonic, periodic, scale):
    """The bone-by-bone reference: one leg's phase from its own 1-D series, with numpy's
    own 1-D FFT and sums (the per-leg path the vectorised one replaces)."""
    from animsmith.core.gait import MIN_DOMINANT_POWER_FRACTION, NOISE_AMPLITUDE_FRACTION

    if not np.isfinite(s).all():
        return None
    swing = float(np.max(s) - np.min(s))
    if swing == 0.0 or swing <= NOISE_AMPLITUDE_FRACTION * scale:
        return None
    x = np.fft.rfft(s)
    power = np.abs(x) ** 2
    power[1 : power.shape[0] - 1 if s.shape[0] % 2 == 0 else power.shape[0]] *= 2.0
    power = power[1:]
    total = float(power.sum())
    frac = float(power[harmonic - 1] / total) if 0 < harmonic <= power.size and total > 0.0 else 0.0
    if not periodic and frac < MIN_DOMINANT_POWER_FRACTION:
        return None
    ang = 2.0 * np.pi * np.arange(s.shape[0]) * harmonic / s.shape[0]
    re, im = float(np.sum(s * np.cos(ang))), float(np.sum(s * np.sin(ang)))
    phase = (math.atan2(im, re) / (2.0 * math.pi) + 0.5) % 1.0
    return 0.0 if phase >= 1.0 else phase


class _Grid:
    def __init__(self, pos):
        self.pos = pos
        self.frame_count = pos.shape[0]
        self.times_s = np.arange(self.frame_count) / 30.0  # a 30 fps grid

    def model_positions_m(self, bones):
        return self.pos[:, bones]


class _Leg:
    def __init__(self, foot):
        self.foot = foot


class _Legs:
    def __init__(self, count):
        self.body = 0
        self.legs = [_Leg(1 + i) for i in range(count)]


@pytest.mark.parametrize("frames", [3, 4, 9, 30, 31, 64, 121])
@pytest.mark.parametrize("legs", [1, 2, 4, 6])
def test_leg_phases_of_all_legs_at_once_are_each_legs_own(frames, legs):
    from animsmith.core.gait import _leg_scale_from_positions, cycle_length, leg_phases

    rng = np.random.default_rng(frames * 10 + legs)
    t = np.arange(frames) / max(frames - 1, 1)
    pos = rng.normal(scale=0.01, size=(frames, 1 + legs, 3))
    for f in range(legs):  # a foot-height cycle with its own phase, plus noise
        pos[:, 1 + f, 1] += 0.1 * np.cos(2 * np.pi * (t + f / legs)) + 0.02 * (f % 2) * np.sin(4 * np.pi * t)
    if legs > 1:
        pos[:, 2, 1] = 0.25  # a leg that keeps its height over a still body... relative to a noisy body
        pos[:, 0, 1] = 0.0
    if legs > 3:
        pos[frames // 2, 3, 1] = np.nan
    c = cycle_length(frames)
    scale = _leg_scale_from_positions(pos)
    for harmonic in (1, 2):
        for periodic in (False, True):
            got = leg_phases(_Grid(pos), _Legs(legs), harmonic, periodic)
            for f in range(legs):
                want = _phase_one_leg(pos[:c, 1 + f, 1] - pos[:c, 0, 1], harmonic, periodic, scale)
                assert (got[f][0] is None) == (want is None), (f, got[f])
                if want is not None:
                    assert got[f][0] == want  # bit for bit, not approximately


def test_a_known_phase_and_duty_factor_by_hand():
    """A foot lowest at a quarter of the cycle has phase 0.25; in stance on 6 of 10 cycle
    samples it has a duty factor of 0.6."""
    from animsmith.core.gait import duty_factors, leg_phases

    n = 41
    t = np.arange(n) / (n - 1)
    pos = np.zeros((n, 2, 3))
    pos[:, 1, 1] = 0.1 - 0.1 * np.cos(2 * np.pi * (t - 0.25))  # lowest at t = 0.25
    ((phase, why),) = leg_phases(_Grid(pos), _Legs(1), 1, False)
    assert why is None and phase == pytest.approx(0.25, abs=1e-9)
    stance = np.zeros((11, 2), dtype=bool)
    stance[:6, 0] = True
    stance[10, 1] = True  # the wrap duplicate is not part of the cycle
    assert duty_factors(stance, 11) == [0.6, 0.0]


def test_loop_seam_ratio_by_hand():
    """Feet relative to the hips at 5 samples; by hand: wrap step 0.03 m (left foot),
    neighbouring steps 0.10 m (first) and hypot(0.2, 0.03) m (last, left foot), so the
    ratio is 0.03 / hypot(0.2, 0.03)."""
    from animsmith.core.gait import loop_seam_ratio

    class Roles:
        bones = {"hips": 0, "left_foot": 1, "right_foot": 2}

        def get(self, role):
            return self.bones.get(role)

        def has(self, role):
            return role in self.bones

    pos = np.zeros((5, 3, 3))
    pos[:, 0] = [[0, 1, 0], [1, 1, 0], [2, 1, 0], [3, 1, 0], [4, 1, 0]]  # travelling hips drop out
    pos[:, 1] = pos[:, 0] + [[0.0, -1, 0.0], [0.1, -1, 0.0], [0.3, -1, 0.0], [0.2, -1, 0.0], [0.0, -1, 0.03]]
    pos[:, 2] = pos[:, 0] + [[0.0, -1, 0.0], [0.05, -1, 0.0], [0.1, -1, 0.0], [0.2, -1, 0.0], [0.0, -1, 0.0]]
    ratio, why = loop_seam_ratio(_Grid(pos), Roles(), 0.02)
    assert why is None and ratio == pytest.approx(0.03 / math.hypot(0.2, 0.03), rel=1e-12)
    ratio, why = loop_seam_ratio(_Grid(pos), Roles(), 0.25)
    assert ratio is None and "below the 0.25 m floor" in why


def test_rest_rotations_are_normalised_once_per_rig_and_follow_their_bytes():
    """The seam samples' rest rotations come from one memo per rig; a skeleton whose rest
    rotations differ (even one edited in place) gets its own unit quaternions."""
    from animsmith.core.localpose import local_pose, unit_rest_rotations

    sk = _skeleton()
    want = np.asarray(sk.rest_rotation, dtype=np.float64)
    want = want / np.linalg.norm(want, axis=1, keepdims=True)
    assert np.allclose(unit_rest_rotations(sk), want, rtol=0, atol=1e-15)
    sk.rest_rotation[2] = [0.0, 0.0, 2.0, 0.0]  # not unit: 180° about Z
    assert unit_rest_rotations(sk)[2].tolist() == [0.0, 0.0, 1.0, 0.0]
    _, r, _ = local_pose(sk, Clip("still", []), np.array([0.0, 0.5]))
    assert r[:, 2].tolist() == [[0.0, 0.0, 1.0, 0.0]] * 2
