"""JSON nesting depth measured on the text (animsmith.io.text) against the depth
of the document the standard library parses from the same text."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from animsmith.io import text as text_mod
from animsmith.io.text import MAX_DOCUMENT_DEPTH, exceeds_depth, nesting_depth


def parsed_depth(value) -> int:
    if isinstance(value, list):
        return 1 + max((parsed_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((parsed_depth(v) for v in value.values()), default=0)
    return 0


# strings made of the characters that decide string state and nesting
tricky = st.text(alphabet=['"', "\\", "[", "]", "{", "}", "a", " ", "\u00e9"], max_size=8)
documents = st.recursive(
    st.none() | st.booleans() | st.integers() | tricky,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(tricky, inner, max_size=3),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(documents, st.booleans(), st.booleans())
def test_depth_of_the_text_is_the_depth_of_the_document(doc, ensure_ascii, spaced):
    text = json.dumps(doc, ensure_ascii=ensure_ascii, separators=(", ", ": ") if spaced else (",", ":"))
    assert nesting_depth(text.encode("utf-8")) == parsed_depth(doc)


@settings(max_examples=300, deadline=None)
@given(documents, st.sampled_from([1, 2, 3, 5, 8]))
def test_blocks_carry_strings_escapes_and_depth(doc, block):
    """Scanned in blocks of a few bytes, every string, escape run and level crosses a block
    edge somewhere: the depth is the same as in one block."""
    text = json.dumps(doc, ensure_ascii=False).encode("utf-8")
    saved = text_mod.SCAN_BLOCK_BYTES
    try:
        text_mod.SCAN_BLOCK_BYTES = block
        assert nesting_depth(text) == parsed_depth(doc)
    finally:
        text_mod.SCAN_BLOCK_BYTES = saved


def test_memory_stays_bounded_on_a_text_of_backslashes():
    """A 16 MB string of escaped backslashes (every byte special): the scan's peak stays near
    one block's arrays (it was ~50x the text: 800 MB)."""
    import tracemalloc

    text = b'["' + b"\\\\" * (4 << 20) + b'", ' + b"[" * 600 + b"]" * 600 + b"]"
    tracemalloc.start()
    try:
        depth = nesting_depth(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert depth == 601
    assert peak < 120 * text_mod.SCAN_BLOCK_BYTES, peak


def test_escaped_quotes_and_backslash_runs():
    # "\\" ends with an escaped backslash (the quote after it closes the string);
    # "\"[" has an escaped quote (the bracket is inside the string)
    assert nesting_depth(rb'["\\", [1]]') == 2
    assert nesting_depth(rb'["\"[[[", 1]') == 1
    assert nesting_depth(rb'["\\\"[[[", 1]') == 1
    assert nesting_depth(rb'["\\\\", [[2]]]') == 3
    assert nesting_depth(b"7") == 0


def test_exceeds_depth_at_the_limit():
    at = b"[" * MAX_DOCUMENT_DEPTH + b"]" * MAX_DOCUMENT_DEPTH
    over = b"[" + at + b"]"
    assert not exceeds_depth(at)
    assert exceeds_depth(over)
    # many brackets, all inside strings or side by side: shallow
    assert not exceeds_depth(json.dumps(["[" * 5000, [[1]] * 3000]).encode())
