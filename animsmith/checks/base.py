"""What a check module declares, and the contexts it is given.

A check is one module in ``animsmith/checks/`` (the registry discovers them):

    \"\"\"User documentation of the check (first line = one-line summary).\"\"\"
    from animsmith.checks.base import Option

    ID = "loop-seam"                 # stable id, used in config and output
    SEVERITY = "error"               # default severity: error | warning | note
    SCOPE = "clip"                   # "clip" (once per clip), "group" or "file" (once per file)
    NEEDS = ("roles: hips + a foot", "config: [clips.*] loop = true")
    CONFIG = {                       # [checks.<ID>] keys beyond enabled/severity
        "max_ratio": Option(1.5, "number", "Fail when the seam ratio exceeds this.", minimum=0.0),
    }

    def check(ctx):                  # pure generator: yields Finding / CoverageGap
        ...
        yield ctx.finding("message", measured=..., expected=...)
        yield ctx.gap("code", "why it could not be evaluated", scope="...")

Optional: ``GROUP_TABLE = "gait_groups" | "sync_groups"`` (a group check: the
table whose groups arm it), ``ARMED_BY_KEY = "time_complement"`` (armed only by
groups with that sub-table), ``TABLE_KEYS = {key: Option(...)}`` (a group check:
the keys it reads from its group table besides ``clips``, or from its
``ARMED_BY_KEY`` sub-table; the contract reader validates them and fills their
defaults into each group entry), ``RUNS_WITHOUT_CLIPS = True`` (a clip check that
also runs once for a file without animations, with ``ctx.clip`` None),
``ARMED_BY = "engine"`` (runs only when the contract has that table; a ``"file"``
check, given the whole file with ``ctx.clip`` None, may then yield
:class:`~animsmith.results.PredictionFacet` records with ``ctx.facet``) and
``MEASUREMENT_OPTIONS = ("min_stride_step_m",)`` (options of ``CONFIG`` the clip
measurements of ``measure`` and ``lint --format json`` take too, as keyword arguments
of ``ClipAnalysis.measurements``, so the number they publish is the one the check
judges) and ``ORDER`` (catalog position).

The registry, ``animsmith checks``, ``docs/checks.md`` and config validation
(``animsmith.checks.contract_schema``) all derive from these declarations, so
nothing is written twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from animsmith.results import CoverageGap, Finding, PredictionFacet


@dataclass(frozen=True)
class Option:
    """One config key of a check: default, type, meaning and range.

    ``type`` is one of ``"number"``, ``"integer"``, ``"bool"``, ``"string"``,
    ``"list"``. ``minimum``/``maximum`` are inclusive bounds for numbers.
    """

    default: Any
    type: str
    doc: str
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    choices: Optional[Sequence[str]] = None


class CheckContextBase:
    """Shared helpers to build findings and gaps for one check."""

    check_id: str = ""
    severity: str = "error"

    def finding(self, message: str, *, severity: Optional[str] = None, **fields: Any) -> Finding:
        return Finding(check_id=self.check_id, severity=severity or self.severity, message=message, **fields)

    def gap(self, code: str, message: str, *, scope: Optional[str] = None, subjects: Sequence[str] = ()) -> CoverageGap:
        return CoverageGap(check_id=self.check_id, code=code, message=message, scope=scope, subjects=list(subjects))

    def facet(self, prediction) -> PredictionFacet:
        """A prediction facet of this check from an :class:`animsmith.results.Prediction`."""
        p = prediction
        return PredictionFacet(
            check_id=self.check_id, code=p.code, subject=p.subject, state=p.state, handle=p.handle,
            message=p.message, basis=list(p.basis), reasons=list(p.reasons), sources=[dict(s) for s in p.sources],
        )
