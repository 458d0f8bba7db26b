"""Foot-cycle retiming: warp ring members in time onto a reference member's contact phases.

For a declared in-place ring (``[gait_groups.<name>]``), every member except
the reference is retimed so its four contact events — left plant, left lift,
right plant, right lift — happen at the reference's phases.

Definitions (one member, frame rate fps, E frames at t_k = f32(k/fps),
duration d = (E − 1)/fps; the cycle is the C samples 0..C−1 of gait anchoring's
period: C = E − 1 when the last key repeats the first (a duplicated endpoint, as
``core.gait`` reads every clip), C = E for an open loop, whose wrap step is a
real frame):

* **Proofs first**: the member passes every gait-anchor proof
  (``gait_anchor.prove_gait_anchor``: finite keys, unique channels, the
  clip's travel bone (and the hips below an animated root) ≤ 1 cm and ≤ 1°, whole-frame grid, one key per frame on every
  nonconstant channel, no nonconstant CUBICSPLINE, work bounds, a stride
  anchor with amplitude ≥ 0.03 m).
* **Stance** comes from the core (``core.contacts.stance_mask`` on the
  model-space height of the left_foot / right_foot bones over the cycle,
  ``contact_events`` for the runs); a run touching both ends of the cycle
  wraps. This is the height rule alone, not the stance decision of ``foot-slide``
  and the report (``core.contacts.feet_stance``: authored markers, else low AND
  vertically still), because the question differs: not "on which samples is the foot
  planted, so its slide can be measured" but "when does the foot cross the contact
  height", a time between frames that the warp moves and the proof after writing
  re-measures from the poses alone (markers in the source would not follow the
  retime), on a cycle that wraps (the vertical-speed rule is one-sided at the
  clip's ends). The vertical-speed rule would also cut the frames either side of a
  crossing out of the run: on the shipped run-ring example the events would move by
  up to three frames. **V1 contact topology**: each foot has exactly one stance run per
  cycle and is not in stance on every frame; plant phase = first stance frame
  / C, lift phase = last stance frame / C, each refined to where the foot height
  crosses the contact height between that frame and its swing neighbour
  (:func:`crossing_frame`, linear). Anything else refuses (``contact_topology``).
* **Time warp**: a monotone, cyclic, piecewise-linear map w with w(r_i) = m_i
  for the four events (r = reference phases, m = member phases). The events
  must occur in the same cyclic order in both clips (``contact_order``
  otherwise). Output frame k samples the member at source time
  (w(k/C) mod 1)·C/fps with the core's glTF sampler (LINEAR rotations by
  shortest-path slerp; an open loop's last key blends into its first over the
  wrap step); times, key counts and interpolation stay as they are, constant
  channels are untouched, and each member keeps its endpoint convention (a
  duplicated endpoint's last frame is w(1) = w(0) + 1, the copy of frame 0).
* **Proof after writing** (``verify_retimed``): the outputs are re-loaded and
  re-measured by the core; every member's events must lie within one frame of
  the reference's and its stride anchor within 0.5 frame of the reference's
  (``foot_cycle_unproven`` otherwise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from animsmith.errors import Refusal
from animsmith.core.circular import circular_distance_cycles
from animsmith.core.tolerance import frame_times_f32
from animsmith.transform.gait_anchor import AnchorPlan, prove_gait_anchor

DEFAULT_CONTACT_HEIGHT_M = 0.03
EVENT_NAMES = ("left_plant", "left_lift", "right_plant", "right_lift")
MAX_EVENT_ERROR_FRAMES = 1.0
MAX_ANCHOR_ERROR_FRAMES = 0.5


def _refuse(code: str, clip: str, bone: Optional[str], measured, limit, what: str, advice: str) -> Refusal:
    where = f"clip {clip!r}" + (f", bone {bone!r}" if bone else "")
    return Refusal(code=code, message=f"cannot retime {where}: {what}; {advice}", clip=clip, bone=bone, measured=measured, limit=limit)


def name_file(exc: Refusal, path: str) -> Refusal:
    """``exc`` naming the member's file after its clip (``cannot retime clip 'mixamo.com' in
    run_left.glb, ...``): a group across files may hold one clip name in each (Mixamo
    downloads are all ``mixamo.com``), and the clip name alone does not say which."""
    if exc.clip is not None:
        head = f"cannot retime clip {exc.clip!r}"
        exc.message = exc.message.replace(head, f"{head} in {path}", 1)
        exc.args = (exc.message,)
    return exc


TOPOLOGY_ADVICE = (
    "align contacts in the DCC, add explicit contact/phase markers, or use a phase-remap strategy in the runtime instead"
)


@dataclass
class FootEvents:
    """Contact-event phases of one clip (cycles in [0, 1)) and its cycle length in frames."""

    phases: Dict[str, float]
    cycle_frames: int

    def as_list(self) -> List[float]:
        return [self.phases[n] for n in EVENT_NAMES]

    def to_json(self) -> Dict[str, float]:
        return {n: round(self.phases[n], 6) for n in EVENT_NAMES}


@dataclass
class MemberPlan:
    """One member's proven retime (values per nonconstant channel index)."""

    clip: str
    clip_index: int
    source: str
    fps: float
    frames: int
    anchor: AnchorPlan
    events_before: FootEvents
    target: FootEvents
    reference: bool = False
    new_values: Dict[int, np.ndarray] = field(default_factory=dict)
    events_after: Optional[FootEvents] = None
    anchor_after: Optional[float] = None
    #: stride anchor over the member's own cycle (:func:`cycle_gait`), before retiming
    anchor_before: Optional[float] = None


def cycle_grid(asset, clip, fps: float, frames: int):
    """Pose grid of ``clip`` at its E frame times (float64 of the f32 times)."""
    from animsmith.core.pose import sample_pose

    return sample_pose(asset.skeleton, clip, frame_times_f32(frames, fps).astype(np.float64))


def cycle_gait(grid, roles, cycle_frames: Optional[int] = None):
    """``core.gait.gait_metrics`` over one cycle of ``cycle_frames`` samples.

    The core reads the last of N samples as the wrap duplicate of the first (a cycle of
    N − 1): right for a duplicated endpoint (the default), but an open loop's last frame is a
    real one (reading it as the wrap biases the anchor by about half a frame). An open loop
    (``cycle_frames`` = N) is therefore closed with a copy of its first sample first.
    """
    from animsmith.core.gait import gait_metrics
    from animsmith.model import PoseGrid

    n = grid.frame_count
    if cycle_frames is None or int(cycle_frames) != n or n < 2:
        return gait_metrics(grid, roles)
    t = np.asarray(grid.times_s, dtype=np.float64)
    pos = np.asarray(grid.model_position_m)
    closed = PoseGrid.of_positions(np.append(t, t[-1] + (t[-1] - t[0]) / (n - 1)), np.concatenate([pos, pos[:1]]), grid.duration_s)
    return gait_metrics(closed, roles)


def foot_events(grid, roles, clip_name: str, contact_height_m: float, cycle_frames: Optional[int] = None) -> FootEvents:
    """V1 contact topology on the cycle -> event phases, or ``contact_topology``.

    The cycle is frames 0..C−1 with C = ``cycle_frames``: E − 1 by default (the last frame
    repeats the first: a duplicated endpoint), E for an open loop.
    """
    from animsmith.core.contacts import contact_events, stance_mask

    feet = []
    for role in ("left_foot", "right_foot"):
        if not roles.has(role):
            raise _refuse(
                "contact_topology", clip_name, None, None, "left_foot and right_foot roles",
                f"the {role} role is unresolved, so contacts cannot be detected", "map it in [rig.roles]",
            )
        feet.append(int(roles.get(role)))
    n = grid.frame_count
    c = n - 1 if cycle_frames is None else min(int(cycle_frames), n)
    if c < 3:
        raise _refuse("contact_topology", clip_name, None, n, ">= 4 frames", f"only {n} frames", TOPOLOGY_ADVICE)
    height = grid.model_position_m[:c, feet, 1]
    stance = stance_mask(height, contact_height_m)
    idx = np.arange(c, dtype=np.float64)
    runs = contact_events(stance, idx)  # "times" are frame indices
    phases: Dict[str, float] = {}
    for f, side in enumerate(("left", "right")):
        r = list(runs[f])
        if len(r) >= 2 and r[0][0] == 0 and r[-1][1] == c - 1:
            r = [(r[-1][0], r[0][1])] + r[1:-1]  # wrap-around run
        bone = roles.names.get(f"{side}_foot")
        if len(r) != 1 or bool(stance[:, f].all()):
            count = "always in stance" if bool(stance[:, f].all()) else f"{len(r)} stance runs"
            raise _refuse(
                "contact_topology", clip_name, bone, len(r) if not stance[:, f].all() else "always", 1,
                f"the {side} foot has {count} per cycle (contact height {contact_height_m:g} m); the V1 contact "
                "topology needs exactly one plant and one lift per foot",
                TOPOLOGY_ADVICE,
            )
        plant, lift = r[0]
        h = height[:, f]
        threshold = float(np.min(h)) + float(contact_height_m)
        # the contact height is crossed between the last swing frame and the first stance frame
        # (plant), and between the last stance frame and the first swing frame (lift)
        phases[f"{side}_plant"] = (crossing_frame(h, int(plant) - 1, threshold) % c) / c
        phases[f"{side}_lift"] = (crossing_frame(h, int(lift), threshold) % c) / c
    return FootEvents(phases, c)


def crossing_frame(height: np.ndarray, k: int, threshold: float) -> float:
    """Where the foot height crosses ``threshold`` between cycle frames k and k + 1 (indices
    modulo the cycle), linearly interpolated: k + (h_k − thr)/(h_k − h_(k+1)). Event times
    from whole frames alone are up to a frame off, and a warp through them distorted members
    that needed no retiming past the half-frame anchor proof."""
    c = height.shape[0]
    a, b = float(height[k % c]), float(height[(k + 1) % c])
    if not (math.isfinite(a) and math.isfinite(b)) or a == b:
        return float(k + 1) if a > threshold else float(k)
    u = (a - threshold) / (a - b)
    return float(k) + min(max(u, 0.0), 1.0)


def warp_knots(reference: FootEvents, member: FootEvents, clip_name: str) -> Tuple[np.ndarray, np.ndarray]:
    """(r, m): reference phases sorted ascending and the member's matching phases unwrapped increasing.

    Refuses ``contact_order`` when the member's events are not in the same
    cyclic order (the warp would not be monotone).
    """
    r = np.asarray(reference.as_list())
    m = np.asarray(member.as_list())
    order = np.argsort(r, kind="stable")
    r = r[order]
    m = m[order]
    out = [m[0]]
    for x in m[1:]:
        y = x
        while y <= out[-1]:
            y += 1.0
        out.append(y)
    mu = np.asarray(out)
    if not (mu[-1] < mu[0] + 1.0) or np.any(np.diff(r) <= 0):
        names = [EVENT_NAMES[i] for i in order]
        raise _refuse(
            "contact_order", clip_name, None, [round(float(x % 1.0), 4) for x in m], [round(float(x), 4) for x in r],
            "its contact events (" + ", ".join(names) + ") are not in the reference's cyclic order or coincide, so no "
            "monotone time warp maps one onto the other",
            TOPOLOGY_ADVICE,
        )
    return r, mu


def warp_phase(u: np.ndarray, r: np.ndarray, m: np.ndarray) -> np.ndarray:
    """w(u) for reference phases u (any real): periodic piecewise-linear through (r_i, m_i), w(u+1) = w(u)+1."""
    u = np.asarray(u, dtype=np.float64)
    rr = np.concatenate([r[-1:] - 1.0, r, r[:1] + 1.0])
    mm = np.concatenate([m[-1:] - 1.0, m, m[:1] + 1.0])
    base = np.floor(u)
    return np.interp(u - base, rr, mm) + base


def retimed_values(clip, plan: AnchorPlan, r: np.ndarray, m: np.ndarray) -> Dict[int, np.ndarray]:
    """{channel index: (E, C) float32} for every nonconstant channel (see the module docstring)."""
    from animsmith.core.timegrid import snapped_to_keys
    from animsmith.core.sampling import sample_channel
    from animsmith.model import Channel

    c = plan.period_frames
    phase = np.arange(plan.frames, dtype=np.float64) / c
    src_phase = np.mod(warp_phase(phase, r, m), 1.0)
    src_times = src_phase * (plan.duration_s * c / (plan.frames - 1))  # one cycle: C frames
    out = {}
    for i in plan.rotated_channels:
        ch = clip.channels[i]
        if c == plan.frames:  # an open loop: the wrap step (last key -> first) is a real frame
            times = np.append(ch.times, np.float32(plan.duration_s * c / (plan.frames - 1)))
            ch = Channel.make(ch.bone, ch.path, times, np.concatenate([ch.values, ch.values[:1]]), interpolation=ch.interpolation)
        out[i] = np.asarray(sample_channel(ch, snapped_to_keys(src_times, [ch.times], increasing=False)), dtype=np.float32)
    return out


def plan_member(asset, clip, roles, fps: float, source: str, contact_height_m: float, target: Optional[FootEvents]):
    """Prove one member and (when ``target`` is given) compute its retimed values."""
    anchor = _prove(asset, clip, roles, fps)
    grid = cycle_grid(asset, clip, fps, anchor.frames)
    events = foot_events(grid, roles, clip.name, contact_height_m, anchor.period_frames)
    plan = MemberPlan(
        clip=clip.name, clip_index=int(clip.index), source=source, fps=float(fps), frames=anchor.frames,
        anchor=anchor, events_before=events, target=target or events, reference=target is None,
        anchor_before=cycle_gait(grid, roles, anchor.period_frames).gait_phase,
    )
    if target is not None:
        r, m = warp_knots(target, events, clip.name)
        plan.new_values = retimed_values(clip, anchor, r, m)
    return plan


def _prove(asset, clip, roles, fps: float) -> AnchorPlan:
    try:
        return prove_gait_anchor(asset, clip, roles, fps)
    except Refusal as exc:
        exc.message = exc.message.replace("cannot gait-anchor", "cannot retime", 1)
        exc.args = (exc.message,)
        raise


def verify_retimed(asset, clip, roles, plan: MemberPlan, reference: MemberPlan, contact_height_m: float) -> None:
    """Re-measure a re-loaded member: events within one frame, anchor within 0.5 frame of the reference."""
    grid = cycle_grid(asset, clip, plan.fps, plan.frames)
    events = foot_events(grid, roles, clip.name, contact_height_m, plan.anchor.period_frames)
    gm = cycle_gait(grid, roles, plan.anchor.period_frames)
    plan.events_after = events
    plan.anchor_after = gm.gait_phase
    c = plan.anchor.period_frames
    worst = max(circular_distance_cycles(a, b) for a, b in zip(events.as_list(), reference.events_before.as_list())) * c
    if worst > MAX_EVENT_ERROR_FRAMES + 1e-9:
        raise _refuse(
            "foot_cycle_unproven", clip.name, None, round(worst, 4), MAX_EVENT_ERROR_FRAMES,
            f"after retiming, a contact event is {worst:.3f} frames from the reference's (allowed 1 frame)",
            TOPOLOGY_ADVICE,
        )
    if gm.gait_phase is None or reference.anchor_before is None:
        raise _refuse(
            "foot_cycle_unproven", clip.name, None, None, MAX_ANCHOR_ERROR_FRAMES,
            "after retiming, the stride anchor is not measurable", TOPOLOGY_ADVICE,
        )
    anchor_err = circular_distance_cycles(gm.gait_phase, reference.anchor_before) * c
    if anchor_err > MAX_ANCHOR_ERROR_FRAMES + 1e-9:
        raise _refuse(
            "foot_cycle_unproven", clip.name, roles.names.get("hips"), round(anchor_err, 4), MAX_ANCHOR_ERROR_FRAMES,
            f"after retiming, the stride anchor {gm.gait_phase:.4f} is {anchor_err:.3f} frames from the reference's "
            f"{reference.anchor_before:.4f} (allowed 0.5 frame): the contacts align but the gait shapes differ",
            TOPOLOGY_ADVICE,
        )


def _bits(a) -> bytes:
    return np.ascontiguousarray(a, dtype=np.float32).tobytes()


def verify_untouched(before, after, retimed: Dict[Tuple[str, int], "MemberPlan"], source: str) -> None:
    """Every clip of ``source`` keeps its channels bit for bit, except the retimed members' resampled values.

    A retimed member keeps its targets, interpolation and key times; only the
    values of its nonconstant channels may change (``foot_cycle_unproven``).
    """
    if len(before.clips) != len(after.clips):
        raise _refuse("foot_cycle_unproven", before.clips[0].name if before.clips else "?", None, len(after.clips),
                      len(before.clips), "the rewritten file has a different clip count", "report this with the input")
    for c0, c1 in zip(before.clips, after.clips):
        plan = retimed.get((source, c0.index))
        changed = set(plan.new_values) if plan is not None else set()
        ok = c0.name == c1.name and len(c0.channels) == len(c1.channels)
        for i, (a, b) in enumerate(zip(c0.channels, c1.channels)):
            if not ok:
                break
            ok = (a.node, a.path, a.interpolation) == (b.node, b.path, b.interpolation) and _bits(a.times) == _bits(b.times)
            if ok and i in changed:
                ok = _bits(plan.new_values[i]) == _bits(b.values)
            elif ok:
                ok = _bits(a.values) == _bits(b.values)
        if not ok:
            raise _refuse(
                "foot_cycle_unproven", c0.name, None, None, None,
                "the rewritten file did not re-load to the planned channels (nothing was written)",
                "report this with the input file",
            )
