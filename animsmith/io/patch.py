"""Byte-preserving edits of an existing GLB (used by the transforms).

Only what an edit touches changes; everything else keeps its bytes:

* **In place**: a sampler output accessor that lives in the GLB BIN buffer,
  is dense (no ``sparse``), and whose element bytes overlap no other accessor
  and no raw buffer-view user (images, extensions) is rewritten in its own
  byte range — but only when every user of that accessor is a sampler the edit
  rewrites with the same key order. JSON and every other byte stay identical,
  except a rewritten clip's contact markers (``extras.animsmith_contacts``):
  their times describe the poses before the edit, so an edit that moves a pose
  in time drops them (:meth:`GlbPatch.forget_contact_markers`) and the JSON
  chunk is re-serialised as below.
* **Appended**: otherwise the sampler gets a new accessor (same componentType,
  ``normalized``, type, count, min/max) over a new bufferView appended to the
  end of the BIN chunk, and only that sampler's ``output`` is repointed. The
  shared accessor and its bytes are left alone. The JSON chunk is then
  re-serialised from the parsed document: every object, field, extension and
  extra survives with the same values (key order kept), but number spelling
  and whitespace may change.
* Quantised (normalized integer) outputs keep their encoding: elements are
  moved as raw bytes, never decoded and re-encoded, except for sparse or
  view-less accessors, whose decoded values are re-encoded to the same decoded values
  (the one integer that changes: -32768 / -128, which decode to -1.0 like -32767 / -127
  and come back as those; declared min/max are then recomputed).

The GLB container is rebuilt with the updated chunk lengths and 4-byte
padding (JSON with spaces, BIN with zeros); unknown chunks are kept in order.

Public API::

    GlbPatch(data)                      # parse (LoadError on a broken container)
    patch.permute_sampler_outputs(edits) -> PatchReport
    patch.to_bytes() -> bytes
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from animsmith.errors import AnimsmithError, LoadError

MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942
COMPONENT_BYTES = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}
COMPONENT_DTYPE = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
TYPE_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
NORMALIZE_DIVISOR = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}


def _element_bytes(data: bytes, count: int) -> List[bytes]:
    """``count`` equal slices of densely packed ``data`` (one accessor element each)."""
    size = len(data) // max(count, 1)
    return [data[k * size : (k + 1) * size] for k in range(count)]


def _pad(data: bytes, fill: bytes) -> bytes:
    return data + fill * (-len(data) % 4)


@dataclass
class SamplerEdit:
    """Rearrange the output elements of ``animations[animation].samplers[sampler]``:
    new element k = old element ``order[k]`` (a key-index mapping; the gait anchor's
    rotation over its cycle).

    ``values`` (optional, (count, C) float32) are the decoded outputs, used
    only when the accessor cannot be read as raw bytes (sparse / no view).
    """

    animation: int
    sampler: int
    order: Sequence[int]
    values: Optional[np.ndarray] = None


@dataclass
class PatchReport:
    """What the patch did: file-independent BIN byte ranges and JSON status."""

    in_place_accessors: List[int] = field(default_factory=list)
    new_accessors: List[int] = field(default_factory=list)
    rewritten_bin_ranges: List[Tuple[int, int]] = field(default_factory=list)
    appended_bin_range: Optional[Tuple[int, int]] = None
    json_changed: bool = False


def moves_keys(order: Sequence[int]) -> bool:
    """True when the key mapping ``order`` (new key k = old key ``order[k]``) puts some pose at
    another time. Every key but the last in place moves nothing; the last may also take the
    first key's pose, which a loop's closing key already shows (a rotation by 0 keys of a
    duplicated-endpoint loop)."""
    o = np.asarray(order, dtype=np.int64).reshape(-1)
    n = o.shape[0]
    if n == 0:
        return False
    return not (np.array_equal(o[:-1], np.arange(n - 1)) and int(o[-1]) in (0, n - 1))


class GlbPatch:
    """A parsed GLB that can be edited and re-serialised byte-preservingly."""

    def __init__(self, data: bytes):
        data = bytes(data)
        if len(data) < 12 or data[:4] != MAGIC:
            raise LoadError("not a GLB file (transforms edit .glb files only)")
        version, declared = struct.unpack_from("<II", data, 4)
        if version != 2 or declared < 12 or declared > len(data):
            raise LoadError(f"GLB header declares version {version}, {declared} bytes (file has {len(data)})")
        self.chunks: List[List[Any]] = []  # [type, bytes]
        off = 12
        while off < declared:
            if declared - off < 8:
                raise LoadError(f"truncated GLB chunk header at byte {off}")
            length, ctype = struct.unpack_from("<II", data, off)
            if length > declared - off - 8:
                raise LoadError(f"GLB chunk at byte {off} runs past the end of the file")
            self.chunks.append([ctype, data[off + 8 : off + 8 + length]])
            off += 8 + length
        if not self.chunks or self.chunks[0][0] != CHUNK_JSON:
            raise LoadError("GLB first chunk is not JSON")
        self.json_index = 0
        self.bin_index = next((i for i, c in enumerate(self.chunks) if c[0] == CHUNK_BIN), None)
        raw_json = self.chunks[0][1]
        try:
            self.doc = json.loads(raw_json.decode("utf-8").lstrip("\ufeff").rstrip(" \t\r\n\x00"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise LoadError(f"glTF JSON is invalid: {' '.join(str(exc).split())[:160]}") from None
        except RecursionError:
            raise LoadError("glTF JSON is nested too deeply to rewrite") from None
        if not isinstance(self.doc, dict):
            raise LoadError("glTF JSON must be an object")
        self.bin = bytearray(self.chunks[self.bin_index][1]) if self.bin_index is not None else None
        self.original_bin_length = None if self.bin is None else len(self.bin)
        self.json_changed = False
        self._overlap_cache = None

    # ---------------------------------------------------------------- lookup

    def _list(self, key: str) -> list:
        v = self.doc.get(key)
        return v if isinstance(v, list) else []

    def accessor_users(self) -> Dict[int, List[Tuple]]:
        """{accessor: [(kind, ...)]} for every reference the document makes.

        Kinds: ("output", anim, sampler), ("input", anim, sampler), ("attribute",),
        ("target",), ("indices",), ("ibm",), ("sparse",). Any ``attributes`` object anywhere
        (instancing extensions too) and every morph target of a ``targets`` list counts its
        values as accessors.
        """
        users: Dict[int, List[Tuple]] = {}

        def add(a: Any, use: Tuple) -> None:
            if type(a) is int:
                users.setdefault(a, []).append(use)

        for ai, anim in enumerate(self._list("animations")):
            if not isinstance(anim, dict):
                continue
            for si, s in enumerate(anim.get("samplers") or []):
                if isinstance(s, dict):
                    add(s.get("input"), ("input", ai, si))
                    add(s.get("output"), ("output", ai, si))
        for skin in self._list("skins"):
            if isinstance(skin, dict):
                add(skin.get("inverseBindMatrices"), ("ibm",))

        def walk(obj: Any) -> None:
            if isinstance(obj, dict):
                for k, v in obj.items():
                    if k == "attributes" and isinstance(v, dict):
                        for a in v.values():
                            add(a, ("attribute",))
                    elif k == "targets" and isinstance(v, list):  # primitive morph targets: {"POSITION": i, ...}
                        for target in v:
                            for a in target.values() if isinstance(target, dict) else ():
                                add(a, ("target",))
                    elif k == "indices" and type(v) is int:
                        add(v, ("indices",))
                    else:
                        walk(v)
            elif isinstance(obj, list):
                for v in obj:
                    walk(v)

        walk(self._list("meshes"))
        walk(self.doc.get("extensions"))
        walk(self._list("nodes"))
        return users

    def _view_raw_users(self) -> set:
        """Buffer views referenced by anything other than an accessor's own ``bufferView`` key."""
        raw: set = set()

        def walk(obj: Any, in_accessor_top: bool = False) -> None:
            if isinstance(obj, dict):
                for k, v in obj.items():
                    if k == "bufferView" and type(v) is int and not in_accessor_top:
                        raw.add(v)
                    else:
                        walk(v)
            elif isinstance(obj, list):
                for v in obj:
                    walk(v)

        for key, value in self.doc.items():
            if key == "accessors" and isinstance(value, list):
                for acc in value:
                    if isinstance(acc, dict):
                        for k, v in acc.items():
                            if k != "bufferView":
                                walk(v)  # sparse.indices/values.bufferView count as raw users
            else:
                walk(value)
        return raw

    def accessor_bin_range(self, ai: int) -> Optional[Tuple[int, int, int, int]]:
        """(start, end, stride, element bytes) of a dense accessor in the BIN buffer, else None."""
        try:
            return self._accessor_bin_range(ai)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError):
            return None

    def _accessor_bin_range(self, ai: int) -> Optional[Tuple[int, int, int, int]]:
        accs = self._list("accessors")
        views = self._list("bufferViews")
        buffers = self._list("buffers")
        acc = accs[ai]
        bv = acc.get("bufferView")
        if type(bv) is not int or not 0 <= bv < len(views):
            return None
        view = views[bv]
        if view.get("buffer") != 0 or not buffers or "uri" in buffers[0] or self.bin is None:
            return None
        width = TYPE_WIDTH.get(acc.get("type"))
        size = COMPONENT_BYTES.get(acc.get("componentType"))
        count = acc.get("count")
        if width is None or size is None or type(count) is not int or count < 1:
            return None
        elem = width * size
        stride = view.get("byteStride") or elem
        start = int(view.get("byteOffset", 0)) + int(acc.get("byteOffset", 0))
        end = start + stride * (count - 1) + elem
        if end > int(view.get("byteOffset", 0)) + int(view.get("byteLength", 0)) or end > len(self.bin):
            return None
        return start, end, stride, elem

    def _overlapped_accessors(self) -> set:
        """Accessors whose BIN byte range overlaps another accessor or a raw buffer-view user.

        One sort over all ranges (O(n log n)): an interval overlaps another when
        it starts before the running maximum end of the earlier ones, or when a
        later one starts before its own end.
        """
        if getattr(self, "_overlap_cache", None) is not None:
            return self._overlap_cache
        intervals = []  # (start, end, accessor or -1 for raw view users)
        views = self._list("bufferViews")
        for vi in self._view_raw_users():
            if type(vi) is int and 0 <= vi < len(views) and isinstance(views[vi], dict) and views[vi].get("buffer") == 0:
                v0 = int(views[vi].get("byteOffset", 0))
                intervals.append((v0, v0 + int(views[vi].get("byteLength", 0)), -1))
        for j, acc in enumerate(self._list("accessors")):
            if isinstance(acc, dict):
                rng = self.accessor_bin_range(j)
                if rng is not None:
                    intervals.append((rng[0], rng[1], j))
                    continue
                # unreadable layout on a BIN view: treat the whole view as taken
                bv = acc.get("bufferView")
                if type(bv) is int and 0 <= bv < len(views) and isinstance(views[bv], dict) and views[bv].get("buffer") == 0:
                    v0 = views[bv].get("byteOffset", 0)
                    v1 = views[bv].get("byteLength", 0)
                    if type(v0) is int and type(v1) is int:
                        intervals.append((v0, v0 + v1, -1))
                    else:
                        intervals.append((0, 1 << 62, -1))
        intervals.sort()
        bad = set()
        max_end, max_owner = -1, None
        for start, end, owner in intervals:
            if start < max_end:
                bad.add(owner)
                bad.add(max_owner)
            if end > max_end:
                max_end, max_owner = end, owner
        # an interval nested inside a long earlier one marks that one too (handled above: max_owner)
        self._overlap_cache = bad
        return bad

    def _exclusive(self, ai: int, rng: Tuple[int, int, int, int]) -> bool:
        """True when no other accessor and no raw view user overlaps the accessor's bytes."""
        return ai not in self._overlapped_accessors()

    def _elements(self, rng: Tuple[int, int, int, int], count: int) -> List[bytes]:
        start, _, stride, elem = rng
        return [bytes(self.bin[start + k * stride : start + k * stride + elem]) for k in range(count)]

    # ---------------------------------------------------------------- edits

    def forget_contact_markers(self, animations) -> None:
        """Drop the authored contact markers (``extras.animsmith_contacts``, docs/sim.md) of the
        given animations, whose keys are being moved in time: the markers' plant and lift times
        describe the poses before, and left behind they would put stance where a foot now swings
        (``foot-slide`` then decides stance by the contact-height rule)."""
        from animsmith.core.contacts import CONTACTS_KEY

        anims = self._list("animations")
        for a in sorted(set(int(a) for a in animations)):
            extras = anims[a].get("extras") if 0 <= a < len(anims) and isinstance(anims[a], dict) else None
            if isinstance(extras, dict) and CONTACTS_KEY in extras:
                del extras[CONTACTS_KEY]
                if not extras:
                    del anims[a]["extras"]
                self.json_changed = True

    def permute_sampler_outputs(self, edits: Sequence[SamplerEdit]) -> PatchReport:
        """Apply every edit (all computed from the ORIGINAL bytes); see the module docstring.
        The animations an edit moves keys of (:func:`moves_keys`) lose their contact markers
        (:meth:`forget_contact_markers`); a rotation by 0 keys keeps them, and the JSON."""
        report = PatchReport()
        accs = self._list("accessors")
        anims = self._list("animations")
        self.forget_contact_markers(e.animation for e in edits if moves_keys(e.order))
        users = self.accessor_users()
        # group edits by output accessor
        by_acc: Dict[int, List[SamplerEdit]] = {}
        for e in edits:
            out = anims[e.animation]["samplers"][e.sampler]["output"]
            by_acc.setdefault(int(out), []).append(e)
        # snapshot original raw elements before any write
        plans = []
        for ai, es in by_acc.items():
            acc = accs[ai]
            count = int(acc["count"])
            rng = None if "sparse" in acc else self.accessor_bin_range(ai)
            raw = self._elements(rng, count) if rng is not None else None
            edited = {("output", e.animation, e.sampler) for e in es}
            all_users = set(users.get(ai, []))
            for e in es:
                if len(e.order) != count or not all(0 <= int(k) < count for k in e.order):
                    raise AnimsmithError(f"sampler {e.sampler} of animation {e.animation}: key order does not fit its {count} outputs")
            same_order = len({tuple(int(k) for k in e.order) for e in es}) == 1
            in_place = (
                rng is not None
                and same_order
                and all_users == edited
                and len(users.get(ai, [])) == len(es)
                and self._exclusive(ai, rng)
            )
            plans.append((ai, es, count, rng, raw, in_place))
        for ai, es, count, rng, raw, in_place in plans:
            if in_place:
                order = [int(k) for k in es[0].order]
                start, _, stride, elem = rng
                for k in range(count):
                    src = raw[order[k]]
                    off = start + k * stride
                    self.bin[off : off + elem] = src
                self._refresh_bounds(accs[ai], raw, order)
                report.in_place_accessors.append(ai)
                report.rewritten_bin_ranges.append((rng[0], rng[1]))
                continue
            for e in es:
                order = [int(k) for k in e.order]
                if raw is not None:
                    elements = raw
                    data = b"".join(raw[k] for k in order)
                else:  # sparse or view-less: the decoded values, re-encoded
                    elements = _element_bytes(_encode(np.asarray(e.values), accs[ai]), count)
                    data = b"".join(elements[k] for k in order)
                new_ai = self._append_accessor(ai, data)
                # re-encoded values may not be the original integers (-32768 and -128 decode to
                # -1.0 like -32767 and -127 and come back as those): always check the bounds
                self._refresh_bounds(self.doc["accessors"][new_ai], elements, order, always=raw is None)
                anims[e.animation]["samplers"][e.sampler]["output"] = new_ai
                report.new_accessors.append(new_ai)
        if self.original_bin_length is not None and self.bin is not None and len(self.bin) > self.original_bin_length:
            report.appended_bin_range = (self.original_bin_length, len(self.bin))
        report.json_changed = self.json_changed
        return report

    def replace_sampler_outputs(self, replacements: Sequence[Tuple[int, int, np.ndarray]]) -> PatchReport:
        """Give ``animations[a].samplers[s]`` new float32 outputs ``values`` (count, C).

        Written in place when the old output is a dense float32, unstrided
        accessor of the same shape in the BIN buffer used only by that sampler
        and overlapping nothing else; otherwise a new FLOAT accessor (no
        min/max) is appended and the sampler repointed. The edited animations lose their
        contact markers (:meth:`forget_contact_markers`).
        """
        report = PatchReport()
        accs = self._list("accessors")
        anims = self._list("animations")
        self.forget_contact_markers(a for a, _, _ in replacements)
        users = self.accessor_users()
        for a, si, values in replacements:
            v = np.ascontiguousarray(values, dtype="<f4")
            sampler = anims[a]["samplers"][si]
            ai = int(sampler["output"])
            acc = accs[ai]
            rng = None if "sparse" in acc else self.accessor_bin_range(ai)
            ok = (
                rng is not None
                and acc.get("componentType") == 5126
                and not acc.get("normalized", False)
                and int(acc.get("count", -1)) == v.shape[0]
                and TYPE_WIDTH.get(acc.get("type")) == v.shape[1]
                and rng[2] == rng[3]
                and users.get(ai, []) == [("output", a, si)]
                and "min" not in acc
                and self._exclusive(ai, rng)
            )
            if ok:
                self.bin[rng[0] : rng[1]] = v.tobytes()
                report.in_place_accessors.append(ai)
                report.rewritten_bin_ranges.append((rng[0], rng[1]))
                continue
            new_ai = self._append_accessor(ai, v.tobytes())
            new = accs[new_ai] if new_ai < len(accs) else self.doc["accessors"][new_ai]
            for k in ("min", "max", "normalized"):
                new.pop(k, None)
            new["componentType"] = 5126
            new["count"] = int(v.shape[0])
            sampler["output"] = new_ai
            report.new_accessors.append(new_ai)
        if self.original_bin_length is not None and self.bin is not None and len(self.bin) > self.original_bin_length:
            report.appended_bin_range = (self.original_bin_length, len(self.bin))
        report.json_changed = self.json_changed
        return report

    def _refresh_bounds(self, acc: dict, elements: List[bytes], order: Sequence[int], always: bool = False) -> None:
        """Declared ``min``/``max`` of ``acc`` recomputed when the rearrangement ``order`` of its
        elements (raw bytes each) loses a distinct value (a duplicated loop endpoint whose closing
        key was not a bit-identical copy, replaced by one): per component, in the component
        type's own domain (integers for integer types, as the glTF validator requires), and
        written only where a bound really changes, so an exact copy or a permutation leaves the
        JSON alone. ``always``: compare the bounds even when no value is lost (re-encoded data).
        """
        if "min" not in acc and "max" not in acc:
            return
        if not always and set(elements[k] for k in order) == set(elements):
            return
        ctype, width = acc.get("componentType"), TYPE_WIDTH.get(acc.get("type"))
        if ctype not in COMPONENT_DTYPE or not width:
            return
        dtype = np.dtype(COMPONENT_DTYPE[ctype])
        new = np.frombuffer(b"".join(elements[k] for k in order), dtype=dtype).reshape(len(order), width)
        for key, bound in (("min", new.min(axis=0)), ("max", new.max(axis=0))):
            declared = acc.get(key)
            try:
                same = declared is not None and np.array_equal(np.asarray(declared, dtype=dtype), bound)
            except (TypeError, ValueError, OverflowError):
                same = False
            if declared is not None and not same:
                acc[key] = [float(x) for x in bound] if ctype == 5126 else [int(x) for x in bound]
                self.json_changed = True

    def _append_accessor(self, source: int, data: bytes) -> int:
        """New bufferView + accessor (copy of accessor ``source`` minus view/offset/sparse) over ``data``."""
        buffers = self._list("buffers")
        if self.bin is None:
            if buffers:
                kind = "a data: URI" if str((buffers[0] or {}).get("uri", "")).startswith("data:") else "an external file"
                raise AnimsmithError(f"cannot add data: the GLB has no BIN chunk and its first buffer is {kind}")
            self.bin = bytearray()
            self.original_bin_length = 0
            self.doc["buffers"] = [{"byteLength": 0}]
            buffers = self.doc["buffers"]
            self.chunks.append([CHUNK_BIN, b""])
            self.bin_index = len(self.chunks) - 1
        elif not buffers or not isinstance(buffers[0], dict) or "uri" in buffers[0]:
            raise AnimsmithError("cannot add data: the GLB's first buffer is not its BIN chunk")
        while len(self.bin) % 4:
            self.bin.append(0)
        offset = len(self.bin)
        self.bin.extend(data)
        buffers[0]["byteLength"] = len(self.bin)
        views = self.doc.setdefault("bufferViews", [])
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(data)})
        old = self._list("accessors")[source]
        new = {k: v for k, v in old.items() if k not in ("bufferView", "byteOffset", "sparse")}
        new["bufferView"] = len(views) - 1
        accs = self.doc["accessors"]
        accs.append(new)
        self.json_changed = True
        return len(accs) - 1

    # ---------------------------------------------------------------- output

    def to_bytes(self) -> bytes:
        """The GLB container: header, JSON, BIN (padded), other chunks in their order."""
        out_chunks = []
        for i, (ctype, body) in enumerate(self.chunks):
            if i == self.json_index:
                if self.json_changed:
                    try:
                        text = json.dumps(self.doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
                    except (RecursionError, ValueError) as exc:
                        raise AnimsmithError(f"cannot re-serialise the glTF JSON: {type(exc).__name__}") from None
                    body = _pad(text.encode("utf-8"), b" ")
            elif i == self.bin_index and self.bin is not None:
                body = _pad(bytes(self.bin), b"\x00")
            out_chunks.append(struct.pack("<II", len(body), ctype) + body)
        payload = b"".join(out_chunks)
        return MAGIC + struct.pack("<II", 2, 12 + len(payload)) + payload


def _encode(values: np.ndarray, acc: dict) -> bytes:
    """Decoded float32 values -> raw bytes in the accessor's encoding (the same decoded values;
    a normalized -32768 / -128 comes back as -32767 / -127, which decode to the same -1.0)."""
    ctype = acc.get("componentType")
    v = np.asarray(values, dtype=np.float32)
    if ctype == 5126:
        return v.astype("<f4").tobytes()
    if acc.get("normalized"):
        div = NORMALIZE_DIVISOR[ctype]
        raw = np.rint(v.astype(np.float64) * div)
        return raw.astype(COMPONENT_DTYPE[ctype]).tobytes()
    return v.astype(COMPONENT_DTYPE[ctype]).tobytes()
