"""Hostile and broken input: one LoadError with a one-line reason, never a
traceback, hang or large allocation.

Each case crafts a file with tests/support/gltf_raw.py and checks the reason names the
problem. Memory is measured with tracemalloc (numpy reports its buffers to it).
"""

from __future__ import annotations

import copy
import json
import os
import random
import struct
import subprocess
import sys
import tracemalloc
import warnings

import numpy as np
import pytest

from animsmith.errors import LoadError
from animsmith.io import gltf as read_mod
from animsmith.io.gltf import document as read_document, resources as read_resources
from animsmith.io.gltf import load_asset, load_asset_bytes
from gltf_raw import BIN_CHUNK, JSON_CHUNK, RawGltf, json_bytes, minimal, pack_glb

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
FEW_MB = 8 * 1024 * 1024


def expect_error(data: bytes, needle: str, name: str = "bad.glb", **kw) -> LoadError:
    """Load ``data``; require a one-line LoadError containing ``needle`` and
    a small peak allocation."""
    tracemalloc.start()
    try:
        with pytest.raises(LoadError) as err:
            load_asset_bytes(data, name, **kw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    msg = err.value.message
    assert needle.lower() in msg.lower(), msg
    assert "\n" not in msg and "Traceback" not in msg
    assert msg.startswith(name + ": ")
    assert peak < FEW_MB + 80 * len(data), peak  # cap: 16 float32 per input byte
    return err.value


def mutated(edit) -> bytes:
    """A minimal valid GLB whose JSON document was changed by ``edit(doc, ix)``."""
    raw, ix = minimal()
    raw.glb()  # fills buffers
    edit(raw.doc, ix)
    return pack_glb(json_bytes(raw.doc), bytes(raw.blob))


def test_minimal_is_valid():
    asset = load_asset_bytes(minimal()[0].glb(), "ok.glb")
    assert len(asset.clips[0].channels) == 1


# --------------------------------------------------------------------------
# Container
# --------------------------------------------------------------------------

GOOD = None


def good_glb() -> bytes:
    global GOOD
    if GOOD is None:
        GOOD = minimal()[0].glb()
    return GOOD


@pytest.mark.parametrize(
    "data,needle",
    [
        (b"", "truncated GLB"),
        (b"glTF\x02\x00", "truncated GLB"),
        (b"glTX" + struct.pack("<II", 2, 12), "bad magic"),
        (b"glTF" + struct.pack("<II", 1, 12), "unsupported GLB version 1"),
        (b"glTF" + struct.pack("<II", 2, 0xFFFFFFFF), "declares 4294967295 bytes but the file has 12"),
        (b"glTF" + struct.pack("<II", 2, 8), "declares 8 bytes"),
        (b"glTF" + struct.pack("<II", 2, 12), "no chunks"),
        (b"glTF" + struct.pack("<II", 2, 16) + b"\x00\x00\x00\x00", "truncated GLB chunk header"),
    ],
)
def test_bad_headers(data, needle):
    expect_error(data, needle)


def test_header_claiming_4gb_on_a_real_file():
    data = bytearray(good_glb())
    data[8:12] = struct.pack("<I", 0xFFFFFFFF)
    expect_error(bytes(data), "GLB header declares 4294967295 bytes")


def test_chunk_length_lies():
    raw, _ = minimal()
    raw.glb()
    j = json_bytes(raw.doc)
    expect_error(pack_glb(j, bytes(raw.blob), chunk_lengths=[10 ** 9]), "claims 1000000000 bytes")
    expect_error(pack_glb(j, bytes(raw.blob), chunk_lengths=[None, 0xFFFFFFF0]), "claims 4294967280 bytes")


def test_json_chunk_not_first_and_duplicate_chunks():
    raw, _ = minimal()
    raw.glb()
    j = json_bytes(raw.doc) + b" " * (-len(json_bytes(raw.doc)) % 4)
    b = bytes(raw.blob)
    expect_error(pack_glb(b"", chunks=[(BIN_CHUNK, b), (JSON_CHUNK, j)]), "first chunk is not JSON")
    expect_error(pack_glb(b"", chunks=[(JSON_CHUNK, j), (BIN_CHUNK, b), (BIN_CHUNK, b)]), "second BIN chunk")
    # Unknown chunk types are skipped.
    asset = load_asset_bytes(pack_glb(b"", chunks=[(JSON_CHUNK, j), (0x12345678, b"abcd"), (BIN_CHUNK, b)]), "x.glb")
    assert len(asset.clips) == 1


def test_truncation_at_every_byte():
    data = good_glb()
    for cut in range(len(data)):
        with pytest.raises(LoadError) as err:
            load_asset_bytes(data[:cut], "cut.glb")
        assert "\n" not in err.value.message


def test_bin_chunk_shorter_than_buffer():
    raw, _ = minimal()
    raw.glb()
    raw.doc["buffers"][0]["byteLength"] = len(raw.blob) + 64
    expect_error(pack_glb(json_bytes(raw.doc), bytes(raw.blob)), "buffer 0 declares")


# --------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload,needle",
    [
        (b'{"asset": {"version": "2.0"}, "x": "\xff\xfe"}', "JSON is invalid"),
        (b'{"asset": ', "JSON is invalid"),
        (b"[1, 2, 3]", "must be an object"),
        (b"[" * 200000 + b"]" * 200000, "JSON"),
        (b'{"a":' * 100000 + b"1" + b"}" * 100000, "JSON"),
    ],
)
def test_bad_json(payload, needle):
    expect_error(pack_glb(payload), needle)
    expect_error(payload, needle, name="bad.gltf")


def test_deep_json_with_stdlib_parser(monkeypatch):
    monkeypatch.setattr(read_document, "_loads", lambda b: json.loads(b.decode("utf-8")))
    expect_error(pack_glb(b"[" * 200000 + b"]" * 200000), "nested too deeply")
    expect_error(pack_glb(b'{"x": "\xff"}'), "JSON is invalid")


def test_brackets_inside_strings_cannot_hide_depth():
    # A string full of closing brackets, then 150k nested objects (enough to
    # overflow orjson's C stack if it ever saw them).
    deep = b'{"a":' * 150000 + b"1" + b"}" * 150000
    text = b'{"asset":{"version":"2.0","extras":{"s":"' + b"]}" * 20000 + b'","d":' + deep + b"}}}"
    expect_error(pack_glb(text), "nested too deeply")
    # Escaped quotes and backslashes do not hide the depth either (measured on the text).
    text = b'{"asset":{"version":"2.0","extras":{"s":"\\"]]","d":' + deep + b"}}}"
    expect_error(pack_glb(text), "nested too deeply")


@pytest.mark.parametrize("escape", ["", 'quote " ]'])
def test_many_brackets_but_shallow_json_loads(escape):
    def edit(doc, ix):
        doc["asset"]["extras"] = {"lists": [[i, "[{"] for i in range(10000)], "esc": escape}
    asset = load_asset_bytes(mutated(edit), "ok.glb")
    assert len(asset.gltf["asset"]["extras"]["lists"]) == 10000
    assert asset.gltf["asset"]["extras"]["esc"] == escape


def test_gltf_1_and_unsupported_required_extension():
    expect_error(mutated(lambda d, ix: d["asset"].update(version="1.0")), "glTF 1.0 is not supported")
    expect_error(mutated(lambda d, ix: d.update(extensionsRequired=["EXT_meshopt_compression"])),
                 "EXT_meshopt_compression")


# --------------------------------------------------------------------------
# Wrong JSON types and out-of-range indices
# --------------------------------------------------------------------------


def _set(path, value):
    """Edit that sets doc[path...] = value (ints index lists)."""
    def edit(doc, ix):
        obj = doc
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value
    return edit


CH = ["animations", 0, "channels", 0]
SAMP = ["animations", 0, "samplers", 0]

TYPE_CASES = [
    (["nodes"], "x", "nodes must be a JSON array"),
    (["nodes", 0], 5, "node 0 must be a JSON object"),
    (["nodes", 0, "children"], "1", "children must be a JSON array"),
    (["nodes", 0, "children"], ["1"], "must be an integer index"),
    (["nodes", 0, "children"], [1.0], "must be an integer index"),
    (["nodes", 0, "children"], [True], "must be an integer index"),
    (["nodes", 0, "children"], [-1], "out of range"),
    (["nodes", 0, "children"], [99], "node 0 child 99 out of range"),
    (["nodes", 0, "name"], 7, "name must be a string"),
    (["nodes", 1, "translation"], ["a", 0, 0], "array of 3 numbers"),
    (["nodes", 1, "translation"], [True, 0, 0], "array of 3 numbers"),
    (["nodes", 1, "rotation"], [0, 0, 1], "array of 4 numbers"),
    (["nodes", 1, "matrix"], [1] * 15, "array of 16 numbers"),
    (["nodes", 1, "matrix"], [1e308] * 16 + [None], "array of 16 numbers"),
    (["scene"], 3, "scene 3 out of range"),
    (["scene"], "0", "scene must be an integer index"),
    (["scenes", 0, "nodes"], [42], "out of range"),
    (["skins"], [{"joints": [17]}], "skin 0 joint 17 out of range"),
    (["animations"], {}, "animations must be a JSON array"),
    (["animations", 0], [], "animation 0 must be a JSON object"),
    (["animations", 0, "name"], 3, "name must be a string"),
    (CH, "x", "must be a JSON object"),
    (CH + ["target"], None, "target must be a JSON object"),
    (CH + ["target", "node"], 2, "target node 2 out of range"),
    (CH + ["target", "node"], -1, "target node -1 out of range"),
    (CH + ["target", "node"], 1.0, "target node must be an integer index"),
    (CH + ["target", "node"], False, "target node must be an integer index"),
    (CH + ["target", "path"], "colour", "unknown target path"),
    (CH + ["target", "path"], ["translation"], "unknown target path"),
    (CH + ["sampler"], 5, "sampler 5 out of range"),
    (CH + ["sampler"], "0", "sampler must be an integer index"),
    (CH + ["sampler"], None, "sampler is missing"),
    (SAMP, "x", "sampler 0 must be a JSON object"),
    (SAMP + ["interpolation"], "CUBIC", "unknown interpolation"),
    (SAMP + ["input"], 99, "input accessor 99 out of range"),
    (SAMP + ["output"], -3, "output accessor -3 out of range"),
    (SAMP + ["output"], [1], "output accessor must be an integer index"),
    (["accessors", 0], None, "accessor 0 must be a JSON object"),
    (["accessors", 0, "componentType"], 9999, "unknown componentType"),
    (["accessors", 0, "componentType"], "5126", "unknown componentType"),
    (["accessors", 0, "type"], "VEC9", "unknown type"),
    (["accessors", 0, "count"], "3", "count must be an integer"),
    (["accessors", 0, "count"], 0, "count must be >= 1"),
    (["accessors", 0, "count"], 3.0, "count must be an integer"),
    (["accessors", 0, "normalized"], 1, "normalized must be true or false"),
    (["accessors", 0, "bufferView"], 9, "bufferView 9 out of range"),
    (["accessors", 0, "bufferView"], -1, "bufferView -1 out of range"),
    (["accessors", 1, "bufferView"], {"a": 1}, "bufferView must be an integer index"),
    (["accessors", 1, "bufferView"], [1], "bufferView must be an integer index"),
    (["accessors", 0, "byteOffset"], -4, "byteOffset must be >= 0"),
    (["accessors", 0, "byteOffset"], 1 << 40, "needs"),
    (["accessors", 0, "byteOffset"], "0", "byteOffset must be an integer"),
    (["bufferViews", 0, "buffer"], 3, "buffer 3 out of range"),
    (["bufferViews", 0, "byteLength"], 1 << 40, "runs past buffer 0"),
    (["bufferViews", 0, "byteLength"], 0, "byteLength must be >= 1"),
    (["bufferViews", 0, "byteOffset"], 1 << 33, "runs past buffer 0"),
    (["bufferViews", 0, "byteStride"], 1 << 20, "byteStride 1048576 exceeds 252"),
    (["bufferViews", 0, "byteStride"], "4", "byteStride must be an integer"),
    (["bufferViews", 1, "byteStride"], 8, "byteStride 8 is shorter"),
    (["buffers", 0, "byteLength"], "12", "byteLength must be an integer"),
    (["buffers", 0, "uri"], 5, "uri must be a string"),
    (["buffers", 0, "uri"], "data:application/octet-stream;base64,@@@", "not valid base64"),
    (["buffers", 0, "uri"], "data:no-comma", "malformed data URI"),
]


@pytest.mark.parametrize("path,value,needle", TYPE_CASES, ids=[f"{'.'.join(map(str, p))}={v!r}"[:60] for p, v, _ in TYPE_CASES])
def test_wrong_types_and_indices(path, value, needle):
    expect_error(mutated(_set(path, value)), needle)


# --------------------------------------------------------------------------
# Graph shape
# --------------------------------------------------------------------------


def nodes_doc(nodes):
    raw = RawGltf()
    raw.doc["nodes"] = nodes
    return raw.glb()


@pytest.mark.parametrize(
    "nodes,needle",
    [
        ([{"children": [0]}], "node 0 lists itself as a child"),
        ([{"children": [1]}, {"children": [0]}], "unreachable from any root; the node graph contains a cycle"),
        ([{"children": [1]}, {"children": [2]}, {"children": [1]}], "node 1 is a child of nodes 0 and 2"),
        ([{"children": [2]}, {"children": [2]}, {}], "node 2 is a child of nodes 0 and 1; glTF requires a forest"),
        ([{"children": [1, 1]}, {}], "node 0 lists child 1 twice"),
        ([{}, {"children": [2]}, {"children": [3]}, {"children": [1]}], "node 1 is unreachable"),
    ],
)
def test_bad_node_graphs(nodes, needle):
    expect_error(nodes_doc(nodes), needle)


# --------------------------------------------------------------------------
# Counts, ranges and memory
# --------------------------------------------------------------------------


def test_times_values_count_mismatch():
    def edit(doc, ix):
        doc["accessors"][ix["output"]]["count"] = 2
    expect_error(mutated(edit), "3 key times but 2 output values (expected 3 for LINEAR)")


@pytest.mark.parametrize("acc", ["input", "output"])
def test_count_2_pow_31_with_a_view(acc):
    def edit(doc, ix):
        doc["accessors"][ix[acc]]["count"] = 2 ** 31
    expect_error(mutated(edit), "key times but" if acc == "output" else "needs")


def test_counts_2_pow_31_on_both_sides_need_the_view():
    def edit(doc, ix):
        doc["accessors"][ix["input"]]["count"] = 2 ** 31
        doc["accessors"][ix["output"]]["count"] = 2 ** 31
    expect_error(mutated(edit), "needs 8589934592 bytes of bufferView")


def test_accessor_without_view_is_capped():
    def edit(doc, ix):
        for a in (ix["input"], ix["output"]):
            doc["accessors"][a]["count"] = 2 ** 31
            del doc["accessors"][a]["bufferView"]
    expect_error(mutated(edit), "decoding would exceed")


def test_sparse_without_view_is_capped():
    def edit(doc, ix):
        out = doc["accessors"][ix["output"]]
        inp = doc["accessors"][ix["input"]]
        inp["count"] = out["count"] = 2 ** 30
        del inp["bufferView"]
        inp["sparse"] = {"count": 1, "indices": {"bufferView": 0, "componentType": 5121},
                         "values": {"bufferView": 0}}
    expect_error(mutated(edit), "decoding would exceed")


def test_sparse_out_of_range():
    def edit(doc, ix):
        doc["bufferViews"].append({"buffer": 0, "byteOffset": 0, "byteLength": 1})  # index byte = 0 (a float's low byte)
        doc["accessors"][ix["output"]]["sparse"] = {
            "count": 2 ** 31, "indices": {"bufferView": 2, "componentType": 5121}, "values": {"bufferView": 1}}
    expect_error(mutated(edit), "sparse count 2147483648 exceeds accessor count 3")

    def edit2(doc, ix):
        doc["buffers"][0]["byteLength"] += 4
        doc["bufferViews"].append({"buffer": 0, "byteOffset": doc["buffers"][0]["byteLength"] - 4, "byteLength": 1})
        doc["accessors"][ix["output"]]["sparse"] = {
            "count": 1, "indices": {"bufferView": 2, "componentType": 5121}, "values": {"bufferView": 1}}
    raw, ix = minimal()
    raw.glb()
    raw.blob.extend(b"\x09\x00\x00\x00")
    edit2(raw.doc, ix)
    expect_error(pack_glb(json_bytes(raw.doc), bytes(raw.blob)), "sparse index 9 out of range")

    def edit3(doc, ix):
        doc["accessors"][ix["output"]]["sparse"] = {
            "count": 1, "indices": {"bufferView": 0, "componentType": 5126}, "values": {"bufferView": 1}}
    expect_error(mutated(edit3), "sparse indices componentType")


def test_many_accessors_over_one_view_stay_within_budget():
    # 2000 normalized-int rotation channels over the same bytes: every decode
    # allocates, the per-file cap must stop it long before gigabytes.
    raw = RawGltf()
    n = raw.node("b")
    keys = 4096
    t = raw.floats(np.arange(keys, dtype=np.float32), "SCALAR")
    view = raw.view(np.zeros((keys, 4), np.int8).tobytes())
    chans = []
    for _ in range(2000):
        a = raw.accessor(np.zeros((keys, 4), np.int8), "VEC4", view=view, normalized=True)
        chans.append((n, "rotation", t, a))
    raw.animation("A", chans)
    data = raw.glb()
    expect_error(data, "decoding would exceed")


def _channels_over_one_accessor(copies: int, keys: int) -> bytes:
    """One node and one clip of ``copies`` rotation channels that all read the same
    ``keys``-key time and value accessors (stored once)."""
    raw = RawGltf()
    n = raw.node("b")
    raw.scene([n])
    t = raw.floats(np.arange(keys) / 30.0, "SCALAR")
    v = raw.floats(np.tile([0.0, 0.0, 0.0, 1.0], (keys, 1)), "VEC4")
    raw.animation("A", [(n, "rotation", t, v)] * copies)
    return raw.glb()


def test_channels_sharing_one_accessor_count_once_each():
    # 2,000 channels naming one 10,000-key rotation accessor: 80,000,000 key components
    # (2000 x 10000 x 4) from a ~350 KB file. Each channel's keys are read by the checks
    # (lint used 2.5 GB here; 20,000 such channels in 1.7 MB were killed for lack of
    # memory), so the file is refused against max(1 Mi, 8 x file size) components.
    data = _channels_over_one_accessor(2000, 10_000)
    assert len(data) < 400_000
    err = expect_error(data, "channels would hold 80000000 key components")
    assert f"the cap for this file is {max(1 << 20, 8 * len(data))} " in str(err)
    # within the cap (26 channels: 1,040,000 components of 1 Mi) the file loads, every
    # channel reading the one stored accessor
    asset = load_asset_bytes(_channels_over_one_accessor(26, 10_000), "ok.glb")
    assert len(asset.clips[0].channels) == 26
    assert sum(ch.values.size for ch in asset.clips[0].channels) == 26 * 10_000 * 4



def _deduplicated_library(clips: int, keys: int, bones: int = 65, moving: int = 5) -> bytes:
    """A Mixamo-style clip library as FBX2glTF keys it (translation, rotation and scale on
    every bone, every key) after glTF-Transform ``dedup``: the constant tracks of clips of one
    length are stored once and read by every clip; ``moving`` bones per clip rotate (their
    own accessors) and the hips translate."""
    raw = RawGltf()
    nodes = [raw.node(f"mixamorig:Bone{i}", translation=[0.0, 0.1, 0.0]) for i in range(bones)]
    for parent, child in zip(nodes, nodes[1:]):
        raw._list("nodes")[parent]["children"] = [child]
    raw.scene([nodes[0]])
    t = raw.floats((np.arange(keys) + 1) / 30.0, "SCALAR")
    still_t = [raw.floats(np.tile([0.0, 0.1 + 0.001 * b, 0.0], (keys, 1)), "VEC3") for b in range(bones)]
    still_r = [raw.floats(np.tile([0.0, 0.0, np.sin(0.01 * b), np.cos(0.01 * b)], (keys, 1)), "VEC4") for b in range(bones)]
    ones = raw.floats(np.ones((keys, 3)), "VEC3")
    rng = np.random.default_rng(7)
    for c in range(clips):
        chans = []
        for b in range(bones):
            if b < moving:
                q = rng.normal(size=(keys, 4))
                chans.append((nodes[b], "rotation", t, raw.floats(q / np.linalg.norm(q, axis=1, keepdims=True), "VEC4")))
            else:
                chans.append((nodes[b], "rotation", t, still_r[b]))
            walk = np.cumsum(np.full((keys, 3), 0.05), axis=0)
            chans.append((nodes[b], "translation", t, raw.floats(walk, "VEC3") if b == 0 else still_t[b]))
            chans.append((nodes[b], "scale", t, ones))
        raw.animation(f"clip{c}", chans)
    return raw.glb()


def test_clip_library_sharing_its_constant_tracks_loads():
    # twelve 10 s clips of a 65-bone rig keyed on every bone: 12 x 65 x (4 + 3 + 3) x 301 key
    # components, over twice the bytes of the file once the constant tracks are shared
    # (as glTF-Transform dedup writes it), a real file that must load
    data = _deduplicated_library(12, 301)
    components = 12 * 65 * (4 + 3 + 3) * 301
    assert 2 * len(data) < components < 8 * len(data)
    asset = load_asset_bytes(data, "library.glb")
    assert len(asset.clips) == 12
    assert sum(ch.values.size for clip in asset.clips for ch in clip.channels) == components

LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 12345\n"
)


@pytest.mark.parametrize("name", ["walk.glb", "walk.gltf"])
def test_a_git_lfs_pointer_is_named_as_one(name):
    # a CI checkout without LFS leaves this text (the spec's example pointer) in place
    # of the file: the reason says so instead of "bad magic b'vers'"
    err = expect_error(LFS_POINTER, "a Git LFS pointer of a 12345-byte file, not the file itself", name=name)
    assert "git lfs pull" in str(err)


def test_an_external_buffer_that_is_a_git_lfs_pointer_is_named_as_one(tmp_path):
    raw, _ = minimal()
    text, _ = raw.gltf(uri="file", bin_name="walk.bin")
    (tmp_path / "walk.gltf").write_bytes(text)
    (tmp_path / "walk.bin").write_bytes(LFS_POINTER)
    with pytest.raises(LoadError, match=r"buffer 0: external resource 'walk.bin' is a Git LFS pointer of a 12345-byte file"):
        load_asset(str(tmp_path / "walk.gltf"))


def test_external_size_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(read_resources, "EXTERNAL_MAX_BYTES", 64)
    raw, _ = minimal()
    text, blob = raw.gltf(uri="file", bin_name="b.bin")
    (tmp_path / "b.bin").write_bytes(blob + bytes(100))
    (tmp_path / "a.gltf").write_bytes(text)
    with pytest.raises(LoadError, match="exceeds 64 bytes"):
        load_asset(str(tmp_path / "a.gltf"))


def test_buffer_without_data():
    def edit(doc, ix):
        doc["buffers"].append({"byteLength": 64})
        doc["bufferViews"][1]["buffer"] = 1
        doc["bufferViews"][1]["byteOffset"] = 0
    expect_error(mutated(edit), "buffer 1 has no data")


def test_special_files_refused(tmp_path):
    fifo = tmp_path / "pipe.glb"
    os.mkfifo(fifo)
    with pytest.raises(LoadError, match="not a regular file"):
        load_asset(str(fifo))  # must not block
    with pytest.raises(LoadError, match="directory"):
        load_asset(str(tmp_path))


# --------------------------------------------------------------------------
# Seeded structural fuzz (a few hundred cases; issue 8 runs the long version)
# --------------------------------------------------------------------------

HOSTILE_VALUES = [-1, 0, 1, 2, 3, 2 ** 31, 2 ** 32 - 1, 2 ** 63, 1.5, float("nan"), float("inf"), 1e308, "x", "",
                  True, None, [], {}, [0], {"a": 1}, [1e308] * 16]


def _leaves(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, path + (i,))
    yield path


def _rich_doc():
    raw = RawGltf()
    a = raw.node("Armature", children=[1], scale=[0.01, 0.01, 0.01])
    raw.node("Hips", children=[2], matrix=[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1])
    raw.node("Foot")
    raw.scene([a])
    raw.skin([1, 2])
    t = raw.floats([0, 0.5, 1], "SCALAR")
    v = raw.floats(np.zeros((3, 3)), "VEC3")
    q = raw.accessor(np.array([[0, 0, 0, 32767]] * 9, np.int16), "VEC4", normalized=True)
    raw.animation("Walk", [(1, "translation", t, v), (2, "rotation", t, q, "CUBICSPLINE")])
    raw.glb()
    return raw.doc, bytes(raw.blob)


def test_seeded_json_mutations_never_escape():
    doc0, blob = _rich_doc()
    paths = [p for p in _leaves(doc0) if p]
    rng = random.Random(20261130)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(300):
        doc = copy.deepcopy(doc0)
        for _ in range(rng.randint(1, 3)):
            path = rng.choice(paths)
            obj = doc
            try:
                for key in path[:-1]:
                    obj = obj[key]
                obj[path[-1]] = copy.deepcopy(rng.choice(HOSTILE_VALUES))
            except (KeyError, IndexError, TypeError):
                continue
        data = pack_glb(json.dumps(doc).encode(), blob)
        tracemalloc.start()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # a warning would be a second stderr line
                load_asset_bytes(data, "fuzz.glb", strict=rng.random() < 0.5)
            outcomes["ok"] += 1
        except LoadError as exc:
            assert "\n" not in exc.message
            outcomes["error"] += 1
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        assert peak < FEW_MB, (peak, doc)
    assert outcomes["error"] > 50 and outcomes["ok"] > 5, outcomes


def test_seeded_byte_flips_on_a_real_file():
    with open(os.path.join(DATA, "khr_RiggedFigure.glb"), "rb") as fh:
        data0 = fh.read()
    rng = random.Random(7)
    json_len = struct.unpack_from("<I", data0, 12)[0]
    for _ in range(150):
        data = bytearray(data0)
        for _ in range(rng.randint(1, 8)):
            pos = rng.randrange(0, 20 + json_len) if rng.random() < 0.8 else rng.randrange(len(data))
            data[pos] = rng.randrange(256)
        try:
            load_asset_bytes(bytes(data), "flip.glb")
        except LoadError as exc:
            assert "\n" not in exc.message


# --------------------------------------------------------------------------
# The CLI: exit 2 with one stderr line
# --------------------------------------------------------------------------


def test_measure_bad_file_exits_2_with_one_line(tmp_path):
    import importlib.util

    if importlib.util.find_spec("animsmith.commands.measure") is None:
        pytest.skip("animsmith measure (animsmith/commands/measure.py) does not exist yet")
    bad = tmp_path / "bad.glb"
    bad.write_bytes(b"glTF" + struct.pack("<II", 2, 0xFFFFFFFF))
    proc = subprocess.run([sys.executable, "-m", "animsmith", "measure", str(bad)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"animsmith: {bad}:"), lines[0]
    assert "declares 4294967295 bytes" in lines[0]


def test_many_cubic_channels_sharing_one_output_split_once():
    # 3000 x 30 keys x 9 components = 810,000 key components: within the channel-key
    # budget (1 Mi), which a longer shared track would exceed
    raw = RawGltf()
    n = raw.node("b")
    keys = 30
    t = raw.floats(np.arange(keys, dtype=np.float32), "SCALAR")
    out = raw.floats(np.zeros((3 * keys, 3), np.float32), "VEC3")
    raw.animation("A", [(n, "translation", t, out, "CUBICSPLINE")] * 3000)
    data = raw.glb()
    tracemalloc.start()
    try:
        asset = load_asset_bytes(data, "cubic.glb")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    chans = asset.clips[0].channels
    assert len(chans) == 3000 and chans[0].values is chans[-1].values
    assert peak < FEW_MB + 10 * len(data)


def test_one_external_file_named_by_many_buffers_is_read_once(tmp_path, monkeypatch):
    monkeypatch.setattr(read_resources, "EXTERNAL_TOTAL_MAX_BYTES", 1000)
    raw, _ = minimal()
    text, blob = raw.gltf(uri="file", bin_name="b.bin")
    doc = json.loads(text)
    doc["buffers"] = doc["buffers"] * 500  # 500 x ~60 bytes would pass the 1000-byte total only if shared
    (tmp_path / "b.bin").write_bytes(blob)
    (tmp_path / "a.gltf").write_text(json.dumps(doc))
    asset = load_asset(str(tmp_path / "a.gltf"))
    assert len(asset.buffers) == 500 and asset.buffers[0] is asset.buffers[-1]


def test_main_file_size_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(read_mod, "MAX_FILE_BYTES", 100)
    p = tmp_path / "big.glb"
    p.write_bytes(minimal()[0].glb())
    with pytest.raises(LoadError, match="the limit is 100"):
        load_asset(str(p))
