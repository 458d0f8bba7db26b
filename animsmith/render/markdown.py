"""Markdown output of ``lint`` (``--format markdown``): a table for PR comments.

A heading, the summary line, then one table row per required-unavailable
prediction facet (a failure: ``❌ unavailable``, check, file, the predicted item,
why) and per finding (severity, check, file, where, message) and the coverage gaps folded as in the text
output inside a ``<details>`` block (at most five subjects per line, then
``… +N more``). Cell text is escaped so asset strings cannot break the table
or inject markup: control and bidi characters become ``\\uXXXX`` (as in the
text output), runs of whitespace one space, ``|``, backslash, backtick,
``*``, ``_``, ``~``, ``[``, ``]`` are backslash-escaped, ``<``, ``>``, ``&``
become entities, ``@`` is followed by a zero-width space entity so a name
such as ``@org/team`` cannot mention anyone, and a cell shows at most
``MAX_CELL_CHARS`` characters. A PR comment is limited to
65,536 characters: findings rows stop at ``MAX_ROWS`` or when the comment
would pass ``MAX_CHARS``, coverage gap rows at ``MAX_CHARS``; each cut ends
with a ``… N more`` line.
"""

from __future__ import annotations

from typing import Any, List

from animsmith.render._doc import as_doc, facet_text, folded_gaps, location_text, message_text, summary_text, unavailable_facets

MAX_ROWS = 200
#: the comment's budget below GitHub's 65,536-character limit (room for the closing lines)
MAX_CHARS = 60_000
ICON = {"error": "❌ error", "warning": "⚠️ warning", "note": "ℹ️ note"}
_MD_SPECIAL = {
    "\\": "\\\\",
    "|": "\\|",
    "`": "\\`",
    "*": "\\*",
    "_": "\\_",
    "~": "\\~",
    "[": "\\[",
    "]": "\\]",
    "<": "&lt;",
    ">": "&gt;",
    "&": "&amp;",
    "@": "@&#8203;",
}


#: a cell shows at most this many characters of its text (then ``…``), so one huge
#: name cannot take the whole comment's budget
MAX_CELL_CHARS = 1000


def cell(text: Any) -> str:
    """One table cell: control and bidi characters shown as ``\\uXXXX`` (text.escape),
    whitespace runs collapsed, cut at ``MAX_CELL_CHARS``, markdown/HTML specials
    escaped, mentions broken."""
    from animsmith.text import escape

    flat = " ".join(escape(str(text)).split())
    if len(flat) > MAX_CELL_CHARS:
        flat = flat[: MAX_CELL_CHARS - 1] + "…"
    return "".join(_MD_SPECIAL.get(ch, ch) for ch in flat)


def _within_budget(out: List[str], used: int, rows: List[str], closing: int) -> int:
    """How many of ``rows`` fit after ``used`` characters, leaving ``closing`` for what follows."""
    n = 0
    for row in rows:
        used += len(row) + 1
        if used + closing > MAX_CHARS:
            break
        n += 1
    return n


def render_markdown(result: Any, **_: Any) -> str:
    from animsmith.render.text import MAX_LISTED

    doc = as_doc(result)
    rows: List[str] = []
    total = 0
    for fr in doc.get("files", []):
        for p in unavailable_facets(fr):
            total += 1
            if total <= MAX_ROWS:
                rows.append(
                    f"| ❌ unavailable | `{p['check_id']}` | {cell(fr['path'])} | {cell(p['code'] + ' ' + p['subject'])} | "
                    f"{cell(facet_text(p))} |"
                )
        for f in fr.get("findings", []):
            total += 1
            if total <= MAX_ROWS:
                rows.append(
                    f"| {ICON.get(f['severity'], f['severity'])} | `{f['check_id']}` | {cell(fr['path'])} | "
                    f"{cell(location_text(f)) or '—'} | {cell(message_text(f))} |"
                )
    out = ["### animsmith lint", "", f"**{summary_text(doc)}**", ""]
    closing = 200  # the "… N more" lines and the end of the <details> block
    if rows:
        head = ["| severity | check | file | where | message |", "|---|---|---|---|---|"]
        shown = _within_budget(out, sum(len(x) + 1 for x in out + head), rows, closing)
        out += (head + rows[:shown]) if shown else []
        if total > shown:
            out += ["", f"… {total - shown} more finding(s) not shown."]
    else:
        out.append("No findings.")
    gap_lines: List[str] = []
    for fr in doc.get("files", []):
        for (cid, code, message), entry in folded_gaps(fr):
            subjects = sorted(entry["subjects"])
            listed = ", ".join(subjects[:MAX_LISTED])
            if len(subjects) > MAX_LISTED:
                listed += f", … +{len(subjects) - MAX_LISTED} more"
            gap_lines.append(
                f"| {cell(fr['path'])} | `{cid}` | `{code}` ×{entry['count']} | {cell(listed) or '—'} | {cell(message)} |"
            )
    if gap_lines:
        head = [
            "",
            f"<details><summary>{len(gap_lines)} coverage gap line(s): what could not be evaluated</summary>",
            "",
            "| file | check | gap | subjects | why |",
            "|---|---|---|---|---|",
        ]
        used = sum(len(x) + 1 for x in out + head)
        shown = _within_budget(out, used, gap_lines, closing // 2)
        out += (head + gap_lines[:shown]) if shown else head[:2]
        if len(gap_lines) > shown:
            out += ["", f"… {len(gap_lines) - shown} more coverage gap line(s) not shown."]
        out += ["", "</details>"]
    return "\n".join(out) + "\n"
