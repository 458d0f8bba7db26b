"""One file through the checks: load it, resolve its rig, judge every clip with the clip
checks (one shared :class:`~animsmith.core.analysis.ClipAnalysis` per clip, in catalog
order), then the file checks, and keep the small member summary of each clip a declared
group names. The asset is released before the next file, so a process never holds more
than one file's clips."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from animsmith.errors import LoadError
from animsmith.lint.discovery import file_key
from animsmith.lint.plan import Plan, clip_check_table, override_severity
from animsmith.lint.results import FileResult, internal_gap
from animsmith.results import CoverageGap, Finding


def run_clip_checks(path: str, asset, analysis, roles, plan: Plan) -> Tuple[List[Finding], List[CoverageGap]]:
    """Every selected, enabled clip check on one clip (catalog order); ``analysis`` None:
    the file has no animations, and only the checks declaring ``RUNS_WITHOUT_CLIPS`` run."""
    from animsmith.checks.context import ClipContext

    contract = plan.contract
    clip = analysis.clip if analysis is not None else None
    expect = contract.expect_for(clip.name, path) if clip is not None else None
    findings: List[Finding] = []
    gaps: List[CoverageGap] = []
    for cid, spec, override, severity, options in clip_check_table(plan):
        if clip is None and not spec.without_clips:
            continue
        ctx = ClipContext(
            check_id=cid,
            severity=severity,
            path=path,
            asset=asset,
            clip=clip,
            analysis=analysis,
            roles=roles,
            expect=expect,
            options=dict(options),  # a check may not change what the next clip sees
            contract=contract,
        )
        try:
            for item in spec.run(ctx) or ():
                item = override_severity(item, override)
                (findings if isinstance(item, Finding) else gaps).append(item)
        except Exception as exc:  # noqa: BLE001 - a check bug must not hide the rest
            gaps.append(internal_gap(cid, clip.name if clip is not None else None, exc))
    if analysis is not None:
        analysis.check_state.clear()  # the checks' shared key facts go with the judged clip
    return findings, gaps


def run_file_checks(path: str, asset, roles, plan: Plan) -> Tuple[List[Finding], List[CoverageGap], List[Any]]:
    """Every selected, armed file check once on the whole file: (findings, gaps, facets)."""
    from animsmith.checks import registry
    from animsmith.checks.context import ClipContext
    from animsmith.results import PredictionFacet

    contract = plan.contract
    findings: List[Finding] = []
    gaps: List[CoverageGap] = []
    facets: List[Any] = []
    specs = registry()
    for cid in plan.file_checks:
        spec = specs[cid]
        override = contract.settings(cid).severity
        ctx = ClipContext(
            check_id=cid, severity=override or spec.severity, path=path, asset=asset, clip=None, analysis=None,
            roles=roles, expect=None, options=contract.check_options(cid, spec.defaults()), contract=contract,
        )
        try:
            for item in spec.run(ctx) or ():
                if isinstance(item, PredictionFacet):
                    facets.append(item)
                elif isinstance(item, Finding):
                    findings.append(override_severity(item, override))
                else:
                    gaps.append(item)
        except Exception as exc:  # noqa: BLE001 - a check bug must not hide the rest
            gaps.append(internal_gap(cid, None, exc))
    return findings, gaps, facets


def member_summary(analysis, measurements: Optional[Dict[str, Any]], expect, endpoint_mode: bool = True) -> Dict[str, Any]:
    """The group-facing summary of one clip (a small dict; the clip itself is not kept).

    ``measurements`` when the run computed them, else only what group checks
    read: gait phase and amplitude (+ reasons), duration, key counts, loop
    endpoint mode. Always adds ``lr_signal_m`` (one cycle of the L−R signal,
    for the report), ``declared_loop`` and ``declared_fps``.
    """
    if measurements is not None:
        summary = dict(measurements)
    else:
        summary = _group_fields(analysis, endpoint_mode)
    try:
        signal = analysis.gait.signal_m
    except Exception:  # noqa: BLE001
        signal = None
    summary["lr_signal_m"] = None if signal is None else [float(v) for v in signal]
    summary["declared_loop"] = None if expect is None else expect.loop
    summary["declared_fps"] = None if expect is None else expect.fps
    summary.update(_travel_fields(analysis, summary, expect))
    if summary.get("loop_endpoint_mode") is not None:
        summary["loop_keys_close"] = _loop_keys_close(analysis, summary, expect)
    return summary


def _loop_keys_close(analysis, summary: Dict[str, Any], expect) -> Optional[bool]:
    """Whether the clip's last keys repeat its first pose as its loop checks judge it: on a
    travelling loop (``core.travel.loop_travels``) the travel bone's own keys left out, as
    they end where the next cycle starts (``ClipAnalysis.closes_by_keys``); None when the
    clip cannot be read."""
    from animsmith.core.travel import loop_travels

    owner = None if expect is None else expect.movement_owner_xz
    try:
        return analysis.closes_by_keys(loop_travels(summary.get("speed_mps"), owner))
    except Exception:  # noqa: BLE001 - an unreadable clip keeps its endpoint mode alone
        if os.environ.get("ANIMSMITH_DEBUG"):
            raise
        return None


def _travel_fields(analysis, summary: Dict[str, Any], expect) -> Dict[str, Any]:
    """What the gait group's travel policy reads: speed, heading (measured once by the
    clip's analysis) and the member's declared speed pin, tolerance and movement owner."""
    out: Dict[str, Any] = {}
    if "speed_mps" not in summary:
        try:
            sp = analysis.speed
            out["speed_mps"], out["heading_deg"] = sp.speed_mps, sp.heading_deg
            if sp.speed_mps is None:
                out["speed_mps_unavailable"] = sp.speed_mps_unavailable
        except Exception as exc:  # noqa: BLE001 - an unsampleable clip is a missing measurement
            if os.environ.get("ANIMSMITH_DEBUG"):
                raise
            out["speed_mps"] = out["heading_deg"] = None
            out["speed_mps_unavailable"] = f"clip cannot be sampled ({type(exc).__name__}: {exc})"
    for key in ("speed_mps", "speed_tolerance_mps", "movement_owner_xz"):
        out["declared_" + key] = None if expect is None else getattr(expect, key)
    return out


def _group_fields(analysis, endpoint_mode: bool = True) -> Dict[str, Any]:
    clip = analysis.clip
    out: Dict[str, Any] = {"name": clip.name, "index": int(clip.index), "key_count_max": int(clip.max_key_count)}
    try:
        grid = analysis.grid
        out["duration_s"] = float(grid.duration_s or clip.duration_s)
        out["frame_count"] = int(grid.frame_count)
        g = analysis.gait
        for name in ("gait_phase", "lr_amplitude_m", "cycles"):
            value = getattr(g, name)
            if isinstance(value, float) and not math.isfinite(value):
                value = None
            out[name] = value
            if value is None:
                out[name + "_unavailable"] = getattr(g, name + "_unavailable", None) or "not measured"
        if analysis.legs is not None and len(analysis.legs.pairs) > 1:  # gait-group judges each pair
            out.update(analysis.legs_measurements())
        if endpoint_mode:
            mode, why = analysis.loop_endpoint_mode_with()
            out["loop_endpoint_mode"] = mode
            if mode is None:
                out["loop_endpoint_mode_unavailable"] = why or "not measured"
    except Exception as exc:  # noqa: BLE001 - an unsampleable clip is a missing measurement
        if os.environ.get("ANIMSMITH_DEBUG"):
            raise
        reason = f"clip cannot be sampled ({type(exc).__name__}: {exc})"
        out.setdefault("duration_s", None)
        for name in ("gait_phase", "lr_amplitude_m", "loop_endpoint_mode"):
            out.setdefault(name, None)
            out.setdefault(name + "_unavailable", reason)
    return out


@dataclass
class FileOutcome:
    result: FileResult
    summaries: Dict[str, Dict[str, Any]]  # clip name -> member summary


def _wanted(plan: Plan, real: str, clip_name: str, clip_count: int) -> bool:
    if clip_name in plan.bare_names:
        return True
    wanted = plan.file_members.get(real)
    if not wanted:
        return False
    return clip_name in wanted or ("" in wanted and clip_count == 1)


def rig_in_metres(asset, contract):
    """(the asset with positions in metres at ``[rig] units``, its roles and legs under the
    contract's ``[rig]`` table): the scale comes first, so the legs' shape rule and every
    number after it are in metres."""
    from animsmith.core.legs import resolve_contract_rig

    asset = asset.in_units(contract.rig.metres_per_unit)
    return asset, resolve_contract_rig(asset, contract.rig)


def lint_file(path: str, plan: Plan, on_asset=None, on_clip=None) -> FileOutcome:
    """Load one file, run its clip checks, keep member summaries; never raises LoadError.

    ``on_asset(asset, roles)`` and ``on_clip(clip, analysis, measured)`` let a
    caller (the report) keep views of the same judged analyses without a second
    copy of this loop.
    """
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.io.gltf import load_asset

    result = FileResult(path=path)
    try:
        asset = load_asset(path, strict=False)
    except LoadError as exc:
        result.error = exc.with_path(path).message
        return FileOutcome(result, {})
    contract = plan.contract
    asset, roles = rig_in_metres(asset, contract)
    result.rig = roles.to_json()
    if on_asset is not None:
        on_asset(asset, roles)
    if contract.engine is not None:
        from animsmith.engine import provenance

        result.prediction_provenance = provenance(contract.engine.profile, contract.engine.version)
    real = file_key(path)
    summaries: Dict[str, Dict[str, Any]] = {}
    count = len(asset.clips)
    if not count:  # nothing to sample: the checks that judge the file itself (or say why not)
        result.findings, result.coverage_gaps = run_clip_checks(path, asset, None, roles, plan)
    analyses = [ClipAnalysis(asset, clip, roles) for clip in asset.clips]
    if plan.with_measurements and count > 1:
        from animsmith.core.analysis import prime_loop_continuity

        try:
            prime_loop_continuity(analyses)  # one FK pass for every clip's loop-continuity samples
        except Exception:  # noqa: BLE001 - each clip then computes (or fails) on its own
            if os.environ.get("ANIMSMITH_DEBUG"):
                raise
    for k, clip in enumerate(asset.clips):
        result.clip_names.append(clip.name)
        analysis, analyses[k] = analyses[k], None  # the analysis goes with the clip's turn
        findings, gaps = run_clip_checks(path, asset, analysis, roles, plan)
        result.findings += findings
        result.coverage_gaps += gaps
        measured = None
        if plan.with_measurements:
            measured = _safe_measurements(analysis, plan.measurement_options)
            result.measurements["clips"][clip.name] = measured
        if _wanted(plan, real, clip.name, count):
            summaries[clip.name] = member_summary(
                analysis, measured, contract.expect_for(clip.name, path), plan.need_endpoint_mode
            )
        if on_clip is not None:
            on_clip(clip, analysis, measured)
        del analysis
    if plan.file_checks:
        findings, gaps, result.prediction_facets = run_file_checks(path, asset, roles, plan)
        result.findings += findings
        result.coverage_gaps += gaps
    return FileOutcome(result, summaries)


def _safe_measurements(analysis, options: Dict[str, float]) -> Dict[str, Any]:
    """``analysis.measurements()`` with the options the checks share with it (the loop-seam
    stride floor, the contact height: :attr:`Plan.measurement_options`), as ``measure``
    gives it; a metric that raises leaves the clip's reason instead."""
    try:
        return analysis.measurements(**options)
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("ANIMSMITH_DEBUG"):
            raise
        return {"name": analysis.clip.name, "measurements_unavailable": f"{type(exc).__name__}: {exc}"}
