"""`collection transform-foot-cycle` on a ring whose members have different contact timing.

Each foot lifts on a half-sine and rests on the ground otherwise:
h_L(u) = A·max(0, sin 2π(u + o)), h_R(u) = A·max(0, sin 2π(u + o + ½)), so with
the 3 cm contact height each foot plants once and lifts once per cycle, and
the member with entry offset o has every event (and its stride anchor,
0.75 − o) o cycles earlier than the o = 0 reference. After retiming, the
outputs are re-loaded by the core and compared with the reference's events.
"""

import json
import os

import numpy as np
import pytest

from transform_builders import asset_of, frame_times, run_cli, skeleton
from animsmith.core.circular import circular_distance_cycles
from animsmith.errors import Refusal
from animsmith.model import Channel, Clip
from animsmith.transform import foot_cycle as fc

A = 0.1
FRAMES = 31


def stepping_clip(name: str, offset: float, frames: int = FRAMES, fps: float = 30.0, double_step: bool = False) -> Clip:
    t = frame_times(frames, fps)
    u = np.arange(frames) / (frames - 1)
    k = 2 if double_step else 1
    hl = A * np.maximum(0.0, np.sin(2 * np.pi * k * (u + offset)))
    hr = A * np.maximum(0.0, np.sin(2 * np.pi * (k * (u + offset) + 0.5)))
    lf = np.stack([np.full(frames, 0.1), -0.9 + hl, np.zeros(frames)], axis=1)
    rf = np.stack([np.full(frames, -0.1), -0.9 + hr, np.zeros(frames)], axis=1)
    return Clip(name=name, channels=[Channel.make(2, "translation", t, lf), Channel.make(3, "translation", t, rf)])


RING_TOML = """
[gait_groups.run-ring]
clips = ["run_forward", "run_backward", "run_left", "run_right"]
"""


def write_ring(tmp_path, clips, name="ring.glb"):
    from animsmith.io.write import write_glb

    path = str(tmp_path / name)
    write_glb(asset_of(*clips), path)
    cfg = tmp_path / "ring.toml"
    cfg.write_text(RING_TOML)
    return path, str(cfg)


def retime_onto_run_forward(capsys, cfg, path, out):
    """`collection transform-foot-cycle --reference run_forward -o OUT PATH --format json`: the JSON (exit 0)."""
    rc, stdout, err = run_cli(
        capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
        "--reference", "run_forward", "-o", str(out), path, "--format", "json",
    )
    assert rc == 0, err
    return json.loads(stdout)


def events_of(path, clip_name):
    from animsmith.core.roles import resolve_roles
    from animsmith.io.gltf import load_asset

    asset = load_asset(path)
    clip = asset.clip(clip_name)
    grid = fc.cycle_grid(asset, clip, 30.0, FRAMES)
    return fc.foot_events(grid, resolve_roles(asset.skeleton), clip_name, 0.03)


def test_stance_events_follow_the_analytic_contacts(tmp_path):
    path, _ = write_ring(tmp_path, [stepping_clip("run_forward", 0.0)])
    ev = events_of(path, "run_forward")
    # left foot in stance while A·sin(2πu) <= 0.03: u in [~0.5, 1) wrapping to u = 0 (frames 15..30 + 0..)
    c = FRAMES - 1
    u = np.arange(c) / c
    hl = A * np.maximum(0, np.sin(2 * np.pi * u))
    stance = hl <= 0.03 + 1e-12
    # plant: first stance frame after a swing frame; lift: last stance frame before a swing frame;
    # each refined to where the sampled height crosses 0.03 m between it and its swing neighbour
    plant = [i for i in range(c) if stance[i] and not stance[i - 1]][0]
    lift = [i for i in range(c) if stance[i] and not stance[(i + 1) % c]][0]

    def crossing(k):
        a, b = hl[k % c], hl[(k + 1) % c]
        return k + (a - 0.03) / (a - b)

    assert plant - 1 < crossing(plant - 1) <= plant and lift <= crossing(lift) < lift + 1
    assert ev.phases["left_plant"] == pytest.approx(crossing(plant - 1) / c)
    assert ev.phases["left_lift"] == pytest.approx((crossing(lift) / c) % 1.0)
    # the height A·sin(2πu) falls through 0.03 m at u = 1/2 − asin(0.3)/2π and rises through it at
    # u = asin(0.3)/2π (+1): the sampled crossings are within 0.002 cycle of both
    assert ev.phases["left_plant"] == pytest.approx(0.5 - np.arcsin(0.3) / (2 * np.pi), abs=2e-3)
    assert ev.phases["left_lift"] == pytest.approx(np.arcsin(0.3) / (2 * np.pi), abs=2e-3)


def test_retime_aligns_members_with_different_contact_timing(capsys, tmp_path):
    offsets = {"run_forward": 0.0, "run_backward": 0.1, "run_left": 0.25, "run_right": 0.05}
    path, cfg = write_ring(tmp_path, [stepping_clip(n, o) for n, o in offsets.items()])
    ref = events_of(path, "run_forward")
    before = events_of(path, "run_left")
    assert max(circular_distance_cycles(a, b) for a, b in zip(before.as_list(), ref.as_list())) * 30 >= 6
    out = tmp_path / "out.glb"
    doc = retime_onto_run_forward(capsys, cfg, path, out)
    assert doc["outcome"] == "published" and doc["outputs"] == [str(out)]
    assert {m["name"] for m in doc["members"]} == set(offsets)
    # independent re-measurement of the written file
    from transform_builders import anchor_of_file

    ref_anchor, frames = anchor_of_file(path, "run_forward")
    for name in offsets:
        ev = events_of(str(out), name)
        worst = max(circular_distance_cycles(a, b) for a, b in zip(ev.as_list(), ref.as_list())) * (FRAMES - 1)
        assert worst <= 1.0 + 1e-9, (name, ev.phases, ref.phases)
        gm, _ = anchor_of_file(str(out), name)
        assert circular_distance_cycles(gm.gait_phase, ref_anchor.gait_phase) * (frames - 1) <= 0.5 + 1e-9
    # the reference clip is bit-identical
    from animsmith.io.gltf import load_asset

    a0, a1 = load_asset(path).clip("run_forward"), load_asset(str(out)).clip("run_forward")
    for c0, c1 in zip(a0.channels, a1.channels):
        assert c0.values.tobytes() == c1.values.tobytes() and c0.times.tobytes() == c1.times.tobytes()


def test_retime_output_validates_and_text_report(capsys, tmp_path, oracles):
    import subprocess

    path, cfg = write_ring(tmp_path, [stepping_clip(n, o) for n, o in
                                     {"run_forward": 0.0, "run_backward": 0.1, "run_left": 0.25, "run_right": 0.05}.items()])
    out_dir = tmp_path / "out"
    rc, stdout, err = run_cli(capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                              "--reference", "run_forward", "--out-dir", str(out_dir), path)
    assert rc == 0, err
    assert "retimed 'run_left'" in stdout and "reference 'run_forward'" in stdout
    # members whose events moved are "retimed"; none of these was already on the reference's
    assert "already aligned" not in stdout
    out = out_dir / "ring.glb"
    res = subprocess.run(["node", os.path.join(oracles, "validate.mjs"), str(out), "--report", str(out) + ".json"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "errors=0" in res.stdout, res.stdout + res.stderr


def test_two_plants_per_cycle_refuses_contact_topology(capsys, tmp_path):
    clips = [stepping_clip("run_forward", 0.0), stepping_clip("run_backward", 0.1),
             stepping_clip("run_left", 0.0, double_step=True), stepping_clip("run_right", 0.05)]
    path, cfg = write_ring(tmp_path, clips)
    out = tmp_path / "out.glb"
    out.write_bytes(b"keep")
    rc, stdout, err = run_cli(capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                              "--reference", "run_forward", "-o", str(out), path)
    assert rc == 1 and stdout == "" and out.read_bytes() == b"keep"
    assert "refused [contact_topology]" in err and "'run_left'" in err and "2 stance runs" in err


def test_trajectory_proofs_apply_to_every_member(capsys, tmp_path):
    drifting = stepping_clip("run_right", 0.05)
    t = drifting.channels[0].times
    drifting.channels.append(Channel.make(0, "translation", t, np.outer(np.linspace(0, 1, FRAMES), [0.02, 0, 0])))
    path, cfg = write_ring(tmp_path, [stepping_clip("run_forward", 0.0), stepping_clip("run_backward", 0.1),
                                      stepping_clip("run_left", 0.25), drifting])
    rc, stdout, err = run_cli(capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                              "--reference", "run_forward", "-o", str(tmp_path / "o.glb"), path)
    assert rc == 1 and "refused [horizontal_drift]" in err and "cannot retime clip 'run_right'" in err
    assert not (tmp_path / "o.glb").exists()


def test_a_member_whose_hips_walk_below_a_static_root_refuses(capsys, tmp_path):
    """The root node has no channel (a scene container); the member's hips carry 1.2 m of
    root motion: the hips are its travel bone, so the trajectory proof refuses it."""
    walking = stepping_clip("run_left", 0.25)
    t = walking.channels[0].times
    hips = np.array([0.0, 1.0, 0.0]) + np.outer(np.linspace(0, 1, FRAMES), [0.0, 0.0, 1.2])
    walking.channels.append(Channel.make(1, "translation", t, hips))
    path, cfg = write_ring(tmp_path, [stepping_clip("run_forward", 0.0), stepping_clip("run_backward", 0.1),
                                      walking, stepping_clip("run_right", 0.05)])
    rc, stdout, err = run_cli(capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                              "--reference", "run_forward", "-o", str(tmp_path / "o.glb"), path)
    assert rc == 1 and stdout == "" and "refused [horizontal_drift]" in err
    assert "cannot retime clip 'run_left', bone 'Hips'" in err and "1.2000 m" in err
    assert not (tmp_path / "o.glb").exists()


def test_events_in_another_cyclic_order_refuse_contact_order():
    ref = fc.FootEvents({"left_plant": 0.0, "left_lift": 0.3, "right_plant": 0.5, "right_lift": 0.8}, 30)
    other = fc.FootEvents({"left_plant": 0.0, "left_lift": 0.6, "right_plant": 0.5, "right_lift": 0.8}, 30)
    with pytest.raises(Refusal) as exc:
        fc.warp_knots(ref, other, "run_left")
    assert exc.value.code == "contact_order"
    r, m = fc.warp_knots(ref, fc.FootEvents({k: (v + 0.25) % 1 for k, v in ref.phases.items()}, 30), "x")
    u = np.linspace(-1, 2, 61)
    np.testing.assert_allclose(fc.warp_phase(u, r, m), u + 0.25, atol=1e-12)  # a pure shift warps to a shift


def test_operator_errors(capsys, tmp_path):
    path, cfg = write_ring(tmp_path, [stepping_clip("run_forward", 0.0)])
    base = ["--config", cfg, "collection", "transform-foot-cycle"]
    rc, _, err = run_cli(capsys, *base, "--group", "nope", "--reference", "run_forward", "-o", str(tmp_path / "o.glb"), path)
    assert rc == 2 and "nope" in err
    rc, _, err = run_cli(capsys, *base, "--group", "run-ring", "--reference", "run_forward", path)
    assert rc == 2 and "--out-dir" in err
    rc, _, err = run_cli(capsys, *base, "--group", "run-ring", "--reference", "run_forward", "-o", str(tmp_path / "o.glb"), path)
    assert rc == 2 and "run_backward" in err  # member missing from the given files


def test_retimed_output_reloads_in_threejs_to_our_poses(capsys, tmp_path, oracles):
    import subprocess

    from animsmith.core.pose import sample_pose
    from animsmith.io.gltf import load_asset

    path, cfg = write_ring(tmp_path, [stepping_clip(n, o) for n, o in
                                     {"run_forward": 0.0, "run_backward": 0.1, "run_left": 0.25, "run_right": 0.05}.items()])
    out = tmp_path / "out.glb"
    rc, _, err = run_cli(capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                         "--reference", "run_forward", "-o", str(out), path)
    assert rc == 0, err
    times = frame_times(FRAMES, 30.0).astype(np.float64)
    res = subprocess.run(["node", os.path.join(oracles, "sample.mjs"), str(out), "--clip", "run_left",
                          "--nodes", "Hips,LeftFoot,RightFoot", "--times", ",".join(repr(float(x)) for x in times)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    asset = load_asset(str(out))
    grid = sample_pose(asset.skeleton, asset.clip("run_left"), times)
    for k, sample in enumerate(doc["samples"]):
        for name in ("Hips", "LeftFoot", "RightFoot"):
            np.testing.assert_allclose(sample["nodes"][name]["position"], grid.model_position_m[k, asset.skeleton.find(name)], atol=2e-6)


OFFSETS = {"run_forward": 0.0, "run_backward": 0.1, "run_left": 0.25, "run_right": 0.05}


def write_member_files(tmp_path):
    """One file per ring member (stepping clips with the OFFSETS contact phases)."""
    from animsmith.io.write import write_glb

    paths = []
    for name, o in OFFSETS.items():
        p = str(tmp_path / f"{name}.glb")
        write_glb(asset_of(stepping_clip(name, o)), p)
        paths.append(p)
    return paths


def test_members_across_files_publish_together_into_out_dir(capsys, tmp_path):
    offsets = OFFSETS
    paths = write_member_files(tmp_path)
    cfg = tmp_path / "ring.toml"
    cfg.write_text(RING_TOML.replace('"run_right"]', '"run_right.glb"]'))  # a file member too
    out_dir = tmp_path / "out"
    rc, stdout, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                              "--reference", "run_forward", "--out-dir", str(out_dir), *paths[:3])
    assert rc == 0, err
    assert sorted(os.listdir(out_dir)) == sorted(os.path.basename(p) for p in paths)
    ref = events_of(paths[0], "run_forward")
    for name in offsets:
        ev = events_of(str(out_dir / f"{name}.glb"), name)
        assert max(circular_distance_cycles(a, b) for a, b in zip(ev.as_list(), ref.as_list())) * (FRAMES - 1) <= 1.0 + 1e-9


def test_output_folder_and_write_failures_are_one_named_line(capsys, tmp_path):
    """An --out-dir that cannot be created, or an output that cannot be written, is exit 2
    naming the path (not an internal error), and nothing is left behind."""
    from animsmith.io.write import write_glb

    offsets = OFFSETS
    paths = write_member_files(tmp_path)
    cfg = tmp_path / "ring.toml"
    cfg.write_text(RING_TOML)
    afile = tmp_path / "afile"
    afile.write_text("x")
    base = ["--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring", "--reference", "run_forward"]
    rc, out, err = run_cli(capsys, *base, "--out-dir", str(afile / "sub"), *paths)
    assert (rc, out) == (2, "")
    assert err.startswith(f"animsmith: {afile / 'sub'}: cannot create the output folder: ") and err.count("\n") == 1
    fifo = tmp_path / "out-fifo.glb"  # -o onto something that is not a regular file
    os.mkfifo(fifo)
    one = tmp_path / "one.glb"
    write_glb(asset_of(*[stepping_clip(n, o) for n, o in offsets.items()]), str(one))
    rc, out, err = run_cli(capsys, *base, "-o", str(fifo), str(one))
    assert (rc, out) == (2, "")
    assert err == f"animsmith: {fifo}: cannot write output: exists and is not a regular file\n"
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".animsmith-")]


def test_out_dir_link_onto_another_input_is_refused(capsys, tmp_path):
    """Outputs follow symlinks (io.write.publish_path), so a stale link in --out-dir that
    points at another member file must not let one member's output replace that input."""
    indir = tmp_path / "in"
    indir.mkdir()
    paths = write_member_files(indir)
    cfg = indir / "ring.toml"
    cfg.write_text(RING_TOML)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    os.symlink(os.path.join("..", "in", "run_left.glb"), out_dir / "run_forward.glb")
    before = {p: open(p, "rb").read() for p in paths}
    rc, out, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                           "--reference", "run_forward", "--out-dir", str(out_dir), *paths)
    assert (rc, out) == (2, "")
    target = str(out_dir / "run_forward.glb")
    assert err == f"animsmith: output {target!r} is an input file ({paths[2]}); choose another --out-dir or -o\n"
    assert {p: open(p, "rb").read() for p in paths} == before
    assert sorted(os.listdir(out_dir)) == ["run_forward.glb"]  # only the link, nothing written


def test_a_reference_naming_two_members_is_called_ambiguous(capsys, tmp_path):
    indir = tmp_path / "in"
    indir.mkdir()
    import shutil

    paths = write_member_files(indir)
    shutil.copy(indir / "run_right.glb", indir / "copy.glb")  # another file whose clip is run_right
    cfg = indir / "ring.toml"
    cfg.write_text(RING_TOML.replace('"run_right"]', '"run_right.glb", "copy.glb"]'))
    rc, out, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                           "--reference", "run_right", "--dry-run", *paths, str(indir / "copy.glb"))
    assert (rc, out) == (2, "")
    assert "--reference 'run_right' is ambiguous in gait group 'run-ring': it names 2 members" in err


@pytest.mark.parametrize("spellings", [
    '"run_right", "run_right.glb", "./run_right.glb#run_right"',
    '"run_right", "../alias/run_right.glb#run_right"',  # alias -> the members' folder
], ids=["file-and-clip", "through-a-symlink"])
def test_the_same_clip_named_two_ways_is_one_member(capsys, tmp_path, spellings):
    """`run_right`, `run_right.glb` and `alias/run_right.glb#run_right` (alias -> the folder)
    name one clip: one member, so no ambiguous reference, planned once (a symlinked spelling
    was loaded again and counted)."""
    import json

    indir = tmp_path / "in"
    indir.mkdir()
    paths = write_member_files(indir)
    os.symlink(indir, tmp_path / "alias")
    cfg = indir / "ring.toml"
    cfg.write_text(RING_TOML.replace('"run_right"]', spellings + "]"))
    rc, out, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                           "--reference", "run_right", "--dry-run", "--format", "json", *paths)
    assert rc == 0, err
    assert sorted(m["name"] for m in json.loads(out)["members"]) == ["run_backward", "run_forward", "run_left", "run_right"]
    # every declared spelling names the member as --reference too (only the first one did)
    last = spellings.split(", ")[-1].strip('"')
    rc, out, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                           "--reference", last, "--dry-run", "--format", "json", *paths)
    assert rc == 0, err
    assert [m["name"] for m in json.loads(out)["members"] if m["reference"]] == ["run_right"]


def test_outputs_may_not_replace_an_input_that_holds_no_member(capsys, tmp_path):
    """Every file named in PATHS is an input, not only the member files."""
    from animsmith.io.write import write_glb

    path, cfg = write_ring(tmp_path, [stepping_clip(n, o) for n, o in OFFSETS.items()])
    extra = str(tmp_path / "extra.glb")
    write_glb(asset_of(stepping_clip("unrelated", 0.0)), extra)
    before = open(extra, "rb").read()
    rc, out, err = run_cli(capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                           "--reference", "run_forward", "-o", extra, path, extra)
    assert (rc, out) == (2, "")
    assert f"output {extra!r} is an input file ({extra})" in err
    assert open(extra, "rb").read() == before


def test_a_member_listed_twice_is_retimed_once(capsys, tmp_path):
    """The group checks count a repeated member once; so does the collection: the reference
    listed twice is not "ambiguous" and no clip is planned twice."""
    offsets = {"run_forward": 0.0, "run_left": 0.25}
    path, cfg = write_ring(tmp_path, [stepping_clip(n, o) for n, o in offsets.items()])
    (tmp_path / "ring.toml").write_text('[gait_groups.run-ring]\nclips = ["run_forward", "run_left", "run_forward"]\n')
    out = tmp_path / "out.glb"
    doc = retime_onto_run_forward(capsys, cfg, path, out)
    assert sorted(m["name"] for m in doc["members"]) == ["run_forward", "run_left"]


def open_clip(name, offset):
    """``stepping_clip`` as an open loop: 31 keys over a 31-frame period (the wrap is a real step)."""
    t = frame_times(FRAMES, 30.0)
    u = np.arange(FRAMES) / FRAMES
    hl = A * np.maximum(0.0, np.sin(2 * np.pi * (u + offset)))
    hr = A * np.maximum(0.0, np.sin(2 * np.pi * (u + offset + 0.5)))
    lf = np.stack([np.full(FRAMES, 0.1), -0.9 + hl, np.zeros(FRAMES)], axis=1)
    rf = np.stack([np.full(FRAMES, -0.1), -0.9 + hr, np.zeros(FRAMES)], axis=1)
    return Clip(name=name, channels=[Channel.make(2, "translation", t, lf), Channel.make(3, "translation", t, rf)])


def test_open_loop_members_stay_open_and_follow_the_reference(capsys, tmp_path):
    """Members baked as open loops (31 keys, period 31 frames: the wrap step is a real frame).
    The cycle is all 31 frames, an open member's last key blends into its first over the wrap,
    and it stays open: it used to be retimed over 30 frames, its last key becoming a copy of the
    first (a pose held over the wrap, measured `duplicated_endpoint`). A member entering o
    cycles later, warped onto the reference's contacts, is the reference again within a frame
    of motion."""
    from animsmith.io.gltf import load_asset

    offsets = {"run_forward": 0.0, "run_backward": 0.1, "run_left": 0.25, "run_right": 0.05}
    path, cfg = write_ring(tmp_path, [open_clip(n, o) for n, o in offsets.items()])
    out = tmp_path / "out.glb"
    retime_onto_run_forward(capsys, cfg, path, out)
    rc, stdout, _ = run_cli(capsys, "measure", str(out), "--format", "json")
    assert "duplicated_endpoint" not in {c["loop_endpoint_mode"] for c in json.loads(stdout)["files"][0]["clips"]}
    ref = load_asset(path).clip("run_forward")
    after = load_asset(str(out))
    one_frame_of_motion = A * 2 * np.pi / FRAMES
    for name in offsets:
        clip = after.clip(name)
        assert any(c.values[-1].tobytes() != c.values[0].tobytes() for c in clip.channels)  # still open
        for c_ref, c in zip(ref.channels, clip.channels):
            assert np.max(np.abs(c.values - c_ref.values)) <= one_frame_of_motion, name


@pytest.mark.parametrize("member_offset", [0.1, 0.3])
def test_mixed_ring_open_member_onto_a_duplicated_reference(capsys, tmp_path, member_offset):
    """A duplicated-endpoint reference and open-loop members: each is measured on its own cycle
    (the open one closed with a copy of its first frame, not read as if its last frame were the
    wrap, which put its anchor half a frame late and refused a correct retime), and the retimed
    members follow the reference's motion within a frame."""
    from animsmith.io.gltf import load_asset

    clips = [stepping_clip("run_forward", 0.0)] + [open_clip(n, member_offset) for n in ("run_backward", "run_left", "run_right")]
    path, cfg = write_ring(tmp_path, clips)
    out = tmp_path / "out.glb"
    doc = retime_onto_run_forward(capsys, cfg, path, out)
    ref = load_asset(path).clip("run_forward")
    for m in doc["members"]:
        assert circular_distance_cycles(m["anchor_after"], 0.75) * 30 <= 0.5 + 1e-9, m
    after = load_asset(str(out))
    for name in ("run_backward", "run_left", "run_right"):
        for c_ref, c in zip(ref.channels, after.clip(name).channels):
            # the reference's frame k is at phase k/30, the member's at k/31: compare on phase
            u = np.arange(FRAMES) / FRAMES
            want = np.stack([np.interp(u, np.arange(FRAMES) / (FRAMES - 1), c_ref.values[:, j]) for j in range(3)], axis=1)
            assert np.max(np.abs(c.values - want)) <= A * 2 * np.pi / FRAMES, name


def test_member_files_whose_names_differ_only_in_case_are_refused_for_out_dir(capsys, tmp_path):
    """a/Walk.glb and b/walk.glb are one output file on Windows and macOS: refused (exit 2,
    nothing written) instead of one silently replacing the other."""
    from animsmith.io.write import write_glb

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    names = list(OFFSETS)
    one = str(tmp_path / "a" / "Ring.glb")
    two = str(tmp_path / "b" / "ring.glb")
    write_glb(asset_of(*[stepping_clip(n, OFFSETS[n]) for n in names[:2]]), one)
    write_glb(asset_of(*[stepping_clip(n, OFFSETS[n]) for n in names[2:]]), two)
    cfg = tmp_path / "ring.toml"
    cfg.write_text(RING_TOML)
    out_dir = tmp_path / "out"
    rc, out, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                           "--reference", "run_forward", "--out-dir", str(out_dir), one, two)
    assert (rc, out) == (2, "")
    assert err == (f"animsmith: member files {one} and {two} share a file name (ignoring case); "
                   "--out-dir would overwrite one with the other\n")
    assert not out_dir.exists() or os.listdir(out_dir) == []


def test_publishing_without_os_fchmod(capsys, tmp_path, monkeypatch):
    """Windows has no os.fchmod before Python 3.13: the outputs are still published, with
    the mode a new file gets (0o666 & ~umask), and no temp file is left."""
    paths = write_member_files(tmp_path)
    cfg = tmp_path / "ring.toml"
    cfg.write_text(RING_TOML)
    out_dir = tmp_path / "out"
    monkeypatch.delattr(os, "fchmod")
    rc, _, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                         "--reference", "run_forward", "--out-dir", str(out_dir), *paths)
    assert rc == 0, err
    umask = os.umask(0)
    os.umask(umask)
    assert sorted(os.listdir(out_dir)) == sorted(os.path.basename(p) for p in paths)
    for name in os.listdir(out_dir):
        assert os.stat(out_dir / name).st_mode & 0o777 == 0o666 & ~umask


def _ring_with_out_dir(tmp_path, existing):
    """(member files, contract, out dir, its sorted target paths); with ``existing`` each target
    already holds b"earlier <i>"."""
    paths = write_member_files(tmp_path)
    cfg = tmp_path / "ring.toml"
    cfg.write_text(RING_TOML)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    targets = sorted(str(out_dir / os.path.basename(p)) for p in paths)
    if existing:
        for i, t in enumerate(targets):
            with open(t, "wb") as fh:
                fh.write(b"earlier %d" % i)
    return paths, cfg, out_dir, targets


@pytest.mark.parametrize("existing", [True, False])
def test_a_failed_rename_puts_every_output_back(capsys, tmp_path, monkeypatch, existing):
    """Every output or none: when the third rename fails (on Windows a file another program
    holds open), the two outputs already renamed get their earlier bytes back (or are
    removed when they were new), and no temp or backup file is left."""
    import errno

    paths, cfg, out_dir, targets = _ring_with_out_dir(tmp_path, existing)
    real_replace = os.replace

    def replace(src, dst, *a, **k):
        if os.path.abspath(dst) == targets[2] and os.path.basename(src).startswith(".animsmith-") and "-old-" not in src:
            raise OSError(errno.EACCES, "Permission denied")
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    rc, out, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                           "--reference", "run_forward", "--out-dir", str(out_dir), *paths)
    assert (rc, out) == (2, "")
    assert err == f"animsmith: {targets[2]}: cannot write output: Permission denied\n"
    if existing:
        for i, t in enumerate(targets):
            with open(t, "rb") as fh:
                assert fh.read() == b"earlier %d" % i
    else:
        assert os.listdir(out_dir) == []
    assert sorted(os.listdir(out_dir)) == (sorted(os.path.basename(t) for t in targets) if existing else [])


def test_a_failed_backup_copy_leaves_no_partial_copy(capsys, tmp_path, monkeypatch):
    """Without hard links the earlier output is copied aside; a copy that fails part-way
    (a full disk) is removed, the earlier outputs keep their bytes, and no temp is left."""
    import errno
    import shutil

    paths, cfg, out_dir, targets = _ring_with_out_dir(tmp_path, existing=True)

    def no_link(src, dst, *a, **k):
        raise OSError(errno.EPERM, "Operation not permitted")

    def half_copy(src, dst, *a, **k):
        with open(dst, "wb") as fh:
            fh.write(b"ear")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "link", no_link)
    monkeypatch.setattr(shutil, "copy2", half_copy)
    rc, out, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                           "--reference", "run_forward", "--out-dir", str(out_dir), *paths)
    assert (rc, out) == (2, "")
    assert err.endswith(": cannot write output: No space left on device\n"), err
    assert sorted(os.listdir(out_dir)) == [os.path.basename(t) for t in targets]
    for i, t in enumerate(targets):
        with open(t, "rb") as fh:
            assert fh.read() == b"earlier %d" % i


def _with_external_mesh(path):
    """Rewrite the GLB at ``path`` so a triangle mesh reads its positions from ``mesh.bin`` beside it."""
    import struct

    data = open(path, "rb").read()
    (jlen,) = struct.unpack_from("<I", data, 12)
    doc = json.loads(data[20 : 20 + jlen])
    rest = data[20 + jlen :]
    tri = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], "<f4").tobytes()
    folder = os.path.dirname(path)
    with open(os.path.join(folder, "mesh.bin"), "wb") as fh:
        fh.write(tri)
    doc["buffers"].append({"uri": "mesh.bin", "byteLength": len(tri)})
    doc["bufferViews"].append({"buffer": len(doc["buffers"]) - 1, "byteLength": len(tri)})
    doc["accessors"].append({"bufferView": len(doc["bufferViews"]) - 1, "componentType": 5126, "count": 3, "type": "VEC3",
                             "min": [0, 0, 0], "max": [1, 1, 0]})
    doc["meshes"] = [{"primitives": [{"attributes": {"POSITION": len(doc["accessors"]) - 1}}]}]
    doc["nodes"].append({"name": "tri", "mesh": 0})
    j = json.dumps(doc).encode()
    j += b" " * (-len(j) % 4)
    with open(path, "wb") as fh:
        fh.write(b"glTF" + struct.pack("<II", 2, 12 + 8 + len(j) + len(rest)) + struct.pack("<II", len(j), 0x4E4F534A) + j + rest)
    return os.path.join(folder, "mesh.bin"), tri


def test_an_output_may_not_replace_a_buffer_file_an_input_reads(capsys, tmp_path):
    """`-o mesh.bin`, where mesh.bin is an external buffer of the input GLB: the input would read
    GLB bytes as its mesh afterwards (and the output would read itself). Exit 2, mesh.bin keeps
    its bytes; `transform -o` refuses it the same way."""
    from animsmith.io.gltf import load_asset

    offsets = {"run_forward": 0.0, "run_backward": 0.1, "run_left": 0.25, "run_right": 0.05}
    path, cfg = write_ring(tmp_path, [stepping_clip(n, o) for n, o in offsets.items()])
    mesh, tri = _with_external_mesh(path)
    assert len(load_asset(path).gltf["buffers"]) == 2  # the loader reads mesh.bin
    rc, _, err = run_cli(capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                         "--reference", "run_forward", "-o", mesh, path)
    assert rc == 2 and "is an input file" in err and "mesh.bin" in err, err
    assert open(mesh, "rb").read() == tri
    rc, _, err = run_cli(capsys, "transform", path, "-o", mesh, "--gait-anchor", "--clip", "run_forward")
    assert rc == 2 and "is a file the GLB reads" in err, err
    assert open(mesh, "rb").read() == tri


def _with_step_prop(clip: Clip, frames: int = FRAMES, fps: float = 30.0) -> Clip:
    """``clip`` plus a STEP scale channel on the Hips whose every key is distinct (0.50, 0.51, ...)."""
    t = frame_times(frames, fps)
    s = 0.5 + 0.01 * np.arange(frames)
    s[-1] = s[0]  # the loop closes, like the feet
    clip.channels.append(Channel.make(1, "scale", t, np.stack([s, s, s], axis=1), interpolation="STEP"))
    return clip


def test_an_unwarped_member_keeps_its_step_keys(capsys, tmp_path):
    """A member identical to the reference is warped by the identity: every output frame samples
    its own key. Source times computed in float64 landed a few float32 steps below the keys, so a
    STEP channel held the previous key (its keys came out one frame late, some twice)."""
    from animsmith.io.gltf import load_asset

    clips = [_with_step_prop(stepping_clip("run_forward", 0.0)), _with_step_prop(stepping_clip("run_backward", 0.0))]
    path, cfg = write_ring(tmp_path, clips)
    (tmp_path / "ring.toml").write_text('[gait_groups.run-ring]\nclips = ["run_forward", "run_backward"]\n')
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                              "--reference", "run_forward", "-o", str(out), path)
    assert rc == 0, err
    assert "already aligned 'run_backward'" in stdout
    before, after = load_asset(path).clip("run_backward"), load_asset(str(out)).clip("run_backward")
    for c0, c1 in zip(before.channels, after.channels):
        assert c0.values.tobytes() == c1.values.tobytes(), (c0.path, c0.values[:5, 0], c1.values[:5, 0])


def swing_clip(name: str, offset: float, cycle_frames: int = 30, fps: float = 30.0) -> Clip:
    """A walk whose feet swing forward and up on a leg of 0.9 m: each foot's swing angle is a
    50° sine bump over 40% of the cycle (left from u = 0, right from u = 0.5), entered ``offset``
    cycles later, on ``cycle_frames`` + 1 keys (a duplicated endpoint) at ``fps``; the hips yaw
    ±8° once and bob 4 mm twice per cycle."""
    e = cycle_frames + 1
    u = np.arange(e) / cycle_frames - offset

    def swing(start):
        x = np.mod(u - start, 1.0)
        return np.radians(50.0) * np.where(x < 0.4, np.sin(np.pi * x / 0.4), 0.0)

    t = frame_times(e, fps)
    feet = []
    for side, start in ((0.1, 0.0), (-0.1, 0.5)):
        a = swing(start)
        feet.append(np.stack([np.full(e, side), -0.9 + 0.9 * (1 - np.cos(a)), 0.9 * np.sin(a)], axis=1))
    yaw = np.radians(8.0) * np.sin(2 * np.pi * u)
    hips_q = np.stack([np.zeros(e), np.sin(yaw / 2), np.zeros(e), np.cos(yaw / 2)], axis=1)
    hips_t = np.stack([np.zeros(e), 1.0 + 0.004 * np.cos(4 * np.pi * u), np.zeros(e)], axis=1)
    values = [feet[0], feet[1], hips_q, hips_t]
    for v in values:
        v[-1] = v[0]
    targets = [(2, "translation"), (3, "translation"), (1, "rotation"), (1, "translation")]
    return Clip(name=name, channels=[Channel.make(b, path, t, v) for (b, path), v in zip(targets, values)])


def _swing_ring(tmp_path, member: Clip, fps: float):
    from animsmith.io.write import write_glb

    path = str(tmp_path / "ring.glb")
    write_glb(asset_of(swing_clip("run_forward", 0.0), member), path)
    cfg = tmp_path / "ring.toml"
    cfg.write_text(f'[gait_groups.run-ring]\nclips = ["run_forward", "{member.name}"]\n[clips.{member.name}]\nfps = {fps}\n')
    return path, str(cfg)


@pytest.mark.parametrize("offset, cycle_frames, fps", [(0.37, 30, 30.0), (0.61, 30, 30.0), (0.0, 48, 48.0), (0.2, 48, 48.0)])
def test_the_reference_motion_shifted_or_resampled_is_retimed_not_refused(capsys, tmp_path, offset, cycle_frames, fps):
    """A member that is the reference's own motion entered ``offset`` cycles later (and sampled at
    ``fps``) has the same gait shape: it is retimed within the proofs, and running the command again
    on its own output publishes too. With event times read at whole frames only (up to a frame off
    in each clip) the warp knots sat where the gait was not, and all of these were refused as
    `foot_cycle_unproven` ("the gait shapes differ"), anchors 0.6-1.1 frames off."""
    path, cfg = _swing_ring(tmp_path, swing_clip("run_left", offset, cycle_frames, fps), fps)
    out = tmp_path / "out.glb"
    doc = retime_onto_run_forward(capsys, cfg, path, out)
    ref = [m for m in doc["members"] if m["name"] == "run_forward"][0]
    (m,) = [m for m in doc["members"] if m["name"] == "run_left"]
    assert max(circular_distance_cycles(m["events_after"][k], ref["events_before"][k]) for k in fc.EVENT_NAMES) * cycle_frames <= 1.0
    assert circular_distance_cycles(m["anchor_after"], ref["anchor_before"]) * cycle_frames <= 0.5
    retime_onto_run_forward(capsys, cfg, str(out), tmp_path / "again.glb")


def test_already_aligned_means_on_the_reference_s_events():
    """The label compares a member's events before retiming with the reference's (as shown to
    0.001 cycle), not with its own events after retiming: events 0.002 cycle off the reference's
    that the retime leaves where they were (to the shown digit) read 'retimed' (they read
    'already aligned' while the member's keys were rewritten)."""
    from animsmith.commands.collection import member_label

    ref = fc.FootEvents({"left_plant": 0.365, "left_lift": 0.0, "right_plant": 0.865, "right_lift": 0.5}, 30)
    near = fc.FootEvents({"left_plant": 0.367, "left_lift": 0.0, "right_plant": 0.865, "right_lift": 0.5}, 30)
    same_shown = fc.FootEvents({"left_plant": 0.3651, "left_lift": 0.0002, "right_plant": 0.8649, "right_lift": 0.5}, 30)

    def plan(before, after, reference=False):
        return fc.MemberPlan(clip="m", clip_index=0, source="m.glb", fps=30.0, frames=31, anchor=None,
                             events_before=before, target=ref, reference=reference, events_after=after)

    assert member_label(plan(near, near)) == "retimed"
    assert member_label(plan(near, ref)) == "retimed"
    assert member_label(plan(same_shown, same_shown)) == "already aligned"
    assert member_label(plan(ref, ref, reference=True)) == "reference"


def test_a_path_holding_no_member_keeps_its_buffer_file(capsys, tmp_path):
    """A PATH that holds no member is an input too: `-o` onto a buffer file it reads is refused
    (only member files' buffers were protected, and a non-member's mesh.bin was overwritten)."""
    import shutil

    offsets = {"run_forward": 0.0, "run_backward": 0.1, "run_left": 0.25, "run_right": 0.05}
    path, cfg = write_ring(tmp_path, [stepping_clip(n, o) for n, o in offsets.items()])
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other = str(other_dir / "other.glb")
    shutil.copy(path, other)
    mesh, tri = _with_external_mesh(other)
    (tmp_path / "ring.toml").write_text(RING_TOML.replace('clips = [', 'clips = ["ring.glb#run_forward", ').replace(
        '"run_forward", "run_backward"', '"ring.glb#run_backward"').replace('"run_left", "run_right"', '"ring.glb#run_left", "ring.glb#run_right"'))
    rc, _, err = run_cli(capsys, "--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                         "--reference", "ring.glb#run_forward", "-o", mesh, path, other)
    assert rc == 2 and "is an input file" in err, err
    assert open(mesh, "rb").read() == tri


@pytest.mark.parametrize("members", ['"packs/ring.glb#run_forward", "run_left"', '"run_left", "packs/ring.glb#run_forward"'])
def test_bare_members_are_found_in_paths_only_whatever_the_order(capsys, tmp_path, members):
    """A bare member name is looked up in PATHS, never in a file an earlier `file#clip` member
    loaded: with the ring only under packs/, `run_left` is not found when PATHS lack it, and found
    once (not "ambiguous") when a PATH holds it, in either member order (order decided before)."""
    import shutil

    offsets = {"run_forward": 0.0, "run_left": 0.25}
    path, _ = write_ring(tmp_path, [stepping_clip(n, o) for n, o in offsets.items()])
    (tmp_path / "packs").mkdir()
    shutil.copy(path, tmp_path / "packs" / "ring.glb")
    other, _ = write_ring(tmp_path, [stepping_clip("idle", 0.0)], name="other.glb")
    cfg = tmp_path / "ring.toml"
    cfg.write_text(f"[gait_groups.g]\nclips = [{members}]\n")
    args = ["--config", str(cfg), "collection", "transform-foot-cycle", "--group", "g", "--reference", "run_forward", "--dry-run"]
    rc, _, err = run_cli(capsys, *args, other)
    assert rc == 2 and "group member 'run_left' not found in" in err, err
    rc, out, err = run_cli(capsys, *args, path)
    assert rc == 0, err


def test_a_refusal_in_a_ring_across_files_names_the_member_file(capsys, tmp_path):
    """Mixamo downloads: one file per direction, every clip named 'mixamo.com'. A refusal that
    named only the clip did not say which of the four files to fix."""
    from animsmith.io.write import write_glb

    paths = []
    for name, o in OFFSETS.items():
        clip = stepping_clip("mixamo.com", o)
        if name == "run_left":  # 2 cm of drift over the cycle: horizontal_drift (cap 1 cm)
            clip.channels.append(Channel.make(0, "translation", clip.channels[0].times,
                                              np.outer(np.linspace(0, 1, FRAMES), [0.02, 0, 0])))
        paths.append(str(tmp_path / f"{name}.glb"))
        write_glb(asset_of(clip), paths[-1])
    cfg = tmp_path / "ring.toml"
    cfg.write_text('[gait_groups.run-ring]\nclips = ["run_forward.glb", "run_backward.glb", "run_left.glb", "run_right.glb"]\n')
    rc, stdout, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                              "--reference", "run_forward.glb", "--out-dir", str(tmp_path / "out"), *paths)
    assert rc == 1 and stdout == "" and not (tmp_path / "out").exists()
    assert err.startswith(f"animsmith: refused [horizontal_drift]: cannot retime clip 'mixamo.com' in {paths[2]}, "
                          "bone 'root': the Root bone accumulates horizontal translation 0.0200 m"), err
    # (a ring in one file keeps the clip name alone: test_a_member_whose_hips_walk_below_a_static_root_refuses)


def test_a_file_key_gives_one_mixamo_member_its_own_key_grid(capsys, tmp_path):
    """Two Mixamo downloads, both clips 'mixamo.com': the left walk was exported at 48 fps (49
    keys), the forward one at 30. Only `[clips."left.glb"] fps = 48` puts the left walk on its own
    grid: on the shared 30 fps its 49 keys over 1 s are off the grid and it is refused."""
    from animsmith.io.write import write_glb

    write_glb(asset_of(swing_clip("mixamo.com", 0.0)), str(tmp_path / "fwd.glb"))
    write_glb(asset_of(swing_clip("mixamo.com", 0.2, 48, 48.0)), str(tmp_path / "left.glb"))
    ring = '[gait_groups.run-ring]\nclips = ["fwd.glb", "left.glb"]\n[clips."mixamo.com"]\nfps = 30\n'
    args = ["collection", "transform-foot-cycle", "--group", "run-ring", "--reference", "fwd.glb", "--dry-run",
            "--format", "json", str(tmp_path / "fwd.glb"), str(tmp_path / "left.glb")]
    shared = tmp_path / "shared.toml"
    shared.write_text(ring)
    rc, _, err = run_cli(capsys, "--config", str(shared), *args)
    assert rc == 1 and err.startswith(f"animsmith: refused [key_count]: cannot retime clip 'mixamo.com' in "
                                      f"{tmp_path / 'left.glb'}, ") and "has 49 keys instead of exactly 31" in err, err
    own = tmp_path / "own.toml"
    own.write_text(ring + '[clips."left.glb"]\nfps = 48\n')
    rc, stdout, err = run_cli(capsys, "--config", str(own), *args)
    assert rc == 0, err
    (m,) = [m for m in json.loads(stdout)["members"] if not m.get("reference")]
    ref = [m for m in json.loads(stdout)["members"] if m.get("reference")][0]
    assert circular_distance_cycles(m["anchor_after"], ref["anchor_before"]) * 48 <= 0.5


def test_text_lines_name_each_member_s_file_when_the_ring_spans_files(capsys, tmp_path):
    """Every line read `retimed 'mixamo.com'` for a Mixamo ring: which file was retimed?"""
    from animsmith.io.write import write_glb

    fwd, left = str(tmp_path / "fwd.glb"), str(tmp_path / "left.glb")
    write_glb(asset_of(swing_clip("mixamo.com", 0.0)), fwd)
    write_glb(asset_of(swing_clip("mixamo.com", 0.2)), left)
    cfg = tmp_path / "ring.toml"
    cfg.write_text('[gait_groups.run-ring]\nclips = ["fwd.glb", "left.glb"]\n')
    rc, stdout, err = run_cli(capsys, "--config", str(cfg), "collection", "transform-foot-cycle", "--group", "run-ring",
                              "--reference", "fwd.glb", "--dry-run", fwd, left)
    assert rc == 0, err
    lines = stdout.splitlines()
    assert lines[0].startswith(f"reference 'mixamo.com' in {fwd}: ") and lines[0].endswith("; anchor 0.700->0.700")
    # entered 0.2 cycle later: its anchor reads 0.2 later before (0.900), the reference's after
    assert lines[1].startswith(f"retimed 'mixamo.com' in {left}: ") and lines[1].endswith("; anchor 0.900->0.700")
    assert lines[2] == "dry run: nothing written"
