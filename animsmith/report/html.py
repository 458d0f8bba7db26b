"""One self-contained HTML page from :class:`~animsmith.report.collect.ReportData`.

The page inlines everything: the CSS and JavaScript from ``assets/`` (package
data) and the data as one ``<script type="application/json"
id="report-data">`` block. No URL, no external file, no network request; a
Content-Security-Policy of ``default-src 'none'`` keeps it that way. Every
``<``, ``>``, ``&`` and U+2028/U+2029 inside the JSON is escaped, so asset
strings cannot close the script element; the viewer sets asset strings with
``textContent`` only.

Page data (``report-data``): ``version``, ``generator``, ``config``,
``clip_filter``, ``summary`` (files, clips, errors, warnings, notes,
coverage_gaps), ``files[]`` (path, profile, skeleton, clips), ``skeletons[]``
(names, parents), ``clips[]`` (see ``collect.clip_view`` + ``anchor``,
``shown``), ``findings[]`` (check_id, severity, text, where, path, clip,
group, time_s, target), ``gaps[]`` (folded as in the text output),
``engine[]`` (one per file linted under an ``[engine]`` profile: path, profile,
version, runtime), ``predictions[]`` (every prediction facet, required-unavailable
first: path, check_id, code, subject, state, handle, reasons, message),
``palette`` (``animsmith.report.palette``: the side, body and member colours) and
``groups[]`` (one per declared gait group: name, anchor, cap, floor, mean,
spread, outliers, members[] with label, status, phase, amplitude, cycles,
distance, outlier, signal (one cycle of L−R height, m), clip, color; ``travel``:
the gait-group travel record or null, drawn as the group's travel table).
"""

from __future__ import annotations

import html
import json
import os
import re
from importlib import resources
from typing import Any, Dict, List, Optional, Tuple

from animsmith.io.paths import file_identity

from animsmith.report.palette import member_color, page_palette


def asset_text(name: str) -> str:
    """A file of ``animsmith/report/assets`` (package data)."""
    return resources.files("animsmith.report").joinpath("assets", name).read_text(encoding="utf-8")


class _PageEncoder(json.JSONEncoder):
    """Numpy arrays become lists one at a time, as the text is written (non-finite -> null,
    -0.0 -> 0.0): the page's curves are held as 8-byte numbers until then, never all as
    Python lists."""

    def default(self, o):
        import numpy as np

        from animsmith.render.json import plain

        if isinstance(o, np.ndarray):
            if o.dtype.kind == "f":
                out = (o + 0.0).astype(object)  # + 0.0: no -0.0 in the page's data either
                out[~np.isfinite(o)] = None
                return out.tolist()
            return plain(o.tolist())
        return plain(o)


def script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element: ``<``, ``>``, ``&``, U+2028/9 escaped."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"), cls=_PageEncoder)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _anchor(prefix: str, *parts: Any) -> str:
    """A DOM id made only of [a-z0-9-] (asset names never reach an id)."""
    return prefix + "-" + "-".join(str(p) for p in parts)


def _finite(x: Any) -> Optional[float]:
    from animsmith.core.travel import finite

    return finite(x)


def group_page_data(result, data, contract) -> List[Dict[str, Any]]:
    """One entry per declared gait group (sorted by name) for the figure and the pair player."""
    from animsmith.core.tolerance import below, exceeds
    from animsmith.core.circular import circular_distance_cycles

    records: Dict[str, Dict[str, Any]] = {}
    for fr in result.files:
        for name, rec in (fr.measurements.get("groups") or {}).items():
            if rec.get("check_id") == "gait-group":
                records[name] = rec
    travels = {name: rec.get("travel") for name, rec in records.items()}
    # the phase record holds anchors; a record with only the travel policy's numbers is not one
    records = {name: rec for name, rec in records.items() if "anchors" in rec}
    members_by_group = (result.group_members or {}).get("gait_groups", {})
    out = []
    checks_run = getattr(result, "checks", None)
    for gi, name in enumerate(sorted(contract.gait_groups)):
        group = contract.gait_groups[name]
        rec = records.get(name)
        cap = float(group.max_gait_phase_spread)
        floor = float(group.min_lr_amplitude_m)
        mean = _finite(rec.get("circular_mean")) if rec else None
        anchors = (rec or {}).get("anchors", {})
        entry: Dict[str, Any] = {
            "name": name,
            "anchor": _anchor("group", gi),
            "cap": cap,
            "floor": floor,
            "mean": mean,
            "spread": _finite(rec.get("spread")) if rec else None,
            "outliers": list((rec or {}).get("outliers", [])),
            # False when the run left gait-group out (--select): the figure says so
            "judged": checks_run is None or "gait-group" in checks_run,
            "members": [],
            "travel": travels.get(name),
        }
        for mi, m in enumerate(members_by_group.get(name, [])):  # each member once (lint.members.resolve_members)
            summ = m.summary or {}
            phase = _finite(summ.get("gait_phase"))
            amp = _finite(summ.get("lr_amplitude_m"))
            if not m.found:
                status, reason = "missing", m.reason
            elif amp is not None and amp > 0.0 and below(amp, floor):  # excluded as noise, phase or not
                status, reason = "excluded", None
            elif phase is None:
                status, reason = "unmeasurable", summ.get("gait_phase_unavailable") or "gait phase could not be measured"
            elif m.label in anchors or (rec is None and amp is not None and not below(amp, floor)):
                status, reason = "measured", None
            else:
                status, reason = "excluded", None
            dist = circular_distance_cycles(phase, mean) if (status == "measured" and mean is not None) else None
            clip_ref = None
            if m.path is not None and m.clip_name is not None:
                clip_ref = data.clip_index.get((file_identity(m.path), m.clip_name))
            signal = summ.get("lr_signal_m")
            from animsmith.report.collect import rounded

            entry["members"].append(
                {
                    "label": m.label,
                    "status": status,
                    "reason": reason,
                    "phase": phase,
                    "amplitude": amp,
                    "cycles": summ.get("cycles"),
                    "distance": dist,
                    "outlier": bool(status == "measured" and dist is not None and exceeds(dist, cap)),
                    "signal": rounded(thinned_signal(signal, summ.get("cycles") or 1)) if signal else None,
                    "clip": clip_ref,
                    "color": member_color(mi),
                }
            )
        out.append(entry)
    return out


def _target(f, fi: int, data, groups: List[Dict[str, Any]], path: str) -> Optional[str]:
    if f.group is not None and f.check_id == "gait-group":  # the figures are the gait groups'
        for g in groups:
            if g["name"] == f.group:
                return g["anchor"]
    if f.clip is not None:
        key: Optional[Tuple[str, str]] = (file_identity(path), f.clip)
        if f.group is not None:  # a group finding's clip is a member label: that member's own clip
            table = "gait_groups" if f.check_id == "gait-group" else "sync_groups"
            m = next((x for x in (data.result.group_members or {}).get(table, {}).get(f.group, []) if x.label == f.clip), None)
            key = (file_identity(m.path), m.clip_name) if (m is not None and m.path and m.clip_name) else None
        idx = data.clip_index.get(key) if key else None
        if idx is not None and data.clips[idx].get("shown"):
            return data.clips[idx]["anchor"]
    return "summary"


def page_data(data, contract, clip_filter: Optional[str] = None) -> Dict[str, Any]:
    """The JSON the page draws (module docstring)."""
    from animsmith import __version__
    from animsmith.render._doc import location_text, message_text
    from animsmith.render.json import plain
    from animsmith.render.text import fold_gaps, sorted_findings

    result = data.result
    for i, clip in enumerate(data.clips):
        clip["anchor"] = _anchor("clip", i)
        clip["shown"] = clip_filter is None or clip.get("name") == clip_filter
    groups = group_page_data(result, data, contract)
    needed = {m["clip"] for g in groups for m in g["members"] if m["clip"] is not None}
    findings: List[Dict[str, Any]] = []
    gaps: List[Dict[str, Any]] = []
    engine: List[Dict[str, Any]] = []
    predictions: List[Dict[str, Any]] = []
    for fi, fr in enumerate(result.files):
        prov = getattr(fr, "prediction_provenance", None)
        if prov is not None:
            engine.append({"path": fr.path, **{k: prov.get(k) for k in ("profile", "version", "runtime")}})
        for facet in getattr(fr, "prediction_facets", ()):
            fj = facet.to_json()
            predictions.append({"path": fr.path, **{k: fj[k] for k in ("check_id", "code", "subject", "state", "handle", "reasons", "message")}})
        for f in sorted_findings(fr.findings):
            if clip_filter is not None and f.clip is not None and f.clip != clip_filter and f.group is None:
                continue
            fj = plain(f.to_json())
            findings.append(
                {
                    "check_id": f.check_id,
                    "severity": f.severity,
                    "text": message_text(fj),
                    "where": " ".join(x for x in (fr.path, location_text(fj)) if x),
                    "path": fr.path,
                    "clip": f.clip,
                    "group": f.group,
                    "time_s": _finite(f.time_s),
                    "target": _target(f, fi, data, groups, fr.path),
                }
            )
        for (cid, code, message), entry in fold_gaps(fr.coverage_gaps):
            gaps.append(
                {
                    "path": fr.path,
                    "check_id": cid,
                    "code": code,
                    "message": message,
                    "count": entry["count"],
                    "scopes": sorted(entry["scopes"]),
                    "subjects": sorted(entry["subjects"]),
                }
            )
    clips = []
    for i, clip in enumerate(data.clips):
        if clip["shown"] or i in needed:
            clips.append(clip)
        else:  # keep indices stable; drop the heavy arrays
            clips.append({k: clip[k] for k in ("name", "file", "skeleton", "anchor", "shown") if k in clip})
    summary = dict(result.summary())
    summary["clips"] = len(data.clips)
    return plain(  # arrays stay for _PageEncoder, which writes them one at a time
        {
            "version": 1,
            "generator": f"animsmith {__version__}",
            "config": contract.path,
            "clip_filter": clip_filter,
            "summary": summary,
            "files": data.files,
            "skeletons": data.skeletons,
            "clips": clips,
            "findings": findings,
            "gaps": gaps,
            "engine": engine,
            # the failures first, each group in file order
            "predictions": sorted(predictions, key=lambda p: p["state"] != "required_unavailable"),
            "groups": groups,
            "palette": page_palette(),
        },
        keep_arrays=True,
    )


def render_html(data, contract, clip_filter: Optional[str] = None) -> str:
    """The whole page (str)."""
    page = page_data(data, contract, clip_filter)
    paths = [f["path"] for f in page["files"]]
    title = os.path.basename(paths[0]) if len(paths) == 1 else "animsmith report"
    subtitle = ", ".join(paths[:5]) + (f" … +{len(paths) - 5} more" if len(paths) > 5 else "")
    profiles = sorted({f["profile"] for f in page["files"]})
    if profiles:
        subtitle += " · rig profile " + ", ".join(profiles)
    values = {
        "CSS": asset_text("report.css"),
        "JS": asset_text("report.js").replace("</", "<\\/"),
        "TITLE": html.escape(f"{title} — animsmith report" if len(paths) == 1 else title),
        "SUBTITLE": html.escape(subtitle),
        "DATA": script_json(page),
    }
    # one pass: inserted text (a file or clip name holding "@@DATA@@") is never scanned again
    return re.sub(r"@@(CSS|JS|TITLE|SUBTITLE|DATA)@@", lambda m: values[m.group(1)], asset_text("report.html"))


#: points per member curve in a group figure (the figure is ~600 px wide)
MAX_SIGNAL_POINTS = 2000


#: points per stride at least, when a member holding many strides is thinned (each is drawn folded)
MIN_POINTS_PER_STRIDE = 64


def thinned_signal(signal, cycles: int = 1, max_points: int = MAX_SIGNAL_POINTS):
    """The L−R signal of n samples over the clip's ``cycles`` strides, linearly resampled onto
    m = max(``max_points``, 64 per stride) equally spaced samples when n is larger (sample i at
    i·n/m of the original), so the page's phase mapping (index / length, folded per stride) is
    unchanged; a 100,000-frame member took 778 KB."""
    import numpy as np

    values = np.asarray(signal, dtype=np.float64)
    n = values.shape[0]
    m = max(int(max_points), MIN_POINTS_PER_STRIDE * max(1, int(cycles)))
    if n <= m:
        return signal
    return np.interp(np.arange(m) * (n / m), np.arange(n), values)
