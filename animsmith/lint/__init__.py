"""The lint run: files -> clip checks -> group checks -> :class:`LintResult`.

One :func:`run` serves ``animsmith lint`` (with ``--shard``), the CI sharding and
``animsmith report``. The package, one module per job:

* :mod:`~animsmith.lint.discovery`: files, globs and folders -> the ordered file list;
* :mod:`~animsmith.lint.plan`: what every lint process does, decided once from the
  contract (:class:`Plan`), and which checks a run runs;
* :mod:`~animsmith.lint.engine`: one file: ``load_asset(path, strict=False)`` (lenient,
  so ``nan`` / ``time-monotonic`` can report what a strict load would refuse), the rig
  resolved once for the skeleton (``[rig] profile`` + ``roles``, in metres), one
  :class:`~animsmith.core.analysis.ClipAnalysis` per clip shared by all clip checks in
  catalog order, the file checks, and a small summary of each clip a declared group
  names; the asset is then released, so a run never holds more than one file's clips
  per process;
* :mod:`~animsmith.lint.pool`: ``jobs > 1`` runs files in this process and ``jobs - 1``
  workers (forked on Linux, spawned elsewhere) with the same output order as ``jobs = 1``;
* :mod:`~animsmith.lint.members` and :mod:`~animsmith.lint.groups`: every declared group
  judged once with all its members, even across files;
* :mod:`~animsmith.lint.shard`: ``--shard I/N``;
* :mod:`~animsmith.lint.results`: :class:`FileResult`, :class:`LintResult` and the
  summary counts (:func:`summary_of`);
* :mod:`~animsmith.lint.runner`: :func:`run`, the one assembly of a run.
"""

from animsmith.lint.discovery import expand_paths, path_order_key
from animsmith.lint.groups import validate_check_ids
from animsmith.lint.plan import Plan, make_plan
from animsmith.lint.pool import effective_jobs, pool_start_method
from animsmith.lint.results import FileResult, LintResult, summary_of
from animsmith.lint.runner import run

__all__ = [
    "FileResult",
    "LintResult",
    "Plan",
    "effective_jobs",
    "expand_paths",
    "make_plan",
    "path_order_key",
    "pool_start_method",
    "run",
    "summary_of",
    "validate_check_ids",
]
