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


def test_units_docs_name_the_metre_defaults_the_checks_have():
    """`rig-units` and docs/config.md list the metre defaults a wrong unit breaks; each number
    is the default its check declares (the in-place threshold read 0.1 m/s, the check's is 0.5)."""
    from animsmith.checks import get_check

    contact_cm = get_check("foot-slide").defaults()["contact_height_m"] * 100
    closure_cm = get_check("loop-closure").defaults()["max_position_delta_m"] * 100
    threshold = get_check("in-place").defaults()["travel_threshold_mps"]
    phrases = [f"{contact_cm:g} cm contact height", f"{closure_cm:g} cm loop-closure cap", f"{threshold:g} m/s travel threshold"]
    with open(os.path.join(ROOT, "docs", "config.md"), encoding="utf-8") as fh:
        config_md = " ".join(fh.read().split())
    rig_units = " ".join(get_check("rig-units").doc.split())
    for text in (config_md, rig_units):
        missing = [p for p in phrases if p not in text]
        assert not missing, missing
