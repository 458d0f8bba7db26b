"""The cycle of a proven clip: E key frames (an open loop: the wrap step is a real frame)
or E − 1 (the last key repeats the first within the endpoint tolerance), or
``mixed_endpoint`` when the channels disagree."""

from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import numpy as np

from animsmith.errors import Refusal
from animsmith.transform.gait_anchor.proofs import (
    CAP_HORIZONTAL_DRIFT_M,
    CAP_YAW_DEG,
    TOLERATED_DRIFT_M,
    TOLERATED_YAW_DEG,
    name_of_bone,
    channel_label,
    refuse,
    shown,
)

def cycle_period(
    skeleton, clip, rotated: Sequence[int], frames: int, trajectory: Optional[int] = None, closing: Tuple[float, float] = (0.0, 0.0)
) -> Tuple[int, float]:
    """(key frames in one cycle, closing-key delta).

    The convention is read from the rotated channels other than the trajectory bone's
    translation and rotation (``trajectory``), whose endpoints the drift and yaw proofs
    already bound:

    * every one of them repeats its first key (``core.endpoint``'s tolerance, judged in model
      space: 0.1 mm, 0.01°, 1e-4 relative scale — float storage and exporter noise) → E − 1, a duplicated
      endpoint. The trajectory bone must then close within the in-place caps (+4 float32
      ulps): ``closing`` = (its 3-D model-space distance between the first and last frame in
      metres, the angle between its first and last model rotations in degrees) within 1 cm
      and 1°, else ``mixed_endpoint``. The delta is the largest component
      difference between a closing key and the first key (rotations sign-invariantly: −q is
      the same rotation); every closing key is replaced by an exact copy of the new first key
      (a simulator or DCC that evaluates t = 0 and t = d separately leaves last-bit
      differences; a root within the caps loses its sub-centimetre, sub-degree drift);
    * some do and some do not, and those that do while moving on both sides of the wrap
      (``_moves_at_wrap``; one still on either side closes under either convention) are at
      least as many as those that do not → ``mixed_endpoint``: either cycle would move one
      kind's seam into the clip;
    * else (E, 0.0): an open loop (the wrap step is a real frame).

    Refuses ``no_stride_anchor`` for a duplicated endpoint on 3 keys (2 unique frames).
    """
    from animsmith.core.endpoint import last_key_repeats_first

    def opens(i: int) -> bool:
        return not last_key_repeats_first(skeleton, clip.channels[i])

    root = [i for i in rotated if clip.channels[i].bone == trajectory and clip.channels[i].path in ("translation", "rotation")]
    vote = [i for i in rotated if i not in root]
    if not vote:
        return frames, 0.0
    open_ones = [i for i in vote if opens(i)]
    if open_ones:
        closing_moving = sum(1 for i in vote if i not in open_ones and _moves_at_wrap(skeleton, clip.channels[i]))
        if closing_moving and closing_moving >= len(open_ones):
            ch = clip.channels[open_ones[0]]
            raise _mixed(
                skeleton, clip, open_ones[0],
                f"{closing_moving} rotated channel{'s' if closing_moving != 1 else ''} moving at the wrap end on "
                f"{'their' if closing_moving != 1 else 'its'} first key (a duplicated endpoint) "
                f"and {len(open_ones)} {'does' if len(open_ones) == 1 else 'do'} not: "
                f"{channel_label(skeleton, open_ones[0], ch)} {_closing_gap_text(skeleton, ch)}"
                f"{'' if len(open_ones) == 1 else ' (the first of them)'}",
            )
        return frames, 0.0
    for i in root:
        ch = clip.channels[i]
        if not opens(i):
            continue
        # measured on the pose (metres in model space, as the drift proofs are), not on the
        # channel's own values, which are in the file's units (centimetres under a 0.01 parent)
        if ch.path == "rotation":
            gap, cap, tolerated, unit, digits = closing[1], CAP_YAW_DEG, TOLERATED_YAW_DEG, "deg", 3
        else:
            gap, cap, tolerated, unit, digits = closing[0], CAP_HORIZONTAL_DRIFT_M, TOLERATED_DRIFT_M, "m", 4
        if not (gap <= tolerated):
            raise _mixed(
                skeleton, clip, i,
                f"every other rotated channel ends on its first key (a duplicated endpoint) but "
                f"{channel_label(skeleton, i, ch)} leaves the bone {shown(gap, cap, digits)} {unit} from its "
                f"first frame's pose at the last frame (cap {cap:.{digits}f} {unit})",
            )
    if frames < 4:
        raise refuse(
            "no_stride_anchor", clip.name, name_of_bone(skeleton, clip.channels[vote[0]].bone), frames - 1, 3,
            f"the last of the {frames} keys repeats the first, leaving {frames - 1} unique frames; a stride needs at least 3",
            "gait-anchor only whole cycles; use runtime phase offsets instead",
        )
    delta = 0.0
    for i in rotated:
        ch = clip.channels[i]
        first, last = np.asarray(ch.values[0], dtype=np.float64), np.asarray(ch.values[-1], dtype=np.float64)
        d = float(np.max(np.abs(last - first)))
        if ch.path == "rotation":  # −q is the same rotation
            d = min(d, float(np.max(np.abs(last + first))))
        delta = max(delta, d)
    return frames - 1, delta


def trajectory_closing(grid, bone: int) -> Tuple[float, float]:
    """(metres, degrees): how far the trajectory bone's last frame is from its first in model
    space — the 3-D distance (float32) and the angle between the model rotations."""
    from animsmith.core.quat import angle_between_rad

    p = np.asarray(grid.model_position_m[:, bone], dtype=np.float32)
    q = np.asarray(grid.model_rotation[:, bone], dtype=np.float64)
    return float(np.linalg.norm(p[-1] - p[0])), math.degrees(float(angle_between_rad(q[0], q[-1])))


def _mixed(skeleton, clip, index: int, what: str) -> Refusal:
    """``mixed_endpoint``: the channels disagree on whether the last key repeats the first."""
    ch = clip.channels[index]
    return refuse(
        "mixed_endpoint", clip.name, name_of_bone(skeleton, ch.bone), channel_label(skeleton, index, ch),
        "one endpoint convention",
        f"{what}; rotating over either cycle would move a seam into the clip "
        "(a pose held for two frames, or a closing key that is not the first pose)",
        "make the last frame repeat the first on every channel (or on none) in the DCC and re-export, "
        "or use runtime phase offsets instead",
    )


def _moves_at_wrap(skeleton, ch) -> bool:
    """The channel's first and last steps (key 0 → 1 and key E−2 → E−1) both move beyond the
    endpoint tolerance (``core.endpoint``). A channel still on either side (a foot planted
    into or out of the wrap) ends on its first key under either convention."""
    from animsmith.core.endpoint import step_moves

    return step_moves(skeleton, ch, 0) and step_moves(skeleton, ch, -2)


def _closing_gap_text(skeleton, ch) -> str:
    """How far a channel's last key is from its first: degrees for rotations (sign-invariant),
    metres in model space for translations (``core.endpoint.translation_unit_m``), else the
    largest component."""
    first = np.asarray(ch.values[0], dtype=np.float64)
    last = np.asarray(ch.values[-1], dtype=np.float64)
    if ch.path == "rotation":
        from animsmith.core.quat import angle_between_rad

        return f"ends {math.degrees(float(angle_between_rad(first, last))):.3g} deg from its first key"
    if ch.path == "translation":
        from animsmith.core.endpoint import translation_unit_m

        metres = float(np.linalg.norm(last - first)) * float(translation_unit_m(skeleton, [ch.bone])[0])
        return f"ends {metres:.3g} m from its first key"
    return f"ends {float(np.max(np.abs(last - first))):.3g} (largest component) from its first key"
