"""What a run does, decided once from the contract: the :class:`Plan` every lint process
follows (which clip and file checks run, which clips a declared group needs, the
options the measurements share with the checks), the per-check table of severities
and options, and which checks a run runs (:func:`ran_checks`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from animsmith.lint.discovery import file_key
from animsmith.results import Finding


@dataclass
class Plan:
    """Everything a worker needs (picklable): contract, checks, wanted members."""

    contract: Any
    clip_checks: Tuple[str, ...]
    with_measurements: bool
    bare_names: frozenset
    file_members: Dict[str, frozenset]  # file key (discovery.file_key) -> clip names ('' = the single clip)
    need_endpoint_mode: bool = True  # only sync groups read the loop endpoint mode
    file_checks: Tuple[str, ...] = ()  # checks run once per file (SCOPE = "file"), when armed
    #: the checks' options the clip measurements take too (:func:`animsmith.checks.measurement_options`),
    #: so the numbers published are the ones the checks judge (as `measure`)
    measurement_options: Dict[str, float] = field(default_factory=dict)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_clip_table", None)  # per-process cache (see clip_check_table)
        return state


def make_plan(contract, selected: Optional[Sequence[str]] = None, with_measurements: bool = True) -> Plan:
    from animsmith.checks import measurement_options, registry

    specs = registry()
    chosen = [
        cid
        for cid, s in specs.items()
        if s.scope == "clip" and (selected is None or cid in selected) and contract.check_enabled(cid)
    ]
    file_checks = [
        cid
        for cid, s in specs.items()
        if s.scope == "file" and (selected is None or cid in selected) and contract.check_enabled(cid)
        and (s.armed_by is None or getattr(contract, s.armed_by, None) is not None)
    ]
    bare: Set[str] = set()
    files: Dict[str, Set[str]] = {}
    # only the tables a selected, enabled group check reads need member summaries
    tables = {
        s.group_table
        for cid, s in specs.items()
        if s.scope == "group" and (selected is None or cid in selected) and contract.check_enabled(cid)
    }
    for table in sorted(tables):
        for group in getattr(contract, table).values():
            for ref in group.members:
                if ref.file is None:
                    bare.add(ref.clip)
                else:
                    files.setdefault(file_key(ref.file), set()).add(ref.clip or "")
    return Plan(
        contract=contract,
        clip_checks=tuple(chosen),
        with_measurements=with_measurements,
        bare_names=frozenset(bare),
        file_members={k: frozenset(v) for k, v in files.items()},
        need_endpoint_mode=bool(contract.sync_groups) and "sync_groups" in tables,
        file_checks=tuple(file_checks),
        measurement_options=measurement_options(contract),
    )


def override_severity(item, severity: Optional[str]):
    """``[checks.<id>] severity`` applied to a finding (informational notes keep theirs)."""
    if severity is not None and isinstance(item, Finding) and not item.informational:
        item.severity = severity
    return item


def clip_check_table(plan: Plan) -> List[Tuple[str, Any, Optional[str], str, Dict[str, Any]]]:
    """``(id, spec, severity override, severity, options)`` per selected clip check.

    Computed once per plan and process (it depends only on the contract), not
    once per clip; kept out of the pickled plan (specs hold module functions).
    """
    table = plan.__dict__.get("_clip_table")
    if table is None:
        from animsmith.checks import registry

        specs = registry()
        contract = plan.contract
        table = []
        for cid in plan.clip_checks:
            spec = specs[cid]
            override = contract.settings(cid).severity
            table.append((cid, spec, override, override or spec.severity, contract.check_options(cid, spec.defaults())))
        plan.__dict__["_clip_table"] = table
    return table


def ran_checks(contract, selected: Optional[Sequence[str]] = None) -> List[str]:
    """Ids of the checks a run with ``contract`` runs, in registry order: selected (or
    all), enabled, and a group check only when a declared group arms it (its group
    table, and for ``time-complement`` a ``time_complement`` table in one of them)."""
    from animsmith.checks import registry

    def armed(spec) -> bool:
        if spec.armed_by is not None and getattr(contract, spec.armed_by, None) is None:
            return False
        if spec.group_table is None:
            return True
        groups = getattr(contract, spec.group_table, None) or {}
        if spec.arming_key is not None:
            return any(getattr(g, spec.arming_key, None) is not None for g in groups.values())
        return bool(groups)

    return [
        spec.id
        for spec in registry().values()
        if (selected is None or spec.id in selected) and contract.check_enabled(spec.id) and armed(spec)
    ]
