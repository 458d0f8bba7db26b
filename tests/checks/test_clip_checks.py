"""The per-clip checks together. Through the CLI: `animsmith checks` documents every key,
`lint` reports them in text/JSON with clip, bone and time, and the project's
example ring stays silent for every default-on per-clip check. On hand-built clips
(tests/support/mechanical_clips.py, loop_clips.py, treadmill_clips.py): what several
checks share (the clean fixture, loops not armed without a loop, malformed key times
as gaps, per-clip loop caps).

Defaults below are copied from the issue text (the contract), not from the
modules, so a changed default fails here.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from animsmith.checks import registry
from animsmith.io.write import write_glb
from animsmith.model import Asset, Channel, Clip, Skeleton

from lint_support import ROOT, run_cli, validate_json, write_config
from checks_support import run_check
from mechanical_clips import yrot, make_asset
from loop_clips import LOOP, guard, walk
from treadmill_clips import treadmill

ISSUE_DEFAULTS = {
    # id: (severity, {key: default})
    "nan": ("error", {}),
    "time-monotonic": ("error", {"negative_tolerance_s": 1e-4}),
    "quat-norm": ("error", {"tolerance": 1e-3}),
    "quat-flip": ("warning", {}),
    "duration-sanity": ("error", {"duration_tolerance_s": 0.017, "max_end_spread_s": 0.017}),
    "constant-track": ("note", {"vector_epsilon": 1e-4, "rotation_epsilon_rad": 1e-3}),
    "fps": ("warning", {"max_frame_error": 0.1}),
    "loop-seam": ("error", {"max_ratio": 1.5, "min_stride_step_m": 0.02}),
    "loop-closure": ("error", {"max_position_delta_m": 0.01, "max_rotation_delta_deg": 1.0, "max_wrap_step_ratio": 1.5}),
    # the seam caps are relative to the clip unless an absolute cap is set (floor, ratio as loop-seam)
    "loop-seam-vel": ("error", {"max_velocity_delta_mps": None, "min_velocity_delta_mps": 0.1, "max_ratio": 1.5}),
    "loop-seam-rot": ("error", {"max_angular_velocity_delta_degps": None, "min_angular_velocity_delta_degps": 5.0,
                                "max_ratio": 1.5}),
    "duplicate-loop-endpoint": ("warning", {}),
    "in-place": ("error", {"travel_threshold_mps": 0.5}),
    "root-motion-speed": ("error", {"default_tolerance_mps": 0.1, "travel_threshold_mps": 0.5}),
    "foot-slide": ("warning", {"contact_height_m": 0.03, "max_slide_mps": 0.3, "travel_threshold_mps": 0.5}),
    "missing-bones": ("error", {}),
    "required-bones": ("error", {}),
}


def test_registry_declares_issue_defaults():
    specs = registry()
    for cid, (severity, defaults) in ISSUE_DEFAULTS.items():
        spec = specs[cid]
        assert spec.scope == "clip" and spec.severity == severity, cid
        assert spec.defaults() == defaults, cid


def test_checks_lists_every_per_clip_check(capsys):
    code, out, _ = run_cli(["checks"], capsys)
    assert code == 0
    listed = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.strip()}
    for cid, (severity, _) in ISSUE_DEFAULTS.items():
        assert listed[cid] == severity


@pytest.mark.parametrize("check_id", sorted(ISSUE_DEFAULTS))
def test_checks_id_documents_every_key(check_id, capsys):
    code, out, _ = run_cli(["checks", check_id], capsys)
    assert code == 0
    spec = registry()[check_id]
    assert out.startswith(f"{check_id} ({spec.severity}, clip check)")
    assert spec.summary in out
    for key, default in ISSUE_DEFAULTS[check_id][1].items():
        lines = [ln for ln in out.splitlines() if ln.strip().startswith((f"{key} ", f"{key}="))]
        assert len(lines) == 1, (check_id, key)
        shown = "unset" if default is None else f"{default:g}"
        assert f"default {shown}" in lines[0] or f"= {shown} " in lines[0], lines[0]
        assert spec.config[key].doc in lines[0]
    for need in spec.needs:
        assert need in out


def _sway(path, flipped=True):
    """bones root -> spine; clip 'sway' with Y rotations 0, .4, .8, 1.2, 1.6 rad at 0, .25 .. 1 s."""
    a = np.array([0, 0.4, 0.8, 1.2, 1.6])
    q = np.stack([0 * a, np.sin(a / 2), 0 * a, np.cos(a / 2)], axis=1)
    if flipped:
        q[1] *= -1
        q[3] *= -1
    sk = Skeleton.build(["root", "spine"], [-1, 0], [[0, 0, 0], [0, 0.5, 0]])
    clip = Clip(name="sway", channels=[Channel.make(1, "rotation", [0, 0.25, 0.5, 0.75, 1.0], q)])
    write_glb(Asset(skeleton=sk, clips=[clip]), str(path))
    return str(path)


def test_lint_text_line_names_clip_bone_time(tmp_path, capsys):
    path = _sway(tmp_path / "sway.glb")
    code, out, _ = run_cli(["lint", "--select", "quat-flip", path], capsys)
    assert code == 0  # a warning does not fail the run
    assert (
        "  warning[quat-flip] clip 'sway' bone 'spine' @0.250s: 4 hemisphere flip(s) between adjacent "
        "rotation keys (first between keys 0 and 1)"
    ) in out
    code, _, _ = run_cli(["lint", "--select", "quat-flip", "--deny-warnings", path], capsys)
    assert code == 1
    clean = _sway(tmp_path / "clean.glb", flipped=False)
    code, out, _ = run_cli(["lint", "--select", "quat-flip", clean], capsys)
    assert code == 0 and "quat-flip" not in out.replace("--select", "")


def test_lint_json_and_config_keys(tmp_path, capsys):
    path = _sway(tmp_path / "sway.glb", flipped=False)
    cfg = write_config(
        tmp_path / "a.toml",
        '[clips.sway]\nloop = true\n\n[checks.loop-closure]\nmax_rotation_delta_deg = 90.0\n',
    )
    code, out, _ = run_cli(["--config", cfg, "lint", "--format", "json", "--select", "loop-closure", path], capsys)
    doc = json.loads(out)
    validate_json(out)
    # spine turns 1.6 rad = 91.67° from its first pose: past the 90° cap set in the config
    findings = doc["files"][0]["findings"]
    assert code == 1 and [(f["check_id"], f["clip"], f["bone"]) for f in findings] == [("loop-closure", "sway", "spine")]
    assert findings[0]["measured"] == pytest.approx(np.degrees(1.6), abs=1e-3)
    assert findings[0]["expected"] == 90.0 and findings[0]["time_s"] == 1.0
    cfg = write_config(tmp_path / "b.toml", "[checks.loop-closure]\nmax_rotation_delta_dge = 90.0\n")
    code, _, err = run_cli(["--config", cfg, "lint", path], capsys)
    assert code == 2 and "max_rotation_delta_deg" in err


def test_example_ring_is_silent_for_per_clip_checks(capsys):
    ring = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
    cfg = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")
    ids = ",".join(ISSUE_DEFAULTS)
    code, out, _ = run_cli(["--config", cfg, "lint", "--select", ids, ring], capsys)
    assert code == 0
    assert "0 error(s), 0 warning(s), 0 note(s), 0 coverage gap(s), 0 available prediction facet(s), 0 required-unavailable prediction facet(s)" in out
    code, out, _ = run_cli(["lint", "--select", ids, ring], capsys)
    assert code == 0 and "0 error(s), 0 warning(s), 0 note(s), 0 coverage gap(s), 0 available prediction facet(s), 0 required-unavailable prediction facet(s)" in out


def _hostile_glb(path):
    """One file, five broken clips, written byte by byte (our writer refuses NaN)."""
    from gltf_raw import RawGltf

    raw = RawGltf()
    raw.node("pelvis", children=[1, 2], translation=[0, 1, 0])
    raw.node("foot_l", translation=[0.1, -1, 0])
    raw.node("foot_r", translation=[-0.1, -1, 0])
    raw.scene([0])
    vec = [[0, 0, 0], [0, 1, 0], [0, 0, 0]]
    raw.animation("nan_t", [(1, "translation", raw.floats([0, np.nan, 1], "SCALAR"), raw.floats(vec, "VEC3"))])
    raw.animation("inf_v", [(1, "translation", raw.floats([0, 0.5, 1], "SCALAR"),
                             raw.floats([[0, 0, 0], [np.inf, 1, 0], [0, 0, 0]], "VEC3"))])
    raw.animation("rev", [(1, "translation", raw.floats([0, 0.6, 0.4, 1], "SCALAR"),
                           raw.floats(vec + [[0, 0, 0]], "VEC3"))])
    raw.animation("zero_q", [(2, "rotation", raw.floats([0, 0.5, 1], "SCALAR"), raw.floats([[0, 0, 0, 0]] * 3, "VEC4"))])
    raw.animation("single", [(2, "rotation", raw.floats([0], "SCALAR"), raw.floats([[0, 0, 0, 1]], "VEC4"))])
    with open(path, "wb") as fh:
        fh.write(raw.glb())
    return str(path)


def test_hostile_clips_are_findings_or_gaps_never_crashes(tmp_path, capsys):
    path = _hostile_glb(tmp_path / "hostile.glb")
    cfg = write_config(tmp_path / "all.toml", """
[rig]
required_bones = ["pelvis", "spine"]
[clips."*"]
loop = true
fps = 30
duration_s = 1.0
speed_mps = 1.0
animates_bones = ["foot_l"]
""")
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", "--select", ",".join(ISSUE_DEFAULTS), path], capsys)
    assert code == 1, err
    validate_json(out)
    doc = json.loads(out)["files"][0]
    assert not [g for g in doc["coverage_gaps"] if g["code"] == "check_failed"]
    got = {(f["check_id"], f["clip"]) for f in doc["findings"]}
    for expected in [
        ("nan", "nan_t"), ("nan", "inf_v"), ("time-monotonic", "rev"), ("quat-norm", "zero_q"),
        ("duration-sanity", "single"),  # one key at t = 0: zero duration
        ("required-bones", "nan_t"),  # 'spine' is absent (reported once, with the first clip)
        ("missing-bones", "zero_q"),  # foot_l carries no keys there
    ]:
        assert expected in got, expected
    assert sum(1 for f in doc["findings"] if f["check_id"] == "required-bones") == 1


def test_clip_of_morph_weights_or_pointers_only_is_a_gap_not_a_crash(tmp_path, capsys):
    """A facial clip (morph weights only) or a KHR_animation_pointer clip plays
    something animsmith does not read: one coverage gap saying so, no "plays
    nothing" warning, and no check fails on the clip having no key times."""
    from gltf_raw import minimal

    raw, ix = minimal()
    w = raw.floats([[0.0], [1.0], [0.0]], "SCALAR")
    move = raw.doc["animations"][0]
    weights_only = {
        "name": "blink",
        "samplers": [{"input": ix["input"], "output": w}],
        "channels": [{"sampler": 0, "target": {"node": ix["child"], "path": "weights"}}],
    }
    pointer_only = {
        "name": "glow",
        "samplers": [{"input": ix["input"], "output": w}],
        "channels": [{"sampler": 0, "target": {"path": "pointer",
                      "extensions": {"KHR_animation_pointer": {"pointer": "/materials/0/x"}}}}],
    }
    raw.doc["animations"] = [move, weights_only, pointer_only]
    path = tmp_path / "face.glb"
    path.write_bytes(raw.glb())
    code, out, err = run_cli(["lint", "--format", "json", str(path)], capsys)
    assert err == "" and code == 0
    doc = json.loads(out)
    gaps = doc["files"][0]["coverage_gaps"]
    assert not [g for g in gaps if g["code"] == "check_failed"]
    skel = [g for g in gaps if g["code"] == "no_skeletal_channels"]
    assert [(g["check_id"], g["subjects"]) for g in skel] == [("duration-sanity", ["blink"]), ("duration-sanity", ["glow"])]
    assert "1 morph-weight and 0 animation-pointer" in skel[0]["message"]
    assert "0 morph-weight and 1 animation-pointer" in skel[1]["message"]
    msgs = [f["message"] for f in doc["files"][0]["findings"]]
    assert not [m for m in msgs if "plays nothing" in m]


MECHANICAL = ["nan", "time-monotonic", "quat-norm", "quat-flip", "duration-sanity", "constant-track", "fps"]


@pytest.mark.parametrize("check_id", MECHANICAL)
def test_clean_fixture_is_silent(check_id):
    findings, gaps = run_check(check_id, make_asset(), expect={"fps": 2.0, "duration_s": 1.0})
    assert findings == [] and gaps == []


def test_channel_boundaries_are_not_key_pairs():
    """Whole-clip reductions must not pair the last key of one channel with the first of the next."""
    q = yrot([0.0, 0.8, 1.6])
    a = Channel.make(1, "rotation", [0, 0.5, 1], q)
    b = Channel.make(0, "rotation", [0, 1], -np.array([q[2], q[2]]))  # starts on the other hemisphere of a's end
    c = Channel.make(0, "scale", [0, 0.25, 0.5, 0.75, 1.0], [[1, 1, 1]] * 5)
    sk = Skeleton.build(["hips", "spine"], [-1, 0], [[0, 0, 0], [0, 0.3, 0]])
    asset = Asset(skeleton=sk, clips=[Clip(name="walk", channels=[a, b, c])])
    assert run_check("quat-flip", asset)[0] == []
    assert run_check("time-monotonic", asset)[0] == []  # 1.0 then 0 across channels is fine
    notes, _ = run_check("constant-track", asset)
    assert [(f.bone, f.message.split(" track")[0]) for f in notes] == [("hips", "rotation"), ("hips", "scale")]


def test_only_the_offending_channel_is_reported_among_many():
    chans = [Channel.make(1, "rotation", [0, 0.5, 1], yrot([0.0, 0.8, 1.6])) for _ in range(5)]
    bad = yrot([0.0, 0.8, 1.6])
    bad[2] *= 1.5
    chans[3] = Channel.make(0, "rotation", [0, 0.5, 1], bad)
    chans.append(Channel.make(0, "translation", [0, 0.5, 0.25], [[0, 0, 0], [0, 1, 0], [0, 0, 1]]))
    sk = Skeleton.build(["hips", "spine"], [-1, 0], [[0, 0, 0], [0, 0.3, 0]])
    asset = Asset(skeleton=sk, clips=[Clip(name="walk", channels=chans)])
    findings, _ = run_check("quat-norm", asset)
    assert [(f.bone, f.time_s, f.measured) for f in findings] == [("hips", 1.0, pytest.approx(1.5))]
    findings, _ = run_check("time-monotonic", asset)
    assert [(f.bone, f.time_s) for f in findings] == [("hips", 0.25)]
    nan_vals = yrot([0.0, 0.8, 1.6])
    nan_vals[1, 0] = np.nan
    chans[4] = Channel.make(1, "rotation", [0, 0.5, 1], nan_vals)
    findings, _ = run_check("nan", asset)
    assert [(f.bone, f.time_s) for f in findings] == [("spine", 0.5)]


@pytest.mark.parametrize("check_id", ["loop-closure", "loop-seam-vel", "loop-seam-rot", "loop-seam", "duplicate-loop-endpoint"])
def test_loop_checks_are_not_armed_without_loop(check_id):
    asset = guard(x=(0, 0.25, 0.5, 0.75, 1.0), rot_deg=(0, 10, 20, 10, 0))
    assert run_check(check_id, asset) == ([], [])
    assert run_check(check_id, asset, expect={"loop": False}) == ([], [])
    assert run_check(check_id, walk(0.75), expect={"speed_mps": 1.0}) == ([], [])


def test_all_zero_track_is_clean_without_roles():
    for cid in ("loop-closure", "loop-seam-vel", "loop-seam-rot"):
        assert run_check(cid, guard(), expect=LOOP) == ([], [])


@pytest.mark.parametrize("check_id,scope", [("loop-closure", "loop_closure"), ("loop-seam-vel", "loop_seam_velocity"),
                                            ("loop-seam-rot", "loop_seam_rotation")])
def test_continuity_unavailable_is_gap(check_id, scope):
    two_keys = guard(x=(0, 1), times=[0, 1])
    findings, gaps = run_check(check_id, two_keys, expect=LOOP)
    assert findings == [] and [(g.code, g.scope, g.subjects) for g in gaps] == [("measurement_unavailable", scope, ["guard"])]
    nan_end = guard(x=(0, 0.1, 0.2, 0.1, float("nan")))
    findings, gaps = run_check(check_id, nan_end, expect=LOOP)
    assert findings == [] and [g.code for g in gaps] == ["measurement_unavailable"]


def test_per_clip_loop_caps_override_check_options():
    asset = guard(x=(0, 0.005, 0.01, 0.015, 0.02))
    findings, _ = run_check("loop-closure", asset, expect={"loop": True, "max_loop_position_delta_m": 0.015},
                            options={"max_position_delta_m": 0.1})
    assert [f.expected for f in findings] == [0.015]
    assert run_check("loop-closure", asset, expect={"loop": True, "max_loop_position_delta_m": 0.02})[0] == []
    cusp = guard(x=(0, 0.25, 0.5, 0.25, 0))  # Δv = 2.0 m/s
    assert run_check("loop-seam-vel", cusp, expect={"loop": True, "max_loop_velocity_delta_mps": 2.0})[0] == []
    findings, _ = run_check("loop-seam-vel", cusp, expect={"loop": True, "max_loop_velocity_delta_mps": 1.9})
    assert [f.expected for f in findings] == [1.9]
    turn = guard(rot_deg=(0, 10, 20, 10, 0))  # 80 deg/s
    findings, _ = run_check("loop-seam-rot", turn, expect={"loop": True, "max_loop_angular_velocity_delta_degps": 79.0},
                            options={"max_angular_velocity_delta_degps": 70.0})
    assert [f.expected for f in findings] == [79.0]
    rot = guard(rot_deg=(0, 1, 2, 3, 5))
    findings, _ = run_check("loop-closure", rot, expect={"loop": True, "max_loop_rotation_delta_deg": 4.0})
    assert [f.expected for f in findings] == [4.0]


def test_malformed_key_times_are_gaps_for_grid_checks():
    asset = treadmill(0.5)
    t = np.arange(33) / 32.0
    t[5] = t[3]  # a repeated key time
    asset.clips[0].channels[0] = Channel.make(1, "translation", t, asset.clips[0].channels[0].values)
    expect = {"speed_mps": 1.0, "movement_owner_xz": "gameplay", "loop": True}
    for cid in ("foot-slide", "loop-seam", "loop-closure", "loop-seam-vel", "loop-seam-rot", "in-place"):
        findings, gaps = run_check(cid, asset, expect=expect)
        assert findings == [] and [g.code for g in gaps] == ["measurement_unavailable"], cid
        assert "time-monotonic" in gaps[0].message, cid
