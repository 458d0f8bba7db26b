"""Local poses, forward kinematics and pose grids against hand-computed poses."""

import math

import numpy as np

from animsmith.core.fk import forward_kinematics
from animsmith.core.localpose import local_pose
from animsmith.core.pose import pose_grid, sample_pose
from animsmith.core.timegrid import clip_duration_s, grid_times_s
from animsmith.model import Channel, Clip, Skeleton


def qaxis(axis, deg):
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    h = math.radians(deg) / 2
    return [*(a * math.sin(h)), math.cos(h)]


def assert_same_rotation(a, b, tol=1e-9):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    assert abs(abs(float(np.dot(a, b))) - 1.0) < tol, (a, b)


def rest_pose(sk):
    return sample_pose(sk, Clip("rest", []), [0.0])


# ---------------------------------------------------------------- FK by hand


def test_parent_rotated_90_about_y_with_scale_2_moves_child():
    # R_y(90) maps +X to -Z; scale 2 doubles the child's offset.
    sk = Skeleton.build(
        ["parent", "child"], [-1, 0],
        [[3, 0, 0], [1, 0, 0]],
        [qaxis([0, 1, 0], 90), [0, 0, 0, 1]],
        [[2, 2, 2], [1, 1, 1]],
    )
    g = rest_pose(sk)
    np.testing.assert_allclose(g.model_position_m[0, 0], [3, 0, 0], atol=1e-12)
    np.testing.assert_allclose(g.model_position_m[0, 1], [3, 0, -2], atol=1e-12)
    assert_same_rotation(g.model_rotation[0, 1], qaxis([0, 1, 0], 90))
    assert abs(np.linalg.norm(g.model_rotation[0, 1]) - 1) < 1e-12
    # the model matrix carries the scale: child's X axis is 2 * (0, 0, -1)
    np.testing.assert_allclose(g.model_matrix[0, 1, :3, 0], [0, 0, -2], atol=1e-12)


def test_chain_of_quarter_turns_about_z():
    # each bone turns +90 about Z and sits 1 m along its parent's X
    q = qaxis([0, 0, 1], 90)
    sk = Skeleton.build(["a", "b", "c"], [-1, 0, 1], [[0, 0, 0], [1, 0, 0], [1, 0, 0]], [q, q, q])
    g = rest_pose(sk)
    np.testing.assert_allclose(g.model_position_m[0], [[0, 0, 0], [0, 1, 0], [-1, 1, 0]], atol=1e-12)
    assert_same_rotation(g.model_rotation[0, 2], qaxis([0, 0, 1], 270))


def test_model_rotation_ignores_non_uniform_scale():
    # parent: 90 about Y with scale (1, 2, 3); child: 90 about X.
    # Model rotation is the product qy(90) * qx(90) = (0.5, 0.5, -0.5, 0.5).
    sk = Skeleton.build(
        ["p", "c"], [-1, 0], [[0, 0, 0], [0, 1, 0]],
        [qaxis([0, 1, 0], 90), qaxis([1, 0, 0], 90)], [[1, 2, 3], [1, 1, 1]],
    )
    g = rest_pose(sk)
    assert_same_rotation(g.model_rotation[0, 1], [0.5, 0.5, -0.5, 0.5])
    # position: R_y(90) * S * (0,1,0) = R_y(90) * (0,2,0) = (0,2,0)
    np.testing.assert_allclose(g.model_position_m[0, 1], [0, 2, 0], atol=1e-12)


def test_mirrored_parent_keeps_rotation_product():
    sk = Skeleton.build(
        ["p", "c"], [-1, 0], [[0, 0, 0], [1, 0, 0]],
        [[0, 0, 0, 1], qaxis([0, 0, 1], 30)], [[-1, -1, -1], [1, 1, 1]],
    )
    g = rest_pose(sk)
    np.testing.assert_allclose(g.model_position_m[0, 1], [-1, 0, 0], atol=1e-12)
    assert_same_rotation(g.model_rotation[0, 1], qaxis([0, 0, 1], 30))


def test_matrix_node_with_shear_moves_child_exactly():
    # x' = x + 0.5 y: the child at (0, 2, 0) lands at (1, 2, 0). The TRS
    # decomposition (identity here) cannot express shear; the matrix is used.
    shear = np.eye(4)
    shear[0, 1] = 0.5
    mats = np.stack([shear, np.eye(4)])
    mats[1, :3, 3] = [0, 2, 0]
    sk = Skeleton.build(
        ["sheared", "child"], [-1, 0], [[0, 0, 0], [0, 2, 0]],
        rest_matrix=mats, has_matrix=[True, False],
    )
    g = rest_pose(sk)
    np.testing.assert_allclose(g.model_position_m[0, 1], [1, 2, 0], atol=1e-12)
    np.testing.assert_allclose(g.model_matrix[0, 0], shear, atol=1e-12)
    # forward_kinematics on its own uses the matrix too when the TRS is the rest TRS
    t = np.array([[[0, 0, 0], [0, 2, 0]]], float)
    r = np.tile([0, 0, 0, 1.0], (1, 2, 1))
    s = np.ones((1, 2, 3))
    _, pos, _ = forward_kinematics(sk, t, r, s)
    np.testing.assert_allclose(pos[0, 1], [1, 2, 0], atol=1e-12)


def test_z_up_matrix_parent_turns_z_height_into_y():
    # -90 deg about X maps +Z (up in a Z-up export) to +Y.
    zup = np.eye(4)
    zup[:3, :3] = [[1, 0, 0], [0, 0, 1], [0, -1, 0]]
    mats = np.stack([zup, np.eye(4)])
    mats[1, :3, 3] = [0, 0, 1.5]
    sk = Skeleton.build(
        ["Z_UP", "hips"], [-1, 0], [[0, 0, 0], [0, 0, 1.5]],
        [qaxis([1, 0, 0], -90), [0, 0, 0, 1]],
        rest_matrix=mats, has_matrix=[True, False], is_joint=[False, True],
    )
    g = rest_pose(sk)
    np.testing.assert_allclose(g.model_position_m[0, 1], [0, 1.5, 0], atol=1e-12)
    assert_same_rotation(g.model_rotation[0, 1], qaxis([1, 0, 0], -90))


def test_armature_scale_001_moves_animated_hips_in_metres():
    # Mixamo-style: non-joint Armature scaled 0.01 over a hips bone in cm.
    sk = Skeleton.build(
        ["Armature", "mixamorig:Hips", "mixamorig:LeftUpLeg"], [-1, 0, 1],
        [[0, 0, 0], [0, 100, 0], [10, -5, 0]], None,
        [[0.01, 0.01, 0.01], [1, 1, 1], [1, 1, 1]], is_joint=[False, True, True],
    )
    clip = Clip("walk", [Channel.make(1, "translation", [0, 1], [[0, 100, 0], [0, 110, 20]])])
    g = pose_grid(sk, clip)
    np.testing.assert_allclose(g.times_s, [0, 1])
    np.testing.assert_allclose(g.model_position_m[:, 1], [[0, 1.0, 0], [0, 1.1, 0.2]], atol=1e-12)
    np.testing.assert_allclose(g.model_position_m[:, 2], [[0.1, 0.95, 0], [0.1, 1.05, 0.2]], atol=1e-12)


def test_animated_rotation_drives_children_over_frames():
    # root spins about Y by 0..90 deg; child 1 m along X traces a quarter circle.
    sk = Skeleton.build(["root", "tip"], [-1, 0], [[0, 0, 0], [1, 0, 0]])
    clip = Clip("spin", [Channel.make(0, "rotation", [0, 1, 2], [qaxis([0, 1, 0], a) for a in (0, 45, 90)])])
    g = sample_pose(sk, clip, [0.0, 0.5, 1.0, 2.0])
    ang = np.radians([0, 22.5, 45, 90])
    exp = np.stack([np.cos(ang), np.zeros(4), -np.sin(ang)], axis=1)
    np.testing.assert_allclose(g.model_position_m[:, 1], exp, atol=1e-9)
    for i, a in enumerate([0, 22.5, 45, 90]):
        assert_same_rotation(g.model_rotation[i, 1], qaxis([0, 1, 0], a))


# ---------------------------------------------------------------- local pose


def test_channel_overwrites_only_its_component_and_later_channel_wins():
    sk = Skeleton.build(["a"], [-1], [[1, 2, 3]], [qaxis([0, 0, 1], 10)], [[2, 2, 2]])
    clip = Clip("c", [
        Channel.make(0, "translation", [0, 1], [[0, 0, 0], [0, 0, 0]]),
        Channel.make(0, "translation", [0, 1], [[5, 5, 5], [7, 7, 7]]),
    ])
    t, r, s = local_pose(sk, clip, [0.5])
    np.testing.assert_allclose(t[0, 0], [6, 6, 6])
    assert_same_rotation(r[0, 0], qaxis([0, 0, 1], 10))
    np.testing.assert_allclose(s[0, 0], [2, 2, 2])


def test_translation_and_scale_sharing_key_times_land_in_their_own_arrays():
    times = np.array([0.0, 1.0], np.float32)
    sk = Skeleton.build(["a", "b"], [-1, 0])
    tr = Channel.make(0, "translation", times, [[0, 0, 0], [2, 0, 0]])
    sc = Channel.make(1, "scale", times, [[1, 1, 1], [3, 3, 3]])
    sc.times = tr.times  # the same array object, as a loader sharing one accessor gives
    t, r, s = local_pose(sk, Clip("c", [sc, tr]), [0.5])
    np.testing.assert_allclose(t[0], [[1, 0, 0], [0, 0, 0]])
    np.testing.assert_allclose(s[0], [[1, 1, 1], [2, 2, 2]])


def test_channel_on_missing_bone_is_ignored():
    sk = Skeleton.build(["a"], [-1])
    clip = Clip("c", [Channel.make(5, "translation", [0, 1], [[1, 1, 1], [2, 2, 2]])])
    g = pose_grid(sk, clip)
    np.testing.assert_allclose(g.model_position_m[:, 0], 0)


# ---------------------------------------------------------------- grid


def test_grid_uses_largest_key_count_and_ends_exactly_at_duration():
    sk = Skeleton.build(["a", "b"], [-1, 0])
    clip = Clip("c", [
        Channel.make(0, "translation", np.linspace(0, 0.7, 5), np.zeros((5, 3))),
        Channel.make(1, "translation", [0.0, 0.7, 2.1], np.zeros((3, 3))),
    ])
    t = grid_times_s(clip)
    dur = float(np.float32(2.1))
    assert t.shape == (5,)
    assert t[-1] == dur
    np.testing.assert_allclose(t, dur * np.arange(5) / 4, rtol=0, atol=1e-15)
    g = pose_grid(sk, clip)
    assert g.duration_s == clip.duration_s == dur
    np.testing.assert_array_equal(g.times_s, t)
    assert g.model_position_m.shape == (5, 2, 3)
    assert g.model_matrix.shape == (5, 2, 4, 4)
    assert g.model_rotation.shape == (5, 2, 4)


def test_grid_has_at_least_two_samples():
    clip = Clip("c", [Channel.make(0, "translation", [0.5], [[1, 2, 3]])])
    np.testing.assert_array_equal(grid_times_s(clip), [0.0, 0.5])
    assert grid_times_s(Clip("empty", [])).tolist() == [0.0, 0.0]


def test_clip_duration_matches_model_definition():
    clip = Clip("c", [
        Channel.make(0, "translation", [0, 1.5], np.zeros((2, 3))),
        Channel.make(0, "rotation", [0.2, np.inf], np.tile([0, 0, 0, 1.0], (2, 1))),
    ])
    assert clip_duration_s(clip) == clip.duration_s == 1.5


def test_pose_grid_positions_follow_analytic_feet():
    from builders import biped_skeleton, gait_clip

    clip = gait_clip("walk", frames=31, amplitude_m=0.05)
    g = pose_grid(biped_skeleton(), clip)
    h = 0.05 * np.sin(2 * np.pi * g.times_s)
    np.testing.assert_allclose(g.model_position_m[:, 2, 1], 0.1 + h, atol=1e-6)
    np.testing.assert_allclose(g.model_position_m[:, 3, 1], 0.1 - h, atol=1e-6)


def test_level_by_level_fk_equals_bone_by_bone_reference():
    """Random 40-bone tree, non-uniform scales, unnormalised input quaternions:
    the batched FK equals a plain per-bone loop of 4x4 products (model.trs_matrices)
    and quaternion products (core.quat.multiply)."""
    from animsmith.core import quat
    from animsmith.model import trs_matrices

    rng = np.random.default_rng(3)
    bones, frames = 40, 5
    parents = [-1] + [int(rng.integers(0, b)) for b in range(1, bones)]
    sk = Skeleton.build([f"b{i}" for i in range(bones)], parents)
    t = rng.normal(0, 1, (frames, bones, 3))
    r = rng.normal(0, 1, (frames, bones, 4)) * 3.0
    s = rng.uniform(0.5, 1.5, (frames, bones, 3))
    matrix, position, rotation = forward_kinematics(sk, t, r, s)
    rn = r / np.linalg.norm(r, axis=-1, keepdims=True)
    local = trs_matrices(t, rn, s)
    for f in range(frames):
        m_ref = [None] * bones
        q_ref = [None] * bones
        for b in range(bones):
            p = parents[b]
            m_ref[b] = local[f, b] if p < 0 else m_ref[p] @ local[f, b]
            q_ref[b] = rn[f, b] if p < 0 else quat.multiply(q_ref[p], rn[f, b])
            np.testing.assert_allclose(matrix[f, b], m_ref[b], atol=1e-9)
            np.testing.assert_allclose(position[f, b], m_ref[b][:3, 3], atol=1e-9)
            assert_same_rotation(rotation[f, b], q_ref[b], tol=1e-12)
            assert abs(np.linalg.norm(rotation[f, b]) - 1) < 1e-12


def test_hostile_key_times_never_raise_in_pose_grid():
    sk = Skeleton.build(["a", "b"], [-1, 0], [[0, 0, 0], [1, 0, 0]])
    clip = Clip("bad", [
        Channel.make(0, "translation", [0.0, 2.0, 1.0, np.nan], np.arange(12).reshape(4, 3)),
        Channel.make(1, "rotation", [-np.inf, 0.5, np.inf], [[0, 0, 0, 1], [np.nan] * 4, [0, 0, 0, 0]]),
        Channel.make(1, "scale", [0.0, 0.0, 0.0], [[1, 1, 1], [2, 2, 2], [3, 3, 3]], "CUBICSPLINE"),
    ])
    with np.errstate(all="raise"):
        g = pose_grid(sk, clip)
    assert g.duration_s == clip.duration_s == 2.0
    assert g.model_position_m.shape == (4, 2, 3)
    assert np.all(np.isfinite(g.model_position_m[:, 0]))


def test_clip_duration_with_non_increasing_times_is_the_largest_key():
    clip = Clip("c", [Channel.make(0, "translation", [0.0, 2.0, 1.0], np.zeros((3, 3)))])
    assert clip_duration_s(clip) == clip.duration_s == 2.0
    assert grid_times_s(clip)[-1] == 2.0
