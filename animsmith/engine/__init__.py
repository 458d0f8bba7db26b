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

Each runtime's rules live in a module of their own (:mod:`.bevy`, :mod:`.threejs`,
:mod:`.godot`); :mod:`.profiles` holds the versioned records and the helpers that name
glTF items the way a user finds them. This package face hands the rules on.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from animsmith.engine.bevy import bevy_animation_label, predict_bevy
from animsmith.engine.godot import (
    godot_animation_names,
    godot_node_names,
    godot_sanitize_animation_name,
    predict_godot,
)
from animsmith.engine.profiles import AVAILABLE, PROFILES, REQUIRED_UNAVAILABLE, Profile
from animsmith.engine.threejs import (
    ThreeObject,
    ThreeUniqueNames,
    predict_threejs,
    predict_threejs_clips,
    predict_threejs_nodes,
    threejs_clip_name,
    threejs_sanitize_node_name,
    threejs_scene_objects,
)
from animsmith.results import Prediction

__all__ = [
    "AVAILABLE", "PREDICTORS", "PROFILES", "REQUIRED_UNAVAILABLE", "Profile", "ThreeObject", "ThreeUniqueNames",
    "bevy_animation_label", "godot_animation_names", "godot_node_names", "godot_sanitize_animation_name",
    "predict", "predict_bevy", "predict_godot", "predict_threejs", "predict_threejs_clips",
    "predict_threejs_nodes", "provenance", "threejs_clip_name", "threejs_sanitize_node_name",
    "threejs_scene_objects",
]

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
