"""Bevy's rule: a glTF animation is the asset label ``Animation{i}``, by index (bevy_gltf
``GltfAssetLabel::Animation``); names play no part."""

from __future__ import annotations

from typing import List

from animsmith.engine.profiles import AVAILABLE, items_of, name_of, shown, source_of
from animsmith.results import Prediction


def bevy_animation_label(index: int) -> str:
    """Bevy's label of the glTF animation at ``index`` (GltfAssetLabel::Animation): names play no part."""
    return f"Animation{index}"


def predict_bevy(gltf: dict) -> List[Prediction]:
    out = []
    for i, anim in enumerate(items_of(gltf, "animations")):
        name = name_of(anim)
        label = bevy_animation_label(i)
        out.append(Prediction(
            code="animation_asset_label", subject=shown("animation", i, name), state=AVAILABLE, handle=label,
            message=f"loaded as the asset label '{label}' (by index; the clip's name plays no part)",
            basis=["bevy.gltf_asset_label_animation_index"], sources=[source_of("animation", i, name)],
        ))
    return out
