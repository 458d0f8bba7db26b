"""merge-results' input rules agree with the shipped lint JSON schema.

``animsmith.ci.merge`` checks a result to merge with rules of its own (their messages
name the field and what it must be); docs/schema/lint-output.schema.json is the
published structure. These tests hold the rules to the schema: each rule reads a
property the schema defines, accepts exactly the JSON types the schema gives it, and
requires only what the schema requires.
"""

from __future__ import annotations

import copy
import json
import os

import pytest

from animsmith.ci.merge import SCHEMA_OBJECTS, check_lint_structure
from animsmith.errors import AnimsmithError
from animsmith.render.json import SCHEMA_VERSION
from lint_support import ROOT, run_cli

jsonschema = pytest.importorskip("jsonschema")

with open(os.path.join(ROOT, "docs", "schema", "lint-output.schema.json"), encoding="utf-8") as fh:
    SCHEMA = json.load(fh)

#: one value of each JSON type (a string is chosen per field: an enum member or an identifier)
SAMPLES = {"null": None, "boolean": True, "integer": 3, "number": 1.5, "array": [], "object": {}}


def _resolve(sub):
    while "$ref" in sub:
        sub = SCHEMA["$defs"][sub["$ref"].rsplit("/", 1)[1]]
    return sub


def _object(name):
    return SCHEMA if name is None else SCHEMA["$defs"][name]


def _type_schema(sub):
    """The property's type, enum and const only (its contents are not what the rule judges)."""
    return {k: sub[k] for k in ("type", "enum", "const") if k in sub}


RULES = [(name, key, kind, required) for name, fields in SCHEMA_OBJECTS.items() for key, kind, required in fields]


@pytest.mark.parametrize("name, key, kind, required", RULES, ids=[f"{n or 'document'}.{k}" for n, k, _, _ in RULES])
def test_each_rule_reads_a_schema_property_with_the_same_types(name, key, kind, required):
    obj = _object(name)
    assert key in obj["properties"], f"{key} is not a property of {name or 'the document'} in the schema"
    if required:
        assert key in obj.get("required", ()), f"{key} is required by merge-results but optional in the schema"
    sub = _resolve(obj["properties"][key])
    what, ok = kind
    type_only = jsonschema.Draft202012Validator(_type_schema(sub))
    string = (sub.get("enum") or ["loop-seam"])[0]
    samples = dict(SAMPLES, string=string)
    if sub.get("type") == "array" and _resolve(sub.get("items", {})).get("type") == "string":
        samples["array"] = ["loop-seam"]
    for json_type, value in samples.items():
        assert ok(value) == type_only.is_valid(value), (
            f"{name or 'document'}.{key} ({what}): {json_type} {value!r} is "
            f"{'accepted' if ok(value) else 'refused'} by merge-results, "
            f"{'accepted' if type_only.is_valid(value) else 'refused'} by the schema"
        )
    if "enum" in sub:  # a string outside the enum: refused by both
        assert not ok("fatal") and not type_only.is_valid("fatal")


def test_identifiers_are_the_one_narrowing():
    """A check id or gap code that is not an identifier passes the schema's plain string but
    not merge-results (SARIF rule ids and JUnit names are built from them)."""
    narrower = [(n, k) for n, k, (what, ok), _ in RULES if ok("loop-seam") and not ok("not an id!")]
    assert all("identifier" in kind[0] for n, k, kind, _ in RULES if (n, k) in narrower)
    assert set(narrower) == {("finding", "check_id"), ("predictionFacet", "check_id"), ("predictionFacet", "code"),
                             ("gap", "check_id"), ("gap", "code")}
    for name, key in narrower:
        assert _type_schema(_resolve(_object(name)["properties"][key])) == {"type": "string"}


def test_the_header_is_the_schema_constant():
    assert SCHEMA["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    assert SCHEMA["properties"]["command"] == {"const": "lint"}


def _lint_doc(capsys):
    code, out, err = run_cli(
        ["--config", os.path.join(ROOT, "examples", "run-ring.animsmith.toml"), "lint", "--format", "json",
         os.path.join(ROOT, "examples", "assets", "run-ring.glb")], capsys,
    )
    assert code in (0, 1) and err == ""
    return json.loads(out)


def test_a_real_result_passes_both(capsys):
    doc = _lint_doc(capsys)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    assert doc["files"][0]["findings"] and doc["files"][0]["coverage_gaps"]  # the rules have items to judge
    check_lint_structure("r.json", doc)


@pytest.mark.parametrize("where, value, message", [
    (("findings", 0, "members"), [1], "files[0].findings[0].members[0]: must be an object or a string, not number"),
    (("coverage_gaps", 0, "subjects"), [None], "files[0].coverage_gaps[0].subjects[0]: must be a string, not null"),
])
def test_array_items_are_judged_like_the_schema(capsys, where, value, message):
    """Items of the arrays the renderers read: a value the schema refuses is refused, with the location."""
    bad = copy.deepcopy(_lint_doc(capsys))
    target = bad["files"][0]
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(bad)
    with pytest.raises(AnimsmithError) as info:
        check_lint_structure("r.json", bad)
    assert info.value.message == f"r.json: {message}"
