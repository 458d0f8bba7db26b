"""Legs found by shape, when the bone names say nothing (:func:`legs_by_shape`).

Found by shape
--------------
In the rest pose (when it shows no legs: the first frame of the first clip), with
Y up:

* end joints = skin joints without joint children (every node when the file has
  no skin); the ground = the lowest end joint; an end joint is *low* when it lies
  within 15 % of the skeleton's height span above the ground;
* low end joints whose nearest common ancestor is itself within a quarter of the
  body's height above the ground are one foot (a heel and a toe): the foot is that
  ancestor;
* arms reaching the ground are no legs: when some feet hang on chains climbing more than
  40 % of the body's height above the body first (spine, shoulders) and the others on
  chains going straight down from it (at most 10 %), the climbing ones are arms;
* the body is the nearest common ancestor of the feet, and must stand above the
  highest foot by more than the low band (chains that do not hang are no legs);
* the character faces +Z, the glTF front (its left is +X). The clips' stride does not
  decide it (a clip walking backwards or sideways strides that way too), but when
  every clip that strides goes toward one other axis (:func:`stride_note`: relative
  to the body, feet in stance sweep backwards), a note says the sides and pairs may
  be swapped;
* sides by the sign of each foot's X offset from the feet's mean; both sides must
  hold as many feet; a chain on the
  centre line (a tail on the ground) is no leg when the others hang from a body of
  their own, else its side is unclear;
* pairs by Z (rear first): the i-th left foot from the rear pairs with the i-th
  right one; two feet of one side at the same Z make the order unclear;
* the first frame of the first clip must not contradict the rest pose: no other end
  joint may hang lower than the highest foot there (a crawl whose arms hang lower
  than its legs).

Every refusal says why; the shape rule never picks between equally good candidates.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from animsmith.core.legmap import MAX_LEGS, Leg, LegMap, ancestors, common_ancestor, default_leg_name, end_joints, ordered_legs

#: an end joint is low when within this share of the skeleton's height span of the ground
LOW_BAND_FRACTION = 0.15
#: low end joints whose common ancestor lies within this share of the body height are one foot
ONE_FOOT_FRACTION = 0.25
#: a low chain climbing more than this share of the body's height above the body is an arm
#: (a biped's shoulders stand about half its hips' height above them) ...
ARM_CLIMB_FRACTION = 0.4
#: ... when the other low chains climb at most this share (legs straight down from the body)
LEG_CLIMB_FRACTION = 0.1
#: a foot within this share of the span from the centre line has no side
CENTRE_LINE_FRACTION = 0.01
#: more low end joints than this (a mesh of joints, a hostile file) are no legs
MAX_LOW_ENDS = 4 * MAX_LEGS
#: a clip strides along a horizontal axis when its feet's stance sweep lies within this many degrees of it
FACING_SNAP_DEG = 30.0
#: ... and adds up to at least this share of the body's height above the feet
MIN_SWEEP_FRACTION = 0.05
#: a foot is in stance in this lowest share of its height swing (the stride note only)
STANCE_SWING_FRACTION = 0.25
#: clips, and samples per clip, read for the stride (bounded work on long files)
MAX_FACING_CLIPS = 16
MAX_FACING_SAMPLES = 241
#: the horizontal axes a clip may stride toward, with the yaw (degrees from +Z toward +X) of each
FACING_AXES = (("+Z", 0.0), ("+X", 90.0), ("-Z", 180.0), ("-X", -90.0))


# --------------------------------------------------------------------------
# Found by shape
# --------------------------------------------------------------------------


def _shape_feet(skeleton, pos: np.ndarray, where: str) -> Tuple[Optional[Tuple[List[int], int]], str]:
    """((feet, body), "") of the chains hanging lowest in ``pos``, or (None, why)."""
    names = skeleton.names
    parents = np.asarray(skeleton.parents)
    ends = end_joints(skeleton)
    if len(ends) < 2:
        return None, f"{where}: the skeleton has {len(ends)} end joint(s); legs need at least two"
    joints = np.asarray(skeleton.is_joint, dtype=bool)
    span_bones = np.nonzero(joints)[0] if joints.any() else np.arange(len(names))
    y = pos[:, 1]
    span = float(np.max(y[span_bones]) - np.min(y[span_bones]))
    if not np.isfinite(span) or span <= 0.0:
        return None, f"{where}: the skeleton has no height (every joint at one level): nothing hangs"
    ground = float(min(y[e] for e in ends))
    band = LOW_BAND_FRACTION * span
    low = [e for e in ends if y[e] - ground <= band]
    if len(low) > MAX_LOW_ENDS:
        return None, (
            f"{where}: {len(low)} end joints lie at the bottom of the skeleton: "
            f"too many to tell legs apart (at most {MAX_LOW_ENDS})"
        )
    if len(low) < 2:
        return None, (
            f"{where}: only {names[low[0]]!r} lies at the bottom of the skeleton "
            f"(legs need two or more end joints within {LOW_BAND_FRACTION:.0%} of its height of the ground)"
        )
    body = common_ancestor(parents, low)
    if body is None:
        return None, f"{where}: the lowest end joints have no common ancestor (separate skeletons)"
    body_h = float(y[body]) - ground
    # low end joints that meet near the ground are one foot (a heel and a toe)
    groups: List[List[int]] = []
    for e in low:
        for g in groups:
            a = common_ancestor(parents, g + [e])
            if a is not None and a != body and float(y[a]) - ground <= ONE_FOOT_FRACTION * body_h:
                g.append(e)
                break
        else:
            groups.append([e])
    feet = [g[0] if len(g) == 1 else common_ancestor(parents, g) for g in groups]
    if len(feet) < 2:
        return None, f"{where}: the lowest end joints all belong to one foot ({names[feet[0]]!r})"
    # arms reaching the ground: chains that climb far above the body (spine, shoulder)
    # before they hang, beside legs that go straight down from it
    arms: List[int] = []
    if body_h > 0.0:
        climb = {}
        for f in feet:
            path = ancestors(parents, f)
            path = path[: path.index(body)] if body in path else path
            climb[f] = (max(float(y[b]) for b in path) - float(y[body])) / body_h
        climbers = [f for f in feet if climb[f] > ARM_CLIMB_FRACTION]
        straight = [f for f in feet if climb[f] <= LEG_CLIMB_FRACTION]
        if climbers and len(straight) >= 2 and len(climbers) + len(straight) == len(feet):
            arms, feet = climbers, straight
    body = common_ancestor(parents, feet)
    top_foot = max(float(y[f]) for f in feet)
    if body is None or float(y[body]) - top_foot <= band:
        return None, (
            f"{where}: the lowest chains do not hang below a common ancestor "
            f"({', '.join(repr(names[f]) for f in feet[:4])} meet at {names[body]!r} "
            "without a drop)" if body is not None else f"{where}: the feet have no common ancestor"
        )
    return (feet, int(body), arms), ""


def _assign_sides(skeleton, pos: np.ndarray, feet: List[int], body: int, where: str,
                  arms: Sequence[int] = ()) -> Tuple[Optional[LegMap], str]:
    """Sides and pairs of the feet in ``pos``, the character facing +Z (its left +X)."""
    names = skeleton.names
    joints = np.asarray(skeleton.is_joint, dtype=bool)
    span_bones = np.nonzero(joints)[0] if joints.any() else np.arange(len(names))
    y = pos[:, 1]
    span = float(np.max(y[span_bones]) - np.min(y[span_bones]))
    x = pos[:, 0]
    centre = float(np.mean([x[f] for f in feet]))
    on_line = [f for f in feet if abs(float(x[f]) - centre) <= CENTRE_LINE_FRACTION * span]
    notes: List[str] = [
        f"{names[a]!r} reaches the ground ({where}) on a chain that climbs above {names[body]!r} first: an arm, no leg"
        for a in arms
    ]
    if on_line:
        sided = [f for f in feet if f not in on_line]
        parents = np.asarray(skeleton.parents)
        body2 = common_ancestor(parents, sided) if len(sided) >= 2 else None
        if body2 is None or float(y[body2]) - max(float(y[f]) for f in sided) <= LOW_BAND_FRACTION * span:
            return None, f"{where}: {names[on_line[0]]!r} lies on the centre line (X); its side is unclear"
        # legs come in left/right pairs: a chain on the centre line (a tail on the ground) is none
        feet, body = sided, int(body2)
        notes += [f"{names[f]!r} hangs low on the centre line ({where}): no leg, since legs come in left/right pairs" for f in on_line]
    left = sorted((f for f in feet if x[f] > centre), key=lambda f: float(pos[f, 2]))
    right = sorted((f for f in feet if x[f] < centre), key=lambda f: float(pos[f, 2]))
    if len(left) != len(right):
        return None, (
            f"{where}: {len(left)} low chain(s) on the left (+X) and {len(right)} on the right: "
            "they do not form mirror pairs"
        )
    for side in (left, right):
        for a, b in zip(side, side[1:]):
            if abs(float(pos[b, 2] - pos[a, 2])) <= CENTRE_LINE_FRACTION * span:
                return None, (
                    f"{where}: {names[a]!r} and {names[b]!r} stand at the same Z on one side: "
                    "which pair each belongs to is unclear"
                )
    count = len(left)
    legs = []
    for pair, (lf, rf) in enumerate(zip(left, right)):
        for side, foot in (("left", lf), ("right", rf)):
            legs.append(
                Leg(
                    name=default_leg_name(side, pair, count),
                    side=side,
                    pair=pair,
                    foot=int(foot),
                    found_by="shape",
                    why=f"lowest end joint of a chain from {names[body]!r} ({where}), "
                    f"{side} side ({'+X' if side == 'left' else '-X'}), pair {pair} of {count} from the rear (-Z): "
                    "facing +Z, the glTF front",
                )
            )
    return LegMap(legs=ordered_legs(legs), body=int(body), notes=notes, no_legs=[int(f) for f in list(on_line) + list(arms)]), ""


def clip_stride_axis(skeleton, clip, body: int, feet: Sequence[int]) -> Tuple[Optional[str], Optional[str]]:
    """(axis, None): the horizontal axis (``+Z``, ``+X``, ``-Z``, ``-X``) the character strides
    toward in ``clip``, or (None, why). A foot in stance stays put while the body moves on, so relative
    to the body the stance feet sweep backwards, in place or travelling: the stride goes
    opposite their summed sweep (a foot is in stance in the lowest quarter of its height
    swing). The sweep must add up to :data:`MIN_SWEEP_FRACTION` of the body's height above
    the feet and lie within :data:`FACING_SNAP_DEG` of an axis."""
    from animsmith.core.pose import LazyPoseGrid
    from animsmith.core.timegrid import clip_duration_s, grid_times_s

    if not clip.channels:
        return None, "no channels"
    try:
        times = grid_times_s(clip)
        if len(times) > MAX_FACING_SAMPLES:
            times = np.linspace(float(times[0]), float(times[-1]), MAX_FACING_SAMPLES)
        grid = LazyPoseGrid(skeleton, clip, times, clip_duration_s(clip))
        pos = np.asarray(grid.model_positions_m([int(body)] + [int(f) for f in feet]), dtype=np.float64)
    except Exception:  # malformed key times: the checks report them; no stride to read
        return None, "its key times cannot be sampled"
    if pos.shape[0] < 3 or not np.all(np.isfinite(pos)):
        return None, "too few finite samples"
    h = pos[:, 1:, 1]
    lo, hi = h.min(axis=0), h.max(axis=0)
    height = float(np.mean(pos[:, 0, 1]) - np.mean(lo))
    if not height > 0.0:
        return None, "the feet do not hang below the body"
    stance = (h - lo) <= STANCE_SWING_FRACTION * (hi - lo)
    stance &= (hi - lo) > 1e-6 * height  # a foot that never lifts shows no stride
    rel = pos[:, 1:, :] - pos[:, :1, :]
    both = stance[:-1] & stance[1:]
    sweep = np.where(both[..., None], np.diff(rel, axis=0), 0.0).sum(axis=(0, 1))
    length = float(np.hypot(sweep[0], sweep[2]))
    if length < MIN_SWEEP_FRACTION * height:
        return None, "its feet do not sweep along the ground"
    yaw = float(np.degrees(np.arctan2(-sweep[0], -sweep[2])))
    for axis, axis_yaw in FACING_AXES:
        d = abs((yaw - axis_yaw + 180.0) % 360.0 - 180.0)
        if d <= FACING_SNAP_DEG:
            return axis, None
    return None, f"the stride runs {yaw:.0f} degrees from +Z, between the axes"


def stride_note(asset, body: int, feet: Sequence[int]) -> Optional[str]:
    """A note when every clip that strides along an axis (:func:`clip_stride_axis`) strides
    along one other than +Z: the shape rule takes the glTF front +Z (a clip walking
    backwards or sideways strides that way too, so the stride decides nothing), but a
    character modelled facing that axis gets its sides and pairs swapped."""
    seen: Dict[str, List[str]] = {}
    for clip in asset.clips[:MAX_FACING_CLIPS]:
        axis, _ = clip_stride_axis(asset.skeleton, clip, body, feet)
        if axis is not None:
            seen.setdefault(axis, []).append(str(clip.name))
    if len(seen) != 1 or "+Z" in seen:
        return None
    axis, clips = next(iter(seen.items()))
    shown = ", ".join(repr(c) for c in clips[:3]) + (" ..." if len(clips) > 3 else "")
    return (
        f"the legs found by shape take the glTF front +Z, but {shown} stride{'s' if len(clips) == 1 else ''} "
        f"toward {axis}: if the character faces {axis}, its sides and pairs are swapped; declare them in [rig.legs]"
    )


def legs_by_shape(asset, rest_pos: np.ndarray, frame_pos: Optional[np.ndarray], clip_name: Optional[str]) -> LegMap:
    """Legs from the rest pose (else the first frame), checked against the first frame,
    sides and pairs with the character facing +Z (module docstring). A refusal is
    a LegMap without legs and with the reason."""
    skeleton = asset.skeleton
    names = skeleton.names

    def attempt(pos: np.ndarray, where: str) -> Tuple[Optional[LegMap], str]:
        found, why = _shape_feet(skeleton, pos, where)
        if found is None:
            return None, why
        feet, body, arms = found
        legs, why = _assign_sides(skeleton, pos, feet, body, where, arms)
        if legs is not None:
            note = stride_note(asset, body, [leg.foot for leg in legs.legs])
            if note:
                legs.notes.append(note)
        return legs, why

    found, why = attempt(rest_pos, "rest pose")
    where_pos = rest_pos
    if found is None and frame_pos is not None:
        found2, why2 = attempt(frame_pos, f"first frame of {clip_name!r}")
        if found2 is None:
            return LegMap(unresolved=f"no legs by shape: {why}; {why2}")
        found, where_pos = found2, frame_pos
    if found is None:
        return LegMap(unresolved=f"no legs by shape: {why}")
    if frame_pos is not None and where_pos is rest_pos:
        feet = {leg.foot for leg in found.legs}
        y = frame_pos[:, 1]
        top = max(float(y[f]) for f in feet)
        below = [e for e in end_joints(skeleton) if not _under_any(skeleton.parents, e, feet | set(found.no_legs)) and float(y[e]) < top]
        if below:
            hi = max(feet, key=lambda f: float(y[f]))
            return LegMap(
                unresolved=(
                    f"no legs by shape: in the first frame of {clip_name!r}, {names[below[0]]!r} hangs lower "
                    f"than the foot {names[hi]!r} of the rest pose: which chains are legs is unclear"
                )
            )
    return found


def _under_any(parents, bone: int, feet) -> bool:
    return any(b in feet for b in ancestors(parents, bone))
