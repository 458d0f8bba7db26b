"""Bones the rig contract requires that the skeleton lacks.

Armed by ``[rig] required_bones`` (a list of exact bone names; without it
nothing is judged: no finding, no gap). Each name must
match exactly one bone of the file's skeleton: a missing name is an error
(the export or retarget dropped or renamed it), a name shared by several bones
is an error too (a runtime looking the bone up by name gets an arbitrary one).
The rig is judged once per file, reported with the file's first clip (with
no clip for a file without animations: a rig-only file is judged too).
Whether a clip animates a bone is ``missing-bones``' job (``[clips.*]
animates_bones``): a required bone may legitimately be still in some clips.

Coverage gap (scope ``required_bone_presence``): ``skeleton_unavailable`` when
the file has no nodes at all.
"""

from __future__ import annotations

ID = "required-bones"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("config: [rig] required_bones",)
CONFIG = {}
RUNS_WITHOUT_CLIPS = True


def required_names(ctx):
    contract = getattr(ctx, "contract", None)
    rig = getattr(contract, "rig", None) if contract is not None else None
    if rig is None:
        return []
    names = rig.get("required_bones") if isinstance(rig, dict) else getattr(rig, "required_bones", None)
    return list(names or [])


def is_first_clip(ctx) -> bool:
    """The context this file's rig is judged in: its first clip, or the file itself
    (``ctx.clip`` None) when it has no animations."""
    clips = ctx.asset.clips
    return clips[0] is ctx.clip if clips else ctx.clip is None


def check(ctx):
    wanted = required_names(ctx)
    if not wanted or not is_first_clip(ctx):
        return
    clip = ctx.clip.name if ctx.clip is not None else None
    names = list(ctx.asset.skeleton.names)
    if not names:
        yield ctx.gap(
            "skeleton_unavailable",
            "the file has no nodes, so required bones cannot be looked up",
            scope="required_bone_presence",
            subjects=[clip] if clip is not None else [],
        )
        return
    for name in wanted:
        count = names.count(name)
        if count == 0:
            yield ctx.finding(
                f"required bone '{name}' does not exist in the skeleton",
                clip=clip,
                bone=name,
                measured=0,
                expected=1,
            )
        elif count > 1:
            yield ctx.finding(
                f"required bone '{name}' is ambiguous: {count} bones share that name",
                clip=clip,
                bone=name,
                measured=count,
                expected=1,
            )
