"""JUnit XML output of ``lint`` (``--format junit``) for CI test-report views.

``<testsuites name="animsmith lint">`` holds one ``<testsuite>`` per linted
file (``name`` = the path) and, inside it, one ``<testcase>`` per (file,
check): ``classname`` = the path, ``name`` = the check id. The checks listed
are the ones that ran (``checks=``, else the result's own ``checks``: selected,
enabled and, for group checks, armed by a declared group; ``merge-results``
takes them from the JSON documents) plus any check with output in the file;
without such a list (a JSON document from before it was recorded) every
registered check. A test case

* **fails** (one ``<failure>``, ``type`` = the check id, ``message`` = the first
  failing finding's line (errors before warnings) plus "(+N more)", text = every failing finding's line:
  several ``<failure>`` elements in one case are invalid in the Ant JUnit schema
  and some report readers show only the first) when the check reported an error
  (and, with ``deny_warnings``, a warning);
  a required-unavailable prediction facet of the check fails its case too (first,
  whatever the severity);
* is **skipped** (``<skipped message="coverage gap ...">``) when the check
  produced only coverage gaps for this file: it could not judge; a clip check
  is skipped too on a file without animations (known from the run, or in a
  JSON document from ``duration-sanity``'s ``no_clips`` gap): it had nothing to
  judge;
* otherwise passes; warnings and notes are listed in ``<system-out>``.

Counts (``tests``, ``failures``, ``errors`` = 0, ``skipped``) are summed on
every suite and on the root.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence
from xml.etree import ElementTree as ET

from animsmith.render._doc import as_doc, facet_text, gap_text, location_text, message_text, unavailable_facets


def _xml_safe(text: str) -> str:
    """Characters XML 1.0 cannot carry written as their escape ``\\uXXXX``, as the text output
    shows them: control characters other than tab/CR/LF, U+FFFE/U+FFFF and a lone surrogate (a
    byte of a file name that is not UTF-8, ``\\udcXX`` as in the JSON output), so two names
    never collapse into one (``a\\x01.glb`` and ``a\\x02.glb`` were both ``a.glb``)."""
    return "".join(
        ch if ch in "\t\n\r" or (0x20 <= ord(ch) <= 0xD7FF) or (0xE000 <= ord(ch) <= 0xFFFD) or ord(ch) >= 0x10000
        else "\\u%04x" % ord(ch)
        for ch in str(text)
    )


def finding_line(f: Dict[str, Any]) -> str:
    where = location_text(f)
    return f"{f['severity']}[{f['check_id']}]" + (f" {where}" if where else "") + f": {message_text(f)}"


def _check_order(doc: Dict[str, Any], checks: Optional[Sequence[str]]) -> List[str]:
    from animsmith.checks import registry

    known = list(registry())
    base = list(checks) if checks is not None else known
    seen = set(base)
    for fr in doc.get("files", []):
        for item in list(fr.get("findings", [])) + list(fr.get("coverage_gaps", [])) + unavailable_facets(fr):
            if item["check_id"] not in seen:
                seen.add(item["check_id"])
                base.append(item["check_id"])
    rank = {cid: i for i, cid in enumerate(known)}
    return sorted(base, key=lambda c: (rank.get(c, len(rank)), c))


def junit_tree(result: Any, checks: Optional[Sequence[str]] = None, deny_warnings: bool = False) -> ET.Element:
    doc = as_doc(result)
    order = _check_order(doc, checks if checks is not None else doc.get("checks"))
    failing = {"error", "warning"} if deny_warnings else {"error"}
    root = ET.Element("testsuites", name="animsmith lint")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    from animsmith.checks import registry

    specs = registry()
    # files without animations: from the run itself when we have it, else (a JSON document,
    # merge-results) from duration-sanity's `no_clips` gap
    no_clips = {
        f.path for f in result.files if f.error is None and not f.clip_names and not any(x.clip for x in f.findings)
    } if hasattr(result, "files") else set()
    for fr in doc.get("files", []):
        path = fr["path"]
        clipless = path in no_clips or any(g.get("code") == "no_clips" for g in fr.get("coverage_gaps", []))
        suite = ET.SubElement(root, "testsuite", name=_xml_safe(path))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for cid in order:
            fs = [f for f in fr.get("findings", []) if f["check_id"] == cid]
            gs = [g for g in fr.get("coverage_gaps", []) if g["check_id"] == cid]
            case = ET.SubElement(suite, "testcase", classname=_xml_safe(path), name=cid)
            counts["tests"] += 1
            # errors first (stable), so the failure's headline is an error when there is one
            fails = sorted((f for f in fs if f["severity"] in failing), key=lambda f: f["severity"] != "error")
            blocked = [p for p in unavailable_facets(fr) if p["check_id"] == cid]
            if fails or blocked:  # one <failure> per case: report readers that take only one miss none
                lines = [_xml_safe(facet_text(p)) for p in blocked] + [_xml_safe(finding_line(f)) for f in fails]
                more = f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""
                node = ET.SubElement(case, "failure", type=cid, message=lines[0] + more)
                node.text = "\n".join(lines)
                counts["failures"] += 1
            elif gs and not fs:
                node = ET.SubElement(case, "skipped", message=_xml_safe(f"coverage gap: {gap_text(gs[0])}"))
                counts["skipped"] += 1
            elif clipless and not fs and cid in specs and specs[cid].scope == "clip" and not specs[cid].without_clips:
                ET.SubElement(case, "skipped", message="the file has no animations: nothing for this check to judge")
                counts["skipped"] += 1
            others = [finding_line(f) for f in fs if f not in fails] + [gap_text(g) for g in gs]
            if others:
                ET.SubElement(case, "system-out").text = _xml_safe("\n".join(others))
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
    for k, v in totals.items():
        root.set(k, str(v))
    return root


def render_junit(result: Any, checks: Optional[Sequence[str]] = None, deny_warnings: bool = False, **_: Any) -> str:
    tree = junit_tree(result, checks=checks, deny_warnings=deny_warnings)
    ET.indent(tree)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(tree, encoding="unicode") + "\n"
