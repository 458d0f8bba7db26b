"""The contract reader validates group tables and [checks.*] against what the checks declare.

The config layer imports no check: the keys of the group tables and of ``[checks.<id>]``
come from a :class:`~animsmith.config.ContractSchema`, which the check registry builds
from the modules' ``TABLE_KEYS`` and ``CONFIG``.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from animsmith.checks import contract_schema, parse_contract, registry
from animsmith.checks.base import Option
from animsmith.config import CheckKeys, ContractSchema, GroupTable, contract_from_toml
from animsmith.errors import ConfigError


def test_importing_the_config_layer_loads_no_check():
    code = ("import sys, animsmith.config; "
            "print(sorted(m for m in sys.modules if m.startswith('animsmith.checks')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _schema():
    """A schema written here by hand: one group key with bounds, one sub-table, one check."""
    return ContractSchema(
        checks={"demo": CheckKeys(options={"limit": Option(2, "integer", "a limit", minimum=1)},
                                  group_table="gait_groups")},
        group_tables={
            "gait_groups": GroupTable(keys={"spread": Option(0.2, "number", "cap", minimum=0.0, maximum=0.5)}),
            "sync_groups": GroupTable(sub_tables={"extra": {"floor": Option(0.5, "number", "floor", minimum=0.0)}}),
        },
    )


def test_group_keys_and_defaults_come_from_the_schema():
    c = contract_from_toml(
        b'[gait_groups.g]\nclips = ["a"]\n[sync_groups.s]\nclips = ["a"]\n[sync_groups.s.extra]\n', _schema(), "c.toml"
    )
    assert c.gait_groups["g"].spread == 0.2
    assert c.sync_groups["s"].extra.floor == 0.5
    assert not hasattr(c.gait_groups["g"], "max_gait_phase_spread")  # not declared by this schema


@pytest.mark.parametrize("text, line", [
    ('[gait_groups.g]\nclips = ["a"]\nspread = 0.6\n', "gait_groups.g.spread: must be ≤ 0.5, got 0.6"),
    ('[gait_groups.g]\nclips = ["a"]\nspred = 0.1\n', "gait_groups.g.spred: unknown key (did you mean 'spread'?)"),
    ('[gait_groups.g]\nclips = ["a"]\nmax_gait_phase_spread = 0.1\n', "gait_groups.g.max_gait_phase_spread: unknown key"),
    ('[sync_groups.s]\nclips = ["a"]\n[sync_groups.s.extra]\nfloor = -1\n', "sync_groups.s.extra.floor: must be ≥ 0, got -1"),
    ('[checks.demo]\nlimit = 0\n', "checks.demo.limit: must be ≥ 1, got 0"),
    ('[checks.demo]\nspread = 0.1\n', "checks.demo.spread: unknown key: a group's spread goes in its [gait_groups.<name>] table"),
    ('[checks.nan]\nenabled = false\n', "checks.nan: unknown check id"),
])
def test_problems_are_judged_by_the_schema(text, line):
    with pytest.raises(ConfigError) as info:
        contract_from_toml(text.encode(), _schema(), "c.toml")
    assert info.value.message == f"bad config c.toml: {line}"


def test_the_schema_is_asked_for_only_when_the_file_needs_it():
    def refuse():
        raise AssertionError("schema built for a file without group or check tables")

    c = contract_from_toml(b'[rig]\nprofile = "auto"\n[clips.walk]\nloop = true\n', refuse, "c.toml")
    assert c.expect_for("walk").loop is True


def test_the_registry_schema_gathers_the_group_checks_table_keys():
    specs = registry()
    schema = contract_schema()
    assert set(schema.checks) == set(specs)
    gait = schema.group_table("gait_groups")
    sync = schema.group_table("sync_groups")
    assert dict(gait.keys) == specs["gait-group"].table_keys
    assert dict(sync.keys) == specs["sync-group"].table_keys
    assert dict(sync.sub_tables) == {"time_complement": specs["time-complement"].table_keys}
    # the defaults a contract gets are the declared ones
    c = parse_contract(b'[gait_groups.g]\nclips = ["a"]\n[sync_groups.s]\nclips = ["a"]\n[sync_groups.s.time_complement]\n')
    for key, opt in specs["gait-group"].table_keys.items():
        assert getattr(c.gait_groups["g"], key) == opt.default
    for key, opt in specs["time-complement"].table_keys.items():
        assert getattr(c.sync_groups["s"].time_complement, key) == opt.default


def test_every_check_config_key_is_accepted_and_typed():
    """Each [checks.<id>] key the registry declares is accepted at its default value."""
    lines = []
    for cid, spec in registry().items():
        lines.append(f'[checks.{cid}]')
        for key, opt in spec.config.items():
            if opt.default is None:
                continue
            value = {True: "true", False: "false"}.get(opt.default) if isinstance(opt.default, bool) else None
            if value is None:
                value = f'"{opt.default}"' if isinstance(opt.default, str) else repr(opt.default)
                if isinstance(opt.default, (list, tuple)):
                    value = "[" + ", ".join(f'"{v}"' for v in opt.default) + "]"
            lines.append(f"{key} = {value}")
    c = parse_contract(("\n".join(lines) + "\n").encode(), "c.toml")
    assert set(c.checks) == set(registry())
