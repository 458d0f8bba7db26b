"""Shared helpers of the CI renderers (SARIF, GitHub, JUnit, Markdown).

Every CI renderer works on the lint JSON document (``render.json.lint_json``,
schema ``docs/schema/lint-output.schema.json``), so the same code renders a
fresh :class:`~animsmith.lint.LintResult` and a document read back by
``animsmith merge-results``.
"""

from __future__ import annotations

from typing import Any, Dict, List

from animsmith.numtext import fixed


def as_doc(result: Any) -> Dict[str, Any]:
    """The lint JSON document of ``result`` (a LintResult, or already a dict)."""
    if isinstance(result, dict):
        return result
    from animsmith.render.json import lint_json

    return lint_json(result)


def location_text(f: Dict[str, Any]) -> str:
    """``group 'g' clip 'c' bone 'b' @0.500s`` for the fields present ('' when none)."""
    from animsmith.text import escape

    parts: List[str] = []
    if f.get("group") is not None:
        parts.append(f"group '{escape(f['group'])}'")
    if f.get("clip") is not None:
        parts.append(f"clip '{escape(f['clip'])}'")
    if f.get("bone") is not None:
        parts.append(f"bone '{escape(f['bone'])}'")
    if f.get("time_s") is not None:
        parts.append(f"@{fixed(f['time_s'], 3)}s")
    return " ".join(parts)


def message_text(f: Dict[str, Any]) -> str:
    """The finding's message plus ``(measured X, expected Y)`` exactly as the text output."""
    from animsmith.render.text import fmt_value
    from animsmith.text import escape

    msg = escape(f.get("message", ""))
    measured, expected = f.get("measured"), f.get("expected")
    if measured is None:
        return msg
    if expected is None:
        return f"{msg} (measured {fmt_value(measured)})"
    return f"{msg} (measured {fmt_value(measured)}, expected {fmt_value(expected)})"


def gap_text(g: Dict[str, Any]) -> str:
    """``coverage[id] code (scope; subjects: a, b): message``."""
    from animsmith.text import escape

    ctx = []
    if g.get("scope"):
        ctx.append(f"scope: {escape(g['scope'])}")
    if g.get("subjects"):
        ctx.append("subjects: " + ", ".join(escape(s) for s in g["subjects"]))
    where = f" ({'; '.join(ctx)})" if ctx else ""
    return f"coverage[{g.get('check_id')}] {g.get('code')}{where}: {escape(g.get('message', ''))}"


def summary_text(doc: Dict[str, Any]) -> str:
    from animsmith.render.text import summary_line

    return summary_line(doc["summary"])


def folded_gaps(fr: Dict[str, Any]):
    """The file's coverage gaps folded as in the text output: [((check, code, message), entry)]."""
    from animsmith.render.text import fold_gaps
    from animsmith.results import CoverageGap

    gaps = [
        CoverageGap(
            check_id=g.get("check_id"),
            code=g.get("code"),
            message=g.get("message", ""),
            scope=g.get("scope"),
            subjects=list(g.get("subjects") or []),
        )
        for g in fr.get("coverage_gaps", [])
    ]
    return fold_gaps(gaps)


def unavailable_facets(fr: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The required-unavailable prediction facets of one file entry (they fail the run)."""
    return [p for p in fr.get("prediction_facets") or () if p.get("state") == "required_unavailable"]


def facet_text(p: Dict[str, Any]) -> str:
    """``required-unavailable prediction node_binding_name 'foot_1' (node_name_collision): message``."""
    from animsmith.text import escape

    reasons = ", ".join(str(r) for r in p.get("reasons") or ())
    return (
        f"required-unavailable prediction {p.get('code')} {escape(p.get('subject', ''))} ({reasons}): "
        f"{escape(p.get('message', ''))}"
    )
