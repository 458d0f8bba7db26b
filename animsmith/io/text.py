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


#: bytes of text scanned per block: the scan's arrays (~50 bytes per special character)
#: stay bounded (~50 MB) whatever the text's size
SCAN_BLOCK_BYTES = 1 << 20


def nesting_depth(raw: bytes) -> int:
    """Deepest bracket nesting of the JSON text ``raw`` (UTF-8 bytes): the maximum
    over the text of (``[`` and ``{`` seen) − (``]`` and ``}`` seen), counting only
    brackets outside strings. ``[]`` is 1, ``[[1], {"a": 2}]`` 2, a scalar 0.

    A ``"`` starts or ends a string unless it is escaped, i.e. preceded by an odd
    run of backslashes; brackets after an odd number of unescaped quotes are inside
    a string. Vectorised over the text's special characters, in blocks of
    :data:`SCAN_BLOCK_BYTES` carrying (depth, inside a string, the backslash run
    reaching the block's end) from one block to the next. For text that is not
    valid JSON the number is only an estimate (the parser rejects it anyway).
    """
    import numpy as np

    special, steps = _tables()
    text = np.frombuffer(raw, dtype=np.uint8)
    deepest = depth = 0
    inside = False  # in a string at the block's start
    run = 0  # backslashes ending right before the block's start
    for lo in range(0, text.shape[0], SCAN_BLOCK_BYTES):
        a = text[lo : lo + SCAN_BLOCK_BYTES]
        pos = np.flatnonzero(special[a])
        if pos.shape[0] == 0:
            run = 0
            continue
        ch = a[pos]
        quote = ch == _QUOTE
        bs = ch == _BACKSLASH
        if bs.any() or run:
            # each special's predecessor is the byte right before it (backslash runs join);
            # the block's first special follows the previous block's last byte when at 0
            after = np.empty(ch.shape[0], dtype=bool)
            after[0] = pos[0] == 0 and run > 0
            after[1:] = pos[1:] - pos[:-1] == 1
            joined = bs & after
            joined[1:] &= bs[:-1]
            starts = np.flatnonzero(bs & ~joined)
            run_id = np.cumsum(bs & ~joined) - 1
            run_len = np.arange(ch.shape[0]) - starts[np.maximum(run_id, 0)] + 1 if starts.shape[0] else np.zeros(ch.shape[0], np.int64)
            if joined[0]:  # the run carried in: count the earlier block's backslashes too
                first = starts[0] if starts.shape[0] else ch.shape[0]
                run_len[:first] = np.arange(1, first + 1) + run
            escaped = np.zeros(ch.shape[0], dtype=bool)
            escaped[0] = pos[0] == 0 and run % 2 == 1
            escaped[1:] = bs[:-1] & after[1:] & (run_len[:-1] % 2 == 1)
            quote &= ~escaped
            run = int(run_len[-1]) if bs[-1] and pos[-1] == a.shape[0] - 1 else 0
        in_string = (np.cumsum(quote, dtype=np.int64) & 1).astype(bool) ^ inside
        step = steps[ch]
        step[in_string] = 0
        levels = np.cumsum(step, dtype=np.int64)
        deepest = max(deepest, depth + int(levels.max()))
        depth += int(levels[-1])
        inside = bool(in_string[-1])
    return deepest


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
