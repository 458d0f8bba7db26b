"""Text output of ``lint`` (the transcript shape of docs/lint.md; colour only on a TTY).

Per file (argument order): ``<path>: clean`` when it has no findings, no gaps
and no ``[engine]`` profile, else ``<path>:`` followed by

* with a profile: ``  engine profile <name> <version> (<runtime>): <A> available,
  <U> required-unavailable prediction facet(s)``, then one line per
  required-unavailable facet (every facet with ``verbose``):
  ``  prediction[<id>] <code> <subject>: required unavailable (<reasons>): <message>``
  or ``  prediction[<id>] <code> <subject>: available as '<handle>'``;
* findings, sorted by (no clip first, clip name, severity descending, catalog
  order): ``  <severity>[<id>]<location>: <message><detail>`` where location =
  `` clip '<c>'`` `` bone '<b>'`` `` @<t>s`` (3 decimals) for the fields
  present and detail = `` (measured X, expected Y)`` (numbers with 4
  decimals, text verbatim; `` (measured X)`` when only measured is set);
* coverage gaps folded by (check, code, message):
  ``  coverage[<id>] <code> ×<N> (scopes: <sorted>; subjects: <sorted>): <message>``
  (at most 5 values per list, then ``, … +N more``), sorted by check id,
  code, message.

Last line: ``<E> error(s), <W> warning(s), <N> note(s), <G> coverage gap(s), <A> available
prediction facet(s), <U> required-unavailable prediction facet(s)`` (A and U: 0 without a profile).
Control, bidi and line-separator characters from the asset are shown escaped.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from animsmith.results import SEVERITY_RANK
from animsmith.numtext import fixed
from animsmith.text import escape

MAX_LISTED = 5
SEVERITY_STYLE = {"error": "red", "warning": "yellow", "note": "cyan"}


def phase_text(phase_cycles: float, digits: int = 3) -> str:
    """A phase (cycles) as shown: rounded, then wrapped into [0, 1), so 0.99999 reads
    0.000 (the same phase) rather than 1.000 (:func:`animsmith.core.gait.wrapped_phase`)."""
    from animsmith.core.gait import wrapped_phase

    return fixed(wrapped_phase(phase_cycles, digits), digits)


def fmt_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return fixed(value, 4)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(fmt_value(v) for v in value) + "]"
    return escape(value)


def location(f) -> str:
    loc = ""
    if f.clip is not None:
        loc += f" clip '{escape(f.clip)}'"
    if f.bone is not None:
        loc += f" bone '{escape(f.bone)}'"
    if f.time_s is not None:
        loc += f" @{fixed(f.time_s, 3)}s"
    return loc


def detail(f) -> str:
    if f.measured is None:
        return ""
    if f.expected is None:
        return f" (measured {fmt_value(f.measured)})"
    return f" (measured {fmt_value(f.measured)}, expected {fmt_value(f.expected)})"


def _style(text: str, color: bool, **kw) -> str:
    if not color:
        return text
    import click

    return click.style(text, **kw)


def finding_line(f, color: bool = False) -> str:
    head = _style(f"{f.severity}[{f.check_id}]", color, fg=SEVERITY_STYLE.get(f.severity), bold=True)
    return f"  {head}{location(f)}: {escape(f.message)}{detail(f)}"


def _listed(values: List[str]) -> str:
    shown = ", ".join(escape(v) for v in values[:MAX_LISTED])
    if len(values) > MAX_LISTED:
        shown += f", … +{len(values) - MAX_LISTED} more"
    return shown


def fold_gaps(gaps) -> List[Tuple[Tuple[str, str, str], Dict[str, Any]]]:
    """Identical gaps (check, code, message) folded: [(key, {count, scopes, subjects})], sorted."""
    folded: Dict[Tuple[str, str, str], Dict[str, Any]] = {}
    for g in gaps:
        key = (g.check_id, g.code, g.message)
        entry = folded.setdefault(key, {"count": 0, "scopes": set(), "subjects": set()})
        entry["count"] += 1
        if g.scope:
            entry["scopes"].add(g.scope)
        entry["subjects"].update(s for s in g.subjects if s is not None)
    return sorted(folded.items(), key=lambda kv: kv[0])


def gap_line(key, entry, color: bool = False) -> str:
    check_id, code, message = key
    parts = []
    if entry["scopes"]:
        parts.append("scopes: " + _listed(sorted(entry["scopes"])))
    if entry["subjects"]:
        parts.append("subjects: " + _listed(sorted(entry["subjects"])))
    context = f" ({'; '.join(parts)})" if parts else ""
    head = _style(f"coverage[{check_id}]", color, fg="magenta")
    return f"  {head} {code} ×{entry['count']}{context}: {escape(message)}"


def sorted_findings(findings) -> list:
    from animsmith.checks import registry

    order = {cid: i for i, cid in enumerate(registry())}
    return sorted(
        findings,
        key=lambda f: (f.clip is not None, f.clip or "", -SEVERITY_RANK[f.severity], order.get(f.check_id, len(order))),
    )


def summary_line(summary: Dict[str, Any]) -> str:
    facets = summary.get("prediction_facets") or {}
    return (
        f"{summary['errors']} error(s), {summary['warnings']} warning(s), {summary['notes']} note(s), "
        f"{summary['coverage_gaps']} coverage gap(s), {facets.get('available', 0)} available prediction facet(s), "
        f"{facets.get('required_unavailable', 0)} required-unavailable prediction facet(s)"
    )


def profile_line(provenance: Dict[str, Any], facets: List[Dict[str, Any]]) -> str:
    """``  engine profile threejs r187 (three.js): 3 available, 1 required-unavailable prediction facet(s)``."""
    bad = sum(1 for f in facets if f.get("state") == "required_unavailable")
    return (
        f"  engine profile {escape(provenance.get('profile'))} {escape(provenance.get('version'))} "
        f"({escape(provenance.get('runtime'))}): {len(facets) - bad} available, {bad} required-unavailable "
        "prediction facet(s)"
    )


def facet_line(facet: Dict[str, Any], color: bool = False) -> str:
    """One prediction facet (a ``PredictionFacet.to_json()`` dict) as a text line."""
    head = f"prediction[{facet.get('check_id')}]"
    where = f"{head} {facet.get('code')} {escape(facet.get('subject'))}"
    if facet.get("state") == "required_unavailable":
        reasons = ", ".join(str(r) for r in facet.get("reasons") or ())
        return f"  {_style(where, color, fg='red', bold=True)}: required unavailable ({reasons}): {escape(facet.get('message', ''))}"
    handle = facet.get("handle")
    said = f"available as '{escape(handle)}'" if handle is not None else f"available ({escape(facet.get('message', ''))})"
    return f"  {_style(where, color, fg='green')}: {said}"


def prediction_lines(provenance, facets: List[Dict[str, Any]], color: bool = False, verbose: bool = False) -> List[str]:
    """The profile line and the facet lines of one file ([] without a profile)."""
    if provenance is None and not facets:
        return []
    lines = [profile_line(provenance, facets)] if provenance is not None else []
    lines += [facet_line(f, color) for f in facets if verbose or f.get("state") == "required_unavailable"]
    return lines


def file_lines(fr, color: bool = False, verbose: bool = False) -> List[str]:
    if not fr.findings and not fr.coverage_gaps and fr.prediction_provenance is None and not fr.prediction_facets:
        return [f"{escape(fr.path)}: clean"]
    lines = [f"{escape(fr.path)}:"]
    lines += prediction_lines(fr.prediction_provenance, [x.to_json() for x in fr.prediction_facets], color, verbose)
    lines += [finding_line(f, color) for f in sorted_findings(fr.findings)]
    lines += [gap_line(k, e, color) for k, e in fold_gaps(fr.coverage_gaps)]
    return lines


def render_text(result, color: bool = False, verbose: bool = False, **_: Any) -> str:
    """The whole text report, ending with a newline (``verbose``: available facets listed too)."""
    lines: List[str] = []
    for fr in result.files:
        if fr.error is None:
            lines += file_lines(fr, color, verbose)
    lines.append(summary_line(result.summary()))
    return "\n".join(lines) + "\n"
