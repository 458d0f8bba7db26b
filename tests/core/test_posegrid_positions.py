"""A positions-only pose grid (``PoseGrid.of_positions``): it answers where bones are and
refuses, by name, what it does not hold."""

import math

import numpy as np
import pytest

from animsmith.core.circular import circular_distance_cycles
from animsmith.core.gait import gait_metrics
from animsmith.core.roles import RoleMap
from animsmith.model import PoseGrid, PositionsOnly


def _bobbing_feet(frames=31, shift=0.0):
    """Hips still; feet bob 0.2 m in antiphase, the left foot at 0.1 + 0.2·sin(2π(k/30 − shift)):
    the left-minus-right height 0.4·sin(2π(k/30 − shift)) has its trough (the stride
    anchor) at 0.75 + shift cycles."""
    k = np.arange(frames)
    h = 0.2 * np.sin(2 * np.pi * (k / (frames - 1) - shift))
    pos = np.zeros((frames, 3, 3))
    pos[:, 0, 1] = 1.0
    pos[:, 1, 0], pos[:, 1, 1] = 0.1, 0.1 + h
    pos[:, 2, 0], pos[:, 2, 1] = -0.1, 0.1 - h
    roles = RoleMap(bones={"hips": 0, "left_foot": 1, "right_foot": 2}, names={"hips": "h", "left_foot": "l", "right_foot": "r"})
    return k / 30.0, pos, roles


def test_positions_are_answered_as_on_any_grid():
    t, pos, _ = _bobbing_feet()
    grid = PoseGrid.of_positions(t, pos, 1.0)
    assert isinstance(grid, PoseGrid)
    assert grid.frame_count == 31 and grid.duration_s == 1.0
    np.testing.assert_array_equal(grid.model_positions_m([2, 0]), pos[:, [2, 0]])
    np.testing.assert_array_equal(grid.times_s, t)


@pytest.mark.parametrize(
    "ask, missing",
    [
        (lambda g: g.model_rotation, "model_rotation"),
        (lambda g: g.model_matrix, "model_matrix"),
        (lambda g: g.local_rotation, "local_rotation"),
        (lambda g: g.model_rotations([0]), "model_rotation"),
        (lambda g: g.pose_at([0, 1]), "local_translation"),
        (lambda g: g.model_pose_at([0]), "model_rotation"),
    ],
)
def test_what_it_does_not_hold_is_refused_by_name(ask, missing):
    t, pos, _ = _bobbing_feet()
    grid = PoseGrid.of_positions(t, pos)
    with pytest.raises(PositionsOnly, match=f"positions only.*no {missing}"):
        ask(grid)
    assert not hasattr(grid, "model_rotation")  # an AttributeError: no stand-in value


def test_positions_must_match_the_sample_times():
    t, pos, _ = _bobbing_feet()
    with pytest.raises(ValueError, match=r"\(N, B, 3\) with N = 30"):
        PoseGrid.of_positions(t[:-1], pos)


def test_the_stride_anchor_is_measured_on_a_positions_only_grid():
    # the analytic trough of the left-minus-right foot height: 0.75 + 0.1 = 0.85 cycles
    t, pos, roles = _bobbing_feet(shift=0.1)
    gm = gait_metrics(PoseGrid.of_positions(t, pos, 1.0), roles)
    assert gm.gait_phase is not None and not math.isnan(gm.gait_phase)
    assert circular_distance_cycles(gm.gait_phase, 0.85) < 1e-6
