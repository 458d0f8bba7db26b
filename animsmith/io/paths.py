"""Which spellings name one file."""

from __future__ import annotations

import os


def file_identity(path: str) -> str:
    """A key equal for every spelling of one file: ``"\\0<device>:<inode>"`` when the file
    exists (so symlinks, hard links, ``./`` forms and, on a case-insensitive volume,
    ``Walk.glb`` beside ``walk.glb`` agree), else its resolved path (nothing is there yet:
    an output). A file system that reports no inode numbers (0) falls back to the
    resolved path too, and so does Windows (see below). The NUL prefix keeps the two
    kinds of key apart."""
    if os.name == "nt":
        # Windows' realpath already resolves the case on disk, and before Python 3.12 its
        # inode numbers can repeat on ReFS volumes: the resolved path is the identity there
        return os.path.normcase(os.path.realpath(path))
    try:
        st = os.stat(path)
    except ValueError:  # an embedded NUL: no such file; the loader names the problem
        return os.path.abspath(path)
    except OSError:
        return os.path.realpath(path)
    if not st.st_ino:
        return os.path.realpath(path)
    return f"\0{st.st_dev}:{st.st_ino}"
