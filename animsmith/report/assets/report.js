// AnimSmith report viewer: draws everything from the inline JSON (#report-data)
// as SVG. No network, no external code. Asset strings are untrusted: they are
// only ever set with textContent / setAttribute, never parsed as HTML.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  // a non-finite value is null in JSON, and null does arithmetic as 0 (a NaN joint drawn at the
  // origin): pose arrays read null as NaN, which every drawing test then skips
  (function nullsToNaN() {
    function fix(a) { if (a) for (var i = 0; i < a.length; i++) if (a[i] === null) a[i] = NaN; }
    (DATA.clips || []).forEach(function (c) {
      fix(c.pos);
      if (c.local) { fix(c.local.t); fix(c.local.r); fix(c.local.s); }
    });
  })();
  var SVG_NS = document.getElementById("ns-probe").namespaceURI;
  // ------------------------------------------------------------------ colours
  // One colour per side and leg on the whole page (animsmith/report/palette.py): every curve,
  // contact lane, trail and legend entry asks colorOf, so a side never changes colour.
  var PALETTE = DATA.palette || { sides: { left: ["#1565c0"], right: ["#e65100"] }, body: {}, other: "#546e7a" };
  function sideOf(key) {
    var k = String(key).toLowerCase();
    if (k === "l" || k === "left" || k.indexOf("left_") === 0) return "left";
    if (k === "r" || k === "right" || k.indexOf("right_") === 0) return "right";
    return null;
  }
  // key: a side ("left"/"L"), a side role ("left_foot"), a body role ("hips", "root");
  // leg: the 0-based index of the leg on that side (its next shade)
  function colorOf(key, leg) {
    var side = sideOf(key);
    if (side) { var shades = PALETTE.sides[side]; return shades[(leg || 0) % shades.length]; }
    return PALETTE.body[key] || PALETTE.other;
  }
  // an HTML legend whose swatches are the series' own colours: items [{key, label, color}]
  function legend(parent, items, cls) {
    var lg = h("div", { class: "legend" + (cls ? " " + cls : "") }, parent);
    items.forEach(function (it) {
      var sp = h("span", { "data-series": it.key, "data-color": it.color }, lg);
      h("i", { style: "background:" + it.color }, sp);
      sp.appendChild(document.createTextNode(it.label));
    });
    return lg;
  }

  // ------------------------------------------------------------------ layout
  // Figures are drawn at their container's width (text stays 11 px) and redrawn when it changes.
  var sized = [];
  function widthOf(el, min) { return Math.max(min || 280, Math.floor(el.getBoundingClientRect().width) || 0); }
  function sizedFigure(el, draw) {
    var entry = { el: el, w: -1, draw: draw };
    sized.push(entry);
    entry.w = widthOf(el); draw(entry.w);
    return entry;
  }
  var resizePending = false;
  window.addEventListener("resize", function () {
    if (resizePending) return;
    resizePending = true;
    requestAnimationFrame(function () {
      resizePending = false;
      sized.forEach(function (e) { var w = widthOf(e.el); if (w !== e.w) { e.w = w; e.draw(w); } });
    });
  });
  function boxesMeet(a, b) { return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height; }
  // put a label at the first candidate [x, y] where it meets no other text of the svg and stays
  // inside it; `text` may list shorter wordings to try when the first fits nowhere (else the
  // last wording at the first candidate)
  function placeLabel(svg, attrs, text, candidates) {
    var wordings = Array.isArray(text) ? text : [text], t = s("text", attrs, svg, wordings[0]), others = [];
    Array.prototype.forEach.call(svg.querySelectorAll("text"), function (o) { if (o !== t) others.push(o.getBBox()); });
    var W = +svg.getAttribute("width"), H = +svg.getAttribute("height");
    for (var k = 0; k < wordings.length; k++) {
      t.textContent = wordings[k];
      for (var i = 0; i < candidates.length; i++) {
        t.setAttribute("x", candidates[i][0].toFixed(1)); t.setAttribute("y", candidates[i][1].toFixed(1));
        var b = t.getBBox();
        if (b.x < 0 || b.y < 0 || b.x + b.width > W || b.y + b.height > H) continue;
        if (!others.some(function (o) { return boxesMeet(b, o); })) return t;
      }
    }
    t.setAttribute("x", candidates[0][0].toFixed(1)); t.setAttribute("y", candidates[0][1].toFixed(1));
    return t;
  }


  // ------------------------------------------------------------------ helpers
  function h(tag, attrs, parent, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (parent) parent.appendChild(e);
    return e;
  }
  function s(tag, attrs, parent, text) {
    var e = document.createElementNS(SVG_NS, tag);
    if (attrs) for (var k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (parent) parent.appendChild(e);
    return e;
  }
  // a value that rounds to zero shows without a sign (never "-0.0")
  function fmt(v, d) { if (v === null || v === undefined || !isFinite(v)) return "—"; var t = Number(v).toFixed(d === undefined ? 3 : d); return /^-[0.]*$/.test(t) ? t.slice(1) : t; }
  // a heading in degrees: -Z is 180, so a heading that rounds to -180 reads 180 (as the CLI prints it)
  function fmtHeading(v, d) { var t = fmt(v, d); return t === fmt(-180, d) ? t.slice(1) : t; }
  function flash(el) {
    el.classList.add("flash");
    setTimeout(function () { el.classList.remove("flash"); }, 1600);
  }
  function wrap01(x) { x = x % 1; return x < 0 ? x + 1 : x; }
  // a phase in cycles, wrapped into [0, 1) after rounding (0.99999 reads 0.000, as the CLI prints it)
  function fmtPhase(v, d) {
    if (v === null || v === undefined || !isFinite(v)) return "—";
    var text = wrap01(Number(v)).toFixed(d);
    return Number(text) >= 1 ? (0).toFixed(d) : text;
  }
  function ordinal(n) {
    var tens = n % 100, ones = n % 10;
    return n + ((tens >= 11 && tens <= 13) ? "th" : ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th");
  }
  function circDist(a, b) { var d = Math.abs(a - b) % 1; return Math.min(d, 1 - d); }

  // ------------------------------------------------------------ pose math
  function posAt(clip, f, b) {
    var nb = DATA.skeletons[clip.skeleton].names.length, o = (f * nb + b) * 3, p = clip.pos;
    return [p[o], p[o + 1], p[o + 2]];
  }
  function framePositions(clip, f) {
    var nb = DATA.skeletons[clip.skeleton].names.length, out = [];
    for (var b = 0; b < nb; b++) out.push(posAt(clip, f, b));
    return out;
  }
  function localAt(clip, f, b) {
    var L = clip.local, o3 = (f * DATA.skeletons[clip.skeleton].names.length + b) * 3, o4 = o3 / 3 * 4;
    return { t: [L.t[o3], L.t[o3 + 1], L.t[o3 + 2]], r: [L.r[o4], L.r[o4 + 1], L.r[o4 + 2], L.r[o4 + 3]], s: [L.s[o3], L.s[o3 + 1], L.s[o3 + 2]] };
  }
  function slerp(a, b, w) {
    // shortest-path spherical interpolation of unit quaternions (x, y, z, w)
    var d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], bb = b.slice();
    if (d < 0) { d = -d; bb = [-b[0], -b[1], -b[2], -b[3]]; }
    var k0, k1;
    if (d > 0.9995) { k0 = 1 - w; k1 = w; } else {
      var th = Math.acos(Math.min(1, d)), st = Math.sin(th);
      k0 = Math.sin((1 - w) * th) / st; k1 = Math.sin(w * th) / st;
    }
    var q = [k0 * a[0] + k1 * bb[0], k0 * a[1] + k1 * bb[1], k0 * a[2] + k1 * bb[2], k0 * a[3] + k1 * bb[3]];
    var n = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
    return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
  }
  function lerp3(a, b, w) { return [a[0] + (b[0] - a[0]) * w, a[1] + (b[1] - a[1]) * w, a[2] + (b[2] - a[2]) * w]; }
  function trsMatrix(t, q, sc) {
    // column-major 4x4 of T * R * S
    var x = q[0], y = q[1], z = q[2], w = q[3];
    var r = [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
      2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
      2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)];
    return [r[0] * sc[0], r[1] * sc[0], r[2] * sc[0], 0, r[3] * sc[1], r[4] * sc[1], r[5] * sc[1], 0,
      r[6] * sc[2], r[7] * sc[2], r[8] * sc[2], 0, t[0], t[1], t[2], 1];
  }
  function mul(a, b) {
    var o = new Array(16);
    for (var c = 0; c < 4; c++) for (var r = 0; r < 4; r++) {
      var v = 0;
      for (var k = 0; k < 4; k++) v += a[k * 4 + r] * b[c * 4 + k];
      o[c * 4 + r] = v;
    }
    return o;
  }
  // forward kinematics of local poses (parents first): model = parent model x T·R·S
  function fk(skel, locals) {
    var nb = skel.parents.length, M = new Array(nb), out = new Array(nb), done = 0, guard = 0;
    while (done < nb && guard++ < nb + 1) {
      for (var b = 0; b < nb; b++) {
        if (M[b]) continue;
        var p = skel.parents[b];
        if (p >= 0 && !M[p]) continue;
        var L = trsMatrix(locals[b].t, locals[b].r, locals[b].s);
        M[b] = p < 0 ? L : mul(M[p], L);
        out[b] = [M[b][12], M[b][13], M[b][14]];
        done++;
      }
    }
    return out;
  }
  function blendPose(ca, fa, cb, fb, w) {
    var skel = DATA.skeletons[ca.skeleton], locals = [];
    for (var b = 0; b < skel.parents.length; b++) {
      var A = localAt(ca, fa, b), B = localAt(cb, fb, b);
      locals.push({ t: lerp3(A.t, B.t, w), r: slerp(A.r, B.r, w), s: lerp3(A.s, B.s, w) });
    }
    return fk(skel, locals);
  }

  // ---------------------------------------------------------- skeleton view
  // orthographic camera: yaw about +Y, fixed pitch; fit to a set of clips
  function Camera(width, height) { this.w = width; this.h = height; this.yaw = 0.6; this.pitch = 0.25; }
  Camera.prototype.rot = function (p) {
    var c = Math.cos(this.yaw), sn = Math.sin(this.yaw);
    var xr = p[0] * c - p[2] * sn, zr = p[0] * sn + p[2] * c;
    var cp = Math.cos(this.pitch), sp = Math.sin(this.pitch);
    return [xr, p[1] * cp - zr * sp];
  };
  Camera.prototype.fit = function (clips) {
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (var i = 0; i < clips.length; i++) {
      var pos = clips[i].pos;
      for (var o = 0; o + 2 < pos.length; o += 3) {
        if (!(isFinite(pos[o]) && isFinite(pos[o + 1]) && isFinite(pos[o + 2]))) continue;
        var q = this.rot([pos[o], pos[o + 1], pos[o + 2]]);
        x0 = Math.min(x0, q[0]); x1 = Math.max(x1, q[0]); y0 = Math.min(y0, q[1]); y1 = Math.max(y1, q[1]);
      }
    }
    if (!isFinite(x0)) { x0 = -1; x1 = 1; y0 = -1; y1 = 1; }
    var span = Math.max(x1 - x0, y1 - y0, 1e-3);
    this.scale = 0.86 * Math.min(this.w, this.h) / span;
    this.cx = (x0 + x1) / 2; this.cy = (y0 + y1) / 2;
  };
  Camera.prototype.project = function (p) {
    if (!(isFinite(p[0]) && isFinite(p[1]) && isFinite(p[2]))) return [NaN, NaN];  // not drawn (callers test [0])
    var q = this.rot(p);
    return [this.w / 2 + (q[0] - this.cx) * this.scale, this.h / 2 - (q[1] - this.cy) * this.scale];
  };
  function drawPose(g, cam, skel, positions, color) {
    while (g.firstChild) g.removeChild(g.firstChild);
    var pts = positions.map(function (p) { return cam.project(p); });
    for (var b = 0; b < skel.parents.length; b++) {
      var p = skel.parents[b];
      if (p < 0 || !isFinite(pts[b][0]) || !isFinite(pts[p][0])) continue;
      s("line", { x1: pts[p][0].toFixed(2), y1: pts[p][1].toFixed(2), x2: pts[b][0].toFixed(2), y2: pts[b][1].toFixed(2),
        stroke: color, "stroke-width": 2.5, "stroke-linecap": "round", "data-bone": b }, g);
    }
    for (var j = 0; j < pts.length; j++) {
      if (!isFinite(pts[j][0])) continue;
      s("circle", { cx: pts[j][0].toFixed(2), cy: pts[j][1].toFixed(2), r: 2.6, fill: "#263238" }, g);
    }
    g.setAttribute("data-pose", pts.map(function (q) { return q[0].toFixed(1) + "," + q[1].toFixed(1); }).join(" "));
  }
  function enableOrbit(svg, cam, redraw) {
    var drag = null;
    svg.addEventListener("pointerdown", function (e) { drag = e.clientX; svg.setPointerCapture(e.pointerId); });
    svg.addEventListener("pointermove", function (e) {
      if (drag === null) return;
      cam.yaw += (e.clientX - drag) * 0.01; drag = e.clientX; redraw(true);
    });
    svg.addEventListener("pointerup", function () { drag = null; });
    svg.addEventListener("wheel", function (e) { e.preventDefault(); cam.scale *= e.deltaY < 0 ? 1.1 : 1 / 1.1; redraw(false); }, { passive: false });
  }

  // ------------------------------------------------------------------ charts
  function lineChart(parent, opts) {
    // opts: {h, title, xmax, kind, series: [{xs, ys, color, label, key}], lanes: [{label, key, color, spans}],
    // legend: [{key, label, color}]}; drawn at the container's width
    var wrap = h("div", { class: "chart", "data-kind": opts.kind }, parent);
    var holder = h("div", null, wrap), svg = null, head = null, headX = 0, X = null;
    if (opts.legend && opts.legend.length) legend(wrap, opts.legend, "chart-legend");
    function draw(W) {
      while (holder.firstChild) holder.removeChild(holder.firstChild);
      var H = opts.h || 130, pl = 44, pr = 10, pt = 18, lanes = opts.lanes || [], pb = 8 + lanes.length * 13;
      svg = s("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "data-kind": opts.kind }, holder);
      var ymin = Infinity, ymax = -Infinity;
      opts.series.forEach(function (se) { se.ys.forEach(function (v) { if (v !== null && isFinite(v)) { ymin = Math.min(ymin, v); ymax = Math.max(ymax, v); } }); });
      if (!isFinite(ymin)) { ymin = 0; ymax = 1; }
      if (opts.zero) ymin = Math.min(0, ymin);
      if (ymax - ymin < 1e-6) { if (opts.zero && ymin === 0) ymax = 1; else { ymax += 0.5; ymin -= 0.5; } }
      X = function (x) { return pl + (W - pl - pr) * (opts.xmax > 0 ? x / opts.xmax : 0); };
      var Y = function (y) { return pt + (H - pt - pb) * (1 - (y - ymin) / (ymax - ymin)); };
      var base = H - pb;  // the value axis ends here; contact lanes sit below it
      s("text", { x: pl, y: 12, class: "title" }, svg, opts.title);
      s("line", { x1: pl, y1: base, x2: W - pr, y2: base, stroke: "#bbb" }, svg);
      s("line", { x1: pl, y1: pt, x2: pl, y2: base, stroke: "#ddd" }, svg);
      // value labels right-aligned against the axis, inside the plotted range: the top one hangs
      // below its gridline, the bottom one stands on the baseline, clear of the lanes under it
      s("text", { x: pl - 4, y: Y(ymax) + 9, "text-anchor": "end", class: "y-label" }, svg, fmt(ymax, 2));
      s("text", { x: pl - 4, y: Y(ymin) - 2, "text-anchor": "end", class: "y-label" }, svg, fmt(ymin, 2));
      opts.series.forEach(function (se) {
        var d = [];
        for (var i = 0; i < se.xs.length; i++) if (se.ys[i] !== null && isFinite(se.ys[i])) d.push(X(se.xs[i]).toFixed(1) + "," + Y(se.ys[i]).toFixed(1));
        s("polyline", { points: d.join(" "), fill: "none", stroke: se.color, "stroke-width": 1.6, "data-series": se.key || se.label }, svg);
      });
      lanes.forEach(function (lane, li) {
        var y = base + 5 + li * 13;
        s("text", { x: pl - 4, y: y + 6, "font-size": 9, "text-anchor": "end", fill: lane.color, class: "lane-label", "data-series": lane.key }, svg, lane.label);
        lane.spans.forEach(function (sp) {
          s("rect", { x: X(sp[0]).toFixed(1), y: y, width: Math.max(1.5, X(sp[1]) - X(sp[0])).toFixed(1), height: 6, fill: lane.color,
            "data-contact": lane.label, "data-series": lane.key }, svg);
        });
      });
      head = s("line", { x1: X(headX), x2: X(headX), y1: pt, y2: base, stroke: "#444", "stroke-dasharray": "3 2", class: "playhead" }, svg);
    }
    sizedFigure(holder, draw);
    return {
      get svg() { return svg; },
      at: function (x) { headX = x; head.setAttribute("x1", X(x)); head.setAttribute("x2", X(x)); }
    };
  }
  // judged-grid frame of shown sample i: every stride-th, plus the last judged frame
  // (collect.frame_indices), which need not be a multiple of the stride
  function judgedFrame(clip, i) {
    return i === clip.frames - 1 ? clip.judged_frames - 1 : i * clip.stride;
  }

  function spansOf(times, mask, stride) {
    var out = [], start = null;
    for (var i = 0; i < mask.length; i++) {
      if (mask[i] && start === null) start = times[i];
      if ((!mask[i] || i === mask.length - 1) && start !== null) {
        out.push([start, mask[i] ? times[i] : times[i - 1]]); start = null;
      }
    }
    return out;
  }

  // ------------------------------------------------------------- summary
  function renderSummary(root) {
    var sec = h("section", { class: "card", id: "summary" }, root);
    h("h2", null, sec, "Summary");
    var c = h("div", { class: "counts" }, sec), S = DATA.summary;
    var counts = [["files", S.files, ""], ["clips", S.clips, ""], ["errors", S.errors, "error"], ["warnings", S.warnings, "warning"],
      ["notes", S.notes, "note"], ["coverage gaps", S.coverage_gaps, "gap"]];
    if ((DATA.engine || []).length && S.prediction_facets) {  // an [engine] profile: its failures count too
      counts.push(["required-unavailable predictions", S.prediction_facets.required_unavailable, "error"]);
    }
    counts.forEach(function (r) {
      var d = h("div", { class: "count " + r[2], "data-count": r[0] }, c);
      h("b", null, d, r[1]); h("span", { class: "muted" }, d, r[0]);
    });
    if (DATA.config) h("div", { class: "small muted" }, sec, "contract: " + DATA.config);
    if (DATA.clip_filter !== null && DATA.clip_filter !== undefined) h("div", { class: "small muted" }, sec, "clip filter: " + DATA.clip_filter);

    h("h3", null, sec, "Findings");
    var ul = h("ul", { class: "findings", id: "findings" }, sec);
    if (!DATA.findings.length) h("li", { class: "muted" }, ul, "clean — no findings");
    DATA.findings.forEach(function (f, i) {
      var li = h("li", null, ul), b = h("button", { class: "finding", type: "button", "data-target": f.target, "data-index": i }, li);
      h("span", { class: "sev " + f.severity }, b, f.severity);
      h("span", { class: "cid" }, b, f.check_id);
      h("span", { class: "where" }, b, f.where);
      h("span", null, b, f.text);
      b.addEventListener("click", function () { goTo(f); });
    });
    h("h3", null, sec, "Coverage gaps (what could not be evaluated)");
    var gl = h("ul", { class: "gaps" }, sec);
    if (!DATA.gaps.length) h("li", { class: "muted" }, gl, "none");
    DATA.gaps.forEach(function (g) {
      var li = h("li", null, gl);
      h("span", { class: "sev gap" }, li, "gap");
      h("span", { class: "cid" }, li, g.check_id + " " + g.code + (g.count > 1 ? " ×" + g.count : ""));
      h("span", { class: "where" }, li, g.path + (g.subjects.length ? " · " + g.subjects.join(", ") : ""));
      h("span", null, li, g.message);
    });
    renderPredictions(sec);
  }
  // Engine predictions ([engine] profile): the failures first, then the handles predicted.
  function renderPredictions(sec) {
    h("h3", null, sec, "Engine predictions");
    var pl = h("ul", { class: "gaps predictions", id: "predictions" }, sec);
    var engines = DATA.engine || [], preds = DATA.predictions || [];
    if (!engines.length) { h("li", { class: "muted" }, pl, "engine-neutral: no [engine] profile in the contract"); return; }
    engines.forEach(function (e) {
      h("li", { class: "muted" }, pl, "engine profile " + e.profile + " " + e.version + " (" + e.runtime + ") · " + e.path);
    });
    if (!preds.length) h("li", { class: "muted" }, pl, "no prediction facets");
    preds.forEach(function (p) {
      var bad = p.state === "required_unavailable";
      var li = h("li", { class: "prediction " + p.state }, pl);
      h("span", { class: "sev " + (bad ? "error" : "note") }, li, bad ? "unavailable" : "available");
      h("span", { class: "cid" }, li, p.check_id + " " + p.code);
      h("span", { class: "where" }, li, p.path + " · " + p.subject);
      h("span", null, li, bad ? "(" + p.reasons.join(", ") + ") " + p.message : (p.handle !== null ? "'" + p.handle + "'" : p.message));
    });
  }
  var clipPlayers = {};
  function goTo(f) {
    var el = f.target ? document.getElementById(f.target) : null;
    if (!el) return;
    el.scrollIntoView({ block: "start" });
    flash(el);
    var player = clipPlayers[f.target];
    if (player && f.time_s !== null && f.time_s !== undefined) player.seekTime(f.time_s);
  }

  // --------------------------------------------------------------- groups
  function renderGroup(root, grp, gi) {
    var sec = h("section", { class: "card group", id: grp.anchor, "data-group": grp.name }, root);
    h("h2", null, sec, "Gait group '" + grp.name + "'");
    h("div", { class: "small muted" }, sec,
      "Every member on one normalized source-phase axis, none shifted onto another; no member is a reference — the check judges the set's spread.");
    var row = h("div", { class: "figure-row" }, sec);
    var figWrap = h("div", { class: "group-figure", "data-group": grp.name }, row);
    var same = coincidentMembers(grp);
    sizedFigure(figWrap, function (w) {
      while (figWrap.firstChild) figWrap.removeChild(figWrap.firstChild);
      drawGroupFigure(figWrap, grp, w, same);
    });
    var side = h("div", null, row);
    var ul = h("ul", { class: "member-list" }, side);
    grp.members.forEach(function (m, mi) {
      var li = h("li", { "data-member": m.label, "data-status": m.status, "data-outlier": m.outlier ? "1" : "0" }, ul);
      h("span", { class: "swatch", style: "background:" + m.color }, li);
      h("b", null, li, m.label);
      var txt = "";
      if (m.status === "measured") txt = " — anchor " + fmtPhase(m.phase, 3) + ", " + fmt(m.distance, 3) + " from mean, amplitude " + fmt(m.amplitude, 3) + " m" +
        (m.cycles > 1 ? ", " + m.cycles + " strides (folded onto one)" : "");
      else if (m.status === "excluded") txt = " — excluded as noise: amplitude " + fmt(m.amplitude, 3) + " m below the " + fmt(grp.floor, 3) + " m floor";
      else txt = " — " + m.status + ": " + (m.reason || "");
      h("span", null, li, txt);
      if (m.outlier) h("span", { class: "outside" }, li, " · outside the band");
      var twins = same[mi];
      if (twins) h("span", { class: "muted same-curve" }, li, " · same curve as " + twins.labels.filter(function (l, k) { return k !== twins.k; }).join(", "));
    });
    var out = h("div", { class: "outliers", "data-outliers": grp.outliers.join(",") }, side);
    var strides = {};
    grp.members.forEach(function (m) { if (m.status === "measured" && m.cycles) strides[m.cycles] = 1; });
    var counts = Object.keys(strides);
    if (counts.length > 1) h("div", { class: "outside", "data-strides": counts.join(",") }, side,
      "Members hold different numbers of strides (" + counts.join(", ") + "): at one normalized time their strides cannot line up.");
    if (!grp.judged) out.textContent = "gait-group was not run (--select): the spread is not judged.";
    else if (grp.mean === null) out.textContent = "Fewer than two measurable anchors: the spread is not judged.";
    else if (grp.outliers.length) out.textContent = "Outside the band: " + grp.outliers.join(", ");
    else out.textContent = "All measured anchors are inside the band.";
    if (grp.mean !== null) h("div", { class: "small" }, side,
      "circular mean " + fmtPhase(grp.mean, 3) + " · spread " + fmt(grp.spread, 4) + " · cap ±" + fmt(grp.cap, 3) + " cycle");
    renderTravelTable(side, grp);
    renderPairPlayer(sec, grp, gi);
  }

  // each member's travel (speed, stride length, heading) under the group's travel policy
  function renderTravelTable(parent, grp) {
    var t = grp.travel;
    if (!t || !t.members || !t.members.length) return;
    var box = h("div", { class: "travel", "data-group": grp.name }, parent);
    h("div", { class: "small" }, box, "Travel — policy: " + (t.policy || "none declared") +
      " · speed spread " + fmt(t.speed_spread_mps, 2) + " m/s (cap " + fmt(t.max_speed_delta_mps, 2) + ")" +
      " · stride-length spread " + fmt(t.stride_length_spread_m, 2) + " m (cap " + fmt(t.max_stride_length_delta_m, 2) + ")");
    var table = h("table", { class: "travel-table" }, box);
    var head = h("tr", null, h("thead", null, table));
    ["member", "speed m/s", "stride m", "heading deg", "source"].forEach(function (c) { h("th", null, head, c); });
    var body = h("tbody", null, table);
    t.members.forEach(function (m) {
      var tr = h("tr", { "data-member": m.member }, body);
      h("td", null, tr, m.member);
      h("td", null, tr, fmt(m.speed_mps, 2));
      h("td", null, tr, fmt(m.stride_length_m, 2));
      h("td", null, tr, fmtHeading(m.heading_deg, 0));
      h("td", null, tr, m.source === "declared" ? "in place, declared speed" : (m.source === "in_place" ? "in place, no speed" : "measured"));
    });
  }

  // Members whose drawn curves coincide (same stride count, every point within 0.5 % of the
  // figure's amplitude): {member index: {k, labels, members}} for sets of two or more, k = the
  // member's place in its set. A set is drawn as one line whose dashes take each member's colour
  // in turn, labelled "×n", so no member hides under another.
  function coincidentMembers(grp) {
    var amax = 0, out = {}, sets = [];
    grp.members.forEach(function (m) { (m.signal || []).forEach(function (v) { if (v !== null) amax = Math.max(amax, Math.abs(v)); }); });
    var tol = Math.max(1e-6, 0.005 * amax);
    function same(a, b) {
      if (a.signal.length !== b.signal.length || (a.cycles || 1) !== (b.cycles || 1)) return false;
      for (var i = 0; i < a.signal.length; i++) {
        var x = a.signal[i], y = b.signal[i];
        if ((x === null) !== (y === null)) return false;
        if (x !== null && Math.abs(x - y) > tol) return false;
      }
      return true;
    }
    grp.members.forEach(function (m, mi) {
      if (m.status !== "measured" || !m.signal || !m.signal.length) return;
      var set = sets.filter(function (st) { return same(grp.members[st[0]], m); })[0];
      if (set) set.push(mi); else sets.push([mi]);
    });
    sets.forEach(function (st) {
      if (st.length < 2) return;
      var labels = st.map(function (i) { return grp.members[i].label; });
      st.forEach(function (mi, k) { out[mi] = { k: k, labels: labels, members: st }; });
    });
    return out;
  }

  function drawGroupFigure(parent, grp, W, same) {
    var H = 260, pl = 60, pr = 14, pt = 24, pb = 36, DASH = 9;
    var svg = s("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, class: "gait-figure", "data-group": grp.name }, parent);
    var amax = 1e-6;
    grp.members.forEach(function (m) { (m.signal || []).forEach(function (v) { if (v !== null) amax = Math.max(amax, Math.abs(v)); }); });
    amax *= 1.15;
    var X = function (p) { return pl + (W - pl - pr) * p; };
    var Y = function (v) { return pt + (H - pt - pb) * (0.5 - v / (2 * amax)); };
    s("text", { x: pl, y: 14, class: "title" }, svg, grp.name + " — L−R foot height relative to the hips by normalized source phase");
    if (grp.mean !== null) {
      var lo = grp.mean - grp.cap, hi = grp.mean + grp.cap, parts = [];
      if (grp.cap >= 0.5) parts.push([0, 1]);
      else if (lo < 0) { parts.push([0, hi]); parts.push([lo + 1, 1]); }
      else if (hi > 1) { parts.push([lo, 1]); parts.push([0, hi - 1]); }
      else parts.push([lo, hi]);
      parts.forEach(function (pp) {
        s("rect", { x: X(pp[0]), y: pt, width: X(pp[1]) - X(pp[0]), height: H - pt - pb, fill: "#c8e6c9", "fill-opacity": 0.7, class: "cap-band" }, svg);
      });
      s("line", { x1: X(grp.mean), x2: X(grp.mean), y1: pt, y2: H - pb, stroke: "#2e7d32", "stroke-dasharray": "5 3", class: "mean-line" }, svg);
    }
    s("line", { x1: pl, x2: W - pr, y1: Y(0), y2: Y(0), stroke: "#bbb" }, svg);
    s("rect", { x: pl, y: pt, width: W - pl - pr, height: H - pt - pb, fill: "none", stroke: "#ccc" }, svg);
    [0, 0.25, 0.5, 0.75, 1].forEach(function (p) {
      s("line", { x1: X(p), x2: X(p), y1: H - pb, y2: H - pb + 4, stroke: "#888" }, svg);
      s("text", { x: X(p), y: H - pb + 15, "text-anchor": p === 0 ? "start" : p === 1 ? "end" : "middle", class: "tick" }, svg,
        p === 0 ? "0" : p === 1 ? "1" : String(p));
    });
    s("text", { x: pl + (W - pl - pr) / 2, y: H - 4, "text-anchor": "middle", class: "axis-label" }, svg, "normalized source phase (cycle)");
    s("text", { x: pl - 4, y: Y(amax / 1.15) + 4, "text-anchor": "end", class: "y-label" }, svg, fmt(amax / 1.15, 2) + " m");
    s("text", { x: pl - 4, y: Y(-amax / 1.15) + 4, "text-anchor": "end", class: "y-label" }, svg, fmt(-amax / 1.15, 2) + " m");
    var curveLabels = [];
    grp.members.forEach(function (m, mi) {
      if (!m.signal || !m.signal.length) return;
      // a clip holding k strides is folded onto one stride (the anchor is a fraction of one
      // stride): stride j covers samples j·n/k .. (j+1)·n/k at phase i·k/n − j
      var n = m.signal.length, k = m.cycles && m.cycles > 1 ? m.cycles : 1, d = [], top = null;
      for (var j = 0; j < k; j++) {
        var seg = [];
        for (var i = Math.ceil(j * n / k); i <= Math.floor((j + 1) * n / k); i++) {
          var v = m.signal[i % n];
          if (v === null) continue;
          seg.push(X(i * k / n - j).toFixed(1) + "," + Y(v).toFixed(1));
          if (top === null || v > top[1]) top = [i * k / n - j, v];
        }
        d.push(seg.join(" "));
      }
      var twin = same[mi], measured = m.status === "measured";
      var attrs = { fill: "none", stroke: m.color, "stroke-width": measured ? 2.2 : 1.2, "stroke-dasharray": measured ? null : "4 3",
        "data-member": m.label };
      if (twin) {
        // one shared line: each member paints every n-th dash of it, offset by its place in the set
        var nn = twin.members.length;
        attrs["stroke-dasharray"] = DASH + " " + DASH * (nn - 1);
        attrs["stroke-dashoffset"] = -DASH * twin.k;
        attrs["data-coincident"] = twin.labels.join(",");
        if (twin.k === 0 && top) curveLabels.push({ n: nn, labels: twin.labels, at: top, color: m.color });
      }
      d.forEach(function (pts, j) {
        var a = {}; for (var key in attrs) a[key] = attrs[key];
        a.points = pts; a["data-stride"] = j; a["class"] = j === 0 ? "member-curve" : "member-curve-extra";
        s("polyline", a, svg);
      });
    });
    // anchors: markers stacked so coinciding anchors stay visible
    var stack = {}, outsideLabels = [];
    grp.members.forEach(function (m) {
      if (m.status !== "measured" || m.phase === null) return;
      var p = m.phase, key = p.toFixed(2), lvl = stack[key] = (stack[key] || 0) + 1;
      var x = X(p), y = H - pb - 8 - (lvl - 1) * 11;
      s("line", { x1: x, x2: x, y1: pt, y2: H - pb, stroke: m.color, "stroke-opacity": 0.35 }, svg);
      var c = s("circle", { cx: x, cy: y, r: m.outlier ? 5.5 : 4.5, fill: m.color, stroke: m.outlier ? "#c62828" : "#fff",
        "stroke-width": m.outlier ? 2.5 : 1, class: "anchor", "data-member": m.label, "data-phase": m.phase }, svg);
      s("title", null, c, m.label + ": stride anchor " + fmtPhase(m.phase, 3) + (m.outlier ? " (outside the band)" : ""));
      if (m.outlier) outsideLabels.push({ x: x, y: y, label: m.label });
    });
    // labels last, each where it meets no other text (the title, ticks and value labels are placed)
    if (grp.mean !== null) {
      var mx = X(grp.mean);
      placeLabel(svg, { fill: "#2e7d32", class: "mean-label" }, "mean " + fmtPhase(grp.mean, 3) + " ± cap " + fmt(grp.cap, 2),
        [[mx + 4, pt + 11], [mx - 150, pt + 11], [mx + 4, pt + 24], [mx - 150, pt + 24], [mx + 4, pt + 37]]);
    }
    outsideLabels.forEach(function (o) {
      placeLabel(svg, { fill: "#c62828", "font-weight": 700, class: "outside-label" }, o.label + " (outside)",
        [[o.x + 8, o.y + 4], [o.x - 8 - 7 * (o.label.length + 10), o.y + 4], [o.x + 8, o.y - 12], [o.x + 8, o.y - 26], [o.x + 8, o.y - 40]]);
    });
    curveLabels.forEach(function (c) {
      var cx = X(c.at[0]), cy = Y(c.at[1]);
      var t = placeLabel(svg, { fill: c.color, "font-weight": 700, class: "coincident-label", "data-members": c.labels.join(",") },
        ["×" + c.n + " " + c.labels.join(" = "), "×" + c.n],
        [[cx + 6, cy - 6], [cx + 6, cy + 14], [cx - 6 - 6.5 * (c.labels.join(" = ").length + 3), cy - 6], [cx + 6, cy + 28], [pl + 6, pt + 12]]);
      s("title", null, t, c.n + " members draw the same curve: " + c.labels.join(", "));
    });
  }

  // ----------------------------------------------------------- pair player
  function renderPairPlayer(sec, grp, gi) {
    var usable = grp.members.filter(function (m) { return m.clip !== null && DATA.clips[m.clip] && DATA.clips[m.clip].pos; });
    h("h3", null, sec, "Pair player");
    if (usable.length < 2) { h("div", { class: "muted small" }, sec, "Needs two members whose clips are in this report."); return; }
    var box = h("div", { class: "pair-player", "data-group": grp.name }, sec);
    h("div", { class: "hint" }, box, "Both members at one shared normalized phase: a presentation mapping between two timelines, not a retime. Source panes show the judged frames.");
    var ctl = h("div", { class: "controls" }, box);
    function select(label, def) {
      var l = h("label", null, ctl, label + " ");
      var sel = h("select", { class: "member-select" }, l);
      usable.forEach(function (m, i) { var o = h("option", { value: i }, sel, m.label); if (i === def) o.selected = true; });
      return sel;
    }
    var firstOut = usable.findIndex(function (m) { return m.outlier; });
    var selA = select("member", firstOut === 0 ? 1 : 0);
    var selB = select("with", firstOut > 0 ? firstOut : (firstOut === 0 ? 0 : 1));
    var play = h("button", { type: "button" }, ctl, "▶ play");
    var pl = h("label", null, ctl, "phase ");
    var phase = h("input", { type: "range", min: 0, max: 1, step: 0.001, value: 0, class: "phase" }, pl);
    var phaseTxt = h("span", { class: "small" }, ctl, "0.000");
    var ctl2 = h("div", { class: "controls" }, box);
    var tl = h("label", null, ctl2);
    var toggle = h("input", { type: "checkbox", class: "blend-toggle" }, tl);
    tl.appendChild(document.createTextNode(" illustrative blend"));
    var wl = h("label", null, ctl2, "weight ");
    var weight = h("input", { type: "range", min: 0, max: 1, step: 0.01, value: 0.5, class: "blend-weight", disabled: "" }, wl);
    var wTxt = h("span", { class: "small" }, ctl2, "0.50");
    var panes = h("div", { class: "panes" }, box);
    function pane(cls) {
      var p = h("div", { class: "pane " + cls }, panes);
      var cap = h("div", { class: "cap" }, p);
      var svg = s("svg", { width: 270, height: 250, viewBox: "0 0 270 250" }, p);
      var g = s("g", { class: "pose" }, svg);
      return { el: p, cap: cap, svg: svg, g: g };
    }
    var pa = pane("source a"), pb = pane("source b"), pc = pane("blend off");
    h("div", { class: "disclaimer" }, box,
      "Illustrative blend: a third pose computed here from the two sampled local poses (slerp of rotations, lerp of translations and scales, then forward kinematics). It is presentation only, not a measured finding, and does not model your engine's masks, controller, root-motion policy or contact handling. Zoom out (wheel) if it leaves the source-based camera fit.");
    var cam = new Camera(270, 250);
    function members() { return [usable[+selA.value], usable[+selB.value]]; }
    // the shown sample nearest judged frame p·(judged − 1): shown samples are every stride-th
    // judged frame plus the last, so on a thinned clip the last gap can be shorter than a stride
    function frameAt(clip, p) {
      var target = p * (clip.judged_frames - 1), last = clip.frames - 1;
      var i = Math.max(0, Math.min(last, Math.round(target / clip.stride)));
      var best = i;
      [i - 1, i + 1, last].forEach(function (k) {
        if (k >= 0 && k <= last && Math.abs(judgedFrame(clip, k) - target) < Math.abs(judgedFrame(clip, best) - target)) best = k;
      });
      return best;
    }
    function refit() { var m = members(); cam.fit([DATA.clips[m[0].clip], DATA.clips[m[1].clip]]); }
    function draw() {
      var m = members(), ca = DATA.clips[m[0].clip], cb = DATA.clips[m[1].clip], p = +phase.value;
      var fa = frameAt(ca, p), fb = frameAt(cb, p);
      phaseTxt.textContent = p.toFixed(3);
      drawPose(pa.g, cam, DATA.skeletons[ca.skeleton], framePositions(ca, fa), m[0].color);
      drawPose(pb.g, cam, DATA.skeletons[cb.skeleton], framePositions(cb, fb), m[1].color);
      pa.cap.textContent = m[0].label + ": t = " + ca.times[fa].toFixed(3) + " s (judged frame " + judgedFrame(ca, fa) + ")";
      pb.cap.textContent = m[1].label + ": t = " + cb.times[fb].toFixed(3) + " s (judged frame " + judgedFrame(cb, fb) + ")";
      pa.el.setAttribute("data-time", ca.times[fa]); pb.el.setAttribute("data-time", cb.times[fb]);
      var same = ca.skeleton === cb.skeleton || JSON.stringify(DATA.skeletons[ca.skeleton]) === JSON.stringify(DATA.skeletons[cb.skeleton]);
      var can = same && ca.local && cb.local;
      if (toggle.checked && can) {
        var w = +weight.value;
        pc.el.classList.remove("off");
        drawPose(pc.g, cam, DATA.skeletons[ca.skeleton], blendPose(ca, fa, cb, fb, w), "#8e24aa");
        pc.cap.textContent = "Illustrative blend (presentation, not measured): " + (1 - w).toFixed(2) + " × " + m[0].label + " + " + w.toFixed(2) + " × " + m[1].label;
      } else {
        pc.el.classList.add("off");
        while (pc.g.firstChild) pc.g.removeChild(pc.g.firstChild);
        pc.g.removeAttribute("data-pose");
        pc.cap.textContent = !can && toggle.checked ? "Illustrative blend unavailable: the two members have different skeletons." : "Illustrative blend (off)";
      }
    }
    var timer = null;
    play.addEventListener("click", function () {
      if (timer) { clearInterval(timer); timer = null; play.textContent = "▶ play"; return; }
      play.textContent = "❚❚ pause";
      timer = setInterval(function () { phase.value = ((+phase.value + 0.01) % 1).toFixed(3); draw(); }, 40);
    });
    [selA, selB].forEach(function (e) { e.addEventListener("change", function () { refit(); draw(); }); });
    phase.addEventListener("input", draw);
    toggle.addEventListener("change", function () { if (toggle.checked) weight.removeAttribute("disabled"); else weight.setAttribute("disabled", ""); draw(); });
    weight.addEventListener("input", function () { wTxt.textContent = (+weight.value).toFixed(2); draw(); });
    [pa, pb, pc].forEach(function (p) { enableOrbit(p.svg, cam, function (re) { if (re) refit(); draw(); }); });
    refit(); draw();
  }

  // ---------------------------------------------------------------- clips
  function renderClip(root, clip, ci) {
    var file = DATA.files[clip.file];
    var sec = h("section", { class: "card clip", id: clip.anchor, "data-clip": clip.name }, root);
    h("h2", null, sec, "Clip '" + clip.name + "'");
    h("div", { class: "small muted" }, sec, file.path + " · rig profile " + file.profile);
    if (clip.unavailable || !clip.pos) { h("div", { class: "muted" }, sec, "No pose grid: " + (clip.unavailable || "unavailable")); return; }
    var M = clip.measurements || {};
    h("div", { class: "small" }, sec, "duration " + fmt(clip.duration_s, 3) + " s · " + clip.judged_frames + " judged frames" +
      (clip.stride > 1 ? " (every " + ordinal(clip.stride) + " shown)" : "") + " · stride anchor " + fmtPhase(M.gait_phase, 3) +
      " · L−R amplitude " + fmt(M.lr_amplitude_m, 3) + " m · speed " + fmt(M.speed_mps, 3) + " m/s");
    var ctl = h("div", { class: "controls" }, sec);
    var play = h("button", { type: "button" }, ctl, "▶ play");
    var scrub = h("input", { type: "range", min: 0, max: clip.frames - 1, step: 1, value: 0, class: "scrub" }, ctl);
    var label = h("span", { class: "small" }, ctl);
    var row = h("div", { class: "clip-row" }, sec);
    var view = h("div", { class: "view" }, row);
    var svg = s("svg", { width: 380, height: 320, viewBox: "0 0 380 320", class: "skeleton-view" }, view);
    var trailG = s("g", null, svg), poseG = s("g", { class: "pose" }, svg);
    h("div", { class: "hint" }, view, "drag to orbit · wheel to zoom · frames shown are the grid the checks judged");
    legend(view, Object.keys(clip.trails).map(function (r) { return { key: r, label: r.replace("_", " ") + " trail", color: colorOf(r) }; }), "trail-legend");
    var charts = h("div", { class: "charts" }, row);
    var cam = new Camera(380, 320), skel = DATA.skeletons[clip.skeleton];
    cam.fit([clip]);
    var feetSeries = [], lanes = [], feetLegend = [];
    // one row per foot: left/right, or every leg of a rig with more than one pair, each
    // in its side's colour (the n-th leg of a side in that side's n-th shade)
    var feetKeys = clip.feet_order || ["left", "right"].filter(function (k) { return clip.feet[k]; });
    feetKeys.forEach(function (k) {
      var foot = clip.feet[k], side = foot.side || k, leg = foot.leg || 0;
      // a side's first leg wears its foot role's colour (the trail of that foot)
      var key = (k === "left" || k === "right") ? k + "_foot" : k, color = colorOf(side, leg);
      var lab = k === "left" ? "L" : k === "right" ? "R" : k.slice(0, 7);
      feetSeries.push({ xs: clip.times, ys: foot.height, color: color, label: k, key: key });
      lanes.push({ label: lab, key: key, color: color, spans: spansOf(clip.times, foot.stance) });
      feetLegend.push({ key: key, label: (k === "left" || k === "right" ? k + " foot" : k) + " (curve: height, bar " + lab + ": contact)", color: color });
    });
    var sources = feetKeys.map(function (k) { return clip.feet[k].source; });
    var how = sources.every(function (x) { return x === "authored"; }) ? "authored contact markers"
      : sources.some(function (x) { return x === "authored"; }) ? "authored markers / height rule"
      : "≤ " + fmt(clip.contact_height_m, 3) + " m above lowest";
    var c1 = feetSeries.length ? lineChart(charts, { kind: "feet", title: "foot height (m) · bars: contacts (" + how + ")", xmax: clip.duration_s, series: feetSeries, lanes: lanes, legend: feetLegend }) : null;
    if (!c1) h("div", { class: "muted small" }, charts, "foot heights: no foot or toe role resolved");
    var sp = clip.speed, mid = [];
    // the speed curve is the travel bone's: drawn in that bone's trail colour
    var travelRole = Object.keys(clip.trails).filter(function (r) { return DATA.skeletons[clip.skeleton].names[clip.trails[r]] === sp.bone; })[0] || "root";
    for (var i = 0; i + 1 < clip.times.length; i++) mid.push((clip.times[i] + clip.times[i + 1]) / 2);
    var c2 = sp.bone ? lineChart(charts, { kind: "speed", title: "root speed (m/s, horizontal, " + sp.bone + ")", xmax: clip.duration_s, zero: true, series: [{ xs: mid, ys: sp.mps, color: colorOf(travelRole), label: "speed", key: travelRole }] }) : null;
    if (!c2) h("div", { class: "muted small" }, charts, "root speed: " + (sp.unavailable || "unavailable"));
    var frame = 0;
    function drawTrails() {
      while (trailG.firstChild) trailG.removeChild(trailG.firstChild);
      Object.keys(clip.trails).forEach(function (r) {
        // the whole path faint, the part travelled up to the current frame solid
        var b = clip.trails[r], all = [];
        for (var f = 0; f < clip.frames; f++) { var q = cam.project(posAt(clip, f, b)); all.push(isFinite(q[0]) ? q[0].toFixed(1) + "," + q[1].toFixed(1) : null); }
        var ok = function (x) { return x !== null; };
        s("polyline", { points: all.filter(ok).join(" "), fill: "none", stroke: colorOf(r), "stroke-width": 1, "stroke-opacity": 0.25 }, trailG);
        s("polyline", { points: all.slice(0, frame + 1).filter(ok).join(" "), fill: "none", stroke: colorOf(r), "stroke-width": 1.8, "stroke-opacity": 0.9, "data-trail": r }, trailG);
      });
    }
    function draw() {
      drawTrails();
      drawPose(poseG, cam, skel, framePositions(clip, frame), "#37474f");
      var t = clip.times[frame];
      label.textContent = "t " + t.toFixed(3) + " s / " + clip.duration_s.toFixed(3) + " s (judged frame " + judgedFrame(clip, frame) + ")";
      scrub.value = frame;
      if (c1) c1.at(t); if (c2) c2.at(t);
    }
    var timer = null, fps = clip.duration_s > 0 ? (clip.frames - 1) / clip.duration_s : 30;
    play.addEventListener("click", function () {
      if (timer) { clearInterval(timer); timer = null; play.textContent = "▶ play"; return; }
      play.textContent = "❚❚ pause";
      timer = setInterval(function () { frame = (frame + 1) % clip.frames; draw(); }, Math.max(16, 1000 / Math.min(60, fps)));
    });
    scrub.addEventListener("input", function () { frame = +scrub.value; draw(); });
    enableOrbit(svg, cam, function (re) { if (re) cam.fit([clip]); draw(); });
    clipPlayers[clip.anchor] = { seekTime: function (t) {
      var best = 0; for (var i = 0; i < clip.times.length; i++) if (Math.abs(clip.times[i] - t) < Math.abs(clip.times[best] - t)) best = i;
      frame = best; draw();
    } };
    draw();
  }

  // ------------------------------------------------------------------ page
  var root = document.getElementById("app");
  renderSummary(root);
  if (DATA.groups.length) {
    DATA.groups.forEach(function (g, gi) { renderGroup(root, g, gi); });
  }
  DATA.clips.forEach(function (c, ci) { if (c.shown) renderClip(root, c, ci); });
  document.body.setAttribute("data-ready", "1");
})();
