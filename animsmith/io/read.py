"""Read ``.glb`` / ``.gltf`` files into an :class:`~animsmith.model.Asset`.

The read path never goes through pygltflib's decoder: the GLB container is
split by :mod:`animsmith.io.glb`, the JSON is parsed with orjson when it is
importable (else :func:`json.loads`), and accessors are decoded as numpy views
on the buffer bytes. Every index, length, offset, stride and count is checked
with Python integers *before* anything is allocated.

Public API::

    load_asset(path, *, strict=True) -> Asset
    load_asset_bytes(data, path, *, base_dir=None, strict=True) -> Asset

Every failure raises :class:`~animsmith.errors.LoadError` with a one-line
reason naming the file.

Resource rules (hostile input):

* decoded data: the accessors a file makes us decode may hold at most
  ``max(1 Mi, 16 x input bytes)`` components in total (input bytes = the file
  plus its external buffers); zero-filled and sparse accessors without a
  buffer view count like any other. A 1 KB file therefore never decodes more
  than 1 Mi float32 (4 MB); accessors backed by a buffer view are in any case
  bounded by that view's real length, so real files stay far below the cap.
* external buffers (``.gltf``): relative child paths only; at most 64 MiB per
  file and 256 MiB in total; ``data:`` URIs are decoded in place.

Key times: ``strict=True`` rejects non-finite or non-increasing key times;
``strict=False`` keeps them (``lint`` reports them as findings). Non-finite
values are always kept.

Decoded arrays may be read-only views on the file's bytes; an accessor used by
several samplers decodes once and every channel gets the same array object.
"""

from __future__ import annotations

import os
import re
import stat
from itertools import chain, repeat
from operator import add, eq, le, mul
from math import isfinite
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from animsmith.errors import LoadError, unreadable_reason
from animsmith.io.glb import is_glb, split_glb
from animsmith.io.text import nesting_depth, strip_utf8_bom
from animsmith.memo import memo
from animsmith.model import INTERPOLATIONS, PATH_WIDTH, Asset, Channel, Clip, Skeleton, trs_matrices



def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    value = float(text)
    if not isfinite(value):
        raise ValueError(f"number {text[:32]} is infinity when parsed as double")
    return value


def _stdlib_loads(data: bytes) -> Any:
    """:func:`json.loads`, as strict as orjson: ``NaN``/``Infinity`` literals,
    numbers beyond float range and unpaired surrogate escapes (``"\\ud800"``,
    not text) are errors."""
    import json

    doc = json.loads(data.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite_float)
    if b"\\u" in data:  # only an escape can make a lone surrogate
        try:
            json.dumps(doc, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("a string holds an unpaired surrogate escape") from None
    return doc


try:  # optional accelerator
    import orjson as _orjson

    _loads = _orjson.loads
    _dumps: Any = _orjson.dumps
except ImportError:  # pragma: no cover - depends on the environment
    _loads = _stdlib_loads
    _dumps = None

MAX_JSON_DEPTH = 4096
# orjson survives >= 10k nested levels on an 8 MB stack (main thread and
# threads); a document with at most this many opening brackets cannot nest
# deeper, so it needs no depth scan.
NO_SCAN_OPENING_BRACKETS = 8192


DECODE_FLOOR_COMPONENTS = 1024 * 1024
DECODE_COMPONENTS_PER_INPUT_BYTE = 16
#: pose-grid budget (bone-frames summed over clips), see _check_grid_budget
GRID_FLOOR_CELLS = 16 * 1024
GRID_CELLS_PER_INPUT_BYTE = 2
EXTERNAL_MAX_BYTES = 64 * 1024 * 1024
EXTERNAL_TOTAL_MAX_BYTES = 256 * 1024 * 1024
EXTERNAL_MAX_FILES = 1024
MAX_FILE_BYTES = 1024 * 1024 * 1024
MAX_BYTE_STRIDE = 252

EXTENSIONS = (".glb", ".gltf")
UNSUPPORTED_REQUIRED = ("EXT_meshopt_compression", "KHR_meshopt_compression")

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

_IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)
_ZERO3 = (0.0, 0.0, 0.0)
_ONE3 = (1.0, 1.0, 1.0)
_NUMBER_TYPE_SET = frozenset((float, int))
_DICT_TYPE = {dict}
_LIST_TYPE = {list}
_STR_TYPE = {str}
_INT_TYPE = {int}
_STR_OR_NONE = frozenset((str, type(None)))
_LIST_OR_NONE = frozenset((list, type(None)))
_DIAG4 = np.arange(4)
_BOOL_TYPE = {bool}
_FLOAT_TYPE = {5126}
_F4 = np.dtype("<f4")
_PATH_SET = frozenset(("translation", "rotation", "scale"))
_LINEAR_OR_STEP = frozenset(("LINEAR", "STEP"))
_OUTPUT_TYPE = {"translation": "VEC3", "rotation": "VEC4", "scale": "VEC3"}
_ESCAPE = re.compile(r"%(..)?", re.S)
_BAD_ESCAPES = {"2f", "5c", "2e", "00"}


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def load_asset(path: Any, *, strict: bool = True) -> Asset:
    """Read the file at ``path`` (``.glb``/``.gltf``; GLB sniffed by magic)."""
    p = os.fspath(path)
    data = read_file_bytes(p, sniff=True)
    return load_asset_bytes(data, p, strict=strict)


def read_file_bytes(path: Any, *, limit: Optional[int] = None, sniff: bool = False) -> bytes:
    """The bytes of the regular file ``path``, or ``LoadError`` naming it.

    Refused without reading: missing/unreadable, a directory, a FIFO or device
    (reading would block or never end), more than ``limit`` bytes (default
    ``MAX_FILE_BYTES``); ``sniff``: neither a .glb/.gltf name nor ``glTF``
    magic. Refused after reading: a size different from what ``stat`` saw
    (the file changed while being read).
    """
    p = os.fspath(path)
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        st = os.stat(p)
    except OSError as exc:
        raise LoadError(unreadable_reason(exc), p) from None
    except ValueError:  # a NUL in the path (a contract's member string): no file has that name
        raise LoadError("cannot read file: the path holds a NUL character", p) from None
    if stat.S_ISDIR(st.st_mode):
        raise LoadError("is a directory, not a .glb/.gltf file", p)
    if not stat.S_ISREG(st.st_mode):
        raise LoadError("not a regular file", p)
    if st.st_size > limit:
        raise LoadError(f"file is {st.st_size} bytes; the limit is {limit}", p)
    try:
        with open(p, "rb") as fh:
            if sniff and os.path.splitext(p)[1].lower() not in EXTENSIONS and fh.read(4) != b"glTF":
                raise LoadError("unsupported input (expected .glb or .gltf)", p)
            fh.seek(0)
            # read(n) allocates n bytes up front: ask for the size stat saw (+1)
            data = fh.read(st.st_size + 1)
    except OSError as exc:
        raise LoadError(unreadable_reason(exc), p) from None
    if len(data) != st.st_size:  # grew or shrank between stat and read
        raise LoadError(f"file changed while being read ({st.st_size} bytes at open, read {len(data)})", p)
    return data


def load_asset_bytes(
    data: bytes, path: Any, *, base_dir: Optional[str] = None, strict: bool = True
) -> Asset:
    """Parse ``data`` (the bytes of the file ``path``) into an :class:`Asset`.

    ``base_dir`` is where external ``.bin`` files are looked up (default: the
    folder of ``path``).
    """
    p = os.fspath(path)
    try:
        with np.errstate(all="ignore"):  # hostile numbers must not print warnings
            return _load(bytes(data), p, base_dir, strict)
    except LoadError as exc:
        raise exc.with_path(p)
    except RecursionError:
        raise LoadError("glTF JSON is nested too deeply", p) from None
    except MemoryError:
        raise LoadError("out of memory while decoding", p) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # Last line of defence: malformed input must never become a traceback.
        reason = " ".join(str(exc).split())[:200]
        raise LoadError(f"malformed glTF ({type(exc).__name__}: {reason})", p) from None


# --------------------------------------------------------------------------
# Small validators (each raises LoadError with a one-line reason)
# --------------------------------------------------------------------------


def _show(v: Any) -> str:
    """Short, bounded repr of a JSON value for messages (depth- and size-limited)."""
    import reprlib

    text = reprlib.repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _index(v: Any, n: int, what: str) -> int:
    """``v`` as an index in [0, n): a JSON integer (not bool/float)."""
    if type(v) is not int:
        if v is None:
            raise LoadError(f"{what} is missing")
        raise LoadError(f"{what} must be an integer index, got {_show(v)}")
    if v < 0 or v >= n:
        raise LoadError(f"{what} {v} out of range ({n} available)")
    return v


def _uint(v: Any, what: str, default: Optional[int] = None, minimum: int = 0) -> int:
    if v is None and default is not None:
        return default
    if type(v) is not int:
        if v is None:
            raise LoadError(f"{what} is missing")
        raise LoadError(f"{what} must be an integer, got {_show(v)}")
    if v < minimum:
        raise LoadError(f"{what} must be >= {minimum}, got {v}")
    return v


def _what(what: Any) -> str:
    """Error label: an int means accessor ``what`` (formatted only on error)."""
    return f"accessor {what}" if type(what) is int else str(what)


def _obj(v: Any, what: str) -> dict:
    if type(v) is not dict:
        raise LoadError(f"{what} must be a JSON object, got {_show(v)}")
    return v


def _array(d: dict, key: str, what: str) -> list:
    v = d.get(key)
    if v is None:
        return []
    if type(v) is not list:
        raise LoadError(f"{what} must be a JSON array, got {_show(v)}")
    return v


def _name(v: Any, fallback: str, what: str) -> str:
    if v is None or v == "":
        return fallback
    if type(v) is not str:
        raise LoadError(f"{what} name must be a string, got {_show(v)}")
    return v


def _numbers(v: Any, n: int, what: str) -> list:
    if type(v) is not list or len(v) != n or not all(type(x) is float or type(x) is int for x in v):
        raise LoadError(f"{what} must be an array of {n} numbers, got {_show(v)}")
    return v


# --------------------------------------------------------------------------
# Container, JSON, buffers
# --------------------------------------------------------------------------


def _safe_loads(raw: bytes) -> Any:
    """Parse JSON without letting deep nesting crash the process.

    orjson (an optional accelerator) recurses on the C stack: tens of
    thousands of levels crash it. The depth is at most the number of opening
    brackets, so small counts need no scan; otherwise the nesting is measured
    first (:func:`animsmith.io.text.nesting_depth`). The stdlib parser raises
    RecursionError instead of crashing.
    """
    opens = raw.count(b"[") + raw.count(b"{")
    if opens <= NO_SCAN_OPENING_BRACKETS or _loads is _stdlib_loads:
        return _loads(raw)
    depth = nesting_depth(raw)
    if depth > MAX_JSON_DEPTH:
        raise LoadError(f"glTF JSON is nested too deeply ({depth} levels)")
    return _loads(raw)


def _parse_json(raw: bytes) -> dict:
    raw = strip_utf8_bom(raw)
    raw = raw.rstrip(b" \t\r\n\x00")
    try:
        doc = _safe_loads(raw)
    except RecursionError:
        raise LoadError("glTF JSON is nested too deeply") from None
    except ValueError as exc:  # orjson.JSONDecodeError, json.JSONDecodeError, UnicodeDecodeError
        reason = " ".join(str(exc).split())[:160]
        raise LoadError(f"glTF JSON is invalid: {reason}") from None
    if type(doc) is not dict:
        raise LoadError(f"glTF JSON must be an object, got {type(doc).__name__}")
    return doc


def _check_header(doc: dict) -> None:
    asset = doc.get("asset")
    if type(asset) is dict:
        version = asset.get("version")
        if type(version) is str and version.startswith("1."):
            raise LoadError(f"glTF {version} is not supported (expected 2.0)")
    for ext in _array(doc, "extensionsRequired", "extensionsRequired"):
        if ext in UNSUPPORTED_REQUIRED:
            raise LoadError(f"required extension {ext} is not supported")


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
        raise LoadError(f"{what}: unsafe external resource {_show(uri)} (absolute path or URI scheme)")
    if "\\" in uri or "\x00" in uri:
        raise LoadError(f"{what}: unsafe external resource {_show(uri)} (backslash or NUL)")
    for m in _ESCAPE.finditer(uri):
        code = m.group(1)
        if code is None or not all(c in "0123456789abcdefABCDEF" for c in code):
            raise LoadError(f"{what}: malformed percent escape in uri {_show(uri)}")
        if code.lower() in _BAD_ESCAPES:
            raise LoadError(f"{what}: unsafe external resource {_show(uri)} (encoded separator, dot or NUL)")
    rel = unquote(uri)
    parts = rel.split("/")
    if any(part == ".." for part in parts):
        raise LoadError(f"{what}: unsafe external resource {_show(uri)} (escapes the file's folder)")
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


class _Budget:
    """Running count of decoded components against the per-file cap."""

    def __init__(self, input_bytes: int):
        self.cap = max(DECODE_FLOOR_COMPONENTS, DECODE_COMPONENTS_PER_INPUT_BYTE * input_bytes)
        self.used = 0
        self.external_bytes = 0
        self.external_files: Dict[str, bytes] = {}

    def spend(self, components: int, what: Any) -> None:
        self.used += components
        if self.used > self.cap:
            raise LoadError(
                f"{_what(what)}: decoding would exceed {self.cap} components "
                f"(cap max(1Mi, 16 x file size)); accessor counts are implausible"
            )


def _read_external(uri: str, base_dir: str, what: str, budget: _Budget) -> bytes:
    rel = _safe_relative_path(uri, what)
    root = os.path.realpath(base_dir)
    full = os.path.realpath(os.path.join(root, rel))
    if full != root and not full.startswith(root.rstrip(os.sep) + os.sep):
        raise LoadError(f"{what}: unsafe external resource {_show(uri)} (escapes the file's folder)")
    cached = budget.external_files.get(full)
    if cached is not None:  # several buffers naming one file share its bytes
        return cached
    if len(budget.external_files) >= EXTERNAL_MAX_FILES:
        raise LoadError(f"{what}: more than {EXTERNAL_MAX_FILES} external resources")
    try:
        st = os.stat(full)
    except OSError as exc:
        raise LoadError(f"{what}: external resource {_show(uri)}: {unreadable_reason(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        raise LoadError(f"{what}: external resource {_show(uri)} is not a regular file")
    if st.st_size > EXTERNAL_MAX_BYTES:
        raise LoadError(f"{what}: external resource {_show(uri)} exceeds {EXTERNAL_MAX_BYTES} bytes")
    try:
        with open(full, "rb") as fh:
            data = fh.read(min(st.st_size, EXTERNAL_MAX_BYTES) + 1)  # read(n) allocates n bytes
    except OSError as exc:
        raise LoadError(f"{what}: external resource {_show(uri)}: {unreadable_reason(exc)}") from None
    if len(data) != st.st_size:
        raise LoadError(f"{what}: external resource {_show(uri)} changed while being read")
    if len(data) > EXTERNAL_MAX_BYTES:
        raise LoadError(f"{what}: external resource {_show(uri)} exceeds {EXTERNAL_MAX_BYTES} bytes")
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


def _load_buffers(
    doc: dict, bin_chunk: Optional[bytes], container: str, base_dir: str, budget: _Budget
) -> Tuple[List[Optional[bytes]], List[int]]:
    """Return (bytes or None per buffer, declared byteLength per buffer)."""
    datas: List[Optional[bytes]] = []
    lengths: List[int] = []
    for j, buf in enumerate(_array(doc, "buffers", "buffers")):
        what = f"buffer {j}"
        buf = _obj(buf, what)
        declared = _uint(buf.get("byteLength"), f"{what} byteLength")
        uri = buf.get("uri")
        if uri is None:
            data = bin_chunk if (container == "glb" and j == 0) else None
        elif type(uri) is not str:
            raise LoadError(f"{what} uri must be a string, got {_show(uri)}")
        elif uri.startswith("data:"):
            data = _data_uri(uri, what)
        else:
            data = _read_external(uri, base_dir, what, budget)
        if data is not None and len(data) < declared:
            raise LoadError(f"{what} declares {declared} bytes but holds {len(data)}")
        datas.append(data)
        lengths.append(declared)
    return datas, lengths


# --------------------------------------------------------------------------
# Skeleton
# --------------------------------------------------------------------------


def _decompose(m: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k,4,4) affine -> translation, rotation (x,y,z,w), scale.

    scale = column norms of the 3x3 block (x negated when det < 0);
    rotation = quaternion of the block with scale divided out (identity when a
    scale is 0). Shear is lost here; ``rest_matrix`` keeps it.
    """
    from animsmith.core.quat import from_matrix

    t = m[:, :3, 3].copy()
    basis = m[:, :3, :3]
    s = np.linalg.norm(basis, axis=1)
    s[np.linalg.det(basis) < 0, 0] *= -1.0
    zero = np.any(s == 0, axis=1) | ~np.all(np.isfinite(basis), axis=(1, 2))
    safe = np.where(s == 0, 1.0, s)
    q = from_matrix(basis / safe[:, None, :])
    q[zero] = _IDENTITY_Q
    return t, q, s


def _node_fields(nodes: list) -> Tuple[list, list, list, list, list, list, Dict[int, list]]:
    """Per-node validation in file order: (parent, kids, names, trans, rots, scales, matrices).

    Raises the first problem in file order; ``_node_fields_bulk`` is the fast
    path for files without problems.
    """
    n = len(nodes)
    parent = [-1] * n
    kids: List[Optional[list]] = [None] * n
    names: List[str] = []
    trans: List[Any] = []
    rots: List[Any] = []
    scales: List[Any] = []
    matrices: Dict[int, list] = {}
    for i, node in enumerate(nodes):
        if type(node) is not dict:
            raise LoadError(f"node {i} must be a JSON object, got {_show(node)}")
        get = node.get
        children = get("children")
        if children is not None:
            if type(children) is not list:
                raise LoadError(f"node {i} children must be a JSON array, got {_show(children)}")
            for c in children:
                if type(c) is not int or not 0 <= c < n:
                    raise _bad_index(c, n, f"node {i} child")
                if c == i:
                    raise LoadError(f"node {i} lists itself as a child (cycle)")
                p = parent[c]
                if p != -1:
                    if p == i:
                        raise LoadError(f"node {i} lists child {c} twice")
                    raise LoadError(
                        f"node {c} is a child of nodes {p} and {i}; glTF requires a forest (one parent per node)"
                    )
                parent[c] = i
            kids[i] = children
        name = get("name")
        names.append(name if type(name) is str and name else (_name(name, "", f"node {i}") or None))
        mat = get("matrix")
        if mat is not None:
            matrices[i] = _numbers(mat, 16, f"node {i} matrix")
        # Shapes here; element types in bulk below (map(type) runs in C).
        t = get("translation")
        r = get("rotation")
        s = get("scale")
        trans.append(_ZERO3 if t is None else t if type(t) is list and len(t) == 3 else _numbers(t, 3, f"node {i} translation"))
        rots.append(_IDENTITY_Q if r is None else r if type(r) is list and len(r) == 4 else _numbers(r, 4, f"node {i} rotation"))
        scales.append(_ONE3 if s is None else s if type(s) is list and len(s) == 3 else _numbers(s, 3, f"node {i} scale"))
    for key, width, values in (("translation", 3, trans), ("rotation", 4, rots), ("scale", 3, scales)):
        if not _NUMBER_TYPE_SET.issuperset(map(type, chain.from_iterable(values))):
            for i, v in enumerate(values):
                _numbers(v, width, f"node {i} {key}")
    names = fill_node_names(names)
    return parent, kids, names, trans, rots, scales, matrices


def _bulk_vectors(values: list, width: int, default: tuple) -> Any:
    """``values`` with None replaced by ``default``; None when every entry is
    absent; False when some entry is not an array of ``width`` numbers."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    if (
        set(map(type, present)) != _LIST_TYPE
        or set(map(len, present)) != {width}
        or not _NUMBER_TYPE_SET.issuperset(map(type, chain.from_iterable(present)))
    ):
        return False
    return values if len(present) == len(values) else [default if v is None else v for v in values]


def _node_fields_bulk(nodes: list) -> Optional[Tuple[list, list, list, Any, Any, Any, Dict[int, list]]]:
    """``_node_fields`` for files without problems, with the checks done over
    whole lists (``map``/``set`` run in C); None when any check fails (the
    per-node loop then reports the first problem). Absent TRS lists are None."""
    n = len(nodes)
    if set(map(type, nodes)) != _DICT_TYPE:
        return None
    get = dict.get
    kids = list(map(get, nodes, repeat("children")))
    names = list(map(get, nodes, repeat("name")))
    mats = list(map(get, nodes, repeat("matrix")))
    name_types = set(map(type, names))
    if name_types != _STR_TYPE or "" in names:
        if not name_types <= _STR_OR_NONE:
            return None
        names = fill_node_names(names)
    if not set(map(type, kids)) <= _LIST_OR_NONE:
        return None
    flat = list(chain.from_iterable(filter(None, kids)))
    if flat and (
        set(map(type, flat)) != _INT_TYPE or min(flat) < 0 or max(flat) >= n or len(set(flat)) != len(flat)
    ):
        return None
    parent = [-1] * n
    for i, children in enumerate(kids):
        if children:
            for c in children:
                parent[c] = i
    if any(map(eq, parent, range(n))):  # a node listing itself
        return None
    matrices: Dict[int, list] = {}
    if mats.count(None) != n:
        for i, mat in enumerate(mats):
            if mat is not None:
                if type(mat) is not list or len(mat) != 16 or not _NUMBER_TYPE_SET.issuperset(map(type, mat)):
                    return None
                matrices[i] = mat
    trs = []
    for key, width, default in (("translation", 3, _ZERO3), ("rotation", 4, _IDENTITY_Q), ("scale", 3, _ONE3)):
        values = _bulk_vectors(list(map(get, nodes, repeat(key))), width, default)
        if values is False:
            return None
        trs.append(values)
    return parent, kids, names, trs[0], trs[1], trs[2], matrices


def _stack_vectors(values: Optional[list], n: int, width: int, default: tuple) -> np.ndarray:
    """(n, width) float64 from per-node number lists (None: every node has ``default``)."""
    if values is None:
        return np.tile(np.asarray(default, dtype=np.float64), (n, 1))
    return np.array(list(chain.from_iterable(values)), dtype=np.float64).reshape(n, width)


def _preorder(parent: list, kids: list) -> List[int]:
    """Depth-first pre-order from the roots (file order), children as declared."""
    n = len(parent)
    order: List[int] = []
    append = order.append
    stack = [i for i in range(n - 1, -1, -1) if parent[i] == -1]
    pop = stack.pop
    extend = stack.extend
    while stack:
        i = pop()
        append(i)
        c = kids[i]
        if c:
            extend(reversed(c))
    if len(order) != n:
        seen = set(order)
        lost = next(i for i in range(n) if i not in seen)
        raise LoadError(f"node {lost} is unreachable from any root; the node graph contains a cycle")
    return order


def _rest_matrices(t: np.ndarray, r: Optional[list], s: Optional[list], rot: np.ndarray, scl: np.ndarray) -> np.ndarray:
    """(B, 4, 4) local T·R·S; with no node rotation or scale it is [I | t] exactly."""
    if r is None and s is None:
        m = np.zeros((t.shape[0], 4, 4))
        m[:, _DIAG4, _DIAG4] = 1.0
        m[:, :3, 3] = t
        return m
    return trs_matrices(t, rot, scl)


#: Skeletons by the exact JSON text of everything that builds one (``nodes``,
#: ``skins``, ``scenes``, ``scene``): every clip of a pack exported from one rig
#: shares one Skeleton object (arrays read-only), and so the FK plans and
#: role lookups cached per skeleton. Keys are orjson's serialisation of the
#: parsed values, so ``1``/``1.0``/``true`` and ``0.0``/``-0.0`` never collide.
_SKELETONS: Dict[bytes, Skeleton] = {}
_SKELETONS_MAX = 16
_CACHE_KEY_MAX_BYTES = 1 << 18


def _json_key(value: Any, *counts: int) -> Optional[bytes]:
    """orjson's text of ``value`` followed by ``counts`` (an exact cache key), or
    None (no orjson, not serialisable, over ``_CACHE_KEY_MAX_BYTES``)."""
    if _dumps is None:
        return None
    try:
        key = _dumps(value) + repr(counts).encode()
    except Exception:  # noqa: BLE001 - orjson.JSONEncodeError (deep nesting, 64-bit overflow)
        return None
    return key if len(key) <= _CACHE_KEY_MAX_BYTES else None


def _skeleton_key(doc: dict) -> Optional[bytes]:
    """The cache key of ``doc``'s skeleton, or None (no orjson, too large, not serialisable)."""
    get = doc.get
    return _json_key((get("nodes"), get("skins"), get("scenes"), get("scene")))


def _read_only(skeleton: Skeleton) -> Skeleton:
    """``skeleton`` with its arrays made read-only (a loaded skeleton may be shared)."""
    for value in vars(skeleton).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return skeleton


def _shared_skeleton(doc: dict) -> Skeleton:
    """:func:`_build_skeleton`, built once per distinct node graph (see ``_SKELETONS``)."""
    return memo(_SKELETONS, _SKELETONS_MAX, _skeleton_key(doc), lambda: _read_only(_build_skeleton(doc)))


def _build_skeleton(doc: dict) -> Skeleton:
    nodes = _array(doc, "nodes", "nodes")
    n = len(nodes)
    fields = _node_fields_bulk(nodes) if n else None
    if fields is None:
        fields = _node_fields(nodes)
    parent, kids, names, trans, rots, scales, matrices = fields
    order = _preorder(parent, kids)

    order_a = np.asarray(order, dtype=np.int64)
    bone_of = np.empty(n, dtype=np.int64)
    bone_of[order_a] = np.arange(n)
    parent_a = np.asarray(parent, dtype=np.int64)[order_a] if n else np.zeros(0, np.int64)
    parents = np.where(parent_a >= 0, bone_of[np.maximum(parent_a, 0)] if n else parent_a, -1)

    t = _stack_vectors(trans, n, 3, _ZERO3)[order_a]
    r = _stack_vectors(rots, n, 4, _IDENTITY_Q)[order_a]
    s = _stack_vectors(scales, n, 3, _ONE3)[order_a]
    m = _rest_matrices(t, rots, scales, r, s)
    has_matrix = np.zeros(n, dtype=bool)
    if matrices:
        nodes_m = sorted(matrices)
        bones_m = bone_of[nodes_m]
        # glTF matrices are column-major: reshape gives the transpose.
        mm = np.asarray([matrices[i] for i in nodes_m], dtype=np.float64).reshape(-1, 4, 4).transpose(0, 2, 1)
        m[bones_m] = mm
        t[bones_m], r[bones_m], s[bones_m] = _decompose(mm)
        has_matrix[bones_m] = True

    return Skeleton(
        names=list(map(names.__getitem__, order)),
        node_indices=order_a,
        parents=parents.astype(np.int64),
        rest_translation=t,
        rest_rotation=r,
        rest_scale=s,
        rest_matrix=m,
        has_matrix=has_matrix,
        is_joint=_joint_nodes(doc, n)[order_a],
        in_scene=_in_scene(doc, n, order_a, parents),
        _bone_of_node=dict(zip(order, range(n))),
    )


def _joint_nodes(doc: dict, n: int) -> np.ndarray:
    """(n,) bool per glTF node: listed as a joint by some skin."""
    joint_node = np.zeros(n, dtype=bool)
    for k, skin in enumerate(_array(doc, "skins", "skins")):
        skin = _obj(skin, f"skin {k}")
        joints = _array(skin, "joints", f"skin {k} joints")
        if joints and (set(map(type, joints)) != _INT_TYPE or min(joints) < 0 or max(joints) >= n):
            for j in joints:
                if type(j) is not int or not 0 <= j < n:
                    raise _bad_index(j, n, f"skin {k} joint")
        joint_node[joints] = True
    return joint_node


def _in_scene(doc: dict, n: int, order: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """(B,) bool: reachable from the default scene (``scene`` or 0); all True without scenes."""
    scenes = _array(doc, "scenes", "scenes")
    if not scenes:
        return np.ones(n, dtype=bool)
    default = doc.get("scene")
    k = 0 if default is None else _index(default, len(scenes), "scene")
    scene = _obj(scenes[k], f"scene {k}")
    listed = np.zeros(n, dtype=bool)
    for node in _array(scene, "nodes", f"scene {k} nodes"):
        listed[_index(node, n, f"scene {k} node")] = True
    flags = listed[order].tolist()
    out = [False] * n
    for b, p in enumerate(parents.tolist()):
        out[b] = flags[b] or (p >= 0 and out[p])
    return np.asarray(out, dtype=bool)


# --------------------------------------------------------------------------
# Accessors
# --------------------------------------------------------------------------


class _Accessors:
    """Bounds-checked, cached accessor decoding for one file."""

    def __init__(self, doc: dict, buffers: List[Optional[bytes]], lengths: List[int], budget: _Budget):
        self.accessors = _array(doc, "accessors", "accessors")
        self.views = _array(doc, "bufferViews", "bufferViews")
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
            _obj(acc, what)
        ctype = acc.get("componentType")
        if type(ctype) is not int or ctype not in COMPONENT_DTYPE:
            raise LoadError(f"{what}: unknown componentType {_show(ctype)}")
        atype = acc.get("type")
        if type(atype) is not str or atype not in TYPE_WIDTH:
            raise LoadError(f"{what}: unknown type {_show(atype)}")
        count = acc.get("count")
        if type(count) is not int or count < 1:
            _uint(count, f"{what} count", minimum=1)
        normalized = acc.get("normalized", False)
        if type(normalized) is not bool:
            raise LoadError(f"{what}: normalized must be true or false, got {_show(normalized)}")
        got = (ctype, atype, count, normalized)
        self.meta_cache[ai] = got
        return got

    def view(self, bv: Any, what: str) -> Tuple[bytes, int, int, Optional[int], int]:
        """Validated ``(buffer bytes, byteOffset, byteLength, byteStride, buffer)`` of view ``bv``."""
        got = self.view_cache.get(bv) if type(bv) is int else None
        if got is not None:
            return got
        if type(bv) is not int or not 0 <= bv < len(self.views):
            raise _bad_index(bv, len(self.views), f"{_what(what)} bufferView")
        view = self.views[bv]
        if type(view) is not dict:
            _obj(view, f"bufferView {bv}")
        bi = view.get("buffer")
        if type(bi) is not int or not 0 <= bi < len(self.buffers):
            raise _bad_index(bi, len(self.buffers), f"bufferView {bv} buffer")
        v_off = view.get("byteOffset", 0)
        if type(v_off) is not int or v_off < 0:
            _uint(v_off, f"bufferView {bv} byteOffset")
        v_len = view.get("byteLength")
        if type(v_len) is not int or v_len < 1:
            _uint(v_len, f"bufferView {bv} byteLength", minimum=1)
        stride = view.get("byteStride")
        if stride is not None:
            stride = _uint(stride, f"bufferView {bv} byteStride", minimum=1)
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
            _uint(a_off, f"{_what(what)} byteOffset")
        if stride is None or packed:
            step = elem
        else:
            step = stride
            if step < elem:
                raise LoadError(f"bufferView {bv} byteStride {step} is shorter than the {elem}-byte elements of {_what(what)}")
        need = a_off + step * (count - 1) + elem
        if need > v_len:
            raise LoadError(f"{_what(what)} needs {need} bytes of bufferView {bv} but it has {v_len}")
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
            raw = self._apply_sparse(raw, _obj(sparse, f"{what} sparse"), count, width, ctype, what)
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
        scount = _uint(sparse.get("count"), f"{what} sparse count", minimum=1)
        if scount > count:
            raise LoadError(f"{what} sparse count {scount} exceeds accessor count {count}")
        self.budget.spend(scount * (width + 1), what)
        ind = _obj(sparse.get("indices"), f"{what} sparse indices")
        ictype = ind.get("componentType")
        if type(ictype) is not int or ictype not in SPARSE_INDEX_TYPES:
            raise LoadError(f"{what} sparse indices componentType {_show(ictype)} must be 5121, 5123 or 5125")
        indices = self._view_array(
            ind.get("bufferView"), ind.get("byteOffset"), scount, 1, ictype, f"{what} sparse indices", packed=True
        )[:, 0]
        vals = _obj(sparse.get("values"), f"{what} sparse values")
        values = self._view_array(
            vals.get("bufferView"), vals.get("byteOffset"), scount, width, ctype, f"{what} sparse values", packed=True
        )
        top = int(indices.max())
        if top >= count:
            raise LoadError(f"{what} sparse index {top} out of range (count {count})")
        out = base if base.flags.writeable else np.array(base, copy=True)  # zeros base: fill in place
        out[indices.astype(np.int64)] = values
        return out


# --------------------------------------------------------------------------
# Animations
# --------------------------------------------------------------------------


def _type_label(ctype: int, atype: str, normalized: bool) -> str:
    return f"{atype} {COMPONENT_NAME.get(ctype, ctype)}{' normalized' if normalized else ''}"


def _check_output(meta: Tuple[int, str, int, bool], path: str, ai: int, where: str) -> None:
    ctype, atype, _, normalized = meta
    if path == "rotation":
        ok = atype == "VEC4" and (ctype == FLOAT or (normalized and ctype in NORMALIZE_DIVISOR))
        expected = "VEC4 FLOAT or VEC4 normalized BYTE/UNSIGNED_BYTE/SHORT/UNSIGNED_SHORT"
    else:
        ok = atype == "VEC3" and ctype == FLOAT
        expected = "VEC3 FLOAT"
    if not ok:
        raise LoadError(
            f"{where}: output accessor {ai} is {_type_label(ctype, atype, normalized)}, expected {expected}"
        )


def _times_problem(times: np.ndarray) -> Optional[str]:
    """Why ``times`` are not finite and strictly increasing, or None.

    Fast path: strictly increasing (NaN compares false) with finite first and
    last keys implies every key is finite.
    """
    k_last = times.shape[0] - 1
    if (k_last == 0 or bool((times[1:] > times[:-1]).all())) and isfinite(times[0]) and isfinite(times[k_last]):
        return None
    finite = np.isfinite(times)
    if not finite.all():
        k = int(np.argmin(finite))
        return f"non-finite key time {float(times[k])} at key {k}"
    steps_ok = times[1:] > times[:-1]
    k = int(np.argmin(steps_ok)) + 1
    return f"key times not strictly increasing (key {k}: {float(times[k]) + 0.0:g} after {float(times[k - 1]) + 0.0:g})"


def fill_node_names(names: list) -> list:
    """Node names with ``node<i>`` for an unnamed node (None or ""); when the file names
    another node exactly that, ``node<i>#1`` (``#2``...), so a generated name never
    takes a name the file uses."""
    if all(names):
        return names
    real = set(filter(None, names))
    out = []
    for i, name in enumerate(names):
        if not name:
            name, k = f"node{i}", 1
            while name in real:
                name, k = f"node{i}#{k}", k + 1
        out.append(name)
    return out


def real_names(items: list) -> set:
    """The non-empty string ``name``s of a list of JSON objects (anything else ignored)."""
    return {x.get("name") for x in items if type(x) is dict and type(x.get("name")) is str and x.get("name")}


def _unique_name(base: str, used: set, repeats: Dict[str, int], reserved: frozenset = frozenset(), own: bool = True) -> str:
    """``base``, or ``base#1``, ``base#2``... for repeats (never colliding).

    ``reserved``: the names the file itself gives (a generated name never takes one);
    ``own``: ``base`` is the item's own name (else a generated ``animation<i>``).
    """
    if base not in used and (own or base not in reserved):
        used.add(base)
        repeats.setdefault(base, 1)
        return base
    k = repeats.get(base, 1)
    while f"{base}#{k}" in used or f"{base}#{k}" in reserved:
        k += 1
    repeats[base] = k + 1
    name = f"{base}#{k}"
    used.add(name)
    return name


def _split_triplets(values: np.ndarray, keys: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CUBICSPLINE output (3K, C) -> (in-tangents, values, out-tangents), each (K, C).

    glTF stores per key k the triplet [a_k, v_k, b_k] at rows 3k, 3k+1, 3k+2.
    """
    triplets = values.reshape(keys, 3, values.shape[1])
    return (
        np.ascontiguousarray(triplets[:, 0]),
        np.ascontiguousarray(triplets[:, 1]),
        np.ascontiguousarray(triplets[:, 2]),
    )


def _bad_index(v: Any, n: int, what: str) -> LoadError:
    try:
        _index(v, n, what)
    except LoadError as exc:
        return exc
    return LoadError(f"{what} is invalid")  # pragma: no cover - _index raised above


def _build_clips(doc: dict, skeleton: Skeleton, acc: _Accessors, strict: bool) -> List[Clip]:
    """One :class:`Clip` per glTF animation (see the module docstring).

    The bulk path handles the common layout (float accessors, LINEAR/STEP,
    node channels only); anything else, and every problem, goes through the
    per-channel path, which reports the first problem in file order.
    """
    clips = _build_clips_bulk(doc, skeleton, acc, strict)
    return clips if clips is not None else _build_clips_general(doc, skeleton, acc, strict)


def _build_clips_general(doc: dict, skeleton: Skeleton, acc: _Accessors, strict: bool) -> List[Clip]:
    """One :class:`Clip` per glTF animation, validated channel by channel."""
    n_nodes = skeleton.bone_count
    n_acc = len(acc.accessors)
    bone_of = skeleton._bone_of_node
    meta_cache = acc.meta_cache
    times_cache = acc.times_cache
    times_checked: Dict[int, Optional[str]] = {}
    cubic_cache: Dict[int, Tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    clips: List[Clip] = []
    used: set = set()
    repeats: Dict[str, int] = {}
    anims = _array(doc, "animations", "animations")
    reserved = frozenset(real_names(anims))
    for a_i, anim in enumerate(anims):
        anim = _obj(anim, f"animation {a_i}")
        base = _name(anim.get("name"), "", f"animation {a_i}")
        own = bool(base)
        base = base or f"animation{a_i}"
        name = _unique_name(base, used, repeats, reserved, own)
        samplers = _array(anim, "samplers", f"animation {a_i} samplers")
        n_samp = len(samplers)
        channels: List[Channel] = []
        weights = 0
        pointers = 0
        for c_i, ch in enumerate(_array(anim, "channels", f"animation {a_i} channels")):
            if type(ch) is not dict:
                raise LoadError(f"animation {a_i} {base!r} channel {c_i} must be a JSON object, got {_show(ch)}")
            target = ch.get("target")
            if type(target) is not dict:
                raise LoadError(f"animation {a_i} {base!r} channel {c_i} target must be a JSON object, got {_show(target)}")
            node = target.get("node")
            if node is None:  # e.g. KHR_animation_pointer: not a node property (counted, skipped)
                pointers += 1
                continue
            if type(node) is not int or not 0 <= node < n_nodes:
                raise _bad_index(node, n_nodes, f"animation {a_i} {base!r} channel {c_i} target node")
            s_i = ch.get("sampler")
            if type(s_i) is not int or not 0 <= s_i < n_samp:
                raise _bad_index(s_i, n_samp, f"animation {a_i} {base!r} channel {c_i} sampler")
            path = target.get("path")
            if path == "weights":
                weights += 1
                continue
            if type(path) is not str or path not in PATH_WIDTH:
                raise LoadError(f"animation {a_i} {base!r} channel {c_i}: unknown target path {_show(path)}")
            sampler = samplers[s_i]
            if type(sampler) is not dict:
                raise LoadError(f"animation {a_i} sampler {s_i} must be a JSON object, got {_show(sampler)}")
            interp = sampler.get("interpolation", "LINEAR")
            if interp not in INTERPOLATIONS:
                raise LoadError(f"animation {a_i} {base!r} channel {c_i}: unknown interpolation {_show(interp)}")
            in_i = sampler.get("input")
            if type(in_i) is not int or not 0 <= in_i < n_acc:
                raise _bad_index(in_i, n_acc, f"animation {a_i} {base!r} channel {c_i} input accessor")
            out_i = sampler.get("output")
            if type(out_i) is not int or not 0 <= out_i < n_acc:
                raise _bad_index(out_i, n_acc, f"animation {a_i} {base!r} channel {c_i} output accessor")

            times = times_cache.get(in_i)
            if times is None:
                in_meta = meta_cache.get(in_i) or acc.meta(in_i)
                if in_meta[0] != FLOAT or in_meta[1] != "SCALAR":
                    raise LoadError(
                        f"animation {a_i} {base!r} channel {c_i}: input accessor {in_i} is "
                        f"{_type_label(in_meta[0], in_meta[1], in_meta[3])}, expected SCALAR FLOAT"
                    )
                times = acc.decode(in_i).reshape(-1)
                times = acc.times_by_bytes.setdefault((times.dtype.str, times.tobytes()), times)
                times_cache[in_i] = times
            out_meta = meta_cache.get(out_i) or acc.meta(out_i)
            ctype, atype, out_count, normalized = out_meta
            if path == "rotation":
                if atype != "VEC4" or (ctype != FLOAT and not (normalized and ctype in NORMALIZE_DIVISOR)):
                    _check_output(out_meta, path, out_i, f"animation {a_i} {base!r} channel {c_i}")
            elif atype != "VEC3" or ctype != FLOAT:
                _check_output(out_meta, path, out_i, f"animation {a_i} {base!r} channel {c_i}")
            keys = times.shape[0]
            cubic = interp == "CUBICSPLINE"
            if out_count != (3 * keys if cubic else keys):
                raise LoadError(
                    f"animation {a_i} {base!r} channel {c_i}: {keys} key times but {out_count} output values "
                    f"(expected {3 * keys if cubic else keys} for {interp})"
                )
            if strict:
                problem = times_checked.get(in_i, 0)
                if problem == 0:
                    problem = times_checked[in_i] = _times_problem(times)
                if problem is not None:
                    raise LoadError(f"animation {a_i} {base!r} channel {c_i}: {problem}")
            values = acc.cache.get(out_i)
            if values is None:
                values = acc.decode(out_i)
            in_t = out_t = None
            if cubic:
                split = cubic_cache.get(out_i)
                if split is None:
                    split = cubic_cache[out_i] = _split_triplets(values, keys)
                in_t, values, out_t = split
            channels.append(
                Channel(bone_of[node], node, path, interp, times, values, in_t, out_t, s_i, in_i, out_i, ctype, normalized)
            )
        clips.append(Clip(name, channels, a_i, weights, anim.get("extras"), pointer_channel_count=pointers))
    return clips


def _int_list_in_range(values: list, n: int) -> bool:
    """Every entry a JSON integer in [0, n) (an empty list passes)."""
    return not values or (set(map(type, values)) == _INT_TYPE and min(values) >= 0 and max(values) < n)


def _ints_at_least(values: list, minimum: int) -> bool:
    """Every entry a JSON integer >= ``minimum`` (an empty list passes)."""
    return not values or (set(map(type, values)) == _INT_TYPE and min(values) >= minimum)


def _channel_table(anim: dict, n_nodes: int, n_acc: int) -> Optional[Tuple[list, list, list, list, list, list]]:
    """(nodes, paths, sampler indices, interpolations, input and output
    accessors) of one animation's channels, checked over whole lists; None when
    any check fails, when a channel is not a node TRS channel (weights,
    pointer) or uses CUBICSPLINE. ``dict.get`` on a non-object raises
    TypeError, which the caller turns into None."""
    get = dict.get
    chans = get(anim, "channels")
    samplers = get(anim, "samplers")
    chans = [] if chans is None else chans
    samplers = [] if samplers is None else samplers
    if type(chans) is not list or type(samplers) is not list:
        return None
    targets = list(map(get, chans, repeat("target")))
    nodes = list(map(get, targets, repeat("node")))
    paths = list(map(get, targets, repeat("path")))
    s_idx = list(map(get, chans, repeat("sampler")))
    # the sets hold only strings: a non-string never passes
    if not _PATH_SET.issuperset(paths) or not _int_list_in_range(nodes, n_nodes) or not _int_list_in_range(s_idx, len(samplers)):
        return None
    used = list(map(samplers.__getitem__, s_idx))
    interps = list(map(get, used, repeat("interpolation"), repeat("LINEAR")))
    inputs = list(map(get, used, repeat("input")))
    outputs = list(map(get, used, repeat("output")))
    if not _LINEAR_OR_STEP.issuperset(interps) or not _int_list_in_range(inputs + outputs, n_acc):
        return None
    return nodes, paths, s_idx, interps, inputs, outputs


def _float_views(acc: _Accessors, bvs: list) -> Optional[Tuple[list, list, list]]:
    """(buffer bytes, byteOffset, byteLength) lists aligned with ``bvs`` (valid
    buffer view indices), every check of ``_Accessors.view`` passing and no
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
        or not _int_list_in_range(bufs, len(acc.buffers))
        or not _ints_at_least(v_offs, 0)
        or not _ints_at_least(v_lens, 1)
        or not all(map(le, map(add, v_offs, v_lens), map(acc.lengths.__getitem__, bufs)))
    ):
        return None
    datas = list(map(acc.buffers.__getitem__, bufs))
    if None in datas:  # a buffer without data (no uri, no BIN chunk)
        return None
    return datas, v_offs, v_lens


def _decode_float_accessors(acc: _Accessors, want: Dict[int, str]) -> Optional[Tuple[Dict[int, np.ndarray], int]]:
    """({accessor: float32 view}, components) for accessors ``want`` (index ->
    expected type) that are plain (non-normalized, non-sparse) FLOAT data in a
    buffer view without stride, with every bound of ``_Accessors.decode``
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
        or set(map(type, ctypes)) != _INT_TYPE
        or set(ctypes) != _FLOAT_TYPE
        or not _ints_at_least(counts, 1)
        or set(map(type, normalized)) != _BOOL_TYPE
        or True in normalized
        or any(map(dict.__contains__, accs, repeat("sparse")))
        or not _int_list_in_range(bvs, len(acc.views))
        or not _ints_at_least(offsets, 0)
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


def _build_clips_bulk(doc: dict, skeleton: Skeleton, acc: _Accessors, strict: bool) -> Optional[List[Clip]]:
    """``_build_clips_general`` for files without problems, with the checks run
    over whole lists (``map``/``set`` in C) and each accessor decoded once;
    None when anything is unusual or wrong (the general path then runs from
    scratch: nothing here changes ``acc`` unless it succeeds)."""
    try:
        return _bulk_clips(doc, skeleton, acc, strict)
    except (TypeError, ValueError, KeyError, IndexError, OverflowError):
        return None


#: Checked channel layouts (:func:`_channel_layout`) by the exact JSON text of
#: ``animations`` plus node and accessor counts: the files of a pack exported
#: with one animation layout check their channels and samplers once.
_LAYOUTS: Dict[bytes, tuple] = {}
_LAYOUTS_MAX = 64


def _channel_layout(anims: list, n_nodes: int, n_acc: int) -> Optional[tuple]:
    """(channel tables, {accessor: expected type}, input accessors) of ``anims``,
    or None when a channel, sampler or accessor use is not the plain kind the
    bulk path takes (:func:`_channel_table`)."""
    tables = []
    for anim in anims:
        table = _channel_table(anim, n_nodes, n_acc)
        if table is None:
            return None
        tables.append(table)
    want: Dict[int, str] = {}
    for nodes, paths, s_idx, interps, inputs, outputs in tables:
        out_types = list(map(_OUTPUT_TYPE.__getitem__, paths))
        want.update(zip(outputs, out_types))
        if list(map(want.__getitem__, outputs)) != out_types:
            return None  # one output accessor used as VEC3 and VEC4
    all_inputs = list(chain.from_iterable(t[4] for t in tables))
    if not want.keys().isdisjoint(all_inputs):
        return None
    want.update(zip(all_inputs, repeat("SCALAR")))
    return tables, want, all_inputs


def _bulk_clips(doc: dict, skeleton: Skeleton, acc: _Accessors, strict: bool) -> Optional[List[Clip]]:
    anims = doc.get("animations")
    if type(anims) is not list or not anims:
        return None
    n_acc = len(acc.accessors)
    key = _json_key(anims, skeleton.bone_count, n_acc)
    layout = memo(_LAYOUTS, _LAYOUTS_MAX, key, lambda: _channel_layout(anims, skeleton.bone_count, n_acc))
    if layout is None:
        return None
    tables, want, all_inputs = layout
    decoded = _decode_float_accessors(acc, want)
    if decoded is None:
        return None
    arrays, components = decoded
    inputs = set(all_inputs)
    _share_equal_times(arrays, inputs)
    if strict:  # each distinct key-time content once (equal bytes: the same answer)
        times = list(map(arrays.__getitem__, inputs))
        if any(map(_times_problem, dict(zip(map(id, times), times)).values())):
            return None
    clips = _bulk_clip_objects(anims, tables, skeleton, arrays)
    if clips is not None:
        acc.budget.used += components
    return clips


def _share_equal_times(arrays: Dict[int, np.ndarray], inputs) -> None:
    """Key-time accessors of one file that hold the same bytes become one array object.

    Exporters such as three.js's GLTFExporter and COLLADA2GLTF write one key-time
    accessor per channel, all holding the clip's frame times; sharing one array lets
    everything that works once per distinct key-time array (sampling groups, the grid's
    snap to keys, duration and monotonicity facts) do that work once per clip instead
    of once per channel. Equal bytes are equal float32 times, so every result is the same.
    (Every array here is a native float32 view: the bytes alone identify the content.)
    """
    ids = sorted(inputs)
    times = list(map(arrays.__getitem__, ids))
    first: Dict[bytes, np.ndarray] = {}
    arrays.update(zip(ids, map(first.setdefault, map(np.ndarray.tobytes, times), times)))


def _bulk_clip_objects(anims: list, tables: list, skeleton: Skeleton, arrays: dict) -> Optional[List[Clip]]:
    """Clip and Channel objects from checked channel tables (None when a key
    count differs from its output count or a name is not a string)."""
    bone_of = skeleton._bone_of_node
    clips: List[Clip] = []
    used: set = set()
    repeats: Dict[str, int] = {}
    reserved = frozenset(real_names(anims))
    for a_i, (anim, (nodes, paths, s_idx, interps, inputs, outputs)) in enumerate(zip(anims, tables)):
        times = list(map(arrays.__getitem__, inputs))
        values = list(map(arrays.__getitem__, outputs))
        if list(map(len, times)) != list(map(len, values)):
            return None
        base = anim.get("name")
        own = not (base is None or base == "")
        if not own:
            base = f"animation{a_i}"
        elif type(base) is not str:
            return None
        channels = list(
            map(
                Channel,
                map(bone_of.__getitem__, nodes), nodes, paths, interps, times, values,
                repeat(None), repeat(None), s_idx, inputs, outputs, repeat(FLOAT), repeat(False),
            )
        )
        clips.append(Clip(_unique_name(base, used, repeats, reserved, own), channels, a_i, 0, anim.get("extras"), pointer_channel_count=0))
    return clips


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def _check_grid_budget(clips: List[Clip], bone_count: int, input_bytes: int) -> None:
    """Refuse files whose pose grids would dwarf the file: the sum over clips of
    ``max(2, largest key count) x bone count`` (the cells the judged grids hold,
    ~0.4 KB each) may be at most ``max(GRID_FLOOR_CELLS, GRID_CELLS_PER_INPUT_BYTE
    x input bytes)``. Real files use under 0.1 cell per byte; a few hundred bytes
    of JSON naming one long key track under a deep chain of nodes would
    otherwise cost gigabytes."""
    cap = max(GRID_FLOOR_CELLS, GRID_CELLS_PER_INPUT_BYTE * input_bytes)
    cells = 0
    for clip in clips:
        keys = max(2, clip.max_key_count)
        cells += keys * max(1, bone_count)
        if cells > cap:
            raise LoadError(
                f"animation {clip.index} {_show(clip.name)}: pose grids would hold {cells} bone-frames "
                f"(key count x {bone_count} nodes, summed over clips); the cap for this file is {cap} "
                f"(max(16Ki, 2 x file size))"
            )


def _load(data: bytes, path: str, base_dir: Optional[str], strict: bool) -> Asset:
    ext = os.path.splitext(path)[1].lower()
    bin_chunk: Optional[bytes] = None
    if is_glb(data) or ext == ".glb":
        container = "glb"
        json_bytes, bin_chunk = split_glb(data)
    elif ext == ".gltf":
        container = "gltf"
        json_bytes = data
    else:
        raise LoadError("unsupported input (expected .glb or .gltf)")
    doc = _parse_json(json_bytes)
    _check_header(doc)
    if base_dir is None:
        base_dir = os.path.dirname(os.path.abspath(path))
    budget = _Budget(len(data))
    buffers, lengths = _load_buffers(doc, bin_chunk, container, base_dir, budget)
    budget.cap = max(budget.cap, DECODE_COMPONENTS_PER_INPUT_BYTE * (len(data) + budget.external_bytes))
    skeleton = _shared_skeleton(doc)
    accessors = _Accessors(doc, buffers, lengths, budget)
    clips = _build_clips(doc, skeleton, accessors, strict)
    _check_grid_budget(clips, skeleton.bone_count, len(data) + budget.external_bytes)
    asset_info = doc.get("asset")
    return Asset(
        skeleton=skeleton,
        clips=clips,
        path=path,
        gltf=doc,
        bin_chunk=bin_chunk,
        buffers=[b if b is not None else b"" for b in buffers],
        container=container,
        extras=asset_info.get("extras") if type(asset_info) is dict else None,
    )
