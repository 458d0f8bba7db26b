"""What a run returns: one :class:`FileResult` per linted file in a :class:`LintResult`,
and the run's summary counts (:func:`summary_of`), the one count both a fresh run and a
merge of ``lint --format json`` documents report."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set

from animsmith.results import SEVERITY_RANK, CoverageGap, Finding


@dataclass
class FileResult:
    """One linted file: findings, coverage gaps and measurements.

    ``measurements`` = ``{"clips": {clip name: measure dict}, "groups": {group
    name: {"check_id", "anchors", "spread", "cap", "outliers"}}}``. ``rig`` is
    the resolved RoleMap JSON. ``error`` is a one-line load failure (the
    command turns it into exit 2).
    """

    path: str
    findings: List[Finding] = field(default_factory=list)
    coverage_gaps: List[CoverageGap] = field(default_factory=list)
    measurements: Dict[str, Any] = field(default_factory=lambda: {"clips": {}, "groups": {}})
    rig: Optional[Dict[str, Any]] = None
    clip_names: List[str] = field(default_factory=list)
    error: Optional[str] = None
    #: engine predictions (``[engine] profile``): :class:`~animsmith.results.PredictionFacet`
    prediction_facets: List[Any] = field(default_factory=list)
    #: the profile the predictions rest on (``engine.provenance``), None without ``[engine]``
    prediction_provenance: Optional[Dict[str, Any]] = None


@dataclass
class LintResult:
    files: List[FileResult]
    config_path: Optional[str] = None
    #: {"gait_groups" | "sync_groups": {group name: [Member]}} (the report draws these)
    group_members: Dict[str, Dict[str, List[Any]]] = field(default_factory=dict)
    #: ``lint --shard I/N``: {"index", "count", "files", "run"} (:func:`~animsmith.lint.shard.shard_record`), else None
    shard: Optional[Dict[str, Any]] = None
    #: the ids of the checks that ran (:func:`ran_checks`), in registry order; None: unknown
    checks: Optional[List[str]] = None

    def all_findings(self) -> Iterable[Finding]:
        for f in self.files:
            yield from f.findings

    def summary(self) -> Dict[str, Any]:
        return summary_of(self.files)

    def exit_code(self, deny_warnings: bool = False) -> int:
        """1 when a finding fails the run (error; warning too with ``deny_warnings``) or a
        prediction facet is required-unavailable (no ``--allow`` or severity hides it), else 0."""
        threshold = SEVERITY_RANK["warning" if deny_warnings else "error"]
        if any(facet.unavailable for f in self.files for facet in f.prediction_facets):
            return 1
        return 1 if any(SEVERITY_RANK[f.severity] >= threshold for f in self.all_findings()) else 0

    def without_checks(self, allowed: Set[str]) -> "LintResult":
        """A copy with the findings of ``allowed`` checks removed (``--allow``)."""
        files = []
        for f in self.files:
            files.append(
                FileResult(
                    path=f.path,
                    findings=[x for x in f.findings if x.check_id not in allowed],
                    coverage_gaps=list(f.coverage_gaps),
                    measurements=f.measurements,
                    rig=f.rig,
                    clip_names=f.clip_names,
                    error=f.error,
                    prediction_facets=list(f.prediction_facets),  # never hidden by --allow
                    prediction_provenance=f.prediction_provenance,
                )
            )
        return LintResult(
            files=files, config_path=self.config_path, group_members=self.group_members, shard=self.shard, checks=self.checks
        )


_SEVERITY_COUNT = {"error": "errors", "warning": "warnings", "note": "notes"}


def summary_of(files: Sequence[Any]) -> Dict[str, Any]:
    """The summary counts of a run's files: :class:`FileResult` objects, or their entries
    in a ``lint --format json`` document (``merge-results``), which count the same.

    ``{"errors", "warnings", "notes", "coverage_gaps", "files", "prediction_facets":
    {"available", "required_unavailable"}}``.
    """
    counts: Dict[str, Any] = {"errors": 0, "warnings": 0, "notes": 0, "coverage_gaps": 0, "files": len(files)}
    facets = {"available": 0, "required_unavailable": 0}
    for f in files:
        if isinstance(f, dict):
            severities = [x["severity"] for x in f.get("findings", [])]
            gaps = len(f.get("coverage_gaps", []))
            states = [x["state"] for x in f.get("prediction_facets") or ()]
        else:
            severities = [x.severity for x in f.findings]
            gaps = len(f.coverage_gaps)
            states = [x.state for x in f.prediction_facets]
        for severity in severities:
            counts[_SEVERITY_COUNT[severity]] += 1
        counts["coverage_gaps"] += gaps
        for state in states:
            facets[state] += 1
    counts["prediction_facets"] = facets
    return counts


def internal_gap(check_id: str, clip: str, exc: BaseException) -> CoverageGap:
    """The coverage gap a check that raised leaves for ``clip`` (None: the file) instead of
    its verdict (``ANIMSMITH_DEBUG`` set: the exception itself)."""
    if os.environ.get("ANIMSMITH_DEBUG"):
        raise exc
    reason = " ".join(str(exc).split()) or type(exc).__name__
    return CoverageGap(
        check_id=check_id,
        code="check_failed",
        message=f"the check could not evaluate this {'clip' if clip is not None else 'file'} ({type(exc).__name__}: {reason})",
        scope="internal",
        subjects=[clip] if clip is not None else [],
    )
