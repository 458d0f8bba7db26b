"""three.js's rules (r187): how GLTFLoader names clips and the objects it builds, and how
PropertyBinding sanitises and finds a track's node name among them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

from animsmith.engine.profiles import AVAILABLE, REQUIRED_UNAVAILABLE, items_of, name_of, shown, source_of
from animsmith.results import Prediction


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
    nodes = items_of(gltf, "nodes")
    meshes = items_of(gltf, "meshes")
    cameras = items_of(gltf, "cameras")
    scenes = items_of(gltf, "scenes")
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
        original = name_of(nodes[n])
        node_name[n] = unique(original) if original else ""
        mesh, camera, light, _, _ = _node_refs(nodes[n])
        if mesh is not None and mesh < len(meshes) and mesh not in mesh_order:
            mesh_order.append(mesh)
        if camera is not None and camera < len(cameras) and camera not in camera_name:
            cname = name_of(cameras[camera])
            camera_name[camera] = unique(cname) if cname else ""
        if light is not None and light < len(lights) and light not in light_name:
            light_name[light] = unique(name_of(lights[light]) or f"light_{light}")

    def deep_with_skins(n: int) -> None:
        # depth-first, children in order; a marker (-1 - k) pops after k's subtree, and
        # then k's skin joints are reached (iterative: a deep rig cannot overflow)
        stack: List[int] = [n]
        while stack:
            k = stack.pop()
            if k < 0:
                owner = -1 - k
                _, _, _, _, skin = _node_refs(nodes[owner])
                skins = items_of(gltf, "skins")
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
        sname = name_of(scene)
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
            cname = name_of(camera)
            camera_name[c] = unique(cname) if cname else ""
    primitive_names: Dict[int, List[str]] = {}
    for m in mesh_order:
        prims = meshes[m].get("primitives") if isinstance(meshes[m], dict) else None
        count = len(prims) if isinstance(prims, list) else 0
        primitive_names[m] = [unique(name_of(meshes[m]) or f"mesh_{m}") for _ in range(count)]

    joints: set = set()  # GLTFLoader._markDefs marks every skin joint as a Bone
    for skin in items_of(gltf, "skins"):
        listed = skin.get("joints") if isinstance(skin, dict) else None
        joints.update(j for j in (listed if isinstance(listed, list) else []) if isinstance(j, int))
    objects: Dict[int, ThreeObject] = {}

    def make(n: int) -> ThreeObject:
        """Node ``n``'s object with its attachments (mesh, camera, light), without child nodes."""
        mesh, camera, light, _, _ = _node_refs(nodes[n])
        attached: List[ThreeObject] = []
        if mesh is not None and mesh in primitive_names:
            prims = [ThreeObject(nm, "mesh", mesh, name_of(meshes[mesh])) for nm in primitive_names[mesh]]
            if len(prims) == 1:
                attached.append(prims[0])
            elif prims:
                attached.append(ThreeObject("", "mesh", mesh, name_of(meshes[mesh]), prims))
        if camera is not None and camera in camera_name:
            attached.append(ThreeObject(camera_name[camera], "camera", camera, name_of(cameras[camera])))
        if light is not None and light in light_name:
            attached.append(ThreeObject(light_name[light], "light", light, name_of(lights[light])))
        original = name_of(nodes[n])
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
    root = ThreeObject(scene_name.get(default, ""), "scene", default, name_of(scene))
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
    for anim in items_of(gltf, "animations"):
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
    for i, anim in enumerate(items_of(gltf, "animations")):
        name = name_of(anim)
        handle = threejs_clip_name(i, name)
        basis = ["threejs.loadAnimation_name", "threejs.AnimationClip.findByName_first"]
        src = [source_of("animation", i, name)]
        if handle in first:
            j = first[handle]
            out.append(Prediction(
                code="clip_name", subject=shown("animation", i, name), state=REQUIRED_UNAVAILABLE, handle=handle,
                message=(f"clip name '{handle}' is also animations[{j}]'s, and AnimationClip.findByName returns the "
                         "first: this clip cannot be found by name"),
                basis=basis, reasons=["duplicate_clip_name"],
                sources=[source_of("animation", j, name_of(items_of(gltf, "animations")[j]))] + src,
            ))
            continue
        first[handle] = i
        how = "its glTF name" if name else "the loader's default name for an unnamed animation"
        out.append(Prediction(
            code="clip_name", subject=shown("animation", i, name), state=AVAILABLE, handle=handle,
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
    nodes = items_of(gltf, "nodes")
    out: List[Prediction] = []
    reported: set = set()
    basis = ["threejs.sanitizeNodeName", "threejs.createUniqueName", "threejs.PropertyBinding.findNode_first"]
    if root is None:  # no scene: the clips are played on a model loaded from another file
        return _threejs_sceneless_nodes(animated, nodes, objects, basis)
    for n in animated:
        original = name_of(nodes[n]) if 0 <= n < len(nodes) else None
        subject = shown("node", n, original)
        if n not in in_scene or n not in objects:
            out.append(Prediction(
                code="node_binding_name", subject=subject, state=REQUIRED_UNAVAILABLE, handle=None,
                message="the node is not in the default scene, which an AnimationMixer on gltf.scene searches",
                basis=["threejs.default_scene"], reasons=["not_in_default_scene"], sources=[source_of("node", n, original)],
            ))
            continue
        name = objects[n].name
        if not name:
            out.append(Prediction(
                code="node_binding_name", subject=subject, state=AVAILABLE, handle=None,
                message="bound by the object's uuid (the node has no name), which is unique",
                basis=basis, sources=[source_of("node", n, original)],
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
                basis=basis, sources=[source_of("node", n, original)],
            ))
            continue
        if name in reported:
            continue
        reported.add(name)
        listed = ", ".join(shown(o.kind, o.index, o.original) for o in sharers)
        first = sharers[0]
        out.append(Prediction(
            code="node_binding_name", subject=f"'{name}'", state=REQUIRED_UNAVAILABLE, handle=name,
            message=(f"{listed} {'both' if len(sharers) == 2 else 'all'} end up named '{name}' in three.js; a track named '{name}' animates the first "
                     f"of them it finds ({shown(first.kind, first.index, first.original)})"),
            basis=basis, reasons=["node_name_collision"],
            sources=[source_of(o.kind, o.index, o.original) for o in sharers],
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
        original = name_of(nodes[n]) if 0 <= n < len(nodes) else None
        obj = objects.get(n)
        name = obj.name if obj is not None else ""
        if not name:
            out.append(Prediction(
                code="node_binding_name", subject=shown("node", n, original), state=REQUIRED_UNAVAILABLE,
                handle=None, message="the node has no name, and a clip played on another model binds its tracks by name",
                basis=["threejs.default_scene"], reasons=["unnamed_node_without_scene"],
                sources=[source_of("node", n, original)],
            ))
            continue
        sharers = by_name[name]
        if len(sharers) == 1:
            renamed = "" if name == original else f" (renamed from '{original}')"
            out.append(Prediction(
                code="node_binding_name", subject=shown("node", n, original), state=AVAILABLE, handle=name,
                message=(f"the file has no scene: played on another model, the tracks bind to its object "
                         f"named '{name}'{renamed}"),
                basis=basis + ["threejs.no_scene"], sources=[source_of("node", n, original)],
            ))
        elif name not in reported:
            reported.add(name)
            listed = ", ".join(shown("node", k, name_of(nodes[k])) for k in sharers)
            out.append(Prediction(
                code="node_binding_name", subject=f"'{name}'", state=REQUIRED_UNAVAILABLE, handle=name,
                message=f"{listed} all end up named '{name}' in three.js; their tracks animate one object",
                basis=basis + ["threejs.no_scene"], reasons=["node_name_collision"],
                sources=[source_of("node", k, name_of(nodes[k])) for k in sharers],
            ))
    return out


def predict_threejs(gltf: dict) -> List[Prediction]:
    return predict_threejs_clips(gltf) + predict_threejs_nodes(gltf)
