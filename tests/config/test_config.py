"""The TOML contract: strict validation (one line, key path, suggestion, exit 2) and precedence."""

from __future__ import annotations

import os

import pytest

from animsmith.checks import load_contract, parse_contract
from animsmith.config import ClipExpect, MemberRef, default_contract
from animsmith.errors import ConfigError
from builders import gait_clip
from lint_support import ROOT, run_cli, write_clips, write_config

SEED_CONFIG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")


def test_seed_config_parses_with_its_values():
    c = load_contract(SEED_CONFIG)
    g = c.gait_groups["run-ring"]
    assert g.clips == ["run_forward", "run_backward", "run_left", "run_right"]
    assert (g.max_gait_phase_spread, g.min_lr_amplitude_m) == (0.15, 0.03)
    s = c.sync_groups["run-ring"]
    assert (s.max_duration_delta_s, s.max_frame_count_delta, s.max_fps_delta) == (0.001, 0, 0.01)
    assert s.time_complement.min_reflected_time_advantage == 0.25
    assert c.rig.profile == "auto"
    assert [m.clip for m in g.members] == g.clips and all(m.file is None for m in g.members)


def test_group_defaults():
    c = parse_contract(b'[gait_groups.g]\nclips = ["a", "b"]\n[sync_groups.s]\nclips = ["a", "b"]\n', "x.toml")
    assert c.gait_groups["g"].max_gait_phase_spread == 0.15
    assert c.gait_groups["g"].min_lr_amplitude_m == 0.03
    assert c.sync_groups["s"].time_complement is None


def test_member_forms_resolve_relative_to_the_config(tmp_path):
    cfg = tmp_path / "sub" / "animsmith.toml"
    cfg.parent.mkdir()
    cfg.write_text('[gait_groups.g]\nclips = ["walk", "packs/a.glb", "../b.gltf#mixamo.com"]\n')
    g = load_contract(str(cfg)).gait_groups["g"]
    assert g.members == [
        MemberRef("walk", None, "walk"),
        MemberRef("packs/a.glb", str(tmp_path / "sub" / "packs" / "a.glb"), None),
        MemberRef("../b.gltf#mixamo.com", str(tmp_path / "b.gltf"), "mixamo.com"),
    ]


def test_clip_expectations_precedence():
    c = parse_contract(
        b'[clips."run_*"]\nloop = true\nfps = 30\n'
        b'[clips."*"]\nfps = 24\nspeed_mps = 1.0\n'
        b'[clips.run_fast]\nspeed_mps = 6.0\n'
        b'[clips."run_f*"]\nfps = 60\n',
        "x.toml",
    )
    e = c.expect_for("run_fast")
    # "*" (0 literals) < "run_*" (4) < "run_f*" (5) < exact name
    assert (e.loop, e.fps, e.speed_mps) == (True, 60.0, 6.0)
    assert c.expect_for("walk") == ClipExpect(fps=24.0, speed_mps=1.0)
    assert parse_contract(b'[clips.walk]\nloop = true\n', "x.toml").expect_for("run") is None


def test_default_contract_and_local_animsmith_toml(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_contract(None).gait_groups == {}
    (tmp_path / "animsmith.toml").write_text('[gait_groups.g]\nclips = ["a", "b"]\n')
    assert list(load_contract(None).gait_groups) == ["g"]
    assert default_contract().path is None


def test_check_settings_and_options():
    c = parse_contract(
        b'[checks.loop-seam]\nmax_ratio = 2\nseverity = "warn"\n[checks.constant-track]\nseverity = "off"\n', "x.toml"
    )
    assert c.check_options("loop-seam", {"max_ratio": 1.5, "min_stride_step_m": 0.02}) == {
        "max_ratio": 2.0,
        "min_stride_step_m": 0.02,
    }
    assert c.check_severity("loop-seam", "error") == "warning"
    assert not c.check_enabled("constant-track") and c.check_enabled("nan")


BAD = [
    (
        '[gait_groups.run-ring]\nclips = ["a"]\nmax_gait_phase_spred = 0.1\n',
        "gait_groups.run-ring.max_gait_phase_spred: unknown key (did you mean 'max_gait_phase_spread'?)",
    ),
    ('[rigg]\nprofile = "auto"\n', "rigg: unknown key (did you mean 'rig'?)"),
    ('[clips.walk]\nlopo = true\n', "clips.walk.lopo: unknown key (did you mean 'loop'?)"),
    ('[clips."run_*"]\nloop = "yes"\n', 'clips."run_*".loop: must be true or false, got string'),
    ('[clips.walk]\nmovement_owner_xz = "gamplay"\n', "clips.walk.movement_owner_xz: must be one of 'gameplay', 'animation', got 'gamplay' (did you mean 'gameplay'?)"),
    ('[clips.walk]\nfps = -30\n', "clips.walk.fps: must be > 0, got -30"),
    ('[clips.walk]\nfps = 0\n', "clips.walk.fps: must be > 0, got 0"),  # 0 is no frame rate (transform read it as 30)
    ('[gait_groups.g]\nclips = ["a"]\nmax_gait_phase_spread = "wide"\n', "gait_groups.g.max_gait_phase_spread: must be a number, got string"),
    ('[gait_groups.g]\nclips = ["a"]\nmax_gait_phase_spread = 0.7\n', "gait_groups.g.max_gait_phase_spread: must be ≤ 0.5, got 0.7"),
    ('[gait_groups.g]\nclips = ["a"]\nmin_lr_amplitude_m = nan\n', "gait_groups.g.min_lr_amplitude_m: must be a finite number"),
    ('[gait_groups.g]\nmax_gait_phase_spread = 0.1\n', "gait_groups.g.clips: missing required key"),
    ('[gait_groups.g]\nclips = "a"\n', "gait_groups.g.clips: must be a list of strings"),
    ('[sync_groups.s]\nclips = ["a"]\nmax_frame_count_delta = -1\n', "sync_groups.s.max_frame_count_delta: must be ≥ 0, got -1"),
    ('[sync_groups.s]\nclips = ["a"]\nmax_duration_delta_s = -0.5\n', "sync_groups.s.max_duration_delta_s: must be ≥ 0, got -0.5"),
    (
        '[sync_groups.s]\nclips = ["a"]\n[sync_groups.s.time_complement]\nmin_reflected_time_advantage = 1.01\n',
        "sync_groups.s.time_complement.min_reflected_time_advantage: must be ≤ 1, got 1.01",
    ),
    (
        '[sync_groups.s]\nclips = ["a"]\n[sync_groups.s.time_complement]\nmin_lr_amplitude_m = -0.01\n',
        "sync_groups.s.time_complement.min_lr_amplitude_m: must be ≥ 0, got -0.01",
    ),
    ('[rig.roles]\nleft_fot = "LeftFoot"\n', "rig.roles.left_fot: unknown role (did you mean 'left_foot'?)"),
    ('[rig]\nprofile = "mixamoo"\n', "rig.profile: unknown rig profile 'mixamoo' (did you mean 'mixamo'?)"),
    ('[checks.gait-grup]\nseverity = "error"\n', "checks.gait-grup: unknown check id (did you mean 'gait-group'?)"),
    ('[checks.loop-seam]\nmax_ration = 2\n', "checks.loop-seam.max_ration: unknown key (did you mean 'max_ratio'?)"),
    ('[checks.loop-seam]\nmax_ratio = -2\n', "checks.loop-seam.max_ratio: must be ≥ 0, got -2"),
    ('[checks.nan]\nseverity = "fatal"\n', "checks.nan.severity: must be one of 'error', 'warning', 'note', 'off', got 'fatal'"),
    ('[checks.nan]\nenabled = 1\n', "checks.nan.enabled: must be true or false, got integer"),
]


@pytest.mark.parametrize("text,detail", BAD)
def test_bad_config_is_one_line_exit_2(tmp_path, capsys, text, detail):
    cfg = write_config(tmp_path / "bad.toml", text)
    glb = write_clips(tmp_path / "w.glb", [gait_clip("a")])
    code, out, err = run_cli(["--config", cfg, "lint", glb], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"animsmith: bad config {cfg}: ")
    assert err.count("\n") == 1
    assert err.rstrip("\n").split(f"bad config {cfg}: ", 1)[1].startswith(detail)


def test_every_problem_of_a_config_is_reported_in_one_run(tmp_path, capsys):
    """One line per problem (table by table: unknown keys, then bad values), exit 2; the
    lines are the same as each problem alone gives (BAD above), and a group whose clips
    list is itself invalid gets no second, derived 'must list a member' line."""
    text = (
        'foo = 1\n'
        '[rig]\nprofile = "mixamoo"\nroles = { left_fot = "LeftFoot" }\n'
        '[clips."run_*"]\nloop = "yes"\nspeed_mps = 2.0\n'
        '[gait_groups.g]\nclips = "a"\n'
        '[gait_groups.h]\nclips = ["a"]\nmax_gait_phase_spread = 0.9\nmin_lr_amplitude_m = 0.01\n'
        '[sync_groups.s]\nclips = ["a"]\n[sync_groups.s.time_complement]\nmin_reflected_time_advantage = 1.01\nnope = 1\n'
        '[checks.gait-grup]\nseverity = "error"\n'
        '[checks.loop-seam]\nmax_ratio = -2\nmax_ration = 2\n'
    )
    cfg = write_config(tmp_path / "bad.toml", text)
    glb = write_clips(tmp_path / "w.glb", [gait_clip("a")])
    code, out, err = run_cli(["--config", cfg, "lint", glb], capsys)
    assert code == 2 and out == ""
    details = [line.split(f"animsmith: bad config {cfg}: ", 1)[1] for line in err.splitlines()]
    assert details == [
        "foo: unknown key",
        "rig.profile: unknown rig profile 'mixamoo' (did you mean 'mixamo'?)",
        "rig.roles.left_fot: unknown role (did you mean 'left_foot'?); roles: " + details[2].split("; roles: ")[1],
        'clips."run_*".loop: must be true or false, got string',
        "gait_groups.g.clips: must be a list of strings",
        "gait_groups.h.max_gait_phase_spread: must be ≤ 0.5, got 0.9",
        "sync_groups.s.time_complement.nope: unknown key",
        "sync_groups.s.time_complement.min_reflected_time_advantage: must be ≤ 1, got 1.01",
        "checks.gait-grup: unknown check id (did you mean 'gait-group'?)",
        "checks.loop-seam.max_ration: unknown key (did you mean 'max_ratio'?)",
        "checks.loop-seam.max_ratio: must be ≥ 0, got -2",
    ]
    with pytest.raises(ConfigError) as info:
        parse_contract(text.encode(), "c.toml")
    assert len(info.value.lines) == len(details) and info.value.lines[-1] == info.value.message


def test_bad_toml_syntax_and_missing_file(tmp_path, capsys):
    cfg = write_config(tmp_path / "bad.toml", "[gait_groups.g\nclips = [")
    glb = write_clips(tmp_path / "w.glb", [gait_clip("a")])
    code, out, err = run_cli(["--config", cfg, "lint", glb], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"animsmith: bad config {cfg}: invalid TOML: ") and "line 1" in err
    missing = str(tmp_path / "nope.toml")
    code, out, err = run_cli(["--config", missing, "lint", glb], capsys)
    assert code == 2 and err == f"animsmith: bad config {missing}: no such file or directory\n" and err.count("\n") == 1


@pytest.mark.parametrize("command", [["lint"], ["measure"], ["inspect"], ["transform", "--gait-anchor", "--dry-run"]])
def test_config_is_validated_before_files(tmp_path, capsys, command):
    """A bad contract is the error even when the input is broken too (`transform` read and
    parsed its input first, so a truncated GLB hid the config error)."""
    cfg = write_config(tmp_path / "bad.toml", "[rigg]\n")
    broken = tmp_path / "broken.glb"
    broken.write_bytes(b"glTF\x02\x00\x00\x00")
    for target in (str(tmp_path / "does-not-exist.glb"), str(broken)):
        code, _, err = run_cli(["--config", cfg, command[0], target, *command[1:]], capsys)
        assert code == 2 and "bad config" in err, (command, err)


def test_parse_contract_raises_config_error():
    with pytest.raises(ConfigError) as info:
        parse_contract(b"[gait_groups.g]\nclips = []\n", "c.toml")
    assert info.value.message == "bad config c.toml: gait_groups.g.clips: must list at least one member"


def test_documented_example_config_is_valid():
    c = load_contract(os.path.join(ROOT, "configs", "example.animsmith.toml"))
    e = c.expect_for("run_forward")
    assert (e.loop, e.fps, e.movement_owner_xz, e.speed_mps) == (True, 30.0, "gameplay", 3.5)
    assert c.expect_for("idle").duration_s == 2.0 and c.expect_for("idle").fps == 30.0
    assert not c.check_enabled("constant-track")


def test_severity_off_with_enabled_true_is_a_conflict_whatever_the_order():
    for text in ('[checks.in-place]\nseverity = "off"\nenabled = true\n', '[checks.in-place]\nenabled = true\nseverity = "off"\n'):
        with pytest.raises(ConfigError) as info:
            parse_contract(text.encode(), "c.toml")
        assert info.value.message == 'bad config c.toml: checks.in-place.enabled: true contradicts severity = "off" (which means enabled = false)'
    c = parse_contract(b'[checks.in-place]\nseverity = "off"\nenabled = false\n', "c.toml")
    assert not c.check_enabled("in-place")


def test_bare_member_names_may_contain_a_hash(tmp_path):
    c = parse_contract(b'[gait_groups.g]\nclips = ["walk#1", "packs/two.glb#run", "a#b#c"]\n', "c.toml", str(tmp_path))
    refs = c.gait_groups["g"].members
    assert [(r.file, r.clip) for r in refs] == [
        (None, "walk#1"), (os.path.normpath(str(tmp_path / "packs" / "two.glb")), "run"), (None, "a#b#c")]
    with pytest.raises(ConfigError) as info:  # looks like a file: still a mistake worth a line
        parse_contract(b'[gait_groups.g]\nclips = ["ring.glv#walk"]\n', "c.toml")
    assert "the part before '#' must be a .glb or .gltf file" in info.value.message


def test_a_group_without_clips_still_has_its_other_keys_checked():
    """One run names every mistake: a group missing `clips` used to hide its other bad keys,
    and only the first bad member of a list was named."""
    raw = (b'[gait_groups.g]\nmax_gait_phase_spread = 0.9\n[sync_groups.s]\nmax_fps_delta = -1\n'
           b'[sync_groups.s.time_complement]\nbogus = 1\n'
           b'[gait_groups.m]\nclips = ["ok", "a.b#c", "", "f.glb#"]\n')
    with pytest.raises(ConfigError) as info:
        parse_contract(raw, "c.toml")
    lines = info.value.lines
    for want in ("gait_groups.g.clips: missing required key", "gait_groups.g.max_gait_phase_spread: must be ≤ 0.5",
                 "sync_groups.s.clips: missing required key", "sync_groups.s.max_fps_delta: must be ≥ 0",
                 "sync_groups.s.time_complement.bogus: unknown key", "member 'a.b#c'", "member names must not be empty",
                 "member 'f.glb#': empty clip name"):
        assert any(want in line for line in lines), (want, lines)


@pytest.mark.parametrize("key, value, want", [
    ('[clips."*"]\nfps', "1" + "0" * 400, 'clips."*".fps: must be a finite number, got an integer of 401 digits'),
    ("[sync_groups.s]\nclips = [\"a\", \"b\"]\nmax_frame_count_delta", "1" + "0" * 400,
     "sync_groups.s.max_frame_count_delta: must be at most 9007199254740992 in magnitude"),
    ("[checks.loop-seam]\nmax_ratio", "-1" + "0" * 400, "checks.loop-seam.max_ratio: must be a finite number"),
], ids=["clip-fps", "sync-frame-count", "check-option"])
def test_integers_beyond_a_float_are_config_errors(key, value, want):
    """TOML integers have no size limit: one beyond a float was an internal OverflowError (or,
    as a sync-group cap, crashed the check into a coverage gap and the group went unjudged)."""
    with pytest.raises(ConfigError) as info:
        parse_contract(f"{key} = {value}\n".encode(), "c.toml")
    assert any(want in line for line in info.value.lines), info.value.lines


@pytest.mark.parametrize("kind", ["dangling_link", "folder"])
def test_a_broken_default_config_is_an_error_not_the_defaults(tmp_path, capsys, monkeypatch, kind):
    """./animsmith.toml that is a dangling link (a submodule not checked out) or a folder:
    exit 2 naming it, instead of linting silently with no contract."""
    monkeypatch.chdir(tmp_path)
    if kind == "folder":
        (tmp_path / "animsmith.toml").mkdir()
    else:
        os.symlink(tmp_path / "missing" / "real.toml", tmp_path / "animsmith.toml")
    glb = write_clips(tmp_path / "a.glb", [gait_clip("walk")])
    code, out, err = run_cli(["lint", glb], capsys)
    assert (code, out) == (2, "") and err.startswith("animsmith: bad config animsmith.toml:")


def test_a_group_cap_under_checks_says_where_it_belongs():
    """`[checks.gait-group] max_gait_phase_spread` is not a check option: the message names the
    group table the key belongs in (it said only "unknown key")."""
    raw = b'[checks.gait-group]\nmax_gait_phase_spread = 0.2\n[checks.time-complement]\nmin_reflected_time_advantage = 0.3\n'
    with pytest.raises(ConfigError) as info:
        parse_contract(raw, "c.toml")
    assert info.value.lines == [
        "bad config c.toml: checks.gait-group.max_gait_phase_spread: unknown key: a group's max_gait_phase_spread "
        "goes in its [gait_groups.<name>] table",
        "bad config c.toml: checks.time-complement.min_reflected_time_advantage: unknown key: a group's "
        "min_reflected_time_advantage goes in its [sync_groups.<name>.time_complement] table",
    ]


def test_huge_integer_messages_count_digits_exactly():
    with pytest.raises(ConfigError) as info:
        parse_contract(b'[sync_groups.s]\nclips = ["a"]\nmax_frame_count_delta = 9999999999999999\n', "c.toml")
    assert info.value.lines[-1].endswith("got an integer of 16 digits")
    with pytest.raises(ConfigError) as info:
        parse_contract(b'[sync_groups.s]\nclips = ["a"]\nmax_frame_count_delta = 3.0e300\n', "c.toml")
    assert info.value.lines[-1].endswith("got 3e+300")


def test_unknown_roles_come_before_bad_role_values(tmp_path, capsys):
    """Each table's unknown keys before its bad values (docs/config.md), in [rig.roles] too: they
    came out in file order there."""
    cfg = write_config(tmp_path / "c.toml", '[rig.roles]\nhips = 3\nhipz = "x"\n')
    code, out, err = run_cli(["--config", cfg, "measure", os.path.join(ROOT, "examples", "assets", "fox-walk.glb")], capsys)
    assert code == 2 and out == ""
    assert err.index("rig.roles.hipz: unknown role") < err.index("rig.roles.hips: must be a string"), err


def test_a_bracket_set_starting_with_a_bracket_counts_no_literal():
    """In `run_[]]*` the set is `[]]` (a `]` right after `[` is a member): 4 literals, a tie
    with `run_*` that file order decides (the later wins). It counted 5 and always won."""
    from animsmith.config import glob_specificity

    assert glob_specificity("run_[]]*") == glob_specificity("run_[!]a]*") == glob_specificity("run_*") == 4
    c = parse_contract(b'[clips."run_[]]*"]\nfps = 24\n[clips."run_*"]\nfps = 30\n', "c.toml")
    assert c.expect_for("run_]x").fps == 30.0


def test_bone_lists_refuse_empty_names_and_keep_each_name_once():
    """`required_bones`/`animates_bones` entries are bone names: "" is refused (roles already
    were), a name listed twice counts once (it gave the same finding twice)."""
    with pytest.raises(ConfigError) as exc:
        parse_contract(b'[rig]\nrequired_bones = ["", "Hips"]\n', "c.toml")
    assert "rig.required_bones: must list non-empty bone names" in str(exc.value.message)
    c = parse_contract(b'[rig]\nrequired_bones = ["Hips", "Spine", "Hips"]\n[clips.walk]\nanimates_bones = ["A", "A"]\n', "c.toml")
    assert c.rig.required_bones == ["Hips", "Spine"] and c.expect_for("walk").animates_bones == ["A"]


def test_a_config_that_changes_while_read_is_an_error(tmp_path, monkeypatch):
    """The bytes read must be as many as `stat` said: a contract rewritten under us (shorter:
    it read as the empty built-in defaults) is one line, exit 2."""
    import os as _os

    path = tmp_path / "animsmith.toml"
    path.write_text('[gait_groups.g]\nclips = ["a", "b"]\n')
    real_stat = _os.stat

    def bigger_stat(p, *a, **k):
        st = real_stat(p, *a, **k)
        if str(p) == str(path):
            return _os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid,
                                    st.st_size + 7, st.st_atime, st.st_mtime, st.st_ctime))
        return st

    monkeypatch.setattr(_os, "stat", bigger_stat)
    with pytest.raises(ConfigError) as exc:
        load_contract(str(path))
    assert "file changed while being read" in str(exc.value.message)


def test_integers_past_python_s_conversion_limit_are_named_by_line():
    """A decimal integer of more than 4,300 digits: the parser refuses it; the line says where
    (it carried Python's advice to call sys.set_int_max_str_digits()). Written in hex it parses,
    and its digits are counted exactly (4,300 digits read "about 4301")."""
    from animsmith.config.values import _digits

    text = '[rig]\nprofile = "auto"\n[clips."*"]\nfps = ' + "9" * 5000 + "\n"
    with pytest.raises(ConfigError) as exc:
        parse_contract(text.encode(), "c.toml")
    message = str(exc.value.message)
    if "set_int_max_str_digits" in message or "integer of more than 4300 digits" in message:
        assert message.endswith("invalid TOML: an integer of more than 4300 digits at line 4"), message
    else:  # a Python without the conversion limit parses it: then the key path names it
        assert 'clips."*".fps: must be a finite number' in message
    assert _digits(10**4299) == "4300" and _digits(10**4300 - 1) == "4300" and _digits(10**5000) == "5001"
    assert _digits(16 ** 100_000).startswith("about ")  # no seconds-long power of ten for huge values
    # the line of the value, not of a longer run of digits in a comment above it
    text = "# " + "1" * 5000 + '\n[rig]\nprofile = "auto"\n[clips."*"]\nfps = ' + "9" * 5000 + "\n"
    with pytest.raises(ConfigError) as exc:
        parse_contract(text.encode(), "c.toml")
    message = str(exc.value.message)
    if "more than" in message:
        assert message.endswith("digits at line 5"), message


# Mixamo downloads are one file per clip, every clip named 'mixamo.com': a key naming the file
# is the only way to give one direction of a ring its own speed, fps or loop.
FILE_KEYS = b"""
[clips."walk.glb#mixamo.com"]
speed_mps = 5.0
[clips."walk.glb#mixamo.*"]
duration_s = 7.0
[clips."walk.glb#*"]
speed_mps = 4.0
duration_s = 6.0
[clips."walk.glb"]
speed_mps = 3.0
loop = true
[clips."mixamo.com"]
fps = 30
speed_mps = 2.0
[clips."mixamo.*"]
fps = 20
[clips."*"]
fps = 10
speed_mps = 1.0
loop = false
duration_s = 5.0
speed_tolerance_mps = 0.5
"""


def test_file_keys_overlay_after_the_clip_name_keys_most_specific_last(tmp_path):
    """Written most specific first, applied by rule: name globs (by specificity), the exact name,
    the whole file, the file's clip globs (by specificity), the file's exact clip."""
    for name in ("walk.glb", "run.glb"):
        (tmp_path / name).write_bytes(b"")
    c = parse_contract(FILE_KEYS, str(tmp_path / "c.toml"))
    walk, run = str(tmp_path / "walk.glb"), str(tmp_path / "run.glb")

    def fields(e):
        return e.fps, e.speed_mps, e.loop, e.duration_s, e.speed_tolerance_mps

    assert fields(c.expect_for("mixamo.com", walk)) == (30.0, 5.0, True, 7.0, 0.5)
    assert fields(c.expect_for("mixamo.com", run)) == (30.0, 2.0, False, 5.0, 0.5)
    assert fields(c.expect_for("mixamo.com")) == (30.0, 2.0, False, 5.0, 0.5)  # no file: the name keys only
    assert fields(c.expect_for("Take 001", walk)) == (10.0, 4.0, True, 6.0, 0.5)
    assert fields(c.expect_for("mixamo.org", walk)) == (20.0, 4.0, True, 7.0, 0.5)


def test_a_file_key_without_name_keys_is_the_whole_entry(tmp_path):
    c = parse_contract(b'[clips."walk.glb"]\nspeed_mps = 1.4\n', str(tmp_path / "c.toml"))
    assert c.expect_for("mixamo.com", str(tmp_path / "walk.glb")) == ClipExpect(speed_mps=1.4)
    assert c.expect_for("mixamo.com", str(tmp_path / "run.glb")) is None
    assert c.expect_for("mixamo.com") is None
    assert c.clips == {}


def test_a_file_key_s_clip_part_that_spells_a_glob_is_also_that_exact_name(tmp_path):
    """As for name keys (`[clips."run_]x"]`): a clip named 'Run [1]' is matched by the key that
    spells its name, and the glob 'Run [1]' matches 'Run 1'."""
    c = parse_contract(b'[clips."walk.glb#Run [1]"]\nfps = 24\n', str(tmp_path / "c.toml"))
    walk = str(tmp_path / "walk.glb")
    assert [c.expect_for(n, walk).fps for n in ("Run [1]", "Run 1")] == [24.0, 24.0]
    assert c.expect_for("Run 2", walk) is None


def test_a_file_key_names_the_file_relative_to_the_contract_whatever_path_the_run_gives(tmp_path, monkeypatch):
    """As a group member's file: relative to the contract's folder, one file by its identity
    (another spelling, a symlink); a file of the same name elsewhere is another file."""
    (tmp_path / "cfg").mkdir()
    (tmp_path / "anims").mkdir()
    for p in (tmp_path / "anims" / "walk.glb", tmp_path / "cfg" / "walk.glb"):
        p.write_bytes(b"")
    c = load_contract(write_config(tmp_path / "cfg" / "c.toml", '[clips."../anims/walk.glb"]\nspeed_mps = 1.4\n'))
    monkeypatch.chdir(tmp_path / "anims")
    assert c.expect_for("mixamo.com", "walk.glb").speed_mps == 1.4
    assert c.expect_for("mixamo.com", "../cfg/../anims/walk.glb").speed_mps == 1.4
    assert c.expect_for("mixamo.com", str(tmp_path / "cfg" / "walk.glb")) is None
    if hasattr(os, "symlink"):
        os.symlink(tmp_path / "anims" / "walk.glb", tmp_path / "link.glb")
        assert c.expect_for("mixamo.com", str(tmp_path / "link.glb")).speed_mps == 1.4


@pytest.mark.parametrize("key, problem", [
    ("walk.glb#", "member 'walk.glb#': empty clip name after '#'"),
    ("*.gltf#mixamo.com", "a glob in the file part: a key names one file (relative to the contract's folder); "
                          "'*' and '?' match clip names, after '#' (\"walk.glb#*\")"),
])
def test_a_file_key_that_cannot_name_a_clip_is_a_config_error(key, problem):
    raw = f'[clips."mixamo.com"]\nfps = 30\n[clips."{key}"]\nfps = 60\n'.encode()
    with pytest.raises(ConfigError) as info:
        parse_contract(raw, "c.toml")
    assert info.value.lines == [f'bad config c.toml: clips."{key}": {problem}']


def test_clip_names_with_dots_and_hashes_stay_clip_keys():
    """Only a .glb/.gltf file part makes a key a file: Mixamo's 'mixamo.com', Blender's
    'Armature|mixamo.com|Layer0' and the loader's 'walk#1' are clip names."""
    c = parse_contract(b'[clips."mixamo.com"]\nfps = 30\n[clips."Armature|mixamo.com|Layer0"]\nfps = 24\n'
                       b'[clips."walk#1"]\nfps = 60\n[clips."a.b#c"]\nfps = 25\n', "c.toml")
    assert [c.expect_for(n).fps for n in ("mixamo.com", "Armature|mixamo.com|Layer0", "walk#1", "a.b#c")] == [30, 24, 60, 25]
