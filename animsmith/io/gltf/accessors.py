"""glTF accessors decoded as float32 numpy views on the buffer bytes: every index,
offset, stride and count checked with Python integers before numpy touches the bytes,
normalized integers and sparse substitutions per glTF 2.0, and a bulk decode of plain
float accessors for the common file layout."""

from __future__ import annotations

from itertools import repeat
from operator import add, le, mul
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from animsmith.errors import LoadError
from animsmith.io.gltf.fields import (
    INT_TYPE,
    accessor_label,
    as_array,
    as_object,
    as_uint,
    bad_index,
    int_list_in_range,
    ints_at_least,
    show_value,
)
from animsmith.io.gltf.resources import Budget

MAX_BYTE_STRIDE = 252
COMPONENT_DTYPE = {
    5120: np.dtype("i1"),
    5121: np.dtype("u1"),
    5122: np.dtype("<i2"),
    5123: np.dtype("<u2"),
    5125: np.dtype("<u4"),
    5126: np.dtype("<f4"),
}
COMPONENT_NAME = {
    5120: "BYTE",
    5121: "UNSIGNED_BYTE",
    5122: "SHORT",
    5123: "UNSIGNED_SHORT",
    5125: "UNSIGNED_INT",
    5126: "FLOAT",
}
# glTF 2.0 normalized-integer rule: signed max(c / (2^(b-1) - 1), -1),
# unsigned c / (2^b - 1).
NORMALIZE_DIVISOR = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}
SIGNED = (5120, 5122)
TYPE_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
SPARSE_INDEX_TYPES = (5121, 5123, 5125)
FLOAT = 5126
FLOAT32_IS_NATIVE = np.dtype("<f4") == np.dtype(np.float32)
_BOOL_TYPE = {bool}
_FLOAT_TYPE = {5126}
_F4 = np.dtype("<f4")


class Accessors:
    """Bounds-checked, cached accessor decoding for one file."""

    def __init__(self, doc: dict, buffers: List[Optional[bytes]], lengths: List[int], budget: Budget):
        self.accessors = as_array(doc, "accessors", "accessors")
        self.views = as_array(doc, "bufferViews", "bufferViews")
        self.buffers = buffers
        self.lengths = lengths
        self.budget = budget
        self.meta_cache: Dict[int, Tuple[int, str, int, bool]] = {}
        self.cache: Dict[int, np.ndarray] = {}
        self.times_cache: Dict[int, np.ndarray] = {}
        #: key-time bytes -> the first decoded array holding them (channel-by-channel path; the bulk path: _share_equal_times)
        self.times_by_bytes: Dict[Tuple[str, bytes], np.ndarray] = {}
        self.view_cache: Dict[int, Tuple[bytes, int, int, Optional[int], int]] = {}

    def meta(self, ai: int) -> Tuple[int, str, int, bool]:
        """(componentType, type, count, normalized) of accessor ``ai``, validated."""
        got = self.meta_cache.get(ai)
        if got is not None:
            return got
        acc = self.accessors[ai]
        what = f"accessor {ai}"
        if type(acc) is not dict:
            as_object(acc, what)
        ctype = acc.get("componentType")
        if type(ctype) is not int or ctype not in COMPONENT_DTYPE:
            raise LoadError(f"{what}: unknown componentType {show_value(ctype)}")
        atype = acc.get("type")
        if type(atype) is not str or atype not in TYPE_WIDTH:
            raise LoadError(f"{what}: unknown type {show_value(atype)}")
        count = acc.get("count")
        if type(count) is not int or count < 1:
            as_uint(count, f"{what} count", minimum=1)
        normalized = acc.get("normalized", False)
        if type(normalized) is not bool:
            raise LoadError(f"{what}: normalized must be true or false, got {show_value(normalized)}")
        got = (ctype, atype, count, normalized)
        self.meta_cache[ai] = got
        return got

    def view(self, bv: Any, what: str) -> Tuple[bytes, int, int, Optional[int], int]:
        """Validated ``(buffer bytes, byteOffset, byteLength, byteStride, buffer)`` of view ``bv``."""
        got = self.view_cache.get(bv) if type(bv) is int else None
        if got is not None:
            return got
        if type(bv) is not int or not 0 <= bv < len(self.views):
            raise bad_index(bv, len(self.views), f"{accessor_label(what)} bufferView")
        view = self.views[bv]
        if type(view) is not dict:
            as_object(view, f"bufferView {bv}")
        bi = view.get("buffer")
        if type(bi) is not int or not 0 <= bi < len(self.buffers):
            raise bad_index(bi, len(self.buffers), f"bufferView {bv} buffer")
        v_off = view.get("byteOffset", 0)
        if type(v_off) is not int or v_off < 0:
            as_uint(v_off, f"bufferView {bv} byteOffset")
        v_len = view.get("byteLength")
        if type(v_len) is not int or v_len < 1:
            as_uint(v_len, f"bufferView {bv} byteLength", minimum=1)
        stride = view.get("byteStride")
        if stride is not None:
            stride = as_uint(stride, f"bufferView {bv} byteStride", minimum=1)
            if stride > MAX_BYTE_STRIDE:
                raise LoadError(f"bufferView {bv} byteStride {stride} exceeds {MAX_BYTE_STRIDE}")
        data = self.buffers[bi]
        if data is None:
            raise LoadError(f"buffer {bi} has no data (no uri and no GLB BIN chunk)")
        if v_off + v_len > self.lengths[bi]:
            raise LoadError(
                f"bufferView {bv} (bytes {v_off}..{v_off + v_len}) runs past buffer {bi} ({self.lengths[bi]} bytes)"
            )
        got = (data, v_off, v_len, stride, bi)
        self.view_cache[bv] = got
        return got

    def _view_array(
        self, bv: Any, byte_offset: Any, count: int, width: int, ctype: int, what: str, packed: bool = False
    ) -> np.ndarray:
        """(count, width) array of ``ctype`` read from buffer view ``bv`` (no copy).

        Bound: byteOffset + stride * (count - 1) + element size <= byteLength,
        checked with Python integers before numpy touches the bytes.
        """
        data, v_off, v_len, stride, _ = self.view(bv, what)
        dtype = COMPONENT_DTYPE[ctype]
        elem = width * dtype.itemsize
        a_off = 0 if byte_offset is None else byte_offset
        if type(a_off) is not int or a_off < 0:
            as_uint(a_off, f"{accessor_label(what)} byteOffset")
        if stride is None or packed:
            step = elem
        else:
            step = stride
            if step < elem:
                raise LoadError(f"bufferView {bv} byteStride {step} is shorter than the {elem}-byte elements of {accessor_label(what)}")
        need = a_off + step * (count - 1) + elem
        if need > v_len:
            raise LoadError(f"{accessor_label(what)} needs {need} bytes of bufferView {bv} but it has {v_len}")
        start = v_off + a_off
        if step == elem:
            return np.frombuffer(data, dtype=dtype, count=count * width, offset=start).reshape(count, width)
        return np.ndarray((count, width), dtype=dtype, buffer=data, offset=start, strides=(step, dtype.itemsize))

    def decode(self, ai: int) -> np.ndarray:
        """Accessor ``ai`` as float32 (count, width); cached per index.

        Normalized integers follow glTF 2.0 (signed max(c/127, -1) or
        max(c/32767, -1); unsigned c/255 or c/65535). Sparse substitutions are
        applied on a copy of the base (zeros without a buffer view).
        """
        got = self.cache.get(ai)
        if got is not None:
            return got
        ctype, atype, count, normalized = self.meta_cache.get(ai) or self.meta(ai)
        acc = self.accessors[ai]
        width = TYPE_WIDTH[atype]
        bv = acc.get("bufferView")
        if ctype == FLOAT and "sparse" not in acc and bv is not None and FLOAT32_IS_NATIVE:
            # Fast path (the common case): tightly packed or strided float view.
            got = (type(bv) is int and self.view_cache.get(bv)) or self.view(bv, ai)
            data, v_off, v_len, stride, _ = got
            a_off = acc.get("byteOffset", 0)
            elem = 4 * width
            if (stride is None or stride == elem) and type(a_off) is int and 0 <= a_off:
                if a_off + elem * count > v_len:
                    raise LoadError(f"accessor {ai} needs {a_off + elem * count} bytes of bufferView {bv} but it has {v_len}")
                self.budget.spend(count * width, ai)
                out = np.frombuffer(data, np.float32, count * width, v_off + a_off).reshape(count, width)
                self.cache[ai] = out
                return out
        if bv is None:
            self.budget.spend(count * width, ai)
            raw = np.zeros((count, width), dtype=COMPONENT_DTYPE[ctype])
        else:
            raw = self._view_array(bv, acc.get("byteOffset"), count, width, ctype, ai)
            self.budget.spend(count * width, ai)
        sparse = acc.get("sparse")
        if sparse is not None:
            what = f"accessor {ai}"
            raw = self._apply_sparse(raw, as_object(sparse, f"{what} sparse"), count, width, ctype, what)
        if ctype == FLOAT:
            out = raw if raw.flags.c_contiguous else np.ascontiguousarray(raw)
            if out.dtype != np.float32:  # big-endian host
                out = out.astype(np.float32)
        else:
            out = raw.astype(np.float32)
            if normalized:
                out /= np.float32(NORMALIZE_DIVISOR[ctype])
                if ctype in SIGNED:
                    np.maximum(out, np.float32(-1.0), out=out)
        self.cache[ai] = out
        return out

    def _apply_sparse(
        self, base: np.ndarray, sparse: dict, count: int, width: int, ctype: int, what: str
    ) -> np.ndarray:
        scount = as_uint(sparse.get("count"), f"{what} sparse count", minimum=1)
        if scount > count:
            raise LoadError(f"{what} sparse count {scount} exceeds accessor count {count}")
        self.budget.spend(scount * (width + 1), what)
        ind = as_object(sparse.get("indices"), f"{what} sparse indices")
        ictype = ind.get("componentType")
        if type(ictype) is not int or ictype not in SPARSE_INDEX_TYPES:
            raise LoadError(f"{what} sparse indices componentType {show_value(ictype)} must be 5121, 5123 or 5125")
        indices = self._view_array(
            ind.get("bufferView"), ind.get("byteOffset"), scount, 1, ictype, f"{what} sparse indices", packed=True
        )[:, 0]
        vals = as_object(sparse.get("values"), f"{what} sparse values")
        values = self._view_array(
            vals.get("bufferView"), vals.get("byteOffset"), scount, width, ctype, f"{what} sparse values", packed=True
        )
        top = int(indices.max())
        if top >= count:
            raise LoadError(f"{what} sparse index {top} out of range (count {count})")
        out = base if base.flags.writeable else np.array(base, copy=True)  # zeros base: fill in place
        out[indices.astype(np.int64)] = values
        return out


def _float_views(acc: Accessors, bvs: list) -> Optional[Tuple[list, list, list]]:
    """(buffer bytes, byteOffset, byteLength) lists aligned with ``bvs`` (valid
    buffer view indices), every check of ``Accessors.view`` passing and no
    byteStride; None when any check fails."""
    unique = set(bvs)
    if len(unique) != len(bvs):  # shared views: check each once, then spread
        first = list(unique)
        got = _float_views(acc, first)
        if got is None:
            return None
        pos = list(map(dict(zip(first, range(len(first)))).__getitem__, bvs))
        return tuple(list(map(column.__getitem__, pos)) for column in got)  # type: ignore[return-value]
    get = dict.get
    views = list(map(acc.views.__getitem__, bvs))
    bufs = list(map(get, views, repeat("buffer")))
    v_offs = list(map(get, views, repeat("byteOffset"), repeat(0)))
    v_lens = list(map(get, views, repeat("byteLength")))
    if (
        list(map(get, views, repeat("byteStride"))).count(None) != len(views)
        or not int_list_in_range(bufs, len(acc.buffers))
        or not ints_at_least(v_offs, 0)
        or not ints_at_least(v_lens, 1)
        or not all(map(le, map(add, v_offs, v_lens), map(acc.lengths.__getitem__, bufs)))
    ):
        return None
    datas = list(map(acc.buffers.__getitem__, bufs))
    if None in datas:  # a buffer without data (no uri, no BIN chunk)
        return None
    return datas, v_offs, v_lens


def decode_float_accessors(acc: Accessors, want: Dict[int, str]) -> Optional[Tuple[Dict[int, np.ndarray], int]]:
    """({accessor: float32 view}, components) for accessors ``want`` (index ->
    expected type) that are plain (non-normalized, non-sparse) FLOAT data in a
    buffer view without stride, with every bound of ``Accessors.decode``
    checked (``byteOffset + 4 x width x count <= byteLength``; budget used +
    components <= cap, not spent here); None when any check fails. SCALAR
    accessors come out 1-D (count,), the others (count, width)."""
    if not want or not FLOAT32_IS_NATIVE:
        return None
    get = dict.get
    ids = list(want)
    types = list(want.values())
    accs = list(map(acc.accessors.__getitem__, ids))
    ctypes = list(map(get, accs, repeat("componentType")))
    counts = list(map(get, accs, repeat("count")))
    normalized = list(map(get, accs, repeat("normalized"), repeat(False)))
    bvs = list(map(get, accs, repeat("bufferView")))
    offsets = list(map(get, accs, repeat("byteOffset"), repeat(0)))
    if (
        list(map(get, accs, repeat("type"))) != types
        or set(map(type, ctypes)) != INT_TYPE
        or set(ctypes) != _FLOAT_TYPE
        or not ints_at_least(counts, 1)
        or set(map(type, normalized)) != _BOOL_TYPE
        or True in normalized
        or any(map(dict.__contains__, accs, repeat("sparse")))
        or not int_list_in_range(bvs, len(acc.views))
        or not ints_at_least(offsets, 0)
    ):
        return None
    views = _float_views(acc, bvs)
    if views is None:
        return None
    datas, v_offs, v_lens = views
    widths = list(map(TYPE_WIDTH.__getitem__, types))
    components = list(map(mul, widths, counts))
    total = sum(components)
    if acc.budget.used + total > acc.budget.cap:
        return None
    if not all(map(le, map(add, offsets, map(mul, components, repeat(4))), v_lens)):
        return None
    shapes = [(c,) if t == "SCALAR" else (c, w) for t, c, w in zip(types, counts, widths)]
    arrays = map(np.ndarray, shapes, repeat(_F4), datas, map(add, v_offs, offsets))
    return dict(zip(ids, arrays)), total
