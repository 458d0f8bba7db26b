"""The two kinds of failure the core may raise.

* :class:`AnimsmithError` — operator error (unreadable or malformed file, bad
  config, bad flag). Its message is one line (a few lines when one pass found
  several problems: ``lines``); the CLI prints ``animsmith: <line>`` for each
  on stderr and exits 2.
* :class:`Refusal` — a transform that cannot be proven safe. It is a property of
  the asset, not an operator error: the CLI reports it and exits 1.

Nothing below the CLI prints or exits; it raises one of these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

from animsmith.text import escape


def _one_line(text: str) -> str:
    """``text`` as one line that still names what it names: line breaks, tabs and other
    control characters shown as ``\\uXXXX`` (:func:`animsmith.text.escape`), every other
    character kept, so a file name with two spaces in a row (``walk  v2.glb``) or a line
    break (``walk\\u000a2.glb``) is shown as the name it is."""
    return escape(text)


class AnimsmithError(Exception):
    """An operator error with a one-line reason, optionally naming a file.

    ``more``: other problems found in the same pass (e.g. every mistake of a
    config file), one line each, reported before this one (:attr:`lines`).
    """

    def __init__(self, reason: str, path: Optional[str] = None, *, more: Sequence[str] = ()):
        self.reason = _one_line(reason)
        self.path = None if path is None else str(path)
        self.more = [_one_line(m) for m in more]
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return f"{self.path}: {self.reason}" if self.path else self.reason

    @property
    def lines(self) -> List[str]:
        """Every problem, one line each: :attr:`more`, then :attr:`message`."""
        return self.more + [self.message]

    def with_path(self, path: str) -> "AnimsmithError":
        """Return the same error naming ``path`` (keeps an existing path)."""
        if self.path is None:
            self.path = str(path)
            self.args = (self.message,)
        return self


#: how every command words a path that names nothing (a file, a folder, a config)
NO_SUCH_FILE = "no such file or directory"


def unreadable_reason(exc: OSError) -> str:
    """Why a file could not be opened, worded the same on every command: ``no such file or
    directory`` for a path that names nothing, else ``cannot read file: <system reason>``."""
    if isinstance(exc, FileNotFoundError):
        return NO_SUCH_FILE
    return f"cannot read file: {exc.strerror or exc}"


class LoadError(AnimsmithError):
    """A glTF/GLB file could not be read safely (corrupt, truncated, hostile)."""


class ConfigError(AnimsmithError):
    """The TOML contract is unreadable or invalid."""


@dataclass
class Refusal(Exception):
    """A transform refused: the rewrite cannot be proven safe.

    ``code`` is stable and documented; ``message`` names the clip, the bone and
    the measured value against the limit, and ends with what to do instead.
    """

    code: str
    message: str
    clip: Optional[str] = None
    bone: Optional[str] = None
    measured: Any = None
    limit: Any = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        Exception.__init__(self, self.message)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "clip": self.clip,
            "bone": self.bone,
            "measured": self.measured,
            "limit": self.limit,
            "message": self.message,
        }
