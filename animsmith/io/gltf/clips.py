"""glTF animations -> :class:`~animsmith.model.Clip` objects. The bulk path takes the
common layout (float accessors, LINEAR/STEP, node channels only) with checks over whole
lists; anything else, and every problem, goes through the channel-by-channel path,
which reports the first problem in file order. Key-time accessors holding equal bytes
share one array; the pose-grid and channel-key budgets refuse files whose grids or
channels would dwarf them."""

from __future__ import annotations

from itertools import chain, repeat
from math import isfinite
from typing import Dict, List, Optional, Tuple

import numpy as np

from animsmith.errors import LoadError
from animsmith.io.gltf.accessors import COMPONENT_NAME, FLOAT, NORMALIZE_DIVISOR, Accessors, decode_float_accessors
from animsmith.io.gltf.document import json_key
from animsmith.io.gltf.fields import as_array, as_name, as_object, bad_index, int_list_in_range, show_value
from animsmith.io.gltf.resources import DECODE_FLOOR_COMPONENTS
from animsmith.memo import memo
from animsmith.model import INTERPOLATIONS, PATH_WIDTH, Channel, Clip, Skeleton

#: pose-grid budget (bone-frames summed over clips), see check_grid_budget
GRID_FLOOR_CELLS = 16 * 1024
GRID_CELLS_PER_INPUT_BYTE = 2
#: channel-key budget (output components summed over every clip's channels), see
#: check_key_budget; the floor is the decode budget's. 8: a clip library whose equal-length
#: clips share their constant tracks (glTF-Transform ``dedup``) reads 2-3 per byte
KEY_COMPONENTS_PER_INPUT_BYTE = 8
_PATH_SET = frozenset(("translation", "rotation", "scale"))
_LINEAR_OR_STEP = frozenset(("LINEAR", "STEP"))
_OUTPUT_TYPE = {"translation": "VEC3", "rotation": "VEC4", "scale": "VEC3"}
#: Checked channel layouts (:func:`_channel_layout`) by the exact JSON text of
#: ``animations`` plus node and accessor counts: the files of a pack exported
#: with one animation layout check their channels and samplers once.
_LAYOUTS: Dict[bytes, tuple] = {}
_LAYOUTS_MAX = 64


def _type_label(ctype: int, atype: str, normalized: bool) -> str:
    return f"{atype} {COMPONENT_NAME.get(ctype, ctype)}{' normalized' if normalized else ''}"


def _check_output(meta: Tuple[int, str, int, bool], path: str, ai: int, where: str) -> None:
    ctype, atype, _, normalized = meta
    if path == "rotation":
        ok = atype == "VEC4" and (ctype == FLOAT or (normalized and ctype in NORMALIZE_DIVISOR))
        expected = "VEC4 FLOAT or VEC4 normalized BYTE/UNSIGNED_BYTE/SHORT/UNSIGNED_SHORT"
    else:
        ok = atype == "VEC3" and ctype == FLOAT
        expected = "VEC3 FLOAT"
    if not ok:
        raise LoadError(
            f"{where}: output accessor {ai} is {_type_label(ctype, atype, normalized)}, expected {expected}"
        )


def _times_problem(times: np.ndarray) -> Optional[str]:
    """Why ``times`` are not finite and strictly increasing, or None.

    Fast path: strictly increasing (NaN compares false) with finite first and
    last keys implies every key is finite.
    """
    k_last = times.shape[0] - 1
    if (k_last == 0 or bool((times[1:] > times[:-1]).all())) and isfinite(times[0]) and isfinite(times[k_last]):
        return None
    finite = np.isfinite(times)
    if not finite.all():
        k = int(np.argmin(finite))
        return f"non-finite key time {float(times[k])} at key {k}"
    steps_ok = times[1:] > times[:-1]
    k = int(np.argmin(steps_ok)) + 1
    return f"key times not strictly increasing (key {k}: {float(times[k]) + 0.0:g} after {float(times[k - 1]) + 0.0:g})"


def real_names(items: list) -> set:
    """The non-empty string ``name``s of a list of JSON objects (anything else ignored)."""
    return {x.get("name") for x in items if type(x) is dict and type(x.get("name")) is str and x.get("name")}


def _unique_name(base: str, used: set, repeats: Dict[str, int], reserved: frozenset = frozenset(), own: bool = True) -> str:
    """``base``, or ``base#1``, ``base#2``... for repeats (never colliding).

    ``reserved``: the names the file itself gives (a generated name never takes one);
    ``own``: ``base`` is the item's own name (else a generated ``animation<i>``).
    """
    if base not in used and (own or base not in reserved):
        used.add(base)
        repeats.setdefault(base, 1)
        return base
    k = repeats.get(base, 1)
    while f"{base}#{k}" in used or f"{base}#{k}" in reserved:
        k += 1
    repeats[base] = k + 1
    name = f"{base}#{k}"
    used.add(name)
    return name


def _split_triplets(values: np.ndarray, keys: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CUBICSPLINE output (3K, C) -> (in-tangents, values, out-tangents), each (K, C).

    glTF stores per key k the triplet [a_k, v_k, b_k] at rows 3k, 3k+1, 3k+2.
    """
    triplets = values.reshape(keys, 3, values.shape[1])
    return (
        np.ascontiguousarray(triplets[:, 0]),
        np.ascontiguousarray(triplets[:, 1]),
        np.ascontiguousarray(triplets[:, 2]),
    )


def build_clips(doc: dict, skeleton: Skeleton, acc: Accessors, strict: bool) -> List[Clip]:
    """One :class:`Clip` per glTF animation (see the module docstring).

    The bulk path handles the common layout (float accessors, LINEAR/STEP,
    node channels only); anything else, and every problem, goes through the
    per-channel path, which reports the first problem in file order.
    """
    clips = _build_clips_bulk(doc, skeleton, acc, strict)
    return clips if clips is not None else _build_clips_general(doc, skeleton, acc, strict)


def _build_clips_general(doc: dict, skeleton: Skeleton, acc: Accessors, strict: bool) -> List[Clip]:
    """One :class:`Clip` per glTF animation, validated channel by channel."""
    n_nodes = skeleton.bone_count
    n_acc = len(acc.accessors)
    bone_of = skeleton._bone_of_node
    meta_cache = acc.meta_cache
    times_cache = acc.times_cache
    times_checked: Dict[int, Optional[str]] = {}
    cubic_cache: Dict[int, Tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    clips: List[Clip] = []
    used: set = set()
    repeats: Dict[str, int] = {}
    anims = as_array(doc, "animations", "animations")
    reserved = frozenset(real_names(anims))
    for a_i, anim in enumerate(anims):
        anim = as_object(anim, f"animation {a_i}")
        base = as_name(anim.get("name"), "", f"animation {a_i}")
        own = bool(base)
        base = base or f"animation{a_i}"
        name = _unique_name(base, used, repeats, reserved, own)
        samplers = as_array(anim, "samplers", f"animation {a_i} samplers")
        n_samp = len(samplers)
        channels: List[Channel] = []
        weights = 0
        pointers = 0
        for c_i, ch in enumerate(as_array(anim, "channels", f"animation {a_i} channels")):
            if type(ch) is not dict:
                raise LoadError(f"animation {a_i} {base!r} channel {c_i} must be a JSON object, got {show_value(ch)}")
            target = ch.get("target")
            if type(target) is not dict:
                raise LoadError(f"animation {a_i} {base!r} channel {c_i} target must be a JSON object, got {show_value(target)}")
            node = target.get("node")
            if node is None:  # e.g. KHR_animation_pointer: not a node property (counted, skipped)
                pointers += 1
                continue
            if type(node) is not int or not 0 <= node < n_nodes:
                raise bad_index(node, n_nodes, f"animation {a_i} {base!r} channel {c_i} target node")
            s_i = ch.get("sampler")
            if type(s_i) is not int or not 0 <= s_i < n_samp:
                raise bad_index(s_i, n_samp, f"animation {a_i} {base!r} channel {c_i} sampler")
            path = target.get("path")
            if path == "weights":
                weights += 1
                continue
            if type(path) is not str or path not in PATH_WIDTH:
                raise LoadError(f"animation {a_i} {base!r} channel {c_i}: unknown target path {show_value(path)}")
            sampler = samplers[s_i]
            if type(sampler) is not dict:
                raise LoadError(f"animation {a_i} sampler {s_i} must be a JSON object, got {show_value(sampler)}")
            interp = sampler.get("interpolation", "LINEAR")
            if interp not in INTERPOLATIONS:
                raise LoadError(f"animation {a_i} {base!r} channel {c_i}: unknown interpolation {show_value(interp)}")
            in_i = sampler.get("input")
            if type(in_i) is not int or not 0 <= in_i < n_acc:
                raise bad_index(in_i, n_acc, f"animation {a_i} {base!r} channel {c_i} input accessor")
            out_i = sampler.get("output")
            if type(out_i) is not int or not 0 <= out_i < n_acc:
                raise bad_index(out_i, n_acc, f"animation {a_i} {base!r} channel {c_i} output accessor")

            times = times_cache.get(in_i)
            if times is None:
                in_meta = meta_cache.get(in_i) or acc.meta(in_i)
                if in_meta[0] != FLOAT or in_meta[1] != "SCALAR":
                    raise LoadError(
                        f"animation {a_i} {base!r} channel {c_i}: input accessor {in_i} is "
                        f"{_type_label(in_meta[0], in_meta[1], in_meta[3])}, expected SCALAR FLOAT"
                    )
                times = acc.decode(in_i).reshape(-1)
                times = acc.times_by_bytes.setdefault((times.dtype.str, times.tobytes()), times)
                times_cache[in_i] = times
            out_meta = meta_cache.get(out_i) or acc.meta(out_i)
            ctype, atype, out_count, normalized = out_meta
            if path == "rotation":
                if atype != "VEC4" or (ctype != FLOAT and not (normalized and ctype in NORMALIZE_DIVISOR)):
                    _check_output(out_meta, path, out_i, f"animation {a_i} {base!r} channel {c_i}")
            elif atype != "VEC3" or ctype != FLOAT:
                _check_output(out_meta, path, out_i, f"animation {a_i} {base!r} channel {c_i}")
            keys = times.shape[0]
            cubic = interp == "CUBICSPLINE"
            if out_count != (3 * keys if cubic else keys):
                raise LoadError(
                    f"animation {a_i} {base!r} channel {c_i}: {keys} key times but {out_count} output values "
                    f"(expected {3 * keys if cubic else keys} for {interp})"
                )
            if strict:
                problem = times_checked.get(in_i, 0)
                if problem == 0:
                    problem = times_checked[in_i] = _times_problem(times)
                if problem is not None:
                    raise LoadError(f"animation {a_i} {base!r} channel {c_i}: {problem}")
            values = acc.cache.get(out_i)
            if values is None:
                values = acc.decode(out_i)
            in_t = out_t = None
            if cubic:
                split = cubic_cache.get(out_i)
                if split is None:
                    split = cubic_cache[out_i] = _split_triplets(values, keys)
                in_t, values, out_t = split
            channels.append(
                Channel(bone_of[node], node, path, interp, times, values, in_t, out_t, s_i, in_i, out_i, ctype, normalized)
            )
        clips.append(Clip(name, channels, a_i, weights, anim.get("extras"), pointer_channel_count=pointers))
    return clips


def _channel_table(anim: dict, n_nodes: int, n_acc: int) -> Optional[Tuple[list, list, list, list, list, list]]:
    """(nodes, paths, sampler indices, interpolations, input and output
    accessors) of one animation's channels, checked over whole lists; None when
    any check fails, when a channel is not a node TRS channel (weights,
    pointer) or uses CUBICSPLINE. ``dict.get`` on a non-object raises
    TypeError, which the caller turns into None."""
    get = dict.get
    chans = get(anim, "channels")
    samplers = get(anim, "samplers")
    chans = [] if chans is None else chans
    samplers = [] if samplers is None else samplers
    if type(chans) is not list or type(samplers) is not list:
        return None
    targets = list(map(get, chans, repeat("target")))
    nodes = list(map(get, targets, repeat("node")))
    paths = list(map(get, targets, repeat("path")))
    s_idx = list(map(get, chans, repeat("sampler")))
    # the sets hold only strings: a non-string never passes
    if not _PATH_SET.issuperset(paths) or not int_list_in_range(nodes, n_nodes) or not int_list_in_range(s_idx, len(samplers)):
        return None
    used = list(map(samplers.__getitem__, s_idx))
    interps = list(map(get, used, repeat("interpolation"), repeat("LINEAR")))
    inputs = list(map(get, used, repeat("input")))
    outputs = list(map(get, used, repeat("output")))
    if not _LINEAR_OR_STEP.issuperset(interps) or not int_list_in_range(inputs + outputs, n_acc):
        return None
    return nodes, paths, s_idx, interps, inputs, outputs


def _build_clips_bulk(doc: dict, skeleton: Skeleton, acc: Accessors, strict: bool) -> Optional[List[Clip]]:
    """``_build_clips_general`` for files without problems, with the checks run
    over whole lists (``map``/``set`` in C) and each accessor decoded once;
    None when anything is unusual or wrong (the general path then runs from
    scratch: nothing here changes ``acc`` unless it succeeds)."""
    try:
        return _bulk_clips(doc, skeleton, acc, strict)
    except (TypeError, ValueError, KeyError, IndexError, OverflowError):
        return None


def _channel_layout(anims: list, n_nodes: int, n_acc: int) -> Optional[tuple]:
    """(channel tables, {accessor: expected type}, input accessors) of ``anims``,
    or None when a channel, sampler or accessor use is not the plain kind the
    bulk path takes (:func:`_channel_table`)."""
    tables = []
    for anim in anims:
        table = _channel_table(anim, n_nodes, n_acc)
        if table is None:
            return None
        tables.append(table)
    want: Dict[int, str] = {}
    for nodes, paths, s_idx, interps, inputs, outputs in tables:
        out_types = list(map(_OUTPUT_TYPE.__getitem__, paths))
        want.update(zip(outputs, out_types))
        if list(map(want.__getitem__, outputs)) != out_types:
            return None  # one output accessor used as VEC3 and VEC4
    all_inputs = list(chain.from_iterable(t[4] for t in tables))
    if not want.keys().isdisjoint(all_inputs):
        return None
    want.update(zip(all_inputs, repeat("SCALAR")))
    return tables, want, all_inputs


def _bulk_clips(doc: dict, skeleton: Skeleton, acc: Accessors, strict: bool) -> Optional[List[Clip]]:
    anims = doc.get("animations")
    if type(anims) is not list or not anims:
        return None
    n_acc = len(acc.accessors)
    key = json_key(anims, skeleton.bone_count, n_acc)
    layout = memo(_LAYOUTS, _LAYOUTS_MAX, key, lambda: _channel_layout(anims, skeleton.bone_count, n_acc))
    if layout is None:
        return None
    tables, want, all_inputs = layout
    decoded = decode_float_accessors(acc, want)
    if decoded is None:
        return None
    arrays, components = decoded
    inputs = set(all_inputs)
    _share_equal_times(arrays, inputs)
    if strict:  # each distinct key-time content once (equal bytes: the same answer)
        times = list(map(arrays.__getitem__, inputs))
        if any(map(_times_problem, dict(zip(map(id, times), times)).values())):
            return None
    clips = _bulk_clip_objects(anims, tables, skeleton, arrays)
    if clips is not None:
        acc.budget.used += components
    return clips


def _share_equal_times(arrays: Dict[int, np.ndarray], inputs) -> None:
    """Key-time accessors of one file that hold the same bytes become one array object.

    Exporters such as three.js's GLTFExporter and COLLADA2GLTF write one key-time
    accessor per channel, all holding the clip's frame times; sharing one array lets
    everything that works once per distinct key-time array (sampling groups, the grid's
    snap to keys, duration and monotonicity facts) do that work once per clip instead
    of once per channel. Equal bytes are equal float32 times, so every result is the same.
    (Every array here is a native float32 view: the bytes alone identify the content.)
    """
    ids = sorted(inputs)
    times = list(map(arrays.__getitem__, ids))
    first: Dict[bytes, np.ndarray] = {}
    arrays.update(zip(ids, map(first.setdefault, map(np.ndarray.tobytes, times), times)))


def _bulk_clip_objects(anims: list, tables: list, skeleton: Skeleton, arrays: dict) -> Optional[List[Clip]]:
    """Clip and Channel objects from checked channel tables (None when a key
    count differs from its output count or a name is not a string)."""
    bone_of = skeleton._bone_of_node
    clips: List[Clip] = []
    used: set = set()
    repeats: Dict[str, int] = {}
    reserved = frozenset(real_names(anims))
    for a_i, (anim, (nodes, paths, s_idx, interps, inputs, outputs)) in enumerate(zip(anims, tables)):
        times = list(map(arrays.__getitem__, inputs))
        values = list(map(arrays.__getitem__, outputs))
        if list(map(len, times)) != list(map(len, values)):
            return None
        base = anim.get("name")
        own = not (base is None or base == "")
        if not own:
            base = f"animation{a_i}"
        elif type(base) is not str:
            return None
        channels = list(
            map(
                Channel,
                map(bone_of.__getitem__, nodes), nodes, paths, interps, times, values,
                repeat(None), repeat(None), s_idx, inputs, outputs, repeat(FLOAT), repeat(False),
            )
        )
        clips.append(Clip(_unique_name(base, used, repeats, reserved, own), channels, a_i, 0, anim.get("extras"), pointer_channel_count=0))
    return clips


def check_grid_budget(clips: List[Clip], bone_count: int, input_bytes: int) -> None:
    """Refuse files whose pose grids would dwarf the file: the sum over clips of
    ``max(2, largest key count) x bone count`` (the cells the judged grids hold,
    ~0.4 KB each) may be at most ``max(GRID_FLOOR_CELLS, GRID_CELLS_PER_INPUT_BYTE
    x input bytes)``. Real files use under 0.1 cell per byte; a few hundred bytes
    of JSON naming one long key track under a deep chain of nodes would
    otherwise cost gigabytes."""
    cap = max(GRID_FLOOR_CELLS, GRID_CELLS_PER_INPUT_BYTE * input_bytes)
    cells = 0
    for clip in clips:
        keys = max(2, clip.max_key_count)
        cells += keys * max(1, bone_count)
        if cells > cap:
            raise LoadError(
                f"animation {clip.index} {show_value(clip.name)}: pose grids would hold {cells} bone-frames "
                f"(key count x {bone_count} nodes, summed over clips); the cap for this file is {cap} "
                f"(max(16Ki, 2 x file size))"
            )


def check_key_budget(clips: List[Clip], input_bytes: int) -> None:
    """Refuse files whose channels would hold far more key components than the file
    stores: the sum over every clip's channels of their output components (values and
    CUBICSPLINE tangents) may be at most ``max(1 Mi, 8 x input bytes)``. An accessor
    that many channels read counts once per channel, because the checks read every
    channel's keys (up to ~32 bytes of memory per component): 20,000 channels naming one
    10,000-key accessor (a 1.7 MB file) would otherwise make them hold 800 million
    components (over 16 GB). A file whose channels each read their own accessor holds at
    most one component per byte (0.25 for float keys); an optimiser that stores identical
    accessors once (glTF-Transform ``dedup``) lets every clip of one length share its
    constant tracks, and a 65-bone library of twenty 10 s clips keyed on every bone then
    holds 2 components per byte, 2.4 with 60 s clips: the cap leaves room for that."""
    cap = max(DECODE_FLOOR_COMPONENTS, KEY_COMPONENTS_PER_INPUT_BYTE * input_bytes)
    components = 0
    for clip in clips:
        for ch in clip.channels:
            components += ch.values.size
            if ch.in_tangents is not None:
                components += ch.in_tangents.size + ch.out_tangents.size
        if components > cap:
            raise LoadError(
                f"animation {clip.index} {show_value(clip.name)}: channels would hold {components} key components "
                f"(an accessor counts once per channel that reads it; summed over clips); the cap for this file "
                f"is {cap} (max(1Mi, 8 x file size))"
            )
