"""GLB container parsing: header, chunks and bounds (no JSON interpretation).

GLB layout (glTF 2.0, section "Binary glTF Layout"), all little-endian u32:

    header  = magic b"glTF" | version (2) | length (whole file, bytes)
    chunk*  = chunkLength | chunkType | chunkData[chunkLength]

The first chunk must be JSON (type 0x4E4F534A); an optional BIN chunk
(type 0x004E4942) follows; unknown chunk types are skipped. Every length is
checked against the bytes actually present before anything is sliced, so a
header claiming 4 GB costs nothing. Errors raise :class:`LoadError` without a
path; :mod:`animsmith.io.gltf` adds it.
"""

from __future__ import annotations

import struct
from typing import Optional, Tuple

from animsmith.errors import LoadError

MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942
HEADER_BYTES = 12
CHUNK_HEADER_BYTES = 8

_U32x2 = struct.Struct("<II")
_U32x3 = struct.Struct("<4sII")


def is_glb(data: bytes) -> bool:
    """True when ``data`` starts with the GLB magic ``glTF``."""
    return data[:4] == MAGIC


def split_glb(data: bytes) -> Tuple[bytes, Optional[bytes]]:
    """Return ``(json_chunk_bytes, bin_chunk_bytes_or_None)`` of a GLB file.

    Raises :class:`LoadError` for a bad magic or version, a declared length
    outside [12, len(data)], a truncated chunk header or chunk body, a first
    chunk that is not JSON, a second JSON chunk or a second BIN chunk.
    Bytes after the declared length are ignored.
    """
    size = len(data)
    if size < HEADER_BYTES:
        raise LoadError(f"truncated GLB: {size} bytes, the header alone needs {HEADER_BYTES}")
    magic, version, declared = _U32x3.unpack_from(data, 0)
    if magic != MAGIC:
        raise LoadError(f"not a GLB file: bad magic {magic!r} (expected b'glTF')")
    if version != 2:
        raise LoadError(f"unsupported GLB version {version} (expected 2)")
    if declared < HEADER_BYTES or declared > size:
        raise LoadError(f"GLB header declares {declared} bytes but the file has {size}")
    json_chunk: Optional[bytes] = None
    bin_chunk: Optional[bytes] = None
    offset = HEADER_BYTES
    index = 0
    while offset < declared:
        if declared - offset < CHUNK_HEADER_BYTES:
            raise LoadError(f"truncated GLB chunk header at byte {offset}")
        length, ctype = _U32x2.unpack_from(data, offset)
        body = offset + CHUNK_HEADER_BYTES
        if length > declared - body:
            raise LoadError(
                f"GLB chunk {index} at byte {offset} claims {length} bytes but only {declared - body} remain"
            )
        if index == 0 and ctype != CHUNK_JSON:
            raise LoadError(f"GLB first chunk is not JSON (type 0x{ctype:08X})")
        if ctype == CHUNK_JSON:
            if json_chunk is not None:
                raise LoadError(f"GLB has a second JSON chunk at byte {offset}")
            json_chunk = data[body : body + length]
        elif ctype == CHUNK_BIN:
            if bin_chunk is not None:
                raise LoadError(f"GLB has a second BIN chunk at byte {offset}")
            bin_chunk = data[body : body + length]
        offset = body + length
        index += 1
    if json_chunk is None:
        raise LoadError("GLB has no chunks (a JSON chunk is required)")
    return json_chunk, bin_chunk
