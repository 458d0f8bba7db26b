"""A declared group's members, resolved against a run: which linted file (or which
member file loaded just for the group) holds each member clip, its summary, and the file
the group's output attaches to (:func:`resolve_members`)."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from animsmith.errors import LoadError
from animsmith.lint.discovery import file_key
from animsmith.lint.engine import member_summary, rig_in_metres
from animsmith.lint.plan import Plan
from animsmith.lint.results import FileResult


def load_member_file(path: str, wanted: Set[str], plan: Plan) -> Tuple[Optional[str], List[str], Dict[str, Dict[str, Any]]]:
    """(load error, clip names, summaries) for a member file that was not linted."""
    from animsmith.core.analysis import ClipAnalysis
    from animsmith.io.gltf import load_asset

    try:
        asset = load_asset(path, strict=False)
    except LoadError as exc:
        return exc.reason, [], {}
    contract = plan.contract
    asset, roles = rig_in_metres(asset, contract)
    names = [c.name for c in asset.clips]
    out: Dict[str, Dict[str, Any]] = {}
    for clip in asset.clips:
        if clip.name in wanted or ("" in wanted and len(names) == 1):
            analysis = ClipAnalysis(asset, clip, roles)
            out[clip.name] = member_summary(
                analysis, None, contract.expect_for(clip.name, path), plan.need_endpoint_mode
            )
    return None, names, out


_REAL_INDEX_KEY = "\0real_index"  # never a real path (NUL), so it cannot clash with a member file


def _real_index(files: List[FileResult], cache: Dict[str, Any]) -> Dict[str, int]:
    """{file key: index} of the linted files, built once per run (not once per group)."""
    hit = cache.get(_REAL_INDEX_KEY)
    if hit is None or hit[0] is not files or hit[1] != len(files):
        index: Dict[str, int] = {}
        for i, f in enumerate(files):
            index[file_key(f.path)] = i  # last wins, as before
        hit = (files, len(files), index)
        cache[_REAL_INDEX_KEY] = hit
    return hit[2]


_CLIP_INDEX_KEY = "\0clip_index"  # never a real path (NUL)


def _clip_index(files: List[FileResult], cache: Dict[str, Any]) -> Dict[str, List[int]]:
    """{clip name: indices of the linted files (loaded, in order) holding it}, built once per run."""
    hit = cache.get(_CLIP_INDEX_KEY)
    if hit is None or hit[0] is not files or hit[1] != len(files):
        index: Dict[str, List[int]] = {}
        for i, f in enumerate(files):
            if f.error is None:
                for name in dict.fromkeys(f.clip_names):
                    index.setdefault(name, []).append(i)
        hit = (files, len(files), index)
        cache[_CLIP_INDEX_KEY] = hit
    return hit[2]


def member_display(path: str, config_path: Optional[str]) -> str:
    """How a member file that was not linted is named: relative to the working directory
    when the contract was given by a relative path, else as resolved (also when no
    relative path exists: another drive or a network share on Windows)."""
    if os.path.isabs(config_path or ""):
        return path
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


class DistinctMembers:
    """The rule that makes each declared member of a group count once: a label listed twice
    is one member, and a member naming a clip an earlier member already named (the same real
    file and clip name: ``walk``, ``packs/walk.glb`` and ``./packs/walk.glb#walk``) is that
    member again, under the earlier member's label."""

    def __init__(self) -> None:
        self._labels: Set[str] = set()
        self._clips: Dict[Tuple[str, str], str] = {}

    def new_label(self, label: str) -> bool:
        """False for a label the group listed before."""
        if label in self._labels:
            return False
        self._labels.add(label)
        return True

    def first_label(self, identity: str, clip_name: str, label: str) -> str:
        """The label of the first member naming clip ``clip_name`` of the file of ``identity``
        (:func:`~animsmith.lint.discovery.file_key`): ``label`` itself when it is the first."""
        return self._clips.setdefault((identity, clip_name), label)


def file_member_clip(ref, names: Sequence[str]) -> Tuple[Optional[str], Optional[str]]:
    """(the clip name, None) a member naming a file (``file.glb`` or ``file.glb#clip``) stands
    for in that file, whose clips are ``names``; (None, why not) for a member naming no clip
    when the file does not hold exactly one. A named clip is returned as named: whether the
    file holds it is the caller's to say."""
    if ref.clip is not None:
        return ref.clip, None
    if len(names) != 1:
        return None, (
            "the file has no animations" if not names
            else f"file has {len(names)} clips; name one as '{ref.label.partition('#')[0]}#<clip>'"
        )
    return names[0], None


def resolve_members(group, files: List[FileResult], summaries: List[Dict[str, Dict[str, Any]]], plan: Plan, extra_cache: Dict[str, Any]):
    """[Member] for a group's declared members, and the index of the file the group attaches to.

    * ``"clip"``: the first linted file (in order) holding a clip of that name;
    * ``"file.glb"`` / ``"file.glb#clip"``: that file (config-relative), from the
      run when it was linted, else loaded just for the group.

    A member listed twice, or resolving to a clip an earlier member already named
    (``walk``, ``packs/walk.glb`` and ``./packs/walk.glb#walk`` are one clip: the same
    real file and clip name), is that member again and counts once: every group check
    and the report see each member once.
    """
    from animsmith.checks.context import Member
    from animsmith.hints import did_you_mean

    real_index = _real_index(files, extra_cache)
    members: List[Member] = []
    attach: Optional[int] = None
    distinct = DistinctMembers()

    def first_time(real: str, clip_name: str) -> bool:
        return distinct.first_label(real, clip_name, ref.label) == ref.label

    def hint(clip_name: str, names) -> str:
        # not another member of this group: in a run of only some files (a pre-commit
        # hook), a member missing from the run is not a typo of its neighbour
        return did_you_mean(clip_name, set(names) - {r.clip for r in group.members})

    for ref in group.members:
        if not distinct.new_label(ref.label):  # listed twice
            continue
        if ref.file is None:
            index = _clip_index(files, extra_cache)
            hits = index.get(ref.clip, [])
            if not hits:
                members.append(Member(ref.label, reason=f"no clip named '{ref.clip}' in the linted file(s){hint(ref.clip, index)}"))
                continue
            hit = hits[0]
            attach = hit if attach is None else attach
            if not first_time(file_key(files[hit].path), ref.clip):
                continue
            others = tuple(files[i].path for i in hits[1:])
            members.append(Member(ref.label, files[hit].path, ref.clip, summaries[hit].get(ref.clip), also_in=others))
            continue
        real = file_key(ref.file)
        if real in real_index:
            i = real_index[real]
            fr = files[i]
            error, names, sums, shown = fr.error, fr.clip_names, summaries[i], fr.path
            if error is None:
                attach = i if attach is None else attach
        else:
            if real not in extra_cache:
                extra_cache[real] = load_member_file(ref.file, set(plan.file_members.get(real, ())), plan)
            error, names, sums = extra_cache[real]
            shown = member_display(ref.file, plan.contract.path)
        if error is not None:
            members.append(Member(ref.label, shown, ref.clip, reason=f"cannot read member file: {error}"))
            continue
        clip_name, why = file_member_clip(ref, names)
        if why is not None:
            members.append(Member(ref.label, shown, None, reason=why))
            continue
        if clip_name not in names:
            members.append(Member(ref.label, shown, clip_name, reason=f"no clip named '{clip_name}' in {shown}{hint(clip_name, names)}"))
            continue
        if not first_time(real, clip_name):
            continue
        members.append(Member(ref.label, shown, clip_name, sums.get(clip_name)))
    return members, (attach if attach is not None else 0)

