"""Helpers for the lint tests: write clips to GLB files, run the CLI in-process."""

from __future__ import annotations

import json
import os

import pytest

from animsmith.cli import main
from animsmith.io.write import write_glb
from builders import biped_asset

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_PATH = os.path.join(ROOT, "docs", "schema", "lint-output.schema.json")


def write_clips(path, clips):
    """Write ``clips`` (builders.gait_clip ...) as one GLB on the analytic biped."""
    write_glb(biped_asset(clips), str(path))
    return str(path)


def write_config(path, text):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return str(path)


def run_cli(argv, capsys):
    """(exit code, stdout, stderr) of ``animsmith argv`` run in-process."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    out, err = capsys.readouterr()
    code = info.value.code
    return (0 if code is None else code), out, err


def validate_json(text):
    """Parse lint JSON output and validate it against docs/schema/lint-output.schema.json."""
    import jsonschema

    doc = json.loads(text)
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)
    return doc
