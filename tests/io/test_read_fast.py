"""The loader's bulk paths give exactly what the per-item paths give.

``animsmith.io.gltf`` validates nodes (``_node_fields_bulk``) and channels,
samplers, accessors and buffer views (``_build_clips_bulk``) over whole lists
for files without problems, and falls back to the per-item code (which reports
the first problem in file order) otherwise. Here every file is loaded twice,
once as shipped and once with both bulk paths switched off, and the outcomes
must be identical: the same error message, or the same skeleton, clips,
channels, arrays (values, dtype, shape, flags) and array sharing. The inputs
are the corpus files, the fuzz seeds and a few hundred seeded fuzz mutations
of them (tests/product/test_fuzz.py ``make_case``).
"""

from __future__ import annotations

import os
import sys
from typing import Any, List

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import test_fuzz  # noqa: E402

from animsmith.errors import LoadError  # noqa: E402
from animsmith.io import gltf as read  # noqa: E402
from animsmith.io.gltf import clips as read_clips, resources as read_resources, skeleton as read_skeleton  # noqa: E402

SKELETON_ARRAYS = (
    "node_indices", "parents", "rest_translation", "rest_rotation", "rest_scale",
    "rest_matrix", "has_matrix", "is_joint", "in_scene",
)
CHANNEL_FIELDS = (
    "bone", "node", "path", "interpolation", "sampler", "input_accessor",
    "output_accessor", "output_component_type", "output_normalized",
)
CHANNEL_ARRAYS = ("times", "values", "in_tangents", "out_tangents")
MUTATION_BATCHES = 8  # x test_fuzz.CASES_PER_BATCH cases


@pytest.fixture(autouse=True)
def _no_skeleton_cache(monkeypatch):
    """Build every skeleton and channel layout here: a cached one would skip the
    paths under comparison (tests/io/test_load_caches.py compares caches on and off)."""
    monkeypatch.setattr(read_skeleton, "json_key", lambda *a: None)
    monkeypatch.setattr(read_clips, "json_key", lambda *a: None)


def _array_key(a: Any) -> Any:
    if a is None:
        return None
    return (a.dtype.str, a.shape, a.flags.c_contiguous, a.flags.writeable, a.tobytes())


def snapshot(data: bytes, strict: bool) -> Any:
    """Everything a caller can see of the load: the error, or the asset's content."""
    try:
        asset = read.load_asset_bytes(data, "case.glb", strict=strict)
    except LoadError as exc:
        return ("error", str(exc))
    sk = asset.skeleton
    out: List[Any] = [sk.names, sk._bone_of_node, [_array_key(getattr(sk, k)) for k in SKELETON_ARRAYS]]
    for clip in asset.clips:
        ids = {}  # which channels share one array object
        out.append((clip.name, clip.index, clip.weight_channel_count, clip.pointer_channel_count, type(clip.extras).__name__))
        for ch in clip.channels:
            out.append([getattr(ch, k) for k in CHANNEL_FIELDS])
            out.append([_array_key(getattr(ch, k)) for k in CHANNEL_ARRAYS])
            out.append([ids.setdefault(id(getattr(ch, k)), len(ids)) for k in ("times", "values")])
    out.append((asset.container, len(asset.buffers), type(asset.gltf).__name__))
    return out


def both_paths(monkeypatch, data: bytes, strict: bool):
    fast = snapshot(data, strict)
    with monkeypatch.context() as m:
        m.setattr(read_clips, "_build_clips_bulk", lambda *a: None)
        m.setattr(read_skeleton, "_node_fields_bulk", lambda nodes: None)
        general = snapshot(data, strict)
    return fast, general


def bulk_taken(monkeypatch, data: bytes) -> bool:
    """True when both bulk paths accepted ``data``."""
    taken = []
    clips_bulk, nodes_bulk = read_clips._build_clips_bulk, read_skeleton._node_fields_bulk
    with monkeypatch.context() as m:
        m.setattr(read_clips, "_build_clips_bulk", lambda *a: taken.append(clips_bulk(*a) is not None) or None)
        m.setattr(read_skeleton, "_node_fields_bulk", lambda nodes: taken.append(nodes_bulk(nodes) is not None) or None)
        try:
            read.load_asset_bytes(data, "case.glb", strict=False)
        except LoadError:
            pass
    return len(taken) == 2 and all(taken)


@pytest.mark.parametrize("strict", [False, True])
def test_seed_files_same_through_both_paths(monkeypatch, strict):
    taken = 0
    for name, data, _ in test_fuzz.seeds():
        fast, general = both_paths(monkeypatch, data, strict)
        assert fast == general, name
        taken += bulk_taken(monkeypatch, data)
    assert taken >= 3  # the bulk paths are really exercised


@pytest.mark.parametrize("batch", range(MUTATION_BATCHES))
def test_fuzz_mutations_same_through_both_paths(monkeypatch, batch):
    for case in range(test_fuzz.CASES_PER_BATCH):
        _, data, mutations = test_fuzz.make_case(batch, case)
        for strict in (False, True):
            fast, general = both_paths(monkeypatch, data, strict)
            assert fast == general, (batch, case, mutations, strict)


def test_bulk_path_shares_arrays_like_general_path(monkeypatch):
    """Two samplers naming one output accessor: one array object, both paths."""
    name, data, _ = next(s for s in test_fuzz.seeds() if bulk_taken(monkeypatch, s[1]))
    doc, blob = test_fuzz.split(data)
    samplers = doc["animations"][0]["samplers"]
    samplers[1]["output"] = samplers[2]["output"]  # both rotation channels in the rigs
    shared = test_fuzz.repack(doc, blob)
    fast, general = both_paths(monkeypatch, shared, False)
    assert fast == general
    assert bulk_taken(monkeypatch, shared)


def test_budget_refusal_same_through_both_paths(monkeypatch):
    """The decode budget is checked on the bulk path's total before decoding."""
    name, data, _ = next(s for s in test_fuzz.seeds() if bulk_taken(monkeypatch, s[1]))
    monkeypatch.setattr(read_resources, "DECODE_FLOOR_COMPONENTS", 64)
    monkeypatch.setattr(read_resources, "DECODE_COMPONENTS_PER_INPUT_BYTE", 0)
    fast, general = both_paths(monkeypatch, data, False)
    assert fast == general and fast[0] == "error" and "decoding would exceed" in fast[1]
