"""Run one per-clip check module on an in-memory asset (tests of animsmith/checks/*).

Builds the same :class:`~animsmith.checks.context.ClipContext` the lint runner
gives a check: the clip's shared ClipAnalysis, resolved roles, the effective
``[clips.*]`` entry (a ClipExpect) and the check's CONFIG defaults overlaid by
``options``.
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, Optional

from animsmith.checks.context import ClipContext
from animsmith.config import ClipExpect, Contract, RigConfig
from animsmith.core.analysis import ClipAnalysis
from animsmith.core.roles import RoleMap, resolve_roles
from animsmith.results import CoverageGap, Finding


def run_check(
    check_id_or_module,
    asset,
    clip_name: Optional[str] = None,
    *,
    expect: Optional[Dict[str, Any]] = None,
    options: Optional[Dict[str, Any]] = None,
    roles: Optional[RoleMap] = None,
    required_bones=None,
):
    """Findings and gaps of one check on one clip: returns (findings, gaps)."""
    module = check_id_or_module
    if isinstance(module, str):
        module = importlib.import_module("animsmith.checks." + module.replace("-", "_"))
    clip = asset.clips[0] if clip_name is None else asset.clip(clip_name)
    if roles is None:
        roles = resolve_roles(asset.skeleton, "auto")
    opts = {k: o.default for k, o in module.CONFIG.items()}
    opts.update(options or {})
    exp = None if expect is None else ClipExpect(**expect)
    contract = Contract(rig=RigConfig(required_bones=list(required_bones or [])))
    ctx = ClipContext(
        check_id=module.ID,
        severity=module.SEVERITY,
        path="<memory>",
        asset=asset,
        clip=clip,
        analysis=ClipAnalysis(asset, clip, roles),
        roles=roles,
        expect=exp,
        options=opts,
        contract=contract,
    )
    out = list(module.check(ctx))
    findings = [o for o in out if isinstance(o, Finding)]
    gaps = [o for o in out if isinstance(o, CoverageGap)]
    assert len(findings) + len(gaps) == len(out)
    return findings, gaps
