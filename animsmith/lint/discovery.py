"""Which files a run lints: files, globs and folders -> an ordered, de-duplicated list.

A file is known by its identity (:func:`file_key`: the real file, whatever path names
it), so one file given twice, or by two spellings, is linted once.
"""

from __future__ import annotations

import functools
import glob as globmod
import os
from typing import List, Sequence, Set

from animsmith.errors import NO_SUCH_FILE, AnimsmithError

ASSET_SUFFIXES = (".glb", ".gltf")


def file_key(path: str) -> str:
    """:func:`animsmith.io.paths.file_identity`, memoised: a run looks each file up to five
    times (dedup, member plan, per-file wanted set, group index, group members).
    Relative paths are keyed with the working directory they resolve against."""
    return _file_key_in(path if os.path.isabs(path) else os.path.join(os.getcwd(), path))


@functools.lru_cache(maxsize=1 << 16)
def _file_key_in(path: str) -> str:
    from animsmith.io.paths import file_identity

    return file_identity(path)


def forget_file_keys() -> None:
    """Drop the memoised identities: a file renamed or replaced since an earlier run in
    this process is another file now."""
    _file_key_in.cache_clear()


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
    forget_file_keys()  # a file renamed or replaced since an earlier run in this process
    out: List[str] = []
    seen: Set[str] = set()
    empty: List[str] = []
    missing: List[str] = []
    missing_seen: Set[str] = set()

    def add(p: str) -> None:
        key = file_key(p)
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


def path_order_key(path: str) -> str:
    """Sort key of a path that orders the same on every OS: folder separators read as
    ``/`` (Windows' ``\\`` sorts after digits and capital letters, ``/`` before them)."""
    return path.replace(os.sep, "/") if os.sep != "/" else path

