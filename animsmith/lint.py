"""The lint runner: files -> clip checks -> group checks -> :class:`LintResult`.

Per file (``jobs > 1`` runs files in this process and ``jobs - 1`` workers —
forked on Linux, spawned elsewhere — with the same output order as ``jobs = 1``):

1. ``load_asset(path, strict=False)`` (lenient, so ``nan`` /
   ``time-monotonic`` can report what a strict load would refuse);
2. roles resolved once for the skeleton (``[rig] profile`` + ``roles``);
3. one :class:`~animsmith.core.analysis.ClipAnalysis` per clip shared by all
   clip checks, in catalog order;
4. a small summary dict (the clip's measurements + its L−R signal) kept for
   each clip a declared group names; the asset is then released, so a run
   never holds more than one file's clips per process.

Then every declared group is judged ONCE with all its members, even across
files (:func:`resolve_members`), and its output is attached to the file of
its first member that was linted (else the first file).
"""

from __future__ import annotations

import functools
import glob as globmod
import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from animsmith.errors import NO_SUCH_FILE, AnimsmithError, LoadError
from animsmith.results import SEVERITY_RANK, CoverageGap, Finding

ASSET_SUFFIXES = (".glb", ".gltf")


def _file_key(path: str) -> str:
    """:func:`animsmith.io.paths.file_identity`, memoised: a run looks each file up to five
    times (dedup, member plan, per-file wanted set, group index, group members).
    Relative paths are keyed with the working directory they resolve against."""
    return _file_key_in(path if os.path.isabs(path) else os.path.join(os.getcwd(), path))


@functools.lru_cache(maxsize=1 << 16)
def _file_key_in(path: str) -> str:
    from animsmith.io.paths import file_identity

    return file_identity(path)


# ---------------------------------------------------------------------------
# Result
# ---------------------------------------------------------------------------


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
    #: ``lint --shard I/N``: {"index", "count", "files", "run"} (``ci.shard_record``), else None
    shard: Optional[Dict[str, Any]] = None
    #: the ids of the checks that ran (:func:`ran_checks`), in registry order; None: unknown
    checks: Optional[List[str]] = None

    def all_findings(self) -> Iterable[Finding]:
        for f in self.files:
            yield from f.findings

    def summary(self) -> Dict[str, Any]:
        counts: Dict[str, Any] = {"errors": 0, "warnings": 0, "notes": 0, "coverage_gaps": 0, "files": len(self.files)}
        key = {"error": "errors", "warning": "warnings", "note": "notes"}
        facets = {"available": 0, "required_unavailable": 0}
        for f in self.files:
            for finding in f.findings:
                counts[key[finding.severity]] += 1
            counts["coverage_gaps"] += len(f.coverage_gaps)
            for facet in f.prediction_facets:
                facets[facet.state] += 1
        counts["prediction_facets"] = facets
        return counts

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


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def expand_paths(paths: Sequence[str]) -> List[str]:
    """Files, globs and folders (recursively ``*.glb``/``*.gltf``) -> file list.

    A folder is searched recursively except in its hidden subfolders (``.git``, ``.cache``,
    names starting with ``.``) and ``node_modules`` (:data:`SKIPPED_DIRS`); a folder or
    file named on the command line is always used.

    Order: arguments in order; a folder's files and a glob's matches sorted;
    duplicates (same real path) kept once. Raises ``AnimsmithError`` for a
    path that does not exist (one line each) and for folders and globs that
    hold no ``.glb``/``.gltf`` file (all of them named in one line: a typo in a
    CI glob must not pass silently), every such argument in one error.
    """
    _file_key_in.cache_clear()  # a file renamed or replaced since an earlier run in this process
    out: List[str] = []
    seen: Set[str] = set()
    empty: List[str] = []
    missing: List[str] = []
    missing_seen: Set[str] = set()

    def add(p: str) -> None:
        key = _file_key(p)
        if key not in seen:
            seen.add(key)
            out.append(p)

    for arg in paths:
        found: List[str] = []
        if os.path.isdir(arg):
            found = _folder_assets(arg)
        elif os.path.exists(arg):
            found = [arg]
        elif globmod.has_magic(arg):
            for p in sorted(globmod.glob(arg, recursive=True), key=path_order_key):
                if os.path.isdir(p):  # a matched folder without assets adds nothing
                    found += _folder_assets(p)
                elif p.lower().endswith(ASSET_SUFFIXES):
                    found.append(p)
        else:
            if arg not in missing_seen:  # named twice: one line
                missing_seen.add(arg)
                missing.append(arg)
            continue
        if not found:
            empty.append(arg)
        for p in found:
            add(p)
    problems = [
        AnimsmithError(NO_SUCH_FILE, arg).message if arg else "an empty path argument ('')" for arg in missing
    ]
    if empty or (not out and not missing):
        problems.append("no .glb/.gltf files found in " + ", ".join(empty or paths))
    if problems:
        raise AnimsmithError(problems[-1], more=problems[:-1])
    return out


#: folder names a recursive search does not enter (besides hidden ones, ``.*``)
SKIPPED_DIRS = ("node_modules",)


def _skipped_dir(name: str) -> bool:
    """A subfolder a recursive search skips: hidden (``.git``, ``.venv``...) or ``node_modules``."""
    return name.startswith(".") or name in SKIPPED_DIRS


def _folder_assets(folder: str) -> List[str]:
    """The ``.glb``/``.gltf`` files under ``folder`` (recursively, skipped subfolders left
    out), in :func:`path_order_key` order."""
    found: List[str] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _skipped_dir(d))
        found += [os.path.join(root, name) for name in files if name.lower().endswith(ASSET_SUFFIXES)]
    return sorted(found, key=path_order_key)


# ---------------------------------------------------------------------------
# Plan: what each worker needs
# ---------------------------------------------------------------------------


@dataclass
class Plan:
    """Everything a worker needs (picklable): contract, checks, wanted members."""

    contract: Any
    clip_checks: Tuple[str, ...]
    with_measurements: bool
    bare_names: frozenset
    file_members: Dict[str, frozenset]  # file key (_file_key) -> clip names ('' = the single clip)
    need_endpoint_mode: bool = True  # only sync groups read the loop endpoint mode
    seam_floor_m: float = 0.02  # [checks.loop-seam] min_stride_step_m, for the measurements (as `measure`)
    file_checks: Tuple[str, ...] = ()  # checks run once per file (SCOPE = "file"), when armed
    contact_height_m: float = 0.03  # [checks.foot-slide] contact_height_m, for the legs' duty factors (as `measure`)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_clip_table", None)  # per-process cache (see _clip_check_table)
        return state


def make_plan(contract, selected: Optional[Sequence[str]] = None, with_measurements: bool = True) -> Plan:
    from animsmith.checks import registry
    from animsmith.checks.foot_slide import contact_height_of
    from animsmith.checks.loop_seam import stride_floor_m

    specs = registry()
    chosen = [
        cid
        for cid, s in specs.items()
        if s.scope == "clip" and (selected is None or cid in selected) and contract.check_enabled(cid)
    ]
    file_checks = [
        cid
        for cid, s in specs.items()
        if s.scope == "file" and (selected is None or cid in selected) and contract.check_enabled(cid)
        and (s.armed_by is None or getattr(contract, s.armed_by, None) is not None)
    ]
    bare: Set[str] = set()
    files: Dict[str, Set[str]] = {}
    # only the tables a selected, enabled group check reads need member summaries
    tables = {
        s.group_table
        for cid, s in specs.items()
        if s.scope == "group" and (selected is None or cid in selected) and contract.check_enabled(cid)
    }
    for table in sorted(tables):
        for group in getattr(contract, table).values():
            for ref in group.members:
                if ref.file is None:
                    bare.add(ref.clip)
                else:
                    files.setdefault(_file_key(ref.file), set()).add(ref.clip or "")
    return Plan(
        contract=contract,
        clip_checks=tuple(chosen),
        with_measurements=with_measurements,
        bare_names=frozenset(bare),
        file_members={k: frozenset(v) for k, v in files.items()},
        need_endpoint_mode=bool(contract.sync_groups) and "sync_groups" in tables,
        seam_floor_m=stride_floor_m(contract),
        file_checks=tuple(file_checks),
        contact_height_m=contact_height_of(contract),
    )


# ---------------------------------------------------------------------------
# One file
# ---------------------------------------------------------------------------


def _override(item, severity: Optional[str]):
    """``[checks.<id>] severity`` applied to a finding (informational notes keep theirs)."""
    if severity is not None and isinstance(item, Finding) and not item.informational:
        item.severity = severity
    return item


def _internal_gap(check_id: str, clip: str, exc: BaseException) -> CoverageGap:
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


def _clip_check_table(plan: Plan) -> List[Tuple[str, Any, Optional[str], str, Dict[str, Any]]]:
    """``(id, spec, severity override, severity, options)`` per selected clip check.

    Computed once per plan and process (it depends only on the contract), not
    once per clip; kept out of the pickled plan (specs hold module functions).
    """
    table = plan.__dict__.get("_clip_table")
    if table is None:
        from animsmith.checks import registry

        specs = registry()
        contract = plan.contract
        table = []
        for cid in plan.clip_checks:
            spec = specs[cid]
            override = contract.settings(cid).severity
            table.append((cid, spec, override, override or spec.severity, contract.check_options(cid, spec.defaults())))
        plan.__dict__["_clip_table"] = table
    return table


def run_clip_checks(path: str, asset, analysis, roles, plan: Plan) -> Tuple[List[Finding], List[CoverageGap]]:
    """Every selected, enabled clip check on one clip (catalog order); ``analysis`` None:
    the file has no animations, and only the checks declaring ``RUNS_WITHOUT_CLIPS`` run."""
    from animsmith.checks.context import ClipContext

    contract = plan.contract
    clip = analysis.clip if analysis is not None else None
    expect = contract.expect_for(clip.name) if clip is not None else None
    findings: List[Finding] = []
    gaps: List[CoverageGap] = []
    for cid, spec, override, severity, options in _clip_check_table(plan):
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
                item = _override(item, override)
                (findings if isinstance(item, Finding) else gaps).append(item)
        except Exception as exc:  # noqa: BLE001 - a check bug must not hide the rest
            gaps.append(_internal_gap(cid, clip.name if clip is not None else None, exc))
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
                    findings.append(_override(item, override))
                else:
                    gaps.append(item)
        except Exception as exc:  # noqa: BLE001 - a check bug must not hide the rest
            gaps.append(_internal_gap(cid, None, exc))
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
    return summary


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
    real = _file_key(path)
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
            measured = _safe_measurements(analysis, plan.seam_floor_m, plan.contact_height_m)
            result.measurements["clips"][clip.name] = measured
        if _wanted(plan, real, clip.name, count):
            summaries[clip.name] = member_summary(
                analysis, measured, contract.expect_for(clip.name), plan.need_endpoint_mode
            )
        if on_clip is not None:
            on_clip(clip, analysis, measured)
        del analysis
    if plan.file_checks:
        findings, gaps, result.prediction_facets = run_file_checks(path, asset, roles, plan)
        result.findings += findings
        result.coverage_gaps += gaps
    return FileOutcome(result, summaries)


def _safe_measurements(analysis, seam_floor_m: float, contact_height_m: float = 0.03) -> Dict[str, Any]:
    """``analysis.measurements()`` with the contract's loop-seam stride floor, as ``measure``
    gives it; a metric that raises leaves the clip's reason instead."""
    try:
        return analysis.measurements(min_stride_step_m=seam_floor_m, contact_height_m=contact_height_m)
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("ANIMSMITH_DEBUG"):
            raise
        return {"name": analysis.clip.name, "measurements_unavailable": f"{type(exc).__name__}: {exc}"}


# ---------------------------------------------------------------------------
# Workers
# ---------------------------------------------------------------------------

def chunk_bounds(n_files: int, processes: int, largest: int = 32) -> List[Tuple[int, int]]:
    """``[(lo, hi)]`` file ranges for ``processes`` lint processes, in order.

    Guided sizes: each chunk is ceil(files left / (4 x processes)), clamped
    to 1..``largest``: large chunks early (few messages), single files at the
    end, so no process waits long for another's last chunk.
    """
    out: List[Tuple[int, int]] = []
    lo = 0
    while lo < n_files:
        size = max(1, min(largest, -(-(n_files - lo) // (4 * processes))))
        out.append((lo, min(n_files, lo + size)))
        lo += size
    return out


def _claim(counter, timeout: Optional[float] = None) -> Optional[int]:
    """The next unclaimed chunk number from the shared ``counter`` (None: lock not had in ``timeout``)."""
    lock = counter.get_lock()
    if not (lock.acquire() if timeout is None else lock.acquire(True, timeout)):
        return None
    try:
        i = counter.value
        counter.value = i + 1
    finally:
        lock.release()
    return i


def _error_info(exc: BaseException) -> Tuple[str, str, Optional[bytes]]:
    """(type name, message, pickled exception or None) of a worker's exception."""
    import pickle

    try:
        blob: Optional[bytes] = pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - an exception that cannot be pickled
        blob = None
    return type(exc).__name__, str(exc), blob


def _rebuilt_error(info: Tuple[str, str, Optional[bytes]]) -> BaseException:
    """The worker's exception again (a RuntimeError naming it when it cannot be rebuilt here)."""
    import pickle

    name, message, blob = info
    if blob is not None:
        try:
            exc = pickle.loads(blob)
            if isinstance(exc, BaseException):
                return exc
        except Exception:  # noqa: BLE001 - e.g. an __init__ that needs other arguments
            pass
    return RuntimeError(f"{name}: {message}")


def _lint_chunk(paths: Sequence[str], bounds: Tuple[int, int], plan: Plan) -> Tuple[Optional[List[FileOutcome]], Optional[Exception]]:
    """(outcomes of ``paths[lo:hi]``, None), or (None, the exception) when linting one of them raised."""
    lo, hi = bounds
    try:
        return [lint_file(p, plan) for p in paths[lo:hi]], None
    except Exception as exc:  # noqa: BLE001 - the caller raises it in file order
        return None, exc


def _chunk_folder() -> Optional[str]:
    """A new temporary folder for chunk results, or None when none can be made."""
    import tempfile

    try:
        return tempfile.mkdtemp(prefix="animsmith-lint-")
    except OSError:
        return None


def _chunk_path(folder: str, i: int) -> str:
    return os.path.join(folder, f"chunk-{i}.pickle")


def _parent_alive(method: str, parent_pid: int) -> bool:
    """Whether the process that started this worker is still running.

    fork: the parent pid changes when the parent dies (the worker is adopted).
    spawn/forkserver: the worker's parent in the process tree is not the main
    process (forkserver) or ``getppid`` keeps a dead parent's id (Windows), so
    multiprocessing's sentinel on the main process decides. (Not used for fork:
    later-forked siblings hold copies of that sentinel and keep it "alive".)
    """
    if method == "fork":
        return os.getppid() == parent_pid
    import multiprocessing

    parent = multiprocessing.parent_process()
    return parent is None or parent.is_alive()


def _worker_main(
    plan: Plan, paths: List[str], chunks: List[Tuple[int, int]], counter, folder: str, announce, method: str, parent_pid: int
) -> None:
    """A worker process: claim chunks until none are left (or one fails, or the parent is gone).

    Each chunk's ``(outcomes, error info)`` is written to a file in ``folder``
    first; only then is the chunk number put on ``announce``. Messages are a few
    bytes, written to the pipe in one atomic write, so a worker killed at any
    moment never leaves a half-sent message for the parent to wait on. A worker
    whose parent died (killed without cleaning up) stops and removes its files.
    """
    import pickle
    import signal

    from animsmith.runtime import keep_freed_heap

    keep_freed_heap()  # a spawned worker does not inherit the CLI's setting (a forked one does)
    try:  # a forked worker inherits the CLI's SIGTERM handler; the parent's terminate() means: stop now
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    except (ValueError, OSError, AttributeError):
        pass
    written: List[str] = []
    orphaned = False
    try:
        while True:
            i = None
            while i is None:  # never block for good on a lock whose holder died
                if not _parent_alive(method, parent_pid):
                    orphaned = True
                    return
                i = _claim(counter, timeout=1.0)
            if i >= len(chunks):
                break
            outcomes, exc = _lint_chunk(paths, chunks[i], plan)
            item = (outcomes, None if exc is None else _error_info(exc))  # raised again by the parent, in file order
            written.append(_chunk_path(folder, i))
            with open(written[-1], "wb") as fh:
                pickle.dump(item, fh, protocol=pickle.HIGHEST_PROTOCOL)
            announce.put(i)
            if item[1] is not None:
                break
    except BaseException:  # noqa: BLE001 - Ctrl-C, a full disk...: whatever is not announced is linted by the parent
        pass
    finally:
        orphaned = orphaned or not _parent_alive(method, parent_pid)
        if orphaned:  # nobody will read or remove the files
            for path in written:
                _remove_quietly(path)
            try:
                os.rmdir(folder)
            except OSError:
                pass
        announce.close()
        if orphaned:
            announce.cancel_join_thread()  # nobody reads the pipe any more: never wait on it
        else:
            announce.join_thread()  # every announcement is in the pipe before this process ends


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def pool_start_method() -> str:
    """``fork`` on Linux (workers inherit the imported modules and the plan: no
    re-import, no pickled plan), else ``spawn`` (macOS and Windows, where forking
    a process that has loaded system frameworks is unsafe).
    ``ANIMSMITH_START_METHOD`` overrides it (tests run both)."""
    import multiprocessing
    import sys

    wanted = os.environ.get("ANIMSMITH_START_METHOD")
    methods = multiprocessing.get_all_start_methods()
    if wanted in methods:
        return wanted
    return "fork" if sys.platform.startswith("linux") and "fork" in methods else "spawn"


#: ``--jobs auto`` never uses more processes than this (each holds ~45 MB)
AUTO_MAX_WORKERS = 8
#: ... nor more than one per this many files (a forked worker costs a few ms
#: to start, a spawned one ~0.3 s of imports)
AUTO_FILES_PER_WORKER = {"fork": 64, "spawn": 256, "forkserver": 256}


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def jobs_cap() -> int:
    """The most lint processes ``--jobs N`` starts: 4 per usable CPU, at least AUTO_MAX_WORKERS."""
    return max(AUTO_MAX_WORKERS, 4 * usable_cpus())


def effective_jobs(jobs: Any, n_files: int) -> int:
    """Lint processes (this one included) for ``jobs`` (an int >= 1, or ``"auto"``) over ``n_files``.

    ``auto`` = min(usable CPUs, AUTO_MAX_WORKERS, n_files // files-per-worker),
    at least 1: small runs stay in one process, where starting workers would
    cost more than it saves. An explicit N is capped at :func:`jobs_cap` (a typo
    such as ``-j 1000`` must not start a thousand processes on a small machine).
    """
    if jobs != "auto":
        return max(1, min(int(jobs), jobs_cap()))
    if n_files < 2 * min(AUTO_FILES_PER_WORKER.values()):
        return 1  # decided without importing multiprocessing (~5 ms)
    per_worker = AUTO_FILES_PER_WORKER.get(pool_start_method(), 256)
    return max(1, min(usable_cpus(), AUTO_MAX_WORKERS, n_files // per_worker))


def _import_lint_modules() -> None:
    """Import what :func:`lint_file` imports lazily (the loader, analysis, numpy.fft...)."""
    import json  # noqa: F401 - the loader's parser when orjson is not installed

    import numpy.fft  # noqa: F401 - used by the gait metrics

    from animsmith.checks.context import ClipContext  # noqa: F401
    from animsmith.core.analysis import ClipAnalysis  # noqa: F401
    from animsmith.core.contacts import foot_slide  # noqa: F401 - the foot-slide check's
    from animsmith.core.roles import resolve_roles  # noqa: F401
    from animsmith.core.units import units_report  # noqa: F401 - the rig-units check's
    from animsmith.core.legs import resolve_contract_rig  # noqa: F401
    from animsmith.io.gltf import load_asset  # noqa: F401


def _iter_outcomes(paths: Sequence[str], plan: Plan, jobs: int):
    """One :class:`FileOutcome` per path, in path order, from ``jobs`` processes.

    ``jobs > 1``: this process and ``jobs - 1`` workers (:func:`_worker_main`)
    claim chunks (:func:`chunk_bounds`) from one shared counter, so the lint
    work is spread evenly and this process is never idle waiting. Outcomes are
    yielded in path order as soon as all earlier ones are in; an exception
    from linting a file is raised where ``jobs = 1`` would raise it. A worker
    that dies (killed, out of memory) costs time, not results: whatever it did
    not deliver is linted here.
    """
    paths = list(paths)
    # one process: one job, one file, or no writable temporary folder for the workers' results
    folder = _chunk_folder() if jobs > 1 and len(paths) > 1 else None
    if folder is None:
        for p in paths:
            yield lint_file(p, plan)
        return
    import gc
    import multiprocessing
    import pickle
    import queue
    import shutil

    method = pool_start_method()
    mp = multiprocessing.get_context(method)
    chunks = chunk_bounds(len(paths), jobs)
    n_workers = min(jobs - 1, len(chunks) - 1)
    started: List[Any] = []
    queues: List[Any] = []
    # chunk -> (outcomes, None) | (None, exception) | (None, worker error info)
    done: Dict[int, Tuple[Optional[List[FileOutcome]], Any]] = {}
    next_out = 0

    def drain(wait: float = 0.0) -> None:
        for q in queues:
            try:
                while True:
                    i = q.get(timeout=wait) if wait else q.get_nowait()
                    if next_out <= i < len(chunks) and i not in done:
                        path = _chunk_path(folder, i)
                        try:
                            with open(path, "rb") as fh:
                                done[i] = pickle.load(fh)
                        except Exception:  # noqa: BLE001 - unreadable: linted here instead
                            pass
                        _remove_quietly(path)
            except queue.Empty:
                pass

    def ready():
        nonlocal next_out
        while next_out in done:
            outcomes, error = done.pop(next_out)
            next_out += 1
            if error is not None:
                raise error if isinstance(error, BaseException) else _rebuilt_error(error)
            yield from outcomes

    def dead() -> bool:
        return any(w.exitcode not in (None, 0) for w in started)

    def none_left() -> bool:
        return all(w.exitcode is not None for w in started)

    # fork: move the parent's objects out of the collector's view while the
    # workers run, so their collections do not write to (and so copy) the
    # pages they share with the parent; unfrozen again afterwards
    frozen = method == "fork"
    try:
        counter = mp.Value("q", 0)
        queues.extend(mp.Queue() for _ in range(n_workers))
        workers = [
            mp.Process(
                target=_worker_main,
                args=(plan, paths, chunks, counter, folder, q, method, os.getpid()),
                daemon=True,
                name=f"animsmith-lint-{k + 1}",
            )
            for k, q in enumerate(queues)
        ]
        if frozen:
            _import_lint_modules()  # once here, not once per process after the fork
            gc.freeze()
        for w in workers:
            w.start()
            started.append(w)
        while True:
            i = _claim(counter, timeout=1.0)
            if i is None:  # the lock is held by a worker that died (or exited) holding it
                if dead() or none_left():
                    break
                continue
            if i >= len(chunks):
                break
            done[i] = _lint_chunk(paths, chunks[i], plan)
            drain()
            yield from ready()
        # every chunk is claimed (or claiming broke down): collect the rest
        while len(done) + next_out < len(chunks):
            drain(wait=0.02)
            if dead() or none_left():
                drain()
                break
        for i in range(next_out, len(chunks)):
            if i not in done:  # lost with a worker: lint it here
                done[i] = _lint_chunk(paths, chunks[i], plan)
        yield from ready()
    finally:
        try:
            for w in started:
                if w.is_alive():
                    w.terminate()
                w.join()
            for q in queues:
                q.close()
                q.cancel_join_thread()
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            if frozen:
                gc.unfreeze()


# ---------------------------------------------------------------------------
# Groups
# ---------------------------------------------------------------------------


def _load_member_file(path: str, wanted: Set[str], plan: Plan) -> Tuple[Optional[str], List[str], Dict[str, Dict[str, Any]]]:
    """(load error, clip names, summaries) for a member file that was not linted."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.io.gltf import load_asset

    try:
        asset = load_asset(path, strict=False)
    except LoadError as exc:
        return exc.reason, [], {}
    contract = plan.contract
    asset, roles = rig_in_metres(asset, contract)
    names = [c.name for c in asset.clips]
    out: Dict[str, Dict[str, Any]] = {}
    for clip in asset.clips:
        if clip.name in wanted or ("" in wanted and len(names) == 1):
            analysis = ClipAnalysis(asset, clip, roles)
            out[clip.name] = member_summary(
                analysis, None, contract.expect_for(clip.name), plan.need_endpoint_mode
            )
    return None, names, out


_REAL_INDEX_KEY = "\0real_index"  # never a real path (NUL), so it cannot clash with a member file


def _real_index(files: List[FileResult], cache: Dict[str, Any]) -> Dict[str, int]:
    """{file key: index} of the linted files, built once per run (not once per group)."""
    hit = cache.get(_REAL_INDEX_KEY)
    if hit is None or hit[0] is not files or hit[1] != len(files):
        index: Dict[str, int] = {}
        for i, f in enumerate(files):
            index[_file_key(f.path)] = i  # last wins, as before
        hit = (files, len(files), index)
        cache[_REAL_INDEX_KEY] = hit
    return hit[2]


_CLIP_INDEX_KEY = "\0clip_index"  # never a real path (NUL)


def _clip_index(files: List[FileResult], cache: Dict[str, Any]) -> Dict[str, List[int]]:
    """{clip name: indices of the linted files (loaded, in order) holding it}, built once per run."""
    hit = cache.get(_CLIP_INDEX_KEY)
    if hit is None or hit[0] is not files or hit[1] != len(files):
        index: Dict[str, List[int]] = {}
        for i, f in enumerate(files):
            if f.error is None:
                for name in dict.fromkeys(f.clip_names):
                    index.setdefault(name, []).append(i)
        hit = (files, len(files), index)
        cache[_CLIP_INDEX_KEY] = hit
    return hit[2]


def _member_display(path: str, config_path: Optional[str]) -> str:
    """How a member file that was not linted is named: relative to the working directory
    when the contract was given by a relative path, else as resolved (also when no
    relative path exists: another drive or a network share on Windows)."""
    if os.path.isabs(config_path or ""):
        return path
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def path_order_key(path: str) -> str:
    """Sort key of a path that orders the same on every OS: folder separators read as
    ``/`` (Windows' ``\\`` sorts after digits and capital letters, ``/`` before them)."""
    return path.replace(os.sep, "/") if os.sep != "/" else path


def resolve_members(group, files: List[FileResult], summaries: List[Dict[str, Dict[str, Any]]], plan: Plan, extra_cache: Dict[str, Any]):
    """[Member] for a group's declared members, and the index of the file the group attaches to.

    * ``"clip"``: the first linted file (in order) holding a clip of that name;
    * ``"file.glb"`` / ``"file.glb#clip"``: that file (config-relative), from the
      run when it was linted, else loaded just for the group.

    A member listed twice, or resolving to a clip an earlier member already named
    (``walk``, ``packs/walk.glb`` and ``./packs/walk.glb#walk`` are one clip: the same
    real file and clip name), is that member again and counts once: every group check
    and the report see each member once.
    """
    from animsmith.checks.context import Member
    from animsmith.config import did_you_mean

    real_index = _real_index(files, extra_cache)
    members: List[Member] = []
    attach: Optional[int] = None
    found_clips: Set[Tuple[str, str]] = set()
    labels: Set[str] = set()

    def first_time(real: str, clip_name: str) -> bool:
        key = (real, clip_name)
        if key in found_clips:
            return False
        found_clips.add(key)
        return True

    def hint(clip_name: str, names) -> str:
        # not another member of this group: in a run of only some files (a pre-commit
        # hook), a member missing from the run is not a typo of its neighbour
        return did_you_mean(clip_name, set(names) - {r.clip for r in group.members})

    for ref in group.members:
        if ref.label in labels:  # listed twice
            continue
        labels.add(ref.label)
        if ref.file is None:
            index = _clip_index(files, extra_cache)
            hits = index.get(ref.clip, [])
            if not hits:
                members.append(Member(ref.label, reason=f"no clip named '{ref.clip}' in the linted file(s){hint(ref.clip, index)}"))
                continue
            hit = hits[0]
            attach = hit if attach is None else attach
            if not first_time(_file_key(files[hit].path), ref.clip):
                continue
            others = tuple(files[i].path for i in hits[1:])
            members.append(Member(ref.label, files[hit].path, ref.clip, summaries[hit].get(ref.clip), also_in=others))
            continue
        real = _file_key(ref.file)
        if real in real_index:
            i = real_index[real]
            fr = files[i]
            error, names, sums, shown = fr.error, fr.clip_names, summaries[i], fr.path
            if error is None:
                attach = i if attach is None else attach
        else:
            if real not in extra_cache:
                extra_cache[real] = _load_member_file(ref.file, set(plan.file_members.get(real, ())), plan)
            error, names, sums = extra_cache[real]
            shown = _member_display(ref.file, plan.contract.path)
        if error is not None:
            members.append(Member(ref.label, shown, ref.clip, reason=f"cannot read member file: {error}"))
            continue
        if ref.clip is None:
            if len(names) != 1:
                members.append(
                    Member(ref.label, shown, None, reason=(
                        "the file has no animations" if not names
                        else f"file has {len(names)} clips; name one as '{ref.label.partition('#')[0]}#<clip>'"
                    ))
                )
                continue
            clip_name = names[0]
        else:
            clip_name = ref.clip
            if clip_name not in names:
                members.append(Member(ref.label, shown, clip_name, reason=f"no clip named '{clip_name}' in {shown}{hint(clip_name, names)}"))
                continue
        if not first_time(real, clip_name):
            continue
        members.append(Member(ref.label, shown, clip_name, sums.get(clip_name)))
    return members, (attach if attach is not None else 0)


def run_group_checks(files: List[FileResult], summaries, plan: Plan, selected: Optional[Sequence[str]]) -> Dict[str, list]:
    """Judge every declared group once; findings/gaps/records go to the group's file."""
    from animsmith.checks import registry
    from animsmith.checks.context import GroupContext, GroupRecord

    contract = plan.contract
    specs = [
        s
        for s in registry().values()
        if s.scope == "group" and (selected is None or s.id in selected) and contract.check_enabled(s.id)
    ]
    extra_cache: Dict[str, Any] = {}
    resolved: Dict[Tuple[str, str], Tuple[list, int]] = {}
    group_members: Dict[str, list] = {}
    for spec in specs:
        table = getattr(contract, spec.group_table)
        override = contract.settings(spec.id).severity
        for name in sorted(table):
            group = table[name]
            key = (spec.group_table, name)
            if key not in resolved:
                resolved[key] = resolve_members(group, files, summaries, plan, extra_cache)
            members, attach = resolved[key]
            group_members.setdefault(spec.group_table, {})[name] = members
            ctx = GroupContext(
                check_id=spec.id,
                severity=override or spec.severity,
                group_name=name,
                group=group,
                members=members,
                options=contract.check_options(spec.id, spec.defaults()),
                contract=contract,
            )
            target = files[attach]
            try:
                for item in spec.run(ctx) or ():
                    if isinstance(item, GroupRecord):
                        # a check may publish several records for one group (gait-group: phase, then travel)
                        target.measurements.setdefault("groups", {}).setdefault(name, {}).update(item.data)
                    elif isinstance(item, Finding):
                        target.findings.append(_override(item, override))
                    else:
                        target.coverage_gaps.append(item)
            except Exception as exc:  # noqa: BLE001
                target.coverage_gaps.append(_internal_gap(spec.id, name, exc))
    return group_members


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def validate_check_ids(ids: Sequence[str], flag: str) -> List[str]:
    """Each id must be a registered check (``AnimsmithError``: one line per unknown id, naming the closest)."""
    from animsmith.checks import registry
    from animsmith.config import closest

    specs = registry()
    if not ids:
        raise AnimsmithError(f"{flag}: no check id given")
    bad = []
    for cid in ids:
        if cid not in specs:
            hint = closest(cid, specs)
            bad.append(f"{flag}: unknown check '{cid}'" + (f" (did you mean '{hint}'?)" if hint else ""))
    if bad:
        raise AnimsmithError(bad[-1], more=bad[:-1])
    return list(ids)


def run_lint(
    paths: Sequence[str],
    contract,
    *,
    select: Optional[Sequence[str]] = None,
    jobs: Any = 1,
    with_measurements: bool = True,
) -> LintResult:
    """Lint ``paths`` (already expanded: see :func:`expand_paths`) against ``contract``.

    ``jobs``: lint processes (this one included), or ``"auto"`` (:func:`effective_jobs`).
    """
    _file_key_in.cache_clear()  # identities are this run's (files renamed since are other files)
    plan = make_plan(contract, select, with_measurements)
    files: List[FileResult] = []
    summaries: List[Dict[str, Dict[str, Any]]] = []
    paths = list(paths)
    for outcome in _iter_outcomes(paths, plan, effective_jobs(jobs, len(paths))):
        files.append(outcome.result)
        summaries.append(outcome.summaries)
    group_members: Dict[str, list] = {}
    if files and any(f.error is None for f in files):
        group_members = run_group_checks(files, summaries, plan, select)
    return LintResult(files=files, config_path=contract.path, group_members=group_members, checks=ran_checks(contract, select))


def ran_checks(contract, selected: Optional[Sequence[str]] = None) -> List[str]:
    """Ids of the checks a run with ``contract`` runs, in registry order: selected (or
    all), enabled, and a group check only when a declared group arms it (its group
    table, and for ``time-complement`` a ``time_complement`` table in one of them)."""
    from animsmith.checks import registry

    def armed(spec) -> bool:
        if spec.armed_by is not None and getattr(contract, spec.armed_by, None) is None:
            return False
        if spec.group_table is None:
            return True
        groups = getattr(contract, spec.group_table, None) or {}
        if spec.arming_key is not None:
            return any(getattr(g, spec.arming_key, None) is not None for g in groups.values())
        return bool(groups)

    return [
        spec.id
        for spec in registry().values()
        if (selected is None or spec.id in selected) and contract.check_enabled(spec.id) and armed(spec)
    ]
