"""What the contract accepts beyond its fixed tables: the checks' own keys.

The config layer knows the shape of ``[rig]``, ``[clips.*]`` and ``[engine]`` itself. The
keys of a group table (``[gait_groups.<name>]``, ``[sync_groups.<name>]`` and a sub-table
such as ``[sync_groups.<name>.time_complement]``) and of ``[checks.<id>]`` belong to the
checks that read them: each check module declares them, and the check registry hands
them to the reader as a :class:`ContractSchema` (``animsmith.checks.contract_schema``).
A key's declaration is any object with ``type``, ``minimum``, ``maximum``, ``choices``
and ``default`` (the checks declare ``animsmith.checks.base.Option``; the fixed tables
use :class:`Key`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

#: the key of a group table that lists its members (the reader parses them: :class:`~animsmith.config.model.MemberRef`)
MEMBERS_KEY = "clips"
MEMBERS_DOC = "Members: a clip name, \"file.glb\" or \"file.glb#clip\" (paths relative to the config)."


@dataclass(frozen=True)
class Key:
    """The shape of one value: ``type`` (``number``, ``positive``, ``integer``, ``bool``,
    ``string``, ``list``), inclusive bounds for numbers and the allowed strings."""

    type: str
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    choices: Optional[Sequence[str]] = None
    default: Any = None


@dataclass(frozen=True)
class CheckKeys:
    """What ``[checks.<id>]`` accepts beyond ``enabled`` and ``severity``: ``options``
    {key: declaration}; a group check also names its group table and, when a sub-table
    arms it, that sub-table (so a cap written in the wrong table is named as such)."""

    options: Mapping[str, Any] = field(default_factory=dict)
    group_table: Optional[str] = None
    arming_key: Optional[str] = None


@dataclass(frozen=True)
class GroupTable:
    """The keys of one group table besides :data:`MEMBERS_KEY` ({key: declaration}) and its
    sub-tables ({name: {key: declaration}})."""

    keys: Mapping[str, Any] = field(default_factory=dict)
    sub_tables: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def keys_of(self, sub_table: Optional[str] = None) -> Mapping[str, Any]:
        """The keys of the table itself (None) or of one of its sub-tables."""
        return self.keys if sub_table is None else self.sub_tables.get(sub_table, {})


@dataclass(frozen=True)
class ContractSchema:
    """Every check id with its ``[checks.<id>]`` keys, and the keys of each group table."""

    checks: Mapping[str, CheckKeys] = field(default_factory=dict)
    group_tables: Mapping[str, GroupTable] = field(default_factory=dict)

    def group_table(self, name: str) -> GroupTable:
        return self.group_tables.get(name) or GroupTable()
