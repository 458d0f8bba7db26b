"""The travel bone on exports shaped like real ones, and the loop checks in its travelling frame.

Fixture (tests/support/builders.py ``fbx2gltf_walk``): an animation-only GLB as FBX2glTF writes
Mixamo clips — a static ``RootNode`` (no channel in any clip) above ``mixamorig:Hips``,
which carry the root motion: +Z at 1.2 m/s over 1 s (31 keys at 30 fps), a 2 cm bob.
Every expectation is computed by hand from the key values written, never from our own
output: the hips end 1.2 m from where they start, so speed = 1.2 / 1.0 m/s; the left arm
(under a static spine below hips that do not rotate) turns about X by its keyed angle,
so its model-space angular velocity is the angle's finite difference.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from builders import FBX_NAMES, fbx2gltf_arm_deg, fbx2gltf_asset, fbx2gltf_walk
from lint_support import run_cli, validate_json, write_config
from animsmith.io.write import write_glb

LOOP_CHECKS = ("loop-closure", "loop-seam", "loop-seam-vel", "loop-seam-rot")
SENTINEL = b"existing output\n"


def write_walks(tmp_path, *clips, name="walks.glb"):
    path = str(tmp_path / name)
    write_glb(fbx2gltf_asset(*clips), path)
    return path


def lint_json(tmp_path, capsys, path, contract):
    cfg = write_config(tmp_path / "animsmith.toml", contract)
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", path], capsys)
    assert err == "" and code in (0, 1)
    return validate_json(out)["files"][0]


def loop_findings(doc, clip=None):
    return [f for f in doc["findings"] if f["check_id"] in LOOP_CHECKS and (clip is None or f["clip"] == clip)]


LOOP_ANIMATION = '[clips."*"]\nloop = true\nmovement_owner_xz = "animation"\n'


# ------------------------------------------------------------ which bone travels


def test_measure_speed_reads_the_hips_under_a_static_rootnode(tmp_path, capsys):
    path = write_walks(tmp_path, fbx2gltf_walk())
    code, out, err = run_cli(["measure", "speed", "--format", "json", path], capsys)
    assert code == 0 and err == ""
    clip = json.loads(out)["files"][0]["clips"][0]
    # hips z: 0 at t = 0, 1.2 x 1.0 at t = 1.0 s; x stays 0
    assert clip["speed_mps"] == pytest.approx(1.2, abs=1e-6)
    assert clip["distance_m"] == pytest.approx(1.2, abs=1e-6)
    assert clip["heading_deg"] == pytest.approx(0.0, abs=1e-6)
    assert clip["travel_bone"] == "mixamorig:Hips" and clip["travel_source_role"] == "hips"
    assert clip["travel_bone_reason"] == "root 'RootNode' is not animated in this clip; using hips"
    # the text table says which bone and why
    code, out, _ = run_cli(["measure", "speed", path], capsys)
    assert "mixamorig:Hips" in out and "1.200" in out
    assert "Walk: travel bone: root 'RootNode' is not animated in this clip; using hips" in out


def test_the_travel_bone_is_chosen_per_clip(tmp_path, capsys):
    """A clip that animates RootNode (a yaw wobble that returns to zero) travels with it; the
    other clip of the same file still uses the hips."""
    path = write_walks(tmp_path, fbx2gltf_walk("Walk"), fbx2gltf_walk("Wobble", root_wobble_deg=0.5))
    code, out, _ = run_cli(["inspect", "--format", "json", path], capsys)
    assert code == 0
    travel = {c["name"]: c["travel_bone"] for c in json.loads(out)["clips"]}
    assert travel["Walk"] == {"bone": "mixamorig:Hips", "role": "hips",
                              "reason": "root 'RootNode' is not animated in this clip; using hips"}
    assert travel["Wobble"] == {"bone": "RootNode", "role": "root",
                                "reason": "root 'RootNode' is the highest node above the hips this clip animates"}
    code, out, _ = run_cli(["inspect", path], capsys)
    assert "Walk: travel bone: root 'RootNode' is not animated in this clip; using hips" in out


def test_three_js_agrees_on_the_hips_travel(tmp_path, oracles):
    """three.js samples the file's nodes at both ends: its hips travel over the duration is our speed."""
    import subprocess

    path = write_walks(tmp_path, fbx2gltf_walk())
    proc = subprocess.run(
        ["node", os.path.join(oracles, "sample.mjs"), path, "--clip", "#0", "--all-nodes", "--rename-nodes",
         "--times", "0.0,1.0"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    key = next(n["key"] for n in doc["nodes"] if int(n["index"]) == FBX_NAMES.index("mixamorig:Hips"))
    first, last = (np.array(s["nodes"][key]["position"]) for s in doc["samples"])
    three_speed = float(np.hypot(*(last - first)[[0, 2]])) / 1.0
    from animsmith.core.analysis import analyze_asset
    from animsmith.io.gltf import load_asset

    _, (ca,) = analyze_asset(load_asset(path))
    assert three_speed == pytest.approx(1.2, abs=1e-6)
    assert ca.speed.speed_mps == pytest.approx(three_speed, abs=1e-6)


# ------------------------------------------------------------ gait-anchor refuses root motion


def refused(tmp_path, capsys, path, *extra):
    out = tmp_path / "out.glb"
    out.write_bytes(SENTINEL)
    code, stdout, stderr = run_cli(["transform", path, "-o", str(out), "--gait-anchor", "--fps", "30", *extra], capsys)
    assert code == 1 and stdout == ""
    assert out.read_bytes() == SENTINEL  # nothing written
    return stderr


# An open cycle, as exporters write loops (30 keys, the last one frame before the first pose):
# every channel ends off its first key, so only the trajectory proof can tell root motion.
# The hips end 1.2 m/s x 29/30 s = 1.16 m from where they start.


def test_gait_anchor_refuses_root_motion_on_the_hips_below_a_static_root(tmp_path, capsys):
    path = write_walks(tmp_path, fbx2gltf_walk(open_cycle=True, frames=30))
    err = refused(tmp_path, capsys, path)
    assert "refused [horizontal_drift]" in err and "bone 'mixamorig:Hips'" in err
    assert "horizontal translation 1.1600 m" in err


def test_gait_anchor_proves_the_hips_below_an_animated_root(tmp_path, capsys):
    """RootNode wobbles (so it is the trajectory bone) but stays in place; the hips walk 1.16 m:
    root motion, refused naming the hips and how far they travel."""
    path = write_walks(tmp_path, fbx2gltf_walk("Wobble", open_cycle=True, frames=30, root_wobble_deg=0.5))
    err = refused(tmp_path, capsys, path)
    assert "refused [horizontal_drift]" in err
    assert "the hips 'mixamorig:Hips' travel 1.1600 m horizontally" in err and "'RootNode'" in err


# ------------------------------------------------------------ loops in the travelling frame


def test_clean_travelling_loops_have_no_loop_findings(tmp_path, capsys):
    path = write_walks(
        tmp_path,
        fbx2gltf_walk("Walk"),  # closed: the last key repeats the first pose, 1.2 m on
        fbx2gltf_walk("Open", open_cycle=True, frames=30),  # open: the last key is one frame before it
        fbx2gltf_walk("Turn", turn_deg=60.0),  # a curved path turning 60° per cycle
    )
    for contract in (LOOP_ANIMATION, '[clips."*"]\nloop = true\n'):  # declared, or measured (1.2 m/s)
        doc = lint_json(tmp_path, capsys, path, contract)
        assert loop_findings(doc) == [], loop_findings(doc)
    # declared in place, the same clip's 1.2 m is a real seam
    doc = lint_json(tmp_path, capsys, path, '[clips."Walk"]\nloop = true\nmovement_owner_xz = "gameplay"\n')
    closure = [f for f in loop_findings(doc, "Walk") if f["check_id"] == "loop-closure"]
    assert closure and closure[0]["measured"] == pytest.approx(1.2, abs=1e-4)


def test_a_seam_pop_on_a_travelling_loop_is_an_error_naming_bone_and_time(tmp_path, capsys):
    kink = 22.35  # the arm's bounce: angular velocity flips across the wrap
    path = write_walks(tmp_path, fbx2gltf_walk("Pop", arm_kink_deg=kink))
    # by hand, from the keyed angles (degrees; keys 1/30 s apart, the last repeats the first)
    a = fbx2gltf_arm_deg(np.arange(31) / 30, kink)
    w = np.diff(a) * 30.0
    seam = abs(w[0] - w[-1])
    inner = float(np.abs(np.diff(w)).max())
    assert 3.0 <= seam / inner < 3.2  # a 3x pop
    doc = lint_json(tmp_path, capsys, path, LOOP_ANIMATION)
    rot = [f for f in loop_findings(doc) if f["check_id"] == "loop-seam-rot"]
    assert len(rot) == 1 and rot[0]["severity"] == "error"
    f = rot[0]
    assert (f["clip"], f["bone"], f["time_s"]) == ("Pop", "mixamorig:LeftArm", pytest.approx(1.0))
    assert f["measured"] == pytest.approx(seam, rel=1e-4)
    assert f["expected"] == pytest.approx(1.5 * inner, rel=1e-4)
    assert "'mixamorig:LeftArm'" in f["message"] and "in the frame travelling with 'mixamorig:Hips'" in f["message"]


def test_open_cycles_are_judged_by_their_wrap_step(tmp_path, capsys):
    """30 keys at 30 fps, the last one frame before the first pose: a clean open export passes
    loop-closure (in place and travelling); one whose arm stops at 0.8 of its swing jumps back."""
    path = write_walks(
        tmp_path,
        fbx2gltf_walk("OpenInPlace", open_cycle=True, frames=30, travel_mps=0.0),
        fbx2gltf_walk("Open", open_cycle=True, frames=30),
        fbx2gltf_walk("Popped", open_cycle=True, frames=30, arm_cycles=0.8),
    )
    doc = lint_json(tmp_path, capsys, path, '[clips."*"]\nloop = true\n')
    closure = [f for f in doc["findings"] if f["check_id"] == "loop-closure"]
    assert [f["clip"] for f in closure] == ["Popped"]
    a = fbx2gltf_arm_deg(np.arange(30) / 30, cycles=0.8)
    wrap = abs(a[-1] - a[0])
    step = max(abs(a[1] - a[0]), abs(a[-1] - a[-2]))
    f = closure[0]
    assert f["bone"] == "mixamorig:LeftArm" and "in rotation" in f["message"]
    assert f["measured"] == pytest.approx(wrap, rel=1e-4) and f["expected"] == pytest.approx(1.5 * step, rel=1e-4)
    assert f["time_s"] == pytest.approx(29 / 30)


# ------------------------------------------------------------ clean loops pass the seam caps


@pytest.mark.parametrize("mode", ["--in-place", "--root-motion"])
def test_simulator_bakes_pass_every_loop_check(tmp_path, capsys, mode):
    glb = str(tmp_path / "biped.glb")
    code, _, err = run_cli(["sim", "bake", "biped", "-o", glb, mode], capsys)
    assert code == 0, err
    owner = "animation" if mode == "--root-motion" else "gameplay"
    doc = lint_json(tmp_path, capsys, glb, f'[clips."*"]\nloop = true\nmovement_owner_xz = "{owner}"\n')
    assert loop_findings(doc) == []


def test_the_shipped_ring_passes_every_loop_check(tmp_path, capsys):
    ring = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples", "assets", "run-ring.glb")
    doc = lint_json(tmp_path, capsys, ring, '[clips."*"]\nloop = true\n')
    assert loop_findings(doc) == []


def test_a_closing_key_off_by_float_noise_still_closes_the_loop(tmp_path, capsys):
    """Exporters evaluate t = 0 and t = d separately: the left foot's last translation key
    misses the first by 5e-5 m per component (√3·5e-5 = 0.087 mm). The pose repeats (within
    0.1 mm / 0.01°), so the seam is judged as a closed loop; read as an open cycle, its
    zero-length wrap would be a stop between two swinging steps."""
    clip = fbx2gltf_walk("Noisy")
    foot = next(ch for ch in clip.channels if ch.bone == FBX_NAMES.index("mixamorig:LeftFoot"))
    foot.values[-1] = foot.values[-1] + np.float32(5e-5)
    path = write_walks(tmp_path, clip)
    from animsmith.core.analysis import analyze_asset
    from animsmith.io.gltf import load_asset

    _, (ca,) = analyze_asset(load_asset(path))
    lc = ca.loop_continuity_for(True)
    assert lc.open_cycle is False
    assert float(lc.position_delta_m.max()) == pytest.approx(5e-5 * 3 ** 0.5, rel=0.02)
    doc = lint_json(tmp_path, capsys, path, LOOP_ANIMATION)
    assert loop_findings(doc) == []


# ------------------------------------------------------------ a turning walk


def test_a_turning_walk_measures_its_speed_along_the_arc(tmp_path, capsys):
    """The hips walk 1.2 m/s along a path whose heading (and the hips' yaw) turns steadily by
    90° over the 1 s clip: 1.2 m walked, though the endpoints are only the chord
    2·R·sin(45°) = 1.2·sin(45°)/(π/4) ≈ 1.080 m apart. A declared 1.2 m/s is the truth."""
    path = write_walks(tmp_path, fbx2gltf_walk("Turn", turn_deg=90.0), fbx2gltf_walk("Walk"))
    code, out, err = run_cli(["measure", "speed", "--format", "json", path], capsys)
    assert code == 0 and err == ""
    clips = {c["name"]: c for c in json.loads(out)["files"][0]["clips"]}
    assert clips["Turn"]["speed_mps"] == pytest.approx(1.2, abs=1e-5)
    assert clips["Turn"]["distance_m"] == pytest.approx(1.2, abs=1e-5)
    assert clips["Turn"]["heading_deg"] == pytest.approx(45.0, abs=1e-4)  # the chord's direction
    assert clips["Walk"]["speed_mps"] == pytest.approx(1.2, abs=1e-6)  # a straight walk: the chord itself
    doc = lint_json(tmp_path, capsys, path, '[clips."*"]\nloop = true\nmovement_owner_xz = "animation"\nspeed_mps = 1.2\n'
                    'speed_tolerance_mps = 0.05\n')
    assert [f for f in doc["findings"] if f["check_id"] == "root-motion-speed"] == []
    doc = lint_json(tmp_path, capsys, path, '[clips."*"]\nmovement_owner_xz = "animation"\nspeed_mps = 1.0\n'
                    'speed_tolerance_mps = 0.05\n')
    assert {f["clip"] for f in doc["findings"] if f["check_id"] == "root-motion-speed"} == {"Turn", "Walk"}


def test_a_slow_root_motion_loop_without_an_owner_is_judged_travelling(tmp_path, capsys):
    """A sneak whose hips travel 0.2 m/s (0.2 m over the 1 s cycle, by the keys written) and
    no declared owner travels, as the gait group's travel policy says it does (any root at
    0.05 m/s or more): the 0.2 m it walks is no seam. At 0.02 m/s it is in place, and the
    2 cm it drifts is a real seam (over the 1 cm cap)."""
    path = write_walks(tmp_path, fbx2gltf_walk("Sneak", travel_mps=0.2), fbx2gltf_walk("Drift", travel_mps=0.02))
    doc = lint_json(tmp_path, capsys, path, '[clips."*"]\nloop = true\n')
    assert doc["measurements"]["clips"]["Sneak"]["speed_mps"] == pytest.approx(0.2, rel=1e-5)
    assert loop_findings(doc, "Sneak") == []
    closure = [f for f in loop_findings(doc, "Drift") if f["check_id"] == "loop-closure"]
    assert closure and closure[0]["measured"] == pytest.approx(0.02, abs=1e-4)


@pytest.mark.parametrize("creature", ["beetle", "spider"])
def test_slow_simulator_bakes_pass_the_loop_checks_with_no_owner_declared(tmp_path, capsys, creature):
    """The beetle and the spider walk well under 0.5 m/s; their root-motion loops close in the
    frame travelling with the body, owner declared or not."""
    glb = str(tmp_path / f"{creature}.glb")
    code, _, err = run_cli(["sim", "bake", creature, "-o", glb, "--root-motion"], capsys)
    assert code == 0, err
    doc = lint_json(tmp_path, capsys, glb, '[clips."*"]\nloop = true\n')
    assert 0.05 <= doc["measurements"]["clips"]["walk"]["speed_mps"] < 0.5
    assert loop_findings(doc) == []


def test_an_unresolved_root_above_static_containers_needs_no_mapping(tmp_path, capsys):
    """RootNode > Armature (neither a skin joint nor animated) > mixamorig:Hips: the root role
    is unresolved, and its reason says a mapping is needed only when no hips role resolves; mapping
    RootNode as the root changes neither the travel bone nor the speed (1.2 m/s by hand)."""
    from animsmith.model import Asset, Channel, Clip, Skeleton

    base = fbx2gltf_asset(fbx2gltf_walk()).skeleton
    names = ["RootNode", "Armature"] + FBX_NAMES[1:]
    parents = [-1, 0] + [int(p) + 1 for p in base.parents[1:]]
    rest = np.vstack([[0.0, 0.0, 0.0], np.asarray(base.rest_translation)])
    sk = Skeleton.build(names, parents, rest, is_joint=[False, False] + [True] * (len(names) - 2))
    walk = fbx2gltf_walk()
    clip = Clip(name="Walk", channels=[Channel.make(c.bone + 1, c.path, c.times, c.values) for c in walk.channels])
    path = str(tmp_path / "containers.glb")
    write_glb(Asset(skeleton=sk, clips=[clip]), path)

    code, out, _ = run_cli(["inspect", "--format", "json", path], capsys)
    assert code == 0
    root = next(r for r in json.loads(out)["rig"]["roles"] if r["role"] == "root")
    assert root["bone"] is None
    assert root["unresolved"].startswith("'RootNode' matches root in the generic convention but is not a skin joint")
    assert "needed only when no hips role resolves" in root["unresolved"]
    speeds = []
    for contract in ("", '[rig.roles]\nroot = "RootNode"\n'):
        cfg = write_config(tmp_path / "animsmith.toml", contract)
        code, out, err = run_cli(["--config", cfg, "measure", "speed", "--format", "json", path], capsys)
        assert code == 0 and err == ""
        c = json.loads(out)["files"][0]["clips"][0]
        speeds.append((c["travel_bone"], c["travel_source_role"], c["speed_mps"], c["distance_m"]))
    # the hips end 1.2 m (float32 keys) along +Z after 1 s
    assert speeds[0] == ("mixamorig:Hips", "hips", pytest.approx(1.2, abs=1e-6), pytest.approx(1.2, abs=1e-6))
    assert speeds[1] == speeds[0]
