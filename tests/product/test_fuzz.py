"""Seeded mutation fuzz of the real command paths (issue 8, "Hostile input").

Every case starts from a valid GLB (generated rigs, examples/assets/*.glb,
tests/data/*.glb), applies one to three seeded mutations (bit flips,
truncation at chunk boundaries, lying chunk/buffer/header lengths, accessor
counts of 2^31, byteOffsets past the end, huge byteStride, NaN/Inf/huge key
times and values, node cycles, self-parents, duplicate children, out-of-range
indices, non-UTF-8 and deeply nested JSON, a GLB claiming 4 GB, ...), writes
the file and runs ``animsmith.cli.main`` in-process for

    lint FILE | lint --config examples/run-ring.animsmith.toml FILE |
    measure --format json FILE | inspect FILE | transform --gait-anchor --dry-run FILE |
    report -o FILE.html FILE | measure speed --format json FILE

The contract for every invocation (``check_outcome``): exit 0 or 1 with no
traceback, warning or "internal error" (JSON output must be strict JSON), or
exit 2 with exactly one stderr line ``animsmith: <path>: <reason>`` and an
empty stdout (``report``: no page left behind unless it exited 0); at most ``TIME_LIMIT_S`` per invocation (SIGALRM timer) and a
tracemalloc peak of at most ``FEW_MB + MEM_PER_BYTE x file size``.

Default run: ``DEFAULT_BATCHES x CASES_PER_BATCH`` cases. Long mode
(``pytest tests/product/test_fuzz.py --long`` or ``ANIMSMITH_FUZZ_LONG=1``) runs
``LONG_BATCHES x CASES_PER_BATCH``. Case ``i`` of batch ``b`` is fully
determined by ``(BASE_SEED, b, i)``; a failure names them and saves the
mutated file under tests/out/fuzz-failures/ (replay: ``python
tests/product/test_fuzz.py BATCH CASE``). Counts and outcomes: docs/hardening.md.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import random
import signal
import struct
import sys
import tracemalloc
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pytest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(HERE)
if os.path.join(HERE, "support") not in sys.path:
    sys.path.insert(0, os.path.join(HERE, "support"))

from gltf_raw import BIN_CHUNK, JSON_CHUNK, RawGltf, pack_glb, pad4  # noqa: E402

BASE_SEED = 20261130
CASES_PER_BATCH = 25
DEFAULT_BATCHES = 12  # 300 cases, 2,100 command runs
LONG_BATCHES = 400  # 10,000 cases, 70,000 command runs
TIME_LIMIT_S = 5.0  # CPU seconds per invocation (ITIMER_PROF: not fooled by a loaded machine)
WALL_LIMIT_S = 60.0  # wall-clock guard for hangs that burn no CPU (a blocking read)
FEW_MB = 8 * 1024 * 1024
MEM_PER_BYTE = 64  # allowance per input byte on top of FEW_MB
#: ``report`` keeps the curves it draws while the page is built: ~150 bytes of memory per
#: bone-frame (8-byte numbers, then the page text), up to the loader's grid budget (2 bone-frames
#: per input byte) and at most ``report.collect.MAX_PAGE_CELLS`` in all (~76 bytes per input
#: byte on a 613 KB file of 114 duplicated clips)
REPORT_MEM_PER_BYTE = 256
CONFIG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")
FAIL_DIR = os.path.join(HERE, "out", "fuzz-failures")


def long_mode(config=None) -> bool:
    if os.environ.get("ANIMSMITH_FUZZ_LONG", "") not in ("", "0"):
        return True
    return bool(config is not None and config.getoption("--long", default=False))


def pytest_generate_tests(metafunc):  # collected by pytest for this module
    if "batch" in metafunc.fixturenames:
        n = LONG_BATCHES if long_mode(metafunc.config) else DEFAULT_BATCHES
        metafunc.parametrize("batch", range(n))


# --------------------------------------------------------------------------
# Seed corpus: valid GLBs
# --------------------------------------------------------------------------


def _generated_seeds() -> Dict[str, bytes]:
    """Small valid GLBs: the analytic biped (one clip; a four-clip ring with
    root motion named like the example config), and a raw file with a matrix
    node, a skin, normalized int16 CUBICSPLINE rotations, an interleaved
    (byteStride) view, a sparse accessor and STEP scale."""
    from animsmith.io.write import asset_to_glb
    from builders import biped_asset, gait_clip

    seeds = {
        "gen-biped.glb": asset_to_glb(biped_asset([gait_clip("walk", frames=16)])),
        "gen-ring.glb": asset_to_glb(biped_asset([
            gait_clip("run_forward", frames=21, duration_s=0.7, velocity_mps=(0, 0, 3.0)),
            gait_clip("run_backward", frames=21, duration_s=0.7, velocity_mps=(0, 0, -3.0), offset_cycles=0.1),
            gait_clip("run_left", frames=21, duration_s=0.7, velocity_mps=(3.0, 0, 0), offset_cycles=0.3),
            gait_clip("run_right", frames=21, duration_s=0.7, velocity_mps=(-3.0, 0, 0)),
        ], convention="mixamo")),
    }
    raw = RawGltf()
    root = raw.node("Armature", children=[1], scale=[0.01, 0.01, 0.01])
    raw.node("Hips", children=[2, 3], matrix=[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 100, 0, 1])
    raw.node("LeftFoot", translation=[10, -90, 0])
    raw.node("RightFoot", translation=[-10, -90, 0])
    raw.scene([root])
    raw.skin([1, 2, 3])
    keys = np.linspace(0, 1, 5, dtype=np.float32)
    t = raw.floats(keys, "SCALAR")
    inter = np.zeros((5, 2, 3), np.float32)  # interleaved: translation | scale
    inter[:, 0, 1] = 5 * np.sin(2 * np.pi * keys)
    inter[:, 1, :] = 1.0
    view = raw.view(inter.tobytes(), byte_stride=24)
    tr = raw.accessor(inter[:, 0], "VEC3", view=view, byte_offset=0)
    sc = raw.accessor(inter[:, 1], "VEC3", view=view, byte_offset=12)
    q = np.zeros((15, 4), np.int16)
    q[:, 3] = 32767
    rot = raw.accessor(q, "VEC4", normalized=True)
    idx = raw.view(np.array([1, 3], np.uint8).tobytes())
    vals = raw.view(np.array([[0, 2, 0], [0, -2, 0]], np.float32).tobytes())
    sparse = raw.accessor(None, "VEC3", count=5, component_type=5126,
                          sparse={"count": 2, "indices": {"bufferView": idx, "componentType": 5121},
                                  "values": {"bufferView": vals}})
    raw.animation("Walk", [(2, "translation", t, tr), (2, "scale", t, sc, "STEP"),
                           (1, "rotation", t, rot, "CUBICSPLINE"), (3, "translation", t, sparse)])
    seeds["gen-raw.glb"] = raw.glb()
    return seeds


def _file_seeds(folder: str) -> Dict[str, bytes]:
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".glb"):
            with open(os.path.join(folder, name), "rb") as fh:
                out[name] = fh.read()
    return out


_SEEDS: Optional[List[Tuple[str, bytes, float]]] = None


def seeds() -> List[Tuple[str, bytes, float]]:
    """(name, bytes, weight): generated and example files often, the large
    tests/data corpus files (50-490 KB) now and then."""
    global _SEEDS
    if _SEEDS is None:
        out = [(n, d, 4.0) for n, d in _generated_seeds().items()]
        out += [(n, d, 2.0) for n, d in _file_seeds(os.path.join(ROOT, "examples", "assets")).items()]
        out += [(n, d, 0.5) for n, d in _file_seeds(os.path.join(HERE, "data")).items()]
        _SEEDS = out
    return _SEEDS


# --------------------------------------------------------------------------
# GLB split / repack
# --------------------------------------------------------------------------


def split(data: bytes) -> Tuple[dict, bytes]:
    """(JSON document, BIN chunk bytes) of a valid seed."""
    jlen = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + jlen])
    blob = b""
    if len(data) > 20 + jlen + 8:
        blen = struct.unpack_from("<I", data, 20 + jlen)[0]
        blob = data[28 + jlen:28 + jlen + blen]
    return doc, blob


def repack(doc: Any, blob: bytes, json_bytes: Optional[bytes] = None) -> bytes:
    text = json_bytes if json_bytes is not None else json.dumps(doc, separators=(",", ":")).encode("utf-8")
    return pack_glb(text, blob if blob else None)


def chunk_offsets(data: bytes) -> List[int]:
    """Byte offsets of the header fields and every chunk header/data boundary."""
    out = [0, 4, 8, 12]
    pos = 12
    while pos + 8 <= len(data):
        length = struct.unpack_from("<I", data, pos)[0]
        out += [pos, pos + 4, pos + 8, min(pos + 8 + length, len(data))]
        pos += 8 + length
    return sorted(set(out + [len(data)]))


# --------------------------------------------------------------------------
# Mutators. Byte-level ones take and return bytes; document-level ones edit
# (doc, blob) in place and may return replacement JSON bytes.
# --------------------------------------------------------------------------

HOSTILE_INTS = [-1, 0, 1, 3, 4, 251, 252, 253, 256, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53, 2 ** 63, 2 ** 64]
HOSTILE_VALUES = HOSTILE_INTS + [1.5, -0.0, 1e308, float("nan"), float("inf"), "x", "", "\u0000", True, False, None,
                                 [], {}, [0], {"a": 1}, [1e308] * 16, "\n\x1b[31mred\x1b[0m"]
HOSTILE_FLOATS = [float("nan"), float("inf"), float("-inf"), 3.4e38, -3.4e38, 1e30, 1e7, -1e7, 1e-45, -0.0, 0.0, 1e5]


def m_bit_flips(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    jend = 20 + struct.unpack_from("<I", data, 12)[0]
    for _ in range(rng.randint(1, 16)):
        pos = rng.randrange(0, jend) if rng.random() < 0.7 else rng.randrange(len(b))
        b[pos] ^= 1 << rng.randrange(8)
    return bytes(b)


def m_byte_sets(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        pos = rng.randrange(len(b))
        b[pos] = rng.choice([0, 0xFF, 0x7F, 0x80, ord('"'), ord("{"), ord("["), ord("]"), ord("\\"), ord("9"), rng.randrange(256)])
    return bytes(b)


def m_truncate_at_boundary(rng: random.Random, data: bytes) -> bytes:
    cut = rng.choice(chunk_offsets(data)) + rng.choice([-1, 0, 0, 1])
    return data[:max(0, min(cut, len(data) - 1))]


def m_lying_chunk_length(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    heads = [12]
    jlen = struct.unpack_from("<I", data, 12)[0]
    if len(data) >= 28 + jlen:
        heads.append(20 + jlen)
    pos = rng.choice(heads)
    old = struct.unpack_from("<I", b, pos)[0]
    new = rng.choice([0, 1, old - 1, old + 1, old + 4, old - 4, 2 ** 31, 2 ** 32 - 1, 2 ** 32 - 8, len(data), rng.randrange(2 ** 32)])
    struct.pack_into("<I", b, pos, new % 2 ** 32)
    return bytes(b)


def m_header_length(rng: random.Random, data: bytes) -> bytes:
    """A GLB header claiming 4 GB (or another wrong total)."""
    b = bytearray(data)
    struct.pack_into("<I", b, 8, rng.choice([0xFFFFFFFF, 2 ** 32 - 4, 2 ** 31, 0, 11, 12, len(data) + 4, len(data) - 4]) % 2 ** 32)
    if rng.random() < 0.3:  # and a BIN chunk claiming the rest of 4 GB
        jlen = struct.unpack_from("<I", data, 12)[0]
        if len(data) >= 28 + jlen:
            struct.pack_into("<I", b, 20 + jlen, 0xFFFFFFFF - 28 - jlen)
    return bytes(b)


def m_extra_chunks(rng: random.Random, data: bytes) -> bytes:
    """Chunks reordered, duplicated, or unknown chunk types appended."""
    jlen = struct.unpack_from("<I", data, 12)[0]
    j = pad4(data[20:20 + jlen], b" ")
    blob = data[28 + jlen:]
    choice = rng.randrange(4)
    if choice == 0:
        chunks = [(BIN_CHUNK, pad4(blob)), (JSON_CHUNK, j)]
    elif choice == 1:
        chunks = [(JSON_CHUNK, j), (JSON_CHUNK, j), (BIN_CHUNK, pad4(blob))]
    elif choice == 2:
        chunks = [(JSON_CHUNK, j), (rng.randrange(2 ** 32), b"\xff" * 8), (BIN_CHUNK, pad4(blob))]
    else:
        chunks = [(JSON_CHUNK, j), (BIN_CHUNK, pad4(blob)), (BIN_CHUNK, pad4(blob))]
    return pack_glb(b"", chunks=chunks)


def _items(doc: dict, key: str) -> list:
    v = doc.get(key)
    return v if isinstance(v, list) else []


def _dicts(doc: dict, key: str) -> list:
    return [x for x in _items(doc, key) if isinstance(x, dict)]


def d_accessor_count(rng, doc, blob):
    accs = _dicts(doc, "accessors")
    for a in rng.sample(accs, min(len(accs), rng.randint(1, 3))):
        a["count"] = rng.choice([2 ** 31, 2 ** 31, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 30, 10 ** 6, 0, a.get("count", 1) + 1])
        if rng.random() < 0.3:
            a.pop("bufferView", None)  # zero-filled accessor of that count


def d_offset_past_end(rng, doc, blob):
    total = len(blob)
    kind = rng.randrange(4)
    if kind == 0 and _dicts(doc, "accessors"):
        rng.choice(_dicts(doc, "accessors"))["byteOffset"] = rng.choice([total, total + 4, 2 ** 31, 2 ** 32, 4 * rng.randrange(1, 64)])
    elif kind == 1 and _dicts(doc, "bufferViews"):
        rng.choice(_dicts(doc, "bufferViews"))["byteOffset"] = rng.choice([total, total - 4, total + 4, 2 ** 31, 2 ** 32 - 4])
    elif kind == 2 and _dicts(doc, "bufferViews"):
        rng.choice(_dicts(doc, "bufferViews"))["byteLength"] = rng.choice([total + 1, 2 ** 31, 2 ** 32 + 4, 1])
    elif _dicts(doc, "buffers"):
        rng.choice(_dicts(doc, "buffers"))["byteLength"] = rng.choice([total + 1, total - 1, 2 ** 32, 0, 4 * 2 ** 30])


def d_huge_stride(rng, doc, blob):
    views = _dicts(doc, "bufferViews")
    if views:
        rng.choice(views)["byteStride"] = rng.choice([2 ** 31, 2 ** 32 - 4, 256, 252, 248, 4, 1, 0, 3, 2 ** 20])


def _accessor_spans(doc, blob) -> List[Tuple[int, int, int, int]]:
    """(accessor index, first byte in blob, stride, components) of plain
    FLOAT accessors stored in the BIN chunk."""
    ncomp = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
    out = []
    views = _items(doc, "bufferViews")
    for i, a in enumerate(_items(doc, "accessors")):
        try:
            if a.get("componentType") != 5126 or "sparse" in a or "bufferView" not in a:
                continue
            v = views[a["bufferView"]]
            n = ncomp[a["type"]]
            start = v.get("byteOffset", 0) + a.get("byteOffset", 0)
            stride = v.get("byteStride", 4 * n)
            if v.get("buffer", 0) == 0 and start + stride * (a["count"] - 1) + 4 * n <= len(blob):
                out.append((i, start, stride, n))
        except (KeyError, IndexError, TypeError, AttributeError):
            continue
    return out


def d_nonfinite_numbers(rng, doc, blob):
    """NaN / Inf / huge / denormal key times and values written into the BIN
    chunk (key times of a sampler input, or values of an output)."""
    spans = _accessor_spans(doc, blob)
    if not spans:
        return None
    inputs = {s.get("input") for an in _dicts(doc, "animations") for s in _dicts(an, "samplers")}
    timed = [s for s in spans if s[0] in inputs]
    pool = timed if (timed and rng.random() < 0.6) else spans
    i, start, stride, n = rng.choice(pool)
    count = doc["accessors"][i]["count"]
    b = bytearray(blob)
    mode = rng.randrange(3)
    for _ in range(rng.randint(1, 4)):
        k = rng.randrange(count)
        c = rng.randrange(n)
        if mode == 0:
            value = rng.choice(HOSTILE_FLOATS)
        elif mode == 1:  # the last key time far away: a clip of 1e7 s .. 3e38 s
            k, value = count - 1, rng.choice([1e7, 1e12, 3.4e38, float("inf")])
        else:  # all keys equal or decreasing
            value = rng.choice([0.0, -1.0, 1.0])
        struct.pack_into("<f", b, start + stride * k + 4 * c, value)
    if i in inputs and rng.random() < 0.5:
        for a in (doc["accessors"][i],):
            a.pop("min", None), a.pop("max", None)
    return bytes(b)


def _node_pairs(doc):
    nodes = _items(doc, "nodes")
    return nodes, [n for n in nodes if isinstance(n, dict)]


def d_node_graph(rng, doc, blob):
    """Cycles, self-parents, duplicate children, two parents."""
    nodes, _ = _node_pairs(doc)
    if not nodes:
        return
    i = rng.randrange(len(nodes))
    if not isinstance(nodes[i], dict):
        return
    kids = nodes[i].setdefault("children", [])
    if not isinstance(kids, list):
        return
    kind = rng.randrange(4)
    if kind == 0:
        kids.append(i)  # self-parent
    elif kind == 1 and kids:
        kids.append(rng.choice(kids))  # duplicate child
    elif kind == 2:
        # cycle: a descendant lists i (or a random node lists the root)
        j = i
        for _ in range(8):
            cj = nodes[j].get("children") if isinstance(nodes[j], dict) else None
            if not cj or not isinstance(cj, list) or not isinstance(cj[0], int) or not 0 <= cj[0] < len(nodes):
                break
            j = cj[0]
        if isinstance(nodes[j], dict):
            nodes[j].setdefault("children", []).append(i)
    else:
        kids.append(rng.randrange(len(nodes)))  # a second parent (or a cycle)


INDEX_FIELDS = [
    ("nodes", "children"), ("scenes", "nodes"), ("skins", "joints"), ("skins", "skeleton"),
    ("accessors", "bufferView"), ("bufferViews", "buffer"), ("skins", "inverseBindMatrices"),
]


def d_out_of_range_index(rng, doc, blob):
    """A node / sampler / accessor / bufferView / buffer index just past the
    end, negative, or 2^31."""
    n_of = {k: len(_items(doc, k)) for k in ("nodes", "accessors", "bufferViews", "buffers", "scenes", "skins")}
    bad = lambda key: rng.choice([n_of.get(key, 0), n_of.get(key, 0) + 1, -1, 2 ** 31, 2 ** 32 - 1])  # noqa: E731
    anims = _dicts(doc, "animations")
    kind = rng.randrange(6)
    if kind <= 2 and anims:
        an = rng.choice(anims)
        chans, samps = _dicts(an, "channels"), _dicts(an, "samplers")
        if kind == 0 and chans and isinstance(chans[0].get("target"), dict):
            rng.choice(chans)["target"]["node"] = bad("nodes")
        elif kind == 1 and chans:
            rng.choice(chans)["sampler"] = rng.choice([len(samps), -1, 2 ** 31])
        elif samps:
            rng.choice(samps)[rng.choice(["input", "output"])] = bad("accessors")
    elif kind == 3:
        doc["scene"] = bad("scenes")
    else:
        table, field = rng.choice(INDEX_FIELDS)
        rows = _dicts(doc, table)
        if rows:
            row = rng.choice(rows)
            ref = {"children": "nodes", "nodes": "nodes", "joints": "nodes", "skeleton": "nodes",
                   "bufferView": "bufferViews", "buffer": "buffers", "inverseBindMatrices": "accessors"}[field]
            row[field] = [bad(ref)] if field in ("children", "nodes", "joints") else bad(ref)


def d_hostile_leaf(rng, doc, blob):
    """Any JSON leaf replaced by a hostile value (wrong type, huge, NaN)."""
    paths = list(_leaf_paths(doc))
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(paths)
        obj = doc
        try:
            for key in path[:-1]:
                obj = obj[key]
            obj[path[-1]] = copy.deepcopy(rng.choice(HOSTILE_VALUES))
        except (KeyError, IndexError, TypeError):
            continue


def _leaf_paths(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaf_paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:64]):
            yield from _leaf_paths(v, path + (i,))
    if path:
        yield path


def d_interpolation(rng, doc, blob):
    samps = [s for an in _dicts(doc, "animations") for s in _dicts(an, "samplers")]
    if samps:
        rng.choice(samps)["interpolation"] = rng.choice(["LINEAR", "STEP", "CUBICSPLINE", "linear", "SLERP", ""])


def d_hostile_names(rng, doc, blob):
    rows = _dicts(doc, "nodes") + _dicts(doc, "animations")
    for row in rng.sample(rows, min(len(rows), 3)):
        row["name"] = rng.choice(["", " ", "a\nb", "\x1b[2J", "x" * 5000, "\u202e", "run_forward", "Hips", "\ud800", "#1", "%s%n"])


def d_non_utf8(rng, doc, blob) -> bytes:
    """Raw non-UTF-8 bytes inside a JSON string (overlong, lone byte, CESU surrogate)."""
    text = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    bad = rng.choice([b"\xff", b"\xfe\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\x80", b"\xf8\x88\x80\x80\x80", b"\xe2\x82"])
    quotes = [i for i, c in enumerate(text) if c == ord('"')]
    pos = rng.choice(quotes) + 1 if quotes else 0
    return text[:pos] + bad + text[pos:]


def d_deep_json(rng, doc, blob) -> Optional[bytes]:
    """Deeply nested arrays/objects in extras (around the loader's 4096 limit and far past it)."""
    depth = rng.choice([64, 1000, 4095, 4096, 4097, 10000, 100000])
    if rng.random() < 0.5:
        deep = b"[" * depth + b"]" * depth
    else:
        deep = b'{"a":' * depth + b"0" + b"}" * depth
    body = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    return body[:-1] + b',"extras":' + deep + b"}"


def d_json_garbage(rng, doc, blob) -> bytes:
    """Broken JSON text: cut, duplicated keys, NaN literals, trailing junk."""
    text = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    kind = rng.randrange(4)
    if kind == 0:
        return text[:rng.randrange(len(text))]
    if kind == 1:
        return text.replace(b'"count":', b'"count":NaN,"count":', 1)
    if kind == 2:
        return text + rng.choice([b"x", b"}", b"\x00", b" " * 3])
    return b'{"asset":{"version":"2.0"},' + text[1:]  # duplicate "asset"


def _sampler_arrays(doc, blob):
    """(input span, output span) pairs of plain FLOAT samplers in the BIN chunk."""
    spans = {s[0]: s for s in _accessor_spans(doc, blob)}
    out = []
    for an in _dicts(doc, "animations"):
        for smp in _dicts(an, "samplers"):
            if smp.get("input") in spans:
                out.append((spans[smp["input"]], spans.get(smp.get("output"))))
    return out


def _scale_span(blob: bytearray, doc, span, factor: float) -> None:
    i, start, stride, n = span
    for k in range(doc["accessors"][i]["count"]):
        for c in range(n):
            pos = start + stride * k + 4 * c
            v = struct.unpack_from("<f", blob, pos)[0] * factor
            struct.pack_into("<f", blob, pos, v if abs(v) < 3.4e38 or v != v else math.copysign(float("inf"), v))


def d_extreme_scale(rng, doc, blob) -> Optional[bytes]:
    """Key times stretched to ~1e6 s or squeezed to ~1e-9 s, or values
    scaled to 1e30 (still finite floats, so the file loads)."""
    pairs = _sampler_arrays(doc, blob)
    if not pairs:
        return None
    b = bytearray(blob)
    inp, out = rng.choice(pairs)
    if rng.random() < 0.6 or out is None:
        _scale_span(b, doc, inp, rng.choice([1e6, 1e4, 1e-9, 1e-30, 1e30]))
        doc["accessors"][inp[0]].pop("min", None), doc["accessors"][inp[0]].pop("max", None)
    else:
        _scale_span(b, doc, out, rng.choice([1e30, 1e15, -1e20, 0.0]))
    return bytes(b)


def d_structure(rng, doc, blob):
    """Valid-but-odd structure: no channels, no scenes, no nodes, one channel
    repeated, a clip duplicated many times under one name, a target path
    changed."""
    anims = _dicts(doc, "animations")
    kind = rng.randrange(6)
    if kind == 0 and anims:
        rng.choice(anims)["channels"] = []
    elif kind == 1:
        doc.pop("scenes", None), doc.pop("scene", None)
    elif kind == 2:
        doc.pop("skins", None)
        if rng.random() < 0.3:
            doc["nodes"] = []
    elif kind == 3 and anims:
        an = rng.choice(anims)
        ch = _dicts(an, "channels")
        if ch:
            an["channels"] = ch + [copy.deepcopy(rng.choice(ch)) for _ in range(rng.randint(1, 50))]
    elif kind == 4 and anims:
        doc["animations"] = anims + [copy.deepcopy(rng.choice(anims)) for _ in range(rng.randint(1, 120))]
    elif anims:
        for ch in _dicts(rng.choice(anims), "channels"):
            if isinstance(ch.get("target"), dict) and rng.random() < 0.5:
                ch["target"]["path"] = rng.choice(["translation", "rotation", "scale", "weights", "pointer"])


BYTE_MUTATORS: List[Callable] = [m_bit_flips, m_byte_sets, m_truncate_at_boundary, m_lying_chunk_length,
                                 m_header_length, m_extra_chunks]
#: document edits that often leave a loadable file (reach sampling, checks, transform)
SOFT_MUTATORS: List[Callable] = [d_nonfinite_numbers, d_extreme_scale, d_interpolation, d_hostile_names, d_structure,
                                 d_huge_stride, d_deep_json]
#: document edits that the loader should refuse
HARD_MUTATORS: List[Callable] = [d_accessor_count, d_offset_past_end, d_node_graph, d_out_of_range_index,
                                 d_hostile_leaf, d_non_utf8, d_json_garbage]
BLOB_MUTATORS = (d_nonfinite_numbers, d_extreme_scale)


def make_case(batch: int, case: int) -> Tuple[str, bytes, List[str]]:
    """(seed file name, mutated bytes, mutator names) of case ``case`` of ``batch``:
    45 % soft document edits (one or two), 30 % a hostile document edit
    (maybe with a soft one), 25 % one byte-level mutation (after a soft edit
    one time in three)."""
    rng = random.Random(f"{BASE_SEED}:{batch}:{case}")
    pool = seeds()
    name, data, _ = rng.choices(pool, weights=[w for _, _, w in pool])[0]
    roll = rng.random()
    if roll < 0.45:
        muts = rng.sample(SOFT_MUTATORS, rng.choice([1, 1, 2]))
    elif roll < 0.75:
        muts = [rng.choice(HARD_MUTATORS)] + (rng.sample(SOFT_MUTATORS, 1) if rng.random() < 0.3 else [])
    else:
        muts = rng.sample(SOFT_MUTATORS, 1) if rng.random() < 0.33 else []
    applied: List[str] = []
    if muts:
        doc, blob = split(data)
        text = None
        for mut in sorted(muts, key=lambda m: m in (d_non_utf8, d_deep_json, d_json_garbage)):
            applied.append(mut.__name__)
            try:
                out = mut(rng, doc, blob)
            except (TypeError, ValueError, KeyError, IndexError, AttributeError, struct.error):
                applied[-1] += "(skipped)"  # an earlier edit left nothing this one can aim at
                continue
            if isinstance(out, bytes) and mut in BLOB_MUTATORS:
                blob = out
            elif isinstance(out, bytes):
                text = out
                break  # raw JSON text: no further document edits
        data = repack(doc, blob, text)
    if roll >= 0.75:
        mut = rng.choice(BYTE_MUTATORS)
        applied.append(mut.__name__)
        data = mut(rng, data)
    return name, data, applied


# --------------------------------------------------------------------------
# Running the CLI in-process under a time and memory bound
# --------------------------------------------------------------------------


class FuzzTimeout(BaseException):
    """Raised by SIGPROF/SIGALRM; a BaseException so the CLI's last-resort handler cannot swallow it."""


def _alarm(signum, frame):
    raise FuzzTimeout()


def command_lines(path: str) -> List[List[str]]:
    return [
        ["lint", path],
        ["lint", "--config", CONFIG, path],
        ["measure", "--format", "json", path],
        ["inspect", path],
        ["transform", "--gait-anchor", "--dry-run", path],
        ["report", "-o", path + ".html", path],
        ["measure", "speed", "--format", "json", path],
    ]


def run_cli(argv: List[str]) -> Dict[str, Any]:
    """Run ``animsmith argv`` in-process: exit code, stdout, stderr, seconds,
    tracemalloc peak bytes and warnings raised."""
    import time

    from animsmith.cli import main

    out, err = io.StringIO(), io.StringIO()
    code: Any = 0
    old = signal.signal(signal.SIGALRM, _alarm)
    old_prof = signal.signal(signal.SIGPROF, _alarm)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            warnings.simplefilter("always")
            signal.setitimer(signal.ITIMER_PROF, TIME_LIMIT_S)
            signal.setitimer(signal.ITIMER_REAL, WALL_LIMIT_S)
            try:
                main(list(argv))
            except SystemExit as exc:
                code = 0 if exc.code is None else exc.code
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.setitimer(signal.ITIMER_REAL, 0)
        timed_out = False
    except FuzzTimeout:
        timed_out, caught = True, []
    finally:
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        signal.signal(signal.SIGALRM, old)
        signal.signal(signal.SIGPROF, old_prof)
    shown = [w for w in caught if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning))]
    return {"code": code, "out": out.getvalue(), "err": err.getvalue(), "seconds": seconds, "peak": peak,
            "timed_out": timed_out, "warnings": [f"{w.category.__name__}: {w.message}" for w in shown]}


def _strict_json(text: str) -> Any:
    def no_constant(name):
        raise ValueError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=no_constant)


def check_outcome(argv: List[str], path: str, size: int, r: Dict[str, Any]) -> Optional[str]:
    """None when the run kept the contract, else what went wrong."""
    if r["timed_out"]:
        return f"took more than {TIME_LIMIT_S} s of CPU (or {WALL_LIMIT_S} s of wall clock)"
    limit = FEW_MB + (REPORT_MEM_PER_BYTE if argv[0] == "report" else MEM_PER_BYTE) * size
    if r["peak"] > limit:
        return f"tracemalloc peak {r['peak']} bytes > {limit}"
    if r["warnings"]:
        return f"warnings printed: {r['warnings'][:3]}"
    err, out, code = r["err"], r["out"], r["code"]
    if "Traceback" in err or "internal error" in err:
        return f"crash: {err.strip()[:500]}"
    lines = err.splitlines()
    if code == 2:
        if len(lines) != 1:
            return f"exit 2 with {len(lines)} stderr lines: {err[:500]!r}"
        if not lines[0].startswith(f"animsmith: {path}: "):
            return f"exit 2 line does not name the file: {lines[0][:300]!r}"
        if out:
            return f"exit 2 but stdout not empty: {out[:200]!r}"
        return None
    if code not in (0, 1):
        return f"exit {code!r}: {err[:300]!r}"
    if argv[0] == "report" and code != 0 and os.path.exists(argv[2]):
        return f"report exited {code} but left {argv[2]}"
    if argv[0] == "report" and code == 0 and not os.path.getsize(argv[2]):
        return "report exited 0 with an empty page"
    if argv[0] == "transform" and code == 1:
        if len(lines) != 1 or not lines[0].startswith("animsmith: refused ["):
            return f"refusal is not one line: {err[:500]!r}"
    elif err:
        return f"exit {code} with stderr: {err[:500]!r}"
    if "--format" in argv and "json" in argv:
        try:
            _strict_json(out)
        except ValueError as exc:
            return f"stdout is not strict JSON: {exc}"
    if argv[0] == "lint" and "] check_failed " in out:  # a check raised: reported, but a bug
        line = next(ln for ln in out.splitlines() if "] check_failed " in ln)
        return f"a check crashed: {line.strip()[:300]}"
    return None


def run_case(tmpdir: str, batch: int, case: int) -> Tuple[List[str], Dict[str, int]]:
    """Failures (one line each) and outcome counts for one case."""
    seed_name, data, applied = make_case(batch, case)
    path = os.path.join(tmpdir, f"b{batch}c{case}.glb")
    with open(path, "wb") as fh:
        fh.write(data)
    failures, counts = [], {}
    try:
        for argv in command_lines(path):
            r = run_cli(argv)
            name = "measure-speed" if argv[:2] == ["measure", "speed"] else argv[0]
            key = f"{name}{'+config' if '--config' in argv else ''}:exit{r['code']}"
            counts[key] = counts.get(key, 0) + 1
            problem = check_outcome(argv, path, len(data), r)
            if problem:
                failures.append(f"batch {batch} case {case} ({seed_name}; {'+'.join(applied)}) "
                                f"`animsmith {' '.join(argv[:-1])} FILE`: {problem}")
        if failures:
            os.makedirs(FAIL_DIR, exist_ok=True)
            with open(os.path.join(FAIL_DIR, f"b{batch}c{case}.glb"), "wb") as fh:
                fh.write(data)
    finally:
        os.unlink(path)
    return failures, counts


_WARMED = False


def warm_up(tmpdir: str) -> None:
    """Import every command module once so import-time allocations do not
    count against the first case's memory bound."""
    global _WARMED
    if _WARMED:
        return
    name, data, _ = seeds()[0]
    path = os.path.join(tmpdir, "warm.glb")
    with open(path, "wb") as fh:
        fh.write(data)
    for argv in command_lines(path):
        run_cli(argv)
    os.unlink(path)
    _WARMED = True


# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------


def test_seeds_are_valid_and_quiet(tmp_path, monkeypatch):
    """Every unmutated seed passes the same contract (and loads), so a failure
    below is caused by the mutation."""
    from animsmith.io.gltf import load_asset_bytes

    monkeypatch.chdir(tmp_path)
    warm_up(str(tmp_path))
    for name, data, _ in seeds():
        asset = load_asset_bytes(data, name)
        assert asset.clips, name
        path = str(tmp_path / name)
        with open(path, "wb") as fh:
            fh.write(data)
        for argv in command_lines(path):
            r = run_cli(argv)
            assert check_outcome(argv, path, len(data), r) is None, (name, argv, r["err"])
            assert r["code"] in (0, 1), (name, argv, r["err"])


def test_a_crashed_check_fails_the_contract(tmp_path, monkeypatch):
    """A check that raises becomes a check_failed coverage gap (lint keeps going); the
    fuzz counts that as a failure, so hostile files cannot hide a crash in a gap."""
    import animsmith.checks.fps as fps

    def broken(ctx):
        raise ZeroDivisionError("boom")
        yield  # a generator, like every check

    from dataclasses import replace

    from animsmith.checks import registry

    monkeypatch.setitem(registry(), "fps", replace(registry()["fps"], run=broken))
    monkeypatch.chdir(tmp_path)
    name, data, _ = seeds()[0]
    path = str(tmp_path / name)
    with open(path, "wb") as fh:
        fh.write(data)
    r = run_cli(["lint", path])
    problem = check_outcome(["lint", path], path, len(data), r)
    assert problem is not None and problem.startswith("a check crashed: coverage[fps] check_failed"), (problem, r["out"])
    assert fps.ID == "fps"


def test_mutators_produce_what_they_claim():
    """The mutator really writes the hostile thing (so the fuzz is not vacuous)."""
    from animsmith.errors import LoadError
    from animsmith.io.gltf import load_asset_bytes

    data = dict((n, d) for n, d, _ in seeds())["gen-biped.glb"]
    rng = random.Random(1)
    # 4 GB header claim
    b = m_header_length(random.Random(0), data)
    assert struct.unpack_from("<I", b, 8)[0] != len(data)
    # count 2^31 somewhere
    doc0, blob = split(data)
    huge = 0
    for seed in range(20):
        doc = copy.deepcopy(doc0)
        d_accessor_count(random.Random(seed), doc, blob)
        assert any(a.get("count") != b.get("count") or "bufferView" not in a for a, b in zip(doc["accessors"], doc0["accessors"]))
        huge += any(a.get("count", 0) >= 2 ** 31 for a in doc["accessors"])
    assert huge >= 5
    # NaN/Inf really lands inside a key-time accessor's bytes
    doc, blob = split(data)
    for seed in range(20):
        out = d_nonfinite_numbers(random.Random(seed), copy.deepcopy(doc), blob)
        assert out is not None and len(out) == len(blob)
    changed = sum(d_nonfinite_numbers(random.Random(s), copy.deepcopy(doc), blob) != blob for s in range(20))
    assert changed >= 15
    # non-UTF-8 JSON and deep JSON are refused by the loader
    doc, blob = split(data)
    with pytest.raises(LoadError, match="JSON"):
        load_asset_bytes(repack(doc, blob, d_non_utf8(rng, doc, blob)), "x.glb")
    with pytest.raises(LoadError):
        load_asset_bytes(repack(doc, blob, b'{"asset":{"version":"2.0"},"extras":' + b"[" * 20000 + b"]" * 20000 + b"}"), "x.glb")
    # truncation offsets include every chunk boundary
    offs = chunk_offsets(data)
    jlen = struct.unpack_from("<I", data, 12)[0]
    assert {0, 12, 20, 20 + jlen, 28 + jlen, len(data)} <= set(offs)
    # a self-parent really appears
    doc, blob = split(data)
    for s in range(40):
        d2 = copy.deepcopy(doc)
        d_node_graph(random.Random(s), d2, blob)
        if any(i in (n.get("children") or []) for i, n in enumerate(d2["nodes"])):
            break
    else:
        pytest.fail("d_node_graph never wrote a self-parent")


def test_fuzz_batch(batch, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./animsmith.toml picked up by accident
    warm_up(str(tmp_path))
    failures: List[str] = []
    for case in range(CASES_PER_BATCH):
        f, _ = run_case(str(tmp_path), batch, case)
        failures += f
    assert not failures, "\n".join(failures[:20])


# --------------------------------------------------------------------------
# Replay / long-mode summary: python tests/product/test_fuzz.py [BATCH CASE | --summary N]
# --------------------------------------------------------------------------


def _main(args: List[str]) -> int:
    import tempfile
    import time

    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        warm_up(tmp)
        if args and args[0] == "--summary":  # --summary [START] END
            lo, n = (0, int(args[1])) if len(args) == 2 else (int(args[1]), int(args[2])) if len(args) > 2 else (0, LONG_BATCHES)
            totals: Dict[str, int] = {}
            failures: List[str] = []
            start = time.time()
            for b in range(lo, n):
                for c in range(CASES_PER_BATCH):
                    f, counts = run_case(tmp, b, c)
                    failures += f
                    for line in f:
                        print(line, flush=True)
                    for k, v in counts.items():
                        totals[k] = totals.get(k, 0) + v
                print(f"# batch {b} done, {len(failures)} failures so far, {time.time() - start:.0f} s", flush=True)
            print(json.dumps({"batches": f"{lo}..{n - 1}", "cases": (n - lo) * CASES_PER_BATCH, "runs": sum(totals.values()),
                              "seconds": round(time.time() - start, 1), "outcomes": dict(sorted(totals.items())),
                              "failures": len(failures)}, indent=1))
            return 1 if failures else 0
        b, c = int(args[0]), int(args[1])
        seed_name, data, applied = make_case(b, c)
        print(f"seed {seed_name}, mutators {applied}, {len(data)} bytes")
        f, counts = run_case(tmp, b, c)
        print(counts)
        print("\n".join(f) or "ok")
        return 1 if f else 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
