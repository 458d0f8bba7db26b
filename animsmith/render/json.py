"""JSON output of ``lint`` (``--format json``), schema ``docs/schema/lint-output.schema.json``.

``{"schema_version": 1, "command": "lint", "config": <path or null>,
"checks": [ids of the checks that ran], "files": [{"path", "rig", "findings": [...], "coverage_gaps": [...],
"measurements": {"clips": {name: {...}}, "groups": {name: {...}}},
"prediction_provenance": {profile...} or null, "prediction_facets": [...]}],
"summary": {"errors", "warnings", "notes", "coverage_gaps", "files",
"prediction_facets": {"available", "required_unavailable"}}}``.
Non-finite numbers become ``null``; keys keep a stable order.
"""

from __future__ import annotations

import json
import math
from typing import Any, Dict

SCHEMA_VERSION = 1


def plain(value: Any, *, keep_arrays: bool = False) -> Any:
    """JSON-safe copy: numpy scalars/arrays to Python, non-finite floats to None, -0.0 to 0.0.
    ``keep_arrays``: numpy arrays (ndim >= 1) stay as they are, for an encoder that
    converts them one at a time while it writes (the report page)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):  # + 0.0: a zero has no sign (-0.0 reads as a direction)
        return value + 0.0 if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): plain(v, keep_arrays=keep_arrays) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v, keep_arrays=keep_arrays) for v in value]
    if keep_arrays and getattr(value, "ndim", 0) >= 1:
        return value
    tolist = getattr(value, "tolist", None)
    if tolist is not None:
        return plain(tolist())
    return str(value)


def file_json(fr) -> Dict[str, Any]:
    from animsmith.render.text import sorted_findings

    return {
        "path": fr.path,
        "rig": fr.rig,
        "findings": [f.to_json() for f in sorted_findings(fr.findings)],
        "coverage_gaps": [g.to_json() for g in fr.coverage_gaps],
        "measurements": {
            "clips": fr.measurements.get("clips", {}),
            "groups": fr.measurements.get("groups", {}),
        },
        "prediction_provenance": fr.prediction_provenance,
        "prediction_facets": [x.to_json() for x in fr.prediction_facets],
    }


def lint_json(result) -> Dict[str, Any]:
    """The JSON document (a dict) of a lint run (``shard`` only for ``lint --shard``)."""
    return plain(_lint_doc(result))


def _lint_doc(result) -> Dict[str, Any]:
    """:func:`lint_json` before :func:`plain` (numpy values and non-finite floats still in it)."""
    doc: Dict[str, Any] = {"schema_version": SCHEMA_VERSION, "command": "lint", "config": result.config_path}
    if getattr(result, "checks", None) is not None:
        doc["checks"] = list(result.checks)
    if getattr(result, "shard", None) is not None:
        doc["shard"] = result.shard
    doc["files"] = [file_json(fr) for fr in result.files if fr.error is None]
    doc["summary"] = result.summary()
    return doc


#: where the lint document puts one clip's measurement dict (``files[i].measurements.clips[name]``):
#: the newline and indent its text is written at
CLIP_MEASUREMENTS_NL = "\n" + " " * 10


class WrittenJSON(dict):
    """A dict that carries its own JSON text, written once by the process that made it (a
    lint worker, in parallel) at the indentation ``json_nl``; :func:`dumps_plain_indent2`
    copies that text where the document puts the dict at that indentation, instead of
    writing it again in the one process that renders the whole document. Everything else
    reads it as the dict it is. Setting or removing one of its own keys drops the text (it
    would be stale); the values inside it (nested dicts and lists) must not be changed
    once it is written, which is why only finished results are written ahead (a clip's
    measurements after its checks, summary and callbacks have read them)."""

    __slots__ = ("json_text", "json_nl")

    def __getstate__(self):
        return (self.json_text, self.json_nl)

    def __setstate__(self, state):
        self.json_text, self.json_nl = state

    def _stale(self) -> None:
        self.json_text = None

    def __setitem__(self, key, value):
        self._stale()
        dict.__setitem__(self, key, value)

    def __delitem__(self, key):
        self._stale()
        dict.__delitem__(self, key)

    def __ior__(self, other):
        self._stale()
        return dict.__ior__(self, other)

    def update(self, *args, **kwargs):
        self._stale()
        dict.update(self, *args, **kwargs)

    def setdefault(self, key, default=None):
        self._stale()
        return dict.setdefault(self, key, default)

    def pop(self, *args):
        self._stale()
        return dict.pop(self, *args)

    def popitem(self):
        self._stale()
        return dict.popitem(self)

    def clear(self):
        self._stale()
        dict.clear(self)


def written_json(value: Dict[str, Any], nl: str = CLIP_MEASUREMENTS_NL) -> Dict[str, Any]:
    """``value`` as a :class:`WrittenJSON` holding its text at ``nl`` (the text of
    ``plain(value)``, as :func:`dumps_plain_indent2` writes it there); ``value`` itself when
    it holds something that only the two-step path writes. The text is written now, so
    whoever calls this pays for it (a lint worker, so the parent renders less alone);
    nested dicts are not changed afterwards by the caller."""
    out: list = []
    try:
        _write(value, out, nl, True)
    except _NotPlain:
        return value
    written = WrittenJSON(value)
    written.json_text = "".join(out)
    written.json_nl = nl
    return written


class _NotPlain(Exception):
    """A value :func:`dumps_indent2` does not write (the caller falls back to ``json.dumps``)."""


def dumps_indent2(doc: Any) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)``, the same text,
    written by one recursive function instead of the standard library's chain of
    generators (a lint document with measurements holds ~100,000 values: 2-3x faster).

    Handles what :func:`plain` returns (dict with str keys, list, str, int, float, bool,
    None); anything else, or a non-finite float, goes to ``json.dumps`` itself, so the
    result and its errors are always the standard library's.
    """
    try:
        out: list = []
        _write(doc, out, "\n", False)
        return "".join(out)
    except _NotPlain:
        return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)


def dumps_plain_indent2(doc: Any) -> str:
    """``json.dumps(plain(doc), indent=2, ensure_ascii=False, allow_nan=False)``, the same
    text, in one pass: :func:`plain`'s conversions (non-finite floats to null, numpy
    values through ``tolist``, tuples to lists) are made while writing, without a copy of
    the document. Anything else :func:`plain` would convert (sets, objects without
    ``tolist``, dicts with non-string keys) takes the two-step path itself."""
    try:
        out: list = []
        _write(doc, out, "\n", True)
        return "".join(out)
    except _NotPlain:
        return dumps_indent2(plain(doc))


def _string_encoder():
    from json.encoder import encode_basestring  # the C version when the accelerator is there

    return encode_basestring


_STR = _string_encoder()
_FLOAT_REPR = float.__repr__
_INT_REPR = int.__repr__
_INF = float("inf")


def _not_finite(as_plain: bool) -> str:
    """The text of a NaN or an infinity: ``null`` as :func:`plain` makes it; otherwise not
    written here (``json.dumps`` raises its own ValueError for it)."""
    if as_plain:
        return "null"
    raise _NotPlain


def _write(o: Any, out: list, nl: str, as_plain: bool) -> None:
    """Append the text of ``o`` (of ``plain(o)`` when ``as_plain``) at the indentation ``nl``
    (a newline and the current indent). Raises :class:`_NotPlain` for a value it does not
    write."""
    t = type(o)
    if t is str:
        out.append(_STR(o))
    elif t is float:  # plain(): + 0.0, a zero has no sign
        out.append(_FLOAT_REPR(o + 0.0 if as_plain else o) if -_INF < o < _INF else _not_finite(as_plain))
    elif t is dict:
        if not o:
            out.append("{}")
            return
        inner = nl + "  "
        sep = "{" + inner
        for k, v in o.items():
            if type(k) is not str:
                raise _NotPlain
            out.append(sep)
            out.append(_STR(k))
            out.append(": ")
            _write(v, out, inner, as_plain)
            sep = "," + inner
        out.append(nl + "}")
    elif t is WrittenJSON:
        if o.json_text is not None and o.json_nl == nl and as_plain:
            out.append(o.json_text)
        else:
            _write(dict(o), out, nl, as_plain)
    elif t is list or (t is tuple and as_plain):
        if not o:
            out.append("[]")
            return
        inner = nl + "  "
        sep = "[" + inner
        for v in o:
            out.append(sep)
            if type(v) is float:
                out.append(_FLOAT_REPR(v + 0.0 if as_plain else v) if -_INF < v < _INF else _not_finite(as_plain))
            else:
                _write(v, out, inner, as_plain)
            sep = "," + inner
        out.append(nl + "]")
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif t is int:
        out.append(_INT_REPR(o))
    elif not as_plain or isinstance(o, (str, dict, list, tuple, set, frozenset)):
        raise _NotPlain  # plain's subclasses: the two-step path
    elif isinstance(o, bool):
        out.append("true" if o else "false")
    elif isinstance(o, int):
        out.append(_INT_REPR(int(o)))
    elif isinstance(o, float):  # numpy float64 and other float subclasses, written as floats
        out.append(_FLOAT_REPR(float(o) + 0.0) if -_INF < o < _INF else "null")
    elif getattr(o, "tolist", None) is not None:
        _write(o.tolist(), out, nl, True)
    else:
        raise _NotPlain


def render_json(result, **_: Any) -> str:
    return dumps_plain_indent2(_lint_doc(result)) + "\n"
