"""The lint run: files -> clip checks -> group checks -> :class:`LintResult`, assembled in
one place for ``animsmith lint`` (with ``--shard``), the CI sharding and ``animsmith
report``."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from animsmith.lint.discovery import forget_file_keys
from animsmith.lint.engine import lint_file
from animsmith.lint.groups import run_group_checks
from animsmith.lint.plan import Plan, make_plan, ran_checks
from animsmith.lint.pool import effective_jobs, iter_outcomes
from animsmith.lint.results import LintResult
from animsmith.lint.shard import declares_groups, run_setup, shard_paths, shard_record


def run(
    paths: Sequence[str],
    contract,
    *,
    select: Optional[Sequence[str]] = None,
    jobs: Any = 1,
    with_measurements: bool = True,
    shard: Optional[Tuple[int, int]] = None,
    allow: Sequence[str] = (),
    on_file: Optional[Callable[[str], None]] = None,
    on_asset: Optional[Callable[[str, Any, Any], None]] = None,
    on_clip: Optional[Callable[[str, Any, Any, Optional[Dict[str, Any]]], None]] = None,
) -> LintResult:
    """Lint ``paths`` (already expanded: see :func:`~animsmith.lint.discovery.expand_paths`)
    against ``contract``.

    * ``select``: only these checks; ``jobs``: lint processes (this one included), or
      ``"auto"`` (:func:`~animsmith.lint.pool.effective_jobs`);
    * ``shard=(I, N)``: the result holds shard I's files only, with a ``shard`` record
      (:mod:`animsmith.lint.shard`; ``allow``, the ``--allow`` ids, goes into its setup
      fingerprint); declared groups are still judged with all their members;
    * ``on_file(path)`` after each file (a progress bar);
    * ``on_asset(path, asset, roles)`` and ``on_clip(path, clip, analysis, measured)`` let a
      caller (the report) keep views of the same judged analyses; with either, the files
      are linted in this process, one after another.

    Then every declared group is judged ONCE with all its members, even across files
    (:func:`~animsmith.lint.members.resolve_members`), and its output is attached to the
    file of its first member that was linted (else the first file).
    """
    forget_file_keys()  # identities are this run's (files renamed since are other files)
    paths = list(paths)
    mine = set(paths) if shard is None else set(shard_paths(paths, *shard))
    plan = make_plan(contract, select, with_measurements)
    grouped = declares_groups(contract)
    todo = [p for p in paths if p in mine or grouped]
    keep = [p in mine for p in todo]
    outcomes: List[Any] = [None] * len(todo)
    members_only = replace(plan, clip_checks=(), with_measurements=False)
    for wanted, bplan in ((True, plan), (False, members_only)):
        at = [i for i, k in enumerate(keep) if k is wanted]
        batch = [todo[i] for i in at]
        views = (on_asset, on_clip) if wanted else (None, None)
        for k, outcome in enumerate(_outcomes(batch, bplan, jobs, *views)):
            outcomes[at[k]] = outcome
            if on_file is not None:
                on_file(batch[k])
    files = [o.result for o in outcomes]
    summaries = [o.summaries for o in outcomes]
    group_members: Dict[str, list] = {}
    if files and any(f.error is None for f in files):
        group_members = run_group_checks(files, summaries, plan, select)
    # a member file outside the shard that failed to load is that shard's error, not ours
    kept = [f for f, k in zip(files, keep) if k]
    record = None if shard is None else shard_record(paths, *shard, setup=run_setup(contract, select, allow, paths))
    return LintResult(
        files=kept, config_path=contract.path, group_members=group_members, shard=record, checks=ran_checks(contract, select)
    )


def _outcomes(batch: List[str], plan: Plan, jobs: Any, on_asset, on_clip):
    """The outcome of each file of ``batch``, in order: from the worker pool, or (a caller
    keeping views of the analyses) in this process."""
    if on_asset is None and on_clip is None:
        yield from iter_outcomes(batch, plan, effective_jobs(jobs, len(batch)))
        return
    for path in batch:
        yield lint_file(
            path,
            plan,
            on_asset=None if on_asset is None else functools.partial(on_asset, path),
            on_clip=None if on_clip is None else functools.partial(on_clip, path),
        )
