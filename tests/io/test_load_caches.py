"""The loader's caches across files change nothing but speed.

``animsmith.io.gltf`` keeps the skeletons it built keyed by orjson's text of
``nodes``, ``skins``, ``scenes`` and ``scene`` (files with the same node graph
share one read-only Skeleton), and the checked channel layouts keyed by the
text of ``animations`` plus node and accessor counts. Loading any sequence of
files with the caches must give exactly what loading each file with them off
gives (error message, or names, arrays with dtype/shape/flags, clips) — in
particular when a later file differs from a cached one only in JSON types
that compare equal in Python (``1`` vs ``true``, ``0.0`` vs ``-0.0``).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import test_fuzz  # noqa: E402
from test_read_fast import snapshot  # noqa: E402

from animsmith.errors import LoadError  # noqa: E402
from animsmith.io import gltf as read  # noqa: E402
from animsmith.io.gltf import clips as read_clips, document as read_document, skeleton as read_skeleton  # noqa: E402

pytestmark = pytest.mark.skipif(read_document._dumps is None, reason="the skeleton cache needs orjson")


def _uncached(monkeypatch, data: bytes, strict: bool = False):
    with monkeypatch.context() as m:
        m.setattr(read_skeleton, "json_key", lambda *a: None)
        m.setattr(read_clips, "json_key", lambda *a: None)
        return snapshot(data, strict)


def _rig_seed():
    """(doc, blob) of the first fuzz seed with a node hierarchy and an animation."""
    for _, data, _ in test_fuzz.seeds():
        doc, blob = test_fuzz.split(data)
        if any(n.get("children") for n in doc.get("nodes", ())) and doc.get("animations"):
            return doc, blob
    raise AssertionError("no seed with children")


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch):
    monkeypatch.setattr(read_skeleton, "_SKELETONS", {})
    monkeypatch.setattr(read_clips, "_LAYOUTS", {})


def test_same_rig_shares_one_read_only_skeleton():
    doc, blob = _rig_seed()
    a = read.load_asset_bytes(test_fuzz.repack(doc, blob), "a.glb")
    doc["animations"][0]["name"] = "other"
    b = read.load_asset_bytes(test_fuzz.repack(doc, blob), "b.glb")
    assert a.skeleton is b.skeleton
    assert a.clips[0].name != b.clips[0].name
    with pytest.raises(ValueError):
        a.skeleton.rest_translation[0, 0] = 1.0


def test_changed_rest_pose_is_a_different_skeleton():
    doc, blob = _rig_seed()
    a = read.load_asset_bytes(test_fuzz.repack(doc, blob), "a.glb")
    doc["nodes"][0]["translation"] = [0.0, 2.5, 0.0]
    b = read.load_asset_bytes(test_fuzz.repack(doc, blob), "b.glb")
    assert a.skeleton is not b.skeleton
    root = b.skeleton.bone_of_node(0)
    np.testing.assert_array_equal(b.skeleton.rest_translation[root], [0.0, 2.5, 0.0])


def test_json_types_that_compare_equal_do_not_collide(monkeypatch):
    """``true == 1`` and ``-0.0 == 0.0`` in Python; the cache key tells them apart."""
    doc, blob = _rig_seed()
    parent = next(i for i, n in enumerate(doc["nodes"]) if 1 in (n.get("children") or ()))
    read.load_asset_bytes(test_fuzz.repack(doc, blob), "good.glb")  # cached
    assert doc.get("scene") == 0
    for field, value in (("children", True), ("scene", False)):
        doc, blob = _rig_seed()
        if field == "scene":
            doc["scene"] = value
        else:
            kids = doc["nodes"][parent]["children"]
            kids[kids.index(1)] = value
        hostile = test_fuzz.repack(doc, blob)
        with pytest.raises(LoadError):
            read.load_asset_bytes(hostile, "hostile.glb")
        assert snapshot(hostile, False) == _uncached(monkeypatch, hostile)

    doc, blob = _rig_seed()
    doc["nodes"][0]["translation"] = [0.0, 1.0, 0.0]
    plus = test_fuzz.repack(doc, blob)
    doc["nodes"][0]["translation"] = [-0.0, 1.0, 0.0]
    minus = test_fuzz.repack(doc, blob)
    a = read.load_asset_bytes(plus, "plus.glb")
    b = read.load_asset_bytes(minus, "minus.glb")
    root = a.skeleton.bone_of_node(0)
    assert not np.signbit(a.skeleton.rest_translation[root, 0])
    assert np.signbit(b.skeleton.rest_translation[root, 0])


@pytest.mark.parametrize("batch", range(3))
def test_fuzz_sequence_same_with_and_without_cache(monkeypatch, batch):
    """Seeds and their mutations loaded one after another (the cache filling
    with earlier files' skeletons) give what each gives alone, uncached."""
    cases = [data for _, data, _ in test_fuzz.seeds()]
    cases += [test_fuzz.make_case(batch, c)[1] for c in range(test_fuzz.CASES_PER_BATCH)]
    hits = layout_hits = 0
    for i, data in enumerate(cases):
        before, layouts = len(read_skeleton._SKELETONS), len(read_clips._LAYOUTS)
        cached = snapshot(data, False)
        ok = cached[0] != "error"
        hits += len(read_skeleton._SKELETONS) == before and ok
        layout_hits += len(read_clips._LAYOUTS) == layouts > 0 and ok
        assert cached == _uncached(monkeypatch, data), i
        assert snapshot(data, True) == _uncached(monkeypatch, data, True), i
    assert hits > 0 and layout_hits > 0  # some mutations kept the graph / layout: the caches were used


def test_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(read_skeleton, "_SKELETONS_MAX", 3)
    doc, blob = _rig_seed()
    for k in range(10):
        doc["nodes"][0]["translation"] = [float(k), 0.0, 0.0]
        read.load_asset_bytes(test_fuzz.repack(doc, blob), f"{k}.glb")
        assert len(read_skeleton._SKELETONS) <= 3


def test_same_animation_layout_is_checked_once(monkeypatch):
    """Two files whose ``animations`` JSON is identical: the second reuses the checked
    layout (no ``_channel_table`` call) and still gets its own key data."""
    doc, blob = _rig_seed()
    calls = []
    real = read_clips._channel_table
    monkeypatch.setattr(read_clips, "_channel_table", lambda *a: calls.append(1) or real(*a))
    a = read.load_asset_bytes(test_fuzz.repack(doc, blob), "a.glb")
    first = len(calls)
    assert first > 0 and len(read_clips._LAYOUTS) == 1
    # same layout, other key data: flip the sign bit of the BIN chunk's last float
    other = bytearray(blob)
    other[-1] ^= 0x80
    b = read.load_asset_bytes(test_fuzz.repack(doc, bytes(other)), "b.glb")
    assert len(calls) == first  # layout reused
    assert [ch.output_accessor for ch in a.clips[0].channels] == [ch.output_accessor for ch in b.clips[0].channels]
    va = np.concatenate([ch.values.reshape(-1) for ch in a.clips[0].channels])
    vb = np.concatenate([ch.values.reshape(-1) for ch in b.clips[0].channels])
    assert (va.view(np.uint32) != vb.view(np.uint32)).sum() == 1  # the changed bit shows through


def test_changed_channel_target_is_a_new_layout():
    doc, blob = _rig_seed()
    a = read.load_asset_bytes(test_fuzz.repack(doc, blob), "a.glb")
    chans = doc["animations"][0]["channels"]
    target = chans[-1]["target"]
    other_node = next(i for i in range(len(doc["nodes"])) if i != target["node"])
    target["node"] = other_node
    b = read.load_asset_bytes(test_fuzz.repack(doc, blob), "b.glb")
    assert len(read_clips._LAYOUTS) == 2
    assert b.clips[0].channels[-1].node == other_node != a.clips[0].channels[-1].node


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "null"])
def test_non_json_numbers_cannot_reach_a_cache_key(monkeypatch, literal):
    """orjson writes NaN/Infinity as ``null``; documents holding them must never be
    parsed (the stdlib fallback is as strict as orjson), so a file with ``null``
    there is judged on its own after one with ``NaN``."""
    import json

    monkeypatch.setattr(read_document, "_loads", read_document._stdlib_loads)  # every document through the stdlib parser
    doc, blob = _rig_seed()
    doc["asset"]["generator"] = "back\\\\slash"  # escapes in the text too
    doc["nodes"][0]["translation"] = [12345.5, 0, 0]
    text = json.dumps(doc, separators=(",", ":"))
    assert "12345.5" in text and "\\\\" in text
    data = test_fuzz.repack(None, blob, text.replace("12345.5", literal).encode())
    with pytest.raises(LoadError) as got:
        read.load_asset_bytes(data, "x.glb")
    if literal == "null":
        assert "translation" in str(got.value)
    else:
        assert "JSON is invalid" in str(got.value)
    assert snapshot(data, False) == _uncached(monkeypatch, data)
    assert not read_skeleton._SKELETONS and not read_clips._LAYOUTS


def test_stdlib_parser_rejects_lone_surrogates_like_orjson(monkeypatch):
    """A lone surrogate escape is invalid for orjson; the stdlib fallback agrees (else a
    renderer would later fail to encode the name), while a proper pair is text."""
    doc, blob = _rig_seed()
    doc["nodes"][0]["name"] = "NAME"
    text = json.dumps(doc, separators=(",", ":"))
    monkeypatch.setattr(read_document, "_loads", read_document._stdlib_loads)  # through the stdlib parser
    lone = test_fuzz.repack(None, blob, text.replace("NAME", "\\ud800x").encode())
    with pytest.raises(LoadError, match="JSON is invalid.*surrogate"):
        read.load_asset_bytes(lone, "lone.glb")
    pair = test_fuzz.repack(None, blob, text.replace("NAME", "\\ud83d\\ude00").encode())
    asset = read.load_asset_bytes(pair, "pair.glb")
    assert asset.skeleton.names[asset.skeleton.bone_of_node(0)] == "\U0001F600"
    monkeypatch.undo()  # orjson (when installed) says the same
    with pytest.raises(LoadError, match="JSON is invalid"):
        read.load_asset_bytes(lone, "lone.glb")
