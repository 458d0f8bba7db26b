"""CI helpers of ``lint``: ``--shard I/N`` and a progress callback.

**Sharding.** The expanded file list is ranked by its normalised path
(``os.path.normpath``, ``/`` separators, sorted as strings); file of rank r
belongs to shard ``r mod N + 1``. The partition is deterministic, independent
of argument order and balanced to within one file. A shard lints only its
files, but declared groups are judged exactly as an unsharded run would:
when the contract declares groups, the other files are loaded for their
member clips only (no clip checks), every group is judged with all its
members and its output is kept only by the shard owning the file the group
attaches to. So the union of the shards' findings equals the unsharded run's.

**Merging** of shard results is :mod:`animsmith.ci.merge` (``merge-results``).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from animsmith.errors import AnimsmithError


#: most shards of one run (more than one per file of any real pack)
MAX_SHARDS = 1_000_000


def parse_shard(text: str) -> Tuple[int, int]:
    """``"I/N"`` (ASCII digits only) -> (I, N) with 1 <= I <= N <= :data:`MAX_SHARDS`;
    ``AnimsmithError`` otherwise."""
    import re

    m = re.fullmatch(r"([0-9]{1,7})/([0-9]{1,7})", str(text), flags=re.ASCII)
    if m is None:
        raise AnimsmithError(f"--shard: expected I/N (e.g. 1/4), got '{text}'")
    index, count = int(m.group(1)), int(m.group(2))
    if count < 1 or not 1 <= index <= count or count > MAX_SHARDS:
        raise AnimsmithError(f"--shard: I/N needs 1 <= I <= N <= {MAX_SHARDS:,}, got '{text}'")
    return index, count


def shard_key(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def shard_of(paths: Sequence[str], count: int) -> List[int]:
    """The 1-based shard of each path: rank of its normalised path, mod ``count``, + 1."""
    order = sorted(range(len(paths)), key=lambda i: (shard_key(paths[i]), i))
    shard = [0] * len(paths)
    for rank, i in enumerate(order):
        shard[i] = rank % count + 1
    return shard


def shard_record(paths: Sequence[str], index: int, count: int, setup: str = "") -> Dict[str, Any]:
    """What a shard's JSON says of its run: ``index``/``count``, ``files`` (all files of the
    run, every shard), ``run``, the first 16 hex digits of the SHA-256 of their sorted
    normalised paths joined by newlines, and ``setup``, the same of what else decides the
    result (:func:`run_setup`): both the same in every shard of one run."""
    import hashlib

    listing = "\n".join(sorted(shard_key(p) for p in paths)).encode("utf-8", "surrogateescape")
    return {
        "index": index, "count": count, "files": len(paths), "run": hashlib.sha256(listing).hexdigest()[:16],
        "setup": hashlib.sha256(setup.encode("utf-8", "surrogateescape")).hexdigest()[:16],
    }


def run_setup(contract, select: Optional[Sequence[str]] = None, allow: Sequence[str] = (),
              paths: Optional[Sequence[str]] = None) -> str:
    """What besides the file list decides a run's findings: the animsmith version, the
    contract's bytes (:attr:`~animsmith.config.Contract.digest`), ``--select`` and ``--allow``
    (as sets: order and repeats do not matter), and — when a group check runs — the
    order of ``paths``: a bare member name resolves to the first file holding it, and a group's
    findings go to its first member's file, so shards given the files in other orders could
    judge a group twice or not at all."""
    from animsmith import __version__

    chosen = ",".join(sorted(set(select))) if select is not None else "*"
    lines = [__version__, getattr(contract, "digest", "") or "defaults", chosen, ",".join(sorted(set(allow)))]
    if paths is not None and _runs_group_checks(contract, select):
        lines.append("order:" + "\x00".join(shard_key(p) for p in paths))
    return "\n".join(lines)


def _runs_group_checks(contract, select: Optional[Sequence[str]]) -> bool:
    """A group check runs (selected, enabled, armed by a declared group): only then does the
    order of the files decide findings. ``--allow`` hides findings but the checks still run."""
    from animsmith.checks import registry
    from animsmith.lint import ran_checks

    specs = registry()
    return any(specs[c].scope == "group" for c in ran_checks(contract, select) if c in specs)


def shard_paths(paths: Sequence[str], index: int, count: int) -> List[str]:
    """The files of shard ``index`` of ``count`` (in their original order)."""
    shards = shard_of(paths, count)
    return [p for p, s in zip(paths, shards) if s == index]


def _has_groups(contract) -> bool:
    return any(getattr(contract, t, None) for t in ("gait_groups", "sync_groups"))


def run_lint_ci(
    paths: Sequence[str],
    contract,
    *,
    select: Optional[Sequence[str]] = None,
    jobs: Any = 1,
    with_measurements: bool = True,
    shard: Optional[Tuple[int, int]] = None,
    on_file: Optional[Callable[[str], None]] = None,
    allow: Sequence[str] = (),
):
    """``lint.run_lint`` with an optional shard and a per-file callback (progress).

    Same result as ``run_lint(paths, ...)`` when ``shard`` is None; with a
    shard, the result holds the shard's files only (module docstring).
    """
    from dataclasses import replace

    from animsmith.lint import LintResult, _iter_outcomes, effective_jobs, make_plan, ran_checks, run_group_checks

    paths = list(paths)
    mine = set(paths) if shard is None else set(shard_paths(paths, *shard))
    plan = make_plan(contract, select, with_measurements)
    members_only = replace(plan, clip_checks=(), with_measurements=False)
    grouped = _has_groups(contract)
    todo = [p for p in paths if p in mine or grouped]
    files, summaries, keep = [], [], []
    mine_todo = [p for p in todo if p in mine]
    other_todo = [p for p in todo if p not in mine]
    outcomes: Dict[str, Any] = {}
    for batch, bplan in ((mine_todo, plan), (other_todo, members_only)):
        for path, outcome in zip(batch, _iter_outcomes(batch, bplan, effective_jobs(jobs, len(batch)))):
            outcomes[path] = outcome
            if on_file is not None:
                on_file(path)
    for p in todo:
        files.append(outcomes[p].result)
        summaries.append(outcomes[p].summaries)
        keep.append(p in mine)
    group_members: Dict[str, list] = {}
    if files and any(f.error is None for f in files):
        group_members = run_group_checks(files, summaries, plan, select)
    kept = [f for f, k in zip(files, keep) if k]
    # a member file outside the shard that failed to load is that shard's error, not ours
    record = None if shard is None else shard_record(paths, *shard, setup=run_setup(contract, select, allow, paths))
    return LintResult(
        files=kept, config_path=contract.path, group_members=group_members, shard=record, checks=ran_checks(contract, select)
    )


def summary_of(files: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """Summary counts of JSON file entries (same keys as ``LintResult.summary``)."""
    key = {"error": "errors", "warning": "warnings", "note": "notes"}
    counts: Dict[str, Any] = {"errors": 0, "warnings": 0, "notes": 0, "coverage_gaps": 0, "files": len(files)}
    facets = {"available": 0, "required_unavailable": 0}
    for fr in files:
        for f in fr.get("findings", []):
            counts[key[f["severity"]]] += 1
        counts["coverage_gaps"] += len(fr.get("coverage_gaps", []))
        for facet in fr.get("prediction_facets") or ():
            facets[facet["state"]] += 1
    counts["prediction_facets"] = facets
    return counts
