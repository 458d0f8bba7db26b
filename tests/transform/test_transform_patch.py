"""Byte-preserving output of `transform --gait-anchor`, checked against the input file.

The input is written by tests/support/gltf_raw.py (not by our writer) with a mesh, an
embedded PNG, a skin, extras, an unknown root extension, an unknown JSON
field, a quantised (normalized SHORT) rotation channel and — in one variant —
a second clip that shares every output accessor with the anchored one.
Expectations are computed from the input JSON (accessor byte ranges), never
from our own output; the Khronos validator and three.js are the outside
oracles.
"""

import json
import math
import os
import struct
import subprocess
import zlib

import numpy as np
import pytest

from gltf_raw import RawGltf
from lint_support import run_cli as run_here
from transform_builders import feet_values, frame_times, run_cli

FRAMES = 31
FPS = 30.0
OFFSET = 0.21  # anchor 0.54 of a 30-frame cycle -> s = round(16.2) = 16 (seam n/a: steps < 2 cm)
SHIFT = 16
# the feet repeat their first pose at the last key (a duplicated endpoint): the 30 unique
# frames rotate and the last key repeats the new first one (docs/transform.md)
SRC = [(k % (FRAMES - 1) + SHIFT) % (FRAMES - 1) for k in range(FRAMES)]


def png_1x1() -> bytes:
    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def hips_sway_shorts() -> np.ndarray:
    """(E, 4) int16 normalized quaternions: small sway about Y, w near 1."""
    k = np.arange(FRAMES)
    ang = 0.1 * np.sin(2 * np.pi * k / (FRAMES - 1))
    q = np.stack([np.zeros(FRAMES), np.sin(ang / 2), np.zeros(FRAMES), np.cos(ang / 2)], axis=1)
    return np.rint(q * 32767).astype(np.int16)


def build_raw(shared_clip: bool) -> bytes:
    raw = RawGltf()
    lf_n = raw.node("LeftFoot", translation=[0.1, -0.9, 0.0])
    rf_n = raw.node("RightFoot", translation=[-0.1, -0.9, 0.0], extras={"note": "keep me"})
    hips = raw.node("Hips", children=[lf_n, rf_n], translation=[0.0, 1.0, 0.0])
    root = raw.node("root", children=[hips])
    # a triangle mesh on its own node
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    pa = raw.accessor(pos, "VEC3", min=[0.0, 0.0, 0.0], max=[1.0, 1.0, 0.0])
    uv = raw.accessor(np.array([[0, 0], [1, 0], [0, 1]], np.float32), "VEC2")
    raw.doc.setdefault("meshes", []).append({"primitives": [{"attributes": {"POSITION": pa, "TEXCOORD_0": uv}}], "name": "tri"})
    body = raw.node("Body", mesh=0)
    raw.scene([root, body])
    raw.skin([root, hips, lf_n, rf_n])
    img_view = raw.view(png_1x1())
    raw.doc["images"] = [{"bufferView": img_view, "mimeType": "image/png", "name": "swatch"}]
    raw.doc["textures"] = [{"source": 0}]
    raw.doc["materials"] = [{"name": "m", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]
    raw.doc["meshes"][0]["primitives"][0]["material"] = 0
    raw.doc["extensionsUsed"] = ["EXT_animsmith_test_unknown"]
    raw.doc["extensions"] = {"EXT_animsmith_test_unknown": {"payload": [1, 2.5, "x"]}}
    raw.doc["x_unknown_field"] = {"kept": True}
    raw.doc["asset"]["extras"] = {"author": "tests"}

    t = raw.floats(frame_times(FRAMES, FPS), "SCALAR")
    lf, rf = feet_values(FRAMES, 0.05, OFFSET)
    lfa = raw.accessor(lf.astype(np.float32), "VEC3")
    rfa = raw.accessor(rf.astype(np.float32), "VEC3")
    qa = raw.accessor(hips_sway_shorts(), "VEC4", normalized=True)
    t1 = raw.floats([0.0], "SCALAR")
    root_hold = raw.accessor(np.zeros((1, 3), np.float32), "VEC3")
    walk = [
        (lf_n, "translation", t, lfa, "LINEAR"),
        (rf_n, "translation", t, rfa, "LINEAR"),
        (hips, "rotation", t, qa, "LINEAR"),
        (root, "translation", t1, root_hold, "LINEAR"),
    ]
    raw.animation("walk", walk, extras={"loop": True})
    if shared_clip:
        raw.animation("walk_copy", walk[:3])
    return raw.glb()


def chunks(data: bytes):
    """(json dict, json chunk bytes, bin bytes) parsed by hand."""
    jlen, _ = struct.unpack_from("<II", data, 12)
    jbytes = data[20 : 20 + jlen]
    off = 20 + jlen
    blen, _ = struct.unpack_from("<II", data, off)
    return json.loads(jbytes), jbytes, data[off + 8 : off + 8 + blen]


def accessor_range(doc, ai):
    acc = doc["accessors"][ai]
    view = doc["bufferViews"][acc["bufferView"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    size = {5126: 4, 5122: 2}[acc["componentType"]] * {"VEC3": 3, "VEC4": 4}[acc["type"]]
    return start, start + size * acc["count"], size


def element_rows(bin_bytes, start, size, count):
    return [bin_bytes[start + k * size : start + (k + 1) * size] for k in range(count)]


@pytest.fixture
def anchored(tmp_path, capsys):
    def make(shared_clip: bool, *extra):
        src = tmp_path / ("shared.glb" if shared_clip else "solo.glb")
        src.write_bytes(build_raw(shared_clip))
        out = tmp_path / ("shared_out.glb" if shared_clip else "solo_out.glb")
        rc, stdout, stderr = run_cli(capsys, "transform", str(src), "-o", str(out), "--gait-anchor", "--clip", "walk", *extra)
        assert rc == 0, stderr
        assert f"(shift {SHIFT} frames" in stdout
        return src.read_bytes(), out.read_bytes(), str(out)

    return make


def test_in_place_rewrite_touches_only_the_rotated_accessor_bytes(anchored):
    before, after, _ = anchored(False)
    doc0, j0, b0 = chunks(before)
    doc1, j1, b1 = chunks(after)
    assert j1 == j0  # JSON chunk byte-identical: nothing repointed
    assert len(after) == len(before)
    walk = doc0["animations"][0]
    rotated = [walk["samplers"][c["sampler"]]["output"] for c in walk["channels"][:3]]
    mask = np.ones(len(b0), bool)
    for ai in rotated:
        s, e, size = accessor_range(doc0, ai)
        mask[s:e] = False
        rows0 = element_rows(b0, s, size, FRAMES)
        rows1 = element_rows(b1, s, size, FRAMES)
        assert rows1 == [rows0[SRC[k]] for k in range(FRAMES)]
    a0 = np.frombuffer(b0, np.uint8)
    a1 = np.frombuffer(b1, np.uint8)
    assert np.array_equal(a0[mask], a1[mask])  # mesh, image, times, constant channel: same bytes
    assert before[:12 + 8][:4] == after[:4]


def test_shared_accessors_get_new_accessors_and_the_other_clip_is_unchanged(anchored):
    from animsmith.core.pose import sample_pose
    from animsmith.io.gltf import load_asset_bytes

    before, after, out = anchored(True)
    doc0, _, b0 = chunks(before)
    doc1, _, b1 = chunks(after)
    # every original BIN byte is kept; new data is appended after it
    assert b1[: len(b0)] == b0
    assert len(doc1["accessors"]) == len(doc0["accessors"]) + 3
    # everything in the JSON except the appended accessors/views, buffer length
    # and walk's repointed sampler outputs is equal, unknown fields included
    for key in doc0:
        if key not in ("accessors", "bufferViews", "buffers", "animations"):
            assert doc1[key] == doc0[key], key
    assert doc1["accessors"][: len(doc0["accessors"])] == doc0["accessors"]
    assert doc1["bufferViews"][: len(doc0["bufferViews"])] == doc0["bufferViews"]
    assert doc1["animations"][1] == doc0["animations"][1]
    assert doc1["animations"][0]["channels"] == doc0["animations"][0]["channels"]
    assert doc1["animations"][0]["extras"] == {"loop": True}
    # quantised rotation keeps its encoding in the new accessor
    new_q = doc1["accessors"][doc1["animations"][0]["samplers"][2]["output"]]
    assert new_q["componentType"] == 5122 and new_q["normalized"] is True and new_q["type"] == "VEC4"
    s, e, size = accessor_range(doc1, doc1["animations"][0]["samplers"][2]["output"])
    rows = element_rows(b1, s, size, FRAMES)
    src = hips_sway_shorts()
    assert rows == [src[SRC[k]].tobytes() for k in range(FRAMES)]
    # the other clip samples exactly as before
    a0 = load_asset_bytes(before, "before.glb")
    a1 = load_asset_bytes(after, "after.glb")
    t = frame_times(FRAMES, FPS).astype(np.float64)
    g0 = sample_pose(a0.skeleton, a0.clip("walk_copy"), t)
    g1 = sample_pose(a1.skeleton, a1.clip("walk_copy"), t)
    assert np.array_equal(g0.model_position_m, g1.model_position_m)
    assert np.array_equal(g0.model_rotation, g1.model_rotation)
    # and walk is its left rotation by SHIFT frames
    w0 = sample_pose(a0.skeleton, a0.clip("walk"), t)
    w1 = sample_pose(a1.skeleton, a1.clip("walk"), t)
    np.testing.assert_allclose(w1.model_position_m, w0.model_position_m[SRC], atol=1e-12)


@pytest.mark.parametrize("shared_clip", [False, True])
def test_outputs_pass_the_khronos_validator(anchored, oracles, shared_clip):
    before, _, out = anchored(shared_clip)
    src = out.replace("_out.glb", ".glb")
    for path in (src, out):  # the input is valid, and so is the output
        res = subprocess.run(["node", os.path.join(oracles, "validate.mjs"), path, "--report", path + ".json"], capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stdout + res.stderr
        assert "errors=0" in res.stdout


@pytest.mark.parametrize("shared_clip", [False, True])
def test_outputs_reload_in_threejs_to_the_rotated_poses(anchored, oracles, shared_clip):
    """three.js samples OUT at frame k where our sampler samples IN at frame SRC[k]."""
    from animsmith.core.pose import sample_pose
    from animsmith.io.gltf import load_asset_bytes

    before, _, out = anchored(shared_clip)
    times = frame_times(FRAMES, FPS).astype(np.float64)
    res = subprocess.run(
        ["node", os.path.join(oracles, "sample.mjs"), out, "--clip", "walk", "--nodes", "root,Hips,LeftFoot,RightFoot",
         "--times", ",".join(repr(float(x)) for x in times)],
        capture_output=True, text=True, timeout=120,
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    a0 = load_asset_bytes(before, "before.glb")
    g0 = sample_pose(a0.skeleton, a0.clip("walk"), times)
    names = ["root", "Hips", "LeftFoot", "RightFoot"]
    bones = [a0.skeleton.find(n) for n in names]
    for k, sample in enumerate(doc["samples"]):
        src = SRC[k]
        for n, b in zip(names, bones):
            p = np.array(sample["nodes"][n]["position"])
            q = np.array(sample["nodes"][n]["quaternion"])
            np.testing.assert_allclose(p, g0.model_position_m[src, b], atol=2e-6)
            assert abs(abs(float(np.dot(q, g0.model_rotation[src, b]))) - 1.0) < 1e-6


def test_gltf_input_is_an_operator_error(tmp_path, capsys):
    raw = RawGltf()
    n = raw.node("root")
    t = raw.floats([0.0, 1.0], "SCALAR")
    v = raw.accessor(np.zeros((2, 3), np.float32), "VEC3")
    raw.animation("walk", [(n, "translation", t, v)])
    text, _ = raw.gltf(uri="data")
    src = tmp_path / "in.gltf"
    src.write_text(text if isinstance(text, str) else text.decode())
    rc, out, err = run_cli(capsys, "transform", str(src), "-o", str(tmp_path / "o.glb"), "--gait-anchor")
    assert rc == 2 and ".glb" in err and out == ""


def test_morph_weight_channel_refuses_unsupported_channel(tmp_path, capsys):
    raw = RawGltf()
    lf_n = raw.node("LeftFoot", translation=[0.1, -0.9, 0.0])
    rf_n = raw.node("RightFoot", translation=[-0.1, -0.9, 0.0])
    hips = raw.node("Hips", children=[lf_n, rf_n], translation=[0.0, 1.0, 0.0])
    face = raw.node("Face")
    root = raw.node("root", children=[hips, face])
    raw.scene([root])
    t = raw.floats(frame_times(FRAMES, FPS), "SCALAR")
    lf, rf = feet_values(FRAMES, 0.05, OFFSET)
    w = raw.accessor(np.linspace(0, 1, FRAMES).astype(np.float32), "SCALAR")
    raw.animation("walk", [
        (lf_n, "translation", t, raw.accessor(lf.astype(np.float32), "VEC3")),
        (rf_n, "translation", t, raw.accessor(rf.astype(np.float32), "VEC3")),
        (face, "weights", t, w),
    ])
    src = tmp_path / "morph.glb"
    src.write_bytes(raw.glb())
    out = tmp_path / "out.glb"
    out.write_bytes(b"keep")
    rc, stdout, stderr = run_cli(capsys, "transform", str(src), "-o", str(out), "--gait-anchor")
    assert rc == 1 and stdout == "" and out.read_bytes() == b"keep"
    assert "refused [unsupported_channel]" in stderr and "morph weights" in stderr


def test_accessors_shared_by_two_anchored_clips_with_one_shift_are_permuted_once(tmp_path, capsys):
    src = tmp_path / "shared.glb"
    src.write_bytes(build_raw(True))
    out = tmp_path / "out.glb"
    rc, stdout, err = run_cli(capsys, "transform", str(src), "-o", str(out), "--gait-anchor")  # both clips
    assert rc == 0, err
    assert stdout.count(f"(shift {SHIFT} frames") == 2
    doc0, j0, b0 = chunks(src.read_bytes())
    _, j1, b1 = chunks(out.read_bytes())
    assert j1 == j0  # no new accessors: the shared ones are permuted in place, once
    walk = doc0["animations"][0]
    for c in walk["channels"][:3]:
        s, e, size = accessor_range(doc0, walk["samplers"][c["sampler"]]["output"])
        rows0 = element_rows(b0, s, size, FRAMES)
        assert element_rows(b1, s, size, FRAMES) == [rows0[SRC[k]] for k in range(FRAMES)]


def raw_feet_rig(frames: int = FRAMES, fps: float = FPS):
    """(RawGltf, (LeftFoot, RightFoot, Hips) node indices, key-time accessor): root -> Hips ->
    feet, one scene, ``frames`` key times at ``fps``; the caller adds outputs and the animation."""
    raw = RawGltf()
    lf_n = raw.node("LeftFoot", translation=[0.1, -0.9, 0.0])
    rf_n = raw.node("RightFoot", translation=[-0.1, -0.9, 0.0])
    hips = raw.node("Hips", children=[lf_n, rf_n], translation=[0.0, 1.0, 0.0])
    root = raw.node("root", children=[hips])
    raw.scene([root])
    return raw, (lf_n, rf_n, hips), raw.floats(frame_times(frames, fps), "SCALAR")


def anchored_raw(tmp_path, capsys, raw, name: str):
    """`transform NAME.glb -o NAME_out.glb --gait-anchor --format json` on ``raw``:
    (the JSON report, (input JSON, input BIN), (output JSON, output BIN), output path)."""
    src = tmp_path / f"{name}.glb"
    src.write_bytes(raw.glb())
    out = tmp_path / f"{name}_out.glb"
    rc, stdout, err = run_cli(capsys, "transform", str(src), "-o", str(out), "--gait-anchor", "--format", "json")
    assert rc == 0, err
    doc0, _, b0 = chunks(src.read_bytes())
    doc1, _, b1 = chunks(out.read_bytes())
    return json.loads(stdout), (doc0, b0), (doc1, b1), out


def sparse_accessor(raw, values: np.ndarray, type_: str, **extra):
    """An accessor without a bufferView whose every element comes from a sparse block
    (indices 0..count-1, uint16): what a sparse output looks like at its most general."""
    count = values.shape[0]
    sp = {"count": count, "indices": {"bufferView": raw.view(np.arange(count, dtype=np.uint16).tobytes()), "componentType": 5123},
          "values": {"bufferView": raw.view(np.ascontiguousarray(values).tobytes())}}
    ctype = {np.dtype(np.float32): 5126, np.dtype(np.int16): 5122}[values.dtype]
    return raw.accessor(None, type_, count=count, component_type=ctype, sparse=sp, **extra)


def test_interleaved_outputs_get_new_accessors_and_validate(tmp_path, capsys, oracles):
    import subprocess

    raw, (lf_n, rf_n, hips), t = raw_feet_rig()
    lf, rf = feet_values(FRAMES, 0.05, OFFSET)
    inter = np.concatenate([lf, rf], axis=1).astype(np.float32)  # rows: lf xyz, rf xyz
    view = raw.view(inter.tobytes(), byte_stride=24)
    lfa = raw.accessor(lf.astype(np.float32), "VEC3", view=view, byte_offset=0)
    rfa = raw.accessor(rf.astype(np.float32), "VEC3", view=view, byte_offset=12)
    raw.animation("walk", [(lf_n, "translation", t, lfa, "LINEAR"), (rf_n, "translation", t, rfa, "LINEAR")])
    report, (doc0, b0), (doc1, b1), out = anchored_raw(tmp_path, capsys, raw, "inter")
    assert report["patch"]["new_accessors"] == 2
    assert b1[: len(b0)] == b0
    new = doc1["animations"][0]["samplers"][0]["output"]
    s, e, size = accessor_range(doc1, new)
    rows = element_rows(b1, s, size, FRAMES)
    assert rows == [lf.astype(np.float32)[SRC[k]].tobytes() for k in range(FRAMES)]
    res = subprocess.run(["node", os.path.join(oracles, "validate.mjs"), str(out), "--report", str(out) + ".json"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "errors=0" in res.stdout, res.stdout


def test_sparse_output_is_rewritten_as_a_dense_copy(tmp_path, capsys):
    from animsmith.io.gltf import load_asset

    raw, (lf_n, rf_n, hips), t = raw_feet_rig()
    lf, rf = feet_values(FRAMES, 0.05, OFFSET)
    lfa = sparse_accessor(raw, lf.astype(np.float32), "VEC3")
    rfa = raw.accessor(rf.astype(np.float32), "VEC3")
    raw.animation("walk", [(lf_n, "translation", t, lfa, "LINEAR"), (rf_n, "translation", t, rfa, "LINEAR")])
    src = tmp_path / "sparse.glb"
    src.write_bytes(raw.glb())
    out = tmp_path / "sparse_out.glb"
    rc, stdout, err = run_cli(capsys, "transform", str(src), "-o", str(out), "--gait-anchor")
    assert rc == 0, err
    doc1, _, _ = chunks(out.read_bytes())
    new = doc1["accessors"][doc1["animations"][0]["samplers"][0]["output"]]
    assert "sparse" not in new and new["componentType"] == 5126
    got = load_asset(str(out)).clip("walk").channels[0].values
    assert got.tobytes() == lf.astype(np.float32)[SRC].tobytes()


def test_an_output_accessor_shared_with_a_morph_target_gets_a_new_accessor(tmp_path, capsys):
    """A sampler output that is also a primitive's morph target (``targets[0].POSITION``): the
    target's displacements keep their bytes and the sampler gets a new accessor (the output was
    rewritten in place: a morph target was not counted as a user, and the mesh changed)."""
    raw, (lf_n, rf_n, hips), t = raw_feet_rig()
    lf, rf = feet_values(FRAMES, 0.05, OFFSET)
    lfa = raw.accessor(lf.astype(np.float32), "VEC3")
    rfa = raw.accessor(rf.astype(np.float32), "VEC3")
    pos = raw.accessor(np.zeros((FRAMES, 3), np.float32), "VEC3", min=[0.0, 0.0, 0.0], max=[0.0, 0.0, 0.0])
    raw.doc.setdefault("meshes", []).append({"primitives": [{"attributes": {"POSITION": pos}, "targets": [{"POSITION": lfa}]}]})
    raw.doc["nodes"].append({"name": "Body", "mesh": 0})
    raw.doc["scenes"][0]["nodes"].append(len(raw.doc["nodes"]) - 1)
    raw.animation("walk", [(lf_n, "translation", t, lfa, "LINEAR"), (rf_n, "translation", t, rfa, "LINEAR")])
    report, (doc0, b0), (doc1, b1), _ = anchored_raw(tmp_path, capsys, raw, "morph")
    assert report["patch"]["new_accessors"] == 1
    assert doc1["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] == lfa
    s, e, _ = accessor_range(doc0, lfa)
    assert b1[s:e] == b0[s:e] == lf.astype(np.float32).tobytes()  # the morph target is untouched
    new = doc1["animations"][0]["samplers"][0]["output"]
    assert new != lfa
    s1, _, size = accessor_range(doc1, new)
    assert element_rows(b1, s1, size, FRAMES) == [lf.astype(np.float32)[SRC[k]].tobytes() for k in range(FRAMES)]


def test_a_glb_whose_only_buffer_is_a_data_uri_says_so(tmp_path, capsys):
    """No BIN chunk and buffers[0] an embedded data: URI: one line that calls it that (it said
    "external"), exit 2, nothing written."""
    import base64

    raw, (lf_n, rf_n, hips), t = raw_feet_rig()
    lf, rf = feet_values(FRAMES, 0.05, OFFSET)
    lfa = raw.accessor(lf.astype(np.float32), "VEC3")
    rfa = raw.accessor(rf.astype(np.float32), "VEC3")
    raw.animation("walk", [(lf_n, "translation", t, lfa, "LINEAR"), (rf_n, "translation", t, rfa, "LINEAR")])
    # a second clip sharing the outputs forces new accessors, which need a BIN chunk
    raw.animation("walk_copy", [(lf_n, "translation", t, lfa, "LINEAR"), (rf_n, "translation", t, rfa, "LINEAR")])
    data = raw.glb()
    doc, jbytes, bin_bytes = chunks(data)
    doc["buffers"] = [{"byteLength": len(bin_bytes), "uri": "data:application/octet-stream;base64," + base64.b64encode(bin_bytes).decode()}]
    j = json.dumps(doc).encode()
    j += b" " * (-len(j) % 4)
    src = tmp_path / "datauri.glb"
    src.write_bytes(b"glTF" + struct.pack("<II", 2, 20 + len(j)) + struct.pack("<II", len(j), 0x4E4F534A) + j)
    out = tmp_path / "datauri_out.glb"
    rc, stdout, err = run_cli(capsys, "transform", str(src), "-o", str(out), "--gait-anchor", "--clip", "walk")
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert "its first buffer is a data: URI" in err and "external" not in err
    assert not out.exists()


def test_transform_never_writes_over_its_contract(tmp_path, capsys, monkeypatch):
    """`-o` naming the contract (given with --config, or found as ./animsmith.toml) is exit 2 and
    leaves it alone; it was replaced by the GLB (lint, report and collection already refused)."""
    raw, (lf_n, rf_n, hips), t = raw_feet_rig()
    lf, rf = feet_values(FRAMES, 0.05, OFFSET)
    raw.animation("walk", [(lf_n, "translation", t, raw.accessor(lf.astype(np.float32), "VEC3"), "LINEAR"),
                           (rf_n, "translation", t, raw.accessor(rf.astype(np.float32), "VEC3"), "LINEAR")])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.glb").write_bytes(raw.glb())
    text = "[rig]\nprofile = \"auto\"\n"
    for name, flags in (("contract.toml", ["--config", "contract.toml"]), ("animsmith.toml", [])):
        (tmp_path / name).write_text(text)
        rc, _, err = run_here([*flags, "transform", "in.glb", "--gait-anchor", "-o", name], capsys)  # in tmp_path
        assert rc == 2 and "--output is also an input" in err, err
        assert (tmp_path / name).read_text() == text
        (tmp_path / name).unlink()


@pytest.mark.parametrize("uri", ["img%2Epng", "sub/../img.png", "./img.png", "sub\\..\\img.png", "file://TMP/img.png"])
def test_transform_never_writes_over_an_image_the_glb_names(tmp_path, capsys, monkeypatch, uri):
    """An image URI the loader does not read still names a file an engine loads: a percent-escaped
    dot or a `..` segment resolves to img.png too, and `-o img.png` is refused (it was written)."""
    raw, (lf_n, rf_n, hips), t = raw_feet_rig()
    lf, rf = feet_values(FRAMES, 0.05, OFFSET)
    raw.animation("walk", [(lf_n, "translation", t, raw.accessor(lf.astype(np.float32), "VEC3"), "LINEAR"),
                           (rf_n, "translation", t, raw.accessor(rf.astype(np.float32), "VEC3"), "LINEAR")])
    raw.doc["images"] = [{"uri": uri.replace("TMP", str(tmp_path))}]  # a backslash and file: resolve as engines do
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "in.glb").write_bytes(raw.glb())
    png = png_1x1()
    (tmp_path / "img.png").write_bytes(png)
    rc, _, err = run_here(["transform", "in.glb", "--gait-anchor", "-o", "img.png"], capsys)
    assert rc == 2 and "is a file the GLB reads" in err, err
    assert (tmp_path / "img.png").read_bytes() == png


def test_a_retimed_clip_loses_its_contact_markers_and_no_other_clip_does():
    """Two baked walks in one file, each with the contact markers `sim bake` writes, and an
    extra of the user's beside them. Rewriting the samplers of clip 0 (a key rotation, as gait
    anchoring does, or new values, as foot-cycle retiming does) drops clip 0's markers, whose
    times describe the poses before, and keeps its other extra; clip 1 keeps everything."""
    from animsmith.io.patch import GlbPatch, SamplerEdit
    from animsmith.io.write import asset_to_glb
    from animsmith.model import Asset
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    a = bake(catalog_creature("biped")).asset
    b = bake(catalog_creature("biped"), start_cycles=0.3).asset
    clips = [a.clips[0], b.clips[0]]
    clips[0].name, clips[1].name = "walk_a", "walk_b"
    clips[0].extras["studio"] = {"take": 3}
    data = asset_to_glb(Asset(skeleton=a.skeleton, clips=clips))
    keys = len(clips[0].channels[0].times)
    order = np.roll(np.arange(keys), -1)
    for edit in ("permute", "replace"):
        patch = GlbPatch(data)
        if edit == "permute":
            patch.permute_sampler_outputs([SamplerEdit(0, 0, order, np.asarray(clips[0].channels[0].values))])
        else:
            patch.replace_sampler_outputs([(0, 0, np.asarray(clips[0].channels[0].values)[order])])
        anims = chunks(patch.to_bytes())[0]["animations"]
        assert set(anims[0]["extras"]) == {"animsmith_sim", "studio"}, edit
        assert anims[1]["extras"] == chunks(data)[0]["animations"][1]["extras"], edit
        assert "animsmith_contacts" in anims[1]["extras"]
