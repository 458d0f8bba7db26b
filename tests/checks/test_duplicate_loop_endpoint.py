"""duplicate-loop-endpoint: a declared loop whose last key repeats its first pose.

Fixtures: tests/support/loop_clips.py.
"""

from __future__ import annotations

from checks_support import run_check
from loop_clips import LOOP, guard, walk


def test_duplicate_endpoint_inclusive_cycle_warns():
    findings, gaps = run_check("duplicate-loop-endpoint", walk(1.0), expect=LOOP)
    assert gaps == [] and len(findings) == 1
    f = findings[0]
    assert (f.severity, f.clip, f.time_s, f.measured, f.expected) == ("warning", "walk", 1.0, 1, 0)
    assert "1.000000s -> 0.968750s" in f.message


def test_open_cycle_is_not_a_duplicate():
    assert run_check("duplicate-loop-endpoint", walk(31 / 32, keys=32), expect=LOOP) == ([], [])
    assert run_check("duplicate-loop-endpoint", walk(0.75), expect=LOOP) == ([], [])


def test_duplicate_endpoint_tolerance():
    # a root translation (1 unit = 1 m): 2^-14 m (0.061 mm) from the first key is still a repeat of
    # it; 2^-13 m (0.122 mm) is not (tolerance 0.1 mm in model space)
    assert len(run_check("duplicate-loop-endpoint", guard(x=(0, 0.25, 0.5, 0.25, 2.0**-14)), expect=LOOP)[0]) == 1
    assert run_check("duplicate-loop-endpoint", guard(x=(0, 0.25, 0.5, 0.25, 2.0**-13)), expect=LOOP)[0] == []
    # a clip where nothing moves is not a duplicated endpoint (that is constant-track's business)
    assert run_check("duplicate-loop-endpoint", guard(), expect=LOOP) == ([], [])


def test_duplicate_endpoint_gap_on_bad_times():
    findings, gaps = run_check("duplicate-loop-endpoint", guard(times=[0, 0.5, 0.25, 0.75, 1.0]), expect=LOOP)
    assert findings == [] and [(g.code, g.scope) for g in gaps] == [("measurement_unavailable", "duplicate_loop_endpoint")]


def test_a_root_motion_loop_with_its_closing_frame_warns_like_an_in_place_one():
    """An FBX2glTF-shaped walk: the hips carry 1.2 m/s of travel, every other channel's last
    key (u = 1) is its first key's pose (u = 0), the hips' one stride (1.2 m/s × 1 s) on. A
    frame-stepping runtime shows that pose twice, as for an in-place loop; 31 keys at 30 fps,
    so the open cycle ends at 29/30 s. Declared root motion or not (the hips move faster than
    0.05 m/s), the travel bone's own keys take no part; the open export is no duplicate."""
    from builders import fbx2gltf_asset, fbx2gltf_walk

    for expect in ({"loop": True, "movement_owner_xz": "animation"}, {"loop": True}):
        findings, gaps = run_check("duplicate-loop-endpoint", fbx2gltf_asset(fbx2gltf_walk()), expect=expect)
        assert gaps == [] and len(findings) == 1
        f = findings[0]
        assert (f.time_s, f.measured, f.expected) == (1.0, 1, 0)
        assert "the last key of 5 channel(s) besides the travel bone 'mixamorig:Hips'" in f.message
        assert "1.000000s -> 0.966667s" in f.message
    assert run_check("duplicate-loop-endpoint", fbx2gltf_asset(fbx2gltf_walk(open_cycle=True)), expect=LOOP) == ([], [])
    # declared in place, the same clip's hips end 1.2 m from where they began: no repeat
    gameplay = {"loop": True, "movement_owner_xz": "gameplay"}
    assert run_check("duplicate-loop-endpoint", fbx2gltf_asset(fbx2gltf_walk()), expect=gameplay) == ([], [])
