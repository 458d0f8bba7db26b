"""Contracts and lint runs for the group checks (gait-group, sync-group, time-complement).

builders.gait_clip: L−R signal = 2A·sin(2π(t/T + offset)) -> stride anchor
(0.75 − offset) mod 1 (the trough of the first harmonic); reverse=True plays
the cycle backwards -> anchor 0.25. Peak-to-peak lr amplitude ≈ 4A.
"""

from __future__ import annotations

import json
import math

from lint_support import run_cli, validate_json, write_clips, write_config


def gait_config(members, cap=0.15, floor=0.03):
    clips = ", ".join(json.dumps(m) for m in members)
    return f"[gait_groups.ring]\nclips = [{clips}]\nmax_gait_phase_spread = {cap!r}\nmin_lr_amplitude_m = {floor!r}\n"


def sync_config(members, advantage=0.25, floor=0.03, extra=""):
    clips = ", ".join(json.dumps(m) for m in members)
    return (
        f"[sync_groups.ring]\nclips = [{clips}]\nmax_duration_delta_s = 0.001\nmax_frame_count_delta = 0\n"
        f"max_fps_delta = 0.01\n{extra}\n[sync_groups.ring.time_complement]\n"
        f"min_reflected_time_advantage = {advantage!r}\nmin_lr_amplitude_m = {floor!r}\n"
    )


def lint_json(tmp_path, capsys, clips, config, *extra_args, name="clips.glb"):
    glb = write_clips(tmp_path / name, clips)
    cfg = write_config(tmp_path / "animsmith.toml", config)
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", *extra_args, glb], capsys)
    assert err == ""
    return code, validate_json(out)


def by_check(doc, check_id):
    f = doc["files"][0]
    return (
        [x for x in f["findings"] if x["check_id"] == check_id],
        [g for g in f["coverage_gaps"] if g["check_id"] == check_id],
    )


def expected_spread(phases):
    """Max circular distance from the circular mean (independent re-derivation)."""
    z = sum(complex(math.cos(2 * math.pi * p), math.sin(2 * math.pi * p)) for p in phases)
    mu = math.atan2(z.imag, z.real) / (2 * math.pi)
    return max(min(abs(p - mu) % 1.0, 1 - abs(p - mu) % 1.0) for p in phases)


#: anchors [0.75, 0.75, 0.5, 0.75]: Σ sin = −3, Σ cos = −1, so the mean angle is atan2(−3, −1);
#: the outlier at π sits π − |atan2(−3, −1)| = atan(3) rad from it (the others only atan(1/3))
RING_SPREAD = math.atan(3) / (2 * math.pi)
