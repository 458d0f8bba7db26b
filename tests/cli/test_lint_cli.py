"""`animsmith lint` flags, paths and exit codes; `animsmith checks`."""

from __future__ import annotations

import os

from animsmith.checks import registry
from builders import gait_clip
from lint_support import ROOT, run_cli, validate_json, write_clips, write_config


def ring(tmp_path, offsets=(0.0, 0.0), name="ring.glb"):
    # the root travels so no channel is constant (constant-track stays quiet)
    clips = [gait_clip(f"c{i}", offset_cycles=o, velocity_mps=(0.0, 0.0, 1.0)) for i, o in enumerate(offsets)]
    return write_clips(tmp_path / name, clips)


def group_cfg(tmp_path, members=("c0", "c1"), cap=0.15, extra=""):
    clips = ", ".join(f'"{m}"' for m in members)
    return write_config(
        tmp_path / "animsmith.toml",
        f"[gait_groups.g]\nclips = [{clips}]\nmax_gait_phase_spread = {cap}\n{extra}",
    )


def test_exit_0_with_gaps_only(tmp_path, capsys):
    glb = ring(tmp_path)
    code, out, err = run_cli(["--config", group_cfg(tmp_path), "lint", glb], capsys)
    assert code == 0 and err == ""
    assert out.splitlines()[-1] == "0 error(s), 0 warning(s), 0 note(s), 2 coverage gap(s), 0 available prediction facet(s), 0 required-unavailable prediction facet(s)"


def test_exit_1_on_error_finding(tmp_path, capsys):
    glb = ring(tmp_path, (0.0, 0.5))
    code, out, _ = run_cli(["--config", group_cfg(tmp_path), "lint", glb], capsys)
    assert code == 1 and "error[gait-group]: gait group 'g'" in out


def test_clean_file_line(tmp_path, capsys):
    glb = ring(tmp_path)
    cfg = write_config(tmp_path / "c.toml", "[checks.bind-pose]\nenabled = false\n")
    code, out, _ = run_cli(["--config", cfg, "lint", glb], capsys)
    assert (code, out) == (0, f"{glb}: clean\n0 error(s), 0 warning(s), 0 note(s), 0 coverage gap(s), 0 available prediction facet(s), 0 required-unavailable prediction facet(s)\n")


def test_select_runs_only_those_checks(tmp_path, capsys):
    glb = ring(tmp_path, (0.0, 0.5))
    cfg = group_cfg(tmp_path)
    code, out, _ = run_cli(["--config", cfg, "lint", "--select", "bind-pose", glb], capsys)
    assert code == 0 and "gait-group" not in out and "bind-pose" in out
    code, out, _ = run_cli(["--config", cfg, "lint", "--select", "gait-group,nan", glb], capsys)
    assert code == 1 and "bind-pose" not in out


def test_unknown_select_or_allow_id_is_exit_2_with_suggestion(tmp_path, capsys):
    glb = ring(tmp_path)
    code, out, err = run_cli(["lint", "--select", "gait-grop", glb], capsys)
    assert code == 2 and out == ""
    assert err == "animsmith: --select: unknown check 'gait-grop' (did you mean 'gait-group'?)\n"
    code, _, err = run_cli(["lint", "--allow", "nan,bogus-check-xyz", glb], capsys)
    assert code == 2 and err.startswith("animsmith: --allow: unknown check 'bogus-check-xyz'")
    # every unknown id, one line each, in the order given
    code, out, err = run_cli(["lint", "--select", "nan,gait-grop", "--select", "quat-flp", glb], capsys)
    assert (code, out) == (2, "")
    assert err == (
        "animsmith: --select: unknown check 'gait-grop' (did you mean 'gait-group'?)\n"
        "animsmith: --select: unknown check 'quat-flp' (did you mean 'quat-flip'?)\n"
    )
    # both flags wrong: both named in the same run
    code, out, err = run_cli(["lint", "--select", "gait-grop", "--allow", "bogus-check-xyz", glb], capsys)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "animsmith: --select: unknown check 'gait-grop' (did you mean 'gait-group'?)",
        "animsmith: --allow: unknown check 'bogus-check-xyz'",
    ]


def test_allow_hides_findings_and_exit(tmp_path, capsys):
    glb = ring(tmp_path, (0.0, 0.5))
    code, out, _ = run_cli(["--config", group_cfg(tmp_path), "lint", "--allow", "gait-group", glb], capsys)
    assert code == 0 and "gait-group" not in out


def test_deny_warnings(tmp_path, capsys):
    glb = ring(tmp_path, (0.0, 0.5))
    cfg = group_cfg(tmp_path, extra='[checks.gait-group]\nseverity = "warning"\n')
    assert run_cli(["--config", cfg, "lint", glb], capsys)[0] == 0
    assert run_cli(["--config", cfg, "lint", "--deny-warnings", glb], capsys)[0] == 1


def test_note_never_fails(tmp_path, capsys):
    glb = ring(tmp_path, (0.0, 0.5))
    cfg = group_cfg(tmp_path, extra='[checks.gait-group]\nseverity = "note"\n')
    code, out, _ = run_cli(["--config", cfg, "lint", "--deny-warnings", glb], capsys)
    assert code == 0 and "note[gait-group]" in out


def test_paths_folder_and_glob(tmp_path, capsys):
    sub = tmp_path / "pack" / "deep"
    sub.mkdir(parents=True)
    a = ring(tmp_path / "pack", name="a.glb")
    b = ring(sub, name="b.glb")
    (tmp_path / "pack" / "notes.txt").write_text("not an asset")
    code, out, _ = run_cli(["lint", "--format", "json", str(tmp_path / "pack")], capsys)
    doc = validate_json(out)
    assert [f["path"] for f in doc["files"]] == [a, b]
    code, out, _ = run_cli(["lint", "--format", "json", str(tmp_path / "pack" / "*.glb")], capsys)
    assert [f["path"] for f in validate_json(out)["files"]] == [a]


def test_no_files_found_is_exit_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, out, err = run_cli(["lint", str(tmp_path / "empty")], capsys)
    assert code == 2 and out == "" and err.startswith("animsmith: no .glb/.gltf files found")
    code, out, err = run_cli(["lint", str(tmp_path / "missing.glb")], capsys)
    assert code == 2 and out == "" and "no such file" in err


def test_a_glob_or_folder_without_assets_next_to_good_files_is_exit_2(tmp_path, capsys):
    """A typo in one CI glob must not pass silently because another argument found files."""
    good = ring(tmp_path)
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "a.toml").write_text("")
    nomatch = str(tmp_path / "nomatch*.glb")
    code, out, err = run_cli(["lint", good, nomatch], capsys)
    assert (code, out) == (2, "")
    assert err == f"animsmith: no .glb/.gltf files found in {nomatch}\n"
    code, out, err = run_cli(["lint", good, str(tmp_path / "configs"), nomatch], capsys)
    assert (code, out) == (2, "")
    assert err == f"animsmith: no .glb/.gltf files found in {tmp_path / 'configs'}, {nomatch}\n"
    # a glob whose matches were all named already still matched something
    code, _, err = run_cli(["lint", good, str(tmp_path / "*.glb")], capsys)
    assert code in (0, 1) and err == ""


def test_unreadable_files_are_exit_2_one_line_each(tmp_path, capsys):
    good = ring(tmp_path)
    bad1 = tmp_path / "bad1.glb"
    bad1.write_bytes(b"glTF\x02\x00\x00\x00garbage")
    bad2 = tmp_path / "bad2.gltf"
    bad2.write_text("{not json")
    code, out, err = run_cli(["lint", good, str(bad1), str(bad2)], capsys)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"animsmith: {bad1}: ") and lines[1].startswith(f"animsmith: {bad2}: ")


def test_bad_flag_is_exit_2(tmp_path, capsys):
    glb = ring(tmp_path)
    assert run_cli(["lint", "--format", "xml", glb], capsys)[0] == 2
    assert run_cli(["lint", "--jobs", "0", glb], capsys)[0] == 2


def test_json_schema_on_a_mixed_run(tmp_path, capsys):
    glb = ring(tmp_path, (0.0, 0.5, 0.1))
    cfg = write_config(
        tmp_path / "c.toml",
        '[clips."c*"]\nloop = true\nspeed_mps = 1.0\n'
        '[gait_groups.g]\nclips = ["c0", "c1", "zz"]\n'
        '[sync_groups.s]\nclips = ["c0", "c1"]\n[sync_groups.s.time_complement]\n',
    )
    code, out, _ = run_cli(["--config", cfg, "lint", "--format", "json", glb], capsys)
    doc = validate_json(out)
    assert code == 1 and doc["config"] == cfg
    s = doc["summary"]
    f = doc["files"][0]
    assert s["errors"] == sum(x["severity"] == "error" for x in f["findings"])
    assert s["coverage_gaps"] == len(f["coverage_gaps"])


def test_checks_lists_every_registered_check(capsys):
    code, out, _ = run_cli(["checks"], capsys)
    assert code == 0
    ids = [line.split()[0] for line in out.splitlines()]
    assert ids == list(registry())
    assert {"gait-group", "sync-group", "time-complement", "bind-pose"} <= set(ids)


def test_checks_explains_one_with_config_keys(capsys):
    code, out, _ = run_cli(["checks", "bind-pose"], capsys)
    assert code == 0 and out.startswith("bind-pose (warning, clip check)")
    assert "max_mean_rest_delta_deg (number, ≥ 0, ≤ 180; default 45)" in out
    code, out, _ = run_cli(["checks", "gait-group"], capsys)
    assert "max_gait_phase_spread (number, ≥ 0, ≤ 0.5; default 0.15)" in out
    assert "min_lr_amplitude_m (number, ≥ 0; default 0.03)" in out
    assert "``" not in out and "`[gait_groups.<name>]`" in out  # reST literals read as `x` in a terminal
    code, out, err = run_cli(["checks", "gait-grup"], capsys)
    assert (code, out) == (2, "") and err == "animsmith: unknown check 'gait-grup' (did you mean 'gait-group'?)\n"
    code, out, err = run_cli(["checks", "zzz"], capsys)
    assert code == 2 and err.startswith("animsmith: unknown check 'zzz' (known: nan, ") and err.count("\n") == 1


def test_group_member_summaries_do_not_keep_assets(tmp_path):
    """The runner keeps small dicts per member, never the clip or asset."""
    from animsmith.checks import parse_contract
    from animsmith.lint import run as run_lint

    glb = ring(tmp_path, (0.0, 0.5))
    contract = parse_contract(b'[gait_groups.g]\nclips = ["c0", "c1"]\n', str(tmp_path / "c.toml"))
    result = run_lint([glb], contract)
    members = result.group_members["gait_groups"]["g"]
    assert [m.clip_name for m in members] == ["c0", "c1"]
    for m in members:
        assert all(isinstance(v, (int, float, str, list, dict, bool, type(None))) for v in m.summary.values())
        assert len(m.summary["lr_signal_m"]) == 30  # one cycle of the 31-key grid
    assert os.path.exists(glb)


def test_each_asset_is_released_before_the_next_file_loads(tmp_path, monkeypatch):
    """Linting N files holds at most one loaded asset at a time (1,000 clips never all in memory)."""
    import gc
    import weakref

    import animsmith.io.gltf as read
    from animsmith.checks import parse_contract
    from animsmith.lint import expand_paths, run as run_lint

    for i in range(4):
        ring(tmp_path, (0.0, 0.25 * (i % 2)), name=f"f{i}.glb")
    contract = parse_contract(
        b'[gait_groups.g]\nclips = ["c0", "c1"]\n[sync_groups.s]\nclips = ["c0", "c1"]\n', str(tmp_path / "c.toml")
    )
    real_load = read.load_asset
    refs = []
    alive_at_load = []

    def tracking_load(path, **kw):
        gc.collect()
        alive_at_load.append(sum(r() is not None for r in refs))
        asset = real_load(path, **kw)
        refs.append(weakref.ref(asset))
        return asset

    monkeypatch.setattr(read, "load_asset", tracking_load)
    result = run_lint(expand_paths([str(tmp_path)]), contract)
    gc.collect()
    assert alive_at_load == [0, 0, 0, 0]
    assert all(r() is None for r in refs) and len(result.files) == 4


def test_colour_only_on_a_tty(tmp_path, capsys, monkeypatch):
    import animsmith.commands.lint as lint_cmd

    glb = ring(tmp_path, (0.0, 0.5))
    cfg = group_cfg(tmp_path)
    _, piped, _ = run_cli(["--config", cfg, "lint", glb], capsys)
    assert "\x1b[" not in piped
    monkeypatch.setattr(lint_cmd, "stdout_color", lambda: True)
    _, tty, _ = run_cli(["--config", cfg, "lint", glb], capsys)
    assert "\x1b[" in tty
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", tty) == piped


def test_a_mistyped_role_override_is_named_where_the_role_is_missed(tmp_path, capsys):
    glb = ring(tmp_path, offsets=(0.0, 0.25))
    cfg = write_config(tmp_path / "c.toml", '[rig]\nroles = { hips = "Hipz" }\n[gait_groups.r]\nclips = ["c0", "c1"]\n')
    code, out, _ = run_cli(["--config", cfg, "lint", glb], capsys)
    assert code == 1
    assert "hips role not resolved ([rig.roles] hips = 'Hipz': no bone with that exact name)" in out


def test_folder_search_skips_hidden_folders_and_node_modules(tmp_path, capsys):
    """`animsmith lint .` (the pre-commit "all assets" hook) must not lint a package's example
    assets under node_modules or anything under .git; naming such a folder still lints it."""
    import shutil

    from animsmith.lint import expand_paths

    src = os.path.join(ROOT, "examples", "assets", "fox-walk.glb")
    for rel in ("mine/a.glb", "node_modules/three/ex.glb", ".git/lfs/b.glb", ".hidden/c.GLB", "mine/.cache/d.glb", "mine/E.GLB"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, tmp_path / rel)
    found = sorted(os.path.relpath(p, tmp_path) for p in expand_paths([str(tmp_path)]))
    assert found == ["mine/E.GLB", "mine/a.glb"]
    assert [os.path.relpath(p, tmp_path) for p in expand_paths([str(tmp_path / "node_modules")])] == ["node_modules/three/ex.glb"]
