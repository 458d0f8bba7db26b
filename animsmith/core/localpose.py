"""Local poses over frames x bones: rest TRS overwritten by the sampled channels.

Every bone starts from its rest TRS; each channel overwrites its component with
the sampled value (absolute local values, not offsets); when two channels target
the same (bone, path) the later one in the clip wins.

Channels are sampled in groups that share one key-time array, interpolation and
component width (one search / gather / blend per group, :mod:`core.sampling`).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Dict, List, Optional, Tuple

import numpy as np

from animsmith.core.sampling import normalize_quat, sample_component_major, segment_index
from animsmith.memo import memo
from animsmith.model import PATH_WIDTH, Clip, Skeleton

TRS_PATHS = ("translation", "rotation", "scale")


def winner_map(skeleton: Skeleton, clip: Clip) -> Dict[Tuple[int, str], object]:
    """{(bone, path): channel}: the last valid channel in clip order decides; invalid targets dropped."""
    bones = skeleton.bone_count
    return {
        (ch.bone, ch.path): ch
        for ch in clip.channels
        if ch.path in PATH_WIDTH and 0 <= ch.bone < bones and len(ch.times)
    }


def _winning_channels(skeleton: Skeleton, clip: Clip) -> List:
    """Channels that decide a (bone, path): the last one in clip order; invalid targets dropped."""
    return list(winner_map(skeleton, clip).values())


_BONE = attrgetter("bone")
_PATH = attrgetter("path")


def key_time_bytes(times: np.ndarray, cache: Dict[int, bytes]) -> bytes:
    """The float32 bytes of a key-time array, computed once per array (``cache`` by id)."""
    kb = cache.get(id(times))
    if kb is None:
        kb = cache[id(times)] = np.asarray(times, dtype=np.float32).tobytes()
    return kb


def _channel_groups(channels, key_cache: Optional[Dict[int, bytes]] = None) -> List[List]:
    """Group channels by (interpolation, rotation?, key-time bytes) for batched sampling."""
    groups: Dict[tuple, List] = {}
    cache = {} if key_cache is None else key_cache
    for ch in channels:
        kb = cache.get(id(ch.times))  # key_time_bytes, inlined: one lookup per channel
        if kb is None:
            kb = key_time_bytes(ch.times, cache)
        groups.setdefault((ch.interpolation, ch.path == "rotation", kb), []).append(ch)
    return list(groups.values())


# (key-time bytes, query-time bytes) -> segment_index(...): pure function of its
# inputs, shared by every clip with the same key times and grid (read-only arrays).
_SEGMENTS: Dict[Tuple[bytes, bytes], tuple] = {}
_SEGMENTS_MAX = 512


def _cached_segments(times_f32: np.ndarray, key_bytes: bytes, times_s: np.ndarray, times_bytes: bytes) -> tuple:
    """``segment_index(times_f32, times_s)``, memoised on the two arrays' bytes (K >= 2)."""
    return memo(_SEGMENTS, _SEGMENTS_MAX, (key_bytes, times_bytes), lambda: _read_only_arrays(segment_index(times_f32, times_s)))


def _read_only_arrays(arrays: tuple) -> tuple:
    for a in arrays:
        a.setflags(write=False)
    return arrays


def sample_group(group: List, times_s: np.ndarray, seg=None) -> np.ndarray:
    """Component-major (C, n, T) samples of channels sharing key times and interpolation.

    Caller holds an error state ignoring invalid/divide/overflow.
    """
    first = group[0]
    values = first.values[None] if len(group) == 1 else np.array([ch.values for ch in group])
    it = ot = None
    if first.interpolation == "CUBICSPLINE":
        zeros = np.zeros(first.values.shape, dtype=np.float32)
        it = np.array([zeros if ch.in_tangents is None else ch.in_tangents for ch in group]).transpose(2, 0, 1)
        ot = np.array([zeros if ch.out_tangents is None else ch.out_tangents for ch in group]).transpose(2, 0, 1)
    return sample_component_major(
        first.times, values.transpose(2, 0, 1), first.interpolation, first.path == "rotation", times_s, seg, it, ot
    )


def group_segments(group: List, times_s: np.ndarray, key_cache: Dict[int, bytes], times_bytes: bytes):
    """Memoised segments for a LINEAR/CUBICSPLINE group with >= 2 keys, else None."""
    first = group[0]
    if first.interpolation == "STEP" or first.times.shape[0] < 2:
        return None
    return _cached_segments(first.times, key_time_bytes(first.times, key_cache), times_s, times_bytes)


# (shape, rest rotation bytes) -> their normalize_quat (read-only): once per rig, not per clip
_REST_UNIT: Dict[tuple, np.ndarray] = {}
_REST_UNIT_MAX = 64


def unit_rest_rotations(skeleton: Skeleton) -> np.ndarray:
    """``normalize_quat`` of the skeleton's rest rotations (B, 4), memoised on their bytes
    (read-only): once per rig, for every clip's local pose and the lazy grid's rest bones."""
    q = np.asarray(skeleton.rest_rotation, dtype=np.float64)
    return memo(_REST_UNIT, _REST_UNIT_MAX, (q.shape, q.tobytes()), lambda: _read_only_arrays((normalize_quat(q),))[0])


def local_pose_and_animated(skeleton: Skeleton, clip: Clip, times_s: np.ndarray, winners=None):
    """Local TRS (N, B, ·) of every bone and the (B,) animated mask."""
    n = times_s.shape[0]
    if winners is None:
        winners = _winning_channels(skeleton, clip)
    b = skeleton.bone_count
    t = np.empty((n, b, 3))
    t[:] = skeleton.rest_translation
    r = np.empty((n, b, 4))
    r[:] = unit_rest_rotations(skeleton)
    s = np.empty((n, b, 3))
    s[:] = skeleton.rest_scale
    animated = np.zeros(b, dtype=bool)
    targets = {"translation": t, "rotation": r, "scale": s}
    key_cache: Dict[int, bytes] = {}
    times_bytes = times_s.tobytes()
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for group in _channel_groups(winners, key_cache):
            out = sample_group(group, times_s, group_segments(group, times_s, key_cache, times_bytes))
            out = out.transpose(2, 1, 0)  # (T, n, C)
            bones = np.array(list(map(_BONE, group)), dtype=np.intp)
            animated[bones] = True
            paths = list(map(_PATH, group))
            if paths.count(paths[0]) == len(paths):
                targets[paths[0]][:, bones] = out
            else:
                is_t = np.fromiter((p == "translation" for p in paths), dtype=bool, count=len(paths))
                t[:, bones[is_t]] = out[:, is_t]
                s[:, bones[~is_t]] = out[:, ~is_t]
    return t, r, s, animated


def local_pose(skeleton: Skeleton, clip: Clip, times_s) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Local (translation (N,B,3), rotation (N,B,4), scale (N,B,3)) at ``times_s``.

    Rest TRS, overwritten per (bone, path) by the last channel targeting it.
    """
    times_s = np.asarray(times_s, dtype=np.float64).reshape(-1)
    t, r, s, _ = local_pose_and_animated(skeleton, clip, times_s)
    return t, r, s
