"""What checks produce: findings and coverage gaps, and a run's result.

A :class:`Finding` is a judgement (error / warning / note). A
:class:`CoverageGap` says what could not be evaluated and why — a gap is never
a silent pass. Renderers turn a :class:`LintResult` into text, JSON, SARIF...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

SEVERITIES = ("error", "warning", "note")
SEVERITY_RANK = {"note": 1, "warning": 2, "error": 3}


@dataclass
class Finding:
    check_id: str
    severity: str
    message: str
    clip: Optional[str] = None
    group: Optional[str] = None
    bone: Optional[str] = None
    time_s: Optional[float] = None
    measured: Any = None
    expected: Any = None
    members: Optional[List[Any]] = None
    #: an informational note a ``[checks.<id>] severity`` override leaves alone (not in the JSON)
    informational: bool = field(default=False, repr=False, compare=False)

    def to_json(self) -> Dict[str, Any]:
        return {
            "check_id": self.check_id,
            "severity": self.severity,
            "message": self.message,
            "clip": self.clip,
            "group": self.group,
            "bone": self.bone,
            "time_s": self.time_s,
            "measured": self.measured,
            "expected": self.expected,
            "members": self.members,
        }


@dataclass
class CoverageGap:
    check_id: str
    code: str
    message: str
    scope: Optional[str] = None
    subjects: List[str] = field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        return {
            "check_id": self.check_id,
            "code": self.code,
            "scope": self.scope,
            "subjects": list(self.subjects),
            "message": self.message,
        }
