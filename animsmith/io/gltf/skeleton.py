"""glTF nodes -> :class:`~animsmith.model.Skeleton`: node fields validated (a bulk pass
for well-formed files, a per-node pass that names the first problem), bones in
depth-first pre-order, rest matrices, skin joints and default-scene membership.
Skeletons are shared between files with the same node graph (read-only arrays)."""

from __future__ import annotations

from itertools import chain, repeat
from operator import eq
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from animsmith.errors import LoadError
from animsmith.io.gltf.document import json_key
from animsmith.io.gltf.fields import INT_TYPE, as_array, as_index, as_name, as_numbers, as_object, bad_index, show_value
from animsmith.memo import memo
from animsmith.model import Skeleton, trs_matrices

_NUMBER_TYPE_SET = frozenset((float, int))
_IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)
_ZERO3 = (0.0, 0.0, 0.0)
_ONE3 = (1.0, 1.0, 1.0)
_DICT_TYPE = {dict}
_LIST_TYPE = {list}
_STR_TYPE = {str}
_STR_OR_NONE = frozenset((str, type(None)))
_LIST_OR_NONE = frozenset((list, type(None)))
_DIAG4 = np.arange(4)
#: Skeletons by the exact JSON text of everything that builds one (``nodes``,
#: ``skins``, ``scenes``, ``scene``): every clip of a pack exported from one rig
#: shares one Skeleton object (arrays read-only), and so the FK plans and
#: role lookups cached per skeleton. Keys are orjson's serialisation of the
#: parsed values, so ``1``/``1.0``/``true`` and ``0.0``/``-0.0`` never collide.
_SKELETONS: Dict[bytes, Skeleton] = {}
_SKELETONS_MAX = 16


def _decompose(m: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k,4,4) affine -> translation, rotation (x,y,z,w), scale.

    scale = column norms of the 3x3 block (x negated when det < 0);
    rotation = quaternion of the block with scale divided out (identity when a
    scale is 0). Shear is lost here; ``rest_matrix`` keeps it.
    """
    from animsmith.core.quat import from_matrix

    t = m[:, :3, 3].copy()
    basis = m[:, :3, :3]
    s = np.linalg.norm(basis, axis=1)
    s[np.linalg.det(basis) < 0, 0] *= -1.0
    zero = np.any(s == 0, axis=1) | ~np.all(np.isfinite(basis), axis=(1, 2))
    safe = np.where(s == 0, 1.0, s)
    q = from_matrix(basis / safe[:, None, :])
    q[zero] = _IDENTITY_Q
    return t, q, s


def _node_fields(nodes: list) -> Tuple[list, list, list, list, list, list, Dict[int, list]]:
    """Per-node validation in file order: (parent, kids, names, trans, rots, scales, matrices).

    Raises the first problem in file order; ``_node_fields_bulk`` is the fast
    path for files without problems.
    """
    n = len(nodes)
    parent = [-1] * n
    kids: List[Optional[list]] = [None] * n
    names: List[str] = []
    trans: List[Any] = []
    rots: List[Any] = []
    scales: List[Any] = []
    matrices: Dict[int, list] = {}
    for i, node in enumerate(nodes):
        if type(node) is not dict:
            raise LoadError(f"node {i} must be a JSON object, got {show_value(node)}")
        get = node.get
        children = get("children")
        if children is not None:
            if type(children) is not list:
                raise LoadError(f"node {i} children must be a JSON array, got {show_value(children)}")
            for c in children:
                if type(c) is not int or not 0 <= c < n:
                    raise bad_index(c, n, f"node {i} child")
                if c == i:
                    raise LoadError(f"node {i} lists itself as a child (cycle)")
                p = parent[c]
                if p != -1:
                    if p == i:
                        raise LoadError(f"node {i} lists child {c} twice")
                    raise LoadError(
                        f"node {c} is a child of nodes {p} and {i}; glTF requires a forest (one parent per node)"
                    )
                parent[c] = i
            kids[i] = children
        name = get("name")
        names.append(name if type(name) is str and name else (as_name(name, "", f"node {i}") or None))
        mat = get("matrix")
        if mat is not None:
            matrices[i] = as_numbers(mat, 16, f"node {i} matrix")
        # Shapes here; element types in bulk below (map(type) runs in C).
        t = get("translation")
        r = get("rotation")
        s = get("scale")
        trans.append(_ZERO3 if t is None else t if type(t) is list and len(t) == 3 else as_numbers(t, 3, f"node {i} translation"))
        rots.append(_IDENTITY_Q if r is None else r if type(r) is list and len(r) == 4 else as_numbers(r, 4, f"node {i} rotation"))
        scales.append(_ONE3 if s is None else s if type(s) is list and len(s) == 3 else as_numbers(s, 3, f"node {i} scale"))
    for key, width, values in (("translation", 3, trans), ("rotation", 4, rots), ("scale", 3, scales)):
        if not _NUMBER_TYPE_SET.issuperset(map(type, chain.from_iterable(values))):
            for i, v in enumerate(values):
                as_numbers(v, width, f"node {i} {key}")
    names = fill_node_names(names)
    return parent, kids, names, trans, rots, scales, matrices


def fill_node_names(names: list) -> list:
    """Node names with ``node<i>`` for an unnamed node (None or ""); when the file names
    another node exactly that, ``node<i>#1`` (``#2``...), so a generated name never
    takes a name the file uses."""
    if all(names):
        return names
    real = set(filter(None, names))
    out = []
    for i, name in enumerate(names):
        if not name:
            name, k = f"node{i}", 1
            while name in real:
                name, k = f"node{i}#{k}", k + 1
        out.append(name)
    return out


def _bulk_vectors(values: list, width: int, default: tuple) -> Any:
    """``values`` with None replaced by ``default``; None when every entry is
    absent; False when some entry is not an array of ``width`` numbers."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    if (
        set(map(type, present)) != _LIST_TYPE
        or set(map(len, present)) != {width}
        or not _NUMBER_TYPE_SET.issuperset(map(type, chain.from_iterable(present)))
    ):
        return False
    return values if len(present) == len(values) else [default if v is None else v for v in values]


def _node_fields_bulk(nodes: list) -> Optional[Tuple[list, list, list, Any, Any, Any, Dict[int, list]]]:
    """``_node_fields`` for files without problems, with the checks done over
    whole lists (``map``/``set`` run in C); None when any check fails (the
    per-node loop then reports the first problem). Absent TRS lists are None."""
    n = len(nodes)
    if set(map(type, nodes)) != _DICT_TYPE:
        return None
    get = dict.get
    kids = list(map(get, nodes, repeat("children")))
    names = list(map(get, nodes, repeat("name")))
    mats = list(map(get, nodes, repeat("matrix")))
    name_types = set(map(type, names))
    if name_types != _STR_TYPE or "" in names:
        if not name_types <= _STR_OR_NONE:
            return None
        names = fill_node_names(names)
    if not set(map(type, kids)) <= _LIST_OR_NONE:
        return None
    flat = list(chain.from_iterable(filter(None, kids)))
    if flat and (
        set(map(type, flat)) != INT_TYPE or min(flat) < 0 or max(flat) >= n or len(set(flat)) != len(flat)
    ):
        return None
    parent = [-1] * n
    for i, children in enumerate(kids):
        if children:
            for c in children:
                parent[c] = i
    if any(map(eq, parent, range(n))):  # a node listing itself
        return None
    matrices: Dict[int, list] = {}
    if mats.count(None) != n:
        for i, mat in enumerate(mats):
            if mat is not None:
                if type(mat) is not list or len(mat) != 16 or not _NUMBER_TYPE_SET.issuperset(map(type, mat)):
                    return None
                matrices[i] = mat
    trs = []
    for key, width, default in (("translation", 3, _ZERO3), ("rotation", 4, _IDENTITY_Q), ("scale", 3, _ONE3)):
        values = _bulk_vectors(list(map(get, nodes, repeat(key))), width, default)
        if values is False:
            return None
        trs.append(values)
    return parent, kids, names, trs[0], trs[1], trs[2], matrices


def _stack_vectors(values: Optional[list], n: int, width: int, default: tuple) -> np.ndarray:
    """(n, width) float64 from per-node number lists (None: every node has ``default``)."""
    if values is None:
        return np.tile(np.asarray(default, dtype=np.float64), (n, 1))
    return np.array(list(chain.from_iterable(values)), dtype=np.float64).reshape(n, width)


def _preorder(parent: list, kids: list) -> List[int]:
    """Depth-first pre-order from the roots (file order), children as declared."""
    n = len(parent)
    order: List[int] = []
    append = order.append
    stack = [i for i in range(n - 1, -1, -1) if parent[i] == -1]
    pop = stack.pop
    extend = stack.extend
    while stack:
        i = pop()
        append(i)
        c = kids[i]
        if c:
            extend(reversed(c))
    if len(order) != n:
        seen = set(order)
        lost = next(i for i in range(n) if i not in seen)
        raise LoadError(f"node {lost} is unreachable from any root; the node graph contains a cycle")
    return order


def _rest_matrices(t: np.ndarray, r: Optional[list], s: Optional[list], rot: np.ndarray, scl: np.ndarray) -> np.ndarray:
    """(B, 4, 4) local T·R·S; with no node rotation or scale it is [I | t] exactly."""
    if r is None and s is None:
        m = np.zeros((t.shape[0], 4, 4))
        m[:, _DIAG4, _DIAG4] = 1.0
        m[:, :3, 3] = t
        return m
    return trs_matrices(t, rot, scl)


def _skeleton_key(doc: dict) -> Optional[bytes]:
    """The cache key of ``doc``'s skeleton, or None (no orjson, too large, not serialisable)."""
    get = doc.get
    return json_key((get("nodes"), get("skins"), get("scenes"), get("scene")))


def _read_only(skeleton: Skeleton) -> Skeleton:
    """``skeleton`` with its arrays made read-only (a loaded skeleton may be shared)."""
    for value in vars(skeleton).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return skeleton


def shared_skeleton(doc: dict) -> Skeleton:
    """:func:`_build_skeleton`, built once per distinct node graph (see ``_SKELETONS``)."""
    return memo(_SKELETONS, _SKELETONS_MAX, _skeleton_key(doc), lambda: _read_only(_build_skeleton(doc)))


def _build_skeleton(doc: dict) -> Skeleton:
    nodes = as_array(doc, "nodes", "nodes")
    n = len(nodes)
    fields = _node_fields_bulk(nodes) if n else None
    if fields is None:
        fields = _node_fields(nodes)
    parent, kids, names, trans, rots, scales, matrices = fields
    order = _preorder(parent, kids)

    order_a = np.asarray(order, dtype=np.int64)
    bone_of = np.empty(n, dtype=np.int64)
    bone_of[order_a] = np.arange(n)
    parent_a = np.asarray(parent, dtype=np.int64)[order_a] if n else np.zeros(0, np.int64)
    parents = np.where(parent_a >= 0, bone_of[np.maximum(parent_a, 0)] if n else parent_a, -1)

    t = _stack_vectors(trans, n, 3, _ZERO3)[order_a]
    r = _stack_vectors(rots, n, 4, _IDENTITY_Q)[order_a]
    s = _stack_vectors(scales, n, 3, _ONE3)[order_a]
    m = _rest_matrices(t, rots, scales, r, s)
    has_matrix = np.zeros(n, dtype=bool)
    if matrices:
        nodes_m = sorted(matrices)
        bones_m = bone_of[nodes_m]
        # glTF matrices are column-major: reshape gives the transpose.
        mm = np.asarray([matrices[i] for i in nodes_m], dtype=np.float64).reshape(-1, 4, 4).transpose(0, 2, 1)
        m[bones_m] = mm
        t[bones_m], r[bones_m], s[bones_m] = _decompose(mm)
        has_matrix[bones_m] = True

    return Skeleton(
        names=list(map(names.__getitem__, order)),
        node_indices=order_a,
        parents=parents.astype(np.int64),
        rest_translation=t,
        rest_rotation=r,
        rest_scale=s,
        rest_matrix=m,
        has_matrix=has_matrix,
        is_joint=_joint_nodes(doc, n)[order_a],
        in_scene=_in_scene(doc, n, order_a, parents),
        _bone_of_node=dict(zip(order, range(n))),
    )


def _joint_nodes(doc: dict, n: int) -> np.ndarray:
    """(n,) bool per glTF node: listed as a joint by some skin."""
    joint_node = np.zeros(n, dtype=bool)
    for k, skin in enumerate(as_array(doc, "skins", "skins")):
        skin = as_object(skin, f"skin {k}")
        joints = as_array(skin, "joints", f"skin {k} joints")
        if joints and (set(map(type, joints)) != INT_TYPE or min(joints) < 0 or max(joints) >= n):
            for j in joints:
                if type(j) is not int or not 0 <= j < n:
                    raise bad_index(j, n, f"skin {k} joint")
        joint_node[joints] = True
    return joint_node


def _in_scene(doc: dict, n: int, order: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """(B,) bool: reachable from the default scene (``scene`` or 0); all True without scenes."""
    scenes = as_array(doc, "scenes", "scenes")
    if not scenes:
        return np.ones(n, dtype=bool)
    default = doc.get("scene")
    k = 0 if default is None else as_index(default, len(scenes), "scene")
    scene = as_object(scenes[k], f"scene {k}")
    listed = np.zeros(n, dtype=bool)
    for node in as_array(scene, "nodes", f"scene {k} nodes"):
        listed[as_index(node, n, f"scene {k} node")] = True
    flags = listed[order].tolist()
    out = [False] * n
    for b, p in enumerate(parents.tolist()):
        out[b] = flags[b] or (p >= 0 and out[p])
    return np.asarray(out, dtype=bool)
