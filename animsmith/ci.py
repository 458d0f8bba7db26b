"""CI helpers of ``lint``: ``--shard I/N``, a progress callback, and ``merge-results``.

**Sharding.** The expanded file list is ranked by its normalised path
(``os.path.normpath``, ``/`` separators, sorted as strings); file of rank r
belongs to shard ``r mod N + 1``. The partition is deterministic, independent
of argument order and balanced to within one file. A shard lints only its
files, but declared groups are judged exactly as an unsharded run would:
when the contract declares groups, the other files are loaded for their
member clips only (no clip checks), every group is judged with all its
members and its output is kept only by the shard owning the file the group
attaches to. So the union of the shards' findings equals the unsharded run's.

**Merging.** :func:`merge_lint_docs` concatenates the ``files`` of several
``lint --format json`` documents in normalised-path order (a path present in
two documents is an error), recomputes the summary and so gives the summary and exit code of
linting all files together.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from animsmith.errors import AnimsmithError


def parse_shard(text: str) -> Tuple[int, int]:
    """``"I/N"`` -> (I, N) with 1 <= I <= N; ``AnimsmithError`` otherwise."""
    parts = str(text).split("/")
    try:
        if len(parts) != 2:
            raise ValueError
        index, count = int(parts[0]), int(parts[1])
    except ValueError:
        raise AnimsmithError(f"--shard: expected I/N (e.g. 1/4), got '{text}'") from None
    if count < 1 or not 1 <= index <= count:
        raise AnimsmithError(f"--shard: I/N needs 1 <= I <= N, got '{text}'")
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
):
    """``lint.run_lint`` with an optional shard and a per-file callback (progress).

    Same result as ``run_lint(paths, ...)`` when ``shard`` is None; with a
    shard, the result holds the shard's files only (module docstring).
    """
    from dataclasses import replace

    from animsmith.lint import LintResult, _iter_outcomes, effective_jobs, make_plan, run_group_checks

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
    return LintResult(files=kept, config_path=contract.path, group_members=group_members)


def merge_lint_docs(docs: Sequence[Tuple[str, Dict[str, Any]]]) -> Dict[str, Any]:
    """One lint JSON document from several (``(source name, document)`` pairs)."""
    from animsmith.render.json import SCHEMA_VERSION

    files: List[Dict[str, Any]] = []
    seen: Dict[str, str] = {}
    config = None
    for source, doc in docs:
        if not isinstance(doc, dict) or doc.get("command") != "lint" or not isinstance(doc.get("files"), list):
            raise AnimsmithError("not an `animsmith lint --format json` result", path=source)
        if doc.get("schema_version") != SCHEMA_VERSION:
            raise AnimsmithError(
                f"schema_version {doc.get('schema_version')!r} is not supported (expected {SCHEMA_VERSION})", path=source
            )
        if config is None:
            config = doc.get("config")
        for fr in doc["files"]:
            if not isinstance(fr, dict) or not isinstance(fr.get("path"), str):
                raise AnimsmithError("a files[] entry has no path", path=source)
            key = shard_key(fr["path"])
            if key in seen:
                raise AnimsmithError(f"file '{fr['path']}' is also in {seen[key]} (shards must not overlap)", path=source)
            seen[key] = source
            files.append(fr)
    files.sort(key=lambda fr: shard_key(fr["path"]))
    return {
        "schema_version": SCHEMA_VERSION,
        "command": "lint",
        "config": config,
        "files": files,
        "summary": summary_of(files),
    }


def summary_of(files: Sequence[Dict[str, Any]]) -> Dict[str, int]:
    """Summary counts of JSON file entries (same keys as ``LintResult.summary``)."""
    key = {"error": "errors", "warning": "warnings", "note": "notes"}
    counts = {"errors": 0, "warnings": 0, "notes": 0, "coverage_gaps": 0, "files": len(files)}
    for fr in files:
        for f in fr.get("findings", []):
            counts[key[f["severity"]]] += 1
        counts["coverage_gaps"] += len(fr.get("coverage_gaps", []))
    return counts


def doc_exit_code(doc: Dict[str, Any], deny_warnings: bool = False) -> int:
    """1 when the document holds an error (or a warning with ``deny_warnings``), else 0."""
    s = doc["summary"]
    return 1 if s["errors"] or (deny_warnings and s["warnings"]) else 0
