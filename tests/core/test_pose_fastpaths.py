"""The pose grid's fast paths give the same numbers as the general ones.

* lazy per-bone FK (depth-ordered subset plans whose levels are slices, a
  broadcast parent or index arrays; rotations chained only when asked for)
  equals full-skeleton FK bit for bit, with every interpolation mode, several
  key-time arrays, animated scale and a node authored with ``matrix``;
* the rotation-matrix formula equals the textbook one term by term;
* memoised segment lookups equal a fresh ``segment_index`` and are read-only.
"""

import math

import numpy as np
import pytest

from animsmith.core import fk, localpose, pose
from animsmith.core.pose import pose_grid, sample_pose
from animsmith.core.sampling import sample_channel, sample_stacked, segment_index
from animsmith.model import Channel, Clip, Skeleton, quat_to_matrix


def _rand_quats(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _rig_and_clip(seed=3):
    rng = np.random.default_rng(seed)
    # 0 root; 1, 2, 3 children of 0 (one level with a broadcast parent);
    # 4 <- 1, 5 <- 3, 6 <- 2 (parents not in slot order: index-array level); 7 <- 4; 8 <- 0 (matrix node)
    parents = [-1, 0, 0, 0, 1, 3, 2, 4, 0]
    b = len(parents)
    rest_m = np.tile(np.eye(4), (b, 1, 1))
    rest_m[8, :3, :3] = [[1.0, 0.2, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]  # shear: only a matrix can say it
    sk = Skeleton.build(
        [f"b{i}" for i in range(b)],
        parents,
        rest_translation=rng.normal(size=(b, 3)),
        rest_rotation=_rand_quats(rng, b) * 1.7,  # not unit: the rest pose is normalised
        rest_scale=np.where(np.arange(b)[:, None] == 5, 1.5, 1.0) * np.ones((b, 3)),
        has_matrix=np.arange(b) == 8,
    )
    sk.rest_matrix[8] = rest_m[8]
    t_a = np.linspace(0.0, 1.0, 7)
    t_b = np.array([0.0, 0.1, 0.15, 0.6, 1.2])
    chans = [
        Channel.make(0, "translation", t_a, rng.normal(size=(7, 3))),
        Channel.make(0, "rotation", t_a, _rand_quats(rng, 7)),
        Channel.make(1, "rotation", t_a, _rand_quats(rng, 7)),
        Channel.make(2, "rotation", t_b, _rand_quats(rng, 5), interpolation="STEP"),
        Channel.make(3, "rotation", t_b, _rand_quats(rng, 5), "CUBICSPLINE", rng.normal(size=(5, 4)), rng.normal(size=(5, 4))),
        Channel.make(4, "scale", t_a, 1.0 + 0.1 * rng.normal(size=(7, 3))),
        Channel.make(4, "translation", t_a, rng.normal(size=(7, 3))),  # same group as the scale channel
        Channel.make(5, "rotation", t_a, np.tile([0.0, 0.0, 0.0, 2.0], (7, 1))),
        Channel.make(6, "rotation", [0.5], _rand_quats(rng, 1)),  # one key: held
        Channel.make(7, "rotation", t_a, _rand_quats(rng, 7)),
        Channel.make(7, "rotation", t_b, _rand_quats(rng, 5)),  # the later channel wins
    ]
    return sk, Clip("c", chans)


@pytest.mark.parametrize("bones", [[7], [5, 6], [4, 6], [8, 7, 0], [6], list(range(9))])
def test_lazy_subsets_equal_full_fk_bit_for_bit(bones):
    sk, clip = _rig_and_clip()
    g = pose_grid(sk, clip)
    full = sample_pose(sk, clip, g.times_s)
    pos = g.model_positions_m(bones)
    rot = g.model_rotations(bones)
    assert np.array_equal(pos, full.model_position_m[:, bones])
    assert np.array_equal(rot, full.model_rotation[:, bones])
    # a second query mixing computed and new bones, positions after rotations
    more = [3, 4] + bones
    assert np.array_equal(g.model_rotations(more), full.model_rotation[:, more])
    assert np.array_equal(g.model_positions_m(more), full.model_position_m[:, more])


def test_full_fk_matches_bone_by_bone_reference():
    sk, clip = _rig_and_clip()
    g = sample_pose(sk, clip, np.linspace(-0.2, 1.4, 9))
    n, b = g.model_position_m.shape[:2]
    for i in range(n):
        world = {}
        for k in range(b):
            if k == 8:
                local = sk.rest_matrix[8]
            else:
                local = np.eye(4)
                local[:3, :3] = quat_to_matrix(g.local_rotation[i, k]) * g.local_scale[i, k]
                local[:3, 3] = g.local_translation[i, k]
            p = sk.parents[k]
            world[k] = local if p < 0 else world[p] @ local
            np.testing.assert_allclose(g.model_matrix[i, k], world[k], rtol=0, atol=1e-12)


def test_rotation_formula_equals_textbook_terms():
    rng = np.random.default_rng(5)
    q = _rand_quats(rng, 50)
    q[0] = [0.0, -0.0, 0.0, 1.0]
    q[1] = np.nan
    x, y, z, w = q.T
    x2, y2, z2 = x + x, y + y, z + z
    xx, yy, zz, xy, xz, yz, wx, wy, wz = x * x2, y * y2, z * z2, x * y2, x * z2, y * z2, w * x2, w * y2, w * z2
    ref = np.stack(
        [
            [1.0 - (yy + zz), xy - wz, xz + wy],
            [xy + wz, 1.0 - (xx + zz), yz - wx],
            [xz - wy, yz + wx, 1.0 - (xx + yy)],
        ]
    )  # (3, 3, 50)
    got = fk._rotation_cm(q.T)
    assert got.tobytes() == ref.tobytes()
    np.testing.assert_allclose(got.transpose(2, 0, 1)[2:], quat_to_matrix(q[2:]), atol=1e-12)


def test_memoised_segments_equal_fresh_ones():
    keys = np.array([0.0, 0.25, 0.25, 0.9, math.inf], dtype=np.float32)
    times = np.array([-1.0, 0.0, 0.1, 0.25, 0.5, 0.9, 2.0])
    fresh = segment_index(keys, times)
    memo = localpose._cached_segments(keys, keys.tobytes(), times, times.tobytes())
    again = localpose._cached_segments(keys, keys.tobytes(), times, times.tobytes())
    assert again is memo
    for a, b in zip(fresh, memo):
        assert a.tobytes() == b.tobytes()
        assert not b.flags.writeable


def test_stacked_sampling_equals_one_channel_at_a_time():
    sk, clip = _rig_and_clip()
    times = np.linspace(-0.3, 1.5, 23)
    for ch in clip.channels:
        one = sample_channel(ch, times)
        values = np.stack([ch.values, ch.values[::-1]], axis=1)
        cubic = ch.interpolation == "CUBICSPLINE"
        it = np.stack([ch.in_tangents, ch.in_tangents[::-1]], axis=1) if cubic else None
        ot = np.stack([ch.out_tangents, ch.out_tangents[::-1]], axis=1) if cubic else None
        both = sample_stacked(ch.times, values, ch.interpolation, ch.path == "rotation", times, it, ot)
        assert both.shape == (23, 2, ch.values.shape[1])
        assert one.tobytes() == np.ascontiguousarray(both[:, 0]).tobytes()


def test_pose_at_a_few_samples_equals_the_full_grid_bit_for_bit():
    """FK runs sample by sample: the seam samples alone give the full grid's rows."""
    from animsmith.core.seam import loop_continuity

    sk, clip = _rig_and_clip()
    g = pose_grid(sk, clip)
    n = g.frame_count
    frames = [0, 1, n - 2, n - 1]
    pos, rot = g.model_pose_at(frames)
    assert g._full is None  # the full skeleton grid was not built
    full = sample_pose(sk, clip, g.times_s)
    assert pos.tobytes() == full.model_position_m[frames].tobytes()  # bytes: -0.0 vs 0.0 counts
    assert rot.tobytes() == full.model_rotation[frames].tobytes()
    lazy = loop_continuity(pose_grid(sk, clip))
    eager = loop_continuity(full)
    for name in ("position_delta_m", "rotation_delta_deg", "seam_velocity_delta_mps", "seam_angular_velocity_delta_degps"):
        assert np.array_equal(getattr(lazy, name), getattr(eager, name)), name
    # once the full grid exists, its rows are returned
    g.model_position_m
    again = g.model_pose_at(frames)
    assert np.array_equal(again[0], pos) and np.array_equal(again[1], rot)


def test_pose_at_samples_on_real_files_equals_the_full_grid():
    import glob
    import os

    from animsmith.io.gltf import load_asset

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = sorted(glob.glob(os.path.join(here, "data", "*.glb"))) + sorted(
        glob.glob(os.path.join(here, "..", "examples", "assets", "*.glb"))
    )
    checked = 0
    for path in files:
        asset = load_asset(path, strict=False)
        for clip in asset.clips:
            g = pose_grid(asset.skeleton, clip)
            n = g.frame_count
            frames = [0, 1, n // 2, n - 2, n - 1]
            pos, rot = g.model_pose_at(frames)
            assert pos.tobytes() == g.model_position_m[frames].tobytes(), (path, clip.name)
            assert rot.tobytes() == g.model_rotation[frames].tobytes(), (path, clip.name)
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_pose_at_seam_samples_with_a_non_finite_key_mid_clip(bad):
    """A non-finite key value does not make samples depend on each other: exact key
    values at segment ends are put sample by sample, so the seam samples alone give
    the full grid's rows, and the bone with the bad key is NaN only where it leaks in."""
    sk, clip = _rig_and_clip()
    for ch in clip.channels:
        if ch.bone == 1 and ch.path == "rotation":
            ch.values[3] = bad
            keys = ch.times.astype(np.float64)
    assert pose._samples_independent(clip)
    g = pose_grid(sk, clip)
    n = g.frame_count
    frames = [0, 1, n - 2, n - 1]
    pos, rot = g.model_pose_at(frames)
    assert g._full is None  # answered from the seam samples alone
    full = sample_pose(sk, clip, g.times_s)
    assert pos.tobytes() == full.model_position_m[frames].tobytes()
    assert rot.tobytes() == full.model_rotation[frames].tobytes()
    # bone 1's local rotation: NaN strictly inside the two segments around key 3, finite elsewhere
    t = g.times_s
    inside = (t > keys[2]) & (t < keys[4]) & (t != keys[3])
    local = full.local_rotation[:, 1]
    assert np.isnan(local[inside]).all()
    assert np.isfinite(local[~inside & (t != keys[3])]).all()


@pytest.mark.parametrize("interpolation", ["LINEAR", "CUBICSPLINE"])
@pytest.mark.parametrize("path", ["rotation", "translation"])
def test_a_non_finite_channel_does_not_change_its_group_mates(path, interpolation):
    """Channels sharing key times are sampled as one group; a channel whose keys are
    NaN/Inf gets exact key values at its segment ends, and its finite group-mates keep
    exactly the values they have when sampled alone (a bone subset of the lazy grid
    groups fewer channels than the full grid: both must agree)."""
    rng = np.random.default_rng(7)
    width = 4 if path == "rotation" else 3
    keys = np.arange(9, dtype=np.float32) / np.float32(30)
    good = rng.normal(size=(9, width)).astype(np.float32)  # as stored in a GLB
    bad = rng.normal(size=(9, width)).astype(np.float32)
    bad[4, 1] = np.nan
    bad[6, 0] = np.inf
    tangents = {}
    if interpolation == "CUBICSPLINE":
        tangents = {k: rng.normal(size=(9, width)).astype(np.float32) for k in ("in_tangents", "out_tangents")}
    chans = [Channel.make(b, path, keys, v, interpolation=interpolation,
                          **({k: a.copy() for k, a in tangents.items()})) for b, v in ((0, good), (1, bad))]
    sk = Skeleton.build(["a", "b"], [-1, -1])
    clip = Clip("c", chans)
    times = np.linspace(0.0, float(keys[-1]), 25)
    alone = sample_channel(chans[0], times)
    stacked = sample_stacked(keys, np.stack([good, bad], axis=1), interpolation, path == "rotation", times,
                             *((np.stack([tangents["in_tangents"]] * 2, axis=1), np.stack([tangents["out_tangents"]] * 2, axis=1))
                               if tangents else ()))
    assert alone.tobytes() == np.ascontiguousarray(stacked[:, 0]).tobytes()
    # the bad channel at its own key times away from the bad keys: the stored key (normalised for rotations)
    at_keys = sample_channel(chans[1], keys.astype(np.float64))
    for k in (0, 1, 2, 8):
        key = bad[k].astype(np.float64)
        expect = key / np.linalg.norm(key) if path == "rotation" else key
        np.testing.assert_allclose(at_keys[k], expect, rtol=0, atol=1e-15)
    g = pose_grid(sk, clip)
    with np.errstate(all="ignore"):
        full = sample_pose(sk, clip, g.times_s)
    assert g.model_positions_m([0]).tobytes() == np.ascontiguousarray(full.model_position_m[:, [0]]).tobytes()
    assert g.model_rotations([0]).tobytes() == np.ascontiguousarray(full.model_rotation[:, [0]]).tobytes()


def test_few_sample_slerp_equals_many_sample_slerp_bit_for_bit():
    """Few query times take the key pairs they use (sampling._slerp_pairs_cm); many take
    every key segment (_slerp_cm). Same bytes at the same times, through both branches
    (slerp and normalised lerp), sign flips, a zero key and clamped ends. With a
    non-finite key, sets of times whose output is non-finite too (so both take the
    exact-ends rule, a whole-call decision) also agree."""
    from animsmith.core.sampling import sample_component_major

    rng = np.random.default_rng(11)
    k, n = 40, 7
    keys = rng.normal(size=(k, n, 4))
    keys[5] = -keys[4] + 1e-5  # antipodal neighbours: sign flip
    keys[9] = keys[8] + 1e-6  # nearly equal: normalised lerp
    keys[20, 2] = 0.0  # a zero quaternion
    times = np.sort(rng.uniform(0, 10, size=k)).astype(np.float32)
    many = np.concatenate([np.linspace(-1, 11, 301), times.astype(np.float64)[[0, 4, 9, 20, 30, 39]]])
    picks = ([0, 57, 150, 299], [300, 301, 302, 303], [302, 303, 304, 305, 306], [0, 57, 305, 306], [100, 101, 102])
    with np.errstate(all="ignore"):
        for bad in (False, True):
            if bad:
                keys[30, 3] = np.nan  # sample 304 is key 30's time: its output is non-finite
            values = np.ascontiguousarray(keys.astype(np.float32).transpose(2, 1, 0))  # (4, n, K)
            full_all = sample_component_major(times, values, "LINEAR", True, many)
            for pick in picks:
                if bad and 304 not in pick:
                    continue
                q = many[list(pick)]
                assert 2 * len(q) < k  # the few-sample branch
                few = sample_component_major(times, values, "LINEAR", True, q)
                assert few.tobytes() == full_all[:, :, list(pick)].tobytes(), (bad, pick)


UNSORTED_TIMES = {  # found by a reviewer's search: the seam samples land in other segments
    "nan_time": [0.0, 0.827391505241394, 0.8724456429481506, np.nan, 1.1960569620132446, 1.3736259937286377],
    "backwards": [0.0, 0.40, 0.46, 0.61, 0.71, 0.76, 0.762, 0.78, 0.784, 0.79, 0.98, 1.97, 1.04, 1.25, 1.28,
                  1.38, 1.51, 1.68, 1.88, 1.94, 1.0076],
}


@pytest.mark.parametrize("interpolation", ["LINEAR", "STEP"])
@pytest.mark.parametrize("how", sorted(UNSORTED_TIMES))
def test_pose_at_seam_samples_with_unsorted_key_times(how, interpolation):
    """Lint loads leniently, so key times may go backwards or be NaN; numpy's segment
    search on such arrays can depend on the other query times, so the seam rows then
    come from the full grid (as the loop continuity always did before)."""
    from animsmith.core.seam import loop_continuity

    rng = np.random.default_rng(0)
    sk = Skeleton.build(["root", "child"], [-1, 0], rest_translation=np.array([[0, 0, 0], [0, 1, 0]], float),
                        rest_rotation=np.tile([0, 0, 0, 1.0], (2, 1)), rest_scale=np.ones((2, 3)),
                        has_matrix=np.zeros(2, bool))
    t = np.array(UNSORTED_TIMES[how], dtype=np.float32)
    clip = Clip("c", [Channel.make(0, "rotation", t, _rand_quats(rng, len(t)), interpolation=interpolation),
                      Channel.make(0, "translation", t, rng.normal(size=(len(t), 3)), interpolation=interpolation)])
    assert not pose._samples_independent(clip)
    g = pose_grid(sk, clip)
    n = g.frame_count
    frames = [0, 1, n - 2, n - 1]
    with np.errstate(all="ignore"):
        pos, rot = g.model_pose_at(frames)
        full = sample_pose(sk, clip, g.times_s)
        few = sample_pose(sk, clip, g.times_s[frames])
    assert pos.tobytes() == full.model_position_m[frames].tobytes()
    assert rot.tobytes() == full.model_rotation[frames].tobytes()
    # where numpy's search of these unsorted keys answers the seam times differently alone
    # (numpy 2.4 does for "backwards"; 2.5 searches unsorted arrays another way), sampling
    # only the seam times really gives other rows: the premise of this test
    kt = t.astype(np.float64)  # as core.sampling searches
    alone = np.searchsorted(kt, g.times_s[frames], side="right")
    together = np.searchsorted(kt, g.times_s, side="right")[frames]
    if how == "backwards" and not np.array_equal(alone, together):
        assert few.model_position_m.tobytes() + few.model_rotation.tobytes() != (
            full.model_position_m[frames].tobytes() + full.model_rotation[frames].tobytes()
        )
    lazy, eager = loop_continuity(pose_grid(sk, clip)), loop_continuity(full)
    assert lazy.seam_velocity_delta_mps.tobytes() == eager.seam_velocity_delta_mps.tobytes()


def test_samples_independent_contract():
    sk, clip = _rig_and_clip()
    assert pose._samples_independent(clip)
    for mutate in (
        lambda c: setattr(c, "times", np.array([0.0, 1.0, 0.5, 2.0, 3.0, 4.0, 5.0], np.float32)),
        lambda c: setattr(c, "times", np.array([0.0, np.nan, 0.5, 2.0, 3.0, 4.0, 5.0], np.float32)),
    ):
        sk, clip = _rig_and_clip()
        mutate(clip.channels[0])
        assert not pose._samples_independent(clip)
    sk, clip = _rig_and_clip()
    clip.channels[0].times = np.array([0.0, 0.5, 0.5, 2.0, 3.0, 4.0, 5.0], np.float32)  # repeated: still sorted
    assert pose._samples_independent(clip)
    sk, clip = _rig_and_clip()  # non-finite values and tangents: samples stay independent
    clip.channels[0].values[1, 0] = np.inf
    cubic = next(c for c in clip.channels if c.interpolation == "CUBICSPLINE")
    cubic.out_tangents[0, 0] = np.nan
    assert pose._samples_independent(clip)


def test_full_fk_on_infinite_keys_warns_nothing():
    """Infinite scale (0·inf in the rotation-scale product) and a rotation key with NaN and
    Inf components give NaN poses for those bones, never a RuntimeWarning, and leave the
    other bones' poses as they are without the bad keys."""
    import warnings

    sk = Skeleton.build(["root", "child", "other"], [-1, 0, -1], rest_translation=[[0, 0, 0], [0, 1, 0], [2, 0, 0]])
    t = [0.0, 1.0]
    good = Channel.make(2, "translation", t, [[2, 0, 0], [2, 3, 0]])
    for bad in (Channel.make(0, "scale", t, [[np.inf, 1, 1], [1, 1, 1]]),
                Channel.make(0, "rotation", t, [[np.nan, np.inf, 0, 1], [0, 0, 0, 1]])):
        clip = Clip("c", [bad, good])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            g = sample_pose(sk, clip, [0.0, 0.5, 1.0])
            lazy = pose_grid(sk, clip)
            lazy.model_pose_at([0, 1])
        assert not np.isfinite(g.model_position_m[0, 1]).all()  # the child of the bad bone at t = 0
        np.testing.assert_array_equal(g.model_position_m[:, 2], [[2, 0, 0], [2, 1.5, 0], [2, 3, 0]])
        np.testing.assert_array_equal(g.model_position_m[2, 1], [0, 1, 0])  # the bad key is gone at t = 1


def test_fk_in_frame_chunks_gives_the_same_bytes(monkeypatch):
    """Long clips run FK in passes of FK_CHUNK_FRAMES frames (bounded temporaries): in
    passes of 3 frames the full grid (61 samples) and the bone subsets of the judged grid
    (7 samples) are the same bytes as in one pass."""
    sk, clip = _rig_and_clip()
    times = np.linspace(-0.2, 1.4, 61)
    whole = sample_pose(sk, clip, times)
    lazy_whole = pose_grid(sk, clip)
    subsets = [lazy_whole.model_positions_m([7, 5, 6]), lazy_whole.model_rotations([7, 8])]
    monkeypatch.setattr(fk, "FK_CHUNK_FRAMES", 3)
    assert fk.frame_chunks(7) == [(0, 3), (3, 6), (6, 7)]
    parts = sample_pose(sk, clip, times)
    for name in ("model_matrix", "model_position_m", "model_rotation"):
        assert getattr(parts, name).tobytes() == getattr(whole, name).tobytes(), name
    lazy = pose_grid(sk, clip)
    assert lazy.frame_count == 7
    assert lazy.model_positions_m([7, 5, 6]).tobytes() == subsets[0].tobytes()
    assert lazy.model_rotations([7, 8]).tobytes() == subsets[1].tobytes()
