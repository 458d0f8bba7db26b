"""Forward kinematics of several clips' seam samples in one batch (core.pose.batch_pose_at)
gives each clip the bytes that sampling it alone gives."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

from animsmith.core.pose import batch_pose_at, pose_grid, sample_pose
from animsmith.model import Channel, Clip, Skeleton

FIELDS = ("local_translation", "local_rotation", "local_scale", "model_matrix", "model_position_m", "model_rotation")


def _quats(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _skeleton():
    rng = np.random.default_rng(11)
    parents = [-1, 0, 1, 2, 1, 4, 0]
    b = len(parents)
    sk = Skeleton.build(
        [f"b{i}" for i in range(b)],
        parents,
        rest_translation=rng.normal(size=(b, 3)),
        rest_rotation=_quats(rng, b),
        rest_scale=np.ones((b, 3)),
        has_matrix=np.arange(b) == 6,
    )
    sk.rest_matrix[6, 0, 1] = 0.3  # a sheared matrix node: only its rest matrix can say it
    return sk


def _clip(seed, *, scale=False, animate_matrix_node=False, bad=None, frames=9):
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0 + 0.1 * seed, frames)
    chans = [Channel.make(0, "translation", t, rng.normal(size=(frames, 3)))]
    chans += [Channel.make(b, "rotation", t, _quats(rng, frames)) for b in range(6)]
    if scale:
        chans.append(Channel.make(3, "scale", t, 1.0 + 0.2 * rng.normal(size=(frames, 3))))
    if animate_matrix_node:
        chans.append(Channel.make(6, "rotation", t, _quats(rng, frames)))
    if bad is not None:
        chans[2].values[frames // 2, 1] = bad
    return Clip(f"c{seed}", chans)


def _alone(sk, clip, frames):
    g = pose_grid(sk, clip)
    return sample_pose(sk, clip, g.times_s[frames], duration_s=g.duration_s)


def test_a_batch_gives_every_clip_its_own_bytes():
    sk = _skeleton()
    clips = [
        _clip(0),
        _clip(1, scale=True),  # non-unit scale in the batch: the others' rows are multiplied by 1.0
        _clip(2, frames=14),
        _clip(3, animate_matrix_node=True),  # its matrix node is animated: a batch of its own
        _clip(4, animate_matrix_node=True, bad=np.inf),
        _clip(5, bad=np.nan),
    ]
    grids = [pose_grid(sk, c) for c in clips]
    frames = [[0, 1, g.frame_count - 2, g.frame_count - 1] for g in grids]
    batch_pose_at(list(zip(grids, frames)))
    assert all(len(g._primed) == 1 for g in grids)
    for clip, g, f in zip(clips, grids, frames):
        got = g.pose_at(f)
        want = _alone(sk, clip, f)
        for name in FIELDS:
            assert np.asarray(getattr(got, name)).tobytes() == np.asarray(getattr(want, name)).tobytes(), (clip.name, name)
        assert got.times_s.tobytes() == want.times_s.tobytes() and got.duration_s == want.duration_s
        assert not g._primed  # used once; the next call samples again
        again = g.pose_at(f)
        assert again.model_position_m.tobytes() == want.model_position_m.tobytes()


def test_what_a_batch_leaves_alone():
    sk = _skeleton()
    unsorted = _clip(7)
    for ch in unsorted.channels:
        ch.times = ch.times[[0, 2, 1, 3, 4, 5, 6, 7, 8]]  # key times out of order: pose_at samples the full grid
    single = _clip(8, animate_matrix_node=True)  # alone in its batch: nothing to share
    grids = [pose_grid(sk, c) for c in (_clip(6), unsorted, single, _clip(9))]
    batch_pose_at([(g, [0, 1, g.frame_count - 1]) for g in grids])
    assert [bool(g._primed) for g in grids] == [True, False, False, True]


def test_one_file_of_several_clips_measures_the_same_primed(tmp_path):
    """The lint path primes every clip of a multi-clip file: loop continuity, bytes equal."""
    from animsmith.core.analysis import analyze_asset, prime_loop_continuity
    from animsmith.io.gltf import load_asset

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = sorted(glob.glob(os.path.join(here, "data", "*.glb"))) + sorted(
        glob.glob(os.path.join(here, "..", "examples", "assets", "*.glb"))
    )
    checked = 0
    for path in files:
        asset = load_asset(path, strict=False)
        if len(asset.clips) < 2:
            continue
        _, plain = analyze_asset(asset)
        _, primed = analyze_asset(asset)
        prime_loop_continuity(primed)
        for a, b in zip(plain, primed):
            x, y = a.continuity, b.continuity
            assert x.unavailable == y.unavailable
            for name in ("position_delta_m", "rotation_delta_deg", "seam_velocity_delta_mps", "seam_angular_velocity_delta_degps"):
                assert np.asarray(getattr(x, name)).tobytes() == np.asarray(getattr(y, name)).tobytes(), (path, a.clip.name)
            checked += 1
    if not checked:
        pytest.skip("no multi-clip file at hand")


def _late(seed, start_s=1 / 30):
    """:func:`_clip` with every key time moved ``start_s`` later (a clip keyed from 1/30 s)."""
    c = _clip(seed)
    return Clip(c.name, [Channel.make(ch.bone, ch.path, ch.times + start_s, ch.values) for ch in c.channels])


def test_late_starting_clips_prime_the_grid_the_loop_checks_read():
    """Clips keyed from 1/30 s are judged on their keys' span (``loop_grid``): the batch
    primes those grids' seam samples, with the bytes each clip gives alone."""
    from animsmith.core.analysis import ClipAnalysis, prime_loop_continuity
    from animsmith.core.roles import resolve_roles
    from animsmith.model import Asset

    sk = _skeleton()
    asset = Asset(skeleton=sk, clips=[_late(1), _late(2)])
    roles = resolve_roles(sk)
    plain = [ClipAnalysis(asset, c, roles) for c in asset.clips]
    primed = [ClipAnalysis(asset, c, roles) for c in asset.clips]
    prime_loop_continuity(primed)
    for a, b in zip(plain, primed):
        assert a.clip.start_s == pytest.approx(1 / 30)
        assert b.loop_grid is not b.grid and b.loop_grid._primed  # the keys' span, batched
        x, y = a.continuity, b.continuity
        for name in ("position_delta_m", "rotation_delta_deg", "seam_velocity_delta_mps", "seam_angular_velocity_delta_degps"):
            assert np.asarray(getattr(x, name)).tobytes() == np.asarray(getattr(y, name)).tobytes()
