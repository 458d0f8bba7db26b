"""Markdown output of ``lint`` (``--format markdown``): a table for PR comments.

A heading, the summary line, then one table row per finding (severity,
check, file, where, message) and the coverage gaps folded as in the text
output inside a ``<details>`` block. Cell text is escaped so asset strings
cannot break the table or inject markup (``|``, backslash, backtick, ``<``,
``>``, ``&``, ``*``, ``_``, ``[``, ``]``; newlines become spaces). At most
``MAX_ROWS`` findings are listed (a PR comment is limited to 65,536
characters), then a ``… N more`` line.
"""

from __future__ import annotations

from typing import Any, Dict, List

from animsmith.render._doc import as_doc, folded_gaps, location_text, message_text, summary_text

MAX_ROWS = 200
ICON = {"error": "❌ error", "warning": "⚠️ warning", "note": "ℹ️ note"}
_MD_SPECIAL = {
    "\\": "\\\\",
    "|": "\\|",
    "`": "\\`",
    "*": "\\*",
    "_": "\\_",
    "[": "\\[",
    "]": "\\]",
    "<": "&lt;",
    ">": "&gt;",
    "&": "&amp;",
}


def cell(text: Any) -> str:
    """One table cell: whitespace collapsed, markdown/HTML specials escaped, control and
    bidi characters shown as ``\\uXXXX`` (text.escape)."""
    from animsmith.render.text import escape

    flat = " ".join(str(text).split())
    return "".join(_MD_SPECIAL.get(ch, ch) for ch in escape(flat))


def render_markdown(result: Any, **_: Any) -> str:
    doc = as_doc(result)
    rows: List[str] = []
    total = 0
    for fr in doc.get("files", []):
        for f in fr.get("findings", []):
            total += 1
            if total <= MAX_ROWS:
                rows.append(
                    f"| {ICON.get(f['severity'], f['severity'])} | `{f['check_id']}` | {cell(fr['path'])} | "
                    f"{cell(location_text(f)) or '—'} | {cell(message_text(f))} |"
                )
    out = ["### animsmith lint", "", f"**{summary_text(doc)}**", ""]
    if rows:
        out += ["| severity | check | file | where | message |", "|---|---|---|---|---|"] + rows
        if total > MAX_ROWS:
            out += ["", f"… {total - MAX_ROWS} more finding(s) not shown."]
    else:
        out.append("No findings.")
    gap_lines: List[str] = []
    for fr in doc.get("files", []):
        for (cid, code, message), entry in folded_gaps(fr):
            subjects = ", ".join(sorted(entry["subjects"]))
            gap_lines.append(
                f"| {cell(fr['path'])} | `{cid}` | `{code}` ×{entry['count']} | {cell(subjects) or '—'} | {cell(message)} |"
            )
    if gap_lines:
        out += [
            "",
            f"<details><summary>{len(gap_lines)} coverage gap line(s): what could not be evaluated</summary>",
            "",
            "| file | check | gap | subjects | why |",
            "|---|---|---|---|---|",
        ] + gap_lines + ["", "</details>"]
    return "\n".join(out) + "\n"
