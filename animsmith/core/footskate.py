"""Research-comparable foot measurements: the foot-skate ratio and per-foot contact timing.

**Foot-skate ratio** (``foot_skate_ratio``, in [0, 1]) — the measure motion-generation
papers report, as defined by Guided Motion Diffusion (Karunratanakul et al. 2023,
"Guided Motion Diffusion for Controllable Human Motion Synthesis", ICCV 2023): the
proportion of frames in which either foot skids more than 2.5 cm while it keeps contact
with the ground (foot height below 5 cm). Here:

* the clip is resampled at 20 fps (the HumanML3D frame rate those tables use):
  t_i = i / 20 s, i = 0 … ⌊duration · 20⌋, for clips up to 30 minutes
  (``SKATE_MAX_SAMPLES``; a longer one has no ratio);
* the measured point per side is the toe role (the ball of the foot, like the SMPL
  "foot" joints the papers use), else the foot role;
* the ground is the lowest height either measured point reaches in the clip (the
  papers' data is floored the same way), and a foot is in contact at a frame when its
  height above that ground is below 5 cm;
* a step i → i+1 skids when the foot is in contact at both frames and its horizontal
  (X/Z) displacement ``|Δp − v·Δt|`` exceeds 2.5 cm; ``v`` is 0 for root motion. For
  an in-place clip with a declared ``speed_mps`` the ground moves under the character
  at that speed (treadmill frame): ``v = speed_mps · û`` with û the direction of the
  feet's mean horizontal velocity while in contact (the same rule as ``foot-slide``);
* ratio = steps in which either foot skids ÷ all steps.

Contact by height alone also catches a swing foot still skimming the ground right after
lift-off or right before touchdown; the papers' data has no contact labels, so their
numbers include those steps. A clip that carries authored contact markers (its
animation ``extras.animsmith_contacts``, what ``animsmith sim bake`` writes) has them:
contact then needs both the markers' stance and the height rule, for each foot the
markers name.

The published evaluation code additionally smooths the step speed over a 5-frame
window before comparing it with 2.5 cm per frame (0.5 m/s); this measure keeps the
paper's stated per-frame rule, so a short isolated skid counts here and may not there.

**Contact timing** (``foot_contacts``) — the four events per foot that Unity's
Locomotion System motion analysis (Rune Skovbo Johansen, 2008) reports, from the
heights of the heel (the foot role) and the toe (the toe role) over one cycle:

* a point is *grounded* at a sample when its height is within 10 % of its own height
  range above its own lowest point;
* its ground contact is its longest cyclic run of grounded samples;
* **lift**: the first of heel and toe to leave the ground (time of its last grounded
  sample); **lift-off**: the second (the foot is then fully off the ground);
  **strike**: the first to touch down again (time of its first grounded sample);
  **landing**: the second (the foot is then fully on the ground).

With only one of heel/toe resolved, lift = lift-off and strike = landing.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

SKATE_FPS = 20.0
#: the 20 fps resample covers clips up to half an hour (36,000 samples); a longer clip (often a
#: key time in the wrong unit) has no ratio rather than a resample that grows with its duration
SKATE_MAX_SAMPLES = 36_000
SKATE_SKID_M = 0.025
SKATE_CONTACT_HEIGHT_M = 0.05
#: a heel/toe is grounded within this fraction of its height range above its lowest point
GROUNDED_FRACTION = 0.1
SIDES = (("left", "left_foot", "left_toe"), ("right", "right_foot", "right_toe"))



def skate_frame_count(duration_s: float, fps: float = SKATE_FPS) -> int:
    """⌊duration · fps⌋ + 1 (a sample within 1e-6 of the end counts)."""
    return int(np.floor(float(duration_s) * fps + 1e-6)) + 1


def skate_times_s(duration_s: float, fps: float = SKATE_FPS) -> np.ndarray:
    """i / fps for i = 0 … ⌊duration · fps⌋ (a sample within 1e-6 of the end counts)."""
    return np.arange(skate_frame_count(duration_s, fps), dtype=np.float64) / fps


def skate_points(roles) -> List[Tuple[str, Optional[int]]]:
    """[(side, bone or None)]: the side's toe role, else its foot role."""
    out = []
    for side, foot, toe in SIDES:
        bone = roles.get(toe) if roles.has(toe) else (roles.get(foot) if roles.has(foot) else None)
        out.append((side, bone))
    return out


def foot_skate_ratio(
    positions_m, times_s, *, treadmill_speed_mps: Optional[float] = None, authored_stance=None
) -> Tuple[Optional[float], Optional[str]]:
    """(ratio, None) or (None, reason) from (N, F, 3) foot positions sampled at ``times_s`` (module
    docstring). ``authored_stance``: optional (N, F) bool, the authored contact markers' stance
    (True for a foot the markers do not name); contact then needs both it and the height rule."""
    from animsmith.core.contacts import foot_slide, stance_sweep_direction

    p = np.asarray(positions_m, dtype=np.float64)
    t = np.asarray(times_s, dtype=np.float64)
    if p.ndim != 3 or p.shape[0] < 2 or p.shape[1] == 0:
        return None, "fewer than 2 frames at 20 fps or no foot"
    if not np.isfinite(p).all():
        return None, "non-finite foot positions"
    ground = float(np.min(p[..., 1]))
    contact = (p[..., 1] - ground) < SKATE_CONTACT_HEIGHT_M
    if authored_stance is not None:
        contact &= np.asarray(authored_stance, dtype=bool)
    v = None
    if treadmill_speed_mps is not None:
        v = float(treadmill_speed_mps) * stance_sweep_direction(p, t, contact)
    fs = foot_slide(p, t, stance=contact, ground_velocity_mps=v)
    with np.errstate(invalid="ignore"):
        skid = np.nan_to_num(fs.step_m, nan=0.0) > SKATE_SKID_M
    return float(np.count_nonzero(skid.any(axis=1))) / float(skid.shape[0]), None


def _grounded(y: np.ndarray) -> Tuple[Optional[np.ndarray], Optional[str]]:
    lo, hi = float(np.min(y)), float(np.max(y))
    if not (hi - lo > 1e-6 * max(1.0, abs(hi))):
        return None, "never lifts"
    return (y - lo) <= GROUNDED_FRACTION * (hi - lo), None


def _longest_run(mask: np.ndarray) -> Optional[Tuple[int, int]]:
    """(first, last) sample of the longest cyclic run of True (first such run wins ties); None if never
    True. A run that is the whole cycle has no edges: None."""
    c = mask.shape[0]
    if not mask.any() or mask.all():
        return None
    start = int(np.argmin(mask))  # a False sample: unroll the cycle from there
    m = np.roll(mask, -start)
    best: Optional[Tuple[int, int]] = None
    i = 0
    while i < c:
        if m[i]:
            j = i
            while j + 1 < c and m[j + 1]:
                j += 1
            if best is None or j - i > best[1] - best[0]:
                best = (i, j)
            i = j + 1
        else:
            i += 1
    if best is None:
        return None
    return (best[0] + start) % c, (best[1] + start) % c


def contact_timing(heel_y, toe_y, times_s) -> Tuple[Optional[Dict[str, float]], Optional[str]]:
    """({"lift_s", "liftoff_s", "strike_s", "landing_s"}, None) or (None, reason) for one foot over one
    cycle of samples (``times_s`` (C,), heel/toe heights (C,) or None). See the module docstring."""
    t = np.asarray(times_s, dtype=np.float64)
    c = t.shape[0]
    runs = []
    for label, y in (("heel", heel_y), ("toe", toe_y)):
        if y is None:
            continue
        y = np.asarray(y, dtype=np.float64)
        if not np.isfinite(y).all():
            return None, f"non-finite {label} height"
        g, why = _grounded(y)
        if g is None:
            return None, f"the {label} {why}"
        run = _longest_run(g)
        if run is None:
            return None, f"the {label} never leaves the ground"
        runs.append(run)
    if not runs:
        return None, "no foot or toe role resolved"
    first, last = runs[0]
    mid = (first + ((last - first) % c) / 2.0) % c  # middle of the heel's (else the toe's) contact
    leave = sorted((r[1] for r in runs), key=lambda i: (i - mid) % c)
    touch = sorted((r[0] for r in runs), key=lambda i: -((mid - i) % c))
    return {
        "lift_s": float(t[leave[0]]),
        "liftoff_s": float(t[leave[-1]]),
        "strike_s": float(t[touch[0]]),
        "landing_s": float(t[touch[-1]]),
    }, None


def foot_contacts(grid, roles, names: Sequence[str]) -> Tuple[Optional[Dict[str, Any]], Optional[str]]:
    """Per side {"heel_bone", "toe_bone", events…} (or {"unavailable": reason}) on the judged grid's
    cycle (its last sample, the wrap duplicate, left out); (None, reason) when no side can be timed."""
    from animsmith.core.gait import cycle_length

    c = cycle_length(grid.frame_count)
    if c < 3:
        return None, f"clip has {grid.frame_count} grid sample(s); contact timing needs at least 3"
    bones = []
    for _, foot, toe in SIDES:
        bones += [roles.get(r) for r in (foot, toe) if roles.has(r)]
    if not bones:
        return None, "no foot or toe role resolved"
    ys = grid.model_positions_m(bones)[:c, :, 1]
    col = {b: i for i, b in enumerate(bones)}
    t = np.asarray(grid.times_s, dtype=np.float64)[:c]
    out: Dict[str, Any] = {}
    for side, foot, toe in SIDES:
        heel_b = roles.get(foot) if roles.has(foot) else None
        toe_b = roles.get(toe) if roles.has(toe) else None
        entry: Dict[str, Any] = {
            "heel_bone": None if heel_b is None else str(names[heel_b]),
            "toe_bone": None if toe_b is None else str(names[toe_b]),
        }
        events, why = contact_timing(
            None if heel_b is None else ys[:, col[heel_b]], None if toe_b is None else ys[:, col[toe_b]], t
        )
        if events is None:
            entry["unavailable"] = why
        else:
            entry.update(events)
        out[side] = entry
    return out, None
