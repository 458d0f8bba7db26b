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
