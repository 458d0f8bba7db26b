"""Per-channel key-time accessors (three.js GLTFExporter, COLLADA2GLTF) with equal content
load as one shared array per distinct content, and lint and measure the same as a file
whose channels share one accessor."""

from __future__ import annotations

import json
import struct

import numpy as np

from animsmith.io.gltf import load_asset_bytes
from animsmith.io.write import asset_to_glb
from builders import biped_asset, gait_clip
from gltf_raw import RawGltf, pack_glb
from lint_support import run_cli


def one_accessor_per_sampler(glb: bytes) -> bytes:
    """Rewrite a GLB so no two samplers share an input accessor (each gets a copy of the bytes)."""
    (jlen,) = struct.unpack_from("<I", glb, 12)
    doc = json.loads(glb[20 : 20 + jlen])
    (blen,) = struct.unpack_from("<I", glb, 20 + jlen)
    blob = bytearray(glb[28 + jlen : 28 + jlen + blen])
    for anim in doc["animations"]:
        seen = set()
        for s in anim["samplers"]:
            if s["input"] in seen:
                acc = dict(doc["accessors"][s["input"]])
                view = dict(doc["bufferViews"][acc["bufferView"]])
                data = bytes(blob[view.get("byteOffset", 0) : view.get("byteOffset", 0) + view["byteLength"]])
                blob.extend(b"\0" * (-len(blob) % 4))
                view["byteOffset"] = len(blob)
                blob.extend(data)
                doc["bufferViews"].append(view)
                acc["bufferView"] = len(doc["bufferViews"]) - 1
                doc["accessors"].append(acc)
                s["input"] = len(doc["accessors"]) - 1
            seen.add(s["input"])
    blob.extend(b"\0" * (-len(blob) % 4))
    doc["buffers"][0]["byteLength"] = len(blob)
    return pack_glb(json.dumps(doc).encode(), bytes(blob))


def _clips():
    return [
        gait_clip("walk", frames=31, velocity_mps=(0, 0, 1.2)),
        gait_clip("walk_late", frames=31, offset_cycles=0.25, velocity_mps=(0, 0, 1.2)),
        gait_clip("idle", frames=46, duration_s=1.5),
    ]


def test_equal_key_times_load_as_one_array():
    shared = asset_to_glb(biped_asset(_clips()))
    split = one_accessor_per_sampler(shared)
    a = load_asset_bytes(split, "split.glb")
    inputs = {ch.input_accessor for clip in a.clips for ch in clip.channels}
    assert len(inputs) == 9  # 3 clips x 3 channels, each its own accessor in the file
    for clip in a.clips:
        assert len(clip.distinct_times()) == 1
        assert len({ch.input_accessor for ch in clip.channels}) == 3  # source indices kept
    # walk and walk_late hold the same 31 times: one array for the file; idle's 46 differ
    walk, late, idle = a.clips
    assert walk.channels[0].times is late.channels[2].times
    assert idle.channels[0].times is not walk.channels[0].times
    np.testing.assert_array_equal(idle.channels[1].times, np.linspace(0, 1.5, 46).astype(np.float32))


def test_different_key_times_stay_apart_on_both_load_paths():
    raw = RawGltf()
    root = raw.node("root", children=[1, 2])
    raw.node("a")
    raw.node("b")
    raw.scene([root])
    t1 = raw.floats([0.0, 0.5, 1.0], "SCALAR")
    t2 = raw.floats([0.0, 0.5, 1.0], "SCALAR")
    t3 = raw.floats([0.0, 0.25, 1.0], "SCALAR")
    v = raw.floats(np.zeros((3, 3)), "VEC3")
    raw.animation("m", [(1, "translation", t1, v), (2, "translation", t2, v), (root, "translation", t3, v)])
    for cubic in (False, True):  # CUBICSPLINE takes the channel-by-channel loader
        if cubic:
            w = raw.floats(np.zeros((9, 3)), "VEC3")
            raw.animation("c", [(1, "translation", t1, w, "CUBICSPLINE"), (2, "translation", t2, w, "CUBICSPLINE"),
                                (root, "translation", t3, w, "CUBICSPLINE")])
        clip = load_asset_bytes(raw.glb(), "x.glb").clips[-1]
        a, b, c = (ch.times for ch in clip.channels)
        assert a is b and c is not a
        np.testing.assert_array_equal(c, np.array([0.0, 0.25, 1.0], np.float32))


def test_lint_and_measure_json_equal_for_both_shapes(tmp_path, capsys):
    shared = asset_to_glb(biped_asset(_clips()))
    outs = []
    for name, data in (("shared", shared), ("split", one_accessor_per_sampler(shared))):
        d = tmp_path / name
        d.mkdir()
        (d / "pack.glb").write_bytes(data)
        (d / "animsmith.toml").write_text('[gait_groups.walks]\nclips = ["pack.glb#walk", "pack.glb#walk_late"]\n')
        lint = run_cli(["lint", "--config", str(d / "animsmith.toml"), "--format", "json", str(d / "pack.glb")], capsys)
        meas = run_cli(["measure", "--format", "json", str(d / "pack.glb")], capsys)
        outs.append((lint[0], lint[1].replace(str(d), "D"), meas[0], meas[1].replace(str(d), "D")))
    assert outs[0] == outs[1]
    doc = json.loads(outs[0][1])
    walk = doc["files"][0]["measurements"]["clips"]["walk"]
    assert walk["frame_count"] == 31 and abs(walk["speed_mps"] - 1.2) < 1e-6
