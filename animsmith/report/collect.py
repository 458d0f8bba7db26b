"""Lint + report data from the same judged pose grids (one pass per file).

:func:`collect` lints like ``animsmith lint`` (same plan, same clip checks in
catalog order, same group judging: the one run, ``animsmith.lint.run``) but keeps, for
each clip, what the page draws, read from the clip's shared
:class:`~animsmith.core.analysis.ClipAnalysis` grid (the grid the checks
judged, sampled once):

* ``pos``: model-space joint positions (frame-major, then bone, then xyz);
* ``local``: local translation / rotation (x, y, z, w) / scale, only for clips
  a gait group names (the pair player's illustrative blend needs them);
* feet: model-space height of the left/right foot (else toe) role bone (on a rig
  with more than one pair of legs: of every leg's foot, one row per leg) and its
  stance as the ``foot-slide`` check decides it (:func:`foot_stance`: authored
  contact markers when present, else the contact-height rule with the check's
  ``contact_height_m``);
* travel-bone horizontal speed per frame pair:
  ``|(x, z)[i+1] − (x, z)[i]| / (t[i+1] − t[i])`` (m/s).

Numbers are rounded to ``DECIMALS`` (1e-4) and a clip longer than
``MAX_FRAMES`` judged samples is shown every ``stride``-th sample (plus the
last), so the page stays small; the frames shown are still judged samples.
"""

from __future__ import annotations

import math
import os
import shlex
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from animsmith.io.paths import file_identity

DECIMALS = 4
MAX_FRAMES = 240
#: bone-frames (shown samples x bones) the page draws in all; clips past it are listed with a
#: reason instead of curves (each costs ~100 bytes while the page is built, ~22 in the page)
MAX_PAGE_CELLS = 1_000_000
TRAIL_ROLES = ("root", "hips", "left_foot", "right_foot")


def rounded(values, decimals: int = DECIMALS) -> np.ndarray:
    """Flat float64 array of ``values`` rounded to ``decimals``.

    Kept as an array (8 bytes a number while the page is assembled); the JSON
    writer turns it into a list and non-finite values into null.
    """
    return np.round(np.asarray(values, dtype=np.float64).reshape(-1), decimals)


def frame_indices(n: int, max_frames: int = MAX_FRAMES) -> np.ndarray:
    """Judged sample indices shown: all when n <= max_frames, else every ceil(n/max)-th + the last."""
    if n <= max_frames:
        return np.arange(n)
    stride = int(math.ceil(n / max_frames))
    idx = np.arange(0, n, stride)
    if idx[-1] != n - 1:
        idx = np.append(idx, n - 1)
    return idx


def foot_stance(analysis, bone: int, height_m, times_s, contact_height_m: float):
    """((N,) stance, source) of one foot, as the ``foot-slide`` check decides it: the core's
    one stance decision (``core.contacts.feet_stance``): authored contact markers naming
    this foot (or an ancestor) -> source ``"authored"``; else the contact-height rule ->
    ``"height"``.
    """
    from animsmith.core.contacts import feet_stance

    h = np.asarray(height_m, dtype=np.float64).reshape(-1)
    pos = np.zeros((h.shape[0], 1, 3))
    pos[:, 0, 1] = h
    stance, authored, _ = feet_stance(analysis.clip, analysis.skeleton, [bone], pos, times_s, contact_height_m)
    return stance[:, 0], ("authored" if bool(authored[0]) else "height")


def horizontal_speed_mps(xz: np.ndarray, times_s: np.ndarray) -> np.ndarray:
    """|Δ(x, z)| / Δt per consecutive pair (N−1,); NaN where Δt <= 0."""
    d = np.linalg.norm(np.diff(xz, axis=0), axis=-1)
    dt = np.diff(times_s)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(dt > 0, d / np.where(dt > 0, dt, 1.0), np.nan)


def clip_view(analysis, roles, contact_height_m: float, with_local: bool) -> Dict[str, Any]:
    """What the page draws for one clip, from ``analysis.grid`` (module docstring).

    Only the shown samples of the whole skeleton are computed (``grid.pose_at``:
    the same values as those rows of the full grid), and the foot heights of
    every judged sample from the foot bones' chains: memory follows the page,
    not the clip's length.
    """
    from animsmith.core.contacts import side_foot_bone

    grid = analysis.grid
    n = grid.frame_count
    idx = frame_indices(n)
    times = grid.times_s[idx]
    shown = grid.pose_at(idx)
    pos = shown.model_position_m
    view: Dict[str, Any] = {
        "name": analysis.clip.name,
        "duration_s": round(float(grid.duration_s), 6),
        "judged_frames": int(n),
        "frames": int(len(idx)),
        "stride": int(idx[1] - idx[0]) if len(idx) > 1 else 1,
        "times": rounded(times, 6),
        "pos": rounded(pos),
        "trails": {r: int(roles.get(r)) for r in TRAIL_ROLES if roles.has(r)},
    }
    if with_local:
        view["local"] = {
            "t": rounded(shown.local_translation, 6),  # model-space error x parent scale (100 in RobotExpressive)
            "r": rounded(shown.local_rotation, 6),
            "s": rounded(shown.local_scale),
        }
    feet = {}
    legs = getattr(analysis, "legs", None)
    if legs is not None and len(legs.pairs) > 1:  # one row per leg: quadrupeds, hexapods...
        rows = [(leg.name, leg.foot, leg.side) for leg in legs.legs]
    else:
        rows = [(side, side_foot_bone(roles, side), side) for side in ("left", "right")]
    on_side: Dict[str, int] = {}
    for key, bone, side in rows:
        if bone is None:
            continue
        height = grid.model_positions_m([bone])[:, 0, 1]
        stance, source = foot_stance(analysis, bone, height, grid.times_s, contact_height_m)
        # the page colours a foot by its side, and the n-th leg of a side by that side's n-th shade
        leg = on_side.get(side, 0)
        on_side[side] = leg + 1
        feet[key] = {
            "side": side,
            "leg": leg,
            "bone": str(analysis.skeleton.names[bone]),
            "height": rounded(height[idx]),
            "stance": [int(v) for v in stance[idx]],
            "source": source,
        }
    view["feet"] = feet
    view["feet_order"] = list(feet)
    view["contact_height_m"] = float(contact_height_m)
    travel = analysis.travel  # the clip's travel bone, as measure and lint use it
    bone, why = travel.bone, travel.reason
    if bone is not None and n >= 2:
        xz = pos[:, bone][:, [0, 2]]
        view["speed"] = {"bone": str(analysis.skeleton.names[bone]), "mps": rounded(horizontal_speed_mps(xz, times))}
    else:
        view["speed"] = {"bone": None, "mps": [], "unavailable": why if bone is None else "fewer than 2 samples"}
    return view


@dataclass
class ReportData:
    """Everything the page needs, plus the lint result it came from."""

    result: Any
    files: List[Dict[str, Any]] = field(default_factory=list)
    skeletons: List[Dict[str, Any]] = field(default_factory=list)
    clips: List[Dict[str, Any]] = field(default_factory=list)
    #: (file identity (io.paths.file_identity), clip name) -> index into ``clips``
    clip_index: Dict[Tuple[str, str], int] = field(default_factory=dict)
    #: bone-frames drawn so far (:data:`MAX_PAGE_CELLS`)
    cells: int = 0


def _gait_member_names(contract) -> Tuple[set, Dict[str, set]]:
    bare, files = set(), {}
    for g in contract.gait_groups.values():
        for ref in g.members:
            if ref.file is None:
                bare.add(ref.clip)
            else:
                files.setdefault(file_identity(ref.file), set()).add(ref.clip or "")
    return bare, files


def _clip_views(data: ReportData, contract, gait_members, contact_height_m: float, clip_filter: Optional[str] = None):
    """(on_asset, on_clip) callbacks of the lint run (:func:`animsmith.lint.run`) that keep,
    for each file and clip, the page's view from the analysis the checks judged."""
    bare, gait_files = gait_members
    state: Dict[str, Any] = {}

    def on_asset(path, asset, roles):
        sk = asset.skeleton
        data.skeletons.append({"names": [str(x) for x in sk.names], "parents": [int(p) for p in sk.parents]})
        entry = {"path": path, "profile": roles.profile, "skeleton": len(data.skeletons) - 1, "clips": []}
        state.update(
            roles=roles,
            entry=entry,
            file_index=len(data.files),
            real=file_identity(path),
            count=len(asset.clips),
        )
        data.files.append(entry)

    def on_clip(path, clip, analysis, measured):
        entry, real, count = state["entry"], state["real"], state["count"]
        wanted = gait_files.get(real, set())
        # a bare member name is the first file's (argument order) clip of that name, as lint
        # resolves it: later files' clips of the same name are no member
        claimed = clip.name in bare
        bare.discard(clip.name)
        in_gait = claimed or clip.name in wanted or ("" in wanted and count == 1)
        if clip_filter is not None and clip.name != clip_filter and not in_gait:
            view = {"name": clip.name}  # not on the page (--clip): no curves computed
        elif clip_filter is not None and clip.name == clip_filter:  # asked for: always drawn
            view = _safe_view(analysis, state["roles"], contact_height_m, in_gait)
        else:
            view = _budgeted_view(data, analysis, state["roles"], contact_height_m, in_gait)
        view["file"] = state["file_index"]
        view["skeleton"] = entry["skeleton"]
        view["measurements"] = {
            k: measured.get(k) for k in ("gait_phase", "lr_amplitude_m", "cycles", "speed_mps", "loop_endpoint_mode")
        }
        data.clip_index[(real, clip.name)] = len(data.clips)
        entry["clips"].append(len(data.clips))
        data.clips.append(view)

    return on_asset, on_clip


def _budgeted_view(data: ReportData, analysis, roles, contact_height_m: float, with_local: bool) -> Dict[str, Any]:
    """The clip's view, or its name and why it is not drawn once the page holds
    :data:`MAX_PAGE_CELLS` bone-frames (a file of thousands of clips must not need gigabytes)."""
    try:
        cells = len(frame_indices(analysis.grid.frame_count)) * analysis.skeleton.bone_count
    except Exception:  # noqa: BLE001 - the view itself reports it
        cells = 0
    if data.cells + cells > MAX_PAGE_CELLS:
        name = analysis.clip.name
        return {"name": name, "unavailable": (
            f"not drawn: the page already holds {data.cells:,} bone-frames (limit {MAX_PAGE_CELLS:,}); "
            f"draw it with `animsmith report --clip {shlex.quote(name)}`")}
    data.cells += cells
    return _safe_view(analysis, roles, contact_height_m, with_local)


def _safe_view(analysis, roles, contact_height_m: float, with_local: bool) -> Dict[str, Any]:
    try:
        return clip_view(analysis, roles, contact_height_m, with_local)
    except Exception as exc:  # noqa: BLE001 - a clip the grid cannot hold is shown as unavailable
        if os.environ.get("ANIMSMITH_DEBUG"):
            raise
        return {"name": analysis.clip.name, "unavailable": f"{type(exc).__name__}: {' '.join(str(exc).split())}"}


def collect(paths: Sequence[str], contract, select: Optional[Sequence[str]] = None,
            clip_filter: Optional[str] = None) -> ReportData:
    """Lint ``paths`` against ``contract`` and gather the page data (one load per file);
    with ``clip_filter`` only that clip (and gait-group members) get curves."""
    from animsmith.checks import measurement_options
    from animsmith.lint import run

    # [checks.foot-slide] contact_height_m, as the check and the duty factors use it
    contact = measurement_options(contract)["contact_height_m"]
    data = ReportData(result=None)
    on_asset, on_clip = _clip_views(data, contract, _gait_member_names(contract), contact, clip_filter)
    data.result = run(paths, contract, select=select, on_asset=on_asset, on_clip=on_clip)
    return data
