"""duplicated_endpoint judges every channel of a path in one step (core.endpoint.StackedKeys);
the answers are the endpoint rule's, channel by channel.

Fixture shaped like a per-channel export: a static ``RootNode`` scaled 0.01 above a
centimetre rig (Hips -> Spine -> Chest, Hips -> LeftUpLeg, Hips -> RightUpLeg), one
key-time array object per channel, 31 keys from 1/30 s to 1 s. Under the 0.01 scale one
local translation unit of a child of ``RootNode`` is 1 cm, so the 0.1 mm position
tolerance is 0.01 local units there; deeper bones sit under unit scales, so theirs is 1 cm
too. Rotations swing about Y; a quaternion's angle is twice the half angle stored.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from animsmith.core.analysis import duplicated_endpoint
from animsmith.core.endpoint import StackedKeys, keys_differ, translation_unit_m
from animsmith.model import Channel, Clip, Skeleton

NAMES = ["RootNode", "Hips", "Spine", "Chest", "LeftUpLeg", "RightUpLeg"]
PARENTS = [-1, 0, 1, 2, 1, 1]
FRAMES = 31
ROT = "a rotation channel's last key differs from its first"
TRA = "a translation channel's last key differs from its first"
SCA = "a scale channel's last key differs from its first"


def rig() -> Skeleton:
    rest_t = [[0, 0, 0], [0, 100, 0], [0, 10, 0], [0, 12, 0], [9, -5, 0], [-9, -5, 0]]
    rest_s = [[0.01] * 3] + [[1.0] * 3] * 5
    return Skeleton.build(NAMES, PARENTS, rest_t, [[0, 0, 0, 1]] * 6, rest_s)


def times(n: int = FRAMES) -> np.ndarray:
    """Own key-time array per call, 1/30 s apart from 1/30 s (as per-channel exports write)."""
    return (np.arange(1, n + 1, dtype=np.float64) / 30.0).astype(np.float32)


def y_quats(deg) -> np.ndarray:
    half = np.radians(np.asarray(deg, dtype=np.float64)) / 2.0
    z = np.zeros_like(half)
    return np.stack([z, np.sin(half), z, np.cos(half)], axis=-1)


def cycle(amplitude: float, n: int = FRAMES, phase: float = 0.0) -> np.ndarray:
    """One full sine cycle over the keys: the last key repeats the first."""
    return amplitude * np.sin(2 * np.pi * np.arange(n) / (n - 1) + phase)


def walk(n: int = FRAMES) -> Clip:
    """A closed in-place walk: every channel's last key is its first."""
    hips_t = np.stack([np.zeros(n), 100.0 + cycle(2.0, n, 0.5), np.zeros(n)], axis=1)
    chans = [Channel.make(1, "translation", times(n), hips_t)]
    for bone, amp in ((1, 5.0), (2, 3.0), (3, 4.0), (4, 30.0), (5, -30.0)):
        chans.append(Channel.make(bone, "rotation", times(n), y_quats(cycle(amp, n))))
    chans.append(Channel.make(3, "scale", times(n), np.ones((n, 3))))
    return Clip("walk", chans)


def with_values(clip: Clip, i: int, values) -> Clip:
    chans = list(clip.channels)
    chans[i] = dataclasses.replace(chans[i], values=np.asarray(values, dtype=np.float32))
    return Clip(clip.name, chans)


def last_rotation_off(deg: float, i: int = 2) -> Clip:
    """``walk`` with channel ``i``'s last rotation key ``deg`` degrees past its first."""
    clip = walk()
    v = np.array(clip.channels[i].values, dtype=np.float64)
    first_deg = math.degrees(2 * math.atan2(v[0, 1], v[0, 3]))
    v[-1] = y_quats(first_deg + deg)
    return with_values(clip, i, v)


def test_a_closed_walk_is_a_duplicated_endpoint():
    assert duplicated_endpoint(walk(), rig()) == (True, None)


@pytest.mark.parametrize("deg, expected", [(0.005, (True, None)), (0.02, (False, ROT)), (1.0, (False, ROT))])
def test_rotation_ends_within_a_hundredth_of_a_degree_are_one_pose(deg, expected):
    assert duplicated_endpoint(last_rotation_off(deg), rig()) == expected
    assert duplicated_endpoint(last_rotation_off(deg, i=5), rig()) == expected  # the last rotation channel


def test_a_negated_quaternion_is_the_same_rotation():
    clip = walk()
    v = np.array(clip.channels[3].values)
    v[-1] = -v[0]
    assert duplicated_endpoint(with_values(clip, 3, v), rig()) == (True, None)
    flipped = Clip("w", [dataclasses.replace(ch, values=-ch.values) if ch.path == "rotation" else ch for ch in clip.channels])
    assert duplicated_endpoint(flipped, rig()) == (True, None)


@pytest.mark.parametrize("units, expected", [(0.005, (True, None)), (0.02, (False, TRA))])
def test_translation_ends_are_judged_in_metres_through_the_root_scale(units, expected):
    """Hips sit under the 0.01 RootNode: 0.005 cm = 0.05 mm is one pose, 0.02 cm = 0.2 mm is not."""
    clip = walk()
    v = np.array(clip.channels[0].values, dtype=np.float64)
    v[-1, 0] += units
    assert translation_unit_m(rig(), [1])[0] == pytest.approx(0.01)
    assert duplicated_endpoint(with_values(clip, 0, v), rig()) == expected
    # without a skeleton one unit is one metre: both offsets are far beyond 0.1 mm
    assert duplicated_endpoint(with_values(clip, 0, v), None) == (False, TRA)


@pytest.mark.parametrize("rel, expected", [(5e-5, (True, None)), (2e-4, (False, SCA))])
def test_scale_ends_within_1e4_relative_are_one_pose(rel, expected):
    clip = walk()
    v = np.ones((FRAMES, 3))
    v[10] = 1.5  # the scale moves in between
    v[-1, 1] = 1.0 + rel
    assert duplicated_endpoint(with_values(clip, 6, v), rig()) == expected


def test_the_rotation_reason_comes_before_the_translation_reason():
    clip = last_rotation_off(1.0)
    v = np.array(clip.channels[0].values, dtype=np.float64)
    v[-1, 1] += 1.0
    assert duplicated_endpoint(with_values(clip, 0, v), rig()) == (False, ROT)


@pytest.mark.parametrize("row", [0, 7, -1])
def test_a_non_finite_key_anywhere_is_no_duplicated_endpoint(row):
    clip = walk()
    v = np.array(clip.channels[4].values)
    v[row, 2] = np.nan
    assert duplicated_endpoint(with_values(clip, 4, v), rig()) == (False, "non-finite key values")


def test_one_key_channels_take_no_part_but_must_be_finite():
    clip = walk()
    pin = Channel.make(2, "translation", times(1), [[0.0, 10.0, 0.0]])
    pin_r = Channel.make(4, "rotation", times(1), y_quats([40.0]))
    assert duplicated_endpoint(Clip("w", clip.channels + [pin, pin_r]), rig()) == (True, None)
    bad = Channel.make(2, "translation", times(1), [[0.0, np.inf, 0.0]])
    assert duplicated_endpoint(Clip("w", clip.channels + [bad]), rig()) == (False, "non-finite key values")
    assert duplicated_endpoint(Clip("pins", [pin, pin_r]), rig()) == (False, "no channel has 2 or more keys")


def test_a_channel_ending_early_or_on_a_nan_time_does_not_reach_the_duration():
    clip = walk()
    short = list(clip.channels)
    short[3] = dataclasses.replace(short[3], times=short[3].times[:-1].copy(), values=short[3].values[:-1].copy())
    assert duplicated_endpoint(Clip("w", short), rig()) == (False, "a channel ends before the clip duration")
    nan_end = list(clip.channels)
    t = nan_end[5].times.copy()
    t[-1] = np.nan  # kept by a lenient load; the duration is the largest finite time
    nan_end[5] = dataclasses.replace(nan_end[5], times=t)
    assert duplicated_endpoint(Clip("w", nan_end), rig()) == (False, "a channel ends before the clip duration")
    empty = Channel.make(2, "rotation", np.zeros(0), np.zeros((0, 4)))
    assert duplicated_endpoint(Clip("w", clip.channels + [empty]), rig()) == (False, "a channel has no keys")


def static_clip(n: int = 9) -> Clip:
    """Every channel holds its first value on all ``n`` keys."""
    chans = [Channel.make(1, "translation", times(n), np.tile([0.0, 100.0, 0.0], (n, 1)))]
    chans += [Channel.make(b, "rotation", times(n), y_quats(np.full(n, 10.0 * b))) for b in (1, 2, 3, 4, 5)]
    return Clip("still", chans)


@pytest.mark.parametrize("key", [1, 4, 7])
def test_one_key_moving_anywhere_is_enough(key):
    """The middle key (4 of 0..8) is where a cycle moves most; a channel that moves only at
    another key moves just as well."""
    clip = static_clip()
    v = y_quats(np.full(9, 30.0))
    v[key] = y_quats([31.0])[0]
    assert duplicated_endpoint(with_values(clip, 3, v), rig()) == (True, None)
    v[key] = y_quats([30.005])[0]  # within the tolerance: still
    assert duplicated_endpoint(with_values(clip, 3, v), rig()) == (False, "no channel with 3 or more keys moves")


@pytest.mark.parametrize("deg, moves", [(0.005, False), (0.015, True), (0.03, True)])
def test_a_middle_key_just_past_the_tolerance_moves(deg, moves):
    """0.015° is past the 0.01° tolerance but within twice it: the channel still moves."""
    clip = static_clip()
    v = y_quats(np.full(9, 30.0))
    v[4] = y_quats([30.0 + deg])[0]
    expected = (True, None) if moves else (False, "no channel with 3 or more keys moves")
    assert duplicated_endpoint(with_values(clip, 3, v), rig()) == expected


def test_a_two_key_channel_is_not_enough_to_move():
    clip = static_clip()
    two = Channel.make(2, "translation", [0.1, 0.3], [[0, 10, 0], [0, 10, 0]])
    assert duplicated_endpoint(Clip("c", clip.channels + [two]), rig()) == (False, "no channel with 3 or more keys moves")


def test_channels_with_different_key_counts():
    """A 5-key channel (its own times over the same span) among 31-key ones: its own first and
    last keys are compared."""
    clip = walk()
    five = (np.arange(5, dtype=np.float64) * 0.25 + 1 / 30).astype(np.float32)
    five[-1] = clip.channels[0].times[-1]
    closed = Channel.make(2, "rotation", five, y_quats([0.0, 10.0, 0.0, -10.0, 0.0]))
    assert duplicated_endpoint(Clip("w", clip.channels + [closed]), rig()) == (True, None)
    opened = Channel.make(2, "rotation", five, y_quats([0.0, 10.0, 0.0, -10.0, 2.0]))
    assert duplicated_endpoint(Clip("w", clip.channels + [opened]), rig()) == (False, ROT)
    # a translation channel of 5 keys under the Spine (1 cm units): 0.02 cm is 0.2 mm
    chest = Channel.make(3, "translation", five, [[0, 12, 0], [0, 13, 0], [0, 12, 0], [0, 11, 0], [0.02, 12, 0]])
    assert duplicated_endpoint(Clip("w", clip.channels + [chest]), rig()) == (False, TRA)


def test_skipping_the_travel_bone_leaves_its_channels_out():
    clip = walk()
    v = np.array(clip.channels[0].values, dtype=np.float64)
    v[:, 2] = np.linspace(0.0, 120.0, FRAMES)  # the hips travel 1.2 m forward
    travelling = with_values(clip, 0, v)
    assert duplicated_endpoint(travelling, rig()) == (False, TRA)
    assert duplicated_endpoint(travelling, rig(), skip_bones=(1,)) == (True, None)
    hips_only = Clip("h", [travelling.channels[0], travelling.channels[1]])
    assert duplicated_endpoint(hips_only, rig(), skip_bones=(1,)) == (False, "clip has no channels besides its travel bone's")


def test_shared_and_per_channel_key_time_arrays_agree():
    clip = last_rotation_off(0.02)
    shared_t = clip.channels[0].times
    shared = Clip("s", [dataclasses.replace(ch, times=shared_t) for ch in clip.channels])
    assert len(StackedKeys(shared.channels).distinct_times) == 1
    assert len(StackedKeys(clip.channels).distinct_times) == len(clip.channels)
    assert duplicated_endpoint(shared, rig()) == duplicated_endpoint(clip, rig()) == (False, ROT)


def test_value_rows_without_keys_take_no_part():
    """A lenient in-memory channel with key times but no value rows has no ends to compare."""
    clip = walk()
    odd = Channel(2, 2, "rotation", "LINEAR", times(), np.zeros((0, 4), dtype=np.float32))
    assert duplicated_endpoint(Clip("w", clip.channels + [odd]), rig()) == (True, None)


def test_keys_differ_treats_degenerate_rotations_as_different():
    """A zero quaternion is no rotation, a non-finite one no pose, and a quaternion whose squared
    length overflows has no usable ratio: each differs even from itself."""
    rows = np.array([[0, 0, 0, 0], [np.nan, 0, 0, 1], [np.inf, 0, 0, 0], [1e200, 0, 0, 0], [0, 0, 0, 1]], dtype=np.float64)
    assert keys_differ("rotation", rows, rows).tolist() == [True, True, True, True, False]
    other = np.array([[0, 0, 0, 1]] * 5, dtype=np.float64)
    assert keys_differ("rotation", rows, other).tolist() == [True, True, True, True, False]
    assert keys_differ("translation", np.array([[np.inf, 0, 0]]), np.array([[np.inf, 0, 0]])).tolist() == [True]


def reference(clip: Clip, skeleton) -> tuple:
    """duplicated_endpoint written channel by channel, straight from its definition."""
    chans = clip.channels
    if not all(np.isfinite(ch.values).all() for ch in chans):
        return False, "non-finite key values"
    if all(len(ch.times) == 1 for ch in chans):
        return False, "no channel has 2 or more keys"
    finite = [float(t) for ch in chans for t in ch.times if np.isfinite(t)]
    duration = np.float32(max([0.0] + finite))
    for ch in chans:
        if len(ch.times) == 0:
            return False, "a channel has no keys"
        if len(ch.times) > 1 and np.float32(ch.times[-1]) != duration:
            return False, "a channel ends before the clip duration"
    for path in ("rotation", "translation", "scale"):
        for ch in chans:
            if ch.path != path or len(ch.times) == 1:
                continue
            v = np.asarray(ch.values, dtype=np.float64)
            unit = translation_unit_m(skeleton, [ch.bone]) if path == "translation" else None
            if keys_differ(path, v[:1], v[-1:], unit)[0]:
                return False, f"a {path} channel's last key differs from its first"
    for ch in chans:
        v = np.asarray(ch.values, dtype=np.float64)
        unit = translation_unit_m(skeleton, [ch.bone])[0] if ch.path == "translation" else None
        if len(ch.times) >= 3 and any(keys_differ(ch.path, v[0], v[k], unit) for k in range(1, len(v))):
            return True, None
    return False, "no channel with 3 or more keys moves"


def test_random_clips_agree_with_the_channel_by_channel_definition():
    """Ends a few tolerances either side of one pose, still and moving channels, one-key
    channels and mixed key counts: every answer is the definition's."""
    rng = np.random.default_rng(11)
    sk = rig()
    answers = set()
    for trial in range(300):
        chans = []
        for _ in range(int(rng.integers(1, 7))):
            n = int(rng.choice([1, 2, 3, 5, FRAMES]))
            t = times(FRAMES)[np.round(np.linspace(0, FRAMES - 1, n)).astype(int)] if n > 1 else times(1)
            bone = int(rng.integers(1, 6))
            still = rng.random() < 0.4
            if rng.random() < 0.6:
                deg = np.zeros(n) if still else rng.normal(0, 20, n)
                deg[-1] = deg[0] + rng.choice([0.0, 0.004, 0.008, 0.012, 0.05])
                q = y_quats(deg) * rng.choice([1.0, -1.0])
                chans.append(Channel.make(bone, "rotation", t, q))
            else:
                p = np.tile(rng.normal(0, 50, 3), (n, 1)) + (0 if still else rng.normal(0, 3, (n, 3)))
                p[-1] = p[0] + rng.choice([0.0, 0.004, 0.008, 0.02, 1.0])
                chans.append(Channel.make(bone, rng.choice(["translation", "scale"]), t, p))
        clip = Clip(f"c{trial}", chans)
        got = duplicated_endpoint(clip, sk)
        assert got == reference(clip, sk), trial
        answers.add(got)
    assert len(answers) >= 5  # the trials reach most outcomes
