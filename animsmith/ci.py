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

**Completeness.** A shard's JSON carries ``"shard": {"index", "count",
"files", "run"}`` (:func:`shard_record`): its place, the number of files of the
whole run and a fingerprint of their list. The merge refuses shards of
different runs, a shard given twice, a missing shard (its findings would be
lost: a shard that stopped with exit 2 writes no JSON) and sharded beside
unsharded results.
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


def shard_record(paths: Sequence[str], index: int, count: int) -> Dict[str, Any]:
    """What a shard's JSON says of its run: ``index``/``count``, ``files`` (all files of the
    run, every shard) and ``run``, the first 16 hex digits of the SHA-256 of their sorted
    normalised paths joined by newlines (the same in every shard of one run)."""
    import hashlib

    listing = "\n".join(sorted(shard_key(p) for p in paths)).encode("utf-8", "surrogateescape")
    return {"index": index, "count": count, "files": len(paths), "run": hashlib.sha256(listing).hexdigest()[:16]}


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
    record = None if shard is None else shard_record(paths, *shard)
    return LintResult(files=kept, config_path=contract.path, group_members=group_members, shard=record)


def _shard_fields(source: str, record: Any) -> Tuple[int, int, int, str]:
    """(index, count, files, run) of a JSON ``shard`` record (``AnimsmithError`` when malformed)."""
    ok = isinstance(record, dict)
    vals = [record.get(k) if ok else None for k in ("index", "count", "files")]
    run = record.get("run") if ok else None
    if not (all(type(v) is int for v in vals) and isinstance(run, str) and 1 <= vals[0] <= vals[1] and vals[2] >= 0):
        raise AnimsmithError("malformed \"shard\" record (expected index, count, files, run)", path=source)
    return vals[0], vals[1], vals[2], run


def check_shards(docs: Sequence[Tuple[str, Dict[str, Any]]]) -> Optional[int]:
    """For shard results (``lint --shard``): that they are every shard of one run, once each.

    Returns the run's file count (None when no document is a shard). Raises
    ``AnimsmithError`` for shards of different runs (other files or shard
    count), a shard given twice, a missing shard, or a mix of shard and
    unsharded results.
    """
    sharded = [(source, _shard_fields(source, doc["shard"])) for source, doc in docs if "shard" in doc]
    if not sharded:
        return None
    first_source, (_, count, total, run) = sharded[0]
    for source, doc in docs:
        if "shard" not in doc:
            raise AnimsmithError(f"not a shard result, merged with shards ({first_source} is one)", path=source)
    by_index: Dict[int, str] = {}
    for source, (index, n, files, r) in sharded:
        if (n, files, r) != (count, total, run):
            raise AnimsmithError(
                f"shard {index}/{n} of another run than {first_source} (shard count, files or file list differ)", path=source
            )
        if index in by_index:
            raise AnimsmithError(f"shard {index}/{n} given twice (also {by_index[index]})", path=source)
        by_index[index] = source
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise AnimsmithError(
            f"shard {', '.join(missing)} missing: the merged result would leave out its files and findings "
            "(a shard that stopped with exit 2 writes no result)"
        )
    return total


def merge_lint_docs(docs: Sequence[Tuple[str, Dict[str, Any]]]) -> Dict[str, Any]:
    """One lint JSON document from several (``(source name, document)`` pairs); shard results
    must be every shard of one run (:func:`check_shards`)."""
    from animsmith.render.json import SCHEMA_VERSION

    for source, doc in docs:
        if not isinstance(doc, dict) or doc.get("command") != "lint" or not isinstance(doc.get("files"), list):
            raise AnimsmithError("not an `animsmith lint --format json` result", path=source)
        if doc.get("schema_version") != SCHEMA_VERSION:
            raise AnimsmithError(
                f"schema_version {doc.get('schema_version')!r} is not supported (expected {SCHEMA_VERSION})", path=source
            )
    total = check_shards(docs)
    files: List[Dict[str, Any]] = []
    seen: Dict[str, str] = {}
    config = None
    for source, doc in docs:
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
    if total is not None and total != len(files):
        raise AnimsmithError(f"the shards hold {len(files)} file(s), their run had {total}")
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
