"""Group checks: every declared group judged once with all its members, even across
files, its output attached to the file of its first linted member (else the first file);
and the check ids a ``--select`` / ``--allow`` names."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from animsmith.errors import AnimsmithError
from animsmith.lint.members import resolve_members
from animsmith.lint.plan import Plan, override_severity
from animsmith.lint.results import FileResult, internal_gap
from animsmith.results import Finding


def run_group_checks(files: List[FileResult], summaries, plan: Plan, selected: Optional[Sequence[str]]) -> Dict[str, list]:
    """Judge every declared group once; findings/gaps/records go to the group's file."""
    from animsmith.checks import registry
    from animsmith.checks.context import GroupContext, GroupRecord

    contract = plan.contract
    specs = [
        s
        for s in registry().values()
        if s.scope == "group" and (selected is None or s.id in selected) and contract.check_enabled(s.id)
    ]
    extra_cache: Dict[str, Any] = {}
    resolved: Dict[Tuple[str, str], Tuple[list, int]] = {}
    group_members: Dict[str, list] = {}
    for spec in specs:
        table = getattr(contract, spec.group_table)
        override = contract.settings(spec.id).severity
        for name in sorted(table):
            group = table[name]
            key = (spec.group_table, name)
            if key not in resolved:
                resolved[key] = resolve_members(group, files, summaries, plan, extra_cache)
            members, attach = resolved[key]
            group_members.setdefault(spec.group_table, {})[name] = members
            ctx = GroupContext(
                check_id=spec.id,
                severity=override or spec.severity,
                group_name=name,
                group=group,
                members=members,
                options=contract.check_options(spec.id, spec.defaults()),
                contract=contract,
            )
            target = files[attach]
            try:
                for item in spec.run(ctx) or ():
                    if isinstance(item, GroupRecord):
                        # a check may publish several records for one group (gait-group: phase, then travel)
                        target.measurements.setdefault("groups", {}).setdefault(name, {}).update(item.data)
                    elif isinstance(item, Finding):
                        target.findings.append(override_severity(item, override))
                    else:
                        target.coverage_gaps.append(item)
            except Exception as exc:  # noqa: BLE001
                target.coverage_gaps.append(internal_gap(spec.id, name, exc))
    return group_members



def validate_check_ids(ids: Sequence[str], flag: str) -> List[str]:
    """Each id must be a registered check (``AnimsmithError``: one line per unknown id, naming the closest)."""
    from animsmith.checks import registry
    from animsmith.hints import did_you_mean

    specs = registry()
    if not ids:
        raise AnimsmithError(f"{flag}: no check id given")
    bad = []
    for cid in ids:
        if cid not in specs:
            bad.append(f"{flag}: unknown check '{cid}'" + did_you_mean(cid, specs))
    if bad:
        raise AnimsmithError(bad[-1], more=bad[:-1])
    return list(ids)
