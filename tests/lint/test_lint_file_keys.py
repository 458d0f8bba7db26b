"""`[clips."file.glb"]` and `[clips."file.glb#clip"]` in a lint run: Mixamo downloads through
FBX2glTF are one file per animation and every clip is named 'mixamo.com', so a key naming the
file is the only way to give one direction of a ring its own speed pin. `measure` reads the
same entry for the same file.

The walks are builders.fbx2gltf_walk: the hips travel along +Z at exactly ``travel_mps`` over
31 keys at 30 fps (1 s), so the measured root-motion speed is the authored one.
"""

from __future__ import annotations

import json

import pytest

from builders import fbx2gltf_asset, fbx2gltf_walk, gait_clip
from lint_support import run_cli, validate_json, write_clips, write_config

from animsmith.io.write import write_glb

#: file -> authored hips travel (m/s): three walks and a run, all clips 'mixamo.com'
RING = {"walk_fwd.glb": 1.2, "run_fwd.glb": 3.0, "walk_left.glb": 1.2, "walk_right.glb": 1.2}

#: the contract sits in its own folder: file keys are relative to it, as group members are
CONTRACT = """
[clips."mixamo.com"]
loop = true
fps = 30
speed_mps = 1.2
[clips."../anims/run_fwd.glb"]
speed_mps = 3.0
[clips."../anims/walk_left.glb#mixamo.com"]
speed_mps = 1.5
"""


def mixamo_ring(tmp_path):
    anims = tmp_path / "anims"
    anims.mkdir()
    for name, speed in RING.items():
        write_glb(fbx2gltf_asset(fbx2gltf_walk("mixamo.com", travel_mps=speed)), str(anims / name))
    (tmp_path / "config").mkdir()
    return anims, write_config(tmp_path / "config" / "ring.toml", CONTRACT)


def speed_findings(doc):
    return {(fr["path"], f["clip"]): f for fr in doc["files"] for f in fr["findings"] if f["check_id"] == "root-motion-speed"}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_per_file_pin_fails_exactly_the_file_authored_at_another_speed(tmp_path, capsys, monkeypatch, jobs):
    """walk_left is pinned to 1.5 m/s by its file key but walks 1.2: the one error, with both
    numbers. run_fwd runs 3.0 and its file key pins 3.0: it passes, where the shared
    'mixamo.com' pin (1.2) alone failed it. The walks meet the shared pin."""
    anims, cfg = mixamo_ring(tmp_path)
    monkeypatch.chdir(anims)  # the run names the files from another folder than the contract's
    code, out, err = run_cli(["--config", cfg, "lint", "--format", "json", "--jobs", jobs,
                              "--select", "root-motion-speed", *RING], capsys)
    assert err == "" and code == 1
    found = speed_findings(validate_json(out))
    assert list(found) == [("walk_left.glb", "mixamo.com")]
    f = found["walk_left.glb", "mixamo.com"]
    assert f["measured"] == pytest.approx(1.2, abs=1e-5) and f["expected"] == 1.5
    assert "measured root-motion speed 1.20 m/s disagrees with the declared 1.50 ± 0.10 m/s" in f["message"]


def test_without_the_file_keys_the_shared_pin_judges_every_file(tmp_path, capsys):
    """The same ring against the 'mixamo.com' entry alone: the run is the one that fails."""
    anims, _ = mixamo_ring(tmp_path)
    cfg = write_config(tmp_path / "config" / "shared.toml", CONTRACT.split('[clips."../anims/run_fwd.glb"]')[0])
    code, out, _ = run_cli(["--config", cfg, "lint", "--format", "json", "--select", "root-motion-speed",
                            *(str(anims / n) for n in RING)], capsys)
    found = speed_findings(validate_json(out))
    assert code == 1 and [clip for _, clip in found] == ["mixamo.com"]
    [(path, _)] = found
    assert path.endswith("run_fwd.glb") and found[path, "mixamo.com"]["measured"] == pytest.approx(3.0, abs=1e-5)


def test_measure_and_lint_read_the_same_file_key(tmp_path, capsys):
    """Two in-place Mixamo walks driven by the game: 'mixamo.com' pins 1.0 m/s, b.glb's file key
    1.6. lint's pinned travel table and measure's treadmill speed give each file its own pin."""
    for name in ("a.glb", "b.glb"):
        write_clips(tmp_path / name, [gait_clip("mixamo.com")])
    cfg = write_config(tmp_path / "animsmith.toml", (
        '[clips."mixamo.com"]\nspeed_mps = 1.0\nmovement_owner_xz = "gameplay"\n'
        '[clips."b.glb"]\nspeed_mps = 1.6\n'
        '[gait_groups.ring]\nclips = ["a.glb", "b.glb"]\ntravel_policy = "pinned"\n'
    ))
    paths = [str(tmp_path / "a.glb"), str(tmp_path / "b.glb")]
    _, out, err = run_cli(["--config", cfg, "lint", "--format", "json", *paths], capsys)
    assert err == ""
    travel = validate_json(out)["files"][0]["measurements"]["groups"]["ring"]["travel"]
    assert {m["member"]: m["speed_pin_mps"] for m in travel["members"]} == {"a.glb": 1.0, "b.glb": 1.6}
    _, out, err = run_cli(["--config", cfg, "lint", "--format", "json", paths[0]], capsys)  # b.glb loaded as a member only
    travel = validate_json(out)["files"][0]["measurements"]["groups"]["ring"]["travel"]
    assert err == "" and {m["member"]: m["speed_pin_mps"] for m in travel["members"]} == {"a.glb": 1.0, "b.glb": 1.6}
    code, out, err = run_cli(["--config", cfg, "measure", "--format", "json", *paths], capsys)
    assert code == 0 and err == ""
    measured = {f["path"]: f["clips"][0]["foot_skate_ground_mps"] for f in json.loads(out)["files"]}
    assert measured == {paths[0]: 1.0, paths[1]: 1.6}
