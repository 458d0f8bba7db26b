"""``merge-results``: several ``lint --format json`` documents -> one (sharding itself,
``lint --shard I/N``, is part of the run: :mod:`animsmith.lint.shard`).

**Merging.** :func:`merge_lint_docs` concatenates the ``files`` of several
``lint --format json`` documents in normalised-path order (a path present in
two documents is an error), recomputes the summary and so gives the summary and exit code of
linting all files together.

**Completeness.** A shard's JSON carries ``"shard": {"index", "count",
"files", "run"}`` (:func:`~animsmith.lint.shard.shard_record`): its place, the number of files of the
whole run and a fingerprint of their list. The merge refuses shards of
different runs, a shard given twice, a missing shard (its findings would be
lost: a shard that stopped with exit 2 writes no JSON) and sharded beside
unsharded results.

**Hostile inputs.** A result to merge was written by someone else (a CI artifact):
:func:`read_lint_doc` checks it before anything renders it (bounded size and depth, finite
numbers, valid Unicode, and the type of every field a renderer reads: the rules below
mirror docs/schema/lint-output.schema.json, :data:`SCHEMA_OBJECTS`).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from animsmith.errors import AnimsmithError, unreadable_reason
from animsmith.lint.results import summary_of
from animsmith.lint.shard import shard_key
from animsmith.results import FACET_STATES, SEVERITIES


def _shard_fields(source: str, record: Any) -> Tuple[int, int, int, str, Optional[str]]:
    """(index, count, files, run, setup) of a JSON ``shard`` record (``AnimsmithError`` when
    malformed; ``setup`` is None in a record written before it was recorded)."""
    ok = isinstance(record, dict)
    vals = [record.get(k) if ok else None for k in ("index", "count", "files")]
    run = record.get("run") if ok else None
    setup = record.get("setup") if ok else None
    if not (all(type(v) is int for v in vals) and isinstance(run, str) and 1 <= vals[0] <= vals[1] and vals[2] >= 0):
        raise AnimsmithError("malformed \"shard\" record (expected index, count, files, run)", path=source)
    if setup is not None and not isinstance(setup, str):
        raise AnimsmithError("malformed \"shard\" record (setup is not a string)", path=source)
    return vals[0], vals[1], vals[2], run, setup


def check_shards(docs: Sequence[Tuple[str, Dict[str, Any]]]) -> Optional[int]:
    """For shard results (``lint --shard``): that they are every shard of one run, once each.

    Returns the run's file count (None when no document is a shard). Raises
    ``AnimsmithError`` for shards of different runs (other files or shard
    count), a shard given twice, a missing shard, or a mix of shard and
    unsharded results.
    """
    sharded = [(source, _shard_fields(source, doc["shard"])) for source, doc in docs if "shard" in doc]
    if not sharded:
        return None
    first_source, (_, count, total, run, setup) = sharded[0]
    for source, doc in docs:
        if "shard" not in doc:
            raise AnimsmithError(f"not a shard result, merged with shards ({first_source} is one)", path=source)
    by_index: Dict[int, str] = {}
    for source, (index, n, files, r, su) in sharded:
        if (n, files, r) != (count, total, run):
            raise AnimsmithError(
                f"shard {index}/{n} of another run than {first_source} (shard count, files or file list differ)", path=source
            )
        if su != setup:
            raise AnimsmithError(
                f"shard {index}/{n} was linted with another contract, --select/--allow, animsmith version or (with "
                f"groups) file order than {first_source}", path=source,
            )
        if index in by_index:
            raise AnimsmithError(f"shard {index}/{n} given twice (also {by_index[index]})", path=source)
        by_index[index] = source
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise AnimsmithError(
            f"shard {', '.join(missing)} missing: the merged result would leave out its files and findings "
            "(a shard that stopped with exit 2 writes no result)"
        )
    return total


def _check_header(source: str, doc: Any) -> None:
    """A ``lint --format json`` document of the supported schema version, else ``AnimsmithError``."""
    from animsmith.render.json import SCHEMA_VERSION

    if not isinstance(doc, dict) or doc.get("command") != "lint" or not isinstance(doc.get("files"), list):
        raise AnimsmithError("not an `animsmith lint --format json` result", path=source)
    if doc.get("schema_version") != SCHEMA_VERSION:
        version = doc.get("schema_version")
        small = version is None or type(version) in (int, float, bool) or (isinstance(version, str) and len(version) <= 20)
        shown = ascii(version) if small else f"of type {_json_type(version)}"
        raise AnimsmithError(f"schema_version {shown} is not supported (expected {SCHEMA_VERSION})", path=source)


def merge_lint_docs(docs: Sequence[Tuple[str, Dict[str, Any]]]) -> Dict[str, Any]:
    """One lint JSON document from several (``(source name, document)`` pairs); shard results
    must be every shard of one run (:func:`check_shards`)."""
    from animsmith.render.json import SCHEMA_VERSION

    for source, doc in docs:
        _check_header(source, doc)
    total = check_shards(docs)
    files: List[Dict[str, Any]] = []
    seen: Dict[str, str] = {}
    config = None
    checks = merged_checks([doc for _, doc in docs])
    for source, doc in docs:
        if config is None:
            config = doc.get("config")
        for fr in doc["files"]:
            if not isinstance(fr, dict) or not isinstance(fr.get("path"), str):
                raise AnimsmithError("a files[] entry has no path", path=source)
            key = shard_key(fr["path"])
            if key in seen:
                raise AnimsmithError(f"file '{fr['path']}' is also in {seen[key]} (shards must not overlap)", path=source)
            seen[key] = source
            fr.setdefault("prediction_provenance", None)  # a result written before engine profiles
            fr.setdefault("prediction_facets", [])
            files.append(fr)
    if total is not None and total != len(files):
        raise AnimsmithError(f"the shards hold {len(files)} file(s), their run had {total}")
    files.sort(key=lambda fr: shard_key(fr["path"]))
    out: Dict[str, Any] = {"schema_version": SCHEMA_VERSION, "command": "lint", "config": config}
    if checks is not None:
        out["checks"] = checks
    out["files"] = files
    out["summary"] = summary_of(files)
    return out


def merged_checks(docs: Sequence[Dict[str, Any]]) -> Optional[List[str]]:
    """The registered checks that ran in any of ``docs`` (registry order), or None when
    a document does not record them. Ids this version does not know are dropped (a
    hostile list of 100,000 ids would become 100,000 JUnit test cases per file)."""
    from animsmith.checks import registry

    lists = [doc.get("checks") for doc in docs]
    if not lists or any(x is None for x in lists):
        return None
    ran = {cid for x in lists for cid in x}
    return [cid for cid in registry() if cid in ran]


def doc_exit_code(doc: Dict[str, Any], deny_warnings: bool = False) -> int:
    """1 when the document holds an error (or a warning with ``deny_warnings``) or a
    required-unavailable prediction facet, else 0."""
    s = doc["summary"]
    unavailable = (s.get("prediction_facets") or {}).get("required_unavailable", 0)
    return 1 if s["errors"] or unavailable or (deny_warnings and s["warnings"]) else 0


# --- merge-results input checks -------------------------------------------------------------
#
# ``merge-results`` reads documents written by someone else (a CI artifact): before
# anything renders them, :func:`read_lint_doc` checks that each is JSON of bounded
# size and depth with finite numbers and valid Unicode, and that every field the
# renderers read has the type they need (a subset of docs/schema/lint-output.schema.json,
# :data:`SCHEMA_OBJECTS`; tests/cli/test_merge_schema.py holds them to it; values the renderers
# only copy - measurements, rig, measured/expected - are checked for depth and numbers
# only, unknown keys pass).

#: the largest ``merge-results`` input, checked with ``os.stat`` before reading (docs/ci.md)
MAX_RESULT_BYTES = 512 * 1024 * 1024
#: the deepest nesting accepted in a ``merge-results`` input (a lint result nests 8 levels)
MAX_RESULT_DEPTH = 64
#: integers must fit in 64 bits (a renderer turns numbers into floats)
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1

def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _where(loc: Any) -> str:
    """``files[3].findings[0].severity`` of a location ``(parent, key)`` chain (None = the top level)."""
    import json
    import re

    parts: List[str] = []
    while loc is not None:
        loc, key = loc
        if isinstance(key, int):
            parts.append(f"[{key}]")
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", key):
            parts.append(f".{key}")
        else:  # shown quoted and ASCII-escaped, at most 40 characters of it
            parts.append(f"[{json.dumps(key[:40] + ('...' if len(key) > 40 else ''))}]")
    parts.reverse()
    if parts and parts[0].startswith("."):
        parts[0] = parts[0][1:]
    text = ""
    for part in parts:
        if len(text) + len(part) > 100:  # e.g. deep nesting: the start says where
            return text + "..."
        text += part
    return text or "top level"


def _bad(source: str, loc: Any, problem: str) -> AnimsmithError:
    return AnimsmithError(f"{_where(loc)}: {problem}", path=source)


def _is_id(v: Any) -> bool:
    import re

    return isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", v) is not None


def _is_number(v: Any) -> bool:
    return type(v) in (int, float)


# (description, test) of the value kinds the renderers read
_STR = ("a string", lambda v: isinstance(v, str))
_STR_OR_NULL = ("a string or null", lambda v: v is None or isinstance(v, str))
_NUM_OR_NULL = ("a number or null", lambda v: v is None or _is_number(v))
_LIST = ("an array", lambda v: isinstance(v, list))
_LIST_OR_NULL = ("an array or null", lambda v: v is None or isinstance(v, list))
_DICT = ("an object", lambda v: isinstance(v, dict))
_DICT_OR_NULL = ("an object or null", lambda v: v is None or isinstance(v, dict))
_ID = ("an identifier of letters, digits, '-', '_' and '.' (at most 100)", _is_id)
_SEVERITY = ("one of " + ", ".join(SEVERITIES), lambda v: isinstance(v, str) and v in SEVERITIES)

# (key, kind, required) per object the renderers read
_ID_LIST = ("an array of check identifiers", lambda v: isinstance(v, list) and all(_is_id(x) for x in v))
_DOC_FIELDS = (("config", _STR_OR_NULL, False), ("checks", _ID_LIST, False))
_FILE_FIELDS = (
    ("path", _STR, True),
    ("rig", _DICT_OR_NULL, False),
    ("findings", _LIST, True),
    ("coverage_gaps", _LIST, True),
    ("measurements", _DICT, False),
    ("prediction_provenance", _DICT_OR_NULL, False),
    ("prediction_facets", _LIST, False),
)
_FINDING_FIELDS = (
    ("check_id", _ID, True),
    ("severity", _SEVERITY, True),
    ("message", _STR, True),
    ("clip", _STR_OR_NULL, False),
    ("group", _STR_OR_NULL, False),
    ("bone", _STR_OR_NULL, False),
    ("time_s", _NUM_OR_NULL, False),
    ("members", _LIST_OR_NULL, False),
)
_FACET_STATE = ("one of " + ", ".join(FACET_STATES), lambda v: v in FACET_STATES)
_FACET_FIELDS = (
    ("check_id", _ID, True),
    ("code", _ID, True),
    ("subject", _STR, True),
    ("state", _FACET_STATE, True),
    ("handle", _STR_OR_NULL, False),
    ("basis", _LIST, False),
    ("reasons", _LIST, False),
    ("sources", _LIST, False),
    ("message", _STR, True),
)
_GAP_FIELDS = (
    ("check_id", _ID, True),
    ("code", _ID, True),
    ("scope", _STR_OR_NULL, False),
    ("subjects", _LIST, True),
    ("message", _STR, True),
)


#: which object of docs/schema/lint-output.schema.json each table of rules reads (None = the
#: document; else a ``$defs`` name): every rule names a property of that object, accepts the
#: JSON types the schema gives it, and requires only keys the schema requires (so a result
#: any version wrote passes). Identifiers are narrower than the schema's strings: the
#: renderers write them into SARIF rule ids and JUnit names.
SCHEMA_OBJECTS = {
    None: _DOC_FIELDS,
    "file": _FILE_FIELDS,
    "finding": _FINDING_FIELDS,
    "predictionFacet": _FACET_FIELDS,
    "gap": _GAP_FIELDS,
}


def _check_fields(source: str, loc: Any, obj: Any, fields) -> None:
    if not isinstance(obj, dict):
        raise _bad(source, loc, f"must be an object, not {_json_type(obj)}")
    for key, (what, ok), required in fields:
        if key not in obj:
            if required:
                raise _bad(source, (loc, key), f"missing (must be {what})")
        elif not ok(obj[key]):
            raise _bad(source, (loc, key), f"must be {what}")


def _check_items(source: str, loc: Any, items: List[Any], what: str, ok: Callable[[Any], bool]) -> None:
    for i, item in enumerate(items):
        if not ok(item):
            raise _bad(source, (loc, i), f"must be {what}, not {_json_type(item)}")


def check_lint_structure(source: str, doc: Any) -> None:
    """Every field the renderers read (text, JSON, SARIF, GitHub, JUnit, Markdown) has the
    type they need; ``AnimsmithError`` naming the first one that does not, with its location."""
    _check_header(source, doc)
    _check_fields(source, None, doc, _DOC_FIELDS)
    for i, fr in enumerate(doc["files"]):
        floc = ((None, "files"), i)
        _check_fields(source, floc, fr, _FILE_FIELDS)
        for j, f in enumerate(fr["findings"]):
            loc = ((floc, "findings"), j)
            _check_fields(source, loc, f, _FINDING_FIELDS)
            if f.get("members") is not None:
                _check_items(source, (loc, "members"), f["members"], "an object or a string", lambda m: isinstance(m, (dict, str)))
        for j, g in enumerate(fr["coverage_gaps"]):
            loc = ((floc, "coverage_gaps"), j)
            _check_fields(source, loc, g, _GAP_FIELDS)
            _check_items(source, (loc, "subjects"), g["subjects"], "a string", lambda v: isinstance(v, str))
        for j, p in enumerate(fr.get("prediction_facets") or ()):
            loc = ((floc, "prediction_facets"), j)
            _check_fields(source, loc, p, _FACET_FIELDS)
            for key in ("basis", "reasons"):
                _check_items(source, (loc, key), p.get(key) or [], "a string", lambda v: isinstance(v, str))
        if isinstance(fr.get("prediction_provenance"), dict):
            for key in ("profile", "version", "runtime"):
                if not isinstance(fr["prediction_provenance"].get(key), str):
                    raise _bad(source, ((floc, "prediction_provenance"), key), "missing or not a string")


def check_json_values(source: str, doc: Any, strings: bool = True) -> None:
    """No nesting deeper than :data:`MAX_RESULT_DEPTH`, only finite numbers and 64-bit
    integers, and (``strings``) no lone surrogate in a string or key (not Unicode: no
    output could encode it) except the file-name escapes U+DC80..U+DCFF. Iterative: a hostile depth cannot exhaust the stack."""
    stack = [(doc, 1, None)]
    while stack:
        node, depth, loc = stack.pop()
        if depth > MAX_RESULT_DEPTH:
            raise _bad(source, loc, f"nested too deeply (more than {MAX_RESULT_DEPTH} levels)")
        if isinstance(node, dict):
            if strings:
                for key in node:
                    if not _is_unicode(key):
                        raise _bad(source, (loc, key), "key is not valid Unicode (a lone surrogate escape such as \\ud800)")
            items = node.items()
        else:
            items = enumerate(node)
        children = []
        for key, value in items:
            kind = type(value)
            if kind is float:
                if value - value != 0.0:  # NaN or +-Infinity (also an out-of-range literal like 1e400)
                    label = "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
                    raise _bad(source, (loc, key), f"not a finite number ({label}; JSON numbers must be finite)")
            elif kind is int:
                if not _INT_MIN <= value <= _INT_MAX:
                    raise _bad(source, (loc, key), "integer out of range (more than 64 bits)")
            elif kind is dict or kind is list:
                children.append((value, depth + 1, (loc, key)))
            elif strings and kind is str and not _is_unicode(value):
                raise _bad(source, (loc, key), "not valid Unicode (a lone surrogate escape such as \\ud800)")
        stack.extend(reversed(children))  # first child on top: problems found in document order


def _is_unicode(text: str) -> bool:
    """Encodable: valid Unicode, or U+DC80..U+DCFF, which is how a file name that is not
    UTF-8 reaches a lint result (``os.fsdecode``; ``lint -o`` writes them as ``\\udcXX``)."""
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True


def read_lint_doc(path: str) -> Dict[str, Any]:
    """Read, parse and check one ``merge-results`` input: a regular file of at most
    :data:`MAX_RESULT_BYTES` (``os.stat`` before reading), UTF-8 JSON with bounded depth,
    finite numbers and valid Unicode (:func:`check_json_values`) holding a lint result
    the renderers can use (:func:`check_lint_structure`). ``AnimsmithError`` naming
    ``path`` otherwise."""
    import json
    import re
    import stat

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block, a device never end
            raise AnimsmithError("not a regular file", path=path)
        if st.st_size > MAX_RESULT_BYTES:  # refused before reading it
            raise AnimsmithError(_too_large(st.st_size), path=path)
        with open(path, "rb") as fh:
            data = fh.read(st.st_size + 1)  # bounded even if the file grows meanwhile
    except OSError as exc:
        raise AnimsmithError(unreadable_reason(exc), path=path) from None
    if len(data) > MAX_RESULT_BYTES:
        raise AnimsmithError(_too_large(len(data)), path=path)
    from animsmith.io.text import exceeds_depth, strip_utf8_bom

    data = strip_utf8_bom(data)  # a result re-saved by a Windows tool
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AnimsmithError(f"not valid JSON ({exc})", path=path) from None
    if exceeds_depth(data):  # the same limit whatever Python's own decoder would reach
        raise AnimsmithError("not valid JSON (nested too deeply)", path=path)
    del data
    size = len(text)
    try:
        try:
            doc = json.loads(text)
        except RecursionError:
            raise AnimsmithError("not valid JSON (nested too deeply)", path=path) from None
        except ValueError as exc:
            raise AnimsmithError(f"not valid JSON ({exc})", path=path) from None
        # a lone surrogate can only come from a \uD800-\uDFFF escape: check strings only then
        strings = re.search(r"\\u[dD][89a-fA-F]", text) is not None
        del text
        check_lint_structure(path, doc)
        check_json_values(path, doc, strings=strings)
    except MemoryError:  # parsing takes about 10x the file: name the file that did not fit
        raise AnimsmithError(
            f"out of memory parsing it ({size} characters; a merge holds every result at once, about "
            "10x their total size: merge fewer results, or lint with fewer clips per result)", path=path) from None
    return doc


def _too_large(size: int) -> str:
    return (
        f"too large to merge ({size} bytes; the limit is {MAX_RESULT_BYTES // 2**20} MiB a file: "
        "split the run into more shards)"
    )
