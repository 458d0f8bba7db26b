"""SARIF 2.1.0 output of ``lint`` (``--format sarif``) for code-scanning UIs.

One ``run`` whose ``tool.driver.rules`` holds one reporting descriptor per
registered check, in catalog order (``id``, ``shortDescription`` = the
check's one-line summary, ``fullDescription`` and ``help`` = its reference
text from the registry, ``defaultConfiguration.level`` = its default
severity). Each finding is a ``result`` with ``ruleId``/``ruleIndex``,
``level`` (error | warning | note), the message (with measured/expected as in
the text output), one physical location (the file, relative URIs against
``%SRCROOT%``; ``region.startLine = 1`` because code-scanning UIs need a
line and a GLB has none), a logical location for the clip or group, a
``partialFingerprints`` entry (:func:`fingerprint`) and the finding's fields
under ``properties``. Coverage gaps are not results (nothing
was judged): they are ``toolExecutionNotifications`` (level ``note``) of the
single invocation. A required-unavailable prediction facet is a ``result`` of level
``error`` (its rule is the engine check; ``properties.predictionFacet`` holds the
facet). ``run.properties.summary`` is the lint summary.

Validated in the tests against ``docs/schema/sarif-2.1.0.json``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import quote

from animsmith.render._doc import as_doc, facet_text, message_text, unavailable_facets
from animsmith.text import escape

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


def artifact_uri(path: str, flavour=os.path) -> str:
    """A URI reference for ``path``: relative with ``/`` separators, or ``file://`` when absolute
    (RFC 8089, as ``pathlib``'s ``as_uri``: ``C:\\x.glb`` is ``file:///C:/x.glb``, a Windows
    share ``\\\\srv\\share\\x.glb`` is ``file://srv/share/x.glb``). ``flavour``: the OS's path
    module (``os.path``; tests pass ``ntpath``)."""
    p = path.replace(flavour.sep, "/")
    if flavour.isabs(path):
        if flavour.sep == "\\":
            if p.startswith("//"):  # a UNC share: the server is the URI's authority
                return "file:" + quote(p, errors="surrogateescape")
            if len(p) > 2 and p[1] == ":" and p[0].isascii() and p[0].isalpha():  # the drive's colon stays
                return "file:///" + p[:2] + quote(p[2:], errors="surrogateescape")
        return "file://" + quote(p if p.startswith("/") else "/" + p, errors="surrogateescape")
    while p.startswith("./"):
        p = p[2:]
    return quote(p, errors="surrogateescape")  # a non-UTF-8 name: its own bytes, percent-encoded


def artifact_location(path: str) -> Dict[str, Any]:
    """``{"uri", "uriBaseId": "%SRCROOT%"}`` for a relative path; an absolute path is a ``file://`` URI alone."""
    if os.path.isabs(path):
        return {"uri": artifact_uri(path)}
    return {"uri": artifact_uri(path), "uriBaseId": SRCROOT}


def rule_of(spec) -> Dict[str, Any]:
    """The reportingDescriptor of one registry check."""
    needs = "; ".join(spec.needs) if spec.needs else "nothing (always on)"
    body = spec.body or spec.summary
    help_text = f"{spec.summary}\n\n{body}\n\nNeeds: {needs}".strip()
    help_md = f"**{spec.id}** ({spec.severity}, {spec.scope} check)\n\n{body}\n\n**Needs:** {needs}"
    return {
        "id": spec.id,
        "name": "".join(w.capitalize() for w in spec.id.split("-")),
        "shortDescription": {"text": spec.summary or spec.id},
        "fullDescription": {"text": body},
        "help": {"text": help_text, "markdown": help_md},
        "defaultConfiguration": {"level": spec.severity, "enabled": True},
        "properties": {"scope": spec.scope, "tags": ["animation", spec.scope]},
    }


#: a number in a message (integers, decimals, exponents): masked in the fingerprint
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")

FINGERPRINT_KEY = "animsmithFinding/v2"


def finding_identity(path: str, f: Dict[str, Any]) -> str:
    """What makes a finding the same problem in the next run: file (:func:`identity_path`), check, group,
    clip, bone and the message with every number masked as ``#`` (a measured
    value that changes keeps the identity; a different channel, key kind or
    axis named in the message does not)."""
    text = _NUMBER.sub("#", str(f.get("message", "")))
    where = identity_path(path)
    return "\x1f".join(str(x) for x in (where, f.get("check_id"), f.get("group"), f.get("clip"), f.get("bone"), text))


def identity_path(path: str) -> str:
    """The file as a finding's identity sees it, whatever its spelling on the command line:
    normalised (``./assets/x.glb`` and ``assets/x.glb`` are one file), ``/`` separators, and
    relative to the working directory when it is an absolute path inside it (a runner's
    checkout folder is not part of the identity)."""
    p = path
    if os.path.isabs(p):
        for base in _working_dirs(os.getcwd(), os.environ.get("PWD")):
            try:
                rel = os.path.relpath(p, base)
            except ValueError:  # another drive (Windows)
                continue
            if rel != ".." and not rel.startswith(".." + os.sep):
                p = rel
                break
    return os.path.normpath(p).replace(os.sep, "/")


@functools.lru_cache(maxsize=8)
def _working_dirs(cwd: str, logical: Optional[str]) -> Tuple[str, ...]:
    """The working directory as the shell names it (``PWD``: a symlinked checkout) when it
    really is this one (a process started with another cwd inherits a stale PWD), then the
    physical one: looked up once per (cwd, PWD), not once per finding."""
    try:
        same = bool(logical) and os.path.isabs(logical) and os.path.samefile(logical, cwd)
    except OSError:
        same = False
    return (logical, cwd) if same else (cwd,)


def fingerprint(identity: str, occurrence: int = 1) -> str:
    """sha256 (32 hex digits) of a finding's identity and, when ``occurrence`` > 1,
    its ordinal among the run's findings with that same identity (file order)."""
    key = identity if occurrence == 1 else f"{identity}\x1f#{occurrence}"
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _location(path: str, clip=None, group=None) -> Dict[str, Any]:
    loc: Dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": artifact_location(path),
            "region": {"startLine": 1},
        }
    }
    logical = []
    if group is not None:
        logical.append({"name": str(group), "kind": "namespace", "fullyQualifiedName": f"group:{group}"})
    if clip is not None:
        # the path as the text output shows it: a byte of a file name that is not UTF-8 is the
        # text \udcXX, not a lone surrogate (not Unicode: SARIF is UTF-8 JSON)
        logical.append({"name": str(clip), "kind": "object", "fullyQualifiedName": f"{escape(path)}#{clip}"})
    if logical:
        loc["logicalLocations"] = logical
    return loc


def result_of(path: str, f: Dict[str, Any], rule_index: Dict[str, int], occurrence: int = 1) -> Dict[str, Any]:
    """One SARIF result; ``occurrence``: see :func:`fingerprint`."""
    out: Dict[str, Any] = {"ruleId": f["check_id"]}
    if f["check_id"] in rule_index:
        out["ruleIndex"] = rule_index[f["check_id"]]
    out.update(
        {
            "level": f["severity"],
            "kind": "fail",
            "message": {"text": message_text(f)},
            "locations": [_location(path, f.get("clip"), f.get("group"))],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint(finding_identity(path, f), occurrence)},
        }
    )
    props = {k: f.get(k) for k in ("clip", "group", "bone", "time_s", "measured", "expected", "members")}
    out["properties"] = {k: v for k, v in props.items() if v is not None}
    return out


def facet_result_of(path: str, p: Dict[str, Any], rule_index: Dict[str, int], occurrence: int = 1) -> Dict[str, Any]:
    """One SARIF result (level error) for a required-unavailable prediction facet."""
    out: Dict[str, Any] = {"ruleId": p["check_id"]}
    if p["check_id"] in rule_index:
        out["ruleIndex"] = rule_index[p["check_id"]]
    identity = "\x1f".join(str(x) for x in (identity_path(path), p["check_id"], "prediction", p.get("code"), p.get("subject")))
    out.update(
        {
            "level": "error",
            "kind": "fail",
            "message": {"text": facet_text(p)},
            "locations": [_location(path)],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint(identity, occurrence)},
            "properties": {"predictionFacet": dict(p)},
        }
    )
    return out


def notification_of(path: str, g: Dict[str, Any]) -> Dict[str, Any]:
    subjects = list(g.get("subjects") or [])
    extra = f" (subjects: {', '.join(subjects)})" if subjects else ""
    return {
        "descriptor": {"id": f"{g['check_id']}/{g['code']}"},
        "associatedRule": {"id": g["check_id"]},
        "level": "note",
        "message": {"text": f"coverage gap {g['code']}{extra}: {g.get('message', '')}"},
        "locations": [_location(path)],
        "properties": {"code": g["code"], "scope": g.get("scope"), "subjects": subjects},
    }


def sarif_log(result: Any) -> Dict[str, Any]:
    """The SARIF log (a dict) of a lint result or lint JSON document."""
    from animsmith import __version__
    from animsmith.checks import registry

    doc = as_doc(result)
    specs = list(registry().values())
    rules = [rule_of(s) for s in specs]
    rule_index = {s.id: i for i, s in enumerate(specs)}
    results: List[Dict[str, Any]] = []
    notes: List[Dict[str, Any]] = []
    seen: Dict[str, int] = {}
    for fr in doc.get("files", []):
        for p in unavailable_facets(fr):
            key = "\x1f".join(str(x) for x in (fr["path"], p.get("code"), p.get("subject")))
            seen[key] = seen.get(key, 0) + 1
            results.append(facet_result_of(fr["path"], p, rule_index, seen[key]))
        for f in fr.get("findings", []):
            identity = finding_identity(fr["path"], f)
            seen[identity] = seen.get(identity, 0) + 1
            results.append(result_of(fr["path"], f, rule_index, seen[identity]))
        for g in fr.get("coverage_gaps", []):
            notes.append(notification_of(fr["path"], g))
    invocation: Dict[str, Any] = {"executionSuccessful": True}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    run: Dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "animsmith",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": rules,
            }
        },
        "invocations": [invocation],
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {"summary": dict(doc["summary"]), "config": doc.get("config")},
    }
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(result: Any, **_: Any) -> str:
    return json.dumps(sarif_log(result), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
