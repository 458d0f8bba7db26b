"""``animsmith measure PATHS... [--clip NAME] [--format text|json]`` and ``measure speed PATHS...``.

Numbers without judgement: every per-clip metric of ``ClipAnalysis.measurements()``
(docs/measure.md). ``measure speed`` prints only speed_mps, heading_deg,
distance_m, duration_s and the travel bone.
"""

from __future__ import annotations

import math
import os
from typing import Any, Dict, List, Optional, Tuple

import click

from animsmith.commands import _output
from animsmith.commands._options import config_option, format_option, load_rig_contract

SCHEMA_VERSION = 1

# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def load_and_analyze(path: str, profile: str, overrides: Dict[str, str], config_path: Optional[str], metres_per_unit: float = 1.0, legs=None):
    """(asset, RoleMap with its legs, [ClipAnalysis]), positions in metres at
    ``metres_per_unit`` (``[rig] units``); ``legs``: ``[rig.legs]``; errors name the file (exit 2)."""
    from animsmith.core.analysis import analyze_asset
    from animsmith.errors import AnimsmithError, ConfigError
    from animsmith.io.gltf import load_asset

    try:
        asset = load_asset(path).in_units(metres_per_unit)
    except AnimsmithError as exc:
        raise exc.with_path(path)
    try:
        roles, analyses = analyze_asset(asset, profile=profile, overrides=overrides, legs=legs)
    except ConfigError as exc:
        raise exc.with_path(config_path or path)
    return asset, roles, analyses


def select_clips(analyses, clip_names: Tuple[str, ...], path: str):
    from animsmith.errors import AnimsmithError

    if not clip_names:
        return list(analyses)
    by_name = {ca.clip.name: ca for ca in analyses}
    out = []
    for name in dict.fromkeys(clip_names):  # each clip once, in the order first named
        if name not in by_name:
            known = ", ".join(repr(n) for n in by_name) or "none"
            raise AnimsmithError(f"no clip named {name!r} (clips: {known})", path)
        out.append(by_name[name])
    return out


# --------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        from animsmith.numtext import fixed

        return fixed(value, digits)
    from animsmith.text import escape

    return escape(value)  # names from the file: control and bidi characters shown as \uXXXX


def _cell(value: Any, key: str, digits: Optional[int]) -> str:
    """A table cell: a phase wrapped into [0, 1) after rounding (0.99999 shows 0.000)."""
    if key == "gait_phase" and isinstance(value, float):
        from animsmith.render.text import phase_text

        return phase_text(value, digits or 3)
    if key == "heading_deg" and isinstance(value, float) and math.isfinite(value):
        from animsmith.numtext import heading

        return heading(value, 1 if digits is None else digits)  # −Z is 180 (docs): one direction, one text
    return fmt(value, digits) if digits is not None else fmt(value)


def speed_measurements(ca) -> Dict[str, Any]:
    """Speed-only dict (does not compute gait or loop metrics)."""
    from animsmith.core.analysis import put_measurement

    s = ca.speed
    m: Dict[str, Any] = {"name": ca.clip.name}
    for k in ("speed_mps", "heading_deg", "distance_m"):  # non-finite -> null with a reason, as `measure`
        put_measurement(m, k, getattr(s, k), getattr(s, k + "_unavailable"))
    m["duration_s"] = float(ca.clip.duration_s) + 0.0  # never -0.0
    m["travel_bone"] = s.travel_bone
    m["travel_source_role"] = s.source_role
    m["travel_bone_reason"] = s.travel_bone_reason
    return m


#: every column of the text table, in order; (title, key, decimals, shown without --wide)
ALL_TEXT_COLUMNS = (
    ("clip", "name", None, True),
    ("dur s", "duration_s", 3, True),
    ("frames", "frame_count", None, False),
    ("phase", "gait_phase", 3, True),
    ("L-R amp m", "lr_amplitude_m", 3, True),
    ("cycles", "cycles", None, True),
    ("speed m/s", "speed_mps", 3, True),
    ("heading deg", "heading_deg", 1, True),
    ("dist m", "distance_m", 3, False),
    ("seam", "loop_seam_ratio", 2, True),
    ("yaw deg", "yaw_deg", 1, False),
    ("endpoint", "loop_endpoint_mode", None, False),
    ("skate", "foot_skate_ratio", 2, False),
)
#: the default table: fits 100 columns with clip names up to 30 characters (``--wide``: all)
TEXT_COLUMNS = tuple(c[:3] for c in ALL_TEXT_COLUMNS if c[3])
WIDE_TEXT_COLUMNS = tuple(c[:3] for c in ALL_TEXT_COLUMNS)
SPEED_COLUMNS = (
    ("clip", "name", None),
    ("speed m/s", "speed_mps", 3),
    ("heading deg", "heading_deg", 1),
    ("dist m", "distance_m", 3),
    ("dur s", "duration_s", 3),
    ("travel bone", "travel_bone", None),
    ("source", "travel_source_role", None),
)


def _rig_lines(profile: str, roles: List[str], width: int = 100) -> List[str]:
    """``  rig: <profile> (role=bone, ...)``, continued on lines indented by four spaces so
    each fits ``width`` columns (a role=bone pair is never split)."""
    if not roles:
        return [f"  rig: {profile} (none)"]
    lines = [f"  rig: {profile} ("]
    for i, item in enumerate(roles):
        item += ")" if i == len(roles) - 1 else ","
        if len(lines[-1]) + 1 + len(item) > width and not lines[-1].endswith("("):
            lines.append("    " + item)
        else:
            lines[-1] += ("" if lines[-1].endswith("(") else " ") + item
    return lines


def render_text(files: List[Dict[str, Any]], speed: bool, wide: bool = False) -> None:
    from rich.text import Text

    from animsmith.text import escape

    console = _output.console()
    columns = SPEED_COLUMNS if speed else WIDE_TEXT_COLUMNS if wide else TEXT_COLUMNS
    for i, f in enumerate(files):
        if i:
            console.print()
        rig = f["rig"]
        console.print(Text(escape(f["path"]), style="bold"), soft_wrap=True)
        for line in _rig_lines(rig["profile"], [f"{r}={escape(b)}" for r, b in rig["roles"].items()]):
            console.print(Text(line), soft_wrap=True)
        left = ("name", "travel_bone", "travel_source_role", "loop_endpoint_mode")
        rows = []
        notes: List[str] = []
        for m in f["clips"]:
            rows.append([Text(_cell(m.get(key), key, d)) for _, key, d in columns])
            for _, key, _ in columns:
                why = m.get(key + "_unavailable")
                if why:
                    notes.append(f"{escape(m['name'])}: {key} unavailable: {escape(why)}")
            if m.get("cycles_note"):
                notes.append(f"{escape(m['name'])}: {escape(m['cycles_note'])}")
            if len(m.get("pairs") or ()) > 1:  # quadrupeds, hexapods...: the gait per pair and per leg
                notes.append(f"{escape(m['name'])}: {legs_line(m)}")
        _output.print_table(console, [c[0] for c in columns], ["left" if c[1] in left else "right" for c in columns], rows)
        if speed:  # which bone travels and why: once when every clip agrees, else per clip
            reasons = [(m["name"], m.get("travel_bone_reason")) for m in f["clips"] if m.get("travel_bone")]
            if reasons and len({r for _, r in reasons}) == 1 and len(f["clips"]) > 1:
                notes.insert(0, f"travel bone (every clip): {escape(reasons[0][1])}")
            else:
                notes[:0] = [f"{escape(n)}: travel bone: {escape(r)}" for n, r in reasons if r]
        # one line per distinct reason keeps the notes short
        seen = set()
        for n in notes:
            if n not in seen:
                seen.add(n)
                console.print(f"  {n}", markup=False)
        note = (f.get("units") or {}).get("note")
        if note:  # once per file: the rig's size says the units in force are wrong
            console.print(f"  note: {escape(note)}", markup=False)


def legs_line(m: Dict[str, Any]) -> str:
    """One text line for a multi-pair clip: its gait pattern, each pair's stride anchor,
    each leg's offset from leg 0 and duty factor ("-" when unmeasured)."""
    from animsmith.render.text import phase_text
    from animsmith.text import escape

    def num(v, d):
        return "-" if v is None else f"{v:.{d}f}"

    def phase(v, d):  # wrapped: 0.9999 reads 0.000, the same phase
        return "-" if v is None else phase_text(v, d)

    pattern = m.get("gait_pattern") or f"- ({m.get('gait_pattern_unavailable', 'not measured')})"
    pairs = " ".join(f"{p['pair']}={phase(p.get('gait_phase'), 3)}" for p in m["pairs"])
    legs = ", ".join(f"{escape(leg['name'])} {phase(leg.get('offset'), 2)}/{num(leg.get('duty_factor'), 2)}" for leg in m.get("legs", []))
    return f"gait {escape(pattern)}; pair anchors {pairs}; leg offset/duty {legs}"


def _measure_one(ca, path: str, speed: bool, floor_m: float, contact_m: float = 0.03, contract=None) -> Dict[str, Any]:
    if speed:
        return speed_measurements(ca)
    m = ca.measurements(min_stride_step_m=floor_m, contact_height_m=contact_m)
    m.update(foot_measurements(ca, path, contract))
    return m


def foot_measurements(ca, path: str, contract) -> Dict[str, Any]:
    """foot_skate_ratio and foot_contacts; the [clips.*] speed_mps and movement_owner_xz of the
    clip in file ``path`` (as ``lint`` reads them) decide the treadmill frame of an in-place clip."""
    exp = contract.expect_for(ca.clip.name, path) if contract is not None else None
    return ca.foot_measurements(
        None if exp is None else exp.speed_mps, None if exp is None else exp.movement_owner_xz
    )


def render_json(files: List[Dict[str, Any]], speed: bool) -> None:
    import json

    doc = {"schema_version": SCHEMA_VERSION, "command": "measure", "files": files}
    if speed:
        doc["metric"] = "speed"
    from animsmith.text import runner_safe

    click.echo(runner_safe(json.dumps(doc, indent=2, allow_nan=False, ensure_ascii=False), "json"))


# --------------------------------------------------------------------------
# Command
# --------------------------------------------------------------------------


@click.command(
    "measure",
    context_settings={"help_option_names": ["-h", "--help"]},
    short_help="Numbers without judgement: speed, stride anchor, amplitude.",
)
@click.argument("args", nargs=-1, required=True, metavar="[speed] PATHS...")
@click.option("--clip", "clip_names", multiple=True, metavar="NAME", help="Only this clip (repeatable; every file must have it).")
@format_option("fmt_name")
@click.option("--profile", default=None, metavar="PROFILE", help="Rig profile (auto, mixamo, ue-mannequin, humanoid, rigify, biped, generic, none = only [rig.roles]); overrides [rig] profile.")
@click.option("--wide", is_flag=True, help="Text: every column (adds frames, dist m, yaw deg, endpoint, skate; about 140 columns wide).")
@config_option
@click.pass_context
def measure_cmd(ctx, args, clip_names, fmt_name, profile, config_path, wide):
    """Measure every clip of each file: stride anchor (gait_phase), L-R
    amplitude, cycles, root speed/heading/distance, loop seam ratio, yaw, loop
    endpoint mode and foot-skate ratio (JSON: foot contact timing too). PATHS
    are files, folders (searched for .glb/.gltf files) and globs, as for `lint`.

    The text table shows the columns that fit 100 characters; `--wide` adds
    frames, dist m, yaw deg, endpoint and skate (JSON always has every field).

    `animsmith measure speed PATHS...` prints only speed_mps, heading_deg,
    distance_m, duration_s and the travel bone. A metric that cannot be
    measured is shown as "-" (text) or null with "<name>_unavailable" (JSON).
    """
    args = list(args)
    speed = False
    # `speed` first is the metric when files follow it; alone, it is the metric unless a
    # file or folder of that name exists here (name such a file as ./speed otherwise)
    if args and args[0] == "speed" and (len(args) > 1 or not os.path.exists("speed")):
        speed = True
        args = args[1:]
    if not args:
        raise click.UsageError("no PATHS given")
    prof, overrides, cfg, contract = load_rig_contract(ctx, config_path, profile)
    from animsmith.checks import measurement_options
    from animsmith.core.units import units_report

    from animsmith.lint import expand_paths

    options = measurement_options(contract)  # the checks' own options: the numbers they judge
    floor_m, contact_m = options["min_stride_step_m"], options["contact_height_m"]
    files: List[Dict[str, Any]] = []
    for path in expand_paths(args):  # files, folders and globs, found as `lint` finds them
        asset, roles, analyses = load_and_analyze(path, prof, overrides, cfg, contract.rig.metres_per_unit, contract.rig.legs or None)
        chosen = select_clips(analyses, tuple(clip_names), path)
        units = units_report(asset, roles, contract.rig.units, analyses[0].grid if analyses else None)
        del analyses, asset
        if not speed and len(chosen) > 1:
            from animsmith.core.analysis import prime_loop_continuity

            try:
                prime_loop_continuity(chosen)  # one FK pass for every clip's loop-continuity samples
            except Exception:  # noqa: BLE001 - each clip then computes (or fails) on its own
                if os.environ.get("ANIMSMITH_DEBUG"):
                    raise
        clips = []
        chosen.reverse()
        while chosen:  # one clip at a time, letting each pose grid go (memory: one clip, not all)
            clips.append(_measure_one(chosen.pop(), path, speed, floor_m, contact_m, contract))
        rj = roles.to_json()
        files.append({"path": path, "rig": rj, "units": units, "clips": clips})
    if fmt_name == "json":
        render_json(files, speed)
    else:
        render_text(files, speed, wide)
    return 0
