"""duplicated_endpoint: a non-finite key anywhere (not only at the ends) is never a duplicated endpoint."""

import math

import numpy as np

from animsmith.core.analysis import duplicated_endpoint
from animsmith.model import Channel, Clip


def _loop_clip(middle_translation):
    t = [0.0, 0.5, 1.0]
    h = math.radians(30) / 2
    q = [0.0, math.sin(h), 0.0, math.cos(h)]
    return Clip(
        "loop",
        [
            Channel.make(0, "rotation", t, [[0, 0, 0, 1], q, [0, 0, 0, 1]]),  # moves, ends equal
            Channel.make(0, "translation", t, [[0, 1, 0], middle_translation, [0, 1, 0]]),
        ],
    )


def test_finite_closed_loop_is_a_duplicated_endpoint():
    assert duplicated_endpoint(_loop_clip([0, 1.1, 0])) == (True, None)


def test_non_finite_middle_key_is_not_a_duplicated_endpoint():
    for bad in (np.nan, np.inf, -np.inf):
        dup, why = duplicated_endpoint(_loop_clip([0, bad, 0]))
        assert dup is False
        assert why == "non-finite key values"


def _per_channel_reason(clip):
    """The structural part of duplicated_endpoint written channel by channel (the definition)."""
    duration = np.float32(max(float(np.nanmax(np.where(np.isfinite(ch.times), ch.times, np.nan))) for ch in clip.channels))
    for ch in clip.channels:
        if len(ch.times) == 1:  # one pose for all time: no part in the endpoint
            continue
        if np.float32(ch.times[-1]) != duration:
            return "a channel ends before the clip duration"
    for ch in clip.channels:
        if not np.all(np.isfinite(ch.values)):
            return "non-finite key values"
    return None


def test_structural_reasons_follow_channel_order_with_shared_time_arrays():
    """Channels sharing one key-time array are looked at once; the first failing
    channel in clip order still decides the reason."""
    long_t = np.array([0.0, 0.5, 1.0], dtype=np.float32)
    short_t = np.array([0.0, 0.5], dtype=np.float32)  # ends early
    one_t = np.array([0.0], dtype=np.float32)  # too few keys
    q = np.tile(np.array([0, 0, 0, 1], np.float32), (3, 1))

    def ch(bone, times, path="rotation"):
        n = len(times)
        vals = q[:n] if path == "rotation" else np.zeros((n, 3), np.float32)
        c = Channel.make(bone, path, times, vals)
        c.times = times  # share the very array object, as the loader does for one accessor
        return c

    layouts = [
        [ch(0, long_t), ch(1, short_t), ch(2, one_t)],
        [ch(0, long_t), ch(1, one_t), ch(2, short_t)],
        [ch(0, one_t), ch(1, long_t), ch(2, short_t, "translation")],
        [ch(0, long_t), ch(1, long_t, "translation"), ch(2, short_t)],
        [ch(0, short_t), ch(1, long_t), ch(2, short_t, "translation"), ch(3, one_t)],
    ]
    for chans in layouts:
        clip = Clip("c", chans)
        expected = _per_channel_reason(clip)
        assert expected is not None
        assert duplicated_endpoint(clip) == (False, expected)


def test_duration_and_start_over_shared_and_non_finite_times():
    a = np.array([0.25, 0.5, np.nan], dtype=np.float32)
    b = np.array([-np.inf, 0.1, 2.0, np.inf], dtype=np.float32)
    chans = [Channel.make(0, "translation", a, np.zeros((3, 3))), Channel.make(1, "translation", b, np.zeros((4, 3)))]
    chans.append(Channel.make(2, "translation", a, np.zeros((3, 3))))
    chans[2].times = chans[0].times
    clip = Clip("c", chans)
    assert len(clip.distinct_times()) == 2
    assert clip.duration_s == np.float32(2.0) and clip.start_s == np.float32(0.1)


def test_first_and_last_keys_equal_per_channel_pairs():
    from animsmith.core.endpoint import _first_and_last_keys

    rng = np.random.default_rng(5)
    chans = [Channel.make(b, "rotation", np.linspace(0, 1, n), rng.normal(size=(n, 4))) for b, n in enumerate((2, 7, 3))]
    expected = np.array([(ch.values[0], ch.values[-1]) for ch in chans], dtype=np.float64)
    got = _first_and_last_keys(chans)
    assert got.shape == (3, 2, 4) and np.array_equal(got, expected)
    mixed = chans[:1] + [Channel.make(5, "translation", [0.0, 1.0], rng.normal(size=(2, 3)))]
    with np.testing.assert_raises(ValueError):  # widths differ: no common (G, 2, C) array, as before
        _first_and_last_keys(mixed)


def test_a_one_key_channel_takes_no_part_in_the_endpoint():
    """A closed loop plus a one-key channel (a pose pin) still repeats its first pose at the end:
    a runtime that steps frames shows that pose twice (it read as not duplicated, so
    duplicate-loop-endpoint stayed silent). A clip of one-key channels only has no endpoint."""
    clip = _loop_clip([0, 1.1, 0])
    clip.channels.append(Channel.make(1, "rotation", [0.0], [[0.0, 0.0, 0.38268343, 0.9238795]]))
    assert duplicated_endpoint(clip) == (True, None)
    pins = Clip("pins", [Channel.make(0, "rotation", [0.0], [[0, 0, 0, 1]]), Channel.make(1, "translation", [0.0], [[0, 1, 0]])])
    assert duplicated_endpoint(pins) == (False, "no channel has 2 or more keys")
