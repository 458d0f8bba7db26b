"""``animsmith sim``: the procedural gait simulator (docs/sim.md).

* ``sim catalog [--format json]`` — the built-in creatures with each one's
  ``walk_test.foot_slide_mm``.
* ``sim bake CREATURE -o out.glb [--terrain flat|slope|steps|rough] [--speed M/S]
  [--cycles N] [--fps N] [--in-place|--root-motion]``.
* ``sim validate [CREATURE...] [--format json]`` — exit 1 when any stance foot
  slides more than 1 mm (or a planted foot is off the ground by more than 1 mm).
* ``sim ring -o PATH`` — the shipped four-clip run ring (examples/assets/run-ring.glb).
"""

from __future__ import annotations

import json

import click

from animsmith.commands._options import FiniteFloat, format_option
from animsmith.commands._output import check_output_path, publish_output
from animsmith.text import runner_safe_line

TERRAIN_CHOICES = ("flat", "slope", "steps", "rough")


@click.group(name="sim")
def sim_grp():
    """Procedural gait simulator: bake, validate, catalog, ring."""


@sim_grp.command("catalog", short_help="List the built-in creatures and their measured foot slide.")
@format_option("fmt")
def catalog_cmd(fmt: str) -> int:
    """List the built-in creatures with their measured walk_test.foot_slide_mm."""
    from animsmith.sim.creature import load_catalog
    from animsmith.sim.validate import walk_test

    rows = []
    for c in load_catalog():
        wt, _ = walk_test(c)
        doc = c.to_json()
        doc["walk_test"] = wt
        rows.append(doc)
    if fmt == "json":
        click.echo(json.dumps({"schema_version": 1, "command": "sim catalog", "creatures": rows}, indent=2))
        return 0
    click.echo(f"{'creature':<9} {'legs':>4} {'solver':<9} {'stride m':>8} {'duty':>5} {'lift m':>6} {'cycle m':>8} "
               f"{'speed m/s':>9}  walk_test.foot_slide_mm")
    for r in rows:
        solver = "fabrik" if any(leg["solver"] == "fabrik" for leg in r["legs"]) else "two-bone"
        click.echo(
            f"{r['name']:<9} {len(r['legs']):>4} {solver:<9} {r['stride']:>8.3f} {r['duty']:>5.2f} {r['lift']:>6.3f} "
            f"{r['cycle_m']:>8.4f} {r['clip_speed']:>9.3f}  {r['walk_test']['foot_slide_mm']:.6f}"
        )
    return 0


@sim_grp.command("bake", short_help="Bake a creature's walk into a GLB clip.")
@click.argument("creature")
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False), metavar="OUT", help="GLB file to write.")
@click.option("--terrain", type=click.Choice(TERRAIN_CHOICES), default="flat", show_default=True, help="Ground to walk on.")
@click.option("--speed", "speed", type=FiniteFloat(0.0), default=None, help="Travel speed in m/s, 0.001-100 (default: the creature's clip_speed).")
@click.option("--cycles", type=FiniteFloat(0.0), default=1.0, show_default=True, help="Gait cycles to bake (> 0, <= 1000).")
@click.option("--fps", type=FiniteFloat(0.0), default=30.0, show_default=True,
              help="Key rate, > 0 (rounded to a whole number of key intervals over the clip, so the keys' "
              "rate can differ slightly: the summary line gives keys and seconds).")
@click.option("--in-place/--root-motion", "in_place", default=True, show_default=True, help="Keep the root's travel out of the clip, or bake it in.")
def bake_cmd(creature: str, output: str, terrain: str, speed, cycles: float, fps: float, in_place: bool) -> int:
    """Bake CREATURE (a built-in name: `animsmith sim catalog` lists them; or a
    .toml/.json creature file) walking straight ahead into a GLB, one clip named
    walk (walk_<terrain> off flat ground). The file carries the creature's leg
    map, so measure, lint and report find every leg with no config (docs/sim.md)."""
    from animsmith.text import escape
    from animsmith.sim.bake import BakeRequestError, bake, bake_plan, to_glb
    from animsmith.sim.creature import resolve_creature

    check_output_path(output, [creature])  # a creature file given as its own output
    c = resolve_creature(creature)
    try:
        bake_plan(c, speed, cycles, fps)
    except BakeRequestError as exc:
        raise click.BadParameter(exc.reason, param_hint=exc.params.split("/")) from None  # quoted, as click's own
    baked = bake(c, terrain=terrain, speed_mps=speed, cycles=cycles, fps=fps, root_motion=not in_place)
    publish_output(output, to_glb(baked))
    w = baked.walk
    click.echo(runner_safe_line(
        f"{escape(output)}: {c.name} {terrain} {baked.speed_mps:g} m/s, {len(w.times_s)} keys over {w.times_s[-1]:.4f} s "
        f"({'in-place' if in_place else 'root-motion'}), {len(baked.events)} contact events, "
        f"worst reach shortfall {w.worst_shortfall_m * 1e3:.3f} mm"
    ))
    return 0


@sim_grp.command("validate", short_help="Prove every creature's feet hold (exit 1 if one slides).")
@click.argument("creatures", nargs=-1)
@format_option("fmt")
def validate_cmd(creatures, fmt: str) -> int:
    """Walk each CREATURE (a built-in name or a .toml/.json file; default: the
    whole catalog) on flat ground and every terrain. Exit 1 when a stance foot
    slides more than 1 mm or a planted foot is more than 1 mm off the ground."""
    from animsmith.sim.creature import load_catalog
    from animsmith.sim.validate import report_json, validate_catalog

    from animsmith.runtime import decide_exit_status

    reports = validate_catalog(load_catalog(list(creatures) or None))
    ok = all(r.passed for r in reports)
    decide_exit_status(0 if ok else 1)  # before writing: a reader that goes away keeps it
    if fmt == "json":
        click.echo(json.dumps(report_json(reports), indent=2))
        return 0 if ok else 1
    for r in reports:
        terr = ", ".join(f"{t['terrain']} {t['foot_slide_mm']:.4f}/{t['ground_error_mm']:.4f}" for t in r.terrain_tests)
        status = "ok  " if r.passed else "FAIL"
        click.echo(runner_safe_line(f"{status} {r.name}: walk_test.foot_slide_mm {r.walk_test['foot_slide_mm']:.6f}; terrain slide/ground mm: {terr}"))
        for f in r.failures:
            click.echo(runner_safe_line(f"  error: {f.message()}"))
        if r.reach_note():
            click.echo(runner_safe_line(f"  cause: {r.reach_note()}"))
    failed = sum(1 for r in reports if not r.passed)
    click.echo(f"{len(reports) - failed} passed, {failed} failed")
    return 0 if ok else 1


@sim_grp.command("ring", short_help="Write an example four-clip ring GLB (the run ring, or the root-motion walk ring).")
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False), help="GLB file to write.")
@click.option("--root-motion", "root_motion", is_flag=True, default=False,
              help="Write the root-motion walk ring (examples/assets/walk-ring-root-motion.glb) instead.")
def ring_cmd(output: str, root_motion: bool) -> int:
    """Write the example run ring (run_forward/backward/left/right, run_left
    deliberately a quarter cycle out of phase so gait-group fails): the file
    shipped as examples/assets/run-ring.glb. With --root-motion, the walk ring
    shipped as examples/assets/walk-ring-root-motion.glb instead: the catalog
    biped walking forward, backward, left and right in step, its travel baked
    into the hips."""
    from animsmith.sim.ring import RING, WALK_RING, ring_glb, walk_ring_glb

    check_output_path(output)
    if root_motion:
        publish_output(output, walk_ring_glb())
        names = [name for name, _ in WALK_RING]
    else:
        publish_output(output, ring_glb())
        names = [name for name, _, _ in RING]
    click.echo(runner_safe_line(f"{output}: {', '.join(names)}"))
    return 0
