"""Gait anchoring: rotate an in-place cyclic clip so its stride anchor lands at t = 0.

Selecting the operation *declares* the clip an in-place cyclic gait; every
proof below checks that declaration before anything is changed, and any
failure raises :class:`~animsmith.errors.Refusal` with a stable ``code``
(docs/transform.md has the catalogue). Nothing here writes files.

The package's modules: ``proofs`` (every proof below and its refusal), ``period`` (the
cycle: open loop or duplicated endpoint), ``choice`` (the rotation: candidate shifts and
their seam rank), ``plan`` (the whole proof as an :class:`AnchorPlan`, applying it in
memory and re-measuring). The float32 rules they share (successors of a cap, frame
times, rounding) are :mod:`animsmith.core.tolerance`'s.

Proofs, in evaluation order (first failure refuses):

1. ``non_finite``: every key time, value and tangent of every channel is finite.
2. ``duplicate_channel``: at most one channel per (node, property), constant
   or not; ``unsupported_channel``: no morph-weight or node-less (pointer)
   channels, which the rewrite could not rotate with the bones.
3. ``no_trajectory_bone``: the clip's travel bone, the one every metric uses
   (``core.trajectory.travel_bone_of_clip``: the highest node on the chain from
   the scene root down to the hips that this clip animates, else the hips; a
   static scene node such as ``RootNode`` never is).
4. ``off_grid_key`` (grid): every channel's key times strictly increasing
   (exempt constant channels too); d = clip duration (s), I = d·fps must be a whole
   number n >= 1 within 4·eps32·max(|I|, 1); E = n + 1 declared frames at
   t_k = f32(k / fps).
5. ``budget_exceeded``: E × bones, E × channels and max(2, most keys) × bones
   are each at most 1,000,000 (inclusive), checked before any sampling.
6. Every channel that is not *exactly constant* (all keys bit-equal as
   float32 — +0 and −0 differ —, cubic tangents all zero; such channels are
   exempt and never change):
   ``cubic_track`` when CUBICSPLINE, ``off_grid_key`` when its first key is
   not at 0 s (an export that starts at frame 1: named as such, whatever its key
   count), ``key_count`` unless it has exactly E keys, ``off_grid_key`` unless
   key k is at exactly t_k and the last key is at exactly f32(d).
7. Sampling at the E frame times (full FK), then on the trajectory bone:
   ``non_finite`` for a non-finite pose; ``no_heading`` when the heading axis
   loses its horizontal projection; ``horizontal_drift`` when
   |h_last − h_0| (X/Z, float32) exceeds 1 cm; ``yaw_drift`` when the yaw
   accumulation exceeds 1°; ``vertical_drift`` when |y_last − y_0| (float32)
   exceeds both 1 cm and 1.5× the largest |y_(k+1) − y_k| inside the clip (an
   open loop's wrap is a real frame step; a clip that climbs or descends ends
   higher or lower than any one step explains). Each cap is inclusive and
   allows exactly four float32 successors of f32(cap) (authored
   quantisation), nothing else. When the hips are not the trajectory bone
   (an animated ``Root`` above them), the hips are proven too
   (:func:`prove_hips_in_place`): a trajectory bone that stays put above hips
   that walk away or turn is root motion, refused with ``horizontal_drift`` /
   ``yaw_drift`` naming the hips and how far they travel.
   Yaw: at sample 0 the local +Z, +Y or +X axis with the largest horizontal
   projection of the bone's model rotation (ties keep that order) is kept for
   every sample; heading_f = atan2(x, z) in float64; a step > 180° counts −1
   turn, a step < −180° counts +1; yaw = |heading_last − heading_0 + 360·turns|.
8. ``no_stride_anchor`` / ``low_amplitude``: the core's stride anchor
   (``core.gait.gait_metrics`` on the E-sample grid) must exist and the L−R
   amplitude must be >= 0.03 m (within 1e-6 m, as ``gait-group`` counts it).

The cycle (checked after 8): P = E − 1 key frames when every rotated channel's
last key repeats its first within the endpoint tolerance (``core.endpoint``:
0.1 mm in model space, 0.01°, 1e-4 relative scale — float noise, not a real
difference; E = 3 then refuses ``no_stride_anchor``: 2
unique frames), else P = E (an open loop: the wrap step is a real frame) — unless
the rotated channels that repeat their first key while moving at the wrap are at
least as many as those that do not repeat it: ``mixed_endpoint`` (either cycle
would move one kind's seam into the clip: a pose held for two frames, or a
closing key that is not the first pose).

The rewrite: s = round_half_away(anchor·P) where anchor is the clip fraction
of the first trough (gait_phase / cycles); among s, s−1, s+1 (that order) the
candidate with the smallest re-measured loop-seam ratio wins. Ratios at or
below 1 (the wrap step is no larger than its neighbours: seamless) and a
missing ratio (neighbouring foot steps under the 2 cm floor) rank equal as 1,
and ranks within ``SEAM_TIE_TOLERANCE`` (0.05) of the best are ties; a tie
goes to the candidate whose re-measured anchor is nearest 0, then to s. So
seam noise on a seamless loop never moves the anchor off the nearest frame;
a neighbour replaces s only when s's rank is more than 0.05 above the best
(a real pop). Every nonconstant channel's key values are rotated left over
the cycle: new[k] = old[(k + s) mod P] for k < P, and with a duplicated
endpoint the last key repeats the new first one (new[E − 1] = new[0] =
old[s]), so the loop stays closed and no pose is held twice mid-clip (a
closing key that was not a bit-identical copy is the one value not carried
over: ``closing_key_delta``). Times, interpolation and duration are unchanged
and nothing is resampled.
"""

from __future__ import annotations

from animsmith.transform.gait_anchor.choice import SEAM_TIE_TOLERANCE, choose_shift, key_order, rolled_grid
from animsmith.transform.gait_anchor.plan import AnchorPlan, apply_plan_in_memory, measure_anchor_after, prove_gait_anchor
from animsmith.transform.gait_anchor.proofs import (
    CODES,
    TOLERATED_DRIFT_M,
    TOLERATED_YAW_DEG,
    declared_frames,
    horizontal_drift_m,
    is_exactly_constant,
    prove_budget,
    yaw_accumulation_proof_deg,
)

__all__ = [
    "AnchorPlan",
    "CODES",
    "SEAM_TIE_TOLERANCE",
    "TOLERATED_DRIFT_M",
    "TOLERATED_YAW_DEG",
    "apply_plan_in_memory",
    "choose_shift",
    "declared_frames",
    "horizontal_drift_m",
    "is_exactly_constant",
    "key_order",
    "measure_anchor_after",
    "prove_budget",
    "prove_gait_anchor",
    "rolled_grid",
    "yaw_accumulation_proof_deg",
]
