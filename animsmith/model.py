"""Plain data: the engine-agnostic asset model every part of AnimSmith shares.

bytes --io--> :class:`Asset` (skeleton + clips, plain numpy arrays)
      --core--> :class:`PoseGrid` (frames x bones) --> metrics --> checks.

Conventions (glTF 2.0, used everywhere):

* Quaternions are ``(x, y, z, w)``.
* Units and axes are as authored: metres and +Y up by the glTF convention, but
  nothing assumes a scale. "Horizontal" is the model-space X/Z plane, "height"
  is model-space Y.
* Bones are **every glTF node**, in parents-first (depth-first pre-order) order;
  ``Skeleton.parents[b] < b`` for every non-root bone.
* Key times and key values keep their stored float32 precision; derived
  quantities (sampled poses, metrics) are float64.

This module holds data and small constructors only: no I/O, no sampling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

PATHS = ("translation", "rotation", "scale")
INTERPOLATIONS = ("LINEAR", "STEP", "CUBICSPLINE")
PATH_WIDTH = {"translation": 3, "rotation": 4, "scale": 3}


# --------------------------------------------------------------------------
# Skeleton
# --------------------------------------------------------------------------


def bone_depths(parents) -> np.ndarray:
    """(B,) int64 depth of every bone of a parents-first ``parents`` array: 0 for a root,
    the parent's depth + 1 otherwise."""
    depth = np.zeros(len(parents), dtype=np.int64)
    for b, p in enumerate(parents):
        if p >= 0:
            depth[b] = depth[p] + 1
    return depth


@dataclass(eq=False)
class Skeleton:
    """Every node of the file as a bone, parents first.

    Attributes (B = bone count):
        names: bone names (node name, or ``node<i>`` when unnamed, ``node<i>#1``... when the
            file names another node ``node<i>``); not unique.
        node_indices: (B,) int — the glTF node index of each bone.
        parents: (B,) int — parent bone index, -1 for a root.
        rest_translation: (B, 3) float64 local rest translation.
        rest_rotation: (B, 4) float64 local rest rotation (x, y, z, w).
        rest_scale: (B, 3) float64 local rest scale.
        rest_matrix: (B, 4, 4) float64 local rest matrix, exact (a node given
            as ``matrix`` keeps its matrix, shear included; TRS nodes get T·R·S).
        has_matrix: (B,) bool — the node was authored with ``matrix``.
        is_joint: (B,) bool — the node is a joint of some skin.
        in_scene: (B,) bool — reachable from the default scene's roots.
        metres_per_unit: metres per file unit (``[rig] units``; 1.0 as glTF says). Forward
            kinematics scales every model-space position by it, so poses and every metric
            are in metres; local TRS, rest values and key values stay in file units.
    """

    names: List[str]
    node_indices: np.ndarray
    parents: np.ndarray
    rest_translation: np.ndarray
    rest_rotation: np.ndarray
    rest_scale: np.ndarray
    rest_matrix: np.ndarray
    has_matrix: np.ndarray
    is_joint: np.ndarray
    in_scene: np.ndarray
    metres_per_unit: float = 1.0
    _bone_of_node: Dict[int, int] = field(default_factory=dict, repr=False)
    _depth: Optional[np.ndarray] = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self._bone_of_node:
            self._bone_of_node = {int(n): b for b, n in enumerate(self.node_indices)}

    @property
    def bone_count(self) -> int:
        return len(self.names)

    def bone_of_node(self, node: int) -> int:
        """Bone index of glTF node ``node`` (KeyError when absent)."""
        return self._bone_of_node[int(node)]

    def find(self, name: str) -> Optional[int]:
        """First bone (parents-first order) named exactly ``name``."""
        for b, n in enumerate(self.names):
            if n == name:
                return b
        return None

    @property
    def depth(self) -> np.ndarray:
        """(B,) int — 0 for roots, parent depth + 1 otherwise."""
        if self._depth is None:
            self._depth = bone_depths(self.parents)
        return self._depth

    def children(self, bone: int) -> List[int]:
        return [int(c) for c in np.nonzero(self.parents == bone)[0]]

    def in_units(self, metres_per_unit: float) -> "Skeleton":
        """This skeleton judged at ``metres_per_unit`` metres per file unit: ``self`` when it
        already is, else a copy (the arrays are shared, never modified)."""
        if float(metres_per_unit) == float(self.metres_per_unit):
            return self
        from dataclasses import replace

        return replace(self, metres_per_unit=float(metres_per_unit), _bone_of_node=dict(self._bone_of_node), _depth=self._depth)

    @classmethod
    def build(
        cls,
        names: Sequence[str],
        parents: Sequence[int],
        rest_translation: Any = None,
        rest_rotation: Any = None,
        rest_scale: Any = None,
        *,
        rest_matrix: Any = None,
        has_matrix: Any = None,
        is_joint: Any = None,
        node_indices: Any = None,
    ) -> "Skeleton":
        """Build a skeleton from parents-first arrays (tests, the simulator).

        Missing rest components default to identity; ``rest_matrix`` defaults
        to T·R·S of the given components.
        """
        b = len(names)
        parents_a = np.asarray(parents, dtype=np.int64).reshape(b)
        for i, p in enumerate(parents_a):
            if p >= i:
                raise ValueError(f"bone {i}: parent {p} must precede it")
        t = np.zeros((b, 3)) if rest_translation is None else np.asarray(rest_translation, float).reshape(b, 3)
        r = (
            np.tile([0.0, 0.0, 0.0, 1.0], (b, 1))
            if rest_rotation is None
            else np.asarray(rest_rotation, float).reshape(b, 4)
        )
        s = np.ones((b, 3)) if rest_scale is None else np.asarray(rest_scale, float).reshape(b, 3)
        m = trs_matrices(t, r, s) if rest_matrix is None else np.asarray(rest_matrix, float).reshape(b, 4, 4)
        return cls(
            names=list(names),
            node_indices=np.arange(b) if node_indices is None else np.asarray(node_indices, dtype=np.int64),
            parents=parents_a,
            rest_translation=t,
            rest_rotation=r,
            rest_scale=s,
            rest_matrix=m,
            has_matrix=np.zeros(b, bool) if has_matrix is None else np.asarray(has_matrix, bool),
            is_joint=np.ones(b, bool) if is_joint is None else np.asarray(is_joint, bool),
            in_scene=np.ones(b, bool),
        )


# --------------------------------------------------------------------------
# Clips and channels
# --------------------------------------------------------------------------


@dataclass(eq=False)
class Channel:
    """One animation channel: a sampler bound to (bone, property).

    Attributes (K = key count, C = 3 for translation/scale, 4 for rotation):
        bone: bone index in the skeleton.
        node: glTF node index targeted.
        path: ``"translation"`` | ``"rotation"`` | ``"scale"``.
        interpolation: ``"LINEAR"`` | ``"STEP"`` | ``"CUBICSPLINE"``.
        times: (K,) float32 key times exactly as stored.
        values: (K, C) float32 key values (normalized integers already
            converted to float per glTF 2.0).
        in_tangents, out_tangents: (K, C) float32 for CUBICSPLINE, else None.
        sampler, input_accessor, output_accessor: indices in the source file
            (-1 for channels built in memory); used by transforms and reports.
        output_component_type: glTF componentType of the output accessor
            (5126 float unless quantised).
    """

    bone: int
    node: int
    path: str
    interpolation: str
    times: np.ndarray
    values: np.ndarray
    in_tangents: Optional[np.ndarray] = None
    out_tangents: Optional[np.ndarray] = None
    sampler: int = -1
    input_accessor: int = -1
    output_accessor: int = -1
    output_component_type: int = 5126
    output_normalized: bool = False

    @property
    def key_count(self) -> int:
        return int(self.times.shape[0])

    @property
    def width(self) -> int:
        return PATH_WIDTH[self.path]

    @classmethod
    def make(
        cls,
        bone: int,
        path: str,
        times: Any,
        values: Any,
        interpolation: str = "LINEAR",
        in_tangents: Any = None,
        out_tangents: Any = None,
        node: Optional[int] = None,
    ) -> "Channel":
        """Build a channel in memory (tests, the simulator); stores float32."""
        if path not in PATH_WIDTH:
            raise ValueError(f"unknown channel path {path!r}")
        if interpolation not in INTERPOLATIONS:
            raise ValueError(f"unknown interpolation {interpolation!r}")
        w = PATH_WIDTH[path]
        t = np.ascontiguousarray(times, dtype=np.float32).reshape(-1)
        v = np.ascontiguousarray(values, dtype=np.float32).reshape(t.shape[0], w)
        it = ot = None
        if interpolation == "CUBICSPLINE":
            it = (
                np.zeros_like(v)
                if in_tangents is None
                else np.ascontiguousarray(in_tangents, dtype=np.float32).reshape(v.shape)
            )
            ot = (
                np.zeros_like(v)
                if out_tangents is None
                else np.ascontiguousarray(out_tangents, dtype=np.float32).reshape(v.shape)
            )
        return cls(
            bone=int(bone),
            node=int(bone if node is None else node),
            path=path,
            interpolation=interpolation,
            times=t,
            values=v,
            in_tangents=it,
            out_tangents=ot,
        )


_TIMES = attrgetter("times")


@dataclass(eq=False)
class Clip:
    """One glTF animation.

    ``name`` is unique within its asset: an unnamed animation is
    ``animation<index>``; a repeated name gets ``#1``, ``#2``... suffixes; a generated
    name never takes a name the file gives another animation.
    ``weight_channel_count`` counts morph-weight channels (reported, not
    sampled); ``pointer_channel_count`` counts channels without
    ``target.node`` (e.g. ``KHR_animation_pointer``; skipped, reported by
    ``inspect``). ``extras`` is the animation's ``extras`` object (the simulator
    stores contact markers there).
    """

    name: str
    channels: List[Channel]
    index: int = 0
    weight_channel_count: int = 0
    extras: Any = None
    pointer_channel_count: int = 0

    def distinct_times(self) -> List[np.ndarray]:
        """The clip's key-time arrays, each once (channels sharing an input accessor share one), in channel order."""
        times = list(map(_TIMES, self.channels))
        return list(dict(zip(map(id, times), times)).values())  # first occurrence order, no Python loop

    @property
    def duration_s(self) -> float:
        """Largest finite key time over all channels (0.0 when none)."""
        best = 0.0
        for t in self.distinct_times():
            if t.size:
                finite = t[np.isfinite(t)]
                if finite.size:
                    best = max(best, float(finite.max()))
        return best

    @property
    def start_s(self) -> float:
        """Smallest finite key time over all channels (0.0 when none)."""
        best: Optional[float] = None
        for t in self.distinct_times():
            finite = t[np.isfinite(t)] if t.size else t
            if finite.size:
                v = float(finite.min())
                best = v if best is None else min(best, v)
        return 0.0 if best is None else best

    @property
    def max_key_count(self) -> int:
        """Largest key count of any channel (0 without channels)."""
        return max([ch.times.shape[0] for ch in self.channels], default=0)


@dataclass(eq=False)
class Asset:
    """A loaded (or built) file: skeleton + clips, plus what transforms need.

    ``gltf`` is the parsed JSON document (None for assets built in memory);
    ``bin_chunk`` is the GLB BIN chunk bytes (None for .gltf or in-memory);
    ``container`` is ``"glb"``, ``"gltf"`` or ``"memory"``.
    """

    skeleton: Skeleton
    clips: List[Clip]
    path: Optional[str] = None
    gltf: Optional[dict] = None
    bin_chunk: Optional[bytes] = None
    buffers: Optional[List[bytes]] = None
    container: str = "memory"
    extras: Any = None

    def in_units(self, metres_per_unit: float) -> "Asset":
        """This asset with its skeleton judged at ``metres_per_unit`` metres per file unit
        (:meth:`Skeleton.in_units`); ``self`` when nothing changes. Clips and file bytes are
        shared: transforms still write the file's own units."""
        skeleton = self.skeleton.in_units(metres_per_unit)
        if skeleton is self.skeleton:
            return self
        from dataclasses import replace

        return replace(self, skeleton=skeleton)

    def clip(self, name: str) -> Clip:
        for c in self.clips:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def clip_names(self) -> List[str]:
        return [c.name for c in self.clips]


# --------------------------------------------------------------------------
# Pose grid
# --------------------------------------------------------------------------


@dataclass(eq=False)
class PoseGrid:
    """A clip sampled at ``times_s`` with forward kinematics (N x B).

    The *judged* grid of a clip (see ``core.pose.pose_grid``) is uniform over
    [0, duration] with N = max(2, largest key count of any channel); the same
    type holds samples at arbitrary times (``core.pose.sample_pose``).

    Attributes:
        times_s: (N,) float64 sample times.
        local_translation, local_scale: (N, B, 3) float64 local TRS.
        local_rotation: (N, B, 4) float64 local rotation (x, y, z, w).
        model_matrix: (N, B, 4, 4) float64 = parent model matrix x local T·R·S.
        model_position_m: (N, B, 3) = translation column of ``model_matrix``.
        model_rotation: (N, B, 4) = product of local rotations along the chain
            (parent x child), independent of scale, unit length.
        duration_s: the clip duration the grid was built for.
    """

    times_s: np.ndarray
    local_translation: np.ndarray
    local_rotation: np.ndarray
    local_scale: np.ndarray
    model_matrix: np.ndarray
    model_position_m: np.ndarray
    model_rotation: np.ndarray
    duration_s: float = 0.0

    # The same four questions work on every grid; the judged grid (``core.pose.LazyPoseGrid``)
    # answers them by computing only the bones or samples asked for.
    def model_positions_m(self, bones) -> np.ndarray:
        """(N, len(bones), 3) model positions of ``bones``: ``model_position_m[:, bones]``."""
        return np.asarray(self.model_position_m)[:, np.asarray(bones, dtype=np.intp).reshape(-1)]

    def model_rotations(self, bones) -> np.ndarray:
        """(N, len(bones), 4) model rotations of ``bones``: ``model_rotation[:, bones]``."""
        return np.asarray(self.model_rotation)[:, np.asarray(bones, dtype=np.intp).reshape(-1)]

    def pose_at(self, frames) -> "PoseGrid":
        """The samples ``frames`` of this grid, as a pose grid of len(frames) samples."""
        idx = np.asarray(frames, dtype=np.intp).reshape(-1)
        return PoseGrid(
            times_s=np.asarray(self.times_s)[idx],
            local_translation=np.asarray(self.local_translation)[idx],
            local_rotation=np.asarray(self.local_rotation)[idx],
            local_scale=np.asarray(self.local_scale)[idx],
            model_matrix=np.asarray(self.model_matrix)[idx],
            model_position_m=np.asarray(self.model_position_m)[idx],
            model_rotation=np.asarray(self.model_rotation)[idx],
            duration_s=self.duration_s,
        )

    def model_pose_at(self, frames) -> tuple:
        """(positions (k, B, 3), rotations (k, B, 4)) of every bone at the samples ``frames``."""
        idx = np.asarray(frames, dtype=np.intp).reshape(-1)
        return np.asarray(self.model_position_m)[idx], np.asarray(self.model_rotation)[idx]

    @property
    def frame_count(self) -> int:
        return int(self.times_s.shape[0])

    @classmethod
    def of_positions(cls, times_s, positions_m, duration_s: float = 0.0) -> "PoseGrid":
        """A grid that holds model positions only: (N,) ``times_s`` and (N, B, 3)
        ``positions_m``, for measurements that read where bones are (the stride anchor,
        the loop seam) on a re-ordered or re-closed cycle. Asking it for local TRS, model
        matrices or rotations raises :class:`PositionsOnly` naming what is missing,
        instead of handing back a stand-in (:class:`PositionGrid`)."""
        return PositionGrid(times_s, positions_m, duration_s)


class PositionsOnly(AttributeError):
    """A positions-only :class:`PoseGrid` was asked for something it does not hold."""


def _not_held(name: str) -> property:
    """A property that refuses to stand in for ``name`` on a positions-only grid."""

    def get(self):
        raise PositionsOnly(
            f"this pose grid holds model positions only (PoseGrid.of_positions); it has no {name}: "
            "sample the clip (core.pose.sample_pose) for a full pose"
        )

    return property(get, doc=f"Not held: raises :class:`PositionsOnly`. ({name})")


class PositionGrid(PoseGrid):
    """The positions-only :class:`PoseGrid` of :meth:`PoseGrid.of_positions`.

    ``times_s``, ``model_position_m``, ``duration_s``, ``frame_count`` and
    ``model_positions_m(bones)`` answer as on any grid; local TRS, model matrices and
    model rotations (and the questions built on them: ``model_rotations``, ``pose_at``,
    ``model_pose_at``) raise :class:`PositionsOnly`.
    """

    local_translation = _not_held("local_translation")
    local_rotation = _not_held("local_rotation")
    local_scale = _not_held("local_scale")
    model_matrix = _not_held("model_matrix")
    model_rotation = _not_held("model_rotation")

    def __init__(self, times_s, positions_m, duration_s: float = 0.0):  # noqa: D107
        # PoseGrid's dataclass __init__ is deliberately not called: the fields this grid
        # does not hold are refusing properties.
        self.times_s = np.asarray(times_s, dtype=np.float64).reshape(-1)
        self.model_position_m = np.asarray(positions_m)
        self.duration_s = duration_s
        if self.model_position_m.ndim != 3 or self.model_position_m.shape[0] != self.times_s.shape[0]:
            raise ValueError(
                f"positions must be (N, B, 3) with N = {self.times_s.shape[0]} sample times, got {self.model_position_m.shape}"
            )

    def __repr__(self) -> str:
        n, b = self.model_position_m.shape[:2]
        return f"PositionGrid(frames={n}, bones={b}, positions only)"


# --------------------------------------------------------------------------
# Small shared math used by constructors (core/ has the real kinematics)
# --------------------------------------------------------------------------


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 4) quaternions (x, y, z, w) -> (..., 3, 3) rotation matrices.

    Uses the unit-quaternion formula on the quaternion as given (callers
    normalise when they need to). This is the one copy of the formula: it lives
    here, below the core, because building a skeleton's rest matrices
    (:func:`trs_matrices`) needs it and the data model imports nothing above it;
    code in the core and above calls ``animsmith.core.quat.to_matrix``, which is
    this function.
    """
    q = np.asarray(q, dtype=np.float64)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (yy + zz)
    m[..., 0, 1] = 2 * (xy - wz)
    m[..., 0, 2] = 2 * (xz + wy)
    m[..., 1, 0] = 2 * (xy + wz)
    m[..., 1, 1] = 1 - 2 * (xx + zz)
    m[..., 1, 2] = 2 * (yz - wx)
    m[..., 2, 0] = 2 * (xz - wy)
    m[..., 2, 1] = 2 * (yz + wx)
    m[..., 2, 2] = 1 - 2 * (xx + yy)
    return m


def trs_matrices(t: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """(..., 3), (..., 4), (..., 3) -> (..., 4, 4) local matrices T·R·S."""
    t = np.asarray(t, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    rot = quat_to_matrix(r)
    m = np.zeros(t.shape[:-1] + (4, 4))
    m[..., :3, :3] = rot * s[..., None, :]
    m[..., :3, 3] = t
    m[..., 3, 3] = 1.0
    return m
