"""The lint JSON writer gives exactly the text of ``json.dumps(indent=2, ensure_ascii=False,
allow_nan=False)``, the standard library's own encoder."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from animsmith.render.json import dumps_indent2


def _std(doc):
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)


def _random_value(rng, depth):
    kind = rng.randrange(10 if depth < 4 else 6)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -1, 7, 2**70, -(2**64) + 3])
    if kind == 2:
        return rng.choice([0.0, -0.0, 1e-05, 1e16, 1.5e-300, 0.1 + 0.2, -123.456, 5e-324, 1.7976931348623157e308])
    if kind == 3:
        return rng.random() * 10 ** rng.randrange(-20, 20)
    if kind in (4, 5):
        return rng.choice(["", "walk", "é—\u2028", "tab\there", 'quote"back\\slash', "\x00\x1f\x7f", "😀 mixamorig:Hips", "##[x]"])
    if kind in (6, 7):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["a", "b", "ключ", "", "x y", "\n"]) + str(i): _random_value(rng, depth + 1) for i in range(rng.randrange(4))}


def test_random_documents_match_the_standard_library():
    rng = random.Random(1234)
    for _ in range(400):
        doc = _random_value(rng, 0)
        assert dumps_indent2(doc) == _std(doc)


def test_empty_containers_and_nesting():
    doc = {"a": {}, "b": [], "c": [[], {}, [[{}]]], "d": {"e": [1, {"f": None}]}}
    assert dumps_indent2(doc) == _std(doc)
    assert dumps_indent2([]) == "[]" and dumps_indent2({}) == "{}"
    assert dumps_indent2({"k": [1.0, 2]}) == '{\n  "k": [\n    1.0,\n    2\n  ]\n}'


def test_values_it_does_not_write_go_to_the_standard_library():
    # numpy scalars, tuples, non-str keys: the standard library's text
    doc = {"x": np.float64(0.25), "t": (1, 2), 3: "int key"}
    assert dumps_indent2(doc) == _std(doc)
    # a non-finite float: the standard library's error
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match="Out of range float"):
            dumps_indent2({"m": [1.0, {"v": bad}]})


def _random_raw(rng, depth):
    """Values as the lint runner leaves them before plain(): numpy scalars and arrays,
    tuples, non-finite floats, sets, enums."""
    import enum

    class Level(enum.IntEnum):
        LOW = 3

    kind = rng.randrange(14 if depth < 4 else 9)
    if kind == 0:
        return rng.choice([np.float64(0.1), np.float32(0.1), np.float64("nan"), np.int64(-5), np.bool_(True), np.uint8(200)])
    if kind == 1:
        return rng.choice([float("nan"), float("inf"), -float("inf"), -0.0, 1e-05])
    if kind == 2:
        return rng.choice([Level.LOW, True, None, 2**65])
    if kind == 3:
        return np.array([[1.5, np.nan], [np.inf, -0.0]])[: rng.randrange(3)]
    if kind < 9:
        return _random_value(rng, depth)
    if kind == 9:
        return tuple(_random_raw(rng, depth + 1) for _ in range(rng.randrange(3)))
    if kind == 10 and rng.random() < 0.2:
        return {1, 2} if rng.random() < 0.5 else {"int key": 1, 2: "x"}
    if kind == 11:
        return [_random_raw(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{i}": _random_raw(rng, depth + 1) for i in range(rng.randrange(4))}


def test_plain_documents_match_plain_then_the_standard_library():
    from animsmith.render.json import dumps_plain_indent2, plain

    rng = random.Random(99)
    for _ in range(600):
        doc = {"files": [_random_raw(rng, 1) for _ in range(3)]}
        assert dumps_plain_indent2(doc) == _std(plain(doc))


def _lint_shaped(clip):
    """A document with ``clip`` where the lint document puts a clip's measurements."""
    return {"schema_version": 1, "files": [{"path": "a.glb", "measurements": {"clips": {"walk": clip}, "groups": {}}}]}


def test_measurements_written_ahead_are_the_text_the_standard_library_writes_there():
    import pickle

    from animsmith.render.json import WrittenJSON, dumps_plain_indent2, plain, written_json

    rng = random.Random(99)
    for _ in range(200):
        clip = {"name": "walk", "gait_phase": rng.random(), "nested": _random_value(rng, 2), "nan": float("nan")}
        expected = _std(plain(_lint_shaped(clip)))  # NaN as null, -0.0 as 0.0
        written = written_json(clip)
        assert type(written) is WrittenJSON and written == {k: v for k, v in clip.items() if k != "nan"} | {"nan": written["nan"]}
        assert dumps_plain_indent2(_lint_shaped(written)) == expected
        # a worker's result crosses to the parent by pickle: the text goes with it
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            back = pickle.loads(pickle.dumps(written, protocol=protocol))
            assert back.json_text == written.json_text and dumps_plain_indent2(_lint_shaped(back)) == expected


def test_measurements_written_ahead_are_written_again_when_changed_or_placed_elsewhere():
    import copy

    from animsmith.render.json import dumps_plain_indent2, written_json

    written = written_json({"name": "walk", "speed_mps": 1.25})
    written["speed_mps"] = 2.5  # the text no longer says what the dict holds: it is dropped
    assert written.json_text is None
    assert dumps_plain_indent2(_lint_shaped(written)) == _std(_lint_shaped({"name": "walk", "speed_mps": 2.5}))
    for change in (lambda d: d.update(x=1), lambda d: d.pop("name"), lambda d: d.setdefault("y", 2), lambda d: d.clear()):
        again = written_json({"name": "walk", "speed_mps": 1.25})
        change(again)
        assert again.json_text is None and dumps_plain_indent2(_lint_shaped(again)) == _std(_lint_shaped(dict(again)))
    # at another depth than the one it was written for, the dict is written where it is
    moved = written_json({"name": "walk", "speed_mps": 1.25})
    assert dumps_plain_indent2({"clip": moved}) == _std({"clip": {"name": "walk", "speed_mps": 1.25}})
    assert dumps_plain_indent2({"clip": copy.deepcopy(moved)}) == _std({"clip": {"name": "walk", "speed_mps": 1.25}})
    # something only the two-step path writes (a set) is left as it was
    odd = {"name": "walk", "tags": {"a"}}
    assert written_json(odd) is odd
