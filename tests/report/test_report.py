"""`animsmith report`: one self-contained page whose data comes from the judged grids.

Expectations are independent of the implementation: the analytic biped of
tests/support/builders.py has hand-known model positions, and the seed ring's anchors
and circular mean come from the user guide (0.75/0.75/0.50/0.75, mean
atan2(−3, −1)).
"""

from __future__ import annotations

import json
import math
import os
import re

import numpy as np
import pytest

from builders import gait_clip
from lint_support import ROOT, run_cli, write_clips, write_config

RING = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
RING_CFG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")

FORBIDDEN = ("://", "<link", "<scriptsrc=", "src=", "href=", "fetch(", "import(", "xmlhttprequest", "@import", "url(", "websocket", "eventsource", "sendbeacon")


def page_data(html_text):
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html_text, re.S)
    assert m, "no report-data block"
    return json.loads(m.group(1))


def external_markers(html_text):
    squashed = "".join(html_text.split()).lower()
    return [m for m in FORBIDDEN if m in squashed]


def test_marker_scan_catches_a_url():
    assert external_markers('<img src="x">') and external_markers("a https://b") and not external_markers("<p>ok</p>")


def test_ring_report_is_self_contained_and_shows_the_group(tmp_path, capsys):
    out = tmp_path / "r.html"
    code, stdout, stderr = run_cli(["--config", RING_CFG, "report", RING, "-o", str(out)], capsys)
    assert code == 0 and stderr == ""  # written, even though the ring has an error finding
    assert re.fullmatch(r"wrote .*r\.html \(4 clip\(s\), 1 finding\(s\), \d+\.\d MB\)\n", stdout)
    text = out.read_text(encoding="utf-8")
    assert external_markers(text) == []
    assert len(text) < 400_000
    data = page_data(text)
    assert data["summary"]["errors"] == 1 and data["summary"]["clips"] == 4 and data["summary"]["coverage_gaps"] == 4
    (group,) = data["groups"]
    assert group["name"] == "run-ring" and group["cap"] == 0.15
    phases = {m["label"]: m["phase"] for m in group["members"]}
    assert phases == pytest.approx({"run_forward": 0.75, "run_backward": 0.75, "run_left": 0.5, "run_right": 0.75}, abs=1e-3)
    expected_mean = (math.atan2(-3.0, -1.0) / (2 * math.pi)) % 1.0
    assert group["mean"] == pytest.approx(expected_mean, abs=1e-3)
    assert group["outliers"] == ["run_left"]
    assert [m["label"] for m in group["members"] if m["outlier"]] == ["run_left"]
    # every member carries one cycle of its L−R signal and its clip's local poses for the blend
    for m in group["members"]:
        assert m["status"] == "measured" and len(m["signal"]) == 30
        clip = data["clips"][m["clip"]]
        assert clip["name"] == m["label"] and "local" in clip
    # the finding jumps to the group figure
    (finding,) = data["findings"]
    assert finding["check_id"] == "gait-group" and finding["target"] == group["anchor"]


def test_positions_are_the_hand_known_pose(tmp_path, capsys):
    amp, vz = 0.05, 1.0
    glb = write_clips(tmp_path / "walk.glb", [gait_clip("walk", amplitude_m=amp, velocity_mps=(0.0, 0.0, vz))])
    out = tmp_path / "w.html"
    assert run_cli(["report", glb, "-o", str(out)], capsys)[0] == 0
    data = page_data(out.read_text(encoding="utf-8"))
    (clip,) = data["clips"]
    names = data["skeletons"][clip["skeleton"]]["names"]
    nb = len(names)
    t = np.asarray(clip["times"])
    assert clip["frames"] == 31 and t[-1] == pytest.approx(1.0)
    pos = np.asarray(clip["pos"]).reshape(len(t), nb, 3)
    h = amp * np.sin(2 * np.pi * t)
    lf = names.index("LeftFoot")
    expected = np.stack([np.full_like(t, 0.1), 0.1 + h, vz * t], axis=1)
    assert np.allclose(pos[:, lf], expected, atol=2e-4)
    # foot heights chart = the left foot's model Y; contacts = within 0.03 m of its lowest point
    # and rising or falling at most 0.1 m/s: |dh/dt| = 0.05·2π·|cos 2πt| is under 0.1 only
    # within 0.05 cycle of the trough at t = 0.75 (samples 0.7 … 0.8: 0.097 m/s at the edges,
    # 0.157 m/s one sample further out)
    left = clip["feet"]["left"]
    assert np.allclose(left["height"], 0.1 + h, atol=2e-4)
    height = 0.1 + h
    still = np.abs(amp * 2 * np.pi * np.cos(2 * np.pi * t)) <= 0.1
    assert left["stance"] == [int(x) for x in ((height - height.min() <= 0.03 + 1e-9) & still)]
    assert [i for i, x in enumerate(left["stance"]) if x] == [21, 22, 23, 24]
    # root speed: the root travels at 1 m/s along Z
    assert clip["speed"]["bone"] == "root"
    assert np.allclose(clip["speed"]["mps"], vz, atol=1e-3)


def test_report_findings_equal_lint(tmp_path, capsys):
    code_l, out_l, _ = run_cli(["--config", RING_CFG, "lint", "--format", "json", RING], capsys)
    lint = json.loads(out_l)
    out = tmp_path / "r.html"
    run_cli(["--config", RING_CFG, "report", RING, "-o", str(out)], capsys)
    data = page_data(out.read_text(encoding="utf-8"))
    assert {k: data["summary"][k] for k in lint["summary"]} == lint["summary"]
    assert [(f["check_id"], f["severity"]) for f in data["findings"]] == [
        (f["check_id"], f["severity"]) for fr in lint["files"] for f in fr["findings"]
    ]


def test_hostile_clip_name_cannot_escape_the_script(tmp_path, capsys):
    evil = "</script><script>alert(1)</script>&\u2028"
    glb = write_clips(tmp_path / "x.glb", [gait_clip(evil)])
    out = tmp_path / "x.html"
    assert run_cli(["report", glb, "-o", str(out)], capsys)[0] == 0
    text = out.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in text
    assert text.count("</script>") == 2  # the data block and the viewer
    assert page_data(text)["clips"][0]["name"] == evil


def test_clip_filter(tmp_path, capsys):
    glb = write_clips(tmp_path / "two.glb", [gait_clip("walk"), gait_clip("idle", amplitude_m=0.0)])
    out = tmp_path / "f.html"
    assert run_cli(["report", glb, "--clip", "idle", "-o", str(out)], capsys)[0] == 0
    data = page_data(out.read_text(encoding="utf-8"))
    shown = [c["name"] for c in data["clips"] if c["shown"]]
    assert shown == ["idle"]
    assert "pos" not in data["clips"][0]  # the hidden clip's arrays are dropped
    assert data["summary"]["clips"] == 2  # counts cover the whole document
    # a clip no file has: exit 2 naming the file and its clips, nothing written (as measure --clip)
    missing = tmp_path / "missing.html"
    code, out, err = run_cli(["report", glb, "--clip", "idel", "-o", str(missing)], capsys)
    assert (code, out) == (2, "") and not missing.exists()
    assert err == f"animsmith: {glb}: no clip named 'idel' (clips: 'walk', 'idle')\n"


def test_bad_input_and_bad_output_exit_2(tmp_path, capsys):
    code, out, err = run_cli(["report", str(tmp_path / "missing.glb"), "-o", str(tmp_path / "r.html")], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    bad = tmp_path / "bad.glb"
    bad.write_bytes(b"glTF\x02\x00\x00\x00garbage")
    code, out, err = run_cli(["report", str(bad), "-o", str(tmp_path / "r.html")], capsys)
    assert code == 2 and "bad.glb" in err and not (tmp_path / "r.html").exists()
    glb = write_clips(tmp_path / "ok.glb", [gait_clip("walk")])
    code, out, err = run_cli(["report", glb, "-o", str(tmp_path / "no" / "dir" / "r.html")], capsys)
    assert code == 2 and "r.html" in err and out == ""


def test_script_json_escapes():
    from animsmith.report.html import script_json

    s = script_json({"a": "</script>&<!--\u2028"})
    assert "<" not in s and ">" not in s and "&" not in s and "\u2028" not in s
    assert json.loads(s) == {"a": "</script>&<!--\u2028"}


def test_cross_file_group_members_have_their_clips(tmp_path, capsys):
    for name, off in (("a", 0.0), ("b", 0.5), ("c", 0.0)):
        write_clips(tmp_path / f"{name}.glb", [gait_clip(name, offset_cycles=off, velocity_mps=(0.0, 0.0, 1.0))])
    cfg = write_config(tmp_path / "animsmith.toml", '[gait_groups.g]\nclips = ["a.glb", "b.glb", "c.glb"]\n')
    out = tmp_path / "g.html"
    assert run_cli(["--config", cfg, "report", str(tmp_path), "-o", str(out)], capsys)[0] == 0
    data = page_data(out.read_text(encoding="utf-8"))
    (group,) = data["groups"]
    # anchors 0.75 / 0.25 / 0.75: circular mean atan2(−1, 0) = 0.75, b is half a cycle away
    assert group["mean"] == pytest.approx(0.75, abs=1e-3)
    assert group["outliers"] == ["b.glb"]
    for m in group["members"]:
        assert data["clips"][m["clip"]]["name"] == m["label"][0]
    assert data["findings"][0]["target"] == group["anchor"]


@pytest.mark.parametrize("name", ["khr_Fox.glb", "three_RobotExpressive.glb"])
def test_report_runner_matches_lint_on_real_files(name):
    """The report lints with its own per-file loop (to keep each clip's grid): it must not drift from lint."""
    from animsmith.config import default_contract
    from animsmith.lint import run as run_lint
    from animsmith.render.json import lint_json
    from animsmith.report.collect import collect

    path = os.path.join(ROOT, "tests", "data", name)
    contract = default_contract()
    data = collect([path], contract)
    assert lint_json(data.result) == lint_json(run_lint([path], contract))
    assert len(data.clips) == len(data.result.files[0].clip_names)


def test_stdout_names_a_hostile_output_path_on_one_line(tmp_path, capsys):
    glb = write_clips(tmp_path / "ok.glb", [gait_clip("walk")])
    out = tmp_path / "répört\nx.html"
    code, stdout, _ = run_cli(["report", glb, "-o", str(out)], capsys)
    assert code == 0 and out.exists()
    assert stdout.count("\n") == 1 and "répört\\u000ax.html" in stdout


def test_contacts_follow_authored_markers_like_foot_slide(tmp_path, capsys):
    from animsmith.core import contacts

    if not hasattr(contacts, "parse_contact_markers"):
        pytest.skip("authored contact markers not available in core.contacts")
    clip = gait_clip("walk")
    clip.extras = {
        "animsmith_contacts": {
            "version": 1,
            "feet": {"L": "LeftFoot"},
            "events": [{"leg": "L", "kind": "plant", "time_s": 0.2}, {"leg": "L", "kind": "lift", "time_s": 0.5}],
        }
    }
    glb = write_clips(tmp_path / "m.glb", [clip])
    out = tmp_path / "m.html"
    assert run_cli(["report", glb, "-o", str(out)], capsys)[0] == 0
    feet = page_data(out.read_text(encoding="utf-8"))["clips"][0]
    t = np.asarray(feet["times"])
    left, right = feet["feet"]["left"], feet["feet"]["right"]
    assert left["source"] == "authored" and right["source"] == "height"
    assert left["stance"] == [int(0.2 - 1e-6 <= x <= 0.5 + 1e-6) for x in t]
    h = 0.1 - 0.05 * np.sin(2 * np.pi * t)  # right foot height: antiphase of the left
    still = np.abs(0.05 * 2 * np.pi * np.cos(2 * np.pi * t)) <= 0.1  # vertical speed (m/s)
    assert right["stance"] == [int(x) for x in ((h - h.min() <= 0.03 + 1e-9) & still)]
    assert [i for i, x in enumerate(right["stance"]) if x] == [6, 7, 8, 9]  # t 0.2 … 0.3, trough 0.25


def test_long_clip_view_samples_only_the_shown_frames(tmp_path):
    """A clip longer than MAX_FRAMES: the view holds exactly the full grid's rows at the
    shown samples, but the full-skeleton grid is never built (memory follows the page)."""
    from animsmith.core.analysis import analyze_asset
    from animsmith.core.pose import sample_pose
    from animsmith.io.gltf import load_asset
    from animsmith.report.collect import MAX_FRAMES, clip_view, frame_indices

    glb = write_clips(tmp_path / "long.glb", [gait_clip("walk", frames=3001, velocity_mps=(0.0, 0.0, 1.0))])
    asset = load_asset(glb)
    roles, (analysis,) = analyze_asset(asset)
    view = clip_view(analysis, roles, 0.03, with_local=True)
    assert analysis.grid._full is None
    n = analysis.grid.frame_count
    idx = frame_indices(n)
    assert n == 3001 and view["frames"] == len(idx) <= MAX_FRAMES + 1
    full = sample_pose(asset.skeleton, analysis.clip, analysis.grid.times_s)
    np.testing.assert_array_equal(view["pos"], np.round(full.model_position_m[idx].reshape(-1), 4))
    np.testing.assert_array_equal(view["local"]["r"], np.round(full.local_rotation[idx].reshape(-1), 6))
    left = asset.skeleton.names.index("LeftFoot")
    np.testing.assert_array_equal(view["feet"]["left"]["height"], np.round(full.model_position_m[idx, left, 1], 4))


def test_placeholder_text_in_a_file_name_is_not_replaced(tmp_path, capsys):
    """Template placeholders are filled in one pass: a file named with "@@DATA@@" shows
    that text in the title, and the data block appears once."""
    folder = tmp_path / "x@@DATA@@y"
    folder.mkdir()
    glb = write_clips(folder / "w.glb", [gait_clip("walk")])
    out = tmp_path / "r.html"
    assert run_cli(["report", glb, "-o", str(out)], capsys)[0] == 0
    text = out.read_text(encoding="utf-8")
    assert text.count('id="report-data"') == 1 and text.count('"generator"') == 1 and "x@@DATA@@y" in text
    assert page_data(text)["files"][0]["path"] == glb


def test_local_poses_only_for_the_member_lint_resolves(tmp_path, capsys):
    """A bare member name is the first linted file's clip of that name: only that clip
    carries local poses for the pair player."""
    paths = [write_clips(tmp_path / f"{n}.glb", [gait_clip("walk")]) for n in ("a", "b", "c")]
    cfg = write_config(tmp_path / "g.toml", '[gait_groups.g]\nclips = ["walk", "b.glb"]\n')
    out = tmp_path / "r.html"
    assert run_cli(["--config", cfg, "report", *paths, "-o", str(out)], capsys)[0] == 0
    clips = page_data(out.read_text(encoding="utf-8"))["clips"]
    assert ["local" in c for c in clips] == [True, True, False]  # a: bare "walk"; b: "b.glb"; c: none


def test_sync_group_findings_do_not_jump_to_a_gait_figure(tmp_path, capsys):
    glb = write_clips(tmp_path / "s.glb", [gait_clip("walk", frames=31), gait_clip("run", frames=31, duration_s=1.5)])
    cfg = write_config(tmp_path / "s.toml", '[gait_groups.ring]\nclips = ["walk", "run"]\n'
                       '[sync_groups.ring]\nclips = ["walk", "run"]\n')
    out = tmp_path / "r.html"
    assert run_cli(["--config", cfg, "report", glb, "-o", str(out)], capsys)[0] == 0
    data = page_data(out.read_text(encoding="utf-8"))
    sync = [f for f in data["findings"] if f["check_id"] == "sync-group"]
    assert sync and all(not f["target"].startswith("group") for f in sync)


def _report(tmp_path, capsys, cfg_text, paths, *extra):
    cfg = write_config(tmp_path / "g.toml", cfg_text)
    out = tmp_path / "r.html"
    assert run_cli(["--config", cfg, "report", *map(str, paths), "-o", str(out), *extra], capsys)[0] == 0
    return page_data(out.read_text(encoding="utf-8"))


def test_a_group_note_jumps_to_the_clip_it_says_is_used(tmp_path, capsys):
    """x.glb and y.glb both hold 'walk'; the sync group's findings attach to y.glb (its first
    member 'run' is there); the note says x.glb's walk is used, so it must open x.glb's walk."""
    x = write_clips(tmp_path / "x.glb", [gait_clip("walk")])
    y = write_clips(tmp_path / "y.glb", [gait_clip("run"), gait_clip("walk")])
    data = _report(tmp_path, capsys, '[sync_groups.s]\nclips = ["run", "walk"]\n', [x, y])
    # argument order x, y: 'walk' is x.glb's; the group's findings attach to y.glb ('run')
    note = [f for f in data["findings"] if f["check_id"] == "sync-group" and f["severity"] == "note"]
    assert len(note) == 1
    target = note[0]["target"]
    clip = next(c for c in data["clips"] if c.get("anchor") == target)
    assert clip["name"] == "walk" and data["files"][clip["file"]]["path"] == str(x)


def test_group_figure_counts_a_duplicate_once_and_shows_noise_and_strides(tmp_path, capsys):
    glb = write_clips(tmp_path / "g.glb", [gait_clip("walk"), gait_clip("walk2", cycles=2),
                                            gait_clip("tiny", amplitude_m=1e-4)])
    data = _report(tmp_path, capsys, '[gait_groups.g]\nclips = ["walk", "walk", "walk2", "tiny"]\n', [glb])
    members = data["groups"][0]["members"]
    assert [m["label"] for m in members] == ["walk", "walk2", "tiny"]
    assert [m["status"] for m in members] == ["measured", "measured", "excluded"]
    assert [m["cycles"] for m in members[:2]] == [1, 2]
    assert data["groups"][0]["judged"] is True
    data = _report(tmp_path, capsys, '[gait_groups.g]\nclips = ["walk", "walk2"]\n', [glb], "--select", "nan")
    assert data["groups"][0]["judged"] is False


def test_the_page_draws_at_most_its_budget_of_bone_frames(tmp_path, capsys, monkeypatch):
    """Curves are drawn until the page holds MAX_PAGE_CELLS bone-frames (shown samples x bones);
    later clips are listed with the reason and the --clip command that draws them (a file of
    many duplicated clips made the page, and its memory, grow without a cap)."""
    from animsmith.report import collect as collect_mod

    clips = [gait_clip(f"c{i}") for i in range(5)]
    path = write_clips(tmp_path / "many.glb", clips)
    code, _, err = run_cli(["report", path, "-o", str(tmp_path / "all.html")], capsys)
    assert code == 0, err
    full = page_data(open(tmp_path / "all.html").read())
    per_clip = [c["frames"] * len(full["skeletons"][c["skeleton"]]["names"]) for c in full["clips"]]
    monkeypatch.setattr(collect_mod, "MAX_PAGE_CELLS", per_clip[0] * 2 + 1)
    code, _, err = run_cli(["report", path, "-o", str(tmp_path / "budget.html")], capsys)
    assert code == 0, err
    page = page_data(open(tmp_path / "budget.html").read())
    drawn = [c for c in page["clips"] if "pos" in c]
    assert [c["name"] for c in drawn] == ["c0", "c1"]
    for c in page["clips"][2:]:
        assert "pos" not in c and c["unavailable"].startswith(f"not drawn: the page already holds {2 * per_clip[0]:,} bone-frames")
        assert f"animsmith report --clip {c['name']}" in c["unavailable"]


def test_the_clip_asked_for_is_drawn_whatever_the_budget(tmp_path, capsys, monkeypatch):
    """`report --clip NAME` draws NAME even when earlier clips (gait members) filled the page
    budget: the hint of an undrawn clip is that very command, so it must work."""
    from animsmith.report import collect as collect_mod

    path = write_clips(tmp_path / "many.glb", [gait_clip("g1"), gait_clip("g2"), gait_clip("x y")])
    cfg = write_config(tmp_path / "g.toml", '[gait_groups.g]\nclips = ["g1", "g2"]\n')
    monkeypatch.setattr(collect_mod, "MAX_PAGE_CELLS", 1)
    code, _, err = run_cli(["--config", cfg, "report", path, "--clip", "x y", "-o", str(tmp_path / "x.html")], capsys)
    assert code == 0, err
    clips = {c["name"]: c for c in page_data(open(tmp_path / "x.html").read())["clips"]}
    assert "pos" in clips["x y"]
    assert "animsmith report --clip g1" in clips["g1"]["unavailable"]
    code, _, err = run_cli(["report", path, "-o", str(tmp_path / "all.html")], capsys)
    hint = {c["name"]: c for c in page_data(open(tmp_path / "all.html").read())["clips"]}["x y"]["unavailable"]
    assert hint.endswith("`animsmith report --clip 'x y'`")  # quoted for a shell


def test_a_failed_report_removes_the_old_page(tmp_path, capsys):
    """A report that stops with exit 2 once its inputs are known (a corrupt file, a --clip no
    file has) leaves no page: an old one from an earlier run would pass for this run's."""
    path = write_clips(tmp_path / "a.glb", [gait_clip("walk")])
    page = tmp_path / "r.html"
    code, _, err = run_cli(["report", path, "-o", str(page)], capsys)
    assert code == 0 and page.exists(), err
    code, _, err = run_cli(["report", path, "--clip", "nope", "-o", str(page)], capsys)
    assert code == 2 and not page.exists() and "no clip named 'nope'" in err
    run_cli(["report", path, "-o", str(page)], capsys)
    with open(path, "r+b") as fh:
        fh.truncate(40)
    code, _, err = run_cli(["report", path, "-o", str(page)], capsys)
    assert code == 2 and not page.exists(), err


def test_group_member_curves_are_thinned_to_two_thousand_points():
    """A member's L−R signal of n samples is resampled onto at most 2,000 equally spaced samples
    at i·n/2000 (the page maps index/length to phase, so the curve is the same curve): a
    100,000-frame member was 778 KB of the page."""
    import numpy as np

    from animsmith.report.html import thinned_signal

    n = 100_000
    phase = np.arange(n) / n
    thin = np.asarray(thinned_signal(np.sin(2 * np.pi * phase)))
    assert thin.shape == (2000,)
    assert np.max(np.abs(thin - np.sin(2 * np.pi * np.arange(2000) / 2000))) < 1e-6
    short = [0.0, 0.5, -0.5]
    assert thinned_signal(short) is short
    # 500 strides of 30 samples each: 64 points a stride are kept (2,000 in all left 4 a stride)
    strides = np.sin(2 * np.pi * np.arange(15_000) / 30)
    assert thinned_signal(strides, 500) is strides
    many = np.sin(2 * np.pi * np.arange(100 * 500) / 100)  # 500 strides of 100 samples
    folded = np.asarray(thinned_signal(many, 500))
    assert folded.shape == (32_000,)
    assert np.max(np.abs(folded - np.sin(2 * np.pi * np.arange(32_000) / 64))) < 1e-3


def test_docs_report_sample_is_what_the_ring_prints(tmp_path, capsys, monkeypatch):
    """docs/report.md's sample run (`$ animsmith ... report ... -o ring.html` and its `wrote`
    line) is what the command prints on the shipped ring today (size included)."""
    with open(os.path.join(ROOT, "docs", "report.md"), encoding="utf-8") as fh:
        text = fh.read()
    m = re.search(r"^\$ animsmith (.*)\n(wrote .*)$", text, re.MULTILINE)
    assert m, "docs/report.md has no sample run"
    monkeypatch.chdir(ROOT)
    argv = m.group(1).split()
    out = tmp_path / "ring.html"
    argv[argv.index("-o") + 1] = str(out)
    code, stdout, _ = run_cli(argv, capsys)
    assert code == 0 and stdout.strip() == m.group(2).replace("ring.html", str(out), 1)
