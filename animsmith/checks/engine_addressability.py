"""Predict how the runtime named in `[engine] profile` will address each clip and animated node.

Game code reaches a clip or a bone by a handle the runtime makes up on import: an
index label, a name it rewrites, the first of several equal names. A file can be
valid glTF and still leave a clip or a bone with no handle that reaches it. This
check applies the profile's naming rules to the file's glTF JSON, without running
the engine, and emits one **prediction facet** per item: `available` (the predicted
handle and the rules it rests on) or `required_unavailable` (reason codes). A
required-unavailable facet fails the run (exit 1) whatever `--allow` or a
`severity` says: only `enabled = false` (or `severity = "off"`) turns it off. The
check yields no findings and no coverage gaps; it runs only when the contract has
an `[engine]` table.

Profile `bevy` (version 0.19; bevy_gltf `GltfAssetLabel::Animation`): every
animation is loaded as the asset label `Animation{i}`, `i` its index in the
file's `animations` array. Names play no part, so unnamed and duplicate-named
clips are all available (`animation_asset_label`). The label changes when the
animations are reordered.

Profile `threejs` (version r187; three.js `GLTFLoader`, `AnimationClip`,
`PropertyBinding`):

- `clip_name`: a clip keeps its glTF name unchanged; an unnamed animation is
  called `animation_<i>` (GLTFLoader `loadAnimation`).
  `AnimationClip.findByName` returns the first clip of a name, so a later clip
  with the same name is required-unavailable (`duplicate_clip_name`).
- `node_binding_name`: every animated node's name as the loader leaves it.
  `PropertyBinding.sanitizeNodeName` turns each white-space character into `_`
  and removes `[ ] . : /` (`mixamorig:Hips` becomes `mixamorigHips`). Then
  GLTFLoader `createUniqueName` gives the k-th repeat of a name the suffix `_k`
  (`_1`, `_2`, ...) without checking the names the file already has. Scene,
  camera and light names and mesh primitives (`mesh_<i>` when unnamed) use up
  names too. So nodes `foot`, `foot` and `foot_1` give two objects named `foot_1`.
  The loader counts names in a plain JavaScript object, so a name every object
  inherits (`constructor`, `toString`, `valueOf`, `__proto__`, ...) is always
  renamed `<name>_NaN`: nodes `constructor` and `constructor_NaN` share a name.
- A track binds to the first object of its name that `PropertyBinding.findNode`
  meets: the scene root, then the default scene depth-first. A name carried by
  two animated nodes, or an animated node that the search meets after another
  object of its name, is one required-unavailable facet (`node_name_collision`)
  naming every item that carries the name: that track moves the wrong object.
  An animated node outside the default scene is required-unavailable
  (`not_in_default_scene`). An unnamed node is bound by its object's unique
  `uuid` (available, no handle).
- A file without a scene (an animation-only export) is played on a character
  loaded from another file: each animated node's predicted name is available as
  the name its tracks bind to on that model; two animated nodes that end up with
  one name (`node_name_collision`) or an unnamed one
  (`unnamed_node_without_scene`) are required-unavailable.
- Names are predicted in the loader's order: scenes and their nodes
  depth-first (a node before its camera and light, its children, then its
  skin's joints), then nodes only animations reach, then the other cameras,
  then mesh primitives (named once their geometry has loaded, taken here in
  the order their meshes are first reached).

Profile `godot` (version 4; Godot `GLTFDocument`, `AnimationLibrary`),
`animation_library_name`: a named clip is imported under its name with `.`,
`:`, `@`, `/`, `"` and `%` removed (`String.validate_node_name`) and `,` and `[`
replaced by `_` (`AnimationLibrary.validate_library_name`): `mixamo.com` is
imported as `mixamocom` (available). A name an earlier clip already took gets
`2`, `3`, ... appended (`_gen_unique_animation_name`): playing the clip's own
name plays the earlier clip, so the renamed one is required-unavailable
(`duplicate_clip_name`). An unnamed clip is called `Animation`, `Animation2`,
... (`_import_animation`), skipping the names of the nodes that are not skin
joints (`_assign_node_names`: a node named `Animation` shifts the number). When
that equals a named clip's name, the clip added to the library later replaces the
earlier one (`AnimationLibrary.add_animation`, clips added in file order): the
earlier clip is required-unavailable.

Sources the rules were read from: Bevy `bevy_gltf` `GltfAssetLabel`
(`Animation{i}`); three.js r187 `src/animation/PropertyBinding.js`
(`sanitizeNodeName`, `findNode`), `src/animation/AnimationClip.js` (`findByName`)
and `examples/jsm/loaders/GLTFLoader.js` (`createUniqueName`, `loadAnimation`,
`loadScene`, `loadNode`, `_loadNodeShallow`, `loadMesh`, `loadCamera`, the
`KHR_lights_punctual` light names); Godot `modules/gltf/gltf_document.cpp`
(`_sanitize_animation_name`, `_gen_unique_animation_name`, `_import_animation`,
`_assign_node_names`),
`core/string/ustring.cpp` (`String::validate_node_name`) and
`scene/resources/animation_library.cpp` (`validate_library_name`, `add_animation`). The three.js
node names were compared with three.js r187 itself on every shipped example and
corpus file.

Output: text shows a per-file `engine profile` line with the counts and one line
per required-unavailable facet (`--verbose` lists the available ones too); JSON
carries every facet under `files[].prediction_facets`, the profile under
`files[].prediction_provenance` and the counts under `summary.prediction_facets`.
"""

ID = "engine-addressability"
SEVERITY = "error"
SCOPE = "file"
ARMED_BY = "engine"
NEEDS = ("config: [engine] profile",)
CONFIG: dict = {}


def check(ctx):
    from animsmith.engine import predict

    engine = ctx.contract.engine
    if engine is None:
        return
    for prediction in predict(engine.profile, ctx.asset.gltf):
        yield ctx.facet(prediction)
