"""JSON nesting depth measured on the text (animsmith.io.text) against the depth
of the document the standard library parses from the same text."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

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
