"""Build a reproducible pack of Mixamo-class clips for benchmarks.

    python benchmarks/pack.py OUT_DIR [--clips 1000] [--seed 7]

Each file holds one clip named ``mixamo.com`` (as real Mixamo packs do) on a
65-joint Mixamo skeleton, 30 fps, 1–2 s, LINEAR keys on every joint's
rotation plus the hips translation; every other clip carries root motion.
Every 4 consecutive files form a directional ring declared in
``OUT_DIR/animsmith.toml`` as a cross-file gait group and sync group.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from animsmith.core import quat  # noqa: E402
from animsmith.io.write import asset_to_glb  # noqa: E402
from animsmith.model import Asset, Channel, Clip, Skeleton  # noqa: E402

FINGERS = ("Thumb", "Index", "Middle", "Ring", "Pinky")


def mixamo_bones():
    """(names, parents, rest translations) of the 65-joint Mixamo skeleton."""
    names, parents, offsets = [], [], []

    def add(name, parent, off):
        names.append("mixamorig:" + name)
        parents.append(-1 if parent is None else names.index("mixamorig:" + parent))
        offsets.append(off)

    add("Hips", None, (0, 1.0, 0))
    chain = [("Spine", (0, 0.10, 0)), ("Spine1", (0, 0.12, 0)), ("Spine2", (0, 0.13, 0)),
             ("Neck", (0, 0.15, 0)), ("Head", (0, 0.10, 0)), ("HeadTop_End", (0, 0.18, 0))]
    prev = "Hips"
    for n, off in chain:
        add(n, prev, off)
        prev = n
    for side, sx in (("Left", 1.0), ("Right", -1.0)):
        add(f"{side}Shoulder", "Spine2", (0.06 * sx, 0.12, 0))
        add(f"{side}Arm", f"{side}Shoulder", (0.12 * sx, 0, 0))
        add(f"{side}ForeArm", f"{side}Arm", (0.26 * sx, 0, 0))
        add(f"{side}Hand", f"{side}ForeArm", (0.25 * sx, 0, 0))
        for f_i, f in enumerate(FINGERS):
            parent = f"{side}Hand"
            for k in range(1, 5):
                off = (0.03 * sx, 0, 0.01 * (f_i - 2)) if k == 1 else (0.025 * sx, 0, 0)
                add(f"{side}Hand{f}{k}", parent, off)
                parent = f"{side}Hand{f}{k}"
    for side, sx in (("Left", 1.0), ("Right", -1.0)):
        add(f"{side}UpLeg", "Hips", (0.09 * sx, -0.06, 0))
        add(f"{side}Leg", f"{side}UpLeg", (0, -0.42, 0))
        add(f"{side}Foot", f"{side}Leg", (0, -0.42, 0))
        add(f"{side}ToeBase", f"{side}Foot", (0, -0.06, 0.12))
        add(f"{side}Toe_End", f"{side}ToeBase", (0, 0, 0.06))
    assert len(names) == 65, len(names)
    return names, parents, np.asarray(offsets, float)


def _order_parents_first(names, parents, offsets):
    # Parents are appended before children above, so the order already holds.
    return names, parents, offsets


def mixamo_clip(names, rng, *, duration_s, fps, speed_mps, phase_offset_cycles):
    frames = int(round(duration_s * fps)) + 1
    t = np.arange(frames, dtype=np.float64) / fps
    u = t / t[-1]
    channels = []
    idx = {n.split(":", 1)[1]: i for i, n in enumerate(names)}
    swing = 2 * np.pi * (u + phase_offset_cycles)
    x_axis = np.array([1.0, 0.0, 0.0])
    for i, n in enumerate(names):
        short = n.split(":", 1)[1]
        if short == "LeftUpLeg":
            ang = 0.45 * np.sin(swing)
        elif short == "RightUpLeg":
            ang = -0.45 * np.sin(swing)
        elif short in ("LeftLeg", "RightLeg"):
            s = 1.0 if short.startswith("Left") else -1.0
            ang = -0.3 - 0.3 * np.maximum(0.0, s * np.sin(swing + 0.6))
        else:
            amp = rng.uniform(0.01, 0.08)
            ang = amp * np.sin(swing * rng.integers(1, 3) + rng.uniform(0, 2 * np.pi))
        axis = x_axis if "Leg" in short else rng.normal(size=3)
        q = quat.from_axis_angle(np.broadcast_to(axis, (frames, 3)), ang)
        channels.append(Channel.make(i, "rotation", t, q))
    hips = np.zeros((frames, 3))
    hips[:, 1] = 1.0 + 0.02 * np.cos(2 * swing)
    hips[:, 2] = speed_mps * t
    channels.insert(0, Channel.make(idx["Hips"], "translation", t, hips))
    return Clip(name="mixamo.com", channels=channels)


def make_pack(out_dir: str, n_clips: int = 1000, seed: int = 7) -> list:
    """Write ``n_clips`` single-clip GLBs and a ring config; return the paths."""
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    names, parents, offsets = mixamo_bones()
    skeleton = Skeleton.build(names, parents, offsets)
    paths = []
    for k in range(n_clips):
        duration = 1.0 + (k % 31) / 30.0
        speed = 1.5 if k % 2 else 0.0
        clip = mixamo_clip(names, rng, duration_s=duration, fps=30, speed_mps=speed,
                           phase_offset_cycles=0.25 * (k % 4 == 2))
        path = os.path.join(out_dir, f"clip_{k:05d}.glb")
        with open(path, "wb") as fh:
            fh.write(asset_to_glb(Asset(skeleton=skeleton, clips=[clip])))
        paths.append(path)
    lines = ["[rig]", 'profile = "auto"', ""]
    for g in range(n_clips // 4):
        members = ", ".join(f'"clip_{4 * g + j:05d}.glb"' for j in range(4))
        lines += [f"[gait_groups.ring-{g:04d}]", f"clips = [{members}]", ""]
    with open(os.path.join(out_dir, "animsmith.toml"), "w") as fh:
        fh.write("\n".join(lines))
    return paths


RING_NAMES = ("walk_n", "walk_e", "walk_s", "walk_w")


def split_key_times(glb: bytes) -> bytes:
    """The same GLB with one key-time accessor per sampler, as three.js's GLTFExporter
    and COLLADA2GLTF write them: every sampler whose ``input`` another sampler already
    uses gets its own copy of those bytes (own buffer view and accessor)."""
    import json
    import struct

    (json_len,) = struct.unpack_from("<I", glb, 12)
    doc = json.loads(glb[20 : 20 + json_len])
    bin_off = 20 + json_len
    (bin_len,) = struct.unpack_from("<I", glb, bin_off)
    blob = bytearray(glb[bin_off + 8 : bin_off + 8 + bin_len])
    for anim in doc.get("animations", []):
        used = set()
        for sampler in anim["samplers"]:
            src = sampler["input"]
            if src not in used:
                used.add(src)
                continue
            acc = dict(doc["accessors"][src])
            view = dict(doc["bufferViews"][acc["bufferView"]])
            start = view.get("byteOffset", 0)
            data = bytes(blob[start : start + view["byteLength"]])
            while len(blob) % 4:
                blob.append(0)
            view["byteOffset"] = len(blob)
            blob.extend(data)
            doc["bufferViews"].append(view)
            acc["bufferView"] = len(doc["bufferViews"]) - 1
            doc["accessors"].append(acc)
            sampler["input"] = len(doc["accessors"]) - 1
    while len(blob) % 4:
        blob.append(0)
    doc["buffers"][0]["byteLength"] = len(blob)
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    total = 12 + 8 + len(text) + 8 + len(blob)
    return (struct.pack("<III", 0x46546C67, 2, total) + struct.pack("<II", len(text), 0x4E4F534A) + text
            + struct.pack("<II", len(blob), 0x004E4942) + bytes(blob))


def make_shape_pack(out_dir: str, n_files: int = 250, *, clips_per_file: int = 4,
                    per_channel_times: bool = False, seed: int = 7) -> list:
    """``n_files`` GLBs of ``clips_per_file`` clips each (``walk_n``, ``walk_e``, ...) on the
    65-joint rig, 30 fps, 1-2 s, with ``animsmith.toml`` declaring each file's clips one
    gait group (the third clip a quarter cycle out of phase, as in :func:`make_pack`).
    ``per_channel_times``: one key-time accessor per channel (:func:`split_key_times`),
    else one shared by every channel of a clip. Returns the paths."""
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    names, parents, offsets = mixamo_bones()
    skeleton = Skeleton.build(names, parents, offsets)
    paths = []
    lines = ["[rig]", 'profile = "auto"', ""]
    for k in range(n_files):
        clips = []
        for j in range(clips_per_file):
            duration = 1.0 + ((k * clips_per_file + j) % 31) / 30.0
            clip = mixamo_clip(names, rng, duration_s=duration, fps=30, speed_mps=1.5 if j % 2 else 0.0,
                               phase_offset_cycles=0.25 * (j % 4 == 2))
            clip.name = RING_NAMES[j % 4] + ("" if j < 4 else f"_{j // 4}")
            clips.append(clip)
        glb = asset_to_glb(Asset(skeleton=skeleton, clips=clips))
        if per_channel_times:
            glb = split_key_times(glb)
        name = f"pack_{k:05d}.glb"
        with open(os.path.join(out_dir, name), "wb") as fh:
            fh.write(glb)
        paths.append(os.path.join(out_dir, name))
        members = ", ".join(f'"{name}#{c.name}"' for c in clips)
        lines += [f"[gait_groups.file-{k:05d}]", f"clips = [{members}]", ""]
    with open(os.path.join(out_dir, "animsmith.toml"), "w") as fh:
        fh.write("\n".join(lines))
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--clips", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--clips-per-file", type=int, default=1,
                    help="above 1: files of that many clips, each file one gait group")
    ap.add_argument("--per-channel-times", action="store_true",
                    help="one key-time accessor per channel (three.js GLTFExporter's shape)")
    args = ap.parse_args()
    if args.clips_per_file > 1 or args.per_channel_times:
        paths = make_shape_pack(args.out_dir, max(1, args.clips // args.clips_per_file),
                                clips_per_file=args.clips_per_file,
                                per_channel_times=args.per_channel_times, seed=args.seed)
    else:
        paths = make_pack(args.out_dir, args.clips, args.seed)
    total = sum(os.path.getsize(p) for p in paths)
    print(f"wrote {len(paths)} clips ({total / 1e6:.1f} MB) to {args.out_dir}")


if __name__ == "__main__":
    main()
