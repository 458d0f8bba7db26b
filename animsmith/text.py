"""Safe text: what the program writes from a file, a path or a flag cannot act on the
terminal or the CI log that shows it.

* :func:`escape` shows control, format, bidi and line-separator characters as
  ``\\uXXXX`` (one line, no terminal escapes, no reordered text);
* :func:`runner_safe_line` / :func:`runner_safe` keep GitHub's runner from reading an
  asset name or a path at the start of a line as a workflow command (``::``, ``##[``);
  :class:`RunnerSafeStream` does the same for a stream a table is printed to;
* :func:`error_line` is an error message as the command line prints it.

Standard library only: every layer (the simulator's errors, the renderers, the
commands, the command line itself) uses these without importing anything above.
"""

from __future__ import annotations

import unicodedata
from typing import Any

_JOINERS = ("\u200c", "\u200d")


def escape(text: Any) -> str:
    """Control/format/separator characters shown as ``\\uXXXX`` (one line, no bidi tricks);
    the zero-width (non-)joiners U+200C/U+200D stay, as names in Persian, Indic scripts
    and emoji sequences need them and they never reorder text."""
    text = str(text)
    if text.isprintable():  # no character of those categories (str.isprintable excludes them all)
        return text
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn") and ch not in _JOINERS:
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def no_runner_command(text: str) -> str:
    """``text`` with every ``##[`` shown as ``#\\u0023[``: GitHub's runner reads the older
    ``##[command]`` form anywhere in a line of a step's output (stderr and stdout alike)."""
    return text.replace("##[", "#\\u0023[")


def runner_safe_line(line: str) -> str:
    """One line of a text report for a CI log that GitHub's runner cannot take for a command:
    every ``##[`` shown as ``#\\u0023[`` and a line that starts, after blanks, with ``::``
    shown with its first ``:`` as ``\\u003a`` (asset names and paths start some lines)."""
    line = no_runner_command(line)
    if "\r" in line:  # the runner also ends a line at a carriage return
        return "\r".join(runner_safe_line(part) for part in line.split("\r"))
    return _first_colon_escaped(line, "\\u003a")


def _first_colon_escaped(line: str, colon: str) -> str:
    """``line`` with the first ``:`` written as ``colon`` when it starts, after blanks, with
    ``::`` (a GitHub workflow command), else unchanged."""
    stripped = line.lstrip()
    if not stripped.startswith("::"):
        return line
    return line[: len(line) - len(stripped)] + colon + stripped[1:]


#: how ``##[`` is written so the runner cannot read it, losslessly for the format's reader
_RUNNER_SAFE = {"json": "#\\u0023[", "xml": "#&#35;[", "markdown": "#&#35;["}


def runner_safe(text: str, kind: str = "text") -> str:
    """A whole report for a CI log (stdout of a GitHub Actions step): ``text`` line by line with
    :func:`runner_safe_line`; ``json`` (JSON, SARIF) and ``xml`` (JUnit) with ``##[`` written
    as a character escape their readers decode back (``\\u0023``, ``&#35;``): the same
    document; ``markdown`` likewise with ``&#35;``, and the leading-``::`` guard as ``&#58;``."""
    if kind == "text":
        return "\n".join(runner_safe_line(line) for line in text.split("\n"))
    text = text.replace("##[", _RUNNER_SAFE[kind])
    if kind == "markdown":
        text = "\n".join(_first_colon_escaped(line, "&#58;") for line in text.split("\n"))
    return text


class RunnerSafeStream:
    """A text stream that writes every complete line through :func:`runner_safe_line` (for rich
    consoles printing tables whose first column is an asset name). A partial line waits for its
    newline (or ``flush``)."""

    def __init__(self, out):
        self._out = out
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            self._out.write(runner_safe_line(line) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._out.write(runner_safe_line(self._pending))
            self._pending = ""
        self._out.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name):  # encoding, errors, fileno ... of the real stream
        return getattr(self._out, name)


#: the longest error line printed (a config listing 10,000 groups, a 100 KB check id)
ERROR_LINE_MAX_CHARS = 1000


def error_line(text: str) -> str:
    """An error message as printed: control and bidi characters from file names, paths or
    flags shown as ``\\uXXXX`` (no terminal escapes), ``##[`` as ``#\\u0023[`` (no CI
    runner command); over ERROR_LINE_MAX_CHARS, the
    middle is cut so the start (what) and the end (the reason) stay."""
    shown = no_runner_command(escape(text))
    if len(shown) > ERROR_LINE_MAX_CHARS:  # keep both ends: a long path first, the reason last
        head, tail = ERROR_LINE_MAX_CHARS // 2, ERROR_LINE_MAX_CHARS * 2 // 5
        cut = len(shown) - head - tail
        shown = f"{shown[:head]}...({cut} characters)...{shown[-tail:]}"
    return shown
