"""Files with the same node graph share one Skeleton; nothing else changes.

``animsmith.io.read`` keeps the skeletons it built keyed by orjson's text of
``nodes``, ``skins``, ``scenes`` and ``scene``. Loading any sequence of files
with the cache must give exactly what loading each file with the cache off
gives (error message, or names, arrays with dtype/shape/flags, clips) — in
particular when a later file differs from a cached one only in JSON types
that compare equal in Python (``1`` vs ``true``, ``0.0`` vs ``-0.0``).
"""

from __future__ import annotations

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
from animsmith.io import read  # noqa: E402

pytestmark = pytest.mark.skipif(read._dumps is None, reason="the skeleton cache needs orjson")


def _uncached(monkeypatch, data: bytes, strict: bool = False):
    with monkeypatch.context() as m:
        m.setattr(read, "_skeleton_key", lambda doc: None)
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
    monkeypatch.setattr(read, "_SKELETONS", {})


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
    hits = 0
    for i, data in enumerate(cases):
        before = len(read._SKELETONS)
        cached = snapshot(data, False)
        hits += len(read._SKELETONS) == before and cached[0] != "error"
        assert cached == _uncached(monkeypatch, data), i
    assert hits > 0  # some mutation kept the node graph: the cache was used


def test_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(read, "_SKELETONS_MAX", 3)
    doc, blob = _rig_seed()
    for k in range(10):
        doc["nodes"][0]["translation"] = [float(k), 0.0, 0.0]
        read.load_asset_bytes(test_fuzz.repack(doc, blob), f"{k}.glb")
        assert len(read._SKELETONS) <= 3
