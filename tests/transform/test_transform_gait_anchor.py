"""`transform --gait-anchor`: one refusal per code just past its cap, acceptance just under it.

Every clip is analytic (tests/support/transform_builders.py): feet bob as
±A·sin(2π(k/P + offset)) so the stride anchor is (0.75 − offset) mod 1; root
drift / yaw are linear ramps with a known endpoint value. Refusals go through
the real CLI entry point: exit 1, stdout empty, OUT keeps its sentinel bytes.
"""

import json
import math
import re
import os
import struct

import numpy as np
import pytest

from transform_builders import (
    anchor_of_file,
    asset_of,
    biped_clip,
    drift_root,
    frame_times,
    run_cli,
    write,
    x_quat,
    yaw_quats,
)
from animsmith.errors import Refusal
from animsmith.model import Channel
from animsmith.core.tolerance import round_half_away
from animsmith.transform import gait_anchor as ga

SENTINEL = b"existing output\n"


def refuse_cli(capsys, tmp_path, path, code, *extra):
    """Run the CLI expecting refusal ``code``; OUT (pre-filled) must keep its bytes."""
    out = tmp_path / "out.glb"
    out.write_bytes(SENTINEL)
    rc, stdout, stderr = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", *extra)
    assert rc == 1, stderr
    assert stdout == ""
    assert f"refused [{code}]" in stderr
    assert out.read_bytes() == SENTINEL
    assert [p for p in os.listdir(tmp_path) if p.startswith(".animsmith-")] == []
    return stderr


def accept_cli(capsys, tmp_path, path, *extra):
    out = tmp_path / "out.glb"
    rc, stdout, stderr = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", *extra)
    assert rc == 0, stderr
    assert "gait-anchored 'walk'" in stdout
    return str(out)


# --------------------------------------------------------------------------
# Constants and helpers
# --------------------------------------------------------------------------


def _four_f32_successors(cap):
    """f32(cap) stepped up four times with np.nextafter (docs/transform.md: the authored-quantisation allowance)."""
    x = np.float32(cap)
    for _ in range(4):
        x = np.nextafter(x, np.float32(np.inf))
    return float(x)


def test_tolerances_are_four_float32_successors():
    assert ga.TOLERATED_DRIFT_M == _four_f32_successors(0.01)
    assert ga.TOLERATED_YAW_DEG == _four_f32_successors(1.0)
    # the float32 spacing at 1.0 is 2^-23: four steps are exactly 4·2^-23 above 1
    assert ga.TOLERATED_YAW_DEG == 1.0 + 4 * 2.0**-23


def test_round_half_away_from_zero():
    assert [round_half_away(x) for x in (2.5, 3.5, -2.5, 0.49, 23.25)] == [3, 4, -3, 0, 23]


# --------------------------------------------------------------------------
# Drift and yaw: just under / just past the caps
# --------------------------------------------------------------------------


def test_drift_9mm_accepts_and_11mm_refuses(capsys, tmp_path):
    ok = write(tmp_path, biped_clip(root_translation=drift_root(31, 0.009)), name="ok.glb")
    accept_cli(capsys, tmp_path, ok)
    bad = write(tmp_path, biped_clip(root_translation=drift_root(31, 0.011, axis=2)), name="bad.glb")
    err = refuse_cli(capsys, tmp_path, bad, "horizontal_drift")
    assert "'walk'" in err and "'root'" in err
    assert "0.0110 m" in err and "cap 0.0100 m" in err
    assert "runtime phase offsets" in err.strip().splitlines()[-1]


def test_drift_cap_is_inclusive_at_f32_of_the_cap(tmp_path):
    root = np.zeros((31, 3))
    root[-1, 0] = np.float32(0.01)
    asset = asset_of(biped_clip(root_translation=root))
    plan = ga.prove_gait_anchor(asset, asset.clips[0], _roles(asset), 30.0)
    assert plan.horizontal_drift_m == pytest.approx(0.01, abs=1e-9)


def test_vertical_root_motion_is_not_horizontal_drift_but_vertical_drift():
    root = np.zeros((31, 3))
    root[:, 1] = np.linspace(0, 0.5, 31)  # up 50 cm, 1/60 m a frame: not horizontal
    assert ga.horizontal_drift_m(root) == 0.0
    asset = asset_of(biped_clip(root_translation=root))
    with pytest.raises(Refusal) as exc:
        ga.prove_gait_anchor(asset, asset.clips[0], _roles(asset), 30.0)
    assert exc.value.code == "vertical_drift"
    assert exc.value.measured == pytest.approx(0.5, abs=1e-6)
    assert exc.value.limit == pytest.approx(1.5 * 0.5 / 30, rel=1e-6)  # 1.5x the largest frame step, above the 1 cm cap
    assert "ends 0.5000 m higher than it starts" in str(exc.value)


def test_yaw_0p8_deg_accepts_and_1p2_deg_refuses(capsys, tmp_path):
    ok = write(tmp_path, biped_clip(root_rotation=yaw_quats(np.radians(np.linspace(0, 0.8, 31)))), name="ok.glb")
    out = accept_cli(capsys, tmp_path, ok)
    assert os.path.getsize(out) > 0
    bad = write(tmp_path, biped_clip(root_rotation=yaw_quats(np.radians(np.linspace(0, 1.2, 31)))), name="bad.glb")
    err = refuse_cli(capsys, tmp_path, bad, "yaw_drift")
    assert "yaw 1.200 deg" in err and "cap 1.000 deg" in err and "'root'" in err


def test_yaw_counts_full_turns():
    # 5 frames at 1 fps, root yaw k·90°: the last heading aliases the first, turns catch it.
    clip = biped_clip(frames=5, fps=1.0, root_rotation=yaw_quats(np.radians(np.arange(5) * 90.0)))
    asset = asset_of(clip)
    with pytest.raises(Refusal) as exc:
        ga.prove_gait_anchor(asset, clip, _roles(asset), 1.0)
    assert exc.value.code == "yaw_drift"
    assert exc.value.measured == pytest.approx(360.0, abs=1e-9)


def test_yaw_with_vertical_heading_basis_uses_plus_y():
    # root rest-like basis rotation_x(-90°) makes local +Z vertical; +Y is the witness.
    basis = x_quat(-math.pi / 2)
    qs = np.array([_qmul(y, basis) for y in yaw_quats(np.radians(np.linspace(0, 0.5, 31)))])
    yaw, axis, lost = ga.yaw_accumulation_proof_deg(qs)
    assert (axis, lost) == ("+Y", None)
    assert yaw == pytest.approx(0.5, abs=1e-9)
    # exact +Y/+X tie at frame 0 keeps +Y (order +Z, +Y, +X)
    tie = np.tile([-0.5, -0.5, -0.5, 0.5], (3, 1))
    assert ga.yaw_accumulation_proof_deg(tie)[1] == "+Y"


def test_heading_loss_refuses_no_heading(capsys, tmp_path):
    qs = np.tile([0.0, 0.0, 0.0, 1.0], (31, 1))
    qs[5] = x_quat(math.pi / 2)  # +Z points straight down at frame 5
    path = write(tmp_path, biped_clip(root_rotation=qs))
    err = refuse_cli(capsys, tmp_path, path, "no_heading")
    assert "+Z" in err and "frame 5" in err


# --------------------------------------------------------------------------
# Grid, keys and channels
# --------------------------------------------------------------------------


def test_off_grid_key_refuses(capsys, tmp_path):
    clip = biped_clip()
    t = clip.channels[0].times.copy()
    t[5] = np.float32(t[5] + 0.001)
    clip.channels[0] = Channel.make(2, "translation", t, clip.channels[0].values)
    path = write(tmp_path, clip)
    err = refuse_cli(capsys, tmp_path, path, "off_grid_key")
    assert "key 5" in err and "30 fps" in err


def test_duplicate_time_key_refuses_as_off_grid(capsys, tmp_path):
    clip = biped_clip()
    t = clip.channels[1].times.copy()
    t[5] = t[4]
    clip.channels[1] = Channel.make(3, "translation", t, clip.channels[1].values)
    path = write(tmp_path, clip)
    err = refuse_cli(capsys, tmp_path, path, "off_grid_key")
    assert "key 5" in err


def test_duration_off_the_frame_grid_refuses(tmp_path):
    # 31 keys at 30 fps but the clip is read at 24 fps: 1.0 s = 24 frames, keys do not match
    asset = asset_of(biped_clip())
    with pytest.raises(Refusal) as exc:
        ga.prove_gait_anchor(asset, asset.clips[0], _roles(asset), 24.0)
    assert exc.value.code == "key_count"
    with pytest.raises(Refusal) as exc:
        ga.prove_gait_anchor(asset, asset.clips[0], _roles(asset), 29.97)
    assert exc.value.code == "off_grid_key"
    assert "not a whole number of frames" in exc.value.message


def test_sparse_channel_refuses_key_count(capsys, tmp_path):
    scale = Channel.make(1, "scale", [0.0, 1.0], [[1, 1, 1], [1.1, 1.1, 1.1]])
    path = write(tmp_path, biped_clip(extra=[scale]))
    err = refuse_cli(capsys, tmp_path, path, "key_count")
    assert "2 keys instead of exactly 31" in err and "'Hips'" in err


def test_duplicate_constant_channels_refuse(capsys, tmp_path):
    a = Channel.make(1, "scale", [0.0], [[1, 1, 1]])
    b = Channel.make(1, "scale", [0.0], [[1, 1, 1]])
    path = write(tmp_path, biped_clip(extra=[a, b]))
    err = refuse_cli(capsys, tmp_path, path, "duplicate_channel")
    assert "'Hips'" in err


def test_constant_channels_are_exempt_and_untouched(capsys, tmp_path):
    # constant cubic translation with keys past the grid and a single-key scale: exempt
    cubic = Channel.make(
        0, "translation", [0.0, 0.5, 1.0], [[0, 0, 0]] * 3, interpolation="CUBICSPLINE"
    )
    one = Channel.make(1, "scale", [0.0], [[1, 1, 1]])
    clip = biped_clip(extra=[cubic, one])
    asset = asset_of(clip)
    plan = ga.prove_gait_anchor(asset, clip, _roles(asset), 30.0)
    assert plan.rotated_channels == [0, 1] and plan.exempt_channels == [2, 3]


def test_nonconstant_cubic_refuses(capsys, tmp_path):
    t = frame_times()
    vals = np.zeros((31, 3))
    vals[:, 0] = np.linspace(0, 0.001, 31)
    cubic = Channel.make(1, "scale", t, 1.0 + vals, interpolation="CUBICSPLINE")
    path = write(tmp_path, biped_clip(extra=[cubic]))
    err = refuse_cli(capsys, tmp_path, path, "cubic_track")
    assert "CUBICSPLINE" in err and "LINEAR" in err


def test_constant_cubic_with_tangents_is_not_exempt():
    t = frame_times()
    tan = np.tile([1.0, 0, 0], (31, 1))
    cubic = Channel.make(1, "scale", t, np.ones((31, 3)), interpolation="CUBICSPLINE", in_tangents=tan, out_tangents=tan)
    asset = asset_of(biped_clip(extra=[cubic]))
    with pytest.raises(Refusal) as exc:
        ga.prove_gait_anchor(asset, asset.clips[0], _roles(asset), 30.0)
    assert exc.value.code == "cubic_track"


def test_non_finite_value_refuses(capsys, tmp_path):
    clip = biped_clip()
    v = clip.channels[0].values.copy()
    v[16, 1] = np.nan
    clip.channels[0] = Channel.make(2, "translation", clip.channels[0].times, v)
    path = write(tmp_path, clip)
    err = refuse_cli(capsys, tmp_path, path, "non_finite")
    assert "key 16" in err and "'LeftFoot'" in err


def test_budget_is_inclusive_at_one_million(tmp_path):
    # 4 bones: E = 250000 -> 1,000,000 pose samples (allowed), E = 250001 refuses.
    for frames, code in ((250000, "key_count"), (250001, "budget_exceeded")):
        hold = Channel.make(1, "scale", [0.0, float(frames - 1)], [[1, 1, 1], [1, 1, 1]])
        asset = asset_of(biped_clip(extra=[hold]))
        with pytest.raises(Refusal) as exc:
            ga.prove_gait_anchor(asset, asset.clips[0], _roles(asset), 1.0)
        assert exc.value.code == code, exc.value.message
    assert exc.value.measured == 1_000_004 and exc.value.limit == 1_000_000


def _budget_channels_case():
    extra = [Channel.make(1, "scale", [0.0], [[1, 1, 1]])] * 32257
    asset = asset_of(biped_clip(extra=extra))
    return asset


def test_channel_budget_refuses_before_sampling():
    asset = _budget_channels_case()
    clip = asset.clips[0]
    frames, _ = ga.declared_frames(clip, 30.0, "root")
    assert frames * len(clip.channels) == 31 * 32259
    with pytest.raises(Refusal) as exc:
        ga.prove_budget(asset.skeleton, clip, frames, "root")
    assert exc.value.code == "budget_exceeded" and "channel samples" in exc.value.message


# --------------------------------------------------------------------------
# Roles and stride anchor
# --------------------------------------------------------------------------


def test_no_trajectory_bone_refuses(capsys, tmp_path):
    path = write(tmp_path, biped_clip(), names=["base", "pelvic_thing", "LeftFoot", "RightFoot"])
    cfg = tmp_path / "animsmith.toml"
    cfg.write_text('[rig]\nprofile = "none"\n[rig.roles]\nleft_foot = "LeftFoot"\nright_foot = "RightFoot"\n')
    err = refuse_cli(capsys, tmp_path, path, "no_trajectory_bone", "--config", str(cfg))
    assert "no travel bone (neither root nor hips role resolved)" in err


def test_hips_fallback_is_used_without_root():
    from animsmith.core.roles import resolve_roles

    asset = asset_of(biped_clip())
    roles = resolve_roles(asset.skeleton, profile="none", overrides={"hips": "Hips", "left_foot": "LeftFoot", "right_foot": "RightFoot"})
    plan = ga.prove_gait_anchor(asset, asset.clips[0], roles, 30.0)
    assert plan.trajectory_role == "Hips" and plan.trajectory_bone == "Hips"


def test_standing_clip_refuses_no_stride_anchor(capsys, tmp_path):
    clip = biped_clip(amp_m=0.0, root_translation=drift_root(31, 0.001))  # nonconstant but no foot swing
    path = write(tmp_path, clip)
    err = refuse_cli(capsys, tmp_path, path, "no_stride_anchor")
    assert "stride anchor" in err


def test_low_amplitude_refuses_below_3cm_and_accepts_above(capsys, tmp_path):
    # L-R peak to peak ~ 4A: A = 0.007 -> 0.0279 m refuses, A = 0.008 -> 0.0318 m accepts
    bad = write(tmp_path, biped_clip(amp_m=0.007), name="bad.glb")
    err = refuse_cli(capsys, tmp_path, bad, "low_amplitude")
    s = 2 * 0.007 * np.sin(2 * np.pi * np.arange(30) / 30)
    shown = float(re.search(r"amplitude ([0-9.e-]+) m", err).group(1))
    assert shown == pytest.approx(s.max() - s.min(), abs=1e-6) and "0.03 m" in err
    ok = write(tmp_path, biped_clip(amp_m=0.008), name="ok.glb")
    accept_cli(capsys, tmp_path, ok)


def test_low_amplitude_floor_allows_float32_rounding_like_gait_group(capsys, tmp_path):
    # p2p = 4A·sin(2π·7/30) on the 30-sample cycle: 3e-7 m under 0.03 (float32 data) is at the
    # floor, as gait-group counts it; 5e-6 m under is below
    per_a = 4 * np.sin(2 * np.pi * 7 / 30)
    at = write(tmp_path, biped_clip(amp_m=(0.03 - 3e-7) / per_a), name="at.glb")
    accept_cli(capsys, tmp_path, at)
    under = write(tmp_path, biped_clip(amp_m=(0.03 - 5e-6) / per_a), name="under.glb")
    refuse_cli(capsys, tmp_path, under, "low_amplitude")


# --------------------------------------------------------------------------
# The rewrite
# --------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [0.0, 0.1, 0.3, 0.45, 0.6, 0.9])
def test_anchor_lands_within_half_a_frame_of_zero(capsys, tmp_path, offset):
    path = write(tmp_path, biped_clip(offset=offset, amp_m=0.05))
    before, frames = anchor_of_file(path, "walk")
    assert before.gait_phase == pytest.approx((0.75 - offset) % 1.0, abs=1e-9)
    out = accept_cli(capsys, tmp_path, path)
    after, _ = anchor_of_file(out, "walk")
    dist = min(after.gait_phase, 1.0 - after.gait_phase)
    assert dist * (frames - 1) <= 0.5 + 1e-9


def test_rewrite_is_an_exact_left_rotation(capsys, tmp_path):
    from animsmith.io.gltf import load_asset

    path = write(tmp_path, biped_clip(offset=0.21))
    out = accept_cli(capsys, tmp_path, path)
    a, b = load_asset(path).clip("walk"), load_asset(out).clip("walk")
    # the sine repeats its first pose at key 30 (a duplicated endpoint): the cycle is the 30
    # unique frames; anchor 0.54 of it: s = round(16.2) = 16 (seam n/a: steps < 2 cm keep s)
    s = 16
    for ca, cb in zip(a.channels, b.channels):
        assert ca.times.tobytes() == cb.times.tobytes()
        expected = np.array([ca.values[(k + s) % 30] for k in range(30)] + [ca.values[s]])
        assert expected.tobytes() == cb.values.tobytes()
        assert cb.values[-1].tobytes() == cb.values[0].tobytes()  # still a duplicated endpoint


def test_text_and_json_outputs(capsys, tmp_path):
    import json

    path = write(tmp_path, biped_clip(offset=0.21))
    out = tmp_path / "out.glb"
    rc, stdout, _ = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0
    doc = json.loads(stdout)
    assert doc["schema_version"] == 1 and doc["command"] == "transform" and doc["outcome"] == "published"
    assert doc["output"] == str(out) and doc["refusal"] is None
    (c,) = doc["clips"]
    assert set(["name", "phase_before", "phase_after", "shift_frames", "frames", "fps", "seam_ratio"]) <= set(c)
    assert c["name"] == "walk" and c["frames"] == 31 and c["fps"] == 30.0 and c["shift_frames"] == 16
    assert c["endpoint"] == "duplicated_endpoint" and c["period_frames"] == 30
    assert c["phase_before"] == pytest.approx(0.54, abs=1e-6)
    assert c["phase_after"] == pytest.approx(0.54 - 16 / 30, abs=1e-6)
    rc, stdout, _ = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor")
    assert stdout.splitlines()[0].startswith("gait-anchored 'walk': phase 0.540 -> ")
    assert "(shift 16 frames, seam n/a)" in stdout.splitlines()[0]


def test_key_order_over_the_cycle():
    # an open loop rotates all E keys; a duplicated endpoint rotates E − 1 and repeats the new first
    assert ga.key_order(5, 2, 5).tolist() == [2, 3, 4, 0, 1]
    assert ga.key_order(5, 2, 4).tolist() == [2, 3, 0, 1, 2]
    assert ga.key_order(5, 0, 4).tolist() == [0, 1, 2, 3, 0]


@pytest.mark.parametrize("offset", [0.1, 0.37, 0.62, 0.9])
def test_duplicated_endpoint_stays_closed_and_holds_no_frame(capsys, tmp_path, offset):
    """A loop whose last key repeats its first (what `sim bake` writes): rotating all E keys put
    that duplicate mid-clip (a pose held for two frames, and a one-frame skip at the wrap). The
    30 unique frames rotate, the last key repeats the new first, `measure` still reads a
    duplicated endpoint, and the anchor lands within half a frame of the 30-frame cycle."""
    import json

    from animsmith.io.gltf import load_asset

    path = write(tmp_path, biped_clip(offset=offset))
    out = accept_cli(capsys, tmp_path, path)
    src, dst = load_asset(path).clip("walk"), load_asset(out).clip("walk")
    shifts = []
    for a, b in zip(src.channels, dst.channels):
        unique = a.values[:30]
        assert a.values[30].tobytes() == a.values[0].tobytes()
        # the first 30 keys are the 30 unique frames, each once, in cyclic order (no frame held
        # twice, none lost), and the last key repeats the new first one
        shifts.append({k for k in range(30) if np.roll(unique, -k, axis=0).tobytes() == b.values[:30].tobytes()})
        assert b.values[30].tobytes() == b.values[0].tobytes()
    assert set.intersection(*shifts)  # one rotation for every channel
    after, frames = anchor_of_file(out, "walk")
    assert min(after.gait_phase, 1.0 - after.gait_phase) * (frames - 1) <= 0.5 + 1e-9
    rc, stdout, _ = run_cli(capsys, "measure", out, "--format", "json")
    (clip,) = json.loads(stdout)["files"][0]["clips"]
    assert clip["loop_endpoint_mode"] == "duplicated_endpoint"


@pytest.mark.parametrize("kind", ["translation", "negated_rotation"])
def test_nearly_duplicated_endpoint_is_closed_with_an_exact_copy(capsys, tmp_path, kind):
    """A closing key that repeats the first pose only within the duplicated-endpoint tolerance
    (what `sim bake` and DCCs that evaluate t = 0 and t = d separately write: last-bit
    differences; a −q copy of a rotation) is still a duplicated endpoint: the 30 unique frames
    rotate and the last key becomes an exact copy of the new first one (rotating all 31 keys
    would hold that pose for two frames mid-clip). The JSON reports the replaced key's delta."""
    import json

    from animsmith.io.gltf import load_asset

    extra = []
    if kind == "negated_rotation":
        q = np.tile(x_quat(0.2), (31, 1))
        q[:, 3] += 0.01 * np.sin(2 * np.pi * np.arange(31) / 30)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        q[-1] = -q[0]
        extra = [Channel.make(1, "rotation", frame_times(31), q)]
    clip = biped_clip(offset=0.3, extra=extra)
    if kind == "translation":
        clip.channels[0].values[-1, 1] += np.float32(4e-6)
    path = write(tmp_path, clip)
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0, err
    (c,) = json.loads(stdout)["clips"]
    assert c["endpoint"] == "duplicated_endpoint" and c["period_frames"] == 30
    src = load_asset(path).clip("walk")
    if kind == "translation":  # the raised key, as stored in float32
        want = float(np.float32(np.float32(-0.9 + 0.05 * np.sin(2 * np.pi * 0.3)) + np.float32(4e-6))) - float(src.channels[0].values[0, 1])
        assert c["closing_key_delta"] == pytest.approx(want, rel=1e-6)
    else:  # −q0 is q0's rotation: nothing differs (the key is still replaced by the +q0 copy)
        assert c["closing_key_delta"] == 0.0
    s = c["shift_frames"]
    for a, b in zip(src.channels, load_asset(str(out)).clip("walk").channels):
        assert b.values[:30].tobytes() == np.roll(a.values[:30], -s, axis=0).tobytes()
        assert b.values[30].tobytes() == a.values[s].tobytes()


def _feet_rig(phase: float = 0.25):
    """(raw, (left, right, hips) node indices, key-time accessor, left/right foot keys):
    root -> Hips -> feet on 31 keys at 30 fps, h = 0.05·sin(2π(k/30 + phase)) (duplicated endpoint)."""
    from test_transform_patch import raw_feet_rig

    raw, (lf_n, rf_n, hips), t = raw_feet_rig(31, 30.0)
    h = 0.05 * np.sin(2 * np.pi * (np.arange(31) / 30 + phase))
    lf = np.stack([np.full(31, 0.1), -0.9 + h, np.zeros(31)], axis=1).astype(np.float32)
    rf = np.stack([np.full(31, -0.1), -0.9 - h, np.zeros(31)], axis=1).astype(np.float32)
    return raw, (lf_n, rf_n, hips), t, lf, rf


def _accessor_rows(doc, bin_, index: int, dtype: str) -> np.ndarray:
    """The (count, width) elements of a dense accessor of the written GLB."""
    acc = doc["accessors"][index]
    view = doc["bufferViews"][acc["bufferView"]]
    width = {"VEC3": 3, "VEC4": 4}[acc["type"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    return np.frombuffer(bin_, dtype=dtype, count=acc["count"] * width, offset=start).reshape(acc["count"], width)


def test_replaced_closing_key_keeps_declared_bounds_true(capsys, tmp_path, request):
    """The closing key dropped for an exact copy was the unique maximum of its component (float)
    and the unique minimum of an int16 normalized rotation component: the output accessors'
    declared min/max are recomputed (integers for the integer type, as the validator requires)
    and equal the bounds of the data written; the Khronos validator accepts the file."""
    import json
    import subprocess

    from test_transform_patch import chunks

    raw, (lf_n, rf_n, hips), t, lf, rf = _feet_rig()  # the left foot's highest at key 0
    lf[-1, 1] = np.nextafter(np.nextafter(lf[0, 1], np.float32(1)), np.float32(1))  # 2 ulps over: the unique max
    ang = 0.3 * np.sin(2 * np.pi * (np.arange(31) / 30 + 0.25))
    qi = np.round(np.stack([np.zeros(31), np.sin(ang / 2), np.zeros(31), np.cos(ang / 2)], axis=1) * 32767).astype(np.int16)
    qi[-1, 1] = qi[0, 1] + 1  # ... and here the unique max of component y
    qi[0, 1] -= 0  # key 0 keeps its value
    acc_lf = raw.accessor(lf, "VEC3", min=lf.min(axis=0).tolist(), max=lf.max(axis=0).tolist())
    acc_rf = raw.accessor(rf, "VEC3", min=rf.min(axis=0).tolist(), max=rf.max(axis=0).tolist())
    acc_q = raw.accessor(qi, "VEC4", normalized=True, min=qi.min(axis=0).tolist(), max=qi.max(axis=0).tolist())
    raw.animation("walk", [(lf_n, "translation", t, acc_lf, "LINEAR"), (rf_n, "translation", t, acc_rf, "LINEAR"),
                           (hips, "rotation", t, acc_q, "LINEAR")])
    src = tmp_path / "bounds.glb"
    src.write_bytes(raw.glb())
    out = tmp_path / "bounds_out.glb"
    rc, stdout, err = run_cli(capsys, "transform", str(src), "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0, err
    (c,) = json.loads(stdout)["clips"]
    assert c["endpoint"] == "duplicated_endpoint" and c["closing_key_delta"] > 0
    doc, _, bin_ = chunks(out.read_bytes())
    dtypes = {5126: "<f4", 5122: "<i2"}
    for sampler in doc["animations"][0]["samplers"]:
        acc = doc["accessors"][sampler["output"]]
        data = _accessor_rows(doc, bin_, sampler["output"], dtypes[acc["componentType"]])
        assert data[-1].tobytes() == data[0].tobytes()  # closed with an exact copy
        assert acc["min"] == data.min(axis=0).tolist() and acc["max"] == data.max(axis=0).tolist()
    oracles = request.getfixturevalue("oracles") if os.environ.get("ANIMSMITH_ORACLES") else None
    if oracles:
        res = subprocess.run(["node", os.path.join(oracles, "validate.mjs"), str(out), "--report", str(out) + ".json"],
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 0 and "errors=0" in res.stdout, res.stdout


def test_duplicated_endpoint_on_three_keys_refuses(capsys, tmp_path):
    """[A, B, A]: two unique frames, no stride to anchor (rotating all three keys held A twice)."""
    path = write(tmp_path, biped_clip(frames=3, fps=1.0, amp_m=0.3, offset=0.25, period_frames=2.0))
    err = refuse_cli(capsys, tmp_path, path, "no_stride_anchor", "--fps", "1")
    assert "leaving 2 unique frames" in err


def test_open_loop_through_the_file(capsys, tmp_path):
    """An open loop (period 31 on 31 keys) is written as the E-key rotation and reported open."""
    import json

    from animsmith.io.gltf import load_asset

    path = write(tmp_path, biped_clip(offset=0.3, period_frames=31.0))
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0, err
    (c,) = json.loads(stdout)["clips"]
    assert c["endpoint"] == "open" and c["period_frames"] == 31
    a, b = load_asset(path).clip("walk"), load_asset(str(out)).clip("walk")
    for ca, cb in zip(a.channels, b.channels):
        assert cb.values.tobytes() == np.roll(ca.values, -c["shift_frames"], axis=0).tobytes()


def test_open_loop_rotates_every_key(tmp_path):
    """A loop whose last key is a real frame (period 31 on 31 keys) keeps the E-key rotation."""
    from transform_builders import roles_of

    clip = biped_clip(offset=0.3, period_frames=31.0)
    asset = asset_of(clip)
    plan = ga.prove_gait_anchor(asset, clip, roles_of(asset), 30.0)
    assert plan.period_frames == 31 and plan.endpoint == "open"
    moved = ga.apply_plan_in_memory(clip, plan)
    for a, b in zip(clip.channels, moved.channels):
        assert np.array_equal(b.values, np.roll(a.values, -plan.shift_frames, axis=0))


def test_dry_run_writes_nothing(capsys, tmp_path):
    import json

    path = write(tmp_path, biped_clip(offset=0.2))
    out = tmp_path / "out.glb"
    rc, stdout, _ = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", "--dry-run", "--format", "json")
    assert rc == 0 and json.loads(stdout)["outcome"] == "dry-run"
    assert not out.exists()


def test_json_refusal_object(capsys, tmp_path):
    import json

    path = write(tmp_path, biped_clip(root_translation=drift_root(31, 0.02)))
    out = tmp_path / "out.glb"
    rc, stdout, stderr = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 1 and not out.exists()
    doc = json.loads(stdout)
    assert doc["outcome"] == "refused" and doc["output"] is None
    # the documented shape, every key present: nothing was patched
    assert set(doc) == {"schema_version", "command", "operation", "input", "outcome", "output", "clips",
                        "refusal", "patch"} and doc["patch"] is None
    r = doc["refusal"]
    assert r["code"] == "horizontal_drift" and r["clip"] == "walk" and r["bone"] == "root"
    assert r["measured"] == pytest.approx(0.02, abs=1e-6) and r["limit"] == 0.01
    assert "refused [horizontal_drift]" in stderr


def test_one_refusing_clip_refuses_the_whole_command(capsys, tmp_path):
    good = biped_clip("walk", offset=0.2)
    bad = biped_clip("stand", amp_m=0.0, root_translation=drift_root(31, 0.001))
    path = write(tmp_path, good, bad)
    err = refuse_cli(capsys, tmp_path, path, "no_stride_anchor")
    assert "'stand'" in err
    # --clip selects only the good one
    out = tmp_path / "only.glb"
    rc, stdout, _ = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", "--clip", "walk")
    assert rc == 0 and "'walk'" in stdout and "'stand'" not in stdout


def test_output_equal_to_input_needs_in_place(capsys, tmp_path):
    path = write(tmp_path, biped_clip(offset=0.2))
    before = open(path, "rb").read()
    link = tmp_path / "link.glb"
    os.symlink(path, link)
    for target in (path, str(link)):
        rc, stdout, stderr = run_cli(capsys, "transform", path, "-o", target, "--gait-anchor")
        assert rc == 2 and "--in-place" in stderr and stdout == ""
        assert open(path, "rb").read() == before
    rc, stdout, _ = run_cli(capsys, "transform", path, "--in-place", "--gait-anchor")
    assert rc == 0 and open(path, "rb").read() != before
    after, frames = anchor_of_file(path, "walk")
    assert min(after.gait_phase, 1 - after.gait_phase) * (frames - 1) <= 0.5 + 1e-9


def test_in_place_with_an_output_naming_another_file_is_an_operator_error(capsys, tmp_path):
    """--in-place says "overwrite FILE", -o another file says "leave FILE alone": the
    command cannot do both, so it does neither (it used to write only the -o file)."""
    path = write(tmp_path, biped_clip(offset=0.2))
    before = open(path, "rb").read()
    other = tmp_path / "other.glb"
    rc, stdout, stderr = run_cli(capsys, "transform", path, "--in-place", "-o", str(other), "--gait-anchor")
    assert rc == 2 and stdout == ""
    assert f"--in-place overwrites {path} but -o names another file ({other})" in stderr
    assert open(path, "rb").read() == before and not other.exists()
    # -o naming FILE itself agrees with --in-place
    rc, _, _ = run_cli(capsys, "transform", path, "--in-place", "-o", path, "--gait-anchor")
    assert rc == 0 and open(path, "rb").read() != before


def test_operator_errors_exit_2(capsys, tmp_path):
    path = write(tmp_path, biped_clip())
    rc, _, err = run_cli(capsys, "transform", path, "-o", str(tmp_path / "o.glb"), "--gait-anchor", "--clip", "nope")
    assert rc == 2 and "nope" in err
    rc, _, err = run_cli(capsys, "transform", path, "-o", str(tmp_path / "o.glb"))
    assert rc == 2 and "--gait-anchor" in err
    rc, _, err = run_cli(capsys, "transform", str(tmp_path / "missing.glb"), "-o", str(tmp_path / "o.glb"), "--gait-anchor")
    assert rc == 2 and "missing.glb" in err
    broken = tmp_path / "broken.glb"
    broken.write_bytes(b"glTF\x02\x00\x00\x00\xff\x00\x00\x00")
    rc, _, err = run_cli(capsys, "transform", str(broken), "-o", str(tmp_path / "o.glb"), "--gait-anchor")
    assert rc == 2 and "broken.glb" in err and "Traceback" not in err


def test_fps_defaults_from_config_clip_table(capsys, tmp_path):
    # 25 keys at 24 fps: only the config's fps = 24 makes the grid whole
    clip = biped_clip(frames=25, fps=24.0, offset=0.2)
    path = write(tmp_path, clip)
    rc, _, err = run_cli(capsys, "transform", path, "-o", str(tmp_path / "o.glb"), "--gait-anchor")
    assert rc == 1 and "refused [" in err
    cfg = tmp_path / "animsmith.toml"
    cfg.write_text("[clips.walk]\nfps = 24\n")
    rc, stdout, err = run_cli(capsys, "--config", str(cfg), "transform", path, "-o", str(tmp_path / "o.glb"), "--gait-anchor")
    assert rc == 0, err


def test_fps_from_a_key_naming_the_file(capsys, tmp_path):
    """Mixamo downloads name every clip 'mixamo.com': `[clips."in.glb"]` gives this file its
    24 fps over the shared 30; a key naming another file leaves it on 30 (refused, off the grid)."""
    path = write(tmp_path, biped_clip(frames=25, fps=24.0, offset=0.2, name="mixamo.com"))
    out = str(tmp_path / "o.glb")
    for other, want in (("other.glb", 1), ("in.glb", 0)):
        cfg = tmp_path / "animsmith.toml"
        cfg.write_text(f'[clips."mixamo.com"]\nfps = 30\n[clips."{other}"]\nfps = 24\n')
        rc, _, err = run_cli(capsys, "--config", str(cfg), "transform", path, "-o", out, "--gait-anchor")
        assert rc == want, err


# --------------------------------------------------------------------------


def _roles(asset):
    from animsmith.core.roles import resolve_roles

    return resolve_roles(asset.skeleton)


def _qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ]
    )


# --------------------------------------------------------------------------
# Candidate choice among s-1, s, s+1
# --------------------------------------------------------------------------


def _feet_grid(pop_at=None, frames=31):
    """Hand-built model positions: hips (0,1,0); feet bob 0.2 m and stride 0.3 m; optional x jump at ``pop_at``."""
    from animsmith.core.roles import RoleMap
    from animsmith.model import PoseGrid

    k = np.arange(frames)
    h = 0.2 * np.sin(2 * np.pi * k / (frames - 1))
    pos = np.zeros((frames, 3, 3))
    pos[:, 0] = (0, 1, 0)
    pos[:, 1, 0], pos[:, 1, 1] = 0.1, 0.1 + h
    pos[:, 2, 0], pos[:, 2, 1] = -0.1, 0.1 - h
    pos[:, 1, 2] = 0.3 * np.cos(2 * np.pi * k / (frames - 1))  # stride: steps > 2 cm everywhere
    pos[:, 2, 2] = -pos[:, 1, 2]
    if pop_at is not None:
        pos[pop_at:, 1, 0] += 0.3
    grid = PoseGrid.of_positions(frame_times(frames).astype(float), pos, 1.0)
    roles = RoleMap(bones={"hips": 0, "left_foot": 1, "right_foot": 2}, names={"hips": "h", "left_foot": "l", "right_foot": "r"})
    return grid, roles


def test_seam_noise_keeps_the_nearest_frame():
    # feet bob as sin(2πk/30): the true trough is at 0.75; the three candidates'
    # seam ratios differ by stride shape (s is not even the smallest) but none pops: s is kept
    from animsmith.core.gait import loop_seam_ratio

    grid, roles = _feet_grid()
    ratios = [loop_seam_ratio(ga.rolled_grid(grid, s), roles)[0] for s in (22, 23, 24)]
    assert max(ratios) < 1.05 and ratios[1] > min(ratios) + 0.01
    shift, offset, gm, seam = ga.choose_shift(grid, roles, 0.75, 31)
    assert (shift, offset) == (23, 0)


def test_a_popped_seam_moves_to_a_neighbour_frame():
    # the grid's true trough is 0.75 (feet bob as sin(2πk/30)): s = round_half_away(0.75·31) = 23.
    # Without a pop s is kept (offset 0). The left foot jumps 0.3 m in x between frames 22 and 23:
    # rotating by 23 puts that jump on the wrap, so s pops and a neighbour (whose wrap is a normal
    # step; the jump is then its first or last in-clip step) must win on seam grounds.
    from animsmith.core.gait import loop_seam_ratio

    assert round_half_away(0.75 * 31) == 23
    clean, roles = _feet_grid()
    assert ga.choose_shift(clean, roles, 0.75, 31)[:2] == (23, 0)
    grid, roles = _feet_grid(pop_at=23)
    ratios = {s: loop_seam_ratio(ga.rolled_grid(grid, s), roles)[0] for s in (22, 23, 24)}
    # either side of the tie tolerance: s ranks far more than 0.05 above its seamless neighbours
    assert ratios[22] <= 1.0 and ratios[24] <= 1.0
    assert ratios[23] > 1.0 + ga.SEAM_TIE_TOLERANCE + 1.0
    shift, offset, gm, seam = ga.choose_shift(grid, roles, 0.75, 31)
    assert offset in (-1, 1) and shift == 23 + offset
    assert seam == ratios[shift] and seam <= 1.0


# --------------------------------------------------------------------------
# The reference's open-walk fixture (upstream hold-out cases in words)
# --------------------------------------------------------------------------


def _open_walk(keys=32, fps=32.0, extra=(), name="walk"):
    """pelvis (0,1,0) -> l_foot (0.1,-1,0), r_foot (-0.1,-1,0); feet rest + (0, ±0.05 sin θ, ±0.15 sin θ), θ = f32(2πk/32)."""
    from animsmith.core.roles import RoleMap
    from animsmith.model import Asset, Clip, Skeleton

    sk = Skeleton.build(["pelvis", "l_foot", "r_foot"], [-1, 0, 0], [[0, 1, 0], [0.1, -1, 0], [-0.1, -1, 0]])
    k = np.arange(keys)
    t = (k / fps).astype(np.float32)
    th = (2 * np.pi * k / keys).astype(np.float32).astype(np.float64)
    chans = []
    for b, s in ((1, 1.0), (2, -1.0)):
        rest = sk.rest_translation[b]
        chans.append(Channel.make(b, "translation", t, rest + np.stack([0 * th, s * 0.05 * np.sin(th), s * 0.15 * np.sin(th)], 1)))
    clip = Clip(name, chans + list(extra))
    roles = RoleMap(bones={"hips": 0, "left_foot": 1, "right_foot": 2}, names={"hips": "pelvis", "left_foot": "l_foot", "right_foot": "r_foot"})
    return Asset(sk, [clip]), clip, roles, t


def _open_walk_reference_anchor():
    """The stride anchor of _open_walk derived from docs/measure.md, independently of the core.

    E = 32 frames, so one cycle is samples 0..30 (C = 31) of a sine whose period is 32
    samples. Hips sit at y = 1 and cancel; the feet's local y is stored as float32:
    s(k) = f32(−1 + 0.05 sin θ_k) − f32(−1 − 0.05 sin θ_k), θ_k = f32(2πk/32).
    re = Σ s cos(2πk/C), im = Σ s sin(2πk/C); anchor = (atan2(im, re)/2π + 0.5) mod 1.
    """
    k = np.arange(31)
    th = (2 * np.pi * k / 32).astype(np.float32).astype(np.float64)
    left = (-1.0 + 0.05 * np.sin(th)).astype(np.float32).astype(np.float64)
    right = (-1.0 - 0.05 * np.sin(th)).astype(np.float32).astype(np.float64)
    sig = left - right
    re = float(np.sum(sig * np.cos(2 * np.pi * k / 31)))
    im = float(np.sum(sig * np.sin(2 * np.pi * k / 31)))
    return (math.atan2(im, re) / (2 * math.pi) + 0.5) % 1.0


def test_open_walk_anchor_matches_the_reference_derivation():
    asset, clip, roles, _ = _open_walk()
    plan = ga.prove_gait_anchor(asset, clip, roles, 32.0)
    assert plan.trajectory_role == "Hips"
    assert plan.phase_before == pytest.approx(_open_walk_reference_anchor(), abs=1e-9)
    assert abs(plan.frame_offset) <= 1 and plan.shift_frames == (24 + plan.frame_offset) % 32
    from animsmith.core.circular import circular_distance_cycles

    assert circular_distance_cycles(plan.phase_after, (-plan.frame_offset / 32) % 1.0) <= 0.75 / 32
    moved = ga.apply_plan_in_memory(clip, plan)
    s = plan.shift_frames
    for a, b in zip(clip.channels, moved.channels):
        assert np.array_equal(b.values, np.array([a.values[(k + s) % 32] for k in range(32)]))


def test_caps_are_inclusive_at_the_authored_f32_values():
    _, _, _, t = _open_walk()
    x = np.zeros((32, 3))
    x[:, 1] = 1.0
    x[-1, 0] = np.float32(0.01)
    yaw = np.zeros(32)
    yaw[-1] = np.float32(math.radians(1.0))
    asset, clip, roles, _ = _open_walk(extra=[Channel.make(0, "translation", t, x), Channel.make(0, "rotation", t, yaw_quats(yaw))])
    plan = ga.prove_gait_anchor(asset, clip, roles, 32.0)
    assert plan.horizontal_drift_m <= ga.TOLERATED_DRIFT_M and plan.yaw_deg <= ga.TOLERATED_YAW_DEG


def test_just_past_the_yaw_cap_prints_enough_digits():
    _, _, _, t = _open_walk()
    asset, clip, roles, _ = _open_walk(extra=[Channel.make(0, "rotation", t, yaw_quats(np.radians(np.linspace(0, 1.00001, 32))))])
    with pytest.raises(Refusal) as exc:
        ga.prove_gait_anchor(asset, clip, roles, 32.0)
    assert exc.value.code == "yaw_drift" and "yaw 1.00001" in exc.value.message


def test_long_distributed_yaw_has_no_per_segment_error():
    # 100,001 frames at 100,000 fps with yaw rising linearly to exactly 1 deg: accepted;
    # to 1.00001 deg: refused. Only the endpoint headings enter the yaw.
    n, fps = 100001, 100000.0
    k = np.arange(n)
    t = (k / fps).astype(np.float32)
    for total, code in ((1.0, None), (1.00001, "yaw_drift")):
        asset, clip, roles, _ = _open_walk()
        th = 2 * np.pi * k / n
        clip.channels = [
            Channel.make(1, "translation", t, [0.1, -1, 0] + np.stack([0 * th, 0.05 * np.sin(th), 0.15 * np.sin(th)], 1)),
            Channel.make(2, "translation", t, [-0.1, -1, 0] - np.stack([0 * th, 0.05 * np.sin(th), 0.15 * np.sin(th)], 1)),
            Channel.make(0, "rotation", t, yaw_quats(np.radians(np.linspace(0, total, n)))),
        ]
        if code is None:
            assert ga.prove_gait_anchor(asset, clip, roles, fps).yaw_deg <= ga.TOLERATED_YAW_DEG
        else:
            with pytest.raises(Refusal) as exc:
                ga.prove_gait_anchor(asset, clip, roles, fps)
            assert exc.value.code == code


def test_interior_outliers_are_no_allowance():
    # x = ±100 m at keys 10/11 and 3 m at the end; yaw 170, -170 then 90 deg: turns make it 450 deg
    _, _, _, t = _open_walk()
    tr = np.zeros((32, 3))
    tr[10, 0], tr[11, 0], tr[-1, 0] = 100.0, -100.0, 3.0
    ya = np.zeros(32)
    ya[10], ya[11], ya[-1] = np.radians(170), np.radians(-170), np.radians(90)
    asset, clip, roles, _ = _open_walk(extra=[Channel.make(0, "rotation", t, yaw_quats(ya))])
    with pytest.raises(Refusal) as exc:
        ga.prove_gait_anchor(asset, clip, roles, 32.0)
    assert exc.value.code == "yaw_drift" and exc.value.measured == pytest.approx(450.0, abs=1e-6)
    asset, clip, roles, _ = _open_walk(extra=[Channel.make(0, "translation", t, tr), Channel.make(0, "rotation", t, yaw_quats(ya))])
    with pytest.raises(Refusal) as exc:
        ga.prove_gait_anchor(asset, clip, roles, 32.0)
    assert exc.value.code == "horizontal_drift" and "3.0000 m" in exc.value.message and "450.000 deg" in exc.value.message


def test_budget_refusal_through_the_cli_leaves_out_untouched(capsys, tmp_path):
    # a constant hold key at t = 250000 s makes E = 250001 frames at 1 fps: 4 bones -> 1,000,004 samples
    hold = Channel.make(1, "scale", [0.0, 250000.0], [[1, 1, 1], [1, 1, 1]])
    path = write(tmp_path, biped_clip(extra=[hold]))
    err = refuse_cli(capsys, tmp_path, path, "budget_exceeded", "--fps", "1")
    assert "1000004" in err and "1000000" in err


def test_exempt_means_bit_equal():
    one = Channel.make(1, "scale", [0.0, 0.5], [[1, 1, 1], [1, 1, 1]])
    signed_zero = Channel.make(1, "translation", [0.0, 0.5], [[0.0, 1, 0], [-0.0, 1, 0]])
    flipped = Channel.make(1, "rotation", [0.0, 0.5], [[0, 0, 0, 1], [0, 0, 0, -1]])
    assert ga.is_exactly_constant(one)
    assert not ga.is_exactly_constant(signed_zero) and not ga.is_exactly_constant(flipped)


@pytest.mark.parametrize("fps", ["0", "-30", "nan", "inf"])
def test_bad_fps_is_an_operator_error(capsys, tmp_path, fps):
    path = write(tmp_path, biped_clip())
    rc, stdout, err = run_cli(capsys, "transform", path, "-o", str(tmp_path / "o.glb"), "--gait-anchor", "--fps", fps)
    assert rc == 2 and stdout == "" and not (tmp_path / "o.glb").exists()


def _anchor_frames_after(clip, frames):
    """|re-measured anchor| in frames (1/(E−1) of the clip) after applying the plan in memory."""
    from animsmith.core.gait import gait_metrics
    from animsmith.core.pose import sample_pose

    from transform_builders import roles_of

    asset = asset_of(clip)
    roles = roles_of(asset)
    plan = ga.prove_gait_anchor(asset, clip, roles, 30.0)
    moved = ga.apply_plan_in_memory(clip, plan)
    grid = sample_pose(asset.skeleton, moved, frame_times(frames).astype(np.float64))
    gm = gait_metrics(grid, roles)
    return min(gm.gait_phase, 1.0 - gm.gait_phase) * (frames - 1), plan


@pytest.mark.parametrize("amp_m", [0.05, 0.3])
@pytest.mark.parametrize("period", ["inclusive", "open"])
def test_anchor_within_half_a_frame_for_every_offset(amp_m, period):
    # 0.3 m feet: steps >= 2 cm give measurable seam ratios except right at the
    # trough, where s lands; "no ratio" must not lose to a measurable neighbour
    # (it did, 1.56 frames off), and a seamless tie must not keep a worse s
    # (it did, 0.58 frames off). Analytic sine: the ideal anchor is exactly 0.
    frames = 31
    per = None if period == "inclusive" else float(frames)
    worst = 0.0
    for offset in np.linspace(0.0, 1.0, 41, endpoint=False):
        d, plan = _anchor_frames_after(biped_clip(offset=float(offset), amp_m=amp_m, period_frames=per), frames)
        assert abs(plan.frame_offset) <= 1
        worst = max(worst, d)
    assert worst <= 0.5 + 1e-9


@pytest.mark.parametrize("amp_m", [0.05, 0.3])
def test_two_stride_clip_shifts_to_its_first_trough(amp_m):
    # period 15 frames on the E = 31 grid (a 30-frame cycle whose last key repeats the first): 2
    # strides. The per-stride anchor is (0.75 − o) mod 1, so the first trough is at clip fraction
    # ((0.75 − o) mod 1)/2 and s = round_half_away(that · 30) (docs/transform.md): the frame
    # nearest the true trough, so no neighbour can have its re-measured anchor nearer 0.
    from animsmith.core.gait import gait_metrics
    from animsmith.core.pose import sample_pose

    from transform_builders import roles_of

    for offset in np.linspace(0.0, 1.0, 40, endpoint=False):
        clip = biped_clip(offset=float(offset), amp_m=amp_m, period_frames=15.0)
        asset = asset_of(clip)
        roles = roles_of(asset)
        plan = ga.prove_gait_anchor(asset, clip, roles, 30.0)
        first_trough = ((0.75 - offset) % 1.0) / 2
        s = round_half_away(first_trough * 30)
        assert plan.cycles == 2 and plan.period_frames == 30
        assert plan.phase_before == pytest.approx((0.75 - offset) % 1.0, abs=1e-6)  # float32 keys
        if abs(abs(first_trough * 30 - s) - 0.5) > 1e-6:  # not a half-frame tie, decided by float noise
            assert plan.frame_offset == 0 and plan.shift_frames == s % 30, offset
        moved = ga.apply_plan_in_memory(clip, plan)
        gm = gait_metrics(sample_pose(asset.skeleton, moved, frame_times(31).astype(np.float64)), roles)
        assert gm.cycles == 2
        # per-stride anchor distance from 0, in frames of the clip (a stride is 15 frames)
        assert min(gm.gait_phase, 1.0 - gm.gait_phase) * 15 <= 0.5 + 1e-9, offset


def test_missing_seam_ratio_at_the_trough_keeps_the_nearest_frame(capsys, tmp_path):
    # offset 0.9278: anchor 0.8222 of the clip; with "no ratio = +inf" a neighbour won and the anchor moved 1.56 frames
    path = write(tmp_path, biped_clip(offset=0.9278350515463918, amp_m=0.3))
    out = accept_cli(capsys, tmp_path, path)
    after, frames = anchor_of_file(out, "walk")
    assert min(after.gait_phase, 1 - after.gait_phase) * (frames - 1) <= 0.5


def test_keys_budget_is_inclusive_at_one_million():
    # 4 bones, E = 31: only the third bound (max authored keys x bones) can trip;
    # 250,000 keys x 4 = 1,000,000 passes, 250,001 x 4 = 1,000,004 refuses.
    for keys, refused in ((250000, False), (250001, True)):
        t = np.arange(keys, dtype=np.float32) * np.float32(1.0 / keys)
        hold = Channel.make(1, "scale", t, np.ones((keys, 3)))
        asset = asset_of(biped_clip(extra=[hold]))
        clip = asset.clips[0]
        if not refused:
            ga.prove_budget(asset.skeleton, clip, 31, "root")
            continue
        with pytest.raises(Refusal) as exc:
            ga.prove_budget(asset.skeleton, clip, 31, "root")
        assert exc.value.code == "budget_exceeded" and "maximum keys" in exc.value.message
        assert exc.value.measured == 1_000_004 and exc.value.limit == 1_000_000


def test_an_exempt_constant_channel_with_a_repeated_time_refuses(capsys, tmp_path):
    """Constant channels are exempt from the grid proof, but a repeated key time is a glTF
    defect the published file would keep (lint: time-monotonic; measure refuses the file)."""
    const = Channel.make(1, "scale", [0.0, 0.5, 0.5, 1.0], np.ones((4, 3)))
    path = write(tmp_path, biped_clip(extra=[const]))
    err = refuse_cli(capsys, tmp_path, path, "off_grid_key")
    # the refusal names the defective channel and its bone (Hips), not the trajectory bone (root)
    assert "not strictly increasing" in err and "bone 'Hips'" in err and "channel 2 (scale of 'Hips')" in err


def _feet_glb(tmp_path, name, *, sparse=False, bump=0.0):
    """root -> Hips -> feet, LeftFoot highest at key 0 (a duplicated endpoint, the closing key
    raised by ``bump``), every output accessor declaring min/max spelled as a person would."""
    raw, (lf_n, rf_n, hips), t, lf, rf = _feet_rig()
    lf[-1] = lf[0]
    lf[-1, 1] += np.float32(bump)

    def bounds(a):
        return {"min": [round(float(x), 7) for x in a.min(axis=0)], "max": [round(float(x), 7) for x in a.max(axis=0)]}

    if sparse:
        from test_transform_patch import sparse_accessor

        acc_lf = sparse_accessor(raw, lf, "VEC3", **bounds(lf))
    else:
        acc_lf = raw.accessor(lf, "VEC3", **bounds(lf))
    acc_rf = raw.accessor(rf, "VEC3", **bounds(rf))
    raw.animation("walk", [(lf_n, "translation", t, acc_lf, "LINEAR"), (rf_n, "translation", t, acc_rf, "LINEAR")])
    path = tmp_path / name
    path.write_bytes(raw.glb())
    return path


def test_sparse_output_gets_its_bounds_recomputed(capsys, tmp_path):
    """A sparse output (rewritten as a new dense accessor) whose closing key was the unique
    maximum: the new accessor's declared max is the maximum of what was written."""
    import json

    from animsmith.io.gltf import load_asset

    src = _feet_glb(tmp_path, "sparse.glb", sparse=True, bump=5e-6)
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "transform", str(src), "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0, err
    asset = load_asset(str(out))
    doc = asset.gltf
    for ch in asset.clips[0].channels:
        acc = doc["accessors"][doc["animations"][0]["samplers"][ch.sampler]["output"]]
        assert np.array_equal(np.float32(acc["max"]), ch.values.max(axis=0))
        assert np.array_equal(np.float32(acc["min"]), ch.values.min(axis=0))


def test_exact_closing_copy_leaves_the_json_chunk_alone(capsys, tmp_path):
    """An exact duplicated endpoint loses no value: the bounds hold as declared (however they are
    spelled), the accessors are permuted in place and the JSON chunk stays byte-identical."""
    import json

    from test_transform_patch import chunks

    src = _feet_glb(tmp_path, "exact.glb")
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "transform", str(src), "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0, err
    doc = json.loads(stdout)
    assert doc["clips"][0]["closing_key_delta"] == 0.0 and doc["patch"]["json_rewritten"] is False
    assert chunks(out.read_bytes())[1] == chunks(src.read_bytes())[1]


def test_sparse_normalized_rotation_bounds_match_what_is_written(capsys, tmp_path):
    """A sparse int16 normalized rotation whose w is spelled -32768 (it decodes to -1.0, like
    -32767) is re-encoded as -32767: the new accessor's declared min says so (it kept -32768)."""
    from test_transform_patch import chunks

    raw, (lf_n, rf_n, hips), t, lf, rf = _feet_rig(0.0)
    a = 0.2 * np.sin(2 * np.pi * np.arange(31) / 30)
    qi = np.rint(np.stack([np.zeros(31), np.sin(a / 2), np.zeros(31), -np.cos(a / 2)], axis=1) * 32767).astype(np.int16)
    qi[qi[:, 3] == -32767, 3] = -32768
    assert (qi[:, 3] == -32768).any()
    from test_transform_patch import sparse_accessor

    acc_q = sparse_accessor(raw, qi, "VEC4", normalized=True, min=qi.min(axis=0).tolist(), max=qi.max(axis=0).tolist())
    raw.animation("walk", [(lf_n, "translation", t, raw.accessor(lf, "VEC3"), "LINEAR"),
                           (rf_n, "translation", t, raw.accessor(rf, "VEC3"), "LINEAR"), (hips, "rotation", t, acc_q, "LINEAR")])
    src = tmp_path / "sparse_q.glb"
    src.write_bytes(raw.glb())
    doc, _, bin_ = chunks(open(accept_cli(capsys, tmp_path, str(src)), "rb").read())
    index = doc["animations"][0]["samplers"][2]["output"]
    acc, data = doc["accessors"][index], _accessor_rows(doc, bin_, index, "<i2")
    assert acc["min"] == data.min(axis=0).tolist() and acc["max"] == data.max(axis=0).tolist()


# --------------------------------------------------------------------------
# Vertical drift (a clip that climbs or descends) and mixed endpoint conventions
# --------------------------------------------------------------------------


def _json_clip(capsys, tmp_path, path):
    out = tmp_path / "out.glb"
    rc, stdout, stderr = run_cli(capsys, "transform", path, "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0, stderr
    return json.loads(stdout)["clips"][0]


def _rise(frames, total_m):
    root = np.zeros((frames, 3))
    root[:, 1] = np.linspace(0.0, total_m, frames)
    return root


def test_vertical_drift_9mm_accepts_and_11mm_refuses(capsys, tmp_path):
    """A root that rises linearly (steps of 0.3-0.4 mm, far under the 1 cm cap) by 9 mm is in place
    within the caps; by 11 mm it climbs. The feet repeat their first pose, the root is within the
    drift cap: a duplicated endpoint whose root closing key is the one value replaced."""
    ok = write(tmp_path, biped_clip(root_translation=_rise(31, 0.009)), name="ok.glb")
    c = _json_clip(capsys, tmp_path, ok)
    assert c["vertical_drift_m"] == pytest.approx(0.009, abs=1e-7)
    assert c["horizontal_drift_m"] == 0.0
    assert c["endpoint"] == "duplicated_endpoint" and c["period_frames"] == 30
    assert c["closing_key_delta"] == pytest.approx(0.009, abs=1e-7)
    bad = write(tmp_path, biped_clip(root_translation=_rise(31, 0.011)), name="bad.glb")
    err = refuse_cli(capsys, tmp_path, bad, "vertical_drift")
    assert "bone 'root'" in err and "ends 0.0110 m higher than it starts" in err
    assert "cap 0.0100 m" in err and "climbs or descends" in err


def test_open_loop_bob_within_one_step_accepts_and_a_climb_refuses(capsys, tmp_path):
    """An open loop (31 unique frames) whose root bobs 10 cm: its wrap is a real frame step, the
    rise between the last and first frame (|0.1·(sin(2π·30/31 + 0.3) − sin 0.3)| ≈ 2 cm) is more
    than 1 cm but no more than 1.5× the clip's largest step (≈ 2 cm): accepted. The same bob on a
    12 cm climb is refused."""
    k = np.arange(31)
    y = 0.1 * np.sin(2 * np.pi * k / 31 + 0.3)
    root = np.zeros((31, 3))
    root[:, 1] = y
    y32 = y.astype(np.float32)
    rise = abs(float(y32[-1] - y32[0]))
    assert 0.01 < rise <= 1.5 * float(np.max(np.abs(np.diff(y32))))
    ok = write(tmp_path, biped_clip(offset=0.3, period_frames=31.0, root_translation=root), name="ok.glb")
    c = _json_clip(capsys, tmp_path, ok)
    assert c["endpoint"] == "open" and c["vertical_drift_m"] == pytest.approx(rise, abs=1e-7)
    root[:, 1] = y + np.linspace(0.0, 0.12, 31)
    bad = write(tmp_path, biped_clip(offset=0.3, period_frames=31.0, root_translation=root), name="bad.glb")
    err = refuse_cli(capsys, tmp_path, bad, "vertical_drift")
    assert "higher than it starts" in err


def test_a_slope_bake_refuses_vertical_drift(capsys, tmp_path):
    """`sim bake --terrain slope` climbs (its hips end higher than they start): rotating it would
    move the drop from the wrap into the middle of the clip (it used to be published)."""
    from animsmith.io.gltf import load_asset
    from animsmith.core.pose import sample_pose

    path = str(tmp_path / "slope.glb")
    rc, _, err = run_cli(capsys, "sim", "bake", "biped", "--terrain", "slope", "-o", path)
    assert rc == 0, err
    asset = load_asset(path)
    clip = asset.clips[0]
    hips = list(asset.skeleton.names).index("Hips")
    y = sample_pose(asset.skeleton, clip, [0.0, float(clip.duration_s)]).model_position_m[:, hips, 1]
    assert y[1] - y[0] > 0.05  # the terrain climbs
    err = refuse_cli(capsys, tmp_path, path, "vertical_drift", "--clip", clip.name)
    assert f"{y[1] - y[0]:.4f} m higher" in err


def test_channels_that_disagree_on_the_endpoint_refuse_mixed_endpoint(capsys, tmp_path):
    """The feet repeat their first pose at the last key while moving through the wrap (a duplicated
    endpoint); a foot rotation ends 0.5° from its first key. Neither cycle is safe: over E keys the
    feet would hold a pose for two frames mid-clip, over E − 1 the foot would lose 0.5°. (On the
    hips, the trajectory bone of this clip, a 0.5° closing difference is within the in-place caps.)"""
    k = np.arange(31)
    angle = np.radians(15.0) * np.sin(2 * np.pi * k / 30)
    angle[-1] += np.radians(0.5)
    path = write(tmp_path, biped_clip(extra=[Channel.make(2, "rotation", frame_times(31, 30.0), x_quat_series(angle))]))
    err = refuse_cli(capsys, tmp_path, path, "mixed_endpoint")
    assert "2 rotated channels moving at the wrap end on their first key" in err
    assert "rotation of 'LeftFoot'" in err and "ends 0.5 deg from its first key" in err


def test_a_channel_still_at_the_wrap_is_no_evidence_of_a_duplicated_endpoint(capsys, tmp_path):
    """An open loop (the feet's wrap is a real step) with a hips rotation that holds still over the
    last and first frames: it ends on its first key under either convention, so the clip is open."""
    k = np.arange(31)
    angle = np.radians(10.0) * np.sin(np.pi * k / 30) ** 2  # 0 at both ends, still around them
    angle[[0, 1, -2, -1]] = 0.0
    path = write(tmp_path, biped_clip(offset=0.3, period_frames=31.0, hips_rotation=x_quat_series(angle)))
    c = _json_clip(capsys, tmp_path, path)
    assert c["endpoint"] == "open" and c["period_frames"] == 31


def test_trajectory_bone_closes_within_its_caps_or_refuses(capsys, tmp_path):
    """With every other channel a duplicated endpoint, the root may close within the in-place caps
    (yaw 0.8°: closing key replaced, delta sin(0.4°)); a root translation whose wrap passes the
    vertical proof as an open-loop step (2 cm) but not the 1 cm cap refuses mixed_endpoint."""
    yaw = write(tmp_path, biped_clip(root_rotation=yaw_quats(np.radians(np.linspace(0, 0.8, 31)))), name="yaw.glb")
    c = _json_clip(capsys, tmp_path, yaw)
    assert c["endpoint"] == "duplicated_endpoint"
    assert c["closing_key_delta"] == pytest.approx(math.sin(math.radians(0.4)), rel=1e-5)
    root = np.zeros((31, 3))
    root[:, 1] = 0.1 * np.sin(2 * np.pi * np.arange(31) / 31 + 0.3)
    bob = write(tmp_path, biped_clip(root_translation=root), name="bob.glb")
    err = refuse_cli(capsys, tmp_path, bob, "mixed_endpoint")
    assert "translation of 'root'" in err and "cap 0.0100 m" in err


def x_quat_series(angles_rad) -> np.ndarray:
    """Rotations about +X by each angle (x, y, z, w)."""
    a = np.asarray(angles_rad, dtype=np.float64)
    return np.stack([np.sin(a / 2), np.zeros_like(a), np.zeros_like(a), np.cos(a / 2)], axis=-1)


def test_a_centimetre_rig_root_closes_in_metres():
    """Under an Armature scaled 0.01 (a centimetre rig) a root translation key of 0.05 is 0.5 mm:
    within the 1 cm cap of a duplicated loop (it was compared in file units, 0.05 "m", and
    refused); 1.5 units (15 mm) is past it, in metres."""
    from animsmith.model import Asset, Skeleton
    from transform_builders import REST_T

    names = ["Armature", "root", "Hips", "LeftFoot", "RightFoot"]
    rest_t = [[0, 0, 0]] + [[100 * c for c in t] for t in REST_T]  # centimetres under the 0.01 scale
    sk = Skeleton.build(names, [-1, 0, 1, 2, 2], rest_t, None, [[0.01] * 3] + [[1.0] * 3] * 4)

    def clip_with_root_drift(units):
        c = biped_clip()
        for ch in c.channels:  # feet in centimetres, on bones 3 and 4
            ch.values = (ch.values * 100).astype(np.float32)
            ch.bone += 1
        root = np.zeros((31, 3))
        root[:, 0] = np.linspace(0.0, units, 31)
        c.channels.append(Channel.make(1, "translation", frame_times(31, 30.0), root))
        c.index = 0
        return c

    ok = Asset(skeleton=sk, clips=[clip_with_root_drift(0.05)])
    plan = ga.prove_gait_anchor(ok, ok.clips[0], _roles(ok), 30.0)
    assert plan.endpoint == "duplicated_endpoint" and plan.horizontal_drift_m == pytest.approx(0.0005, abs=1e-7)
    far = Asset(skeleton=sk, clips=[clip_with_root_drift(1.5)])
    with pytest.raises(Refusal) as exc:
        ga.prove_gait_anchor(far, far.clips[0], _roles(far), 30.0)
    assert exc.value.code == "horizontal_drift"  # 15 mm: the drift proof refuses first, in metres


def test_a_clip_exported_from_frame_1_is_refused_as_a_late_start(capsys, tmp_path):
    """Blender / Unity exports whose range starts at frame 1 (or later) key every frame from
    1/30 s on: one key per frame, but none at 0 s. The refusal names the late start, not a
    missing key."""
    for start_frames in (1, 15):
        clip = biped_clip()
        shift = start_frames / 30.0
        clip.channels = [Channel.make(c.bone, c.path, c.times.astype(np.float64) + shift, c.values) for c in clip.channels]
        path = write(tmp_path, clip, name=f"late{start_frames}.glb")
        err = refuse_cli(capsys, tmp_path, path, "off_grid_key")
        assert f"starts at {shift:.6f} s, not 0 s" in err
        assert "move the clip's keys to start at 0 s" in err
        assert "keys instead of exactly" not in err


def test_an_anchored_bake_drops_its_stale_contact_markers(capsys, tmp_path):
    """The simulator's biped walking in place (25 frames a cycle at 30 fps, stride anchor 0.25)
    is rotated by 6 frames. Its contact markers give the plants and lifts of the poses before
    the shift: kept, they would call a swinging foot planted. The output has none (its leg map
    stays), every rotated key is the source key 6 frames on, and `foot-slide`, now deciding
    stance by the contact-height rule, finds the planted feet sweeping back at the walk's
    1.2 m/s: clean."""
    from animsmith.io.gltf import load_asset

    src = str(tmp_path / "walk.glb")
    rc, _, err = run_cli(capsys, "sim", "bake", "biped", "-o", src)
    assert rc == 0, err
    before = load_asset(src)
    assert "animsmith_contacts" in before.clips[0].extras
    out = accept_cli(capsys, tmp_path, src)
    after = load_asset(out)
    assert "animsmith_contacts" not in (after.clips[0].extras or {})
    assert after.gltf["asset"]["extras"] == before.gltf["asset"]["extras"]  # the leg map
    for a, b in zip(before.clips[0].channels, after.clips[0].channels):
        va, vb = np.asarray(a.values), np.asarray(b.values)
        if np.ptp(va, axis=0).max() > 0:  # a moving channel: rotated by 6 of its 25 frames
            assert np.array_equal(vb[:-1], np.roll(va[:-1], -6, axis=0)) and np.array_equal(vb[-1], vb[0])
    cfg = tmp_path / "walk.animsmith.toml"
    cfg.write_text('[clips.walk]\nspeed_mps = 1.2\nmovement_owner_xz = "gameplay"\n')
    rc, stdout, err = run_cli(capsys, "--config", str(cfg), "lint", "--select", "foot-slide", out)
    assert rc == 0 and "clean" in stdout, stdout + err


def test_a_bake_already_anchored_keeps_its_contact_markers_and_its_json(capsys, tmp_path):
    """The simulator's biped walk started 0.3 of a cycle on (its stride anchor is 0.3 cycles
    into a walk started at 0) has its anchor at 0: gait anchoring rotates it by 0 frames, so no pose
    moves in time and its contact markers still give its plants and lifts. The file written
    has the input's JSON chunk byte for byte, markers and all (its closing keys, a copy of the
    first pose up to float noise, become exact copies in the BIN chunk)."""
    from animsmith.io.gltf import load_asset
    from animsmith.io.write import asset_to_glb
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    src = tmp_path / "walk.glb"
    src.write_bytes(asset_to_glb(bake(catalog_creature("biped"), start_cycles=0.3).asset))
    assert "animsmith_contacts" in load_asset(str(src)).clips[0].extras
    rc, stdout, err = run_cli(capsys, "transform", str(src), "-o", str(tmp_path / "out.glb"), "--gait-anchor")
    assert rc == 0 and "(shift 0 frames" in stdout, stdout + err
    out, data = (tmp_path / "out.glb").read_bytes(), src.read_bytes()
    json_end = 20 + struct.unpack_from("<I", data, 12)[0]
    assert out[:json_end] == data[:json_end] and len(out) == len(data)
    assert "animsmith_contacts" in load_asset(str(tmp_path / "out.glb")).clips[0].extras
