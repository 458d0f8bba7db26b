"""What a check is given: a :class:`ClipContext` or a :class:`GroupContext`.

The lint run builds one context per (check, clip) (``animsmith.lint.engine``) or
(check, group) (``animsmith.lint.groups``); checks read it and never sample or load anything themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from animsmith.checks.base import CheckContextBase


class ClipContext(CheckContextBase):
    """One clip judged by one check.

    Attributes: ``check_id``, ``severity`` (effective, after the config
    override), ``path`` (file path as given), ``asset``, ``clip``,
    ``analysis`` (the clip's shared :class:`~animsmith.core.analysis.ClipAnalysis`),
    ``roles`` (:class:`~animsmith.core.roles.RoleMap`), ``expect`` (effective
    ``[clips.*]`` entry, a :class:`~animsmith.config.ClipExpect`, or None),
    ``options`` (the check's CONFIG defaults overlaid by ``[checks.<id>]``),
    ``contract`` (the whole :class:`~animsmith.config.Contract`).
    """

    def __init__(self, *, check_id, severity, path, asset, clip, analysis, roles, expect, options, contract):
        self.check_id = check_id
        self.severity = severity
        self.path = path
        self.asset = asset
        self.clip = clip
        self.analysis = analysis
        self.roles = roles
        self.expect = expect
        self.options = options
        self.contract = contract


@dataclass
class Member:
    """One declared member of a group, as the runner found it.

    ``label``: the string from the config; ``path``: the file it was found in
    (as given on the command line, or the config-relative path) or None;
    ``clip_name``: the clip's name in that file or None; ``summary``: the
    clip's measurements dict (``ClipAnalysis.measurements()`` plus
    ``lr_signal_m`` (list, one cycle) and ``loop`` (declared)) or None when
    missing; ``reason``: why the member is missing (None when found);
    ``also_in``: for a bare clip name, the other linted files that hold a clip of
    that name (the first file in argument order is used).
    """

    label: str
    path: Optional[str] = None
    clip_name: Optional[str] = None
    summary: Optional[Dict[str, Any]] = None
    reason: Optional[str] = None
    also_in: Tuple[str, ...] = ()

    @property
    def found(self) -> bool:
        return self.summary is not None


class GroupContext(CheckContextBase):
    """One declared group judged by one group check.

    Attributes: ``check_id``, ``severity``, ``group_name``, ``group`` (the
    group's config entry, a :class:`~animsmith.config.GroupEntry` with the
    keys its checks declare), ``members`` (list of
    :class:`Member`, in declared order, duplicates kept), ``options``,
    ``contract``.
    """

    def __init__(self, *, check_id, severity, group_name, group, members, options, contract):
        self.check_id = check_id
        self.severity = severity
        self.group_name = group_name
        self.group = group
        self.members: List[Member] = list(members)
        self.options = options
        self.contract = contract

    def finding(self, message, *, severity=None, **fields):
        fields.setdefault("group", self.group_name)
        return super().finding(message, severity=severity, **fields)


@dataclass
class GroupRecord:
    """Group-level measurements a group check publishes for the JSON/report.

    Yielded by a group check alongside findings; the runner stores it under
    ``measurements.groups[<name>]`` (gait-group: anchors, spread, cap,
    outliers).
    """

    check_id: str
    data: Dict[str, Any] = field(default_factory=dict)
