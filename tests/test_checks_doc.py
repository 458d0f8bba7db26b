"""docs/checks.md is generated from the registry; this fails when they drift."""

from __future__ import annotations

import os
import subprocess
import sys

from animsmith.checks import markdown, registry
from lint_support import ROOT

DOC = os.path.join(ROOT, "docs", "checks.md")


def test_checks_md_matches_the_registry():
    with open(DOC, encoding="utf-8") as fh:
        on_disk = fh.read()
    assert on_disk == markdown(), "docs/checks.md is stale: run `python -m animsmith.checks --markdown > docs/checks.md`"


def test_every_check_and_key_is_documented():
    text = markdown()
    for spec in registry().values():
        assert f"## {spec.id}\n" in text
        assert spec.summary, f"{spec.module} has no docstring summary"
        for key in spec.config:
            assert f"`{key}`" in text


def test_module_entry_point_prints_the_same_markdown():
    proc = subprocess.run([sys.executable, "-m", "animsmith.checks", "--markdown"], cwd=ROOT, capture_output=True)
    assert proc.returncode == 0
    assert proc.stdout.decode("utf-8") == markdown()


def test_registry_order_and_declarations():
    specs = registry()
    ids = list(specs)
    assert ids.index("gait-group") < ids.index("sync-group") < ids.index("time-complement")
    for spec in specs.values():
        assert spec.severity in ("error", "warning", "note")
        assert spec.scope in ("clip", "group", "file")
        assert (spec.scope == "group") == (spec.group_table is not None)
        for opt in spec.config.values():
            assert opt.type in ("number", "integer", "bool", "string", "list")
