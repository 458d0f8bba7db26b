"""Asset -> GLB bytes, through pygltflib's writer (deterministic output).

Used by the simulator (baking clips), by tests that need files, and by
transforms that build new files. Byte-preserving edits of an *existing* file
live in ``io.patch`` instead.

Layout written:
* one node per bone, in skeleton order (node index = bone index), TRS from the
  rest pose (``matrix`` for bones flagged ``has_matrix``);
* one scene holding the root bones;
* one skin over the joint bones, with inverse bind matrices from the rest pose;
* one animation per clip; identical key-time arrays share one input accessor;
  outputs are float32 (CUBICSPLINE outputs interleave in-tangent, value,
  out-tangent per key as glTF 2.0 requires); ``Clip.extras`` -> animation
  ``extras``.
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Tuple

import numpy as np

from animsmith.model import Asset

GENERATOR = "animsmith"

_FLOAT = 5126


def _model_rest_matrices(asset: Asset) -> np.ndarray:
    sk = asset.skeleton
    out = np.empty((sk.bone_count, 4, 4))
    for b in range(sk.bone_count):
        p = sk.parents[b]
        out[b] = sk.rest_matrix[b] if p < 0 else out[p] @ sk.rest_matrix[b]
    return out


def asset_to_glb(asset: Asset, *, skin: bool = True) -> bytes:
    """Serialise ``asset`` (skeleton + clips) to GLB bytes."""
    import pygltflib as g

    sk = asset.skeleton
    blob = bytearray()
    views: List[g.BufferView] = []
    accessors: List[g.Accessor] = []

    def add_accessor(arr: np.ndarray, type_: str, minmax: bool = False) -> int:
        data = np.ascontiguousarray(arr, dtype=np.float32)
        while len(blob) % 4:
            blob.append(0)
        offset = len(blob)
        raw = data.tobytes()
        blob.extend(raw)
        views.append(g.BufferView(buffer=0, byteOffset=offset, byteLength=len(raw)))
        count = int(data.shape[0])
        acc = g.Accessor(bufferView=len(views) - 1, componentType=_FLOAT, count=count, type=type_)
        if minmax:
            flat = data.reshape(count, -1)
            acc.min = [float(x) for x in flat.min(axis=0)]
            acc.max = [float(x) for x in flat.max(axis=0)]
        accessors.append(acc)
        return len(accessors) - 1

    nodes = []
    for b in range(sk.bone_count):
        node = g.Node(name=sk.names[b])
        kids = [int(c) for c in np.nonzero(sk.parents == b)[0]]
        if kids:
            node.children = kids
        if bool(sk.has_matrix[b]):
            node.matrix = [float(x) for x in sk.rest_matrix[b].T.reshape(-1)]
        else:
            t = sk.rest_translation[b]
            r = sk.rest_rotation[b]
            s = sk.rest_scale[b]
            if np.any(t != 0):
                node.translation = [float(x) for x in t]
            if np.any(r != np.array([0.0, 0.0, 0.0, 1.0])):
                node.rotation = [float(x) for x in r]
            if np.any(s != 1):
                node.scale = [float(x) for x in s]
        nodes.append(node)

    roots = [int(b) for b in np.nonzero(sk.parents < 0)[0]]
    skins = []
    joints = [int(b) for b in np.nonzero(sk.is_joint)[0]]
    if skin and joints:
        model = _model_rest_matrices(asset)
        inv = np.linalg.inv(model[joints])
        # glTF stores matrices column-major.
        ibm = add_accessor(np.transpose(inv, (0, 2, 1)).reshape(len(joints), 16), "MAT4")
        skins.append(g.Skin(joints=joints, inverseBindMatrices=ibm, skeleton=roots[0] if len(roots) == 1 else None))

    animations = []
    for clip in asset.clips:
        time_cache: Dict[bytes, int] = {}
        samplers = []
        channels = []
        for ch in clip.channels:
            times = np.ascontiguousarray(ch.times, dtype=np.float32)
            key = times.tobytes()
            if key not in time_cache:
                time_cache[key] = add_accessor(times, "SCALAR", minmax=True)
            type_ = "VEC4" if ch.path == "rotation" else "VEC3"
            if ch.interpolation == "CUBICSPLINE":
                stacked = np.stack([ch.in_tangents, ch.values, ch.out_tangents], axis=1)
                out = stacked.reshape(-1, ch.width)
            else:
                out = ch.values
            out_acc = add_accessor(out, type_)
            samplers.append(
                g.AnimationSampler(input=time_cache[key], output=out_acc, interpolation=ch.interpolation)
            )
            channels.append(
                g.AnimationChannel(
                    sampler=len(samplers) - 1,
                    target=g.AnimationChannelTarget(node=int(ch.bone), path=ch.path),
                )
            )
        anim = g.Animation(name=clip.name, samplers=samplers, channels=channels)
        if clip.extras is not None:
            anim.extras = clip.extras
        animations.append(anim)

    while len(blob) % 4:
        blob.append(0)
    gltf = g.GLTF2(
        asset=g.Asset(version="2.0", generator=GENERATOR),
        scene=0,
        scenes=[g.Scene(nodes=roots)],
        nodes=nodes,
        skins=skins,
        animations=animations,
        accessors=accessors,
        bufferViews=views,
        buffers=[g.Buffer(byteLength=len(blob))] if blob else [],
    )
    if asset.extras is not None:
        gltf.asset.extras = asset.extras
    gltf.set_binary_blob(bytes(blob))
    return b"".join(gltf.save_to_bytes())


def _current_umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def published_mode(path: str) -> int:
    """Permission bits a file published at ``path`` gets.

    An existing regular file keeps its permission bits (``mode & 0o777``);
    otherwise ``0o666 & ~umask``, what ``open(path, "w")`` would create
    (the temp file from ``mkstemp`` is 0600).
    """
    import stat

    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode) & 0o777
    except OSError:
        pass
    return 0o666 & ~_current_umask()


def publish_path(path: str) -> str:
    """Where publishing at ``path`` writes: the file a symlink points to (the link
    stays a link), else ``path`` itself.

    ``OSError`` when ``path`` is empty, or names (through a link) something that
    exists and is not a regular file: a folder, a FIFO or a device such as
    ``/dev/stdout`` is never replaced by a rename.
    """
    import errno
    import stat

    if not path:
        raise OSError(errno.ENOENT, "empty output path")
    target = os.path.realpath(path) if os.path.islink(path) else path
    try:
        st = os.stat(target)
    except OSError:
        return target  # nothing there yet (or unreachable: the write says why)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EEXIST, "exists and is not a regular file")
    return target


def same_file(a: str, b: str) -> bool:
    """``a`` and ``b`` name the same file: one inode when both exist (links, hard links and
    relative spellings resolved), else the same resolved path."""
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    except (OSError, ValueError):
        pass
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def _temp_name(directory: str, kind: str = "") -> str:
    """A fresh hidden name in ``directory`` for a temp file (``.animsmith-<kind><16 hex>.tmp``):
    chosen before anything is created there, so cleanup always knows what to remove."""
    import secrets

    return os.path.join(directory, f".animsmith-{kind}{secrets.token_hex(8)}.tmp")


def stage_bytes(path: str, data: bytes) -> Tuple[str, str]:
    """Write ``data`` to a new temp file beside ``path`` (the path a publish writes:
    :func:`publish_path`), with :func:`published_mode` permissions, flushed and fsynced;
    ``(temp path, final path)``. On any failure the temp file is removed and the error
    raised. :func:`publish_bytes` (and ``collection``'s publish-all-or-none) rename it."""
    path = publish_path(path)
    directory = os.path.dirname(os.path.abspath(path)) or "."
    mode = published_mode(path)
    tmp = None
    try:  # the name is known before the file exists: a signal at any moment still removes it
        fd = -1
        while fd < 0:
            tmp = _temp_name(directory)
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
            except FileExistsError:
                continue
        with os.fdopen(fd, "wb") as fh:
            if hasattr(os, "fchmod"):  # not on Windows before Python 3.13
                os.fchmod(fh.fileno(), mode)
            else:
                os.chmod(tmp, mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        if tmp is not None:
            remove_quietly(tmp)
        raise
    return tmp, path


def remove_quietly(path: str) -> None:
    """Remove ``path`` if it can be removed; never raises. A read-only file (Windows refuses
    to remove one; a temp file staged to replace a read-only output is one) is made
    writable first."""
    try:
        os.unlink(path)
    except PermissionError:
        try:
            import stat

            os.chmod(path, stat.S_IWRITE | stat.S_IREAD)
            os.unlink(path)
        except OSError:
            pass
    except OSError:
        pass


def keep_old_bytes(path: str) -> Optional[str]:
    """A second name for the file at ``path`` (a hard link beside it, else a copy), so a
    multi-file publish can put it back; None when nothing is at ``path``."""
    import shutil

    if not os.path.lexists(path):
        return None
    directory = os.path.dirname(os.path.abspath(path)) or "."
    while True:  # no placeholder file is made first (one a signal could leave behind)
        backup = _temp_name(directory, "old-")
        try:
            os.link(path, backup)
            return backup
        except FileExistsError:
            continue
        except OSError:  # a file system without hard links
            try:
                shutil.copy2(path, backup)
            except BaseException:  # a full disk part-way: no partial copy left behind
                remove_quietly(backup)
                raise
            return backup


def sync_directory(folder: str) -> None:
    """fsync ``folder`` (so a rename into it survives a power cut), where the OS allows it."""
    try:
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def publish_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: temp file beside it, fsync, rename.

    A reader never sees a half-written file; on any failure (an exception,
    SIGINT, or SIGTERM under the CLI) the temp file is removed and an existing
    ``path`` keeps its bytes. The published file has :func:`published_mode`
    permissions (an existing file's mode, else ``0o666 & ~umask``), not the
    temp file's 0600. A symlink at ``path`` is followed (:func:`publish_path`).
    """
    tmp = None
    try:
        tmp, path = stage_bytes(path, data)
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            remove_quietly(tmp)
        raise
    sync_directory(os.path.dirname(os.path.abspath(path)) or ".")


def write_glb(asset: Asset, path: str, *, skin: bool = True) -> None:
    """Serialise ``asset`` and publish it atomically at ``path``."""
    publish_bytes(path, asset_to_glb(asset, skin=skin))
