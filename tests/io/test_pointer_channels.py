"""Channels without target.node (KHR_animation_pointer) are skipped, counted, and shown by inspect."""

import json

from click.testing import CliRunner

from gltf_raw import minimal
from animsmith.cli import cli
from animsmith.io.gltf import load_asset_bytes


def _with_pointer_channels(count):
    raw, ix = minimal()
    anim = raw.doc["animations"][ix["animation"]]
    sampler = anim["channels"][0]["sampler"]
    for k in range(count):
        anim["channels"].append(
            {
                "sampler": sampler,
                "target": {
                    "path": "pointer",
                    "extensions": {"KHR_animation_pointer": {"pointer": f"/materials/{k}/emissiveFactor"}},
                },
            }
        )
    return raw.glb()


def test_loader_counts_pointer_channels_and_keeps_node_channels():
    asset = load_asset_bytes(_with_pointer_channels(2), "p.glb")
    clip = asset.clips[0]
    assert clip.pointer_channel_count == 2
    assert len(clip.channels) == 1 and clip.channels[0].path == "translation"
    plain = load_asset_bytes(_with_pointer_channels(0), "p.glb")
    assert plain.clips[0].pointer_channel_count == 0


def test_inspect_shows_pointer_channels(tmp_path):
    path = tmp_path / "p.glb"
    path.write_bytes(_with_pointer_channels(3))
    res = CliRunner().invoke(cli, ["inspect", str(path), "--format", "json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    clip = json.loads(res.output)["clips"][0]
    assert clip["pointer_channel_count"] == 3
    assert clip["channel_count"] == 1
    res = CliRunner().invoke(cli, ["inspect", str(path)], catch_exceptions=False)
    assert res.exit_code == 0
    assert "pointers" in res.output
    row = [line for line in res.output.splitlines() if line.strip().startswith("Move")][0]
    assert row.split()[-2] == "3" and row.split()[-1] == "-"  # pointers, then the travel bone (none)
