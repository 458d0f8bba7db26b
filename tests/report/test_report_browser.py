"""The HTML report in a real headless Chromium (Debian's /usr/bin/chromium via Playwright).

Skips cleanly when Playwright or Chromium is missing (`.ci/run` installs
both). Never downloads a browser: the system executable is used.
Saves tests/out/report.png for a person to look at.
"""

from __future__ import annotations

import os
import shutil

import pytest

from lint_support import ROOT, run_cli

CHROMIUM = os.environ.get("ANIMSMITH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
RING = os.path.join(ROOT, "examples", "assets", "run-ring.glb")
RING_CFG = os.path.join(ROOT, "examples", "run-ring.animsmith.toml")
OUT_DIR = os.path.join(ROOT, "tests", "out")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium not installed (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as exc:  # noqa: BLE001 - a broken browser install is a skip, not a failure
            pytest.skip(f"chromium did not start: {exc}")
        yield b
        b.close()


def write_report(tmp_path, capsys, args, name="report.html"):
    out = tmp_path / name
    code, _, err = run_cli([*args, "-o", str(out)], capsys)
    assert code == 0, err
    return str(out)


class Page:
    """A loaded report with its console messages and network requests recorded."""

    def __init__(self, browser, path, height=900):
        self.page = browser.new_page(viewport={"width": 1280, "height": height})
        self.errors, self.requests = [], []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = "file://" + os.path.abspath(path)
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']", timeout=15000)

    def close(self):
        self.page.close()


@pytest.fixture
def ring_page(browser, tmp_path, capsys):
    path = write_report(tmp_path, capsys, ["--config", RING_CFG, "report", RING])
    page = Page(browser, path)
    yield page
    page.close()


def test_no_console_errors_no_network_and_screenshot(ring_page):
    assert ring_page.errors == []
    assert ring_page.requests == [ring_page.url]
    os.makedirs(OUT_DIR, exist_ok=True)
    # show the player with the illustrative blend on, and the clips mid-cycle
    page = ring_page.page
    page.locator(".pair-player input.blend-toggle").check()
    page.locator(".pair-player input.phase").evaluate("e => { e.value = 0.3; e.dispatchEvent(new Event('input')); }")
    page.locator("input.scrub").evaluate_all("els => els.forEach(e => { e.value = 12; e.dispatchEvent(new Event('input')); })")
    assert ring_page.errors == []
    ring_page.page.screenshot(path=os.path.join(OUT_DIR, "report.png"), full_page=True)
    assert os.path.getsize(os.path.join(OUT_DIR, "report.png")) > 10_000


def test_group_figure_lists_members_and_outliers(ring_page):
    page = ring_page.page
    sec = page.locator("section.group[data-group='run-ring']")
    members = sec.locator("ul.member-list li").evaluate_all("els => els.map(e => [e.dataset.member, e.dataset.outlier])")
    assert members == [["run_forward", "0"], ["run_backward", "0"], ["run_left", "1"], ["run_right", "0"]]
    assert sec.locator(".outliers").inner_text() == "Outside the band: run_left"
    fig = sec.locator("svg.gait-figure")
    curves = fig.locator("polyline.member-curve").evaluate_all("els => els.map(e => e.dataset.member)")
    assert curves == ["run_forward", "run_backward", "run_left", "run_right"]
    anchors = fig.locator("circle.anchor").evaluate_all("els => els.map(e => [e.dataset.member, +e.dataset.phase])")
    assert sorted(a[0] for a in anchors) == ["run_backward", "run_forward", "run_left", "run_right"]
    assert dict(anchors)["run_left"] == pytest.approx(0.5, abs=1e-3)
    assert fig.locator("rect.cap-band").count() >= 1
    # the band spans mean ± cap: its width is 2 × 0.15 of the plot width
    band = fig.locator("rect.cap-band").first.evaluate("e => [+e.getAttribute('width')]")[0]
    frame = fig.locator("rect[fill='none']").evaluate("e => +e.getAttribute('width')")
    assert band / frame == pytest.approx(0.30, abs=0.01)
    assert "reference" not in sec.inner_text().replace("no member is a reference", "")


def _pose(page, which):
    text = page.locator(f".pair-player .pane.{which} g.pose").get_attribute("data-pose") or ""
    return [tuple(map(float, p.split(","))) for p in text.split()]


def _set_weight(page, w):
    page.locator(".pair-player input.blend-weight").evaluate(
        "(e, w) => { e.value = w; e.dispatchEvent(new Event('input', {bubbles: true})); }", w
    )


def _close(a, b, tol=0.3):
    return len(a) == len(b) and all(abs(x - y) <= tol for p, q in zip(a, b) for x, y in zip(p, q))


def test_blend_slider_changes_the_drawn_pose(ring_page):
    page = ring_page.page
    player = page.locator(".pair-player")
    # both source times are labelled
    caps = player.locator(".pane .cap").all_inner_texts()
    assert caps[0].startswith("run_forward: t = ") and caps[1].startswith("run_left: t = ")
    _set_phase = "(e, v) => { e.value = v; e.dispatchEvent(new Event('input', {bubbles: true})); }"
    player.locator("input.phase").evaluate(_set_phase, "0.3")
    assert "t = 0.300 s" in player.locator(".pane.a .cap").inner_text()
    assert "t = 0.300 s" in player.locator(".pane.b .cap").inner_text()
    assert _pose(page, "blend") == []  # off until toggled
    player.locator("input.blend-toggle").check()
    assert "presentation" in player.locator(".pane.blend .cap").inner_text()
    a, b = _pose(page, "a"), _pose(page, "b")
    assert not _close(a, b)
    # weight 0 / 1: the JS FK of the sampled local poses lands on the judged positions
    _set_weight(page, "0")
    assert _close(_pose(page, "blend"), a)
    _set_weight(page, "1")
    assert _close(_pose(page, "blend"), b)
    _set_weight(page, "0.5")
    mid = _pose(page, "blend")
    assert not _close(mid, a) and not _close(mid, b)
    # a real keyboard move of the slider changes the drawn pose again
    player.locator("input.blend-weight").focus()
    page.keyboard.press("ArrowRight")
    assert _pose(page, "blend") != mid
    assert ring_page.errors == []


def test_clicking_a_finding_scrolls_to_its_target(browser, tmp_path, capsys):
    path = write_report(tmp_path, capsys, ["--config", RING_CFG, "report", RING])
    page = Page(browser, path, height=420)
    try:
        p = page.page
        assert p.evaluate("window.scrollY") == 0
        target = p.locator("button.finding").first.get_attribute("data-target")
        p.locator("button.finding").first.click()
        p.wait_for_timeout(100)
        assert p.evaluate("window.scrollY") > 0
        top = p.evaluate("id => document.getElementById(id).getBoundingClientRect().top", target)
        assert -2 <= top <= 40
        assert p.locator(f"#{target}").get_attribute("data-group") == "run-ring"
        assert page.errors == []
    finally:
        page.close()


def test_clip_view_plays_and_charts_exist(ring_page):
    page = ring_page.page
    clip = page.locator("section.clip[data-clip='run_left']")
    assert clip.locator("svg[data-kind='feet'] rect[data-contact]").count() > 0
    assert clip.locator("svg[data-kind='speed'] polyline").count() == 1
    before = clip.locator("g.pose").get_attribute("data-pose")
    clip.locator("input.scrub").evaluate("e => { e.value = 10; e.dispatchEvent(new Event('input')); }")
    assert clip.locator("g.pose").get_attribute("data-pose") != before
    assert "judged frame 10" in clip.locator(".controls").inner_text()
    trails = clip.locator("polyline[data-trail]").evaluate_all("els => els.map(e => e.dataset.trail)")
    assert set(trails) == {"hips", "left_foot", "right_foot"}


@pytest.mark.parametrize("asset", ["fox-walk.glb", "spider-walk-rough.glb"])
def test_other_examples_render_without_errors(browser, tmp_path, capsys, asset):
    path = write_report(tmp_path, capsys, ["report", os.path.join(ROOT, "examples", "assets", asset)])
    page = Page(browser, path)
    try:
        assert page.errors == [] and page.requests == [page.url]
        assert page.page.locator("section.clip").count() >= 1
    finally:
        page.close()


def test_hostile_clips_render_as_text_without_errors(browser, tmp_path, capsys):
    import numpy as np

    from animsmith.model import Channel, Clip
    from builders import gait_clip
    from lint_support import write_clips

    nan_clip = gait_clip("nanclip")
    values = nan_clip.channels[1].values.copy()
    values[5:8] = np.nan
    nan_clip.channels[1] = Channel.make(2, "translation", nan_clip.channels[1].times, values)
    static = Clip(name="static", channels=[Channel.make(2, "translation", np.array([0.0]), np.array([[0.1, -0.9, 0.0]]))])
    evil = "</script><b id=pwn>x</b>"
    glb = write_clips(tmp_path / "hostile.glb", [nan_clip, static, gait_clip(evil)])
    page = Page(browser, write_report(tmp_path, capsys, ["report", glb]))
    try:
        p = page.page
        p.locator("input.scrub").evaluate_all("els => els.forEach(e => { e.value = 6; e.dispatchEvent(new Event('input')); })")
        assert p.locator("section.clip h2").all_inner_texts() == ["Clip 'nanclip'", "Clip 'static'", f"Clip '{evil}'"]
        assert p.locator("#pwn").count() == 0  # the name stayed text
        assert page.errors == [] and page.requests == [page.url]
    finally:
        page.close()


def test_multi_stride_member_is_folded_onto_one_stride(browser, tmp_path, capsys):
    from builders import gait_clip
    from lint_support import write_clips, write_config

    # L−R = 2A·sin(2π·k·u): every stride's trough is at stride phase 0.75 (= the anchor)
    glb = write_clips(tmp_path / "strides.glb", [gait_clip("one", frames=61), gait_clip("two", frames=61, cycles=2)])
    cfg = write_config(tmp_path / "animsmith.toml", '[gait_groups.g]\nclips = ["one", "two"]\n')
    page = Page(browser, write_report(tmp_path, capsys, ["--config", cfg, "report", glb]))
    try:
        fig = page.page.locator("svg.gait-figure")
        assert fig.locator("polyline[data-member='two']").count() == 2
        frame = fig.locator("rect[fill='none']").evaluate("e => [+e.getAttribute('x'), +e.getAttribute('width')]")
        for poly in fig.locator("polyline[data-member]").all():
            pts = [tuple(map(float, p.split(","))) for p in poly.get_attribute("points").split()]
            x_trough = max(pts, key=lambda q: q[1])[0]  # SVG y grows downwards
            assert (x_trough - frame[0]) / frame[1] == pytest.approx(0.75, abs=0.02)
        anchors = fig.locator("circle.anchor").evaluate_all("els => els.map(e => +e.dataset.phase)")
        assert anchors == pytest.approx([0.75, 0.75], abs=1e-3)
        assert page.errors == []
    finally:
        page.close()


def test_phases_read_wrapped_and_thinning_reads_as_an_ordinal(browser, tmp_path, capsys):
    """The fox example's stride anchor is 0.99999998 (measure prints 0.000): the page wraps it after
    rounding too (it showed 1.000), in the clip header, the member list and the group mean. A
    501-frame clip is thinned to every 3rd frame ("3th" before)."""
    from animsmith.io.write import write_glb
    from animsmith.sim.bake import bake
    from animsmith.sim.creature import catalog_creature

    cfg = tmp_path / "fox.toml"
    cfg.write_text('[rig.roles]\nhips = "body"\nleft_foot = "leg_1_foot"\nright_foot = "leg_3_foot"\n'
                   '[gait_groups.fox]\nclips = ["walk"]\n')
    fox = os.path.join(ROOT, "examples", "assets", "fox-walk.glb")
    code, out, _ = run_cli(["--config", str(cfg), "measure", fox, "--format", "json"], capsys)
    import json

    assert json.loads(out)["files"][0]["clips"][0]["gait_phase"] > 0.9995  # rounds to 1.000 unwrapped
    page = Page(browser, write_report(tmp_path, capsys, ["--config", str(cfg), "report", fox]))
    try:
        text = page.page.locator("body").inner_text()
        assert "stride anchor 0.000" in text and "stride anchor 1.000" not in text
        assert "— anchor 0.000," in text and "anchor 1.000" not in text  # the group's member list
        assert page.errors == []
    finally:
        page.close()
    long_clip = str(tmp_path / "long.glb")
    write_glb(bake(catalog_creature("biped"), cycles=10.0, fps=60.0).asset, long_clip)
    page = Page(browser, write_report(tmp_path, capsys, ["report", long_clip], name="long.html"))
    try:
        text = page.page.locator("body").inner_text()
        assert "(every 3rd shown)" in text and "3th" not in text
    finally:
        page.close()


def test_non_finite_joints_are_not_drawn_at_the_origin(browser, tmp_path, capsys):
    """A NaN root key makes every joint of that frame non-finite: the page data holds null, which
    JavaScript's arithmetic read as 0 and drew the skeleton at the origin. It draws no joint for
    that frame now, and the other frames as before."""
    import numpy as np

    from animsmith.io.write import write_glb
    from animsmith.model import Asset, Channel, Clip
    from builders import biped_skeleton

    t = np.arange(31, dtype=np.float32) / 30
    root = np.stack([np.zeros(31), np.ones(31), np.linspace(0, 1, 31)], axis=1)
    root[10, 1] = np.nan
    sk = biped_skeleton()
    path = str(tmp_path / "nan.glb")
    write_glb(Asset(skeleton=sk, clips=[Clip("walk", [Channel.make(0, "translation", t, root)])]), path)
    page = Page(browser, write_report(tmp_path, capsys, ["report", path]))
    try:
        def drawn(frame):
            return page.page.evaluate(
                """(f) => { const sec = document.querySelector('section.clip'); const s = sec.querySelector('input.scrub');
                s.value = f; s.dispatchEvent(new Event('input'));
                const g = sec.querySelector('g.pose'); return [g.querySelectorAll('circle').length, g.getAttribute('data-pose')]; }""",
                frame)
        joints, pose = drawn(10)
        assert joints == 0 and "NaN" in pose, pose
        joints, pose = drawn(11)
        assert joints == len(sk.names) and "NaN" not in pose
        assert page.errors == []
    finally:
        page.close()


def test_pair_player_on_a_thinned_clip_shows_the_nearest_judged_frame(browser, tmp_path, capsys):
    """A 1,003-frame member is shown every 5th judged frame plus the last (1002): at phase 0.5 the
    pair player shows judged frame 500, the shown frame nearest 0.5·1002 = 501 (it used
    round(0.5·(202 − 1)) = shown sample 101, judged frame 505)."""
    from builders import gait_clip
    from lint_support import write_clips, write_config

    glb = write_clips(tmp_path / "pair.glb", [gait_clip("short", frames=31), gait_clip("long", frames=1003, duration_s=10.0)])
    cfg = write_config(tmp_path / "pair.toml", '[gait_groups.g]\nclips = ["short", "long"]\n')
    page = Page(browser, write_report(tmp_path, capsys, ["--config", cfg, "report", glb]))
    try:
        caption = page.page.evaluate(
            """() => { const ph = document.querySelector('input.phase'); ph.value = 0.5; ph.dispatchEvent(new Event('input'));
            return document.body.innerText; }""")
        import re
        want = f"long: t = {500 * 10.0 / 1002:.3f} s (judged frame 500)"
        assert want in caption, [m for m in re.findall(r"long: t = [^)]*\)", caption)]
        assert page.errors == []
    finally:
        page.close()


def test_engine_predictions_are_listed_unavailable_first(browser, tmp_path, capsys):
    """With an [engine] profile the summary lists the predictions, the failures first; without
    one it says the run was engine-neutral."""
    from test_engine_addressability import colliding_feet, contract

    glb, _ = colliding_feet(tmp_path)
    cfg = contract(tmp_path, '[engine]\nprofile = "threejs"\n')
    page = Page(browser, write_report(tmp_path, capsys, ["--config", cfg, "report", glb]))
    try:
        assert page.errors == []
        items = page.page.locator("#predictions li.prediction")
        assert items.count() == 3
        first = items.nth(0)
        assert "required_unavailable" in first.get_attribute("class")
        assert "node_name_collision" in first.inner_text() and "'foot_1'" in first.inner_text()
        assert "threejs r187" in page.page.locator("#predictions").inner_text()
        count = page.page.locator("[data-count='required-unavailable predictions'] b").inner_text()
        assert count == "1"
    finally:
        page.close()
    plain = Page(browser, write_report(tmp_path, capsys, ["--config", contract(tmp_path, "", "none.toml"), "report", glb], "plain.html"))
    try:
        assert plain.errors == []
        assert "engine-neutral" in plain.page.locator("#predictions").inner_text()
    finally:
        plain.close()


def test_travel_table_reads_a_backward_walk_with_float_noise_as_180(browser, tmp_path, capsys):
    """The group's travel table prints headings as the CLI does: a member walking −Z with
    1e-9 m/s of drift to −X (atan2 just above −180°) reads 180, not -180."""
    from builders import gait_clip
    from lint_support import write_clips

    clips = [gait_clip("fwd", velocity_mps=(0.0, 0.0, 1.0)), gait_clip("back", velocity_mps=(-1e-9, 0.0, -1.0))]
    glb = write_clips(tmp_path / "ring.glb", clips)
    cfg = tmp_path / "ring.toml"
    cfg.write_text('[gait_groups.ring]\nclips = ["fwd", "back"]\ntravel_policy = "accepted"\n')
    page = Page(browser, write_report(tmp_path, capsys, ["--config", str(cfg), "report", glb]))
    try:
        rows = page.page.locator("tr").evaluate_all("els => els.map(e => e.innerText.split('\\t').map(s => s.trim()))")
        back = next(r for r in rows if r and r[0] == "back")
        assert back[3] == "180", rows
        assert page.errors == []
    finally:
        page.close()
