"""Hostile creature files and flag values for ``animsmith sim``: one line
``animsmith: <file>: <problem>`` on stderr and exit 2, never a traceback, an
internal error, a hang, a runaway walk or a half-written output; ``validate``
never passes on NaN measurements (docs/sim.md, "Limits").
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from animsmith.errors import AnimsmithError
from animsmith.sim import creature as creature_mod
from animsmith.sim.bake import MAX_BONE_KEYS, bake
from animsmith.sim.creature import Creature, Leg, catalog_creature, load_catalog
from animsmith.sim.validate import measure_baked, validate_creature

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BIPED = """stride = 0.6
duty = 0.6
lift = 0.09
clip_speed = 1.2
body_height = 0.8
[[legs]]
name = "left"
side = "L"
phase = 0.0
knee = "forward"
segments = [0.45, 0.45]
home = [0.1, 0.0, 0.0]
[[legs]]
name = "right"
side = "R"
phase = 0.5
knee = "forward"
segments = [0.45, 0.45]
home = [-0.1, 0.0, 0.0]
"""


def run_cli(args, capsys):
    from animsmith.cli import main

    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def run_sub(args, timeout=60):
    """The CLI in a child process (a hang fails the test instead of blocking it)."""
    proc = subprocess.run(
        [sys.executable, "-m", "animsmith", *map(str, args)],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout,
    )
    return proc.returncode, proc.stdout, proc.stderr


def one_line_error(err: str, path, problem: str) -> None:
    """stderr is exactly ``animsmith: <path>: <problem>``: one line, nothing else."""
    assert err == f"animsmith: {path}: {problem}\n", err
    assert "internal error" not in err and "Traceback" not in err


def biped_with(tmp_path, filename="c.toml", **top):
    """The biped creature file with top-level keys replaced (TOML values as written)."""
    lines = [ln for ln in BIPED.splitlines() if ln.split(" = ")[0] not in top]
    head = [f"{k} = {v}" for k, v in top.items()]
    p = tmp_path / filename
    p.write_text("\n".join(head + lines) + "\n")
    return p


def assert_bake_and_validate_refuse(tmp_path, capsys, path, problem, *, label=None):
    out = tmp_path / "out.glb"
    shown = path if label is None else label
    code, stdout, err = run_cli(["sim", "bake", path, "-o", out], capsys)
    assert code == 2 and stdout == ""
    one_line_error(err, shown, problem)
    assert not out.exists()
    code, stdout, err = run_cli(["sim", "validate", path], capsys)
    assert code == 2 and "passed" not in stdout
    one_line_error(err, shown, problem)


# --------------------------------------------------------------------------
# 1. reading the file: FIFO, size, encoding
# --------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
@pytest.mark.parametrize("command", ["bake", "validate"])
def test_a_fifo_is_refused_without_blocking(tmp_path, command):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    out = tmp_path / "f.glb"
    args = ["sim", "bake", fifo, "-o", out] if command == "bake" else ["sim", "validate", fifo]
    code, stdout, err = run_sub(args, timeout=30)
    assert code == 2 and stdout == ""
    one_line_error(err, fifo, "not a regular file")
    assert not out.exists()


def test_a_directory_is_not_a_regular_file(tmp_path, capsys):
    d = tmp_path / "dir.toml"
    d.mkdir()
    assert_bake_and_validate_refuse(tmp_path, capsys, d, "not a regular file")


def test_an_oversized_creature_file_is_refused_before_reading(tmp_path, capsys):
    p = tmp_path / "big.toml"
    p.write_text(BIPED + "# " + "x" * creature_mod.MAX_FILE_BYTES + "\n")
    size = p.stat().st_size
    assert_bake_and_validate_refuse(tmp_path, capsys, p, f"{size} bytes; the limit for a creature file is 1048576")


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_a_non_utf8_creature_file_is_refused(tmp_path, capsys, suffix):
    p = tmp_path / f"latin{suffix}"
    p.write_bytes(b'name = "caf\xe9"\n' if suffix == ".toml" else b'{"name": "caf\xe9"}')
    assert_bake_and_validate_refuse(tmp_path, capsys, p, "not UTF-8 text")


def test_a_path_with_control_characters_is_shown_escaped(tmp_path, capsys):
    p = tmp_path / "a\x1b[31mb\nc.toml"  # does not exist
    code, _, err = run_cli(["sim", "validate", p], capsys)
    assert code == 2
    shown = str(p).replace("\x1b", "\\u001b").replace("\n", "\\u000a")
    one_line_error(err, shown, "no such file or directory")


# --------------------------------------------------------------------------
# 2. deep nesting
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, text, kind",
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000, "JSON"),
        ("deep_object.json", '{"a":' * 3000 + "1" + "}" * 3000, "JSON"),
        ("deep.toml", "name = " + "[" * 100_000 + "]" * 100_000 + "\n", "TOML"),
        ("deep_table.toml", "name = " + "{a=" * 3000 + "1" + "}" * 3000 + "\n", "TOML"),
    ],
)
def test_deeply_nested_files_are_a_named_one_line_error(tmp_path, capsys, name, text, kind):
    p = tmp_path / name
    p.write_text(text)
    assert_bake_and_validate_refuse(tmp_path, capsys, p, f"invalid {kind}: nested too deeply")


def test_json_nesting_limit_is_the_same_on_every_python(tmp_path, capsys):
    """513 levels are refused before parsing (3.13's decoder would parse them, 3.11's not
    many more); 512 are parsed and then judged as a creature."""
    over = tmp_path / "over.json"
    over.write_text('{"a":' * 513 + "1" + "}" * 513)
    assert_bake_and_validate_refuse(tmp_path, capsys, over, "invalid JSON: nested too deeply")
    at = tmp_path / "at.json"
    at.write_text('{"a":' * 512 + "1" + "}" * 512)
    code, _, err = run_cli(["sim", "validate", at], capsys)
    assert code == 2 and "nested too deeply" not in err and "unknown key 'a'" in err


def test_nested_values_are_described_not_printed(tmp_path, capsys):
    p = tmp_path / "n.json"
    p.write_text(json.dumps({"name": [[[[1]]]] * 50_000}))
    assert_bake_and_validate_refuse(tmp_path, capsys, p, "name: expected a non-empty string, got a list of 50000 items")


# --------------------------------------------------------------------------
# 3. runaway sizes: legs, segments, bones
# --------------------------------------------------------------------------


def _legs_json(legs: int, segments: int) -> str:
    leg = {"phase": 0, "segments": [0.1] * segments, "home": [0, 0, 0]}
    return json.dumps({"stride": 0.2, "duty": 0.6, "lift": 0.05, "clip_speed": 0.5, "body_height": 0.15,
                       "legs": [dict(leg, name=f"l{i}") for i in range(legs)]}, separators=(",", ":"))


@pytest.mark.parametrize(
    "legs, segments, problem",
    [
        (12_000, 2, "legs: 12000 legs; the limit is 64"),
        (65, 2, "legs: 65 legs; the limit is 64"),
        (1, 150_000, "legs[0].segments: 150000 segments; the limit is 64 per leg"),
        (1, 65, "legs[0].segments: 65 segments; the limit is 64 per leg"),
        (8, 40, "legs: 329 bones (the body, plus per leg its segments and a foot); the limit is 256"),
    ],
)
def test_runaway_creatures_are_refused_fast(tmp_path, capsys, legs, segments, problem):
    p = tmp_path / "huge.json"
    p.write_text(_legs_json(legs, segments))
    assert p.stat().st_size < creature_mod.MAX_FILE_BYTES  # refused for its content, not its size
    t0 = time.perf_counter()
    assert_bake_and_validate_refuse(tmp_path, capsys, p, problem)
    assert time.perf_counter() - t0 < 10.0


def test_a_creature_at_the_limits_validates_with_finite_numbers(tmp_path, capsys):
    # 64 two-bone legs (193 bones): the most legs allowed, well under the bone limit
    p = tmp_path / "centipede.json"
    doc = json.loads(_legs_json(64, 2))
    for i, leg in enumerate(doc["legs"]):
        leg.update(side="LR"[i % 2], phase=(i * 0.37) % 1.0, home=[0.2 * (1 - 2 * (i % 2)), 0, 0.02 * (i // 2)])
    p.write_text(json.dumps(doc))
    t0 = time.perf_counter()
    code, out, err = run_cli(["sim", "validate", p, "--format", "json"], capsys)
    assert time.perf_counter() - t0 < 60.0
    assert code in (0, 1) and err == ""
    rep = json.loads(out)["creatures"][0]
    numbers = [rep["walk_test"]["foot_slide_mm"]] + [t[k] for t in rep["terrain_tests"] for k in ("foot_slide_mm", "ground_error_mm")]
    assert all(math.isfinite(x) for x in numbers)


def test_the_catalog_is_well_inside_the_limits():
    for c in load_catalog():
        assert len(c.legs) <= creature_mod.MAX_LEGS // 8
        assert all(len(leg.segments) <= creature_mod.MAX_SEGMENTS // 16 for leg in c.legs)
        assert creature_mod.MIN_SPEED_MPS * 100 <= c.clip_speed <= creature_mod.MAX_SPEED_MPS / 50
        assert creature_mod.MIN_DUTY < c.duty < creature_mod.MAX_DUTY
        assert creature_mod.MIN_LENGTH_M * 10 <= c.stride and c.body_height <= creature_mod.MAX_LENGTH_M / 100


# --------------------------------------------------------------------------
# 4. overflow: creature numbers are bounded, leftovers are named
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, value, problem",
    [
        ("stride", "1e300", "stride: 1e+300 out of range (needs >= 0.001 and <= 100)"),
        ("stride", "1" + "0" * 300, "stride: 1e+300 out of range (needs >= 0.001 and <= 100)"),
        ("stride", "1" + "0" * 400, "stride: an integer beyond the float range out of range (needs >= 0.001 and <= 100)"),
        ("clip_speed", "1e-300", "clip_speed: 1e-300 out of range (needs >= 0.001 and <= 100)"),
        ("clip_speed", "1e300", "clip_speed: 1e+300 out of range (needs >= 0.001 and <= 100)"),
        ("duty", "1e-300", "duty: 1e-300 out of range (needs >= 0.01 and <= 0.99)"),
        ("duty", "nan", "duty: expected a finite number, got nan"),
        ("bob", "1e300", "bob: 1e+300 out of range (needs >= 0 and <= 100)"),
        ("body_height", "1e300", "body_height: 1e+300 out of range (needs >= 0.001 and <= 100)"),
        ("lift", "-inf", "lift: expected a finite number, got -inf"),
        ("roll_deg", "90", "roll_deg: 90 out of range (needs >= -45 and <= 45)"),
        # ":g" would print 100 next to "<= 100": the exact value is shown instead
        ("clip_speed", "100.0001", "clip_speed: 100.0001 out of range (needs >= 0.001 and <= 100)"),
    ],
)
def test_creature_numbers_out_of_range_are_named(tmp_path, capsys, key, value, problem):
    p = biped_with(tmp_path, **{key: value})
    assert_bake_and_validate_refuse(tmp_path, capsys, p, problem)


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda leg: leg.update(home=[10**300, 0, 0]), "legs[0].home[0]: 1e+300 out of range (needs >= -100 and <= 100)"),
        (lambda leg: leg.update(hip=[0, 1e-300, "x" * 1000]), "legs[0].hip[2]: expected a finite number, got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"),
        (lambda leg: leg.update(home=list(range(100_000))), "legs[0].home: expected [x, y, z] of finite numbers, got a list of 100000 items"),
        (lambda leg: leg.update(segments=[1e-9, 0.4]), "legs[0].segments[0]: 1e-09 out of range (needs >= 0.001 and <= 100)"),
        (lambda leg: leg.update(knee="\x1b" * 5000), "legs[0].knee: expected one of forward, back, up, got '" + "\\u001b" * 40 + "...'"),
        # a misspelt key would silently take its default (every knee "back", the hip derived)
        (lambda leg: leg.update(Knee="forward"), "legs[0]: unknown key 'Knee' (expected one of hip, home, knee, lower, name, phase, segments, side, upper)"),
        (lambda leg: leg.update(hips=[0.1, 0.8, 0]), "legs[0]: unknown key 'hips' (expected one of hip, home, knee, lower, name, phase, segments, side, upper)"),
    ],
)
def test_leg_values_are_bounded_and_shown_short(tmp_path, capsys, edit, problem):
    doc = {"stride": 0.6, "duty": 0.6, "lift": 0.09, "clip_speed": 1.2, "body_height": 0.8,
           "legs": [{"name": "a", "phase": 0, "segments": [0.45, 0.45], "home": [0.1, 0, 0]}]}
    edit(doc["legs"][0])
    p = tmp_path / "leg.json"
    p.write_text(json.dumps(doc))
    assert_bake_and_validate_refuse(tmp_path, capsys, p, problem)


def test_a_derived_body_height_is_bounded(tmp_path, capsys):
    doc = {"stride": 0.6, "duty": 0.6, "lift": 0.09, "clip_speed": 1.2,
           "legs": [{"name": "a", "phase": 0, "segments": [0.45, 0.45], "home": [0.1, 0, 0], "hip": [0.1, 0, 0]}]}
    p = tmp_path / "flat.json"
    p.write_text(json.dumps(doc))
    assert_bake_and_validate_refuse(
        tmp_path, capsys, p, "body_height: not set, and legs[0] hip - home gives 0 (needs >= 0.001 and <= 100); set body_height"
    )


def _raw_creature(**kw) -> Creature:
    """A Creature built past the loader's checks (what a library caller could do)."""
    legs = [Leg("left", "L", 0.0, "forward", (0.45, 0.45), (0.1, 0.0, 0.0), (0.1, 0.8, 0.0)),
            Leg("right", "R", 0.5, "forward", (0.45, 0.45), (-0.1, 0.0, 0.0), (-0.1, 0.8, 0.0))]
    args = dict(name="raw", stride=0.6, duty=0.6, lift=0.09, clip_speed=1.2, legs=legs, body_height=0.8, source="raw.toml")
    args.update(kw)
    return Creature(**args)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    "kw, needle",
    [
        (dict(stride=1e300, duty=1e-300), "keys per channel is over the 1,000,000 limit"),
        (dict(clip_speed=1e-300), "out of range"),
        (dict(bob=1e300), "not finite"),
        (dict(body_height=1e300), "not finite"),
    ],
)
def test_unchecked_creatures_fail_with_a_named_error(kw, needle):
    c = _raw_creature(**kw)
    with pytest.raises(AnimsmithError) as exc:
        validate_creature(c)
    msg = exc.value.message
    assert msg.startswith("raw.toml: ") and needle in msg and "\n" not in msg
    assert not re.search(r"\d{20}", msg)


def test_arithmetic_failures_become_named_errors(monkeypatch):
    import animsmith.sim.bake as bake_mod

    def boom(*a, **k):
        raise OverflowError("math range error")

    monkeypatch.setattr(bake_mod, "simulate", boom)
    with pytest.raises(AnimsmithError) as exc:
        validate_creature(catalog_creature("fox"))
    assert exc.value.message.endswith("fox.toml: cannot bake creature 'fox': OverflowError: math range error")


# --------------------------------------------------------------------------
# 5. degenerate bakes: too few keys, non-finite keys, NaN measurements
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags, problem",
    [
        (["--speed", "1e308"], "Invalid value for '--speed': speed 1e+308 m/s out of range (needs >= 0.001 and <= 100)"),
        (["--speed", "100.0001"], "Invalid value for '--speed': speed 100.0001 m/s out of range (needs >= 0.001 and <= 100)"),
        (["--cycles", "1e-300"], "Invalid value for '--cycles' / '--speed' / '--fps': the clip would last 8.33333e-301 s: fewer than 2 keys at this rate"),
        (["--fps", "0.5"], "Invalid value for '--cycles' / '--speed' / '--fps': the clip would last 0.833333 s: fewer than 2 keys at this rate"),
        (["--cycles", "1e308"], "Invalid value for '--cycles': cycles 1e+308 out of range (needs > 0 and <= 1000)"),
        (["--cycles", "1000", "--fps", "1e300"], "Invalid value for '--cycles' / '--speed' / '--fps': 8.33333e+302 keys per channel is over the 1,000,000 limit"),
        (["--speed", "nan"], "Invalid value for '--speed': must be a finite number > 0, got nan"),
    ],
)
def test_degenerate_flags_write_nothing(tmp_path, capsys, flags, problem):
    out = tmp_path / "b.glb"
    code, stdout, err = run_cli(["sim", "bake", "biped", "-o", out, *flags], capsys)
    assert code == 2 and stdout == ""
    assert err == f"animsmith: {problem} (see 'animsmith sim bake --help')\n"
    assert not re.search(r"\d{20}", err)
    assert not out.exists()


def test_bone_key_budget_bounds_a_bake(tmp_path, capsys):
    # a 64-segment leg: 67 bones; 1,000 cycles at 2,000 keys each would need 134M bone-keys
    p = tmp_path / "long.json"
    doc = json.loads(_legs_json(1, 64))
    doc["body_height"] = 5.0
    p.write_text(json.dumps(doc))
    out = tmp_path / "long.glb"
    code, _, err = run_cli(["sim", "bake", p, "-o", out, "--cycles", "400", "--fps", "600"], capsys)
    assert code == 2 and not out.exists()
    assert f"bones is over the {MAX_BONE_KEYS:,} limit" in err and err.count("\n") == 1


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_baked_keys_are_checked_finite_before_writing():
    with pytest.raises(AnimsmithError, match=r"^raw\.toml: the baked rest pose is not finite"):
        bake(_raw_creature(body_height=1e300))
    with pytest.raises(AnimsmithError, match=r"^raw\.toml: the baked translation keys of bone 'Hips' are not finite"):
        bake(_raw_creature(bob=1e300, naming="mixamo"))


def test_validate_never_passes_on_nan_measurements():
    b = bake(catalog_creature("biped"), cycles=2, samples_per_cycle=120, root_motion=True)
    ch = b.clip.channels[-1]
    ch.values[5] = np.nan
    with pytest.raises(AnimsmithError, match="biped.toml: the baked feet are not finite"):
        measure_baked(b)


# --------------------------------------------------------------------------
# 6. names: control characters refused, shown escaped
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, problem",
    [
        ('"a\\u001b[31mred"', "name: control character U+001B in 'a\\u001b[31mred'"),
        ('"two\\nlines"', "name: control character U+000A in 'two\\u000alines'"),
        ('"nul\\u0000"', "name: control character U+0000 in 'nul\\u0000'"),
        ('"rtl\\u202eexe"', "name: control character U+202E in 'rtl\\u202eexe'"),
        ('"' + "n" * 129 + '"', "name: 129 characters; the limit is 128"),
    ],
)
def test_control_characters_in_names_are_refused(tmp_path, capsys, name, problem):
    p = biped_with(tmp_path, name=name)
    assert_bake_and_validate_refuse(tmp_path, capsys, p, problem)


def test_control_characters_in_leg_names_are_refused(tmp_path, capsys):
    p = tmp_path / "leg.toml"
    p.write_text(BIPED.replace('name = "left"', 'name = "le\\u001bft"'))
    assert_bake_and_validate_refuse(tmp_path, capsys, p, "legs[0].name: control character U+001B in 'le\\u001bft'")


def test_unknown_creature_names_are_shown_escaped(tmp_path, capsys):
    code, _, err = run_cli(["sim", "bake", "uni\x1bcorn", "-o", tmp_path / "u.glb"], capsys)
    assert code == 2
    assert err.startswith("animsmith: unknown creature 'uni\\u001bcorn' (built-in: ") and err.count("\n") == 1


def test_valid_creature_files_still_bake_and_validate(tmp_path, capsys):
    p = biped_with(tmp_path, name='"two-legs"')
    out = tmp_path / "ok.glb"
    code, stdout, err = run_cli(["sim", "bake", p, "-o", out], capsys)
    assert code == 0 and err == "" and out.exists()
    assert stdout.startswith(f"{out}: two-legs flat 1.2 m/s, 26 keys over 0.8333 s (in-place)")
    code, stdout, err = run_cli(["sim", "validate", p], capsys)
    assert code == 0 and err == "" and stdout.endswith("1 passed, 0 failed\n")


def test_bake_output_that_is_the_creature_file_is_refused(tmp_path, capsys):
    """`sim bake walker.toml -o walker.toml` would replace the creature with a GLB."""
    src = tmp_path / "walker.toml"
    src.write_text(BIPED)
    code, out, err = run_cli(["sim", "bake", src, "-o", tmp_path / "." / "walker.toml"], capsys)
    assert (code, out) == (2, "")
    one_line_error(err, tmp_path / "." / "walker.toml", f"--output is also an input ({src}); write the output elsewhere")
    assert src.read_text() == BIPED


def test_default_hips_share_the_body_height():
    """Gaitkit's fox (seed 001) sets no body_height: it is the first leg's 0.85 x reach, and every
    leg's default hip is mounted at it (each used its own reach: the longer hind hips sat 3 cm
    above the body)."""
    doc = {"stride": 0.15, "duty": 0.7, "lift": 0.035, "clip_speed": 0.375, "segments": [
        {"name": "leg_0", "side": "L", "phase": 0.75, "knee": "forward", "upper": 0.11, "lower": 0.12, "home": [0.048, 0, 0.155]},
        {"name": "leg_1", "side": "L", "phase": 0, "knee": "back", "upper": 0.125, "lower": 0.14, "home": [0.048, 0, -0.175]},
        {"name": "leg_2", "side": "R", "phase": 0.25, "knee": "forward", "upper": 0.11, "lower": 0.12, "home": [-0.048, 0, 0.155]},
        {"name": "leg_3", "side": "R", "phase": 0.5, "knee": "back", "upper": 0.125, "lower": 0.14, "home": [-0.048, 0, -0.175]}]}
    c = creature_mod.creature_from_dict(doc, "fox.json")
    assert c.body_height == pytest.approx(0.85 * (0.11 + 0.12))
    assert [leg.hip[1] for leg in c.legs] == pytest.approx([c.body_height] * 4)
    # the hind legs listed first: still the shortest reach, so the fore legs reach the ground
    doc["segments"] = doc["segments"][1::2] + doc["segments"][0::2]
    c = creature_mod.creature_from_dict(doc, "fox.json")
    assert c.body_height == pytest.approx(0.85 * (0.11 + 0.12))
    assert [leg.hip[1] for leg in c.legs] == pytest.approx([c.body_height] * 4)
