"""The judged grid computes FK per bone subset on demand: hand-computed poses,
and bit-for-bit the same values as full-skeleton FK."""

import math

import numpy as np

from animsmith.core.pose import LazyPoseGrid, pose_grid, sample_pose
from animsmith.model import Channel, Clip, Skeleton


def _branchy():
    # 0 root -> 1 spine -> 2 head ; 0 -> 3 leg -> 4 foot ; 0 -> 5 other (a branch nobody asks for)
    sk = Skeleton.build(
        ["root", "spine", "head", "leg", "foot", "other"],
        [-1, 0, 1, 0, 3, 0],
        rest_translation=[[0, 1, 0], [0, 0.5, 0], [0, 0.3, 0], [0.1, 0, 0], [0, -0.9, 0], [0, 0, 1]],
    )
    t = np.array([0.0, 1.0])
    h = math.radians(90.0) / 2
    qz = [0.0, 0.0, math.sin(h), math.cos(h)]  # +90 deg about Z at t = 1
    clip = Clip(
        "c",
        [
            Channel.make(0, "translation", t, [[0, 1, 0], [2, 1, 0]]),
            Channel.make(3, "rotation", t, [[0, 0, 0, 1], qz]),
            Channel.make(5, "scale", t, [[1, 1, 1], [3, 3, 3]]),
        ],
    )
    return sk, clip


def test_subset_positions_match_hand_computed_fk():
    sk, clip = _branchy()
    g = pose_grid(sk, clip)
    assert isinstance(g, LazyPoseGrid)
    foot = g.model_positions_m([4])[:, 0]
    # t = 0: root (0,1,0) + leg (0.1,0,0) + foot (0,-0.9,0)
    np.testing.assert_allclose(foot[0], [0.1, 0.1, 0.0], atol=1e-12)
    # t = 1: root at (2,1,0); leg rotated +90 deg about Z maps (0,-0.9,0) to (0.9,0,0)
    np.testing.assert_allclose(foot[-1], [2.1 + 0.9, 1.0, 0.0], atol=1e-12)
    rot = g.model_rotations([4])[:, 0]
    np.testing.assert_allclose(rot[-1], [0, 0, math.sin(math.radians(45)), math.cos(math.radians(45))], atol=1e-12)
    # only the ancestor chain of the foot was computed
    assert set(g._pos) == {0, 3, 4}


def test_subset_values_equal_full_fk_bit_for_bit():
    sk, clip = _branchy()
    g = pose_grid(sk, clip)
    full = sample_pose(sk, clip, g.times_s)
    for bones in ([4], [2, 4], [5, 0, 3], list(range(6))):
        assert np.array_equal(g.model_positions_m(bones), full.model_position_m[:, bones])
        assert np.array_equal(g.model_rotations(bones), full.model_rotation[:, bones])
    # full attributes of the lazy grid are the full computation
    for name in ("model_matrix", "model_position_m", "model_rotation", "local_translation", "local_rotation", "local_scale"):
        assert np.array_equal(getattr(g, name), getattr(full, name)), name
    # and subset queries after the full grid exists read from it
    assert np.array_equal(g.model_positions_m([5]), full.model_position_m[:, [5]])


def test_helpers_accept_a_plain_pose_grid():
    sk, clip = _branchy()
    full = sample_pose(sk, clip, [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(full.model_positions_m([4, 1]), full.model_position_m[:, [4, 1]])
    np.testing.assert_array_equal(full.model_rotations([2]), full.model_rotation[:, [2]])
