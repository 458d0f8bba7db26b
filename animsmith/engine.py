"""Engine profiles: how a runtime will address each clip and animated node of a glTF file.

A profile is a small, versioned record of one runtime's naming rules, each rule
written from that runtime's own source (cited in :data:`PROFILES` and in
``animsmith checks engine-addressability``). :func:`predict` applies a profile to
the glTF JSON of one file and returns :class:`Prediction` records: the handle the
runtime will use (``available``) or why no handle reaches the item
(``required_unavailable``, with reason codes). Nothing here loads, samples or
prints; the ``engine-addressability`` check turns predictions into facets.

Rules (one function each):

* Bevy: :func:`bevy_animation_label` -- ``Animation{i}`` by index.
* three.js: :func:`threejs_sanitize_node_name` (PropertyBinding.sanitizeNodeName),
  :class:`ThreeUniqueNames` (GLTFLoader.createUniqueName), :func:`threejs_clip_name`
  (GLTFLoader.loadAnimation's default name) and :func:`threejs_scene_objects` (the
  objects GLTFLoader builds, in the depth-first order PropertyBinding.findNode
  searches them).
* Godot: :func:`godot_sanitize_animation_name` (GLTFDocument._sanitize_animation_name)
  and :func:`godot_animation_names` (GLTFDocument._gen_unique_animation_name, and
  the ``Animation`` name of an unnamed clip).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from animsmith.results import Prediction

AVAILABLE = "available"
REQUIRED_UNAVAILABLE = "required_unavailable"


@dataclass(frozen=True)
class Profile:
    """One runtime's naming rules: ``name`` (the ``[engine] profile`` value),
    ``versions`` (accepted ``[engine] version`` values; the first is the default),
    ``runtime`` and ``models`` (what is predicted), ``sources`` (where each rule was read)."""

    name: str
    versions: Tuple[str, ...]
    runtime: str
    models: str
    sources: Tuple[str, ...]

    @property
    def default_version(self) -> str:
        return self.versions[0]


PROFILES: Dict[str, Profile] = {
    "bevy": Profile(
        name="bevy",
        versions=("0.19",),
        runtime="Bevy",
        models="glTF asset labels of animations",
        sources=(
            "bevy_gltf 0.19 GltfAssetLabel::Animation(i), written as the label 'Animation{i}'",
        ),
    ),
    "threejs": Profile(
        name="threejs",
        versions=("r187",),
        runtime="three.js",
        models="GLTFLoader clip and node names, AnimationMixer track binding",
        sources=(
            "three.js r187 src/animation/PropertyBinding.js: sanitizeNodeName, findNode",
            "three.js r187 src/animation/AnimationClip.js: findByName",
            "three.js r187 examples/jsm/loaders/GLTFLoader.js: createUniqueName, loadAnimation, "
            "loadScene, loadNode, _loadNodeShallow, loadMesh, loadCamera, KHR_lights_punctual",
        ),
    ),
    "godot": Profile(
        name="godot",
        versions=("4",),
        runtime="Godot",
        models="animation names in the imported AnimationLibrary",
        sources=(
            "godot modules/gltf/gltf_document.cpp: _sanitize_animation_name, _gen_unique_animation_name, "
            "_import_animation, _assign_node_names",
            "godot core/string/ustring.cpp: String::validate_node_name (removes . : @ / \" %)",
            "godot scene/resources/animation_library.cpp: AnimationLibrary::add_animation (a name added again "
            "replaces the earlier animation), AnimationLibrary::validate_library_name "
            "(replaces / : , [ with _)",
        ),
    ),
}


def _name_of(item: Any) -> Optional[str]:
    """The glTF ``name`` of a JSON object, or None (absent or not a string)."""
    if isinstance(item, dict):
        name = item.get("name")
        if isinstance(name, str):
            return name
    return None


def _items(gltf: dict, key: str) -> List[Any]:
    value = gltf.get(key)
    return value if isinstance(value, list) else []


def _source(kind: str, index: int, name: Optional[str]) -> Dict[str, Any]:
    return {"kind": kind, "index": index, "name": name}


def _shown(kind: str, index: int, name: Optional[str]) -> str:
    """``animations[2] 'walk'`` / ``nodes[5] (unnamed)``: an item as a user finds it."""
    plural = {"animation": "animations", "node": "nodes", "mesh": "meshes", "scene": "scenes",
              "camera": "cameras", "light": "lights"}[kind]
    return f"{plural}[{index}] " + (f"'{name}'" if name else "(unnamed)")


# ---------------------------------------------------------------------------
# Bevy
# ---------------------------------------------------------------------------


def bevy_animation_label(index: int) -> str:
    """Bevy's label of the glTF animation at ``index`` (GltfAssetLabel::Animation): names play no part."""
    return f"Animation{index}"


def predict_bevy(gltf: dict) -> List[Prediction]:
    out = []
    for i, anim in enumerate(_items(gltf, "animations")):
        name = _name_of(anim)
        label = bevy_animation_label(i)
        out.append(Prediction(
            code="animation_asset_label", subject=_shown("animation", i, name), state=AVAILABLE, handle=label,
            message=f"loaded as the asset label '{label}' (by index; the clip's name plays no part)",
            basis=["bevy.gltf_asset_label_animation_index"], sources=[_source("animation", i, name)],
        ))
    return out


# ---------------------------------------------------------------------------
# three.js
# ---------------------------------------------------------------------------

#: PropertyBinding's reserved characters: ``[ ] . : /``
_THREE_RESERVED = re.compile(r"[\[\].:/]")
#: JavaScript's ``\s``: Unicode white space and line terminators, and U+FEFF
_JS_SPACE = re.compile(r"[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")


def threejs_sanitize_node_name(name: str) -> str:
    """PropertyBinding.sanitizeNodeName: every white-space character becomes ``_``, then
    ``[ ] . : /`` are removed (``mixamorig:Hips`` -> ``mixamorigHips``)."""
    return _THREE_RESERVED.sub("", _JS_SPACE.sub("_", name))


#: properties every JavaScript object inherits from ``Object.prototype``: ``name in {}`` is true for them
_JS_OBJECT_PROTOTYPE = frozenset((
    "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString",
    "toString", "valueOf", "__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__",
    "__lookupSetter__",
))


class ThreeUniqueNames:
    """GLTFLoader.createUniqueName: a name is sanitized; the first use keeps it, the
    k-th repeat gets ``_k``. Names already in the file are never checked, so a repeat
    of ``foot`` becomes ``foot_1`` even when a node is literally named ``foot_1``.

    The loader counts uses in a plain JavaScript object, so a name that object inherits
    (``constructor``, ``toString``, ``__proto__``, ...) counts as used from the start and
    its count is not a number: every use of it is named ``<name>_NaN``."""

    def __init__(self) -> None:
        self.used: Dict[str, int] = {}

    def __call__(self, original: str) -> str:
        name = threejs_sanitize_node_name(original or "")
        if name in _JS_OBJECT_PROTOTYPE:
            return f"{name}_NaN"
        if name in self.used:
            self.used[name] += 1
            return f"{name}_{self.used[name]}"
        self.used[name] = 0
        return name


def threejs_clip_name(index: int, name: Optional[str]) -> str:
    """GLTFLoader.loadAnimation: the clip keeps its glTF name unchanged; an unnamed (or
    empty-named) animation is called ``animation_<index>``."""
    return name if name else f"animation_{index}"


@dataclass
class ThreeObject:
    """One Object3D GLTFLoader builds: its final ``name``, the glTF item it comes from
    (``kind``, ``index``, original ``name``) and its children in order."""

    name: str
    kind: str
    index: int
    original: Optional[str]
    children: List["ThreeObject"] = field(default_factory=list)


def _node_refs(node: Any) -> Tuple[Optional[int], Optional[int], Optional[int], List[int], Optional[int]]:
    """(mesh, camera, light, children, skin) indices a glTF node refers to."""
    if not isinstance(node, dict):
        return None, None, None, [], None

    def idx(v):
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None

    ext = node.get("extensions")
    light = None
    if isinstance(ext, dict) and isinstance(ext.get("KHR_lights_punctual"), dict):
        light = idx(ext["KHR_lights_punctual"].get("light"))
    kids = node.get("children")
    children = [c for c in (kids if isinstance(kids, list) else []) if idx(c) is not None]
    return idx(node.get("mesh")), idx(node.get("camera")), light, children, idx(node.get("skin"))


def threejs_scene_objects(gltf: dict) -> Tuple[Optional[ThreeObject], Dict[int, ThreeObject]]:
    """The default scene as GLTFLoader builds it, and {node index: its object}.

    Names are given in the loader's order: synchronously, every scene's name and then
    its nodes depth-first (a node's name before its camera's and light's, then its
    children, then the joints of its skin), then the nodes only animations reach, then
    the remaining named cameras; mesh primitives are named after that (they wait for
    their geometry), in the order their meshes were first reached, one name per
    primitive. A node with exactly one attachment (mesh, camera, light) *is* that
    object, renamed to the node's name when the node has one; a mesh of several
    primitives is a group of one object per primitive."""
    nodes = _items(gltf, "nodes")
    meshes = _items(gltf, "meshes")
    cameras = _items(gltf, "cameras")
    scenes = _items(gltf, "scenes")
    ext = gltf.get("extensions")
    lights = []
    if isinstance(ext, dict) and isinstance(ext.get("KHR_lights_punctual"), dict):
        raw = ext["KHR_lights_punctual"].get("lights")
        lights = raw if isinstance(raw, list) else []
    unique = ThreeUniqueNames()
    node_name: Dict[int, str] = {}
    camera_name: Dict[int, str] = {}
    light_name: Dict[int, str] = {}
    mesh_order: List[int] = []
    shallow_done: set = set()
    deep_done: set = set()

    def shallow(n: int) -> None:
        if n in shallow_done or not 0 <= n < len(nodes):
            return
        shallow_done.add(n)
        original = _name_of(nodes[n])
        node_name[n] = unique(original) if original else ""
        mesh, camera, light, _, _ = _node_refs(nodes[n])
        if mesh is not None and mesh < len(meshes) and mesh not in mesh_order:
            mesh_order.append(mesh)
        if camera is not None and camera < len(cameras) and camera not in camera_name:
            cname = _name_of(cameras[camera])
            camera_name[camera] = unique(cname) if cname else ""
        if light is not None and light < len(lights) and light not in light_name:
            light_name[light] = unique(_name_of(lights[light]) or f"light_{light}")

    def deep_with_skins(n: int) -> None:
        # depth-first, children in order; a marker (-1 - k) pops after k's subtree, and
        # then k's skin joints are reached (iterative: a deep rig cannot overflow)
        stack: List[int] = [n]
        while stack:
            k = stack.pop()
            if k < 0:
                owner = -1 - k
                _, _, _, _, skin = _node_refs(nodes[owner])
                skins = _items(gltf, "skins")
                if skin is not None and skin < len(skins) and isinstance(skins[skin], dict):
                    joints = skins[skin].get("joints")
                    for j in joints if isinstance(joints, list) else []:
                        if isinstance(j, int) and not isinstance(j, bool):
                            shallow(j)
                continue
            if k in deep_done or not 0 <= k < len(nodes):
                continue
            deep_done.add(k)
            shallow(k)
            _, _, _, children, skin = _node_refs(nodes[k])
            if skin is not None:
                stack.append(-1 - k)
            stack.extend(reversed(children))

    scene_name: Dict[int, str] = {}
    for s, scene in enumerate(scenes):
        sname = _name_of(scene)
        if sname:
            scene_name[s] = unique(sname)
        roots = scene.get("nodes") if isinstance(scene, dict) else None
        for r in roots if isinstance(roots, list) else []:
            if isinstance(r, int) and not isinstance(r, bool):
                deep_with_skins(r)
    for node in _targeted_nodes(gltf):
        deep_with_skins(node)
    for c, camera in enumerate(cameras):
        if c not in camera_name:
            cname = _name_of(camera)
            camera_name[c] = unique(cname) if cname else ""
    primitive_names: Dict[int, List[str]] = {}
    for m in mesh_order:
        prims = meshes[m].get("primitives") if isinstance(meshes[m], dict) else None
        count = len(prims) if isinstance(prims, list) else 0
        primitive_names[m] = [unique(_name_of(meshes[m]) or f"mesh_{m}") for _ in range(count)]

    joints: set = set()  # GLTFLoader._markDefs marks every skin joint as a Bone
    for skin in _items(gltf, "skins"):
        listed = skin.get("joints") if isinstance(skin, dict) else None
        joints.update(j for j in (listed if isinstance(listed, list) else []) if isinstance(j, int))
    objects: Dict[int, ThreeObject] = {}

    def make(n: int) -> ThreeObject:
        """Node ``n``'s object with its attachments (mesh, camera, light), without child nodes."""
        mesh, camera, light, _, _ = _node_refs(nodes[n])
        attached: List[ThreeObject] = []
        if mesh is not None and mesh in primitive_names:
            prims = [ThreeObject(nm, "mesh", mesh, _name_of(meshes[mesh])) for nm in primitive_names[mesh]]
            if len(prims) == 1:
                attached.append(prims[0])
            elif prims:
                attached.append(ThreeObject("", "mesh", mesh, _name_of(meshes[mesh]), prims))
        if camera is not None and camera in camera_name:
            attached.append(ThreeObject(camera_name[camera], "camera", camera, _name_of(cameras[camera])))
        if light is not None and light in light_name:
            attached.append(ThreeObject(light_name[light], "light", light, _name_of(lights[light])))
        original = _name_of(nodes[n])
        if len(attached) == 1 and n not in joints:  # a Bone keeps its attachments as children
            only = attached[0]
            obj = ThreeObject(node_name.get(n, "") if original else only.name, "node", n, original, list(only.children))
        else:
            obj = ThreeObject(node_name.get(n, ""), "node", n, original, attached)
        objects.setdefault(n, obj)
        return obj

    def build(n: int) -> Optional[ThreeObject]:
        """Node ``n`` and its subtree (iterative: a deep rig cannot overflow; a cycle stops)."""
        if not 0 <= n < len(nodes):
            return None
        top = make(n)
        stack = [(n, top, iter(_node_refs(nodes[n])[3]))]
        path = {n}
        while stack:
            k, obj, rest = stack[-1]
            c = next(rest, None)
            if c is None:
                stack.pop()
                path.discard(k)
                continue
            if c >= len(nodes) or c in path:
                continue
            child = make(c)
            obj.children.append(child)
            path.add(c)
            stack.append((c, child, iter(_node_refs(nodes[c])[3])))
        return top

    default = gltf.get("scene", 0)
    if not isinstance(default, int) or isinstance(default, bool) or not 0 <= default < len(scenes):
        # no scene (an animation-only file): the loader still makes every node an animation
        # targets, named as above, for tracks that are played on another model
        for n in _animated_nodes(gltf):
            if 0 <= n < len(nodes):
                make(n)
        return None, objects
    scene = scenes[default]
    root = ThreeObject(scene_name.get(default, ""), "scene", default, _name_of(scene))
    roots = scene.get("nodes") if isinstance(scene, dict) else None
    for r in roots if isinstance(roots, list) else []:
        if isinstance(r, int) and not isinstance(r, bool):
            obj = build(r)
            if obj is not None:
                root.children.append(obj)
    return root, objects


def _depth_first(root: ThreeObject) -> List[ThreeObject]:
    """``root`` then its subtree in PropertyBinding.findNode's search order (pre-order)."""
    out: List[ThreeObject] = []
    stack = [root]
    while stack:
        obj = stack.pop()
        out.append(obj)
        stack.extend(reversed(obj.children))
    return out


def _targeted_nodes(gltf: dict) -> Iterator[int]:
    """The node index of every animation channel's target, in file order (repeats kept;
    a channel without an integer target node is passed over)."""
    for anim in _items(gltf, "animations"):
        channels = anim.get("channels") if isinstance(anim, dict) else None
        for ch in channels if isinstance(channels, list) else []:
            target = ch.get("target") if isinstance(ch, dict) else None
            node = target.get("node") if isinstance(target, dict) else None
            if isinstance(node, int) and not isinstance(node, bool):
                yield node


def _animated_nodes(gltf: dict) -> List[int]:
    """Indices of the nodes some animation channel targets, in first-targeted order."""
    return list(dict.fromkeys(_targeted_nodes(gltf)))


def predict_threejs_clips(gltf: dict) -> List[Prediction]:
    """AnimationClip.findByName returns the first clip of a name: a later clip of the
    same name cannot be found by name."""
    out = []
    first: Dict[str, int] = {}
    for i, anim in enumerate(_items(gltf, "animations")):
        name = _name_of(anim)
        handle = threejs_clip_name(i, name)
        basis = ["threejs.loadAnimation_name", "threejs.AnimationClip.findByName_first"]
        src = [_source("animation", i, name)]
        if handle in first:
            j = first[handle]
            out.append(Prediction(
                code="clip_name", subject=_shown("animation", i, name), state=REQUIRED_UNAVAILABLE, handle=handle,
                message=(f"clip name '{handle}' is also animations[{j}]'s, and AnimationClip.findByName returns the "
                         "first: this clip cannot be found by name"),
                basis=basis, reasons=["duplicate_clip_name"],
                sources=[_source("animation", j, _name_of(_items(gltf, "animations")[j]))] + src,
            ))
            continue
        first[handle] = i
        how = "its glTF name" if name else "the loader's default name for an unnamed animation"
        out.append(Prediction(
            code="clip_name", subject=_shown("animation", i, name), state=AVAILABLE, handle=handle,
            message=f"found by AnimationClip.findByName('{handle}') ({how})", basis=basis, sources=src,
        ))
    return out


def predict_threejs_nodes(gltf: dict) -> List[Prediction]:
    """Every animated node's three.js name, and the names PropertyBinding cannot resolve
    to that node: a name another object of the scene also carries (the search returns
    the first in depth-first order, so two animated nodes of one name, or an animated
    node searched after another object of its name, bind the wrong object)."""
    root, objects = threejs_scene_objects(gltf)
    order = _depth_first(root) if root is not None else []
    by_name: Dict[str, List[ThreeObject]] = {}
    for obj in order:
        if obj.name:
            by_name.setdefault(obj.name, []).append(obj)
    in_scene = {obj.index for obj in order if obj.kind == "node"}
    animated = _animated_nodes(gltf)
    animated_set = set(animated)
    nodes = _items(gltf, "nodes")
    out: List[Prediction] = []
    reported: set = set()
    basis = ["threejs.sanitizeNodeName", "threejs.createUniqueName", "threejs.PropertyBinding.findNode_first"]
    if root is None:  # no scene: the clips are played on a model loaded from another file
        return _threejs_sceneless_nodes(animated, nodes, objects, basis)
    for n in animated:
        original = _name_of(nodes[n]) if 0 <= n < len(nodes) else None
        subject = _shown("node", n, original)
        if n not in in_scene or n not in objects:
            out.append(Prediction(
                code="node_binding_name", subject=subject, state=REQUIRED_UNAVAILABLE, handle=None,
                message="the node is not in the default scene, which an AnimationMixer on gltf.scene searches",
                basis=["threejs.default_scene"], reasons=["not_in_default_scene"], sources=[_source("node", n, original)],
            ))
            continue
        name = objects[n].name
        if not name:
            out.append(Prediction(
                code="node_binding_name", subject=subject, state=AVAILABLE, handle=None,
                message="bound by the object's uuid (the node has no name), which is unique",
                basis=basis, sources=[_source("node", n, original)],
            ))
            continue
        sharers = by_name.get(name, [])
        animated_sharers = [o for o in sharers if o.kind == "node" and o.index in animated_set]
        ok = sharers and sharers[0].kind == "node" and sharers[0].index == n and len(animated_sharers) == 1
        if ok:
            renamed = ("" if name == original else f" (renamed from '{original}')" if original
                       else " (the name of what the unnamed node holds)")
            out.append(Prediction(
                code="node_binding_name", subject=subject, state=AVAILABLE, handle=name,
                message=f"tracks bind to the object named '{name}'{renamed}",
                basis=basis, sources=[_source("node", n, original)],
            ))
            continue
        if name in reported:
            continue
        reported.add(name)
        listed = ", ".join(_shown(o.kind, o.index, o.original) for o in sharers)
        first = sharers[0]
        out.append(Prediction(
            code="node_binding_name", subject=f"'{name}'", state=REQUIRED_UNAVAILABLE, handle=name,
            message=(f"{listed} {'both' if len(sharers) == 2 else 'all'} end up named '{name}' in three.js; a track named '{name}' animates the first "
                     f"of them it finds ({_shown(first.kind, first.index, first.original)})"),
            basis=basis, reasons=["node_name_collision"],
            sources=[_source(o.kind, o.index, o.original) for o in sharers],
        ))
    return out


def _threejs_sceneless_nodes(animated, nodes, objects, basis) -> List[Prediction]:
    """A file without a scene (animation-only exports) is played on a model loaded from
    another file: each track binds by its three.js name to that model's object of the same
    name, which this file cannot show. Its names are predicted all the same, and two
    animated nodes that end up with one name are required-unavailable (their tracks bind one
    object, whatever the model)."""
    by_name: Dict[str, List[int]] = {}
    for n in animated:
        obj = objects.get(n)
        if obj is not None and obj.name:
            by_name.setdefault(obj.name, []).append(n)
    out: List[Prediction] = []
    reported: set = set()
    for n in animated:
        original = _name_of(nodes[n]) if 0 <= n < len(nodes) else None
        obj = objects.get(n)
        name = obj.name if obj is not None else ""
        if not name:
            out.append(Prediction(
                code="node_binding_name", subject=_shown("node", n, original), state=REQUIRED_UNAVAILABLE,
                handle=None, message="the node has no name, and a clip played on another model binds its tracks by name",
                basis=["threejs.default_scene"], reasons=["unnamed_node_without_scene"],
                sources=[_source("node", n, original)],
            ))
            continue
        sharers = by_name[name]
        if len(sharers) == 1:
            renamed = "" if name == original else f" (renamed from '{original}')"
            out.append(Prediction(
                code="node_binding_name", subject=_shown("node", n, original), state=AVAILABLE, handle=name,
                message=(f"the file has no scene: played on another model, the tracks bind to its object "
                         f"named '{name}'{renamed}"),
                basis=basis + ["threejs.no_scene"], sources=[_source("node", n, original)],
            ))
        elif name not in reported:
            reported.add(name)
            listed = ", ".join(_shown("node", k, _name_of(nodes[k])) for k in sharers)
            out.append(Prediction(
                code="node_binding_name", subject=f"'{name}'", state=REQUIRED_UNAVAILABLE, handle=name,
                message=f"{listed} all end up named '{name}' in three.js; their tracks animate one object",
                basis=basis + ["threejs.no_scene"], reasons=["node_name_collision"],
                sources=[_source("node", k, _name_of(nodes[k])) for k in sharers],
            ))
    return out


def predict_threejs(gltf: dict) -> List[Prediction]:
    return predict_threejs_clips(gltf) + predict_threejs_nodes(gltf)


# ---------------------------------------------------------------------------
# Godot
# ---------------------------------------------------------------------------

_GODOT_NODE_INVALID = re.compile(r'[.:@/"%]')
_GODOT_LIBRARY_INVALID = re.compile(r"[/:,\[]")


def godot_sanitize_animation_name(name: str) -> str:
    """GLTFDocument._sanitize_animation_name: String::validate_node_name removes
    ``. : @ / " %``, then AnimationLibrary::validate_library_name replaces ``/ : , [``
    with ``_`` (``mixamo.com`` -> ``mixamocom``, ``walk,left`` -> ``walk_left``)."""
    return _GODOT_LIBRARY_INVALID.sub("_", _GODOT_NODE_INVALID.sub("", name))


def godot_node_names(gltf: dict) -> set:
    """The names Godot's scene-wide unique-name set holds before clips are imported, as far as
    they can be named ``Animation<k>``: every node that is not a skin joint keeps its name
    with ``. : @ / " %`` removed, a repeat taking ``2``, ``3``, ... (GLTFDocument._assign_node_names;
    joints are named per skeleton and take no name from this set)."""
    joints: set = set()
    for skin in _items(gltf, "skins"):
        js = skin.get("joints") if isinstance(skin, dict) else None
        joints.update(j for j in (js if isinstance(js, list) else []) if isinstance(j, int) and not isinstance(j, bool))
    taken: set = set()
    for i, node in enumerate(_items(gltf, "nodes")):
        name = _name_of(node)
        if i in joints or not name:
            continue  # an unnamed node is called Node/Mesh/Camera3D...: never Animation<k>
        base = _GODOT_NODE_INVALID.sub("", name)
        k, candidate = 1, base
        while candidate in taken:
            k += 1
            candidate = f"{base}{k}"
        taken.add(candidate)
    return taken


def godot_animation_names(names: Sequence[Optional[str]], node_names=()) -> List[Tuple[str, str, bool]]:
    """(imported name, sanitized name, renamed to de-duplicate) per animation, in order.

    A named animation: its sanitized name, or that name followed by 2, 3, ... when an
    earlier animation took it (GLTFDocument._gen_unique_animation_name). An unnamed
    animation: ``Animation``, ``Animation2``, ... (GLTFDocument._import_animation asks
    the scene's unique-name set for a unique ``Animation``: ``node_names``, see
    :func:`godot_node_names`, so a node named ``Animation`` shifts the number)."""
    taken: set = set()
    tried: Dict[str, int] = {}  # per base, the last number found taken (taken only grows)
    out = []
    for name in names:
        if name:
            base = godot_sanitize_animation_name(name)
            k, candidate = tried.get(base, 1), base
            if k > 1:
                candidate = f"{base}{k}"
            while candidate in taken:
                k += 1
                candidate = f"{base}{k}"
            tried[base] = k
            taken.add(candidate)
            out.append((candidate, base, k > 1))
        else:
            out.append(("", "", False))
    scene_names = set(node_names)
    for i, (name, base, renamed) in enumerate(out):
        if not name:
            k, candidate = 1, "Animation"
            while candidate in scene_names:
                k += 1
                candidate = f"Animation{k}"
            scene_names.add(candidate)
            out[i] = (candidate, "Animation", False)
    return out


def predict_godot(gltf: dict) -> List[Prediction]:
    anims = _items(gltf, "animations")
    names = [_name_of(a) for a in anims]
    imported = godot_animation_names(names, godot_node_names(gltf))
    # GLTFDocument adds the clips to the library in file order and AnimationLibrary.add_animation
    # replaces an animation of the same name: per name, the last clip added is the one it plays
    last: Dict[str, int] = {}
    for i, (handle, _, _) in enumerate(imported):
        last[handle] = i
    out = []
    for i, (handle, base, renamed) in enumerate(imported):
        name = names[i]
        src = [_source("animation", i, name)]
        basis = ["godot.sanitize_animation_name", "godot.gen_unique_animation_name"]
        if not name:
            basis = basis + ["godot.import_animation_unnamed"]
        if renamed:
            j = next(k for k in range(i) if imported[k][0] == base)
            out.append(Prediction(
                code="animation_library_name", subject=_shown("animation", i, name), state=REQUIRED_UNAVAILABLE,
                handle=handle,
                message=(f"imported as '{handle}': '{base}' is animations[{j}]'s, so playing '{base}' plays "
                         "that clip instead"),
                basis=basis, reasons=["duplicate_clip_name"], sources=[_source("animation", j, names[j])] + src,
            ))
        elif last[handle] != i:  # an unnamed clip's Animation<k> equals a named clip's name
            j = last[handle]
            out.append(Prediction(
                code="animation_library_name", subject=_shown("animation", i, name), state=REQUIRED_UNAVAILABLE,
                handle=handle,
                message=(f"named '{handle}' on import, as animations[{j}] is; the library keeps the one added last "
                         f"(animations[{j}]), so this clip is gone"),
                basis=basis + ["godot.animation_library_add_replaces"], reasons=["duplicate_clip_name"],
                sources=src + [_source("animation", j, names[j])],
            ))
        else:
            how = ("the importer's name for an unnamed animation" if not name
                   else "its glTF name" if handle == name else f"'{name}' with the characters Godot refuses removed")
            out.append(Prediction(
                code="animation_library_name", subject=_shown("animation", i, name), state=AVAILABLE, handle=handle,
                message=f"imported as '{handle}' ({how})", basis=basis, sources=src,
            ))
    return out


PREDICTORS = {"bevy": predict_bevy, "threejs": predict_threejs, "godot": predict_godot}


def predict(profile: str, gltf: Optional[dict]) -> List[Prediction]:
    """Every prediction ``profile`` makes about the glTF JSON ``gltf`` (None: no file JSON, nothing)."""
    if not isinstance(gltf, dict):
        return []
    return PREDICTORS[profile](gltf)


def provenance(profile: str, version: str) -> Dict[str, Any]:
    """The ``prediction_provenance`` record of a file linted under ``profile``."""
    p = PROFILES[profile]
    return {"profile": p.name, "version": version, "runtime": p.runtime, "models": p.models, "sources": list(p.sources)}
