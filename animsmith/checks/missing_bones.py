"""Bones a clip is declared to animate that are absent or carry no keys in it.

Armed by ``[clips.*] animates_bones`` (a list of exact bone names; a clip
without it is not judged). Per listed name, in order:

* no bone of the skeleton has that name → error ``… does not exist in the
  skeleton`` (a renamed or missing bone: the retarget or export dropped it);
* the bone exists but no channel of this clip targets it with at least one
  key → error ``… carries no keys in this clip`` (the clip was exported
  without that bone's animation). Names are matched exactly; when several
  bones share the name, a key on any of them counts (``required-bones``
  reports the shared name itself).

Findings name the clip and the bone; measured = what was found, expected = what
was declared.
"""

from __future__ import annotations

from animsmith.checks._clip import expect_value

ID = "missing-bones"
SEVERITY = "error"
SCOPE = "clip"
NEEDS = ("config: [clips.*] animates_bones",)
CONFIG = {}


def keyed_bone_names(ctx) -> set:
    """Names of the bones that at least one channel of the clip keys."""
    names = ctx.asset.skeleton.names
    return {names[ch.bone] for ch in ctx.clip.channels if ch.key_count > 0 and 0 <= ch.bone < len(names)}


def check(ctx):
    wanted = expect_value(ctx, "animates_bones")
    if not wanted:
        return
    clip = ctx.clip.name
    present = set(ctx.asset.skeleton.names)
    keyed = keyed_bone_names(ctx)
    for name in wanted:
        if name not in present:
            yield ctx.finding(
                f"bone '{name}' is declared in animates_bones but does not exist in the skeleton "
                f"({len(present)} bone name(s))",
                clip=clip,
                bone=name,
                measured="absent",
                expected="present",
            )
        elif name not in keyed:
            yield ctx.finding(
                f"bone '{name}' is declared in animates_bones but carries no keys in this clip",
                clip=clip,
                bone=name,
                measured=0,
                expected="at least one keyed channel",
            )
