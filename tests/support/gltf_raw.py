"""A small raw glTF/GLB byte builder for tests.

Unlike ``animsmith.io.write`` (which serialises our model), this writes exactly
the JSON and bytes a test asks for, so tests can craft any encoding
(normalized integers, sparse, interleaved strides, CUBICSPLINE triplets) or
any broken file (lying lengths, bad indices, wrong JSON types).

    raw = RawGltf()
    n = raw.node("root", translation=[0, 1, 0])
    t = raw.accessor(np.array([0, 1], np.float32), "SCALAR")
    v = raw.accessor(np.zeros((2, 3), np.float32), "VEC3")
    raw.animation("Walk", [(n, "translation", t, v, "LINEAR")])
    data = raw.glb()                      # GLB bytes
    text, blob = raw.gltf(uri="data")     # .gltf JSON with a data: URI

``pack_glb(json_bytes, bin_bytes, ...)`` assembles a GLB container from raw
chunks and can lie about every length.
"""

from __future__ import annotations

import base64
import json
import struct
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

COMPONENT = {
    np.dtype("int8"): 5120,
    np.dtype("uint8"): 5121,
    np.dtype("int16"): 5122,
    np.dtype("uint16"): 5123,
    np.dtype("uint32"): 5125,
    np.dtype("float32"): 5126,
}
JSON_CHUNK = 0x4E4F534A
BIN_CHUNK = 0x004E4942


def pad4(data: bytes, fill: bytes = b"\x00") -> bytes:
    return data + fill * (-len(data) % 4)


def pack_glb(
    json_bytes: bytes,
    bin_bytes: Optional[bytes] = None,
    *,
    magic: bytes = b"glTF",
    version: int = 2,
    total_length: Optional[int] = None,
    chunks: Optional[Sequence[Tuple[int, bytes]]] = None,
    chunk_lengths: Optional[Sequence[Optional[int]]] = None,
) -> bytes:
    """GLB container bytes. ``chunks`` replaces the JSON/BIN pair entirely;
    ``chunk_lengths`` overrides the declared length of chunk i (lies);
    ``total_length`` overrides the header's total length."""
    if chunks is None:
        chunks = [(JSON_CHUNK, pad4(json_bytes, b" "))]
        if bin_bytes is not None:
            chunks.append((BIN_CHUNK, pad4(bin_bytes)))
    body = b""
    for i, (ctype, data) in enumerate(chunks):
        length = len(data)
        if chunk_lengths is not None and i < len(chunk_lengths) and chunk_lengths[i] is not None:
            length = chunk_lengths[i]
        body += struct.pack("<II", length, ctype) + data
    total = 12 + len(body) if total_length is None else total_length
    return magic + struct.pack("<II", version, total) + body


def json_bytes(doc: Any) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode("utf-8")


class RawGltf:
    """Accumulates a glTF JSON document plus one binary buffer."""

    def __init__(self) -> None:
        self.doc: Dict[str, Any] = {"asset": {"version": "2.0", "generator": "tests/gltf_raw"}}
        self.blob = bytearray()

    # -- buffers -----------------------------------------------------------
    def _list(self, key: str) -> list:
        return self.doc.setdefault(key, [])

    def raw_bytes(self, data: bytes, align: int = 4) -> int:
        """Append ``data`` to the buffer (aligned); return its byte offset."""
        while len(self.blob) % align:
            self.blob.append(0)
        offset = len(self.blob)
        self.blob.extend(data)
        return offset

    def view(self, data: bytes, *, byte_stride: Optional[int] = None, buffer: int = 0, **extra: Any) -> int:
        """A bufferView over freshly appended ``data``; returns its index."""
        offset = self.raw_bytes(data)
        v: Dict[str, Any] = {"buffer": buffer, "byteOffset": offset, "byteLength": len(data)}
        if byte_stride is not None:
            v["byteStride"] = byte_stride
        v.update(extra)
        self._list("bufferViews").append(v)
        return len(self.doc["bufferViews"]) - 1

    def accessor(
        self,
        array: Any,
        type_: str,
        *,
        normalized: bool = False,
        view: Optional[int] = None,
        byte_offset: Optional[int] = None,
        count: Optional[int] = None,
        component_type: Optional[int] = None,
        **extra: Any,
    ) -> int:
        """An accessor over ``array`` (its dtype decides componentType).

        ``view`` given: reference that view (``array`` only supplies dtype and
        count); else the bytes of ``array`` get their own view. ``array=None``
        with ``count``/``component_type``: an accessor without a bufferView.
        """
        acc: Dict[str, Any] = {"type": type_}
        if array is not None:
            arr = np.asarray(array)
            acc["componentType"] = COMPONENT[arr.dtype]
            acc["count"] = int(arr.shape[0])
            if view is None:
                view = self.view(np.ascontiguousarray(arr).tobytes())
            acc["bufferView"] = view
        if component_type is not None:
            acc["componentType"] = component_type
        if count is not None:
            acc["count"] = count
        if byte_offset is not None:
            acc["byteOffset"] = byte_offset
        if normalized:
            acc["normalized"] = True
        acc.update(extra)
        self._list("accessors").append(acc)
        return len(self.doc["accessors"]) - 1

    def floats(self, values: Any, type_: str) -> int:
        """Accessor over float32 ``values`` (SCALAR gets min/max)."""
        arr = np.asarray(values, dtype=np.float32)
        extra = {}
        if type_ == "SCALAR" and arr.size and np.all(np.isfinite(arr)):
            extra = {"min": [float(arr.min())], "max": [float(arr.max())]}
        return self.accessor(arr, type_, **extra)

    # -- scene graph -------------------------------------------------------
    def node(self, name: Optional[str] = None, children: Optional[List[int]] = None, **props: Any) -> int:
        n: Dict[str, Any] = {}
        if name is not None:
            n["name"] = name
        if children is not None:
            n["children"] = list(children)
        n.update(props)
        self._list("nodes").append(n)
        return len(self.doc["nodes"]) - 1

    def scene(self, roots: List[int], default: bool = True) -> int:
        self._list("scenes").append({"nodes": list(roots)})
        k = len(self.doc["scenes"]) - 1
        if default:
            self.doc["scene"] = k
        return k

    def skin(self, joints: List[int]) -> int:
        self._list("skins").append({"joints": list(joints)})
        return len(self.doc["skins"]) - 1

    def animation(self, name: Optional[str], channels: Sequence[Tuple], **extra: Any) -> int:
        """``channels``: (node, path, input, output[, interpolation]) tuples;
        node None -> a target without a node."""
        samplers, chans = [], []
        for ch in channels:
            node, path, inp, out = ch[:4]
            s: Dict[str, Any] = {"input": inp, "output": out}
            if len(ch) > 4 and ch[4] is not None:
                s["interpolation"] = ch[4]
            samplers.append(s)
            target: Dict[str, Any] = {"path": path}
            if node is not None:
                target["node"] = node
            chans.append({"sampler": len(samplers) - 1, "target": target})
        anim: Dict[str, Any] = {"samplers": samplers, "channels": chans}
        if name is not None:
            anim["name"] = name
        anim.update(extra)
        self._list("animations").append(anim)
        return len(self.doc["animations"]) - 1

    # -- output ------------------------------------------------------------
    def _finish_buffers(self, uri: Optional[str]) -> bytes:
        blob = bytes(self.blob)
        if blob:
            buf: Dict[str, Any] = {"byteLength": len(blob)}
            if uri is not None:
                buf["uri"] = uri
            bufs = self.doc.setdefault("buffers", [])
            if bufs:
                bufs[0].update(buf)
            else:
                bufs.append(buf)
        return blob

    def glb(self) -> bytes:
        blob = self._finish_buffers(None)
        return pack_glb(json_bytes(self.doc), blob if blob else None)

    def gltf(self, uri: str = "data", bin_name: str = "buffer.bin") -> Tuple[bytes, bytes]:
        """(.gltf JSON bytes, buffer bytes). ``uri="data"``: embed as a base64
        data URI; ``uri="file"``: reference ``bin_name``; anything else is
        used verbatim as the URI."""
        blob = bytes(self.blob)
        if uri == "data":
            ref = "data:application/octet-stream;base64," + base64.b64encode(blob).decode("ascii")
        elif uri == "file":
            ref = bin_name
        else:
            ref = uri
        self._finish_buffers(ref)
        return json_bytes(self.doc), blob


def minimal(keys: Sequence[float] = (0.0, 0.5, 1.0)) -> Tuple[RawGltf, Dict[str, int]]:
    """A valid two-node file: root -> child, one LINEAR translation clip on
    the child with x = key index. Returns the builder and its indices."""
    raw = RawGltf()
    child = 1
    root = raw.node("root", children=[child])
    raw.node("child", translation=[0.0, 1.0, 0.0])
    raw.scene([root])
    t = raw.floats(list(keys), "SCALAR")
    v = raw.floats([[float(i), 0.0, 0.0] for i in range(len(keys))], "VEC3")
    anim = raw.animation("Move", [(child, "translation", t, v)])
    return raw, {"root": root, "child": child, "input": t, "output": v, "animation": anim}
