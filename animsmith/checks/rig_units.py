"""A rig whose standing height is implausible in the units in force ([rig] units).

Every position is judged in metres: glTF's unit, or the file's unit scaled by
``[rig] units`` (``"metres"`` by default, ``"centimetres"``,
``"millimetres"``, ``"inches"`` or a number of metres per unit). A
centimetre rig read as metres stands tens of metres tall, and every metre
default — the 3 cm contact height of ``foot-slide``, the 1 cm loop-closure
cap, the 0.5 m/s travel threshold of ``in-place`` — means nothing on it.

Judged once per file, with its first clip (the rest pose for a file without
animations): the standing height is the hips' model-space height above the
lower foot in that clip's first frame. Above 5 m, or below 5 cm when
``units`` is smaller than a metre (in metres a rig that small is a small
creature: the simulator's beetle stands 34 mm), it is a coverage gap (code ``implausible_units``, scope ``units``, subject = the clip) naming
the height and the setting that would make it plausible — the first of
metres, centimetres, millimetres and inches that does, else a number of
metres per unit — e.g. ``hips stand 41.2 m above the feet: a centimetre
rig? set [rig] units = "centimetres"``. The metre-based findings of that file
are unreliable until the setting is right. ``measure`` prints the same line
under its table (JSON: ``units.note``).

Nothing is judged (no finding, no gap) when the hips or both feet are
unresolved or the first pose is not finite: the height is then unknown.
"""

from __future__ import annotations

ID = "rig-units"
SEVERITY = "note"
SCOPE = "clip"
NEEDS = ("roles: hips + a foot",)
CONFIG = {}
RUNS_WITHOUT_CLIPS = True


def check(ctx):
    from animsmith.checks.required_bones import is_first_clip
    from animsmith.core.units import units_report

    if not is_first_clip(ctx):
        return
    grid = ctx.analysis.grid if ctx.analysis is not None else None
    report = units_report(ctx.asset, ctx.roles, ctx.contract.rig.units, grid)
    if report["note"] is None:
        return
    yield ctx.gap(
        "implausible_units",
        f"{report['note']}; until then the metre thresholds (contact height, loop caps, speeds) do not fit this rig",
        scope="units",
        subjects=[ctx.clip.name] if ctx.clip is not None else [],
    )
