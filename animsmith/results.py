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


#: prediction facet states: a handle was predicted / the runtime has no handle for the item
FACET_STATES = ("available", "required_unavailable")


@dataclass
class Prediction:
    """One prediction of an engine profile (:mod:`animsmith.engine`) about one item of the file.

    ``code``: what is predicted (``animation_asset_label``, ``clip_name``,
    ``node_binding_name``, ``animation_library_name``); ``subject``: the source item as
    a user finds it in the file (``animations[2] 'walk'``, ``nodes[5] 'foot'``, or the
    contested handle for a collision); ``handle``: the runtime's name for it (None: the
    runtime binds it by object identity, not by name); ``basis``: the rule ids the
    prediction rests on; ``reasons``: why no handle reaches the item (unavailable only);
    ``sources``: the glTF items involved (``{"kind", "index", "name"}``)."""

    code: str
    subject: str
    state: str
    handle: Optional[str]
    message: str
    basis: List[str] = field(default_factory=list)
    reasons: List[str] = field(default_factory=list)
    sources: List[Dict[str, Any]] = field(default_factory=list)


@dataclass(kw_only=True)
class PredictionFacet(Prediction):
    """One engine prediction (``[engine] profile``): how the runtime will address one item.

    ``state`` ``available`` carries the predicted ``handle`` (None when the runtime binds
    by object identity) and its ``basis`` (rule ids); ``required_unavailable`` carries
    ``reasons`` (codes) and fails the run whatever ``--allow`` or a severity says.
    ``code``: what is predicted; ``subject``: the item as found in the file; ``sources``:
    the glTF items involved (``{"kind", "index", "name"}``); ``check_id``: the check
    that made it."""

    check_id: str

    @property
    def unavailable(self) -> bool:
        return self.state == "required_unavailable"

    def to_json(self) -> Dict[str, Any]:
        return {
            "check_id": self.check_id,
            "code": self.code,
            "subject": self.subject,
            "state": self.state,
            "handle": self.handle,
            "basis": list(self.basis),
            "reasons": list(self.reasons),
            "sources": [dict(s) for s in self.sources],
            "message": self.message,
        }
