"""`--help` of every command explains it (issue 2/3: the CLI is the product's surface).

Expectations are the issue texts' own words: what each command prints, its
options, and (lint) the exit-code contract.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from animsmith.cli import cli

EXPECTED = {
    (): ["lint", "measure", "inspect", "checks", "--config", "[clips.\"walk.glb\"]"],
    ("measure",): ["--clip", "--format", "measure speed", "gait_phase", "_unavailable", "heading_deg"],
    ("measure", "speed"): ["speed_mps", "distance_m", "duration_s", "travel bone"],
    ("inspect",): ["roles", "bone tree", "start time", "interpolations"],
    ("checks",): ["[checks.<id>]", "--markdown"],
    # help audit: usage, requirements and exit codes of the commands that write files
    ("transform",): ["--gait-anchor FILE.glb -o OUT.glb", "--in-place", "--dry-run", ".glb files only", "Exit 0",
                     "1 refused", "2 bad flag", '[clips."<clip>"]', '[clips."walk.glb#<clip>"]'],
    ("collection", "transform-foot-cycle"): ["files only", "Every output is published, or none", "Exit 0",
                                             "this or -o is required unless --dry-run", '[clips."walk.glb#<clip>"]'],
    ("report",): ["1,000,000 bone-frames", "Exit 0 whenever the page is written", "lint` is the gate"],
    ("sim", "validate"): ["more than 1 mm", "off the ground", "Exit 1"],
    ("lint",): ["--select", "--allow", "--deny-warnings", "--jobs", "globs or folders", "Exit 0", "1:", "2:",
                "./animsmith.toml", "--format json -o FILE", "animsmith checks ID"],
}


@pytest.mark.parametrize("argv", sorted(EXPECTED), ids=lambda a: " ".join(a) or "animsmith")
def test_help_is_helpful(argv):
    res = CliRunner().invoke(cli, [*argv, "--help"], catch_exceptions=False)
    assert res.exit_code == 0
    text = " ".join(res.output.split())  # rewrapped by click: compare on single spaces
    missing = [w for w in EXPECTED[argv] if w not in text]
    assert not missing, f"`animsmith {' '.join(argv)} --help` does not mention {missing}"


def test_every_registered_command_has_a_short_help():
    res = CliRunner().invoke(cli, ["--help"], catch_exceptions=False)
    commands = res.output.split("Commands:", 1)[1].strip().splitlines()
    assert len(commands) >= 6
    for line in commands:
        name, _, summary = line.strip().partition(" ")
        assert summary.strip(), f"{name} has no one-line summary"


def test_root_help_names_every_contract_table_and_rig_key():
    """`animsmith --help` lists each top-level table the contract accepts ([engine] was
    missing) and the [rig] keys."""
    from animsmith.config import TOP_KEYS

    res = CliRunner().invoke(cli, ["--help"], catch_exceptions=False)
    lines = res.output.split("The contract", 1)[1].split("Example:", 1)[0]
    for key in TOP_KEYS:
        assert f"[{key}" in lines, key
    rig = next(line for line in lines.splitlines() if line.strip().startswith("[rig]"))
    for key in ("profile", "units", "[rig.roles]"):
        assert key in rig, key


def test_inspect_help_mentions_the_travel_bone_column():
    res = CliRunner().invoke(cli, ["inspect", "--help"], catch_exceptions=False)
    assert "travel bone" in " ".join(res.output.split())
