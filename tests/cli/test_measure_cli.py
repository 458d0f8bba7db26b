"""`animsmith measure` on GLB files written by the writer from analytic clips.

Expectations come from the analytic construction in tests/support/builders.py: feet
bob as ±A·sin(2π(t/T + offset)), so the anchor is 0.75 − offset; the root
moves at a known velocity.
"""

import json
import math
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from builders import biped_asset, gait_clip
from animsmith.cli import cli
from animsmith.io.write import write_glb

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def ring_glb(tmp_path):
    clips = [
        gait_clip("walk_fwd", velocity_mps=(0.0, 0.0, 1.4), amplitude_m=0.1),
        gait_clip("walk_right", velocity_mps=(2.0, 0.0, 0.0), offset_cycles=0.25, amplitude_m=0.1),
        gait_clip("two_strides", frames=61, cycles=2, amplitude_m=0.1),
        gait_clip("stand", amplitude_m=0.0),
    ]
    path = str(tmp_path / "ring.glb")
    write_glb(biped_asset(clips, convention="mixamo"), path)
    return path


MEASURE_SCHEMA = os.path.join(os.path.dirname(HERE), "docs", "schema", "measure-output.schema.json")


def validate_measure_json(text):
    """Parse measure JSON and validate it against docs/schema/measure-output.schema.json."""
    import jsonschema

    doc = json.loads(text)
    with open(MEASURE_SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)
    return doc


def run_json(*args):
    """Run the CLI in-process; every measure JSON output is schema-validated."""
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return validate_measure_json(res.output)


def test_measure_json_contract(ring_glb):
    doc = run_json("measure", ring_glb, "--format", "json")
    assert doc["schema_version"] == 1 and doc["command"] == "measure"
    (f,) = doc["files"]
    assert f["path"] == ring_glb
    assert f["rig"]["profile"] == "mixamo"
    assert f["rig"]["roles"]["hips"] == "mixamorig:Hips"
    assert f["rig"]["roles"]["left_foot"] == "mixamorig:LeftFoot"
    clips = {c["name"]: c for c in f["clips"]}
    fwd = clips["walk_fwd"]
    for key in ("name", "duration_s", "frame_count", "gait_phase", "lr_amplitude_m", "cycles", "speed_mps",
                "heading_deg", "distance_m", "loop_seam_ratio", "yaw_deg", "travel_bone"):
        assert key in fwd
    assert fwd["duration_s"] == pytest.approx(1.0)
    assert fwd["frame_count"] == 31
    assert fwd["gait_phase"] == pytest.approx(0.75, abs=1e-6)
    assert fwd["cycles"] == 1
    assert fwd["speed_mps"] == pytest.approx(1.4, rel=1e-6)
    assert fwd["heading_deg"] == pytest.approx(0.0, abs=1e-6)
    assert fwd["distance_m"] == pytest.approx(1.4, rel=1e-6)
    assert fwd["travel_bone"] == "root" and fwd["travel_source_role"] == "root"
    right = clips["walk_right"]
    assert right["gait_phase"] == pytest.approx(0.50, abs=1e-6)
    assert right["heading_deg"] == pytest.approx(90.0, abs=1e-6)
    assert right["speed_mps"] == pytest.approx(2.0, rel=1e-6)
    two = clips["two_strides"]
    assert two["cycles"] == 2 and two["gait_phase"] == pytest.approx(0.75, abs=1e-6)
    assert "cycles_note" in two


def test_unmeasurable_metrics_are_null_with_reason(ring_glb):
    doc = run_json("measure", ring_glb, "--format", "json", "--clip", "stand")
    (c,) = doc["files"][0]["clips"]
    assert c["gait_phase"] is None
    assert "no foot-height swing" in c["gait_phase_unavailable"]
    assert c["lr_amplitude_m"] == 0.0
    assert c["heading_deg"] is None and "in place" in c["heading_deg_unavailable"]
    # every null value carries a reason
    for k, v in c.items():
        if v is None and not k.endswith("_unavailable") and k not in ("travel_bone", "travel_source_role"):
            assert isinstance(c.get(k + "_unavailable"), str), k


def test_measure_speed_subcommand(ring_glb):
    doc = run_json("measure", "speed", ring_glb, "--format", "json", "--clip", "walk_right")
    assert doc["metric"] == "speed"
    (c,) = doc["files"][0]["clips"]
    assert set(c) >= {"name", "speed_mps", "heading_deg", "distance_m", "duration_s", "travel_bone"}
    assert "gait_phase" not in c
    assert c["speed_mps"] == pytest.approx(2.0, rel=1e-6)
    assert c["heading_deg"] == pytest.approx(90.0, abs=1e-6)
    assert c["distance_m"] == pytest.approx(2.0, rel=1e-6)


def test_measure_text_is_plain_when_piped(ring_glb):
    res = CliRunner().invoke(cli, ["measure", ring_glb], catch_exceptions=False)
    assert res.exit_code == 0
    assert "\x1b[" not in res.output
    assert "walk_fwd" in res.output and "0.750" in res.output
    res2 = CliRunner().invoke(cli, ["measure", "speed", ring_glb], catch_exceptions=False)
    assert "90.0" in res2.output and "gait" not in res2.output


def test_inline_roles_from_config(tmp_path, ring_glb):
    cfg = tmp_path / "animsmith.toml"
    # swap left and right: the L-R signal negates, so the anchor moves by 0.5
    cfg.write_text('[rig]\nprofile = "auto"\n[rig.roles]\nleft_foot = "mixamorig:RightFoot"\nright_foot = "mixamorig:LeftFoot"\n')
    doc = run_json("--config", str(cfg), "measure", ring_glb, "--format", "json", "--clip", "walk_fwd")
    f = doc["files"][0]
    assert f["rig"]["profile"] == "mixamo+custom"
    assert f["clips"][0]["gait_phase"] == pytest.approx(0.25, abs=1e-6)


def animsmith(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "animsmith", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_bad_file_exits_2_with_one_line(tmp_path, ring_glb):
    bad = tmp_path / "bad.glb"
    bad.write_bytes(b"glTF\x02\x00\x00\x00")
    r = animsmith("measure", str(bad))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"animsmith: {bad}: ")
    assert "Traceback" not in r.stderr
    r2 = animsmith("measure", ring_glb, "--clip", "nope")
    assert r2.returncode == 2 and "nope" in r2.stderr and len(r2.stderr.strip().splitlines()) == 1


def test_unknown_role_in_config_is_exit_2(tmp_path, ring_glb):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[rig.roles]\ntail = "x"\n')
    r = animsmith("--config", str(cfg), "measure", ring_glb)
    assert r.returncode == 2
    assert "tail" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def corpus_path(name):
    p = os.path.join(HERE, "data", name)
    if not os.path.exists(p):
        pytest.skip(f"{name} not in tests/data")
    return p


def test_corpus_rigged_figure_has_no_phase():
    # RiggedFigure: 2 keys per channel, only arms/neck move -> no stride: the
    # phase is null with a reason, never a number
    doc = run_json("measure", corpus_path("khr_RiggedFigure.glb"), "--format", "json")
    (c,) = doc["files"][0]["clips"]
    assert c["gait_phase"] is None and c["gait_phase_unavailable"]


def test_corpus_fox_walk_and_survey():
    doc = run_json("measure", corpus_path("khr_Fox.glb"), "--format", "json")
    clips = {c["name"]: c for c in doc["files"][0]["clips"]}
    # Walk/Run are in-place loops with a real stride; Survey stands and looks around
    assert clips["Walk"]["cycles"] == 1 and 0.0 <= clips["Walk"]["gait_phase"] < 1.0
    assert clips["Walk"]["speed_mps"] == pytest.approx(0.0, abs=1e-6)
    assert clips["Survey"]["gait_phase"] is None
    assert "periodic" in clips["Survey"]["gait_phase_unavailable"] or "swing" in clips["Survey"]["gait_phase_unavailable"]


def test_corpus_robot_expressive_gaits():
    # Walking/Running loop one stride each (feet are IK bones under "Bone", so
    # foot height relative to the hips alternates); Idle never moves the feet
    # relative to each other -> exactly zero L-R swing -> no phase.
    doc = run_json("measure", corpus_path("three_RobotExpressive.glb"), "--format", "json")
    f = doc["files"][0]
    assert f["rig"]["roles"]["left_foot"] == "Foot.L"
    clips = {c["name"]: c for c in f["clips"]}
    for name in ("Walking", "Running"):
        assert clips[name]["cycles"] == 1 and 0.0 <= clips[name]["gait_phase"] < 1.0
        assert clips[name]["loop_endpoint_mode"] == "duplicated_endpoint"
        assert clips[name]["loop_seam_ratio"] == pytest.approx(0.0, abs=1e-6)
    assert clips["Idle"]["gait_phase"] is None
    assert "no foot-height swing" in clips["Idle"]["gait_phase_unavailable"]
    assert clips["Walking"]["weight_channel_count"] == 1  # morph weights counted, not sampled


# --------------------------------------------------------------------------
# Stride anchor of real files, recomputed from the GLB bytes (json + struct + numpy only)
# --------------------------------------------------------------------------


def _glb_document(path):
    """(glTF JSON, BIN chunk bytes) of a GLB file."""
    import struct

    data = open(path, "rb").read()
    magic, _version, _total = struct.unpack_from("<4sII", data, 0)
    assert magic == b"glTF"
    json_len, json_type = struct.unpack_from("<II", data, 12)
    assert json_type == 0x4E4F534A
    doc = json.loads(data[20 : 20 + json_len])
    bin_len, bin_type = struct.unpack_from("<II", data, 20 + json_len)
    assert bin_type == 0x004E4942
    return doc, data[28 + json_len : 28 + json_len + bin_len]


def _float_accessor(doc, blob, index):
    """(count, width) float32 array of a non-sparse FLOAT accessor (byteStride honoured)."""
    import numpy as np

    acc = doc["accessors"][index]
    assert acc["componentType"] == 5126 and "sparse" not in acc
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc["type"]]
    view = doc["bufferViews"][acc["bufferView"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    stride = view.get("byteStride") or 4 * width
    raw = np.frombuffer(blob, dtype=np.uint8, count=stride * (acc["count"] - 1) + 4 * width, offset=start)
    rows = [raw[i * stride : i * stride + 4 * width].view("<f4") for i in range(acc["count"])]
    return np.array(rows, dtype=np.float64).reshape(acc["count"], width)


def _sample_linear(times, values, t, path):
    """glTF LINEAR sampling at one time (clamped ends; rotations by shortest-path slerp)."""
    import numpy as np

    if t <= times[0]:
        v = values[0]
    elif t >= times[-1]:
        v = values[-1]
    else:
        k1 = int(np.searchsorted(times, t, side="right"))
        k0 = k1 - 1
        u = (t - times[k0]) / (times[k1] - times[k0])
        a, b = values[k0], values[k1]
        if path != "rotation":
            return (1 - u) * a + u * b
        a = a / np.linalg.norm(a)
        b = b / np.linalg.norm(b)
        dot = float(a @ b)
        if dot < 0:
            b, dot = -b, -dot
        if dot > 0.9995:
            v = (1 - u) * a + u * b
        else:
            omega = math.acos(dot)
            v = (math.sin((1 - u) * omega) * a + math.sin(u * omega) * b) / math.sin(omega)
    return v / np.linalg.norm(v) if path == "rotation" else v


def _trs_matrix(t, q, s):
    import numpy as np

    x, y, z, w = q / np.linalg.norm(q)
    r = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
    m = np.eye(4)
    m[:3, :3] = r * np.asarray(s)[None, :]
    m[:3, 3] = t
    return m


def independent_stride_anchor(path, clip_name, hips, left, right):
    """(gait_phase, cycles, frame_count) from the file's bytes, by the definitions in docs/measure.md
    and docs/sampling.md: grid N = max(2, most keys of a node channel) samples over [0, duration];
    s(i) = (left − hips) − (right − hips) model-space Y for i = 0..N−2; the dominant harmonic k of s;
    gait_phase = (atan2(im, re)/2π + 0.5) mod 1 of DFT bin k."""
    import numpy as np

    doc, blob = _glb_document(path)
    nodes = doc["nodes"]
    parent = {c: i for i, n in enumerate(nodes) for c in n.get("children", [])}
    # docs/measure.md: nodes that are not skin joints never take a foot/hips role (RobotExpressive
    # has a mesh node "Foot.L" beside the joint)
    joints = {j for skin in doc.get("skins", []) for j in skin["joints"]}
    index = {}
    for i, n in enumerate(nodes):
        if i in joints:
            index.setdefault(n.get("name"), []).append(i)
    (anim,) = [a for a in doc["animations"] if a.get("name") == clip_name]
    tracks = {}
    for ch in anim["channels"]:
        target = ch["target"]
        if target.get("node") is None or target["path"] == "weights":
            continue
        sampler = anim["samplers"][ch["sampler"]]
        assert sampler.get("interpolation", "LINEAR") == "LINEAR"
        times = _float_accessor(doc, blob, sampler["input"])[:, 0]
        tracks[(target["node"], target["path"])] = (times, _float_accessor(doc, blob, sampler["output"]))
    n = max(2, max(len(t) for t, _ in tracks.values()))
    duration = max(float(t[-1]) for t, _ in tracks.values())
    grid = duration * np.arange(n) / (n - 1)

    def model_y(node, t):
        chain = []
        while node is not None:
            chain.append(node)
            node = parent.get(node)
        m = np.eye(4)
        for j in reversed(chain):
            rest = nodes[j]
            assert "matrix" not in rest
            trs = [np.asarray(rest.get(key, default), float) for key, default in
                   (("translation", [0, 0, 0]), ("rotation", [0, 0, 0, 1]), ("scale", [1, 1, 1]))]
            for slot, key in enumerate(("translation", "rotation", "scale")):
                if (j, key) in tracks:
                    trs[slot] = _sample_linear(*tracks[(j, key)], t, key)
            m = m @ _trs_matrix(*trs)
        return m[1, 3]

    (h,), (lf,), (rf,) = index[hips], index[left], index[right]
    c = n - 1 if n > 3 else 3
    sig = np.array([(model_y(lf, t) - model_y(h, t)) - (model_y(rf, t) - model_y(h, t)) for t in grid[:c]])
    spectrum = np.fft.rfft(sig)
    k = int(np.argmax(np.abs(spectrum[1:]))) + 1
    ang = 2 * np.pi * np.arange(c) * k / c
    re, im = float(np.sum(sig * np.cos(ang))), float(np.sum(sig * np.sin(ang)))
    return (math.atan2(im, re) / (2 * math.pi) + 0.5) % 1.0, k, n


@pytest.mark.parametrize(
    "name,roles,clips",
    [
        ("khr_Fox.glb", ("b_Hip_01", "b_LeftFoot01_017", "b_RightFoot01_021"), ("Walk", "Run")),
        ("three_RobotExpressive.glb", ("Hips", "Foot.L", "Foot.R"), ("Walking", "Running")),
    ],
)
def test_corpus_stride_anchor_matches_an_independent_decode(name, roles, clips):
    path = corpus_path(name)
    doc = run_json("measure", path, "--format", "json")
    f = doc["files"][0]
    hips, left, right = roles
    # the roles the anchor uses: no toe roles resolve on these rigs, so s is foot minus foot
    assert (f["rig"]["roles"]["hips"], f["rig"]["roles"]["left_foot"], f["rig"]["roles"]["right_foot"]) == roles
    assert "left_toe" not in f["rig"]["roles"] and "right_toe" not in f["rig"]["roles"]
    measured = {c["name"]: c for c in f["clips"]}
    for clip in clips:
        phase, cycles, frames = independent_stride_anchor(path, clip, hips, left, right)
        c = measured[clip]
        assert (c["frame_count"], c["cycles"]) == (frames, cycles) == (frames, 1)
        assert abs((c["gait_phase"] - phase + 0.5) % 1.0 - 0.5) <= 1e-6, (clip, c["gait_phase"], phase)


def test_seam_floor_from_contract(tmp_path):
    # amplitude 0.05 m -> neighbouring foot step ≈ 0.0105 m: below the default
    # 0.02 m floor (null + reason); a contract floor of 0.005 m measures it
    # (inclusive cycle -> ratio 0)
    path = str(tmp_path / "small.glb")
    write_glb(biped_asset([gait_clip("walk", amplitude_m=0.05)], convention="mixamo"), path)
    c = run_json("measure", path, "--format", "json")["files"][0]["clips"][0]
    assert c["loop_seam_ratio"] is None and "0.02 m floor" in c["loop_seam_ratio_unavailable"]
    cfg = tmp_path / "animsmith.toml"
    cfg.write_text("[checks.loop-seam]\nmin_stride_step_m = 0.005\n")
    c2 = run_json("--config", str(cfg), "measure", path, "--format", "json")["files"][0]["clips"][0]
    assert c2["loop_seam_ratio"] == pytest.approx(0.0, abs=1e-6)
    # lint's JSON measurements are measure's (docs/lint.md): the same contract floor, with and
    # without one (it published the default floor's null next to a check that used 0.005 m)
    for contract, expected in ((None, c), (str(cfg), c2)):
        r = animsmith(*(["--config", contract] if contract else []), "lint", path, "--format", "json")
        assert r.returncode in (0, 1), r.stderr
        linted = json.loads(r.stdout)["files"][0]["measurements"]["clips"]["walk"]
        assert linted["loop_seam_ratio"] == expected["loop_seam_ratio"]
        assert linted.get("loop_seam_ratio_unavailable") == expected.get("loop_seam_ratio_unavailable")


def test_bad_profile_flag_is_exit_2(ring_glb):
    r = animsmith("measure", ring_glb, "--profile", "maya-hik")
    assert r.returncode == 2 and "maya-hik" in r.stderr
    r2 = animsmith("measure", ring_glb, "--profile", "ue-mannequin", "--format", "json")
    assert r2.returncode == 0
    rig = validate_measure_json(r2.stdout)["files"][0]["rig"]
    # forced UE names on a Mixamo rig: only the bone literally named "root" matches
    assert rig["profile"] == "ue-mannequin" and rig["roles"] == {"root": "root"}


def test_measure_schema_rejects_a_null_without_reason_and_extra_keys(ring_glb):
    import jsonschema

    doc = run_json("measure", ring_glb, "--format", "json", "--clip", "walk_fwd")
    clip = doc["files"][0]["clips"][0]
    broken = json.loads(json.dumps(doc))
    broken["files"][0]["clips"][0]["gait_phase"] = None  # null with no "gait_phase_unavailable"
    with pytest.raises(jsonschema.ValidationError):
        validate_measure_json(json.dumps(broken))
    stray = json.loads(json.dumps(doc))
    stray["files"][0]["clips"][0]["speed_mps_unavailable"] = "reason for a measured value"
    with pytest.raises(jsonschema.ValidationError):
        validate_measure_json(json.dumps(stray))
    assert clip["gait_phase"] == pytest.approx(0.75, abs=1e-6)


@pytest.mark.parametrize("speed", [False, True])
def test_measure_json_of_every_corpus_file_validates(speed):
    names = ["khr_CesiumMan.glb", "khr_Fox.glb", "khr_RiggedFigure.glb", "three_RobotExpressive.glb"]
    args = ["measure"] + (["speed"] if speed else []) + [corpus_path(n) for n in names] + ["--format", "json"]
    doc = run_json(*args)
    assert [os.path.basename(f["path"]) for f in doc["files"]] == names
    assert ("metric" in doc) == speed


def test_lint_schema_uses_the_same_clip_measurements_as_measure():
    with open(MEASURE_SCHEMA, encoding="utf-8") as fh:
        measure = json.load(fh)
    with open(os.path.join(os.path.dirname(HERE), "docs", "schema", "lint-output.schema.json"), encoding="utf-8") as fh:
        lint = json.load(fh)
    assert lint["$defs"]["clipMeasurements"] == measure["$defs"]["clip"]
    clips = lint["$defs"]["file"]["properties"]["measurements"]["properties"]["clips"]
    assert clips["additionalProperties"] == {"$ref": "#/$defs/clipMeasurements"}


def test_measure_speed_nulls_a_speed_that_overflows(tmp_path):
    """A finite displacement over a subnormal duration (under ancestors scaled 3e38) overflows to
    an infinite speed: `measure speed` gives null with a reason, as `measure` does (it was an
    internal error naming no file in JSON and `inf` in text)."""
    import numpy as np

    from animsmith.model import Asset, Channel, Clip, Skeleton

    names = [f"s{i}" for i in range(7)] + ["root", "pelvis"]
    parents = list(range(-1, 8))
    rest_t = [[0, 0, 0]] * 8 + [[0, 1, 0]]
    rest_s = [[3e38] * 3] * 7 + [[1.0] * 3] * 2
    sk = Skeleton.build(names, parents, rest_t, None, rest_s)
    tiny = float(np.float32(1e-44))
    clip = Clip("boom", [Channel.make(7, "translation", [0.0, tiny], [[0, 0, 0], [1, 0, 0]])])
    path = str(tmp_path / "overflow.glb")
    write_glb(Asset(skeleton=sk, clips=[clip]), path)
    doc = run_json("measure", "speed", path, "--format", "json")
    c = doc["files"][0]["clips"][0]
    assert c["speed_mps"] is None and c["speed_mps_unavailable"]
    text = animsmith("measure", "speed", path)
    assert text.returncode == 0 and "inf" not in text.stdout, text.stdout + text.stderr


def test_a_heading_of_minus_180_reads_180(tmp_path):
    """−Z is heading 180 (docs/measure.md): a heading of −179.994° rounds to 180.0, not -180.0."""
    from animsmith.commands.measure import _cell

    assert _cell(-179.994, "heading_deg", 1) == "180.0" and _cell(179.96, "heading_deg", 1) == "180.0"
    assert _cell(-179.94, "heading_deg", 1) == "-179.9"
    from animsmith.numtext import heading

    assert heading(-179.6, 0) == "180" and heading(-179.4, 0) == "-179" and heading(-0.04, 1) == "0.0"


def test_an_empty_profile_flag_is_an_unknown_profile(ring_glb):
    r = animsmith("measure", ring_glb, "--profile", "")
    assert r.returncode == 2 and "unknown rig profile ''" in r.stderr


def test_inspect_roles_on_a_narrow_terminal_are_blocks_not_cut(tmp_path, monkeypatch, capsys):
    """On a 60-column terminal `inspect` no longer cuts role and bone names to "…" (left_foot,
    left_toe and left_hand read alike): like the clip tables, its role table prints one block per
    role when it does not fit."""
    import sys

    from rich.console import Console

    import animsmith.commands._output as output_mod
    from animsmith.cli import main
    from animsmith.model import Asset, Channel, Clip, Skeleton

    long = "Character_With_A_Long_Namespace_Prefix:mixamorig:"
    sk = Skeleton.build([long + "Hips", long + "LeftFoot", long + "RightFoot"], [-1, 0, 0],
                        [[0, 1, 0], [0.1, -0.9, 0], [-0.1, -0.9, 0]])
    path = str(tmp_path / "long.glb")
    write_glb(Asset(skeleton=sk, clips=[Clip("walk", [Channel.make(0, "translation", [0, 1], [[0, 1, 0], [0, 1, 1]])])]), path)
    monkeypatch.setattr(output_mod, "console", lambda: Console(file=sys.stdout, width=60, no_color=True, highlight=False, emoji=False))
    with pytest.raises(SystemExit):
        main(["inspect", path])
    text = capsys.readouterr().out
    assert "…" not in text and long + "LeftFoot" in text and "left_toe" in text, text


def test_inspect_role_reasons_wrap_on_an_80_column_terminal(tmp_path, monkeypatch, capsys):
    """At 80 columns the role table stays a table whose reason column wraps (the long
    "unresolved: ..." reasons made it one block per role below ~117 columns)."""
    import os as _os
    import sys

    from rich.console import Console

    import animsmith.commands._output as output_mod
    from animsmith.cli import main

    ring = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))), "examples", "assets", "run-ring.glb")
    monkeypatch.setattr(output_mod, "console", lambda: Console(file=sys.stdout, width=80, no_color=True, highlight=False, emoji=False))
    with pytest.raises(SystemExit):
        main(["inspect", ring])
    text = capsys.readouterr().out
    assert "convention / reason" in text.splitlines()[2]  # the table's header row, not a block's line
    assert "    bone: " not in text


def test_inspect_on_a_terminal_prints_names_and_reasons_as_written(tmp_path, monkeypatch, capsys):
    """On a terminal the role table's cells are text, not rich markup: the reasons keep their
    `[rig.roles]` and a bone named `[b]LeftFoot` is shown as named."""
    import sys

    from rich.console import Console

    import animsmith.commands._output as output_mod
    from animsmith.cli import main
    from animsmith.model import Asset, Channel, Clip, Skeleton

    sk = Skeleton.build(["Hips", "[b]LeftFoot", "RightFoot"], [-1, 0, 0], [[0, 1, 0], [0.1, -0.9, 0], [-0.1, -0.9, 0]])
    path = str(tmp_path / "br.glb")
    write_glb(Asset(skeleton=sk, clips=[Clip("walk", [Channel.make(0, "translation", [0, 1], [[0, 1, 0], [0, 1, 1]])])]), path)
    monkeypatch.setattr(output_mod, "console", lambda: Console(file=sys.stdout, width=130, force_terminal=True,
                                                                 no_color=True, highlight=False, emoji=False))
    with pytest.raises(SystemExit):
        main(["inspect", path, "--profile", "custom"])
    text = capsys.readouterr().out
    assert "[rig.roles]" in text
