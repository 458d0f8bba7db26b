"""sync-group: a declared same-time group whose members do not share one timeline.

Contracts and lint runs: tests/support/group_support.py.
"""

from __future__ import annotations

import pytest

from builders import gait_clip
from group_support import sync_config, lint_json, by_check


def test_sync_group_clean_for_matching_members(tmp_path, capsys):
    clips = [gait_clip("a"), gait_clip("b", offset_cycles=0.1)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"]))
    assert by_check(doc, "sync-group") == ([], []) and code == 0


def test_sync_group_duration_frames_and_fps(tmp_path, capsys):
    # b: 1.1 s with 31 keys -> duration spread 0.1 s and fps 30 vs 27.27
    clips = [gait_clip("a"), gait_clip("b", duration_s=1.1)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"]))
    findings, _ = by_check(doc, "sync-group")
    assert code == 1
    msgs = [f["message"] for f in findings]
    assert any("duration spread" in m for m in msgs) and any("fps spread" in m for m in msgs)
    dur = next(f for f in findings if "duration spread" in f["message"])
    assert dur["measured"] == pytest.approx(0.1, abs=1e-6) and dur["expected"] == 0.001
    fps = next(f for f in findings if "fps spread" in f["message"])
    assert fps["measured"] == pytest.approx(30 - 30 / 1.1, abs=1e-4)
    # 41 keys over 1 s: frame count spread 10
    clips = [gait_clip("a"), gait_clip("b", frames=41)]
    _, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"]))
    findings, _ = by_check(doc, "sync-group")
    frames = [f for f in findings if "frame count spread" in f["message"]]
    assert len(frames) == 1 and frames[0]["measured"] == 10


def declared_fps_config(fps_a, fps_b):
    return (
        '[sync_groups.ring]\nclips = ["a", "b"]\nmax_duration_delta_s = 0.001\nmax_frame_count_delta = 10\n'
        f"max_fps_delta = 0.01\n[clips.a]\nfps = {fps_a!r}\n[clips.b]\nfps = {fps_b!r}\n"
    )


def test_sync_group_compares_declared_fps_over_authored_rates(tmp_path, capsys):
    # both members: 31 keys over 1 s (authored 30 fps); declared 30 and 24 -> fps spread exactly 6
    clips = [gait_clip("a"), gait_clip("b")]
    _, doc = lint_json(tmp_path, capsys, clips, declared_fps_config(30, 24))
    fps = [f for f in by_check(doc, "sync-group")[0] if "fps spread" in f["message"]]
    assert len(fps) == 1 and fps[0]["measured"] == 6.0 and fps[0]["expected"] == 0.01
    assert sorted(m["fps"] for m in fps[0]["members"]) == [24.0, 30.0]


def test_sync_group_equal_declared_fps_hides_different_authored_rates(tmp_path, capsys):
    # authored 30 fps (31 keys / 1 s) and 40 fps (41 keys / 1 s), both declared 30: no fps finding
    clips = [gait_clip("a"), gait_clip("b", frames=41)]
    _, doc = lint_json(tmp_path, capsys, clips, declared_fps_config(30, 30))
    # (frame-count spread 10 is at its cap of 10; durations and endpoint modes agree)
    assert by_check(doc, "sync-group") == ([], [])


def test_sync_group_endpoint_modes_must_agree(tmp_path, capsys):
    # a closes its cycle (last key = first pose); b is an open cycle (30 unique keys)
    clips = [gait_clip("a", frames=30, duration_s=29 / 30), _open_cycle("b", 0.05)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "b"]))
    findings, _ = by_check(doc, "sync-group")
    assert [f["measured"] for f in findings] == ["mixed"] and code == 1
    assert "[a=duplicated_endpoint, b=open]" in findings[0]["message"]
    modes = doc["files"][0]["measurements"]["clips"]
    assert (modes["a"]["loop_endpoint_mode"], modes["b"]["loop_endpoint_mode"]) == ("duplicated_endpoint", "non_closing")


def _fbx_lint(tmp_path, capsys, clips, config, name):
    """lint --format json of ``clips`` on the FBX2glTF-shaped rig (static RootNode, hips root motion)."""
    from builders import fbx2gltf_asset
    from lint_support import run_cli, validate_json, write_config

    from animsmith.io.write import write_glb

    glb = str(tmp_path / name)
    write_glb(fbx2gltf_asset(*clips), glb)
    cfg = write_config(tmp_path / "animsmith.toml", config)
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", "--select", "sync-group", glb], capsys)
    assert err == ""
    return code, validate_json(out)


@pytest.mark.parametrize("owner", [None, "animation"])
def test_a_root_motion_loop_whose_last_key_closes_its_cycle_shares_the_in_place_convention(tmp_path, capsys, owner):
    """A Mixamo ring with "in place" on for one direction and off for another: both exported
    with the closing key. The travelling run's last key is its first pose carried one cycle
    along (its root ends where the next cycle starts), so it closes its cycle exactly as the
    in-place one does (loop-closure judges it closed); it was called "open" and the group
    failed for "mixing" conventions it does not mix. measure's endpoint mode still says where
    the root ends (non_closing)."""
    from builders import fbx2gltf_walk

    extra = "" if owner is None else f'[clips."run_*"]\nmovement_owner_xz = "{owner}"\n'
    config = extra + sync_config(["run_fwd", "run_left"])
    clips = [fbx2gltf_walk("run_fwd", travel_mps=3.0), fbx2gltf_walk("run_left", travel_mps=0.0)]
    code, doc = _fbx_lint(tmp_path, capsys, clips, config, "ring.glb")
    modes = doc["files"][0]["measurements"]["clips"]
    assert (modes["run_fwd"]["loop_endpoint_mode"], modes["run_left"]["loop_endpoint_mode"]) == (
        "non_closing", "duplicated_endpoint")  # the premise: measure's numbers are unchanged
    assert by_check(doc, "sync-group") == ([], []) and code == 0
    # an open root-motion cycle (the last key one frame before the first pose) next to a closed one does mix
    clips = [fbx2gltf_walk("run_fwd", frames=30, travel_mps=3.0, open_cycle=True),
             fbx2gltf_walk("run_left", frames=30, travel_mps=0.0)]
    code, doc = _fbx_lint(tmp_path, capsys, clips, config, "mixed.glb")
    findings, _ = by_check(doc, "sync-group")
    assert [f["measured"] for f in findings] == ["mixed"] and code == 1
    assert "[run_fwd=open, run_left=duplicated_endpoint]" in findings[0]["message"]


def test_sync_group_missing_member(tmp_path, capsys):
    clips = [gait_clip("a")]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["a", "gone"]))
    findings, gaps = by_check(doc, "sync-group")
    assert code == 1 and [f["clip"] for f in findings] == ["gone"]
    assert [g["code"] for g in gaps] == ["insufficient_measurable_members"]


def sync_caps_config(duration_cap, frame_cap, fps_cap):
    return (
        '[sync_groups.ring]\nclips = ["a", "b"]\n'
        f"max_duration_delta_s = {duration_cap!r}\nmax_frame_count_delta = {frame_cap!r}\nmax_fps_delta = {fps_cap!r}\n"
    )


def test_sync_group_caps_pass_exactly_at_and_trip_just_past(tmp_path, capsys):
    # a: 33 keys over 1 s, b: 41 keys over 1.25 s (dyadic: exact in float32): duration
    # spread exactly 0.25 s, frame-count spread exactly 8, both at (41 − 1)/1.25 = 32 fps
    clips = [gait_clip("a", frames=33), gait_clip("b", frames=41, duration_s=1.25)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_caps_config(0.25, 8, 0.0))
    assert by_check(doc, "sync-group") == ([], []) and code == 0
    # "at the cap" allows 1e-6 (docs/checks.md: float32 key data); 2e-6 under it trips
    code, doc = lint_json(tmp_path, capsys, clips, sync_caps_config(0.25 - 2e-6, 7, 0.0))
    findings, _ = by_check(doc, "sync-group")
    assert code == 1
    assert sorted((f["measured"], f["expected"]) for f in findings) == [(0.25, 0.25 - 2e-6), (8, 7)]
    code, doc = lint_json(tmp_path, capsys, clips, sync_caps_config(0.25 - 0.5e-6, 8, 0.0))
    assert by_check(doc, "sync-group") == ([], []) and code == 0


def _open_cycle(name, amp, frames=30):
    """An open cycle: 30 unique keys of one stride at 30 fps (the wrap is one normal step)."""
    import numpy as np

    from animsmith.model import Channel, Clip

    t = np.arange(frames) / 30.0
    h = amp * np.sin(2 * np.pi * t)
    lf = np.stack([np.full_like(t, 0.1), -0.9 + h, 0 * t], 1)
    rf = np.stack([np.full_like(t, -0.1), -0.9 - h, 0 * t], 1)
    return Clip(name=name, channels=[Channel.make(0, "translation", t, np.zeros((frames, 3))),
                                     Channel.make(2, "translation", t, lf), Channel.make(3, "translation", t, rf)])


def test_sync_group_open_cycles_share_a_convention_whatever_their_step(tmp_path, capsys):
    """Small steps wrap within measure's 1 cm (unique_cycle), big ones do not (non_closing):
    both are open cycles, one convention; a duplicated endpoint next to them is not."""
    small, big = _open_cycle("small", 0.01), _open_cycle("big", 0.05)
    code, doc = lint_json(tmp_path, capsys, [small, big], sync_config(["small", "big"]), "--select", "sync-group")
    modes = {n: doc["files"][0]["measurements"]["clips"][n]["loop_endpoint_mode"] for n in ("small", "big")}
    assert modes == {"small": "unique_cycle", "big": "non_closing"}  # the premise
    assert by_check(doc, "sync-group") == ([], []) and code == 0
    dup = gait_clip("dup")  # 31 keys over 1 s, the last repeating the first pose
    code, doc = lint_json(tmp_path, capsys, [small, dup], sync_config(["small", "dup"]),
                          "--select", "sync-group", name="mixed.glb")
    convention = [f for f in by_check(doc, "sync-group")[0] if "endpoint conventions" in f["message"]]
    assert len(convention) == 1 and "[small=open, dup=duplicated_endpoint]" in convention[0]["message"]


def test_sync_group_duration_cap_allows_float32_rounding_of_long_clips(tmp_path, capsys):
    # 40 s and 40.005 s are 0.005 apart as authored; float32 stores 40.005 as 40.005001068 (a step
    # is 3.8e-6 at 40 s), so the measured spread is 0.000001068 over a 0.005 cap: at the cap, passes
    import numpy as np

    assert float(np.float32(40.005)) - 40.0 > 0.005 + 1e-6  # the premise
    clips = [gait_clip("a", duration_s=40.0), gait_clip("b", duration_s=40.005)]
    cfg = sync_config(["a", "b"]).replace("max_duration_delta_s = 0.001", "max_duration_delta_s = 0.005")
    code, doc = lint_json(tmp_path, capsys, clips, cfg, "--select", "sync-group")
    assert by_check(doc, "sync-group") == ([], []) and code == 0
    clips = [gait_clip("a", duration_s=40.0), gait_clip("b", duration_s=40.0051)]
    code, doc = lint_json(tmp_path, capsys, clips, cfg, "--select", "sync-group")
    assert code == 1 and "duration spread" in by_check(doc, "sync-group")[0][0]["message"]


def test_sync_group_counts_a_member_listed_twice_once(tmp_path, capsys):
    clips = [gait_clip("walk"), gait_clip("run")]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["walk", "walk"]), "--select", "sync-group")
    findings, gaps = by_check(doc, "sync-group")
    assert findings == [] and [g["code"] for g in gaps] == ["insufficient_measurable_members"]
    code, doc = lint_json(tmp_path, capsys, clips, sync_config(["nope", "nope", "run"]), "--select", "sync-group")
    findings, _ = by_check(doc, "sync-group")
    assert [f["measured"] for f in findings] == ["missing"]


def test_sync_group_fps_spread_allows_float32_durations(tmp_path, capsys):
    # 31 keys over 1 s and 242 keys over 241/30 s are both 30 fps as authored; (keys − 1) over a
    # float32 duration reads 30.0000017 for the second: at a cap of 0 that is not a spread
    import numpy as np

    long_d = 241 / 30
    assert abs(241 / float(np.float32(long_d)) - 30.0) > 1e-6  # the premise
    clips = [gait_clip("a"), gait_clip("b", frames=242, duration_s=long_d)]
    cfg = sync_config(["a", "b"]).replace("max_fps_delta = 0.01", "max_fps_delta = 0.0").replace(
        "max_duration_delta_s = 0.001", "max_duration_delta_s = 10.0").replace("max_frame_count_delta = 0", "max_frame_count_delta = 300")
    code, doc = lint_json(tmp_path, capsys, clips, cfg, "--select", "sync-group")
    assert [f for f in by_check(doc, "sync-group")[0] if "fps" in f["message"]] == []
