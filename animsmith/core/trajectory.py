"""Root trajectory: travel bone, speed, heading, distance, yaw, the travelling frame.

* **Travel bone** (:func:`travel_bone_of_clip`, one rule for every metric, check
  and proof): the highest node on the chain from the scene root down to the
  hips that *this clip* animates (a translation or rotation channel whose keys
  change); when none is animated, the hips. A node the clip does not animate
  (a scene container such as ``RootNode``, ``Armature`` or ``Character``) is
  never the travel bone, whatever its name: exporters put root motion on the
  hips below such a static node, and a dead node would read every walk as
  standing still. Without a hips role the ``root`` role's bone is used when the
  clip animates it.
* **Speed** ``speed_mps = hypot(Δx, Δz) / (t_last − t_first)``: horizontal (X/Z)
  endpoint displacement of the travel bone in model space between the first
  and last grid samples, over the time between them (= the clip duration on
  the judged grid). Out-and-back motion measures ~0: it is displacement, not
  path length. A clip that turns (the travel bone's net yaw θ over the clip,
  :func:`yaw_accumulation_deg`, more than ``TURN_THRESHOLD_DEG`` and at most
  ``MAX_ARC_DEG``) walks an arc: a steady turn of θ covers
  ``chord · (θ/2) / sin(θ/2)`` along its path, and that arc length is the
  distance and the speed's numerator — the speed the feet keep pace with, so a
  clean turning walk measures the speed it is played at, not the shorter chord.
* **Heading** ``heading_deg = atan2(Δx, Δz)`` in degrees: +Z = 0°, +X = 90°,
  −X = −90°, −Z = 180°. No heading when there is no horizontal travel
  (distance ≤ 1e-6 × max(1, largest endpoint coordinate): float32 noise).
* **Yaw accumulation** (the in-place test of gait anchoring: at most 1° between the first
  and last frame): see :func:`yaw_accumulation_deg`.
* **Loop continuity** per bone: :mod:`animsmith.core.seam`; on a clip that travels,
  judged in the travelling frame this module gives (:class:`CycleTransform`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from animsmith.core import quat

#: no heading when the horizontal travel is at most this fraction of
#: max(1, largest endpoint coordinate magnitude): float32 position noise
HEADING_NOISE_FRACTION = 1e-6
#: yaw: a projected axis shorter than this has no heading (float32 epsilon)
MIN_PROJECTION = float(np.finfo(np.float32).eps)
#: yaw: an adjacent-sample step within this many degrees of 180 is ambiguous
AMBIGUOUS_STEP_DEG = 1e-4


#: a translation key this far (local units, relative to max(1, |value|)) from the first
#: key moves the node; below it the channel holds one value stored with float noise
ANIMATED_VECTOR_TOL = 1e-5
#: a rotation key this far (radians) from the first key turns the node
ANIMATED_ROTATION_TOL_RAD = 1e-4


def channel_animates(ch) -> bool:
    """True when a translation or rotation channel changes its node over the clip.

    Translation: some key differs from the first by more than
    ``ANIMATED_VECTOR_TOL × max(1, |largest value|)`` in a component; rotation:
    some key is more than ``ANIMATED_ROTATION_TOL_RAD`` from the first
    (sign-invariant); a CUBICSPLINE channel with a non-zero tangent moves too.
    Scale, weight and one-key channels do not move a node across the ground.

    Not ``core.endpoint.channel_moves`` (some key is another pose than key 0 by the
    endpoint tolerance: 0.1 mm in model space, 0.01°): that rule decides whether a
    loop's keys repeat, where this one finds the highest node a clip animates at all,
    so its tolerances sit just above float32 storage noise in local units (a turn between
    0.006° and the endpoint's 0.01°, or a drift of hundredths of a millimetre, still makes
    a node the travel bone), motion between equal keys through tangents counts, and a
    non-finite track counts as animated.
    """
    if ch.path not in ("translation", "rotation"):
        return False
    v = np.asarray(ch.values, dtype=np.float64)
    if v.shape[0] == 0:
        return False
    if not np.isfinite(v).all():
        return True  # a broken track is not a static one (nan reports it)
    for tangents in (ch.in_tangents, ch.out_tangents):
        if tangents is not None and (np.asarray(tangents) != 0).any():
            return True
    if v.shape[0] < 2:
        return False
    if ch.path == "rotation":
        # |v| as np.linalg.norm computes it; every key is finite here, so the division
        # by a positive (or infinite) length raises nothing
        n = np.sqrt(np.add.reduce(v * v, axis=1))
        u = v / np.where(n > 0, n, 1.0)[:, None]
        dots = np.minimum(np.abs(u @ u[0]), 1.0)  # |dot| >= 0: only the upper clip can act
        return bool((2.0 * np.arccos(dots) > ANIMATED_ROTATION_TOL_RAD).any())
    tol = ANIMATED_VECTOR_TOL * max(1.0, float(np.abs(v).max()))
    return bool((np.abs(v - v[0]) > tol).any())


@dataclass(frozen=True)
class TravelBone:
    """The bone whose trajectory is the clip's travel, and why it was chosen.

    ``role``: ``"root"`` or ``"hips"`` when the bone holds that role, else
    ``"ancestor"`` (another node above the hips); None when there is no travel
    bone (``bone`` is None and ``reason`` says why).
    """

    bone: Optional[int]
    name: Optional[str]
    role: Optional[str]
    reason: str


def _chain_to(skeleton, bone: int) -> list:
    """Bones from the top of ``bone``'s tree down to ``bone`` itself."""
    chain = []
    b = int(bone)
    while b >= 0:
        chain.append(b)
        b = int(skeleton.parents[b])
    return chain[::-1]


def travel_bone_of_clip(skeleton, clip, roles) -> TravelBone:
    """The clip's travel bone (module docstring): the highest node on the chain from the
    scene root down to the hips that this clip animates, else the hips."""
    names = skeleton.names
    hips = roles.get("hips")
    root = roles.get("root")
    chain = [] if hips is None else _chain_to(skeleton, int(hips))
    # only the bones that can travel are looked at: the hips' chain, and the root role
    candidates = set(chain)
    if root is not None:
        candidates.add(int(root))
    channels: dict = {}  # candidate bone -> its translation channels, then its rotation channels
    if clip is not None:
        for ch in clip.channels:
            if ch.bone in candidates and ch.path in ("translation", "rotation"):
                channels.setdefault(int(ch.bone), ([], []))[ch.path == "rotation"].append(ch)

    def animated(bone: int) -> bool:  # some translation or rotation channel of the bone animates
        moves, turns = channels.get(bone, ((), ()))
        return any(map(channel_animates, moves)) or any(map(channel_animates, turns))

    root_text = None if root is None else f"root {str(names[root])!r}"
    if hips is None:
        if root is not None and animated(int(root)):
            return TravelBone(int(root), str(names[root]), "root", f"{root_text} is animated in this clip (no hips role)")
        if root is not None:
            return TravelBone(None, None, None, f"no hips role, and {root_text} is not animated in this clip")
        return TravelBone(None, None, None, "neither root nor hips role resolved")
    hips = int(hips)
    highest = next((b for b in chain if animated(b)), None)  # from the top down: the first one decides
    if highest is not None and highest != hips:
        name = str(names[highest])
        if root is not None and int(root) == highest:
            return TravelBone(highest, name, "root", f"{root_text} is the highest node above the hips this clip animates")
        why = f"{name!r} is the highest node above the hips this clip animates"
        if root is not None and int(root) in chain[: chain.index(highest)]:
            why += f" ({root_text} is not animated in this clip)"
        return TravelBone(highest, name, "ancestor", why)
    hips_name = str(names[hips])
    if root is not None and int(root) != hips:
        if int(root) not in chain:
            why = f"{root_text} is not above the hips; using hips"
        else:
            why = f"{root_text} is not animated in this clip; using hips"
    elif highest == hips:
        why = "no node above the hips is animated in this clip; using hips"
    else:
        why = "nothing from the scene root down to the hips is animated in this clip; using hips"
    return TravelBone(hips, hips_name, "hips", why)


@dataclass
class RootSpeed:
    """Endpoint travel of the travel bone (None values carry ``*_unavailable`` reasons)."""

    speed_mps: Optional[float] = None
    speed_mps_unavailable: Optional[str] = None
    heading_deg: Optional[float] = None
    heading_deg_unavailable: Optional[str] = None
    distance_m: Optional[float] = None
    distance_m_unavailable: Optional[str] = None
    duration_s: Optional[float] = None
    displacement_m: Optional[Tuple[float, float, float]] = None
    travel_bone: Optional[str] = None
    travel_bone_index: Optional[int] = None
    source_role: Optional[str] = None
    travel_bone_reason: Optional[str] = None


def heading_deg_of(dx: float, dz: float) -> float:
    """atan2(dx, dz) in degrees: +Z = 0, +X = 90, −Z = 180 (never −180: a −0.0 step in x,
    e.g. from keys 0.0 then −0.0, is no direction)."""
    return math.degrees(math.atan2(dx + 0.0, dz))


#: a net turn above this (degrees) is not read as an arc: a path that winds back
#: (a spin, a circle walked past half a turn) has no steady-arc reading of its chord
MAX_ARC_DEG = 180.0


def arc_factor(grid, bone: int, yaw: Optional[Tuple[Optional[float], Optional[str]]] = None) -> float:
    """Arc length ÷ chord of a steady turn by the travel bone's net yaw θ:
    (θ/2) / sin(θ/2) when ``TURN_THRESHOLD_DEG`` < |θ| ≤ ``MAX_ARC_DEG``, else 1
    (a straight clip, an open cycle's one-frame wobble, or no readable yaw).
    ``yaw``: :func:`yaw_accumulation_deg` of ``grid`` and ``bone`` when the caller has it."""
    yaw, _ = yaw_accumulation_deg(grid, bone) if yaw is None else yaw
    if yaw is None or not math.isfinite(yaw) or not (TURN_THRESHOLD_DEG < abs(yaw) <= MAX_ARC_DEG):
        return 1.0
    half = math.radians(abs(yaw)) / 2.0
    return half / math.sin(half)


def root_speed(grid, travel: TravelBone, yaw: Optional[Tuple[Optional[float], Optional[str]]] = None) -> RootSpeed:
    """Speed, heading and distance of the clip's travel bone (module docstring); ``yaw``:
    :func:`yaw_accumulation_deg` of ``grid`` and the travel bone when the caller has it."""
    bone = travel.bone
    out = RootSpeed(travel_bone_reason=travel.reason)
    if bone is None:
        out.speed_mps_unavailable = out.heading_deg_unavailable = out.distance_m_unavailable = travel.reason
        return out
    out.travel_bone = travel.name
    out.travel_bone_index = int(bone)
    out.source_role = travel.role
    n = grid.frame_count
    t = np.asarray(grid.times_s, dtype=np.float64)
    dur = float(t[-1] - t[0]) if n >= 2 else 0.0
    out.duration_s = float(grid.duration_s) if getattr(grid, "duration_s", 0.0) else dur
    if n < 2 or not (dur > 0.0) or not math.isfinite(dur):
        why = "clip has zero duration or fewer than 2 samples"
        out.speed_mps_unavailable = out.heading_deg_unavailable = out.distance_m_unavailable = why
        return out
    p = grid.model_positions_m([bone])
    first, last = p[0, 0], p[-1, 0]
    d = tuple(map(float, (last - first).tolist()))  # in the positions' own precision
    if not all(map(math.isfinite, d)):
        why = f"non-finite position of travel bone {out.travel_bone!r}"
        out.speed_mps_unavailable = out.heading_deg_unavailable = out.distance_m_unavailable = why
        return out
    dist = math.hypot(d[0], d[2])
    out.displacement_m = d
    out.distance_m = dist * arc_factor(grid, bone, yaw)
    out.speed_mps = out.distance_m / dur
    # both ends are finite here (their difference is)
    noise = HEADING_NOISE_FRACTION * max(1.0, max(map(abs, first.tolist() + last.tolist())))
    if dist <= noise:
        out.heading_deg_unavailable = "no horizontal travel (in place)"
    else:
        out.heading_deg = heading_deg_of(d[0], d[2])
    return out


def speed_over_keys_mps(speed: RootSpeed, start_s: float) -> Optional[float]:
    """The travel bone's speed over the keys' own span, first key to duration: a clip keyed
    from after 0 s (an export range from frame 1) holds its first pose until its first key,
    and ``speed.speed_mps`` counts that hold. None when the keys start at 0 s or the
    distance is unmeasured."""
    if not start_s > 0.0 or speed.distance_m is None or not speed.duration_s or not speed.duration_s > start_s:
        return None
    return speed.distance_m / (speed.duration_s - start_s)


# --------------------------------------------------------------------------
# Yaw
# --------------------------------------------------------------------------

#: the rotation-matrix column of each local axis a heading can be read from (its model-space
#: X and Z components are that column's X and Z rows, ``quat.to_matrix``)
_AXIS_COLUMN = {"+X": 0, "+Y": 1, "+Z": 2}


def heading_series_deg(grid, bone: int) -> Tuple[Optional[np.ndarray], Optional[str], Optional[str]]:
    """(headings (N,) deg, axis label, None) or (None, None, reason).

    At sample 0 the local +Z, +Y or +X axis with the largest horizontal
    projection of the bone's model rotation is chosen (ties in that order; a
    later axis must be strictly longer); heading = atan2(x, z) of that rotated
    axis at every sample, float64.
    """
    q = quat.normalize(np.asarray(grid.model_rotations([bone])[:, 0, :], dtype=np.float64))
    if not np.isfinite(q).all():
        return None, None, "non-finite rotation"
    m = quat.to_matrix(q)  # every sample's matrix at once; sample 0's row is what it would be alone
    first = m[0].tolist()
    best_len, label = -1.0, "+Z"
    for axis in ("+Z", "+Y", "+X"):
        col = _AXIS_COLUMN[axis]
        length = math.hypot(first[0][col], first[2][col])
        if length > best_len:
            best_len, label = length, axis
    if best_len <= MIN_PROJECTION:
        return None, None, "no local axis has a horizontal projection at the first sample"
    col = _AXIS_COLUMN[label]
    vx, vz = m[:, 0, col], m[:, 2, col]
    lost = np.hypot(vx, vz) <= MIN_PROJECTION
    if lost.any():
        i = int(np.argmax(lost))
        return None, None, f"the {label} axis loses its horizontal projection at {float(grid.times_s[i]):.3f}s"
    return np.degrees(np.arctan2(vx, vz)), label, None


def yaw_accumulation_deg(grid, bone: Optional[int], heading=None) -> Tuple[Optional[float], Optional[str]]:
    """Net heading change of ``bone`` over the clip, degrees (counted turns kept).

    heading per sample (see :func:`heading_series_deg`); every adjacent step
    is unwrapped into (−180, 180] by ±360; net = last − first + 360·turns,
    i.e. the sum of unwrapped steps, so two full turns read 720. A step within
    ``AMBIGUOUS_STEP_DEG`` of ±180 is ambiguous -> (None, reason). ``heading``:
    :func:`heading_series_deg` of ``grid`` and ``bone`` when the caller has it.
    """
    if bone is None:
        return None, "no travel bone"
    if grid.frame_count < 2:
        return None, "fewer than 2 samples"
    h, _, reason = heading_series_deg(grid, int(bone)) if heading is None else heading
    if h is None:
        return None, reason
    h = np.asarray(h)
    step = h[1:] - h[:-1]  # np.diff
    wrapped = (step + 180.0) % 360.0 - 180.0
    if (np.abs(np.abs(wrapped) - 180.0) <= AMBIGUOUS_STEP_DEG).any():
        return None, "a heading step of 180° between adjacent samples is ambiguous"
    turns = ((wrapped - step) / 360.0).round()
    net = float(h[-1] - h[0] + 360.0 * turns.sum())
    return net, None


# --------------------------------------------------------------------------
# Loop continuity
# --------------------------------------------------------------------------


#: a travelling clip "turns" when the next cycle starts more than this many degrees
#: (yaw of the travel bone) from where this one started; below it the wrap is judged
#: without removing yaw, so a real twist of the travel bone at the seam stays visible
TURN_THRESHOLD_DEG = 5.0


@dataclass
class CycleTransform:
    """Where the next cycle of a travelling loop starts, relative to this one.

    ``M(p) = R_y(yaw_deg)·(p − pivot_m) + pivot_m + offset_m``: a yaw about the
    vertical through the travel bone's first-frame position (``pivot_m``,
    height 0), then a horizontal ``offset_m``. Applying M to the first pose
    gives the pose the loop wraps into; comparing it with the last pose removes
    the travel (root motion) and keeps everything else (a seam pop). Only the
    travel bone and the bones below it travel (``moves``, (B,) bool); a static
    container above it stays where it is.
    """

    bone: int
    yaw_deg: float
    offset_m: np.ndarray
    pivot_m: np.ndarray
    moves: Optional[np.ndarray] = None

    def _rot(self) -> np.ndarray:
        a = math.radians(self.yaw_deg)
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])

    def vectors(self, v: np.ndarray) -> np.ndarray:
        return np.asarray(v, dtype=np.float64) @ self._rot().T

    def positions(self, p: np.ndarray) -> np.ndarray:
        return self.vectors(np.asarray(p, dtype=np.float64) - self.pivot_m) + self.pivot_m + self.offset_m

    def rotations(self, q: np.ndarray) -> np.ndarray:
        a = math.radians(self.yaw_deg) / 2.0
        qy = np.array([0.0, math.sin(a), 0.0, math.cos(a)])
        q = np.asarray(q, dtype=np.float64)
        return quat.multiply(np.broadcast_to(qy, q.shape), q)


def _horizontal(v: np.ndarray) -> np.ndarray:
    out = np.array(v, dtype=np.float64)
    out[..., 1] = 0.0
    return out


def subtree_mask(parents, bone: int) -> np.ndarray:
    """(B,) bool: ``bone`` and every bone below it (parents-first order)."""
    parents = np.asarray(parents)
    mask = np.zeros(parents.shape[0], dtype=bool)
    mask[int(bone)] = True
    for b in range(int(bone) + 1, parents.shape[0]):
        p = int(parents[b])
        if p >= 0 and mask[p]:
            mask[b] = True
    return mask


def cycle_transform(grid, bone: int, open_cycle: bool, parents=None, heading=None) -> Tuple[Optional[CycleTransform], Optional[str]]:
    """The :class:`CycleTransform` of a travelling loop from its travel ``bone``.

    * closed cycle (the last frame is the first pose of the next cycle):
      offset = the travel bone's horizontal displacement first → last frame,
      yaw = its net yaw (:func:`yaw_accumulation_deg`);
    * open cycle (the wrap is one more frame): the same plus one wrap step,
      estimated as the mean of the first and last steps (horizontal travel and
      heading), so a clean open export wraps at its ordinary pace.

    The yaw is removed only when it exceeds ``TURN_THRESHOLD_DEG`` (the clip
    turns); a straight clip keeps yaw 0. ``parents`` (the skeleton's) limits the
    transform to the travel bone's subtree. (None, reason) when the travel bone's
    positions are not finite or the grid has fewer than 3 samples. ``heading``:
    :func:`heading_series_deg` of ``grid`` and ``bone`` when the caller has it.
    """
    n = grid.frame_count
    if n < 3:
        return None, f"clip has {n} grid sample(s)"
    c = np.asarray(grid.model_positions_m([bone])[:, 0, :], dtype=np.float64)
    if not np.all(np.isfinite(c[[0, 1, -2, -1]])):
        return None, "non-finite travel bone position"
    yaw = 0.0
    h, _, _ = heading_series_deg(grid, int(bone)) if heading is None else heading
    if h is not None and np.all(np.isfinite(h)):
        steps = (np.diff(h) + 180.0) % 360.0 - 180.0
        yaw = float(steps.sum())
        if open_cycle:
            yaw += 0.5 * float(steps[0] + steps[-1])
    if not (abs(yaw) > TURN_THRESHOLD_DEG):
        yaw = 0.0
    moves = None if parents is None else subtree_mask(parents, bone)
    t = CycleTransform(bone=int(bone), yaw_deg=yaw, offset_m=np.zeros(3), pivot_m=_horizontal(c[0]), moves=moves)
    offset = _horizontal(c[-1] - c[0])
    if open_cycle:
        wrap = 0.5 * (_horizontal(c[-1] - c[-2]) + t.vectors(_horizontal(c[1] - c[0])))
        offset = offset + wrap
    t.offset_m = offset
    return t, None
