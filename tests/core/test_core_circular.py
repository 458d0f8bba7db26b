"""Circular statistics of phases (animsmith.core.circular) against hand-worked values.

Expectations come from the circle itself: distances read off the unit circle, means
from atan2 of the summed unit vectors worked by hand, spreads as the largest of those
distances.
"""

import math

import pytest

from animsmith.core.circular import (
    circular_distance_cycles,
    circular_mean_cycles,
    circular_spread,
    circular_spread_cycles,
)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (0.98, 0.02, 0.04),  # across the wrap, not 0.96
        (0.02, 0.98, 0.04),  # symmetric
        (0.25, 0.75, 0.5),  # opposite points: the largest distance there is
        (0.1, 0.3, 0.2),
        (1.1, 0.0, 0.1),  # whole turns do not count
        (-0.25, 0.25, 0.5),
        (0.4, 0.4, 0.0),
    ],
)
def test_distance_is_the_shorter_way_round(a, b, expected):
    assert circular_distance_cycles(a, b) == pytest.approx(expected, abs=1e-12)
    assert 0.0 <= circular_distance_cycles(a, b) <= 0.5


def test_mean_of_phases_either_side_of_zero_is_zero():
    # unit vectors at ±0.02 cycles sum to a vector along +x: angle 0
    m = circular_mean_cycles([0.98, 0.02])
    assert circular_distance_cycles(m, 0.0) < 1e-12


def test_mean_of_three_quarter_turns_and_one_half():
    # 3 × (0, −1) + (−1, 0) = (−1, −3) as (cos, sin): atan2(−3, −1) / 2π mod 1
    expected = (math.atan2(-3.0, -1.0) / (2 * math.pi)) % 1.0
    assert circular_mean_cycles([0.75, 0.75, 0.50, 0.75]) == pytest.approx(expected, abs=1e-12)
    assert expected == pytest.approx(0.5 + math.atan(3) / (2 * math.pi), abs=1e-12)


def test_spread_returns_mean_largest_distance_and_each_distance():
    phases = [0.1, 0.2, 0.3]
    mean, spread, dists = circular_spread(phases)
    # symmetric about 0.2: the summed vectors point at 0.2
    assert mean == pytest.approx(0.2, abs=1e-12)
    assert dists == pytest.approx([0.1, 0.0, 0.1], abs=1e-12)
    assert spread == pytest.approx(0.1, abs=1e-12)
    assert circular_spread_cycles(phases) == spread


def test_antiphase_pair_takes_the_shortest_arc_centre():
    # (0.25, 0.75) cancel: no mean direction; the shortest arc holding both is half a turn
    # long, so each is a quarter turn from its centre
    mean, spread, dists = circular_spread([0.25, 0.75])
    assert spread == pytest.approx(0.25, abs=1e-12)
    assert dists == pytest.approx([0.25, 0.25], abs=1e-12)
    assert min(circular_distance_cycles(mean, 0.0), circular_distance_cycles(mean, 0.5)) < 1e-12


def test_no_phases_have_no_spread():
    mean, spread, dists = circular_spread([])
    assert (spread, dists) == (0.0, [])
    assert circular_spread_cycles(iter(())) == 0.0
