"""GitHub Actions workflow commands (``--format github``): one annotation per finding,
errors first, then warnings, then notes (file order within each: GitHub shows at most
10 annotations of each kind per step and 50 per job, so a pack's errors come first).

``::error file=<path>,title=<title>::<message>`` for errors, ``::warning``
for warnings and ``::notice`` for notes (a required-unavailable prediction facet is an
``::error`` titled ``animsmith <check-id> (prediction <code>)``, listed first); the title is ``animsmith
<check-id>`` plus the clip or group, the message is the text output's
message with ``(measured X, expected Y)``. Coverage gaps are
plain log lines folded as in the text output (``<path>:  coverage[...] ...``,
control and bidi characters as ``\\uXXXX``), and the last line is the text
summary, so the job log still reads like ``animsmith lint``. A plain line
never starts like a workflow command (``::`` after leading blanks: a file
named ``::error title=x::y.glb`` is shown as ``./::error title=x::y.glb``,
the same file) and holds no ``##[`` (the runner's older command form,
recognised anywhere in a line), which is shown as ``#\\u0023[``.

Escaping follows GitHub's workflow-command rules: in the message ``%`` ->
``%25``, CR -> ``%0D``, LF -> ``%0A``; in property values additionally
``:`` -> ``%3A`` and ``,`` -> ``%2C``.
"""

from __future__ import annotations

from typing import Any, Dict, List

from animsmith.render._doc import as_doc, facet_text, folded_gaps, location_text, message_text, summary_text, unavailable_facets
from animsmith.render.text import gap_line
from animsmith.text import escape, no_runner_command

COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(text: str) -> str:
    """Message escaping: ``%`` first, then CR and LF."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Property escaping: the message rules plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def plain_line(text: str) -> str:
    """A log line GitHub's runner cannot take for a command: it parses a line that
    starts, after blanks, with ``::``, and the older ``##[command]`` form anywhere in
    a line. A leading ``::`` gets ``./`` in front (plain lines start with a relative
    path, so it names the same file); every ``##[`` is shown as ``#\\u0023[``."""
    text = no_runner_command(text)
    return "./" + text if text.lstrip().startswith("::") else text


def annotation(path: str, f: Dict[str, Any]) -> str:
    where = location_text(f)
    title = f"animsmith {f['check_id']}" + (f" ({where})" if where else "")
    message = message_text(f)
    props = f"file={escape_property(path)},title={escape_property(title)}"
    return f"::{COMMAND[f['severity']]} {props}::{escape_data(message)}"


def render_github(result: Any, **_: Any) -> str:
    doc = as_doc(result)
    lines: List[str] = []
    for fr in doc.get("files", []):  # failures whatever --allow says: before every finding
        for p in unavailable_facets(fr):
            title = f"animsmith {p['check_id']} (prediction {p['code']})"
            props = f"file={escape_property(fr['path'])},title={escape_property(title)}"
            lines.append(f"::error {props}::{escape_data(facet_text(p))}")
    # errors, then warnings, then notes (file order within each): GitHub shows only the first
    # 10 annotations of each kind per step and 50 per job, so an error is never crowded out
    findings = [(fr["path"], f) for fr in doc.get("files", []) for f in fr.get("findings", [])]
    rank = {"error": 0, "warning": 1, "note": 2}
    for path, f in sorted(findings, key=lambda pf: rank.get(pf[1]["severity"], 3)):
        lines.append(annotation(path, f))
    for fr in doc.get("files", []):
        for key, entry in folded_gaps(fr):
            lines.append(plain_line(f"{escape(fr['path'])}:{gap_line(key, entry)}"))
    lines.append(summary_text(doc))
    return "\n".join(lines) + "\n"
