"""Where a command's result goes: checks on an ``--output`` path before any work, writing it
atomically, and how stdout is shown (colour and rich tables on a terminal only).

* :func:`check_output_path` refuses an output that is empty, ``-`` or one of the
  command's inputs; :func:`contract_inputs`, :func:`external_files`,
  :func:`external_buffers` and :func:`same_dir` name what else a run reads, so no output
  replaces it; :func:`remove_stale_output` drops an earlier run's result when this one
  stops with exit 2.
* :func:`publish_output` / :func:`write_output` publish bytes / text by rename (a failed
  write is a one-line error naming the file, exit 2).
* :func:`stdout_color`, :func:`console` and :func:`print_table`: colour and rich output on
  a terminal, plain runner-safe text in a log; :func:`refusal_line` words a refused
  transform on stderr.

Light at import (click only): every heavy module is imported when a function runs.
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional, Sequence


# --------------------------------------------------------------------------
# Output paths
# --------------------------------------------------------------------------


def check_output_path(path: Optional[str], inputs: Sequence[str] = (), *, stdout_without: bool = False) -> None:
    """``AnimsmithError`` (exit 2, before any work) when ``--output`` is empty, is ``-``
    (stdout's usual spelling: a file named '-' would surprise; ``stdout_without``: the
    command writes to stdout when -o is left out) or names one of the command's input
    files (its GLBs, its config, the results it merges)."""
    from animsmith.errors import AnimsmithError
    from animsmith.io.write import same_file

    if path is None:
        return
    if not path:
        raise AnimsmithError("--output: empty path")
    if path == "-":
        instead = "leave out -o to write to stdout" if stdout_without else "name a file"
        raise AnimsmithError(f"--output -: '-' is not stdout here ({instead}; ./- names a file called '-')")
    for inp in inputs:
        if inp and same_file(path, inp):
            raise AnimsmithError(f"--output is also an input ({inp}); write the output elsewhere", path=path)


def contract_inputs(contract) -> List[str]:
    """The files a run reads because of its contract: the config and every group member file."""
    out = [contract.path] if contract.path else []
    for table in ("gait_groups", "sync_groups"):
        for group in (getattr(contract, table, None) or {}).values():
            out += [ref.file for ref in group.members if ref.file]
    return out


def same_dir(a: str, b: str) -> bool:
    """``a`` and ``b`` lie in one folder (symlinks resolved)."""
    return os.path.dirname(os.path.realpath(a)) == os.path.dirname(os.path.realpath(b))


def external_buffers(asset) -> bool:
    """True when the document has a buffer stored in a separate file (a non-data URI)."""
    doc = asset.gltf or {}
    for buf in doc.get("buffers") or []:
        uri = buf.get("uri") if isinstance(buf, dict) else None
        if isinstance(uri, str) and not uri.startswith("data:"):
            return True
    return False


def external_files(asset, path: str) -> List[str]:
    """The buffer and image files the GLB at ``path`` reads beside it (an output must not replace one)."""
    from animsmith.io.gltf import external_resource_files

    return external_resource_files(asset.gltf or {}, os.path.dirname(os.path.abspath(path)))


def remove_stale_output(path: Optional[str]) -> None:
    """Remove a regular file at ``--output`` (already checked to be no input) when the run
    stops with exit 2: a result left by an earlier run must not pass for this one's (a
    shard that failed would otherwise be merged from its old JSON)."""
    import stat

    if not path:
        return
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)
    except OSError:
        pass


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def publish_output(path: str, data: bytes) -> None:
    """Publish ``data`` at ``path`` by rename (``io.write.publish_bytes``); a failed write is
    an ``AnimsmithError`` naming the output (exit 2)."""
    from animsmith.errors import AnimsmithError
    from animsmith.io.write import publish_bytes

    try:
        publish_bytes(path, data)
    except OSError as exc:
        raise AnimsmithError(f"cannot write output: {exc.strerror or exc}", path=path) from None


def write_output(path: str, text: str) -> None:
    """Publish ``text`` at ``path`` as UTF-8 (:func:`publish_output`)."""
    # a file name that is not UTF-8 arrives as lone surrogates (os.fsdecode): written as the
    # escape \udcXX, which JSON reads back to the same name, instead of failing the write
    publish_output(path, text.encode("utf-8", "backslashreplace"))


# --------------------------------------------------------------------------
# stdout and stderr
# --------------------------------------------------------------------------


def stdout_color() -> bool:
    """Colour on stdout: only on a terminal, and not when ``NO_COLOR`` is set to anything
    (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def refusal_line(exc) -> str:
    """The stderr line of a refused transform (a ``Refusal``): its code and reason."""
    from animsmith.text import error_line

    return f"animsmith: refused [{exc.code}]: {error_line(exc.message)}"


def console():
    """A rich console on stdout: colour and the terminal's width on a terminal; in a log or
    a pipe, plain text 200 columns wide whose lines a CI runner cannot read as commands."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich's own exits with status 1; the CLI's handler keeps the decided status
            raise BrokenPipeError

    out = sys.stdout
    tty = bool(getattr(out, "isatty", lambda: False)())
    if not tty:  # a log (CI): no line an asset name starts may read as a runner command
        from animsmith.text import RunnerSafeStream

        out = RunnerSafeStream(out)
    return _Console(
        file=out,
        no_color=not tty or bool(os.environ.get("NO_COLOR")),  # no-color.org
        highlight=False,
        soft_wrap=False,
        width=None if tty else 200,
        force_terminal=tty,
        emoji=False,
    )


def print_table(console, titles, justify, rows, wrap_last: bool = False) -> None:
    """``rows`` (lists of str/Text cells) as a table when it fits the console's width,
    else one block per row (the first cell, then ``title: value`` lines), so no number
    is ever cut to ``…`` on a narrow terminal or by a long name. ``wrap_last``: the last
    column (prose, e.g. a reason) may wrap, so only the other columns must fit."""
    from rich import box
    from rich.measure import Measurement
    from rich.table import Table
    from rich.text import Text

    from animsmith.text import runner_safe_line

    # every cell is text, never rich markup (a reason "map it in [rig.roles]" lost its brackets);
    # in a log, guarded before layout (the stream's guard would shift the row)
    guard = (lambda x: x) if console.is_terminal else runner_safe_line

    def cell(c):
        if isinstance(c, Text):  # already text (its style kept) unless the guard must rewrite it
            return c if guard(c.plain) == c.plain else Text(guard(c.plain), style=c.style)
        return Text(guard(str(c)))

    rows = [[cell(c) for c in row] for row in rows]
    table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False)
    for i, (title, just) in enumerate(zip(titles, justify)):
        table.add_column(title, justify=just, no_wrap=not (wrap_last and i == len(titles) - 1))
    for row in rows:
        table.add_row(*row)
    measured = Measurement.get(console, console.options.update_width(1_000_000), table)
    natural = measured.minimum if wrap_last else measured.maximum
    if natural <= console.width:
        console.print(table)
        return
    for row in rows:
        console.print(Text("  ") + (row[0] if isinstance(row[0], Text) else Text(str(row[0]))), soft_wrap=True)
        for title, cell in zip(titles[1:], row[1:]):
            console.print(Text(f"    {title}: ") + (cell if isinstance(cell, Text) else Text(str(cell))), soft_wrap=True)
