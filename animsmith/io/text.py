"""Text inputs before they are parsed: the nesting depth of JSON text, and the byte-order mark.

Parsers recurse once per nesting level: how deep they go before failing (or
crashing) depends on the parser and the Python version (the standard library's
decoder raises RecursionError at ~1,000 levels on 3.11 and parses 5,000 on
3.13). Measuring the depth first gives every reader one limit and one message,
whatever parses the text afterwards.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _tables():
    """(special-character mask, bracket step) lookup tables over byte values."""
    import numpy as np

    special = np.zeros(256, dtype=bool)
    special[[ord(c) for c in '"[]{}\\']] = True
    step = np.zeros(256, dtype=np.int64)
    step[[ord("["), ord("{")]] = 1
    step[[ord("]"), ord("}")]] = -1
    return special, step


_BACKSLASH = ord("\\")
_QUOTE = ord('"')


def nesting_depth(raw: bytes) -> int:
    """Deepest bracket nesting of the JSON text ``raw`` (UTF-8 bytes): the maximum
    over the text of (``[`` and ``{`` seen) − (``]`` and ``}`` seen), counting only
    brackets outside strings. ``[]`` is 1, ``[[1], {"a": 2}]`` 2, a scalar 0.

    A ``"`` starts or ends a string unless it is escaped, i.e. preceded by an odd
    run of backslashes; brackets after an odd number of unescaped quotes are inside
    a string. Vectorised over the text's special characters. For text that is not
    valid JSON the number is only an estimate (the parser rejects it anyway).
    """
    import numpy as np

    special, steps = _tables()
    a = np.frombuffer(raw, dtype=np.uint8)
    pos = np.flatnonzero(special[a])
    ch = a[pos]
    quote = ch == _QUOTE
    bs = ch == _BACKSLASH
    if bs.any():
        # runs of adjacent backslashes: run length up to and including each backslash
        after = np.zeros(ch.shape[0], dtype=bool)  # this special directly follows the previous one
        after[1:] = pos[1:] - pos[:-1] == 1
        joined = bs & np.r_[False, bs[:-1]] & after
        starts = np.flatnonzero(bs & ~joined)
        run_id = np.cumsum(bs & ~joined) - 1
        run_len = np.arange(ch.shape[0]) - starts[np.maximum(run_id, 0)] + 1
        escaped = np.zeros(ch.shape[0], dtype=bool)
        escaped[1:] = bs[:-1] & after[1:] & (run_len[:-1] % 2 == 1)
        quote &= ~escaped
    inside = (np.cumsum(quote, dtype=np.int64) & 1).astype(bool)
    step = steps[ch]
    step[inside] = 0
    return int(np.cumsum(step, dtype=np.int64).max(initial=0))


#: the deepest JSON document a reader of small documents (lint results, creature
#: files) accepts: below the standard library decoder's own limit on every
#: supported Python (~1,000 levels on 3.9-3.11), so one message on all of them
MAX_DOCUMENT_DEPTH = 512


def exceeds_depth(raw: bytes, limit: int = MAX_DOCUMENT_DEPTH) -> bool:
    """True when the JSON text ``raw`` nests deeper than ``limit`` (:func:`nesting_depth`);
    text with at most ``limit`` opening brackets cannot, and is not scanned."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    return nesting_depth(raw) > limit


def strip_utf8_bom(raw: bytes) -> bytes:
    """``raw`` without a leading UTF-8 byte-order mark (EF BB BF), which Windows tools
    (PowerShell 5.1's ``-Encoding utf8``, older Notepad) put before UTF-8 text and which
    TOML and JSON parsers reject."""
    return raw[3:] if raw[:3] == b"\xef\xbb\xbf" else raw
