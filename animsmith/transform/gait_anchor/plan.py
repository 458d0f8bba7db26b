"""The whole gait-anchor proof of one clip as an :class:`AnchorPlan` (what the patch and
the report need), the plan applied in memory, and the anchor re-measured after it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from animsmith.core.tolerance import frame_times_f32
from animsmith.transform.gait_anchor.choice import choose_shift, key_order
from animsmith.transform.gait_anchor.period import cycle_period, trajectory_closing
from animsmith.transform.gait_anchor.proofs import (
    name_of_bone,
    classify_channels,
    declared_frames,
    prove_budget,
    prove_finite,
    prove_hips_in_place,
    prove_increasing_times,
    prove_stride_anchor,
    prove_supported_channels,
    prove_trajectory,
    prove_unique_channels,
    refuse,
    stride_metrics,
    trajectory_bone,
)

@dataclass
class AnchorPlan:
    """The proven rewrite of one clip (everything the patch and the report need)."""

    clip: str
    clip_index: int
    fps: float
    frames: int
    duration_s: float
    shift_frames: int
    frame_offset: int
    phase_before: float
    phase_after: float
    seam_ratio: Optional[float]
    cycles: int
    lr_amplitude_m: float
    trajectory_bone: str
    trajectory_role: str
    horizontal_drift_m: float
    yaw_deg: float
    #: |y_last − y_0| of the trajectory bone (float32, widened), proven by ``vertical_drift``
    vertical_drift_m: float
    heading_axis: str
    #: key frames in one cycle: E (open loop) or E − 1 (duplicated endpoint)
    period_frames: int
    rotated_channels: List[int] = field(default_factory=list)
    exempt_channels: List[int] = field(default_factory=list)
    #: largest component difference of a closing key from the first key, rotations
    #: sign-invariantly (0.0: every closing key was the same value or rotation)
    closing_key_delta: float = 0.0

    @property
    def endpoint(self) -> str:
        """``"duplicated_endpoint"`` (the last key repeats the first) or ``"open"``."""
        return "duplicated_endpoint" if self.period_frames == self.frames - 1 else "open"

    @property
    def order(self) -> np.ndarray:
        """The source key of each of the E output keys of a rotated channel (:func:`key_order`)."""
        return key_order(self.frames, self.shift_frames, self.period_frames)

    def to_json(self) -> Dict[str, Any]:
        """The ``clips[]`` entry of ``transform --format json``."""
        return {
            "name": self.clip,
            "phase_before": round(self.phase_before, 6),
            "phase_after": round(self.phase_after, 6),
            "shift_frames": self.shift_frames,
            "frames": self.frames,
            "fps": self.fps,
            "seam_ratio": None if self.seam_ratio is None else round(self.seam_ratio, 6),
            "frame_offset": self.frame_offset,
            "cycles": self.cycles,
            "lr_amplitude_m": round(self.lr_amplitude_m, 6),
            "trajectory_bone": self.trajectory_bone,
            "trajectory_role": self.trajectory_role,
            "horizontal_drift_m": self.horizontal_drift_m,
            "yaw_deg": self.yaw_deg,
            "vertical_drift_m": self.vertical_drift_m,
            "rotated_channels": len(self.rotated_channels),
            "exempt_channels": len(self.exempt_channels),
            "endpoint": self.endpoint,
            "period_frames": self.period_frames,
            "closing_key_delta": self.closing_key_delta,
        }

    def text_line(self, dry_run: bool = False) -> str:
        from animsmith.render.text import phase_text

        seam = "n/a" if self.seam_ratio is None else f"{self.seam_ratio:.2f}"
        verb = "would gait-anchor" if dry_run else "gait-anchored"
        return (
            f"{verb} {self.clip!r}: phase {phase_text(self.phase_before)} -> {phase_text(self.phase_after)} "
            f"(shift {self.shift_frames} frames, seam {seam})"
        )


def prove_gait_anchor(asset, clip, roles, fps: float) -> AnchorPlan:
    """Run every proof on ``clip`` and return the plan, or raise :class:`Refusal`."""
    from animsmith.core.pose import sample_pose

    sk = asset.skeleton
    prove_finite(sk, clip)
    prove_unique_channels(sk, clip)
    prove_supported_channels(asset, clip)
    bone, label = trajectory_bone(sk, clip, roles)
    bone_name = name_of_bone(sk, bone)
    prove_increasing_times(sk, clip)
    frames, duration = declared_frames(clip, fps, bone_name)
    prove_budget(sk, clip, frames, bone_name)
    rotated, exempt = classify_channels(sk, clip, frames, fps, duration)
    if frames < 3:
        raise refuse(
            "no_stride_anchor", clip.name, bone_name, frames, 3,
            f"only {frames} frames at {fps:g} fps; a stride needs at least 3",
            "gait-anchor only whole cycles; use runtime phase offsets instead",
        )
    times = frame_times_f32(frames, fps).astype(np.float64)
    grid = sample_pose(sk, clip, times)
    drift, yaw, axis, rise = prove_trajectory(sk, clip, grid, bone, label)
    prove_hips_in_place(sk, clip, grid, roles, bone)
    gm = prove_stride_anchor(sk, clip, grid, roles)
    cycles = int(gm.cycles or 1)
    anchor_fraction = float(gm.gait_phase) / cycles
    period, closing_delta = cycle_period(sk, clip, rotated, frames, bone, trajectory_closing(grid, bone))
    chosen = choose_shift(grid, roles, anchor_fraction, frames, period)
    if chosen is None:
        raise refuse(
            "no_stride_anchor", clip.name, roles.names.get("hips"), None, "a measurable candidate",
            "no rotation candidate (s-1, s, s+1) has a measurable stride anchor",
            "align the clip with runtime phase offsets instead",
        )
    shift, offset, gm_after, seam = chosen
    return AnchorPlan(
        clip=clip.name,
        clip_index=int(clip.index),
        fps=float(fps),
        frames=frames,
        duration_s=duration,
        shift_frames=int(shift),
        frame_offset=int(offset),
        phase_before=float(gm.gait_phase),
        phase_after=float(gm_after.gait_phase),
        seam_ratio=seam,
        cycles=cycles,
        lr_amplitude_m=float(gm.lr_amplitude_m),
        trajectory_bone=bone_name,
        trajectory_role=label,
        horizontal_drift_m=drift,
        yaw_deg=yaw,
        vertical_drift_m=rise,
        heading_axis=axis,
        rotated_channels=rotated,
        exempt_channels=exempt,
        period_frames=period,
        closing_key_delta=closing_delta,
    )


def apply_plan_in_memory(clip, plan: AnchorPlan):
    """A copy of ``clip`` with the plan's channels rotated (tests, verification)."""
    from dataclasses import replace

    from animsmith.model import Clip

    chans = []
    rotated = set(plan.rotated_channels)
    for i, ch in enumerate(clip.channels):
        if i in rotated:
            chans.append(replace(ch, values=np.asarray(ch.values)[plan.order]))
        else:
            chans.append(ch)
    return Clip(name=clip.name, channels=chans, index=clip.index, weight_channel_count=clip.weight_channel_count, extras=clip.extras)


def measure_anchor_after(asset, clip, roles, plan: AnchorPlan):
    """Re-sample ``clip`` (already rewritten) on the plan's frame grid: GaitMetrics."""
    from animsmith.core.pose import sample_pose

    times = frame_times_f32(plan.frames, plan.fps).astype(np.float64)
    grid = sample_pose(asset.skeleton, clip, times)
    return stride_metrics(grid, roles)
