"""What a first-time user met (walkthrough on Python 3.13, 2026-12-01): messages that now
say what to do, and numbers shown the way they are meant."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from animsmith.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RING = os.path.join(ROOT, "examples", "assets", "run-ring.glb")


def run_cli(argv, capsys):
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return (0 if info.value.code is None else info.value.code), out, err


@pytest.mark.parametrize("phase, shown", [(0.99999999, "0.000"), (0.9994, "0.999"), (0.9995, "0.000"),
                                          (-0.25, "0.750"), (0.5, "0.500"), (1.25, "0.250"), (0.0, "0.000")])
def test_a_phase_is_shown_wrapped_after_rounding(phase, shown):
    """Phases are circular: 0.99999999 is 0.000 (it showed 1.000, and `transform` printed
    'phase 1.000 -> 1.000' as if nothing had happened)."""
    from animsmith.render.text import phase_text

    assert phase_text(phase) == shown


@pytest.fixture(scope="module")
def fox(tmp_path_factory):
    """A baked fox walk (18 keys over 0.5714 s: 29.75 fps) and a contract mapping its hind feet."""
    folder = tmp_path_factory.mktemp("fox")
    glb = folder / "fox.glb"
    with pytest.raises(SystemExit) as info:
        main(["sim", "bake", "fox", "-o", str(glb)])
    assert info.value.code in (0, None)
    cfg = folder / "fox.toml"
    cfg.write_text('[rig.roles]\nhips = "body"\nleft_foot = "leg_1_foot"\nright_foot = "leg_3_foot"\n'
                   '[clips."walk*"]\nspeed_mps = 0.375\nmovement_owner_xz = "gameplay"\n')
    return str(glb), str(cfg)


def test_the_documented_fox_mapping_gives_one_stride_and_lints_clean(fox, capsys):
    """docs/sim.md's mapping (one hind foot per side): one stride per clip, lint clean (the
    documented fore-left + hind-left pair read two strides)."""
    glb, cfg = fox
    code, out, err = run_cli(["--config", cfg, "measure", "--format", "json", glb], capsys)
    assert code == 0, err
    assert json.loads(out)["files"][0]["clips"][0]["cycles"] == 1
    code, out, err = run_cli(["--config", cfg, "lint", glb], capsys)
    assert (code, err) == (0, "") and out.startswith(f"{glb}: clean")


def test_measure_text_shows_the_json_phase_wrapped(fox, capsys):
    glb, cfg = fox
    _, out, _ = run_cli(["--config", cfg, "measure", "--format", "json", glb], capsys)
    phase = json.loads(out)["files"][0]["clips"][0]["gait_phase"]
    from animsmith.render.text import phase_text

    _, text, _ = run_cli(["--config", cfg, "measure", glb], capsys)
    header = next(line for line in text.splitlines() if line.startswith("clip "))
    row = next(line for line in text.splitlines() if line.startswith("walk "))
    assert header.split()[3] == "phase" and row.split()[2] == phase_text(phase)  # clip, dur s, phase


def test_an_off_grid_refusal_gives_the_rate_of_the_clips_keys(fox, capsys):
    """`sim bake` rounds to whole key intervals (18 keys over 0.5714 s = 29.75 fps); the
    refusal at the default 30 fps says so, and that rate is accepted."""
    glb, cfg = fox
    code, _, err = run_cli(["--config", cfg, "transform", glb, "--gait-anchor", "--dry-run"], capsys)
    assert code == 1
    assert "not a whole number of frames; its densest channel's 18 keys are 29.75 fps;" in err
    code, out, err = run_cli(["--config", cfg, "transform", glb, "--gait-anchor", "--dry-run", "--fps", "29.75"], capsys)
    assert code == 0, err


def test_a_misspelled_group_member_gets_a_suggestion(tmp_path, capsys):
    shutil.copy(RING, tmp_path / "ring.glb")
    cfg = tmp_path / "c.toml"
    cfg.write_text('[gait_groups.r]\nclips = ["run_forward", "run_rigth", "ring.glb#run_lfet"]\n')
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", tmp_path / "ring.glb"], capsys)
    said = [f["message"] for f in json.loads(out)["files"][0]["findings"]]
    assert any(m.endswith("no clip named 'run_rigth' in the linted file(s) (did you mean 'run_right'?)") for m in said)
    assert any("no clip named 'run_lfet' in " in m and m.endswith("(did you mean 'run_left'?)") for m in said)


def test_clip_keys_in_the_wrong_table_say_where_they_belong(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text('loop = true\n[rig]\nprofile = "maya"\n[clips]\nfps = 30\n')
    code, out, err = run_cli(["--config", cfg, "lint", RING], capsys)
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert lines == [
        f"animsmith: bad config {cfg}: loop: unknown key: a clip's loop goes in a [clips.\"<name or glob>\"] table",
        f"animsmith: bad config {cfg}: rig.profile: unknown rig profile 'maya' (one of: 3dsmax, auto, biped, "
        "blender, custom, generic, humanoid, mixamo, none, rigify, ue, ue-mannequin, unity, unreal, vrm)",
        f"animsmith: bad config {cfg}: clips.fps: must be a table, got integer: clip keys go in a "
        "[clips.\"<name or glob>\"] table, not [clips] itself",
    ]


def test_tied_role_candidates_are_counted(tmp_path, capsys):
    """The spider's four left feet: 'four equally good' (it said 'two' and listed three)."""
    glb = tmp_path / "spider.glb"
    run_cli(["sim", "bake", "spider", "-o", glb], capsys)
    code, out, err = run_cli(["inspect", "--format", "json", glb], capsys)
    assert code == 0, err
    # the names alone tie four left feet (resolve_roles); the file's leg map then supplies
    # pair 0's (the rear) feet, so inspect shows the role filled from the legs
    from animsmith.core.roles import resolve_roles
    from animsmith.io.gltf import load_asset

    names_only = resolve_roles(load_asset(str(glb)).skeleton)
    assert names_only.unresolved["left_foot"].startswith("four equally good generic candidates: 'l1_foot' and 'l2_foot' and 'l3_foot' ...")
    rows = {r["role"]: r for r in json.loads(out)["rig"]["roles"]}
    assert (rows["left_foot"]["bone"], rows["left_foot"]["convention"]) == ("l4_foot", "legs:extras")


def test_a_report_of_several_files_has_one_title(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(RING, folder / "a.glb")
    shutil.copy(RING, folder / "b.glb")
    page = tmp_path / "r.html"
    code, _, err = run_cli(["report", folder, "-o", page], capsys)
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    assert "<title>animsmith report</title>" in text


@pytest.mark.parametrize("argv, instead", [
    (["lint", RING], "leave out -o to write to stdout"),
    (["report", RING], "name a file"),
    (["transform", RING, "--gait-anchor"], "name a file"),
    (["sim", "ring"], "name a file"),
    (["sim", "bake", "biped"], "name a file"),
])
def test_dash_is_not_taken_for_a_file_name(tmp_path, capsys, monkeypatch, argv, instead):
    """`-o -` wrote a file called '-' (stdout's usual spelling); ./- still names one."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli([*argv, "-o", "-"], capsys)
    assert (code, out) == (2, "") and os.listdir(tmp_path) == []
    assert err == f"animsmith: --output -: '-' is not stdout here ({instead}; ./- names a file called '-')\n"


def test_dot_slash_dash_still_names_a_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["sim", "ring", "-o", "./-"], capsys)
    assert code == 0, err
    assert (tmp_path / "-").read_bytes()[:4] == b"glTF"


def test_file_identities_are_this_runs(tmp_path, monkeypatch):
    """A script that lints, renames files and lints again: the second run sees the files as
    they are now (a cached identity made c.glb look like the a.glb of the first run, and
    c.glb was skipped)."""
    from animsmith.lint import expand_paths

    shutil.copy(RING, tmp_path / "a.glb")
    shutil.copy(RING, tmp_path / "b.glb")
    monkeypatch.chdir(tmp_path)
    assert expand_paths(["a.glb", "b.glb"]) == ["a.glb", "b.glb"]
    os.rename("a.glb", "c.glb")
    os.rename("b.glb", "a.glb")
    assert expand_paths(["a.glb", "c.glb"]) == ["a.glb", "c.glb"]


def test_a_member_missing_from_a_partial_run_is_not_called_a_typo_of_its_neighbour(tmp_path, capsys):
    """A pre-commit hook lints only the changed file: run_bwd is simply not in the run, not a
    misspelling of run_fwd (the group's other member)."""
    from animsmith.io.write import write_glb
    from builders import biped_asset, gait_clip

    write_glb(biped_asset([gait_clip("run_fwd")]), str(tmp_path / "fwd.glb"))
    cfg = tmp_path / "c.toml"
    cfg.write_text('[gait_groups.r]\nclips = ["run_fwd", "run_bwd"]\n')
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", tmp_path / "fwd.glb"], capsys)
    said = [x["message"] for x in json.loads(out)["files"][0]["findings"]]
    assert any(m.endswith("no clip named 'run_bwd' in the linted file(s)") for m in said), said


def test_the_key_rate_is_over_the_channels_span():
    """Keys at 24 fps starting at 0.05 s: 24 fps (the latest key time gave 22.86)."""
    import numpy as np

    from animsmith.model import Channel, Clip
    from animsmith.transform.gait_anchor.proofs import _keys_rate_text

    t = 0.05 + np.arange(25) / 24.0
    clip = Clip("c", [Channel.make(0, "translation", t, np.zeros((25, 3)))])
    assert _keys_rate_text(clip) == "; its densest channel's 25 keys are 24 fps"


def test_outputs_that_are_hard_links_of_each_other_are_two_outputs(tmp_path, capsys):
    """A rename replaces a name, never writes through a hard link: two earlier outputs that
    are hard links of each other are two outputs (they were refused as "the same file")."""
    from test_transform_foot_cycle import RING_TOML, write_member_files

    paths = write_member_files(tmp_path)
    cfg = tmp_path / "ring.toml"
    cfg.write_text(RING_TOML)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    names = sorted(os.path.basename(p) for p in paths)
    (out_dir / names[0]).write_bytes(b"earlier")
    os.link(out_dir / names[0], out_dir / names[1])
    code, _, err = run_cli(["--config", cfg, "collection", "transform-foot-cycle", "--group", "run-ring",
                            "--reference", "run_forward", "--out-dir", out_dir, *paths], capsys)
    assert code == 0, err
    assert all((out_dir / n).read_bytes()[:4] == b"glTF" for n in names)
    assert not os.path.samefile(out_dir / names[0], out_dir / names[1])


def test_a_nul_in_a_member_path_is_a_missing_member(tmp_path, capsys):
    """TOML can spell a NUL (\\u0000); such a member path names no file (it was an internal
    ValueError from os.stat)."""
    shutil.copy(RING, tmp_path / "ring.glb")
    cfg = tmp_path / "c.toml"
    cfg.write_text('[gait_groups.r]\nclips = ["a\\u0000b.glb#x", "run_forward"]\n')
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", tmp_path / "ring.glb"], capsys)
    assert code == 1 and err == "", err
    said = [x["message"] for x in json.loads(out)["files"][0]["findings"]]
    assert any("cannot read member file: cannot read file: the path holds a NUL character" in m for m in said)


def test_members_already_on_the_reference_read_already_aligned(tmp_path, capsys):
    """The shipped ring: only run_left moves (the other members' events already equal the
    reference's); they said 'retimed'."""
    shutil.copy(RING, tmp_path / "ring.glb")
    code, out, err = run_cli(["--config", os.path.join(ROOT, "examples", "run-ring.animsmith.toml"), "collection",
                              "transform-foot-cycle", "--group", "run-ring", "--reference", "run_forward", "--dry-run",
                              tmp_path / "ring.glb"], capsys)
    assert code == 0, err
    heads = [line.split(":")[0] for line in out.splitlines()[:-1]]
    assert heads == ["reference 'run_forward'", "already aligned 'run_backward'", "retimed 'run_left'",
                     "already aligned 'run_right'"]


def test_a_signal_at_any_moment_of_a_publish_leaves_no_temp_file(tmp_path):
    """Timer signals land all over publish_bytes (inside the temp file's creation too: a
    review's stress run leaked 325 temps in 10,000 publishes when mkstemp made the name);
    every interrupted publish removes its temp file, and the output is old or new, whole."""
    import signal

    from animsmith.io.write import publish_bytes

    if not hasattr(signal, "setitimer"):
        pytest.skip("needs setitimer")

    class Stop(Exception):
        pass

    def handler(signum, frame):
        raise Stop

    out = tmp_path / "out.glb"
    out.write_bytes(b"old" * 1000)
    previous = signal.signal(signal.SIGALRM, handler)
    interrupted = 0
    try:
        for i in range(3000):
            try:  # a one-shot timer: it fires at most once, inside this try, or is cancelled
                signal.setitimer(signal.ITIMER_REAL, 1e-6 * (1 + i % 97))
                publish_bytes(str(out), b"new" * 1000)
                signal.setitimer(signal.ITIMER_REAL, 0)
            except Stop:
                interrupted += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert interrupted > 100  # the premise: many publishes were cut short
    assert os.listdir(tmp_path) == ["out.glb"]
    assert out.read_bytes() in (b"old" * 1000, b"new" * 1000)


def test_out_dir_dash_is_refused(tmp_path, capsys, monkeypatch):
    """`collection ... --out-dir -` would create a folder called '-': exit 2, one line, nothing made."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(RING, tmp_path / "ring.glb")
    code, out, err = run_cli(["--config", os.path.join(ROOT, "examples", "run-ring.animsmith.toml"), "collection",
                              "transform-foot-cycle", "--group", "run-ring", "--reference", "run_forward",
                              "--out-dir", "-", "ring.glb"], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("animsmith: --out-dir -: '-' is not stdout here; name a folder")
    assert sorted(os.listdir(tmp_path)) == ["ring.glb"]
