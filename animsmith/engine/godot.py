"""Godot's rules (4.x): how the glTF importer names animations in the imported
AnimationLibrary (sanitising, making names unique, replacing on a repeated name)."""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from animsmith.engine.profiles import AVAILABLE, REQUIRED_UNAVAILABLE, items_of, name_of, shown, source_of
from animsmith.results import Prediction


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
    for skin in items_of(gltf, "skins"):
        js = skin.get("joints") if isinstance(skin, dict) else None
        joints.update(j for j in (js if isinstance(js, list) else []) if isinstance(j, int) and not isinstance(j, bool))
    taken: set = set()
    for i, node in enumerate(items_of(gltf, "nodes")):
        name = name_of(node)
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
    anims = items_of(gltf, "animations")
    names = [name_of(a) for a in anims]
    imported = godot_animation_names(names, godot_node_names(gltf))
    # GLTFDocument adds the clips to the library in file order and AnimationLibrary.add_animation
    # replaces an animation of the same name: per name, the last clip added is the one it plays
    last: Dict[str, int] = {}
    for i, (handle, _, _) in enumerate(imported):
        last[handle] = i
    out = []
    for i, (handle, base, renamed) in enumerate(imported):
        name = names[i]
        src = [source_of("animation", i, name)]
        basis = ["godot.sanitize_animation_name", "godot.gen_unique_animation_name"]
        if not name:
            basis = basis + ["godot.import_animation_unnamed"]
        if renamed:
            j = next(k for k in range(i) if imported[k][0] == base)
            out.append(Prediction(
                code="animation_library_name", subject=shown("animation", i, name), state=REQUIRED_UNAVAILABLE,
                handle=handle,
                message=(f"imported as '{handle}': '{base}' is animations[{j}]'s, so playing '{base}' plays "
                         "that clip instead"),
                basis=basis, reasons=["duplicate_clip_name"], sources=[source_of("animation", j, names[j])] + src,
            ))
        elif last[handle] != i:  # an unnamed clip's Animation<k> equals a named clip's name
            j = last[handle]
            out.append(Prediction(
                code="animation_library_name", subject=shown("animation", i, name), state=REQUIRED_UNAVAILABLE,
                handle=handle,
                message=(f"named '{handle}' on import, as animations[{j}] is; the library keeps the one added last "
                         f"(animations[{j}]), so this clip is gone"),
                basis=basis + ["godot.animation_library_add_replaces"], reasons=["duplicate_clip_name"],
                sources=src + [source_of("animation", j, names[j])],
            ))
        else:
            how = ("the importer's name for an unnamed animation" if not name
                   else "its glTF name" if handle == name else f"'{name}' with the characters Godot refuses removed")
            out.append(Prediction(
                code="animation_library_name", subject=shown("animation", i, name), state=AVAILABLE, handle=handle,
                message=f"imported as '{handle}' ({how})", basis=basis, sources=src,
            ))
    return out
