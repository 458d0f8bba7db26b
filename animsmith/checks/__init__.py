"""The check registry: every module in this package that declares an ``ID``.

``registry() -> {id: CheckSpec}`` in catalog order. A module is a check when
its name does not start with ``_``, it is not one of the framework modules
(``base``, ``context``) and it declares ``ID`` and ``check``. Order: the ids
in :data:`CATALOG` first, in that order, then any other check sorted by id;
a module may pin its place with ``ORDER = <int>`` (lower first; catalog ids
are numbered 10, 20, 30...).

``animsmith checks``, ``docs/checks.md`` (:func:`markdown`) and config
validation all derive from these declarations: :func:`contract_schema` hands the
contract reader every check's ``[checks.<id>]`` keys and the group checks' table keys
(``TABLE_KEYS``), and :func:`load_contract` / :func:`parse_contract` read a contract
against them. Regenerate the doc with
``python -m animsmith.checks --markdown > docs/checks.md``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from animsmith.config import (
    MEMBERS_DOC,
    MEMBERS_KEY,
    CheckKeys,
    Contract,
    ContractSchema,
    GroupTable,
    contract_from_toml,
    read_contract,
)
from animsmith.results import SEVERITIES

#: catalog order: output record order and the tie order of text output.
CATALOG = (
    "nan",
    "time-monotonic",
    "quat-norm",
    "quat-flip",
    "duration-sanity",
    "constant-track",
    "required-bones",
    "missing-bones",
    "duplicate-loop-endpoint",
    "loop-closure",
    "loop-seam",
    "loop-seam-vel",
    "loop-seam-rot",
    "root-motion-speed",
    "gait-group",
    "sync-group",
    "time-complement",
    "in-place",
    "fps",
    "bind-pose",
    "foot-slide",
)

FRAMEWORK_MODULES = {"base", "context"}
SCOPES = ("clip", "group", "file")
GROUP_TABLES = ("gait_groups", "sync_groups")


@dataclass(frozen=True)
class CheckSpec:
    """One check's declaration, read from its module."""

    id: str
    severity: str
    scope: str
    needs: Tuple[str, ...]
    config: Mapping[str, Any]
    doc: str
    module: str
    group_table: Optional[str] = None
    #: a group check armed only by groups with this sub-table (``ARMED_BY_KEY``), e.g. ``time_complement``
    arming_key: Optional[str] = None
    #: a clip check that also runs once for a file without animations (``RUNS_WITHOUT_CLIPS``;
    #: its context's ``clip`` and ``analysis`` are then None)
    without_clips: bool = False
    #: a contract table that must be present for the check to run (``ARMED_BY``, e.g. ``engine``)
    armed_by: Optional[str] = None
    #: options of this check the clip measurements take too (``MEASUREMENT_OPTIONS``):
    #: :func:`measurement_options`
    measurement_options: Tuple[str, ...] = ()
    #: a group check's keys of its group table, or of its ``arming_key`` sub-table (``TABLE_KEYS``)
    table_keys: Mapping[str, Any] = field(default_factory=dict)
    order: int = 0
    run: Callable = field(default=None, compare=False, repr=False)  # type: ignore[assignment]

    @property
    def summary(self) -> str:
        """First line of the docstring (the one-line description)."""
        return self.doc.strip().splitlines()[0].strip() if self.doc.strip() else ""

    @property
    def body(self) -> str:
        """The docstring after its first paragraph."""
        text = inspect.cleandoc(self.doc or "")
        parts = text.split("\n\n", 1)
        return parts[1].strip() if len(parts) > 1 else ""

    def defaults(self) -> Dict[str, Any]:
        return {k: opt.default for k, opt in self.config.items()}


_REGISTRY: Optional[Dict[str, CheckSpec]] = None


def _spec_of(module) -> CheckSpec:
    cid = module.ID
    scope = getattr(module, "SCOPE", "clip")
    severity = getattr(module, "SEVERITY", "error")
    if scope not in SCOPES:
        raise RuntimeError(f"check module {module.__name__}: SCOPE must be one of {SCOPES}")
    if severity not in SEVERITIES:
        raise RuntimeError(f"check module {module.__name__}: bad SEVERITY {severity!r}")
    table = getattr(module, "GROUP_TABLE", None)
    if scope == "group" and table not in GROUP_TABLES:
        raise RuntimeError(f"check module {module.__name__}: GROUP_TABLE must be one of {GROUP_TABLES}")
    if cid in CATALOG:
        order = (CATALOG.index(cid) + 1) * 10
    else:
        order = getattr(module, "ORDER", 10_000)
    order = getattr(module, "ORDER", order)
    return CheckSpec(
        id=cid,
        severity=severity,
        scope=scope,
        needs=tuple(getattr(module, "NEEDS", ())),
        config=dict(getattr(module, "CONFIG", {})),
        doc=inspect.cleandoc(module.__doc__ or ""),
        module=module.__name__,
        group_table=table,
        arming_key=getattr(module, "ARMED_BY_KEY", None),
        without_clips=bool(getattr(module, "RUNS_WITHOUT_CLIPS", False)),
        armed_by=getattr(module, "ARMED_BY", None),
        measurement_options=tuple(getattr(module, "MEASUREMENT_OPTIONS", ())),
        table_keys=dict(getattr(module, "TABLE_KEYS", {})),
        order=order,
        run=module.check,
    )


def registry() -> Dict[str, CheckSpec]:
    """{id: CheckSpec} of every check module, in catalog order (cached)."""
    global _REGISTRY
    if _REGISTRY is None:
        specs: List[CheckSpec] = []
        for info in pkgutil.iter_modules(__path__):
            name = info.name
            if name.startswith("_") or name in FRAMEWORK_MODULES:
                continue
            module = importlib.import_module(f"{__name__}.{name}")
            if not hasattr(module, "ID") or not hasattr(module, "check"):
                continue
            specs.append(_spec_of(module))
        specs.sort(key=lambda s: (s.order, s.id))
        seen: Dict[str, CheckSpec] = {}
        for s in specs:
            if s.id in seen:
                raise RuntimeError(f"duplicate check id {s.id!r} in {s.module} and {seen[s.id].module}")
            seen[s.id] = s
        _REGISTRY = seen
    return _REGISTRY


def measurement_options(contract) -> Dict[str, float]:
    """{option: value} of every option a check declares in ``MEASUREMENT_OPTIONS``, as the
    contract sets it (the check's declared default without one): the keyword arguments of
    :meth:`~animsmith.core.analysis.ClipAnalysis.measurements`. ``measure`` and the
    measurements of ``lint --format json`` take them, so a published number (the loop-seam
    ratio, the legs' duty factors) is the one the check judges."""
    out: Dict[str, float] = {}
    for spec in registry().values():
        if spec.measurement_options:
            options = contract.check_options(spec.id, spec.defaults())
            for key in spec.measurement_options:
                out[key] = float(options[key])
    return out


def get_check(check_id: str) -> CheckSpec:
    """The spec of ``check_id``; ``AnimsmithError`` naming the closest id when unknown."""
    from animsmith.hints import closest
    from animsmith.errors import AnimsmithError

    specs = registry()
    if check_id not in specs:
        hint = closest(check_id, specs)
        said = f"did you mean '{hint}'?" if hint else f"known: {', '.join(specs)}"
        raise AnimsmithError(f"unknown check '{check_id}' ({said})")
    return specs[check_id]


_SCHEMA: Optional[ContractSchema] = None


def contract_schema() -> ContractSchema:
    """What the checks declare for the contract (cached): every check's ``[checks.<id>]`` keys,
    and each group table's keys gathered from the group checks' ``TABLE_KEYS`` (a check with
    ``ARMED_BY_KEY`` declares the keys of that sub-table)."""
    global _SCHEMA
    if _SCHEMA is None:
        checks: Dict[str, CheckKeys] = {}
        keys: Dict[str, Dict[str, Any]] = {}
        subs: Dict[str, Dict[str, Dict[str, Any]]] = {}
        for s in registry().values():
            checks[s.id] = CheckKeys(options=s.config, group_table=s.group_table, arming_key=s.arming_key)
            if s.group_table is None:
                continue
            into = subs.setdefault(s.group_table, {}).setdefault(s.arming_key, {}) if s.arming_key else keys.setdefault(s.group_table, {})
            for k, opt in s.table_keys.items():
                if k in into and into[k] != opt:
                    raise RuntimeError(f"check module {s.module}: {s.group_table} key {k!r} declared twice, differently")
                into[k] = opt
        _SCHEMA = ContractSchema(
            checks=checks,
            group_tables={t: GroupTable(keys=keys.get(t, {}), sub_tables=subs.get(t, {})) for t in GROUP_TABLES},
        )
    return _SCHEMA


def load_contract(path: Optional[str] = None) -> Contract:
    """The contract at ``path`` (``--config``; else ./animsmith.toml when present, else the
    built-in defaults), validated against every check's declarations (:func:`contract_schema`)."""
    return read_contract(path, contract_schema)


def parse_contract(raw: bytes, path: str = "<config>", base_dir: Optional[str] = None) -> Contract:
    """TOML bytes validated into a contract against every check's declarations; member paths
    are relative to ``base_dir`` (default: the folder of ``path``)."""
    return contract_from_toml(raw, contract_schema, path, base_dir)


def group_table_rows(spec: CheckSpec):
    """(table header, [(key, type, default, range text, doc)]) of the group table a group check
    reads (``clips`` first, unless the check reads a sub-table), or None for other checks."""
    if spec.group_table is None:
        return None
    header = f"[{spec.group_table}.<name>" + (f".{spec.arming_key}]" if spec.arming_key else "]")
    rows = [] if spec.arming_key else [(MEMBERS_KEY, "list", None, "", MEMBERS_DOC)]
    for key, opt in spec.table_keys.items():
        rows.append((key, opt.type, opt.default, option_range(opt), opt.doc))
    return header, rows


# ---------------------------------------------------------------------------
# Documentation generated from the registry
# ---------------------------------------------------------------------------


def _fmt_default(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt_default(v) for v in value) + "]"
    return repr(value) if not isinstance(value, float) else f"{value:g}"


def option_range(opt) -> str:
    parts = []
    if opt.minimum is not None:
        parts.append(f"≥ {opt.minimum:g}")
    if opt.maximum is not None:
        parts.append(f"≤ {opt.maximum:g}")
    if opt.choices:
        parts.append("one of " + ", ".join(f'"{c}"' for c in opt.choices))
    return ", ".join(parts)


def explain(spec: CheckSpec) -> str:
    """Plain-text explanation of one check (``animsmith checks ID``)."""
    lines = [f"{spec.id} ({spec.severity}, {spec.scope} check)", "", spec.doc.strip(), ""]
    lines.append("Needs: " + ("; ".join(spec.needs) if spec.needs else "nothing (always on)"))
    table = group_table_rows(spec)
    if table:
        header, rows = table
        lines += ["", f"Config {header} (arms the check):"]
        for key, kind, default, rng, doc in rows:
            shown = "required" if key == "clips" else ("default none" if default is None else f"default {_fmt_default(default)}")
            lines.append(f"  {key} ({kind}{', ' + rng if rng else ''}; {shown}): {doc}")
    lines += ["", f"Config [checks.{spec.id}]:"]
    lines.append("  enabled (bool; default true): false disables the check.")
    lines.append(
        f'  severity (string; default "{spec.severity}"): error | warning | note | off; rewrites every finding (not an informational note).'
    )
    for key, opt in spec.config.items():
        rng = option_range(opt)
        lines.append(f"  {key} ({opt.type}{', ' + rng if rng else ''}; default {_fmt_default(opt.default)}): {opt.doc}")
    return "\n".join(lines).rstrip() + "\n"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def markdown() -> str:
    """docs/checks.md, generated from the registry (a test fails when the file drifts)."""
    specs = registry()
    out = [
        "# Check reference",
        "",
        "<!-- GENERATED by `python -m animsmith.checks --markdown > docs/checks.md`; do not edit. -->",
        "",
        "Every check `animsmith lint` runs, in catalog order (the order of JSON records",
        "and of text lines with equal sort keys). `animsmith checks` lists them and",
        "`animsmith checks ID` explains one. Every check also accepts",
        "`[checks.<id>] enabled = false` and `severity = \"error\" | \"warning\" | \"note\" | \"off\"`",
        "(a severity override rewrites every finding of the check except the group checks'",
        "informational note that a bare member name is held by several files; coverage gaps",
        "have no severity).",
        "",
        "| id | severity | scope | summary |",
        "|---|---|---|---|",
    ]
    for s in specs.values():
        out.append(f"| [`{s.id}`](#{s.id}) | {s.severity} | {s.scope} | {_cell(s.summary)} |")
    for s in specs.values():
        out += ["", f"## {s.id}", "", f"**Default severity:** {s.severity} · **Scope:** {s.scope}"]
        if s.group_table:
            armed_by = f"{s.group_table}.<name>" + (f".{s.arming_key}" if s.arming_key else "")
            out[-1] += f" · **Armed by:** `[{armed_by}]`"
        if s.armed_by:
            out[-1] += f" · **Armed by:** `[{s.armed_by}]`"
        out += ["", s.summary]
        if s.body:
            out += ["", s.body]
        out += ["", "**Needs:** " + ("; ".join(s.needs) if s.needs else "nothing (always on)")]
        table = group_table_rows(s)
        if table:
            header, rows = table
            out += ["", f"| `{header}` key | type | default | range | meaning |", "|---|---|---|---|---|"]
            for key, kind, default, rng, doc in rows:
                shown = "required" if key == "clips" else ("none" if default is None else f"`{_fmt_default(default)}`")
                out.append(f"| `{key}` | {kind} | {shown} | {rng or '—'} | {_cell(doc)} |")
        if s.config:
            out += ["", f"| `[checks.{s.id}]` key | type | default | range | meaning |", "|---|---|---|---|---|"]
            for key, opt in s.config.items():
                out.append(
                    f"| `{key}` | {opt.type} | `{_fmt_default(opt.default)}` | {option_range(opt) or '—'} | "
                    f"{_cell(opt.doc)} |"
                )
        else:
            out += ["", f"No `[checks.{s.id}]` keys beyond `enabled` and `severity`."]
    return "\n".join(out) + "\n"
