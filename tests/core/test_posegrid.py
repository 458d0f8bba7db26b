"""Every pose grid answers the same four questions (model_positions_m, model_rotations,
pose_at, model_pose_at), checked against a hand-computed pose.

Rig: hips at (0, 1, 0), a foot 1 m along the hips' +X and a toe 0.5 m further. The hips
turn about +Y by 0, 45 and 90 degrees at keys 0, 1 and 2 s, so at frame k (t = k s)
θ = 45k degrees, R_y(θ) maps +X to (cos θ, 0, −sin θ): the foot stands at
(cos θ, 1, −sin θ), the toe at (1.5 cos θ, 1, −1.5 sin θ), and both turn by θ about +Y.
"""

import math

import numpy as np
import pytest

from animsmith.core.pose import LazyPoseGrid, pose_grid, sample_pose
from animsmith.core.timegrid import grid_times_s
from animsmith.model import Channel, Clip, PoseGrid, Skeleton


def qy(deg):
    h = math.radians(deg) / 2
    return [0.0, math.sin(h), 0.0, math.cos(h)]


def rig_and_clip():
    sk = Skeleton.build(["hips", "foot", "toe"], [-1, 0, 1], [[0, 1, 0], [1, 0, 0], [0.5, 0, 0]])
    clip = Clip("turn", [Channel.make(0, "rotation", [0, 1, 2], [qy(0), qy(45), qy(90)])])
    return sk, clip


def expected_positions(frames):
    out = []
    for k in frames:
        th = math.radians(45 * k)
        c, s = math.cos(th), math.sin(th)
        out.append([[0, 1, 0], [c, 1, -s], [1.5 * c, 1, -1.5 * s]])
    return np.array(out)


def assert_same_rotations(got, degrees):
    # q and −q are the same rotation
    for q, deg in zip(got, degrees):
        want = np.array(qy(deg))
        assert abs(abs(float(np.dot(q, want))) - 1.0) < 1e-6, (q, deg)


def grids():
    sk, clip = rig_and_clip()
    return {"full": sample_pose(sk, clip, grid_times_s(clip)), "lazy": pose_grid(sk, clip)}


@pytest.mark.parametrize("kind", ["full", "lazy"])
def test_bone_questions_give_the_hand_computed_pose(kind):
    g = grids()[kind]
    assert isinstance(g, PoseGrid)
    assert (kind == "lazy") == isinstance(g, LazyPoseGrid)
    np.testing.assert_allclose(g.times_s, [0.0, 1.0, 2.0])
    pos = g.model_positions_m([2, 0])
    assert pos.shape == (3, 2, 3)
    np.testing.assert_allclose(pos, expected_positions([0, 1, 2])[:, [2, 0]], atol=1e-6)
    rot = g.model_rotations([1])
    assert rot.shape == (3, 1, 4)
    assert_same_rotations(rot[:, 0], [0, 45, 90])


@pytest.mark.parametrize("kind", ["full", "lazy"])
def test_sample_questions_give_the_hand_computed_pose(kind):
    g = grids()[kind]
    some = g.pose_at([2, 1])
    assert isinstance(some, PoseGrid)
    assert some.frame_count == 2
    np.testing.assert_allclose(some.times_s, [2.0, 1.0])
    assert some.duration_s == 2.0
    np.testing.assert_allclose(some.model_position_m, expected_positions([2, 1]), atol=1e-6)
    np.testing.assert_allclose(some.model_matrix[..., :3, 3], expected_positions([2, 1]), atol=1e-6)
    assert_same_rotations(some.local_rotation[:, 0], [90, 45])
    pos, rot = g.model_pose_at([0, 2])
    assert pos.shape == (2, 3, 3) and rot.shape == (2, 3, 4)
    np.testing.assert_allclose(pos, expected_positions([0, 2]), atol=1e-6)
    assert_same_rotations(rot[:, 2], [0, 90])


def test_the_lazy_grid_answers_with_the_full_grids_bytes():
    g = grids()
    full, lazy = g["full"], g["lazy"]
    assert lazy.model_positions_m([1, 2]).tobytes() == full.model_positions_m([1, 2]).tobytes()
    assert lazy.model_rotations([2, 0]).tobytes() == full.model_rotations([2, 0]).tobytes()
    for a, b in zip(lazy.model_pose_at([1]), full.model_pose_at([1])):
        assert a.tobytes() == b.tobytes()
    some_lazy, some_full = lazy.pose_at([0, 2]), full.pose_at([0, 2])
    for name in ("times_s", "local_translation", "local_rotation", "local_scale", "model_matrix", "model_position_m", "model_rotation"):
        assert getattr(some_lazy, name).tobytes() == getattr(some_full, name).tobytes(), name


def test_a_grid_of_positions_only_answers_position_questions():
    # a grid holding only model positions (a rolled or closed gait cycle): the bone
    # question reads those positions, frame by frame
    pos = np.arange(4 * 2 * 3, dtype=float).reshape(4, 2, 3)
    g = PoseGrid.of_positions(np.linspace(0.0, 1.0, 4), pos, 1.0)
    got = g.model_positions_m([1])
    assert got.shape == (4, 1, 3)
    assert got[:, 0].tolist() == [[3, 4, 5], [9, 10, 11], [15, 16, 17], [21, 22, 23]]
    assert g.model_positions_m(np.array([1, 0]))[2].tolist() == [[15, 16, 17], [12, 13, 14]]
