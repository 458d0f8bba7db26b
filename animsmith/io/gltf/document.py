"""The glTF JSON document: parsed without letting hostile nesting crash the process,
as strictly with or without orjson (no ``NaN``/``Infinity``, no number beyond float
range, no lone surrogate escape); its header checked; exact cache keys of its parts."""

from __future__ import annotations

from math import isfinite
from typing import Any, Optional

from animsmith.errors import LoadError
from animsmith.io.gltf.fields import as_array
from animsmith.io.text import nesting_depth, strip_utf8_bom


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
UNSUPPORTED_REQUIRED = ("EXT_meshopt_compression", "KHR_meshopt_compression")
_CACHE_KEY_MAX_BYTES = 1 << 18


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


def parse_json(raw: bytes) -> dict:
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


def check_header(doc: dict) -> None:
    asset = doc.get("asset")
    if type(asset) is dict:
        version = asset.get("version")
        if type(version) is str and version.startswith("1."):
            raise LoadError(f"glTF {version} is not supported (expected 2.0)")
    for ext in as_array(doc, "extensionsRequired", "extensionsRequired"):
        if ext in UNSUPPORTED_REQUIRED:
            raise LoadError(f"required extension {ext} is not supported")


def json_key(value: Any, *counts: int) -> Optional[bytes]:
    """orjson's text of ``value`` followed by ``counts`` (an exact cache key), or
    None (no orjson, not serialisable, over ``_CACHE_KEY_MAX_BYTES``)."""
    if _dumps is None:
        return None
    try:
        key = _dumps(value) + repr(counts).encode()
    except Exception:  # noqa: BLE001 - orjson.JSONEncodeError (deep nesting, 64-bit overflow)
        return None
    return key if len(key) <= _CACHE_KEY_MAX_BYTES else None
