"""Loader: encodings, skeleton, clips, containers and the real corpus.

Expectations are independent of our code: glTF 2.0 normalization formulas on
known integers, hand-written matrices, the corpus README, and files written by
pygltflib's own API.
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np
import pytest

from animsmith.errors import LoadError
from animsmith.io.gltf import load_asset, load_asset_bytes
from gltf_raw import RawGltf, minimal, pack_glb, json_bytes

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def load(raw: RawGltf, name: str = "t.glb", **kw):
    return load_asset_bytes(raw.glb(), name, **kw)


def one_channel(path, out_array, out_type, *, normalized=False, interp=None, keys=None):
    raw = RawGltf()
    n = raw.node("bone")
    k = out_array.shape[0] // (3 if interp == "CUBICSPLINE" else 1)
    t = raw.floats(np.arange(k, dtype=np.float32) if keys is None else keys, "SCALAR")
    v = raw.accessor(out_array, out_type, normalized=normalized)
    raw.animation("A", [(n, path, t, v, interp)])
    return raw


# --------------------------------------------------------------------------
# Component types and normalization (glTF 2.0 "Animation samplers" table)
# --------------------------------------------------------------------------

NORMALIZED_CASES = [
    # dtype, stored ints (one VEC4 per row), expected floats by the spec rule
    (np.int8, [[-128, -127, 0, 127], [64, -64, 1, -1]],
     [[-1.0, -1.0, 0.0, 1.0], [64 / 127, -64 / 127, 1 / 127, -1 / 127]]),
    (np.uint8, [[0, 51, 255, 128], [102, 153, 204, 1]],
     [[0.0, 0.2, 1.0, 128 / 255], [0.4, 0.6, 0.8, 1 / 255]]),
    (np.int16, [[-32768, -32767, 0, 32767], [16384, -1, 2, 100]],
     [[-1.0, -1.0, 0.0, 1.0], [16384 / 32767, -1 / 32767, 2 / 32767, 100 / 32767]]),
    (np.uint16, [[0, 65535, 13107, 32768], [1, 2, 3, 4]],
     [[0.0, 1.0, 0.2, 32768 / 65535], [1 / 65535, 2 / 65535, 3 / 65535, 4 / 65535]]),
]


@pytest.mark.parametrize("dtype,ints,expected", NORMALIZED_CASES)
def test_normalized_integer_rotations(dtype, ints, expected):
    raw = one_channel("rotation", np.array(ints, dtype=dtype), "VEC4", normalized=True)
    ch = load(raw).clips[0].channels[0]
    assert ch.values.dtype == np.float32
    np.testing.assert_allclose(ch.values, np.array(expected, dtype=np.float32), rtol=0, atol=1e-7)
    assert ch.output_normalized is True
    assert ch.output_component_type == {np.int8: 5120, np.uint8: 5121, np.int16: 5122, np.uint16: 5123}[dtype]


def test_float_outputs_are_exact():
    vals = np.array([[0.1, -2.5, 3e7], [np.nan, np.inf, -0.0]], dtype=np.float32)
    ch = load(one_channel("translation", vals, "VEC3")).clips[0].channels[0]
    assert ch.values.tobytes() == vals.tobytes()  # NaN/Inf values kept bit-exact
    assert ch.output_component_type == 5126 and ch.output_normalized is False


@pytest.mark.parametrize(
    "path,arr,type_,normalized,needle",
    [
        ("rotation", np.zeros((2, 4), np.uint32), "VEC4", True, "expected VEC4 FLOAT"),
        ("rotation", np.zeros((2, 4), np.int16), "VEC4", False, "SHORT"),
        ("rotation", np.zeros((2, 3), np.float32), "VEC3", False, "expected VEC4"),
        ("translation", np.zeros((2, 3), np.int16), "VEC3", True, "expected VEC3 FLOAT"),
        ("scale", np.zeros((2, 4), np.float32), "VEC4", False, "expected VEC3 FLOAT"),
    ],
)
def test_wrong_output_encodings_refused(path, arr, type_, normalized, needle):
    with pytest.raises(LoadError, match=needle):
        load(one_channel(path, arr, type_, normalized=normalized))


def test_input_must_be_scalar_float():
    raw = RawGltf()
    n = raw.node("b")
    t = raw.accessor(np.array([0, 1], np.uint16), "SCALAR")
    v = raw.floats(np.zeros((2, 3)), "VEC3")
    raw.animation("A", [(n, "translation", t, v)])
    with pytest.raises(LoadError, match="expected SCALAR FLOAT"):
        load(raw)


# --------------------------------------------------------------------------
# Sparse, strides, CUBICSPLINE
# --------------------------------------------------------------------------


@pytest.mark.parametrize("index_dtype", [np.uint8, np.uint16, np.uint32])
def test_sparse_with_base_view(index_dtype):
    raw = RawGltf()
    n = raw.node("b")
    t = raw.floats([0, 1, 2, 3], "SCALAR")
    base = np.array([[1, 1, 1], [2, 2, 2], [3, 3, 3], [4, 4, 4]], np.float32)
    iv = raw.view(np.array([1, 3], index_dtype).tobytes())
    vv = raw.view(np.array([[10, 20, 30], [40, 50, 60]], np.float32).tobytes())
    acc = raw.accessor(base, "VEC3")
    raw.doc["accessors"][acc]["sparse"] = {
        "count": 2,
        "indices": {"bufferView": iv, "componentType": {np.uint8: 5121, np.uint16: 5123, np.uint32: 5125}[index_dtype]},
        "values": {"bufferView": vv},
    }
    raw.animation("A", [(n, "translation", t, acc)])
    vals = load(raw).clips[0].channels[0].values
    np.testing.assert_array_equal(vals, [[1, 1, 1], [10, 20, 30], [3, 3, 3], [40, 50, 60]])


def test_sparse_without_base_view_is_zero_filled():
    raw = RawGltf()
    n = raw.node("b")
    t = raw.floats([0, 1, 2], "SCALAR")
    iv = raw.view(np.array([2], np.uint16).tobytes())
    vv = raw.view(np.array([[7, 8, 9]], np.float32).tobytes())
    acc = raw.accessor(
        None, "VEC3", count=3, component_type=5126,
        sparse={"count": 1, "indices": {"bufferView": iv, "componentType": 5123}, "values": {"bufferView": vv}},
    )
    raw.animation("A", [(n, "translation", t, acc)])
    vals = load(raw).clips[0].channels[0].values
    np.testing.assert_array_equal(vals, [[0, 0, 0], [0, 0, 0], [7, 8, 9]])


def test_sparse_normalized_rotation():
    raw = RawGltf()
    n = raw.node("b")
    t = raw.floats([0, 1], "SCALAR")
    base = np.array([[0, 0, 0, 127], [0, 0, 0, 127]], np.int8)
    iv = raw.view(np.array([0], np.uint8).tobytes())
    vv = raw.view(np.array([[127, 0, 0, 0]], np.int8).tobytes())
    acc = raw.accessor(base, "VEC4", normalized=True)
    raw.doc["accessors"][acc]["sparse"] = {
        "count": 1, "indices": {"bufferView": iv, "componentType": 5121}, "values": {"bufferView": vv}}
    raw.animation("A", [(n, "rotation", t, acc)])
    np.testing.assert_array_equal(load(raw).clips[0].channels[0].values, [[1, 0, 0, 0], [0, 0, 0, 1]])


def test_interleaved_byte_stride():
    # Per key: VEC3 translation (12 bytes) then VEC4 rotation (16) -> stride 28.
    tr = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.float32)
    rot = np.array([[0, 0, 0, 1], [0, 0.5, 0, 0.5], [1, 0, 0, 0]], np.float32)
    blob = b"".join(tr[k].tobytes() + rot[k].tobytes() for k in range(3))
    raw = RawGltf()
    n = raw.node("b")
    t = raw.floats([0, 1, 2], "SCALAR")
    view = raw.view(blob, byte_stride=28)
    a_t = raw.accessor(tr, "VEC3", view=view)
    a_r = raw.accessor(rot, "VEC4", view=view, byte_offset=12)
    raw.animation("A", [(n, "translation", t, a_t), (n, "rotation", t, a_r)])
    chans = load(raw).clips[0].channels
    np.testing.assert_array_equal(chans[0].values, tr)
    np.testing.assert_array_equal(chans[1].values, rot)


def test_cubicspline_triplets_split():
    k = 3
    in_t = np.arange(k * 3, dtype=np.float32).reshape(k, 3) + 100
    val = np.arange(k * 3, dtype=np.float32).reshape(k, 3)
    out_t = np.arange(k * 3, dtype=np.float32).reshape(k, 3) - 100
    stacked = np.stack([in_t, val, out_t], axis=1).reshape(3 * k, 3)  # [a_k, v_k, b_k] per key
    ch = load(one_channel("translation", stacked, "VEC3", interp="CUBICSPLINE")).clips[0].channels[0]
    assert ch.interpolation == "CUBICSPLINE"
    assert ch.times.shape == (k,)
    np.testing.assert_array_equal(ch.in_tangents, in_t)
    np.testing.assert_array_equal(ch.values, val)
    np.testing.assert_array_equal(ch.out_tangents, out_t)


def test_cubicspline_count_must_be_three_times_keys():
    raw = one_channel("translation", np.zeros((3, 3), np.float32), "VEC3", keys=[0, 1, 2])
    raw.doc["animations"][0]["samplers"][0]["interpolation"] = "CUBICSPLINE"
    with pytest.raises(LoadError, match="3 key times but 3 output values"):
        load(raw)


def test_interpolation_default_and_step():
    raw = RawGltf()
    n = raw.node("b")
    t = raw.floats([0, 1], "SCALAR")
    v1 = raw.floats(np.zeros((2, 3)), "VEC3")
    v2 = raw.floats(np.ones((2, 3)), "VEC3")
    raw.animation("A", [(n, "translation", t, v1), (n, "scale", t, v2, "STEP")])
    chans = load(raw).clips[0].channels
    assert [c.interpolation for c in chans] == ["LINEAR", "STEP"]
    assert chans[0].in_tangents is None


def test_shared_input_accessor_gives_one_times_object():
    raw = RawGltf()
    a, b = raw.node("a", children=[1]), raw.node("b")
    t = raw.floats([0, 0.25, 0.5], "SCALAR")
    va = raw.floats(np.zeros((3, 3)), "VEC3")
    vb = raw.floats(np.tile([0, 0, 0, 1], (3, 1)), "VEC4")
    raw.animation("A", [(a, "translation", t, va), (b, "rotation", t, vb)])
    raw.animation("B", [(b, "rotation", t, vb)])
    asset = load(raw)
    c0, c1 = asset.clips[0].channels
    assert c0.times is c1.times
    assert asset.clips[1].channels[0].times is c0.times
    assert c0.times.dtype == np.float32 and c0.times.shape == (3,)
    assert (c0.sampler, c0.input_accessor, c0.output_accessor) == (0, t, va)
    assert (c1.sampler, c1.output_accessor) == (1, vb)


# --------------------------------------------------------------------------
# Skeleton
# --------------------------------------------------------------------------


def test_bone_order_is_dfs_preorder_from_roots_in_file_order():
    raw = RawGltf()
    raw.node("leaf")                      # 0: child of 2 (listed second)
    raw.node(None)                        # 1: root, unnamed
    raw.node("mid", children=[3, 0])      # 2: root
    raw.node("first", children=[4])       # 3
    raw.node("deep")                      # 4
    sk = load(raw).skeleton
    assert list(sk.node_indices) == [1, 2, 3, 4, 0]
    assert sk.names == ["node1", "mid", "first", "deep", "leaf"]
    assert list(sk.parents) == [-1, -1, 1, 2, 1]
    assert sk.bone_of_node(0) == 4 and sk.bone_of_node(2) == 1


def test_every_node_is_a_bone_with_joint_and_scene_flags():
    raw = RawGltf()
    raw.node("Armature", children=[1], scale=[0.01, 0.01, 0.01])  # not a joint
    raw.node("Hips", children=[2])
    raw.node("Spine")
    raw.node("Camera")                                             # root outside scene 1
    raw.scene([3], default=False)                                  # scene 0
    raw.scene([0])                                                 # scene 1 = default
    raw.skin([1, 2])
    sk = load(raw).skeleton
    assert sk.names == ["Armature", "Hips", "Spine", "Camera"]
    assert list(sk.is_joint) == [False, True, True, False]
    assert list(sk.in_scene) == [True, True, True, False]
    np.testing.assert_allclose(sk.rest_scale[0], [0.01, 0.01, 0.01])
    np.testing.assert_allclose(np.diag(sk.rest_matrix[0]), [0.01, 0.01, 0.01, 1])


def test_without_scenes_everything_is_in_scene_and_scene_key_defaults_to_zero():
    raw = RawGltf()
    raw.node("a")
    raw.node("b")
    assert list(load(raw).skeleton.in_scene) == [True, True]
    raw.doc["scenes"] = [{"nodes": [1]}, {"nodes": [0]}]  # no "scene": scene 0 is default
    assert list(load(raw).skeleton.in_scene) == [False, True]


def test_matrix_node_is_column_major_and_decomposed():
    # Hand-built row-major M = T(1,2,3) * Rz(90deg) * S(2,3,4).
    rz = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]], float)
    m = np.eye(4)
    m[:3, :3] = rz * np.array([2, 3, 4])[None, :]
    m[:3, 3] = [1, 2, 3]
    raw = RawGltf()
    raw.node("M", children=[1], matrix=[float(x) for x in m.T.reshape(-1)])  # column-major in the file
    raw.node("child", translation=[1, 0, 0])
    sk = load(raw).skeleton
    np.testing.assert_allclose(sk.rest_matrix[0], m, atol=1e-12)
    assert list(sk.has_matrix) == [True, False]
    np.testing.assert_allclose(sk.rest_translation[0], [1, 2, 3])
    np.testing.assert_allclose(sk.rest_scale[0], [2, 3, 4], atol=1e-12)
    s = np.sqrt(0.5)
    q = sk.rest_rotation[0] * np.sign(sk.rest_rotation[0][3])
    np.testing.assert_allclose(q, [0, 0, s, s], atol=1e-12)
    # The child's rest origin in model space: M @ (1,0,0,1) = (1,2,3) + Rz*(2,0,0) = (1,4,3).
    np.testing.assert_allclose((sk.rest_matrix[0] @ sk.rest_matrix[1])[:3, 3], [1, 4, 3], atol=1e-12)


def test_trs_rest_pose():
    raw = RawGltf()
    s = np.sqrt(0.5)
    raw.node("b", translation=[1, 2, 3], rotation=[s, 0, 0, s], scale=[1, 2, 1])
    sk = load(raw).skeleton
    expected = np.array([[1, 0, 0, 1], [0, 0, -1, 2], [0, 2, 0, 3], [0, 0, 0, 1]], float)  # T * Rx(90) * S
    np.testing.assert_allclose(sk.rest_matrix[0], expected, atol=1e-12)
    np.testing.assert_allclose(sk.rest_rotation[0], [s, 0, 0, s])
    assert not sk.has_matrix[0]


# --------------------------------------------------------------------------
# Clips
# --------------------------------------------------------------------------


def test_clip_names_unnamed_and_repeated():
    raw, ix = minimal()
    a = raw.doc["animations"][0]
    raw.doc["animations"] = [dict(a, name="Walk"), {k: v for k, v in a.items() if k != "name"},
                             dict(a, name="Walk"), dict(a, name="Walk"), dict(a, name="")]
    clips = load(raw).clips
    assert [c.name for c in clips] == ["Walk", "animation1", "Walk#1", "Walk#2", "animation4"]
    assert [c.index for c in clips] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("fast", [True, False])
def test_generated_clip_names_never_take_a_name_the_file_uses(fast, monkeypatch):
    """[walk, walk, unnamed, animation2, walk#1]: the file's own "animation2" and "walk#1"
    keep their names; the repeat and the unnamed clip get the next free suffix."""
    import animsmith.io.gltf.clips as read

    if not fast:
        monkeypatch.setattr(read, "_build_clips_bulk", lambda *a, **k: None)
    raw, ix = minimal()
    a = raw.doc["animations"][0]
    raw.doc["animations"] = [dict(a, name="walk"), dict(a, name="walk"), {k: v for k, v in a.items() if k != "name"},
                             dict(a, name="animation2"), dict(a, name="walk#1")]
    clips = load(raw).clips
    assert [c.name for c in clips] == ["walk", "walk#2", "animation2#1", "animation2", "walk#1"]
    assert len({c.name for c in clips}) == 5


@pytest.mark.parametrize("fast", [True, False])
def test_generated_node_names_never_take_a_name_the_file_uses(fast, monkeypatch):
    import animsmith.io.gltf.skeleton as read

    if not fast:
        monkeypatch.setattr(read, "_node_fields_bulk", lambda nodes: None)
    raw = RawGltf()
    a = raw.node("node1", children=[1, 2])
    raw.node("")  # node 1, unnamed: "node1" is taken by node 0
    raw.node(None)  # node 2: "node2" is free
    raw.scene([a])
    names = load(raw).skeleton.names
    assert list(names) == ["node1", "node1#1", "node2"]


def test_weight_channels_counted_and_pointer_channels_skipped():
    raw, ix = minimal()
    w = raw.floats([[0.0], [0.5], [1.0]], "SCALAR")
    anim = raw.doc["animations"][0]
    anim["samplers"].append({"input": ix["input"], "output": w})
    anim["channels"].append({"sampler": 1, "target": {"node": ix["child"], "path": "weights"}})
    anim["channels"].append({"sampler": 1, "target": {"node": ix["child"], "path": "weights"}})
    anim["channels"].append({"sampler": 1, "target": {"path": "pointer",
                             "extensions": {"KHR_animation_pointer": {"pointer": "/materials/0/x"}}}})
    anim["extras"] = {"contacts": [1, 2]}
    clip = load(raw).clips[0]
    assert clip.weight_channel_count == 2
    assert len(clip.channels) == 1
    assert clip.extras == {"contacts": [1, 2]}
    ch = clip.channels[0]
    assert (ch.bone, ch.node, ch.path) == (1, 1, "translation")
    np.testing.assert_array_equal(ch.values[:, 0], [0, 1, 2])


def test_strict_times_and_lenient_mode():
    raw, _ = minimal(keys=(0.0, 0.5, 0.5))
    with pytest.raises(LoadError, match=r"animation 0 'Move' channel 0: key times not strictly increasing"):
        load(raw)
    ch = load(raw, strict=False).clips[0].channels[0]
    np.testing.assert_array_equal(ch.times, [0.0, 0.5, 0.5])

    raw, _ = minimal(keys=(0.0, float("nan"), 1.0))
    with pytest.raises(LoadError, match="non-finite key time"):
        load(raw)
    assert np.isnan(load(raw, strict=False).clips[0].channels[0].times[1])

    raw, _ = minimal(keys=(0.0, 1.0, float("inf")))
    with pytest.raises(LoadError, match="non-finite key time inf at key 2"):
        load(raw)


def test_asset_fields():
    raw, _ = minimal()
    raw.doc["asset"]["extras"] = {"sim": 1}
    data = raw.glb()
    asset = load_asset_bytes(data, "x.glb")
    assert asset.container == "glb" and asset.path == "x.glb"
    assert asset.gltf["animations"][0]["name"] == "Move"
    assert asset.bin_chunk == bytes(raw.blob) and asset.buffers == [asset.bin_chunk]
    assert asset.extras == {"sim": 1}


# --------------------------------------------------------------------------
# Containers: .gltf, data URIs, external buffers, sniffing
# --------------------------------------------------------------------------


def test_gltf_with_data_uri(tmp_path):
    raw, _ = minimal()
    text, blob = raw.gltf(uri="data")
    p = tmp_path / "clip.gltf"
    p.write_bytes(text)
    asset = load_asset(str(p))
    assert asset.container == "gltf" and asset.bin_chunk is None
    assert asset.buffers == [blob]
    np.testing.assert_array_equal(asset.clips[0].channels[0].times, [0, 0.5, 1])


@pytest.mark.parametrize("uri,filename", [("buffer.bin", "buffer.bin"), ("sub/clip%20data.bin", "sub/clip data.bin"),
                                          ("./buffer.bin", "buffer.bin")])
def test_gltf_with_external_bin(tmp_path, uri, filename):
    raw, _ = minimal()
    text, blob = raw.gltf(uri=uri)
    (tmp_path / filename).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / filename).write_bytes(blob)
    (tmp_path / "clip.GLTF").write_bytes(text)
    asset = load_asset(str(tmp_path / "clip.GLTF"))
    np.testing.assert_array_equal(asset.clips[0].channels[0].values[:, 0], [0, 1, 2])
    # load_asset_bytes resolves against base_dir (default: the file's folder).
    assert load_asset_bytes(text, "elsewhere/x.gltf", base_dir=str(tmp_path)).buffers == [blob]


@pytest.mark.parametrize(
    "uri",
    ["../buffer.bin", "..", "/etc/passwd", "sub/../../buffer.bin", "sub\\buffer.bin", "%2e%2e/buffer.bin",
     "sub%2Fbuffer.bin", "sub%5cbuffer.bin", "buffer.bin%00", "%GG.bin", "%2.bin", "C:/x.bin",
     "file:///etc/passwd", "http://example.com/b.bin"],
)
def test_escaping_external_paths_refused(tmp_path, uri):
    inner = tmp_path / "inner"
    (inner / "sub").mkdir(parents=True)
    raw, _ = minimal()
    text, blob = raw.gltf(uri=uri)
    (tmp_path / "buffer.bin").write_bytes(blob)
    (inner / "clip.gltf").write_bytes(text)
    with pytest.raises(LoadError, match="unsafe external resource|malformed percent escape") as err:
        load_asset(str(inner / "clip.gltf"))
    assert "\n" not in str(err.value)


def test_symlink_escaping_the_folder_refused(tmp_path):
    inner = tmp_path / "inner"
    inner.mkdir()
    raw, _ = minimal()
    text, blob = raw.gltf(uri="link.bin")
    (tmp_path / "secret.bin").write_bytes(blob)
    os.symlink(tmp_path / "secret.bin", inner / "link.bin")
    (inner / "clip.gltf").write_bytes(text)
    with pytest.raises(LoadError, match="escapes the file's folder"):
        load_asset(str(inner / "clip.gltf"))


def test_missing_external_bin(tmp_path):
    raw, _ = minimal()
    text, _ = raw.gltf(uri="file", bin_name="nope.bin")
    (tmp_path / "a.gltf").write_bytes(text)
    with pytest.raises(LoadError, match="external resource .nope.bin.: no such file or directory$"):
        load_asset(str(tmp_path / "a.gltf"))


def test_sniffing_and_extensions(tmp_path):
    raw, _ = minimal()
    glb = raw.glb()
    (tmp_path / "upper.GLB").write_bytes(glb)
    assert load_asset(str(tmp_path / "upper.GLB")).container == "glb"
    (tmp_path / "named.gltf").write_bytes(glb)  # GLB bytes behind a .gltf name: sniffed
    assert load_asset(str(tmp_path / "named.gltf")).container == "glb"
    (tmp_path / "clip.bin").write_bytes(glb)
    assert load_asset(str(tmp_path / "clip.bin")).container == "glb"
    (tmp_path / "notes.txt").write_bytes(b"hello")
    with pytest.raises(LoadError, match="unsupported input"):
        load_asset(str(tmp_path / "notes.txt"))
    with pytest.raises(LoadError, match="directory"):
        load_asset(str(tmp_path))
    with pytest.raises(LoadError, match="no such file or directory$"):
        load_asset(str(tmp_path / "missing.glb"))


def test_error_names_file_and_is_one_line(tmp_path):
    p = tmp_path / "bad.glb"
    p.write_bytes(b"glTF" + struct.pack("<II", 2, (1 << 32) - 1))
    with pytest.raises(LoadError) as err:
        load_asset(str(p))
    assert err.value.path == str(p)
    assert err.value.message.startswith(str(p) + ": ")
    assert "\n" not in err.value.message


# --------------------------------------------------------------------------
# Files written by another tool (pygltflib's own API, not our writer)
# --------------------------------------------------------------------------


def test_file_written_by_pygltflib(tmp_path):
    import pygltflib as g

    times = np.array([0.0, 0.5, 1.0], np.float32)
    rot = np.array([[0, 0, 0, 1], [0, 0.7071068, 0, 0.7071068], [0, 1, 0, 0]], np.float32)
    blob = times.tobytes() + rot.tobytes()
    doc = g.GLTF2(
        scene=0,
        scenes=[g.Scene(nodes=[0])],
        nodes=[g.Node(name="Hips", children=[1], translation=[0, 1, 0]), g.Node(name="Spine")],
        skins=[g.Skin(joints=[0, 1])],
        buffers=[g.Buffer(byteLength=len(blob))],
        bufferViews=[g.BufferView(buffer=0, byteOffset=0, byteLength=12),
                     g.BufferView(buffer=0, byteOffset=12, byteLength=48)],
        accessors=[g.Accessor(bufferView=0, componentType=g.FLOAT, count=3, type=g.SCALAR, min=[0.0], max=[1.0]),
                   g.Accessor(bufferView=1, componentType=g.FLOAT, count=3, type=g.VEC4)],
        animations=[g.Animation(name="Turn", samplers=[g.AnimationSampler(input=0, output=1, interpolation="STEP")],
                                channels=[g.AnimationChannel(sampler=0, target=g.AnimationChannelTarget(node=1, path="rotation"))])],
    )
    doc.set_binary_blob(blob)
    path = tmp_path / "pyg.glb"
    doc.save(str(path))
    asset = load_asset(str(path))
    assert asset.skeleton.names == ["Hips", "Spine"]
    np.testing.assert_allclose(asset.skeleton.rest_translation[0], [0, 1, 0])
    clip = asset.clip("Turn")
    ch = clip.channels[0]
    assert (ch.bone, ch.path, ch.interpolation) == (1, "rotation", "STEP")
    np.testing.assert_array_equal(ch.times, times)
    np.testing.assert_array_equal(ch.values, rot)
    assert clip.duration_s == 1.0


# --------------------------------------------------------------------------
# The real corpus (expectations from tests/data/README.md and the raw JSON)
# --------------------------------------------------------------------------


def raw_json(name):
    from animsmith.io.glb import split_glb

    with open(os.path.join(DATA, name), "rb") as fh:
        return json.loads(split_glb(fh.read())[0])


@pytest.mark.parametrize("name", ["khr_Fox.glb", "khr_CesiumMan.glb", "three_RobotExpressive.glb", "khr_RiggedFigure.glb"])
def test_corpus_loads_every_node_and_channel(name):
    doc = raw_json(name)
    asset = load_asset(os.path.join(DATA, name))
    sk = asset.skeleton
    assert sk.bone_count == len(doc["nodes"])
    assert sorted(sk.node_indices.tolist()) == list(range(len(doc["nodes"])))
    assert all(sk.parents[b] < b for b in range(sk.bone_count))
    joints = {j for s in doc.get("skins", []) for j in s["joints"]}
    assert int(sk.is_joint.sum()) == len(joints)
    assert len(asset.clips) == len(doc["animations"])
    for clip, anim in zip(asset.clips, doc["animations"]):
        paths = [c["target"]["path"] for c in anim["channels"]]
        assert clip.weight_channel_count == paths.count("weights")
        assert len(clip.channels) == len(paths) - paths.count("weights")
        for ch in clip.channels:
            assert ch.values.shape == (ch.key_count, {"rotation": 4}.get(ch.path, 3))
            assert doc["nodes"][ch.node].get("name", f"node{ch.node}") == sk.names[ch.bone]


def test_corpus_fox():
    asset = load_asset(os.path.join(DATA, "khr_Fox.glb"))
    assert asset.clip_names == ["Survey", "Walk", "Run"]
    for clip, dur in zip(asset.clips, [3.42, 0.71, 1.16]):
        assert abs(clip.duration_s - dur) < 0.01
    assert int(asset.skeleton.is_joint.sum()) == 24
    for bone in ["b_Hip_01", "b_LeftFoot01_017", "b_RightFoot01_021", "_rootJoint"]:
        assert asset.skeleton.find(bone) is not None


def test_corpus_cesium_man():
    asset = load_asset(os.path.join(DATA, "khr_CesiumMan.glb"))
    assert len(asset.clips) == 1 and asset.clips[0].name == "animation0"
    clip = asset.clips[0]
    assert abs(clip.start_s - 0.0417) < 0.001
    assert abs((clip.duration_s - clip.start_s) - 1.96) < 0.01
    sk = asset.skeleton
    assert int(sk.is_joint.sum()) == 19
    z_up = sk.find("Z_UP")
    assert sk.has_matrix[z_up] and sk.parents[z_up] == -1
    # Z_UP turns authored +Z into +Y (glTF up).
    np.testing.assert_allclose(sk.rest_matrix[z_up] @ [0, 0, 1, 0], [0, 1, 0, 0], atol=1e-12)


def test_corpus_robot_expressive():
    asset = load_asset(os.path.join(DATA, "three_RobotExpressive.glb"))
    assert len(asset.clips) == 14
    assert abs(asset.clip("Walking").duration_s - 0.96) < 0.01
    assert abs(asset.clip("Running").duration_s - 0.96) < 0.01
    assert sum(c.weight_channel_count for c in asset.clips) > 0
    sk = asset.skeleton
    assert int(sk.is_joint.sum()) == 43
    np.testing.assert_allclose(sk.rest_scale[sk.find("RobotArmature")], [100, 100, 100])


def test_corpus_rigged_figure():
    asset = load_asset(os.path.join(DATA, "khr_RiggedFigure.glb"))
    assert len(asset.clips) == 1
    clip = asset.clips[0]
    assert abs(clip.duration_s - 1.25) < 0.01
    assert {ch.key_count for ch in clip.channels} == {2}
    assert int(asset.skeleton.is_joint.sum()) == 19


def _naive_accessor(doc, bin_chunk, index):
    """Decode an accessor element by element with struct (no numpy views)."""
    acc = doc["accessors"][index]
    view = doc["bufferViews"][acc["bufferView"]]
    fmt = {5126: "f", 5120: "b", 5121: "B", 5122: "h", 5123: "H"}[acc["componentType"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc["type"]]
    size = struct.calcsize("<" + fmt)
    stride = view.get("byteStride", size * width)
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    rows = [struct.unpack_from("<" + fmt * width, bin_chunk, start + k * stride) for k in range(acc["count"])]
    return np.array(rows, dtype=np.float64)


@pytest.mark.parametrize("name", ["khr_Fox.glb", "khr_CesiumMan.glb", "three_RobotExpressive.glb"])
def test_corpus_values_match_a_naive_struct_decoder(name):
    from animsmith.io.glb import split_glb

    with open(os.path.join(DATA, name), "rb") as fh:
        j, b = split_glb(fh.read())
    doc = json.loads(j)
    asset = load_asset(os.path.join(DATA, name))
    checked = 0
    for clip in asset.clips:
        for ch in clip.channels[:8]:
            times = _naive_accessor(doc, b, ch.input_accessor)[:, 0]
            np.testing.assert_array_equal(ch.times, times.astype(np.float32))
            if ch.output_component_type == 5126:
                np.testing.assert_array_equal(ch.values, _naive_accessor(doc, b, ch.output_accessor).astype(np.float32))
                checked += 1
    assert checked > 0
