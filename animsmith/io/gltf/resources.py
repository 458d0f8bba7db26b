"""The bytes a glTF file's buffers hold: the GLB BIN chunk, ``data:`` URIs decoded in
place, external files (relative child paths only, size-capped each and in total), and
the budget of decoded components (``max(1 Mi, 16 x input bytes)``)."""

from __future__ import annotations

import os
import re
import stat
from typing import Any, Dict, List, Optional, Tuple

from animsmith.errors import LoadError, unreadable_reason
from animsmith.io.gltf.fields import accessor_label, as_array, as_object, as_uint, show_value

DECODE_FLOOR_COMPONENTS = 1024 * 1024
DECODE_COMPONENTS_PER_INPUT_BYTE = 16
EXTERNAL_MAX_BYTES = 64 * 1024 * 1024
EXTERNAL_TOTAL_MAX_BYTES = 256 * 1024 * 1024
EXTERNAL_MAX_FILES = 1024
_ESCAPE = re.compile(r"%(..)?", re.S)
_BAD_ESCAPES = {"2f", "5c", "2e", "00"}


#: how a Git LFS pointer file starts (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md)
LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/"
_LFS_POINTER_MAX_BYTES = 1024
_LFS_SIZE = re.compile(rb"^size (\d+)$", re.M)


def lfs_pointer_reason(data: bytes) -> Optional[str]:
    """Why ``data`` is not a file's content when it is a Git LFS pointer (a checkout that
    did not fetch LFS objects leaves these ~130-byte text files in place of every
    tracked .glb and .bin), else None."""
    if len(data) > _LFS_POINTER_MAX_BYTES or not data.startswith(LFS_POINTER_PREFIX):
        return None
    size = _LFS_SIZE.search(data)
    real = f" of a {int(size.group(1))}-byte file" if size else ""
    return (
        f"a Git LFS pointer{real}, not the file itself: fetch the LFS content "
        "(`git lfs pull`, or check out with LFS enabled)"
    )


def _safe_relative_path(uri: str, what: str) -> str:
    """A relative child path from a URI reference, or LoadError.

    Refused: absolute paths, schemes/drive letters, backslashes, ``..``
    segments, percent-encoded separators/dots/NUL and malformed escapes.
    """
    from urllib.parse import unquote

    if not uri:
        raise LoadError(f"{what}: empty uri")
    first = uri.split("/", 1)[0]
    if uri.startswith("/") or ":" in first:
        raise LoadError(f"{what}: unsafe external resource {show_value(uri)} (absolute path or URI scheme)")
    if "\\" in uri or "\x00" in uri:
        raise LoadError(f"{what}: unsafe external resource {show_value(uri)} (backslash or NUL)")
    for m in _ESCAPE.finditer(uri):
        code = m.group(1)
        if code is None or not all(c in "0123456789abcdefABCDEF" for c in code):
            raise LoadError(f"{what}: malformed percent escape in uri {show_value(uri)}")
        if code.lower() in _BAD_ESCAPES:
            raise LoadError(f"{what}: unsafe external resource {show_value(uri)} (encoded separator, dot or NUL)")
    rel = unquote(uri)
    parts = rel.split("/")
    if any(part == ".." for part in parts):
        raise LoadError(f"{what}: unsafe external resource {show_value(uri)} (escapes the file's folder)")
    return os.path.join(*[p for p in parts if p not in ("", ".")] or ["."])


def external_resource_files(doc: Any, base_dir: str) -> List[str]:
    """The files (resolved paths) that a document's buffers and images name by URI, as an
    engine resolves them beside it: percent escapes decoded, ``..`` and absolute paths
    followed, a backslash read as a separator, ``file:`` URIs by their path (the loader
    refuses such a buffer, but an image it never reads can still name one). ``data:`` and
    other scheme URIs are left out. For keeping outputs off them: this only names paths, it
    reads nothing."""
    from urllib.parse import unquote, urlparse

    out: List[str] = []
    if not isinstance(doc, dict):
        return out
    for key in ("buffers", "images"):
        items = doc.get(key)
        for item in items if isinstance(items, list) else ():
            uri = item.get("uri") if isinstance(item, dict) else None
            if isinstance(uri, str) and uri[:5].lower() == "file:":
                uri = urlparse(uri).path  # file:///abs/x.png names /abs/x.png
            elif not isinstance(uri, str) or not uri or re.match(r"[A-Za-z][A-Za-z0-9+.\-]+:", uri):
                continue  # data:, http: ... (a one-letter "scheme" is a Windows drive)
            # a backslash separates folders for browsers and three.js as "/" does
            rel = unquote(uri.split("#", 1)[0].split("?", 1)[0]).replace("\\", "/")
            if "\x00" in rel:
                continue
            out.append(os.path.realpath(os.path.join(base_dir, rel)))
    return list(dict.fromkeys(out))


class Budget:
    """Running count of decoded components against the per-file cap."""

    def __init__(self, input_bytes: int):
        self.input_bytes = input_bytes
        self.cap = max(DECODE_FLOOR_COMPONENTS, DECODE_COMPONENTS_PER_INPUT_BYTE * input_bytes)
        self.used = 0
        self.external_bytes = 0
        self.external_files: Dict[str, bytes] = {}

    def spend(self, components: int, what: Any) -> None:
        self.used += components
        if self.used > self.cap:
            raise LoadError(
                f"{accessor_label(what)}: decoding would exceed {self.cap} components "
                f"(cap max(1Mi, 16 x file size)); accessor counts are implausible"
            )


def _read_external(uri: str, base_dir: str, what: str, budget: Budget) -> bytes:
    rel = _safe_relative_path(uri, what)
    root = os.path.realpath(base_dir)
    full = os.path.realpath(os.path.join(root, rel))
    if full != root and not full.startswith(root.rstrip(os.sep) + os.sep):
        raise LoadError(f"{what}: unsafe external resource {show_value(uri)} (escapes the file's folder)")
    cached = budget.external_files.get(full)
    if cached is not None:  # several buffers naming one file share its bytes
        return cached
    if len(budget.external_files) >= EXTERNAL_MAX_FILES:
        raise LoadError(f"{what}: more than {EXTERNAL_MAX_FILES} external resources")
    try:
        st = os.stat(full)
    except OSError as exc:
        raise LoadError(f"{what}: external resource {show_value(uri)}: {unreadable_reason(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        raise LoadError(f"{what}: external resource {show_value(uri)} is not a regular file")
    if st.st_size > EXTERNAL_MAX_BYTES:
        raise LoadError(f"{what}: external resource {show_value(uri)} exceeds {EXTERNAL_MAX_BYTES} bytes")
    try:
        with open(full, "rb") as fh:
            data = fh.read(min(st.st_size, EXTERNAL_MAX_BYTES) + 1)  # read(n) allocates n bytes
    except OSError as exc:
        raise LoadError(f"{what}: external resource {show_value(uri)}: {unreadable_reason(exc)}") from None
    if len(data) != st.st_size:
        raise LoadError(f"{what}: external resource {show_value(uri)} changed while being read")
    if len(data) > EXTERNAL_MAX_BYTES:
        raise LoadError(f"{what}: external resource {show_value(uri)} exceeds {EXTERNAL_MAX_BYTES} bytes")
    lfs = lfs_pointer_reason(data)
    if lfs is not None:
        raise LoadError(f"{what}: external resource {show_value(uri)} is {lfs}")
    budget.external_bytes += len(data)
    if budget.external_bytes > EXTERNAL_TOTAL_MAX_BYTES:
        raise LoadError(f"external resources exceed {EXTERNAL_TOTAL_MAX_BYTES} bytes in total")
    budget.external_files[full] = data
    return data


def _data_uri(uri: str, what: str) -> bytes:
    import base64
    import binascii
    from urllib.parse import unquote_to_bytes

    head, sep, payload = uri.partition(",")
    if not sep:
        raise LoadError(f"{what}: malformed data URI (no comma)")
    if head.endswith(";base64"):
        try:
            return base64.b64decode(payload.encode("ascii"), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError):
            raise LoadError(f"{what}: data URI is not valid base64") from None
    return unquote_to_bytes(payload)


def load_buffers(
    doc: dict, bin_chunk: Optional[bytes], container: str, base_dir: str, budget: Budget
) -> Tuple[List[Optional[bytes]], List[int]]:
    """Return (bytes or None per buffer, declared byteLength per buffer)."""
    datas: List[Optional[bytes]] = []
    lengths: List[int] = []
    for j, buf in enumerate(as_array(doc, "buffers", "buffers")):
        what = f"buffer {j}"
        buf = as_object(buf, what)
        declared = as_uint(buf.get("byteLength"), f"{what} byteLength")
        uri = buf.get("uri")
        if uri is None:
            data = bin_chunk if (container == "glb" and j == 0) else None
        elif type(uri) is not str:
            raise LoadError(f"{what} uri must be a string, got {show_value(uri)}")
        elif uri.startswith("data:"):
            data = _data_uri(uri, what)
        else:
            data = _read_external(uri, base_dir, what, budget)
        if data is not None and len(data) < declared:
            raise LoadError(f"{what} declares {declared} bytes but holds {len(data)}")
        datas.append(data)
        lengths.append(declared)
    # external buffers are input too: the decode cap grows with them
    budget.cap = max(budget.cap, DECODE_COMPONENTS_PER_INPUT_BYTE * (budget.input_bytes + budget.external_bytes))
    return datas, lengths
