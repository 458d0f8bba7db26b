"""JSON output of ``lint`` (``--format json``), schema ``docs/schema/lint-output.schema.json``.

``{"schema_version": 1, "command": "lint", "config": <path or null>,
"checks": [ids of the checks that ran], "files": [{"path", "rig", "findings": [...], "coverage_gaps": [...],
"measurements": {"clips": {name: {...}}, "groups": {name: {...}}},
"prediction_provenance": {profile...} or null, "prediction_facets": [...]}],
"summary": {"errors", "warnings", "notes", "coverage_gaps", "files",
"prediction_facets": {"available", "required_unavailable"}}}``.
Non-finite numbers become ``null``; keys keep a stable order.
"""

from __future__ import annotations

import json
import math
from typing import Any, Dict

SCHEMA_VERSION = 1


def plain(value: Any, *, keep_arrays: bool = False) -> Any:
    """JSON-safe copy: numpy scalars/arrays to Python, non-finite floats to None, -0.0 to 0.0.
    ``keep_arrays``: numpy arrays (ndim >= 1) stay as they are, for an encoder that
    converts them one at a time while it writes (the report page)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):  # + 0.0: a zero has no sign (-0.0 reads as a direction)
        return value + 0.0 if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): plain(v, keep_arrays=keep_arrays) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v, keep_arrays=keep_arrays) for v in value]
    if keep_arrays and getattr(value, "ndim", 0) >= 1:
        return value
    tolist = getattr(value, "tolist", None)
    if tolist is not None:
        return plain(tolist())
    return str(value)


def file_json(fr) -> Dict[str, Any]:
    from animsmith.render.text import sorted_findings

    return {
        "path": fr.path,
        "rig": fr.rig,
        "findings": [f.to_json() for f in sorted_findings(fr.findings)],
        "coverage_gaps": [g.to_json() for g in fr.coverage_gaps],
        "measurements": {
            "clips": fr.measurements.get("clips", {}),
            "groups": fr.measurements.get("groups", {}),
        },
        "prediction_provenance": fr.prediction_provenance,
        "prediction_facets": [x.to_json() for x in fr.prediction_facets],
    }


def lint_json(result) -> Dict[str, Any]:
    """The JSON document (a dict) of a lint run (``shard`` only for ``lint --shard``)."""
    doc: Dict[str, Any] = {"schema_version": SCHEMA_VERSION, "command": "lint", "config": result.config_path}
    if getattr(result, "checks", None) is not None:
        doc["checks"] = list(result.checks)
    if getattr(result, "shard", None) is not None:
        doc["shard"] = result.shard
    doc["files"] = [file_json(fr) for fr in result.files if fr.error is None]
    doc["summary"] = result.summary()
    return plain(doc)


def render_json(result, **_: Any) -> str:
    return json.dumps(lint_json(result), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
