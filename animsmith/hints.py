""""Did you mean" hints: a mistyped name (a config key, a check id, a clip, a command) is
answered with the closest valid one, so the fix is one glance away.

Standard library only (``difflib``, imported when a hint is needed): the config loader,
the lint run, the commands and the command line all word their hints through here.
"""

from __future__ import annotations

from typing import Iterable, List, Optional

#: how alike a name must be to be offered (difflib's ratio; its own default)
CUTOFF = 0.6


def close_matches(word: str, choices: Iterable[str], n: int = 1) -> List[str]:
    """Up to ``n`` of ``choices`` closest to ``word``, closest first (none when nothing is alike)."""
    import difflib

    return difflib.get_close_matches(word, list(choices), n=n, cutoff=CUTOFF)


def closest(word: str, choices: Iterable[str]) -> Optional[str]:
    """The one of ``choices`` closest to ``word``, else None."""
    hits = close_matches(word, choices)
    return hits[0] if hits else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """" (did you mean 'x'?)" for the closest of ``choices`` to ``word``, else ""."""
    hint = closest(word, choices)
    return f" (did you mean '{hint}'?)" if hint else ""
