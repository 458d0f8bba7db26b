"""The versioned engine profiles (one record per runtime: versions, what is predicted, where each
rule was read) and the helpers every profile's rules share to name glTF items as a user finds them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

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


def name_of(item: Any) -> Optional[str]:
    """The glTF ``name`` of a JSON object, or None (absent or not a string)."""
    if isinstance(item, dict):
        name = item.get("name")
        if isinstance(name, str):
            return name
    return None


def items_of(gltf: dict, key: str) -> List[Any]:
    value = gltf.get(key)
    return value if isinstance(value, list) else []


def source_of(kind: str, index: int, name: Optional[str]) -> Dict[str, Any]:
    return {"kind": kind, "index": index, "name": name}


def shown(kind: str, index: int, name: Optional[str]) -> str:
    """``animations[2] 'walk'`` / ``nodes[5] (unnamed)``: an item as a user finds it."""
    plural = {"animation": "animations", "node": "nodes", "mesh": "meshes", "scene": "scenes",
              "camera": "cameras", "light": "lights"}[kind]
    return f"{plural}[{index}] " + (f"'{name}'" if name else "(unnamed)")
