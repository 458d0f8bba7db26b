"""Run one per-clip check module on an in-memory asset (tests of animsmith/checks/*).

Uses the lint framework's ClipContext when it exists, so the checks are tested
through the same context the runner gives them; falls back to a minimal
stand-in with the documented attributes otherwise.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any, Dict, Optional

from animsmith.checks.base import CheckContextBase
from animsmith.core.analysis import ClipAnalysis
from animsmith.core.roles import RoleMap, resolve_roles
from animsmith.results import CoverageGap, Finding


class _Ctx(CheckContextBase):
    def __init__(self, module, asset, clip, roles, expect, options, contract):
        self.check_id = module.ID
        self.severity = module.SEVERITY
        self.asset = asset
        self.clip = clip
        self.roles = roles
        self.expect = expect
        self.options = options
        self.contract = contract
        self.analysis = ClipAnalysis(asset, clip, roles)


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
    exp = None if expect is None else SimpleNamespace(**_full_expect(expect))
    contract = SimpleNamespace(rig=SimpleNamespace(required_bones=list(required_bones or [])))
    ctx = _Ctx(module, asset, clip, roles, exp, opts, contract)
    out = list(module.check(ctx))
    findings = [o for o in out if isinstance(o, Finding)]
    gaps = [o for o in out if isinstance(o, CoverageGap)]
    assert len(findings) + len(gaps) == len(out)
    return findings, gaps


def _full_expect(expect: Dict[str, Any]) -> Dict[str, Any]:
    base = dict(
        loop=None,
        fps=None,
        duration_s=None,
        speed_mps=None,
        speed_tolerance_mps=None,
        movement_owner_xz=None,
        animates_bones=None,
    )
    base.update(expect)
    return base
