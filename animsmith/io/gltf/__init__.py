"""Read ``.glb`` / ``.gltf`` files into an :class:`~animsmith.model.Asset`.

This package is the loader's public face; its modules each do one job:
``document`` (the JSON: depth limit, strict parsing, header, cache keys),
``resources`` (buffers: the BIN chunk, ``data:`` URIs, external files and the
decode budget), ``skeleton`` (nodes -> :class:`~animsmith.model.Skeleton`),
``accessors`` (bounds-checked accessor decoding), ``clips`` (animations ->
:class:`~animsmith.model.Clip`, a bulk path and a channel-by-channel path) and
``fields`` (the small validators they share).

The read path never goes through pygltflib's decoder: the GLB container is
split by :mod:`animsmith.io.glb`, the JSON is parsed with orjson when it is
importable (else :func:`json.loads`), and accessors are decoded as numpy views
on the buffer bytes. Every index, length, offset, stride and count is checked
with Python integers *before* anything is allocated.

Public API::

    load_asset(path, *, strict=True) -> Asset
    load_asset_bytes(data, path, *, base_dir=None, strict=True) -> Asset

Every failure raises :class:`~animsmith.errors.LoadError` with a one-line
reason naming the file.

Resource rules (hostile input):

* decoded data: the accessors a file makes us decode may hold at most
  ``max(1 Mi, 16 x input bytes)`` components in total (input bytes = the file
  plus its external buffers); zero-filled and sparse accessors without a
  buffer view count like any other. A 1 KB file therefore never decodes more
  than 1 Mi float32 (4 MB); accessors backed by a buffer view are in any case
  bounded by that view's real length, so real files stay far below the cap.
* external buffers (``.gltf``): relative child paths only; at most 64 MiB per
  file and 256 MiB in total; ``data:`` URIs are decoded in place.

Key times: ``strict=True`` rejects non-finite or non-increasing key times;
``strict=False`` keeps them (``lint`` reports them as findings). Non-finite
values are always kept.

Decoded arrays may be read-only views on the file's bytes; an accessor used by
several samplers decodes once and every channel gets the same array object.
"""

from __future__ import annotations

import os
import stat
from typing import Any, Optional

import numpy as np

from animsmith.errors import LoadError, unreadable_reason
from animsmith.io.glb import is_glb, split_glb
from animsmith.io.gltf.accessors import Accessors
from animsmith.io.gltf.clips import build_clips, check_grid_budget, check_key_budget
from animsmith.io.gltf.document import check_header, parse_json
from animsmith.io.gltf.resources import Budget, external_resource_files, lfs_pointer_reason, load_buffers
from animsmith.io.gltf.skeleton import shared_skeleton
from animsmith.model import Asset

__all__ = ["load_asset", "load_asset_bytes", "read_file_bytes", "external_resource_files", "MAX_FILE_BYTES", "EXTENSIONS"]

MAX_FILE_BYTES = 1024 * 1024 * 1024
EXTENSIONS = (".glb", ".gltf")


def load_asset(path: Any, *, strict: bool = True) -> Asset:
    """Read the file at ``path`` (``.glb``/``.gltf``; GLB sniffed by magic)."""
    p = os.fspath(path)
    data = read_file_bytes(p, sniff=True)
    return load_asset_bytes(data, p, strict=strict)


def read_file_bytes(path: Any, *, limit: Optional[int] = None, sniff: bool = False) -> bytes:
    """The bytes of the regular file ``path``, or ``LoadError`` naming it.

    Refused without reading: missing/unreadable, a directory, a FIFO or device
    (reading would block or never end), more than ``limit`` bytes (default
    ``MAX_FILE_BYTES``); ``sniff``: neither a .glb/.gltf name nor ``glTF``
    magic. Refused after reading: a size different from what ``stat`` saw
    (the file changed while being read).
    """
    p = os.fspath(path)
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        st = os.stat(p)
    except OSError as exc:
        raise LoadError(unreadable_reason(exc), p) from None
    except ValueError:  # a NUL in the path (a contract's member string): no file has that name
        raise LoadError("cannot read file: the path holds a NUL character", p) from None
    if stat.S_ISDIR(st.st_mode):
        raise LoadError("is a directory, not a .glb/.gltf file", p)
    if not stat.S_ISREG(st.st_mode):
        raise LoadError("not a regular file", p)
    if st.st_size > limit:
        raise LoadError(f"file is {st.st_size} bytes; the limit is {limit}", p)
    try:
        with open(p, "rb") as fh:
            if sniff and os.path.splitext(p)[1].lower() not in EXTENSIONS and fh.read(4) != b"glTF":
                raise LoadError("unsupported input (expected .glb or .gltf)", p)
            fh.seek(0)
            # read(n) allocates n bytes up front: ask for the size stat saw (+1)
            data = fh.read(st.st_size + 1)
    except OSError as exc:
        raise LoadError(unreadable_reason(exc), p) from None
    if len(data) != st.st_size:  # grew or shrank between stat and read
        raise LoadError(f"file changed while being read ({st.st_size} bytes at open, read {len(data)})", p)
    return data


def load_asset_bytes(
    data: bytes, path: Any, *, base_dir: Optional[str] = None, strict: bool = True
) -> Asset:
    """Parse ``data`` (the bytes of the file ``path``) into an :class:`Asset`.

    ``base_dir`` is where external ``.bin`` files are looked up (default: the
    folder of ``path``).
    """
    p = os.fspath(path)
    try:
        with np.errstate(all="ignore"):  # hostile numbers must not print warnings
            return _load(bytes(data), p, base_dir, strict)
    except LoadError as exc:
        raise exc.with_path(p)
    except RecursionError:
        raise LoadError("glTF JSON is nested too deeply", p) from None
    except MemoryError:
        raise LoadError("out of memory while decoding", p) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # Last line of defence: malformed input must never become a traceback.
        reason = " ".join(str(exc).split())[:200]
        raise LoadError(f"malformed glTF ({type(exc).__name__}: {reason})", p) from None


def _load(data: bytes, path: str, base_dir: Optional[str], strict: bool) -> Asset:
    lfs = lfs_pointer_reason(data)
    if lfs is not None:
        raise LoadError(lfs)
    ext = os.path.splitext(path)[1].lower()
    bin_chunk: Optional[bytes] = None
    if is_glb(data) or ext == ".glb":
        container = "glb"
        json_bytes, bin_chunk = split_glb(data)
    elif ext == ".gltf":
        container = "gltf"
        json_bytes = data
    else:
        raise LoadError("unsupported input (expected .glb or .gltf)")
    doc = parse_json(json_bytes)
    check_header(doc)
    if base_dir is None:
        base_dir = os.path.dirname(os.path.abspath(path))
    budget = Budget(len(data))
    buffers, lengths = load_buffers(doc, bin_chunk, container, base_dir, budget)
    skeleton = shared_skeleton(doc)
    accessors = Accessors(doc, buffers, lengths, budget)
    clips = build_clips(doc, skeleton, accessors, strict)
    check_grid_budget(clips, skeleton.bone_count, len(data) + budget.external_bytes)
    check_key_budget(clips, len(data) + budget.external_bytes)
    asset_info = doc.get("asset")
    return Asset(
        skeleton=skeleton,
        clips=clips,
        path=path,
        gltf=doc,
        bin_chunk=bin_chunk,
        buffers=[b if b is not None else b"" for b in buffers],
        container=container,
        extras=asset_info.get("extras") if type(asset_info) is dict else None,
    )
