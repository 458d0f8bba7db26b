"""Transforms: rewrite clips only when the rewrite is proven safe, else refuse.

Gait anchoring (``gait_anchor``) and foot-cycle retiming (``foot_cycle``).
This package never prints, exits or writes files: it returns bytes and plans,
or raises :class:`~animsmith.errors.Refusal` (exit 1) /
:class:`~animsmith.errors.AnimsmithError` (exit 2). Publishing is the
command's job (``io.write.publish_bytes``).

Public API::

    plan_gait_anchor(asset, roles, clip_names=None, fps_of=lambda name: 30.0) -> [AnchorPlan]
    gait_anchored_glb(data, asset, plans) -> (bytes, PatchReport)
    verify_gait_anchored(asset, out_bytes, plans, roles, label) -> [float]  # re-measured phases
"""

from __future__ import annotations

from typing import Callable, Iterable, List, Optional, Sequence

import numpy as np

from animsmith.errors import AnimsmithError, Refusal
from animsmith.transform.gait_anchor import AnchorPlan, measure_anchor_after, prove_gait_anchor


def select_clips(asset, clip_names: Optional[Sequence[str]]) -> list:
    """The clips named (in file order), or all; AnimsmithError for an unknown name or no clips."""
    if not asset.clips:
        raise AnimsmithError("has no animation clips", asset.path)
    if not clip_names:
        return list(asset.clips)
    known = {c.name: c for c in asset.clips}
    out = []
    for name in clip_names:
        if name not in known:
            shown = ", ".join(repr(n) for n in list(known)[:8])
            raise AnimsmithError(f"clip {name!r} not found (clips: {shown})", asset.path)
        if known[name] not in out:
            out.append(known[name])
    return out


def plan_gait_anchor(
    asset, roles, clip_names: Optional[Sequence[str]] = None, fps_of: Callable[[str], float] = lambda name: 30.0
) -> List[AnchorPlan]:
    """Prove every selected clip; the first refusal refuses the whole command."""
    return [prove_gait_anchor(asset, clip, roles, float(fps_of(clip.name))) for clip in select_clips(asset, clip_names)]


def sampler_edits(asset, plans: Iterable[AnchorPlan]):
    """One :class:`~animsmith.io.patch.SamplerEdit` per (animation, sampler) a plan rotates."""
    from animsmith.io.patch import SamplerEdit

    edits = []
    seen = set()
    by_index = {c.index: c for c in asset.clips}
    for plan in plans:
        clip = by_index[plan.clip_index]
        for i in plan.rotated_channels:
            ch = clip.channels[i]
            if ch.sampler < 0:
                raise AnimsmithError(f"clip {clip.name!r} channel {i} has no source sampler to rewrite")
            key = (plan.clip_index, ch.sampler)
            if key in seen:
                continue
            seen.add(key)
            edits.append(SamplerEdit(plan.clip_index, ch.sampler, plan.order, np.asarray(ch.values)))
    return edits


def gait_anchored_glb(data: bytes, asset, plans: Sequence[AnchorPlan]):
    """(new GLB bytes, PatchReport): the plans applied to the original file bytes."""
    from animsmith.io.patch import GlbPatch

    patch = GlbPatch(data)
    report = patch.permute_sampler_outputs(sampler_edits(asset, plans))
    return patch.to_bytes(), report


def _same_bits(a, b) -> bool:
    a = np.ascontiguousarray(a, dtype=np.float32)
    b = np.ascontiguousarray(b, dtype=np.float32)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def _verification_refusal(clip: str, what: str) -> Refusal:
    return Refusal(
        code="verification_failed",
        message=(
            f"cannot gait-anchor clip {clip!r}: the rewritten file did not re-load to the planned clip ({what}); "
            "nothing was written — please report this with the input file"
        ),
        clip=clip,
    )


def verify_gait_anchored(
    asset, out_bytes: bytes, plans: Sequence[AnchorPlan], roles, label: str, base_dir: Optional[str] = None
) -> List[float]:
    """Re-load ``out_bytes`` and prove it is exactly the plan; return the re-measured phases.

    Checks: same skeleton rest pose; every clip has the same channels, key
    times (bit-equal) and interpolation; rotated channels hold exactly
    old[(k mod P + s) mod P] (P = E, or E − 1 with a duplicated endpoint),
    every other channel is bit-identical; the stride anchor
    re-measured by fresh sampling equals the plan's phase_after (1e-6 cycles).
    """
    from animsmith.core.circular import circular_distance_cycles
    from animsmith.errors import LoadError
    from animsmith.io.gltf import load_asset_bytes

    try:
        after = load_asset_bytes(out_bytes, label, base_dir=base_dir, strict=False).in_units(asset.skeleton.metres_per_unit)
    except LoadError as exc:
        raise _verification_refusal(plans[0].clip if plans else "?", f"reload failed: {exc.reason}") from None
    sk0, sk1 = asset.skeleton, after.skeleton
    if sk0.names != sk1.names or not np.array_equal(sk0.rest_matrix, sk1.rest_matrix):
        raise _verification_refusal(plans[0].clip if plans else "?", "skeleton changed")
    plan_of = {p.clip_index: p for p in plans}
    if len(after.clips) != len(asset.clips):
        raise _verification_refusal(plans[0].clip if plans else "?", "clip count changed")
    phases = []
    for c0, c1 in zip(asset.clips, after.clips):
        plan = plan_of.get(c0.index)
        rotated = set(plan.rotated_channels) if plan else set()
        if c0.name != c1.name or len(c0.channels) != len(c1.channels):
            raise _verification_refusal(c0.name, "channel list changed")
        for i, (a, b) in enumerate(zip(c0.channels, c1.channels)):
            if (a.node, a.path, a.interpolation) != (b.node, b.path, b.interpolation) or not _same_bits(a.times, b.times):
                raise _verification_refusal(c0.name, f"channel {i} target or key times changed")
            expected = np.asarray(a.values)[plan.order] if i in rotated else a.values
            if not _same_bits(expected, b.values):
                raise _verification_refusal(c0.name, f"channel {i} values are not the planned key order")
            if (b.output_component_type, b.output_normalized) != (a.output_component_type, a.output_normalized):
                raise _verification_refusal(c0.name, f"channel {i} output encoding changed")
        if plan is not None:
            gm = measure_anchor_after(after, c1, roles, plan)
            if gm.gait_phase is None or circular_distance_cycles(gm.gait_phase, plan.phase_after) > 1e-6:
                raise _verification_refusal(c0.name, f"re-measured stride anchor {gm.gait_phase} != planned {plan.phase_after}")
            phases.append(float(gm.gait_phase))
    return phases

