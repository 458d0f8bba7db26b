"""The report read at a glance, in headless Chromium at 1400 px and 800 px wide.

Layout facts asserted on the drawn page (not on the code that draws it):

* no two text labels of one figure overlap, and none leaves its figure;
* each side keeps one colour on the whole page: a legend swatch, the curve,
  the contact bars and the trail naming one side or body bone are painted in
  the same colour, and left and right differ; on a multi-pair rig (the fox)
  each leg has its own foot-height row and contact lane, no left leg shares a
  colour with a right one, and pair 0's rows wear the foot trails' colours;
* a figure spans its card: the gait-group figure the card's full content
  width, the clip charts up to the card's right edge;
* members whose curves coincide stay visible (one line painted in turn by each
  member's colour, labelled ×n), and only those.

Screenshots for a person to look at: tests/out/report-screenshots/.
"""

from __future__ import annotations

import glob
import itertools
import os

import pytest

from lint_support import ROOT
from test_report_browser import RING, RING_CFG, Page, browser, write_report  # noqa: F401 - browser is a fixture

SHOTS = os.path.join(ROOT, "tests", "out", "report-screenshots")
FOX = os.path.join(ROOT, "examples", "assets", "fox-walk.glb")
WALK = os.path.join(ROOT, "examples", "assets", "walk-ring-root-motion.glb")
WALK_CFG = os.path.join(ROOT, "examples", "walk-ring-root-motion.animsmith.toml")
WIDTHS = (1400, 800)

# every <text> of every figure: [figure index, label, box] in page pixels, plus the figure's box
TEXT_BOXES = """() => Array.from(document.querySelectorAll('svg')).filter(s => s.id !== 'ns-probe').map((svg, i) => {
  const r = svg.getBoundingClientRect();
  return { kind: svg.getAttribute('data-kind') || svg.getAttribute('class') || 'svg', box: [r.left, r.top, r.width, r.height],
    texts: Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim()).map(t => {
      const b = t.getBoundingClientRect(); return [t.textContent, [b.left, b.top, b.width, b.height]]; }) };
})"""

# every element that names a series (legend swatch, curve, bar, lane label, trail): [key, colour]
SERIES_COLOURS = """() => {
  const out = [];
  document.querySelectorAll('.legend span[data-series]').forEach(sp =>
    out.push([sp.dataset.series, 'legend', getComputedStyle(sp.querySelector('i')).backgroundColor]));
  document.querySelectorAll('polyline[data-series]').forEach(p => out.push([p.dataset.series, 'curve', getComputedStyle(p).stroke]));
  document.querySelectorAll('rect[data-series]').forEach(r => out.push([r.dataset.series, 'bar', getComputedStyle(r).fill]));
  document.querySelectorAll('text.lane-label').forEach(t => out.push([t.dataset.series, 'lane', getComputedStyle(t).fill]));
  document.querySelectorAll('polyline[data-trail]').forEach(p => out.push([p.dataset.trail, 'trail', getComputedStyle(p).stroke]));
  return out;
}"""


def _meet(a, b, slack=0.5):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax + slack < bx + bw and bx + slack < ax + aw and ay + slack < by + bh and by + slack < ay + ah


def _inside(inner, outer, slack=1.0):
    ix, iy, iw, ih = inner
    ox, oy, ow, oh = outer
    return ix >= ox - slack and iy >= oy - slack and ix + iw <= ox + ow + slack and iy + ih <= oy + oh + slack


def _fox_config(tmp_path):
    """The fox example's own contract when it ships one, else its foot roles named inline."""
    shipped = sorted(glob.glob(os.path.join(ROOT, "examples", "fox*.toml")))
    if shipped:
        return shipped[0]
    cfg = tmp_path / "fox.toml"
    cfg.write_text('[rig.roles]\nhips = "body"\nleft_foot = "leg_1_foot"\nright_foot = "leg_3_foot"\n')
    return str(cfg)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """report.html of the ring and of the root-motion walk ring (with their contracts) and of
    the fox example."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from animsmith.cli import main

    tmp = tmp_path_factory.mktemp("layout")
    out = {}
    for name, args in (("ring", ["--config", RING_CFG, "report", RING]), ("walk", ["--config", WALK_CFG, "report", WALK]),
                       ("fox", ["--config", _fox_config(tmp), "report", FOX])):
        path = str(tmp / f"{name}.html")
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()), pytest.raises(SystemExit) as exc:
            main([*args, "-o", path])
        assert exc.value.code == 0
        out[name] = path
    return out


def _rig_legs(example):
    """``rig.legs`` of the example as ``measure --format json`` reports them."""
    import io
    import json
    from contextlib import redirect_stderr, redirect_stdout

    from animsmith.cli import main

    args = {"ring": ["--config", RING_CFG, "measure", "--format", "json", RING],
            "walk": ["--config", WALK_CFG, "measure", "--format", "json", WALK],
            "fox": ["measure", "--format", "json", FOX]}[example]  # the fox's contract names no rig
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()), pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 0
    return json.loads(out.getvalue())["files"][0]["rig"]["legs"]


def _open(browser, path, width):  # noqa: F811 - browser is the imported fixture
    page = Page(browser, path)
    page.page.set_viewport_size({"width": width, "height": 900})
    page.page.wait_for_timeout(150)  # one animation frame for the figures to follow the width
    return page


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("example", ["ring", "walk", "fox"])
def test_layout_at_a_glance(browser, pages, example, width):  # noqa: F811
    page = Page(browser, pages[example])
    try:
        p = page.page
        p.set_viewport_size({"width": width, "height": 900})
        p.wait_for_timeout(150)
        os.makedirs(SHOTS, exist_ok=True)
        shot = os.path.join(SHOTS, f"{example}-{width}.png")
        p.screenshot(path=shot, full_page=True)
        assert os.path.getsize(shot) > 10_000
        assert page.errors == [] and page.requests == [page.url]
        assert p.evaluate("document.documentElement.scrollWidth") <= width  # nothing runs off the side

        # no two labels of one figure overlap; none leaves its figure
        figures = p.evaluate(TEXT_BOXES)
        assert sum(len(f["texts"]) for f in figures) >= 6
        for fig in figures:
            for (ta, a), (tb, b) in itertools.combinations(fig["texts"], 2):
                assert not _meet(a, b), (example, width, fig["kind"], ta, a, tb, b)
            for text, box in fig["texts"]:
                assert _inside(box, fig["box"]), (example, width, fig["kind"], text, box, fig["box"])

        # one colour per side / body bone across every legend, curve, bar and trail
        colours = {}
        for key, what, colour in p.evaluate(SERIES_COLOURS):
            colours.setdefault(key, set()).add((what, colour))
        assert {"left_foot", "right_foot", "hips"} <= set(colours), colours
        for key, seen in colours.items():
            assert len({c for _, c in seen}) == 1, (key, seen)
        paint = {key: next(iter(seen))[1] for key, seen in colours.items()}
        # one foot-height row per leg on a multi-pair rig (its legs as measure reports them),
        # else the left and right foot; the trails follow pair 0's feet
        legs = _rig_legs(example)
        rows = {leg["name"]: leg["side"] for leg in legs} if len({leg["pair"] for leg in legs}) > 1 else {
            "left_foot": "left", "right_foot": "right"}
        for key in rows:
            assert {w for w, _ in colours[key]} >= {"legend", "curve", "bar", "lane"}, (key, colours.get(key))
        for key in ("left_foot", "right_foot"):
            assert {w for w, _ in colours[key]} >= {"legend", "trail"}, (key, colours[key])
        left = {paint[k] for k, side in rows.items() if side == "left"} | {paint["left_foot"]}
        right = {paint[k] for k, side in rows.items() if side == "right"} | {paint["right_foot"]}
        assert not left & right and paint["hips"] not in left | right, (left, right, paint["hips"])
        pair0 = {leg["side"]: leg["name"] for leg in legs if leg["pair"] == 0}
        if rows.keys() != {"left_foot", "right_foot"}:  # pair 0's rows wear their trails' colours
            assert (paint[pair0["left"]], paint[pair0["right"]]) == (paint["left_foot"], paint["right_foot"])

        # figures span their card
        spans = p.evaluate("""() => Array.from(document.querySelectorAll('section.card svg.gait-figure, section.card .charts svg'))
          .map(svg => { const card = svg.closest('section.card'), cs = getComputedStyle(card), c = card.getBoundingClientRect(),
            r = svg.getBoundingClientRect();
            return [svg.getAttribute('class') || svg.getAttribute('data-kind'), c.left + card.clientLeft + parseFloat(cs.paddingLeft),
              c.right - card.clientLeft - parseFloat(cs.paddingRight), r.left, r.right]; })""")
        assert spans
        for kind, left, right, x0, x1 in spans:
            assert x1 == pytest.approx(right, abs=2), (kind, width, x1, right)
            if kind == "gait-figure" or width == 800:  # at 800 px the charts sit under the skeleton view
                assert x0 == pytest.approx(left, abs=2), (kind, width, x0, left)
    finally:
        page.close()


def test_the_ring_figure_shows_every_coincident_member(browser, pages):  # noqa: F811
    """run_forward, run_backward and run_right play one gait from the same entry point
    (animsmith/sim/ring.py: RING), so their L−R curves coincide; run_left enters a quarter
    cycle later. The three share one line, each painting every third dash in its own colour,
    with a ×3 label naming them; run_left is a line of its own."""
    from animsmith.sim.ring import RING

    by_entry = {}
    for name, _, entry in RING:
        by_entry.setdefault(entry, []).append(name)
    (together,) = [names for names in by_entry.values() if len(names) > 1]
    (alone,) = [names[0] for names in by_entry.values() if len(names) == 1]

    page = _open(browser, pages["ring"], 1400)
    try:
        fig = page.page.locator("section.group svg.gait-figure")
        curves = fig.locator("polyline.member-curve").evaluate_all(
            "els => els.map(e => [e.dataset.member, e.dataset.coincident || '', getComputedStyle(e).stroke,"
            " e.getAttribute('stroke-dasharray'), +e.getAttribute('stroke-dashoffset') || 0, e.getAttribute('points')])")
        shared = [c for c in curves if c[1]]
        assert sorted(c[0] for c in shared) == sorted(together)
        assert {c[1] for c in shared} == {",".join(together)}
        assert len({c[2] for c in shared}) == 3  # three colours
        assert {c[3] for c in shared} == {"9 18"} and sorted(c[4] for c in shared) == [-18, -9, 0]  # dashes take turns
        assert len({c[5] for c in shared}) == 1  # one line
        (solo,) = [c for c in curves if not c[1]]
        assert solo[0] == alone and solo[3] is None
        label = fig.locator("text.coincident-label")
        assert label.count() == 1 and label.get_attribute("data-members") == ",".join(together)
        assert label.evaluate("e => e.firstChild.nodeValue") == "×3 " + " = ".join(together)
        items = page.page.locator("section.group ul.member-list li .same-curve").all_inner_texts()
        assert len(items) == 3 and all(t.startswith(" · same curve as ") or t.startswith("· same curve as ") for t in items)
    finally:
        page.close()


def test_figures_follow_the_window_width(browser, pages):  # noqa: F811
    """Loaded at 1400 px, narrowed to 800 px: the figure is redrawn at the new card width (text stays 11 px)."""
    page = _open(browser, pages["ring"], 1400)
    try:
        p = page.page
        measure = """() => { const svg = document.querySelector('svg.gait-figure'), card = svg.closest('section.card');
          return [svg.getBoundingClientRect().width, card.clientWidth, parseFloat(getComputedStyle(svg.querySelector('text')).fontSize)]; }"""
        wide = p.evaluate(measure)
        p.set_viewport_size({"width": 800, "height": 900})
        p.wait_for_timeout(200)
        narrow = p.evaluate(measure)
        assert wide[0] > 1000 and narrow[0] < 760
        for w, card, font in (wide, narrow):
            assert card - 40 <= w <= card  # the card's width less its padding
            assert font == 11
        assert page.errors == []
    finally:
        page.close()


def test_the_page_palette_keeps_sides_apart_from_members():
    """The colours the page receives: one hue family per side, none shared with the body or the members."""
    from animsmith.report.palette import MEMBERS, page_palette

    pal = page_palette()
    left, right = set(pal["sides"]["left"]), set(pal["sides"]["right"])
    body = set(pal["body"].values())
    assert len(left) == len(pal["sides"]["left"]) and len(right) == len(pal["sides"]["right"])
    assert not (left & right) and not ((left | right) & body) and not ((left | right | body) & set(MEMBERS))

    def hue(c):
        import colorsys

        r, g, b = (int(c[i:i + 2], 16) / 255 for i in (1, 3, 5))
        return colorsys.rgb_to_hsv(r, g, b)[0] * 360

    assert all(190 <= hue(c) <= 230 for c in left)  # blues
    assert all(10 <= hue(c) <= 45 for c in right)  # oranges


def test_many_coinciding_members_at_800_px(browser, tmp_path, capsys):  # noqa: F811
    """Six members with one curve and long names, one member a quarter cycle off: the six share one
    line (each paints every sixth dash), and their label falls back to "×6" where the names do not
    fit; it stays inside the figure and clear of every other label. The offset member stands alone."""
    from builders import gait_clip
    from lint_support import write_clips, write_config

    names = [f"locomotion_directional_member_{k}" for k in range(6)]
    clips = [gait_clip(n) for n in names] + [gait_clip("offset", offset_cycles=0.25)]
    glb = write_clips(tmp_path / "many.glb", clips)
    cfg = write_config(tmp_path / "many.toml", "[gait_groups.g]\nclips = [" + ", ".join(f'"{c.name}"' for c in clips) + "]\n")
    page = _open(browser, write_report(tmp_path, capsys, ["--config", cfg, "report", glb]), 800)
    try:
        fig = page.page.locator("svg.gait-figure")
        curves = fig.locator("polyline.member-curve").evaluate_all(
            "els => els.map(e => [e.dataset.member, e.dataset.coincident || '', e.getAttribute('stroke-dasharray'),"
            " +e.getAttribute('stroke-dashoffset') || 0])")
        shared = {c[0]: c for c in curves if c[1]}
        assert sorted(shared) == sorted(names)
        assert {c[2] for c in shared.values()} == {"9 45"}
        assert sorted(c[3] for c in shared.values()) == [-45, -36, -27, -18, -9, 0]
        assert [c[0] for c in curves if not c[1]] == ["offset"]
        label = fig.locator("text.coincident-label")
        assert label.evaluate("e => e.firstChild.nodeValue") == "×6" and label.get_attribute("data-members") == ",".join(names)
        (figure,) = [f for f in page.page.evaluate(TEXT_BOXES) if f["kind"] == "gait-figure"]
        for (ta, a), (tb, b) in itertools.combinations(figure["texts"], 2):
            assert not _meet(a, b), (ta, tb)
        assert all(_inside(box, figure["box"]) for _, box in figure["texts"])
        assert page.errors == []
    finally:
        page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_walk_rings_travel_table_reads_as_measured(browser, pages, width):  # noqa: F811
    """The root-motion ring's travel table: one row per member at the catalog biped's 1.2 m/s
    and 1.0 m stride (one cycle of 0.833 s), its heading in degrees (+Z = 0, +X = 90), and the
    table fits its card."""
    page = _open(browser, pages["walk"], width)
    try:
        rows = page.page.locator("section.card table tr").evaluate_all(
            "els => els.map(e => Array.from(e.children).map(c => c.textContent.trim()))")
        body = {r[0]: r[1:] for r in rows if r and r[0].startswith("walk_")}
        assert body == {
            "walk_forward": ["1.20", "1.00", "0", "measured"],
            "walk_backward": ["1.20", "1.00", "180", "measured"],
            "walk_left": ["1.20", "1.00", "90", "measured"],
            "walk_right": ["1.20", "1.00", "-90", "measured"],
        }, rows
        fits = page.page.evaluate("""() => Array.from(document.querySelectorAll('section.card table')).every(t =>
            t.getBoundingClientRect().right <= t.closest('section.card').getBoundingClientRect().right)""")
        assert fits
    finally:
        page.close()


def test_figure_labels_keep_a_halo_where_they_cross_a_curve(browser, pages):  # noqa: F811
    """The group figure's placed labels (×n members, mean, outside) avoid other labels but may
    cross a curve: each is painted over a white halo (stroke under the fill), in its own colour."""
    page = _open(browser, pages["ring"], 800)
    try:
        styles = page.page.evaluate("""() => Array.from(document.querySelectorAll(
            'svg .coincident-label, svg .mean-label, svg .outside-label')).map(t => {
              const cs = getComputedStyle(t);
              return [t.getAttribute('class'), cs.paintOrder, cs.stroke, parseFloat(cs.strokeWidth), cs.fill, t.getAttribute('fill')]; })""")
        assert {s[0] for s in styles} == {"coincident-label", "mean-label", "outside-label"}, styles
        for cls, order, stroke, width, fill, attr in styles:
            assert order.startswith("stroke") and stroke == "rgb(255, 255, 255)" and width >= 2, (cls, order, stroke, width)
            assert fill != "rgb(255, 255, 255)" and attr, (cls, fill)
    finally:
        page.close()
