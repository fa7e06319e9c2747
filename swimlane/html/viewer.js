// hbgkit swimlane viewer. It reads the JSON in #swimlane-data and draws
// only the spans in view: per row (lane, nesting level) spans are sorted
// by start, found by binary search on a running maximum of their ends, and
// spans narrower than a pixel are merged into one grey cluster, so the DOM
// holds at most a few elements per pixel column and row whatever the log's
// size. Everything is inline; nothing is fetched.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("swimlane-data").textContent);
  var F = 8; // integers per span: lane, level, ts, dur, name, attrs, class, inv
  var LABEL_W = 230, ROW_H = 16, LANE_PAD = 3, AXIS_H = 22, UTIL_ROW = 6;
  var S = D.spans, nSpans = S.length / F;
  var total = Math.max(D.t1, 1);

  var mainDiv = document.getElementById("main");
  var svg = document.getElementById("lanes");
  var axis = document.getElementById("axis");
  var util = document.getElementById("util");
  var tip = document.getElementById("tooltip");
  var rangeEl = document.getElementById("range");
  var bindSel = document.getElementById("bind");

  // Rows: per lane and level, span indices by start, and the running
  // maximum of their ends for the binary search.
  var rows = [], laneY = [], laneH = [];
  (function () {
    var lists = D.lanes.map(function (l) {
      var a = [];
      for (var k = 0; k < Math.max(1, l.levels); k++) a.push([]);
      return a;
    });
    for (var i = 0; i < nSpans; i++) lists[S[i * F]][S[i * F + 1]].push(i);
    var y = 0;
    D.lanes.forEach(function (l, li) {
      laneY.push(y);
      var h = Math.max(1, l.levels) * ROW_H + 2 * LANE_PAD;
      laneH.push(h);
      lists[li].forEach(function (idx, level) {
        var maxEnd = new Float64Array(idx.length), m = -Infinity;
        for (var k = 0; k < idx.length; k++) {
          var e = S[idx[k] * F + 2] + S[idx[k] * F + 3];
          if (e > m) m = e;
          maxEnd[k] = m;
        }
        rows.push({ lane: li, level: level, idx: idx, maxEnd: maxEnd, y: y + LANE_PAD + level * ROW_H });
      });
      y += h;
    });
    laneY.push(y);
  })();
  var height = Math.max(laneY[laneY.length - 1], 20);

  var view = { a: 0, b: total };
  var W = 800;

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function fmtDur(ns) {
    var a = Math.abs(ns);
    if (a < 1e3) return ns.toFixed(0) + " ns";
    if (a < 1e6) return (ns / 1e3).toFixed(3) + " µs";
    if (a < 1e9) return (ns / 1e6).toFixed(3) + " ms";
    return (ns / 1e9).toFixed(3) + " s";
  }
  function fmtTick(ns, step) {
    var unit = 1, name = "ns";
    if (step >= 1e6) { unit = 1e6; name = "ms"; } else if (step >= 1e3) { unit = 1e3; name = "µs"; }
    var dec = Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9));
    return (ns / unit).toFixed(dec) + " " + name;
  }
  function plotWidth() {
    return Math.max(200, (mainDiv.clientWidth || document.documentElement.clientWidth || 1000) - LABEL_W);
  }
  function xOf(t) { return LABEL_W + (t - view.a) / (view.b - view.a) * W; }
  function tOf(x) { return view.a + (x - LABEL_W) / W * (view.b - view.a); }

  function setView(a, b) {
    var len = b - a;
    var minLen = 50, maxLen = total * 1.2;
    if (!(len >= minLen)) { var c = (a + b) / 2; a = c - minLen / 2; b = c + minLen / 2; len = minLen; }
    if (len > maxLen) { a = (total - maxLen) / 2; b = a + maxLen; len = maxLen; }
    if (a < -len / 2) { a = -len / 2; b = a + len; }
    if (b > total + len / 2) { b = total + len / 2; a = b - len; }
    view.a = a; view.b = b;
    schedule();
  }
  function zoom(factor, center) {
    if (center === undefined) center = (view.a + view.b) / 2;
    setView(center - (center - view.a) * factor, center + (view.b - center) * factor);
  }
  function pan(frac) {
    var d = (view.b - view.a) * frac;
    setView(view.a + d, view.b + d);
  }

  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; render(); });
  }

  function ticks() {
    var len = view.b - view.a, raw = len / Math.max(1, W / 110);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * p; }).filter(function (s) { return s >= raw; })[0];
    var out = [];
    for (var t = Math.ceil(view.a / step) * step; t <= view.b; t += step) out.push(t);
    return { step: step, at: out };
  }

  var rendered = 0;
  function render() {
    W = plotWidth();
    var full = LABEL_W + W;
    var p = [];
    for (var li = 0; li < D.lanes.length; li++) {
      p.push('<rect class="lane-bg' + (li % 2 ? " odd" : "") + '" x="0" y="' + laneY[li] + '" width="' + full + '" height="' + laneH[li] + '"/>');
    }
    var tk = ticks();
    tk.at.forEach(function (t) {
      var x = xOf(t).toFixed(1);
      p.push('<line class="tick" x1="' + x + '" x2="' + x + '" y1="0" y2="' + height + '"/>');
    });
    D.gaps.forEach(function (g, gi) {
      if (g.ts + g.dur < view.a || g.ts > view.b) return;
      var x0 = Math.max(LABEL_W, xOf(g.ts)), x1 = Math.min(full, xOf(g.ts + g.dur));
      p.push('<rect class="gap" data-g="' + gi + '" x="' + x0.toFixed(1) + '" y="' + laneY[g.lane] + '" width="' + Math.max(1, x1 - x0).toFixed(1) + '" height="' + laneH[g.lane] + '"/>');
    });
    var count = 0;
    rows.forEach(function (r) {
      var idx = r.idx, me = r.maxEnd, lo = 0, hi = idx.length;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (me[mid] < view.a) lo = mid + 1; else hi = mid; }
      var clu = null;
      function flush() {
        if (!clu) return;
        if (clu.n === 1) {
          p.push(spanRect(clu.i, clu.x0, Math.max(1, clu.x1 - clu.x0), r.y));
        } else {
          p.push('<rect class="cluster" data-n="' + clu.n + '" data-a="' + clu.ta + '" data-b="' + clu.tb + '" x="' + clu.x0.toFixed(1) + '" y="' + (r.y + 1) + '" width="' + Math.max(1, clu.x1 - clu.x0).toFixed(1) + '" height="' + (ROW_H - 2) + '"/>');
        }
        count++;
        clu = null;
      }
      for (var k = lo; k < idx.length; k++) {
        var i = idx[k], ts = S[i * F + 2], dur = S[i * F + 3];
        if (ts > view.b) break;
        if (ts + dur < view.a) continue;
        var x0 = Math.max(LABEL_W, xOf(ts)), x1 = Math.min(full, xOf(ts + dur));
        if (x1 - x0 < 1) {
          if (clu && x0 <= clu.x1 + 1) {
            clu.x1 = Math.max(clu.x1, x1, clu.x0 + 1); clu.n++; clu.tb = Math.max(clu.tb, ts + dur);
            continue;
          }
          flush();
          clu = { i: i, x0: x0, x1: x1, n: 1, ta: ts, tb: ts + dur };
          continue;
        }
        flush();
        p.push(spanRect(i, x0, x1 - x0, r.y));
        count++;
      }
      flush();
    });
    // Lane labels last, over a band that hides what lies left of the axis.
    p.push('<rect x="0" y="0" width="' + LABEL_W + '" height="' + height + '" fill="#fff" opacity=".93"/>');
    for (li = 0; li < D.lanes.length; li++) {
      var l = D.lanes[li];
      var sub = "pid " + l.pid + " tid " + l.tid;
      if (laneH[li] >= 28) {
        p.push('<text class="lane-label" data-lane="' + li + '" x="6" y="' + (laneY[li] + 12) + '">' + esc(l.name) + '</text>');
        p.push('<text class="lane-sub" x="6" y="' + (laneY[li] + 24) + '">' + sub + "</text>");
      } else {
        p.push('<text class="lane-label" data-lane="' + li + '" x="6" y="' + (laneY[li] + 12) + '">' + esc(l.name) + ' <tspan class="lane-sub">tid ' + l.tid + "</tspan></text>");
      }
    }
    svg.setAttribute("width", full);
    svg.setAttribute("height", height);
    svg.innerHTML = p.join("");
    rendered = count;

    var a = ['<rect x="0" y="0" width="' + full + '" height="' + AXIS_H + '" fill="#fafafa"/>'];
    tk.at.forEach(function (t) {
      var x = xOf(t);
      a.push('<line class="tick" x1="' + x.toFixed(1) + '" x2="' + x.toFixed(1) + '" y1="14" y2="' + AXIS_H + '" stroke="#999"/>');
      if (x + 56 < full) a.push('<text class="tick-label" x="' + (x + 2).toFixed(1) + '" y="12">' + fmtTick(t, tk.step) + "</text>");
    });
    a.push('<text class="tick-label" x="6" y="12">time from log start</text>');
    axis.setAttribute("width", full);
    axis.setAttribute("height", AXIS_H);
    axis.innerHTML = a.join("");

    var vp = document.getElementById("viewport");
    if (vp) {
      var ux0 = LABEL_W + Math.max(0, view.a) / total * W, ux1 = LABEL_W + Math.min(total, view.b) / total * W;
      vp.setAttribute("x", ux0.toFixed(1));
      vp.setAttribute("width", Math.max(2, ux1 - ux0).toFixed(1));
    }
    rangeEl.textContent = "view " + fmtDur(view.a) + " – " + fmtDur(view.b) + " (" + fmtDur(view.b - view.a) + ") of " + fmtDur(total) + ", " + count + " shapes";
    document.body.dataset.viewA = String(view.a);
    document.body.dataset.viewB = String(view.b);
  }

  function spanRect(i, x, w, y) {
    var cls = D.keys[S[i * F + 6]];
    var s = '<rect class="span c-' + cls + '" data-i="' + i + '" x="' + x.toFixed(1) + '" y="' + (y + 1) + '" width="' + w.toFixed(1) + '" height="' + (ROW_H - 2) + '"/>';
    if (w > 40) {
      var name = D.names[S[i * F + 4]], leaf = name.slice(name.lastIndexOf(".") + 1);
      var max = Math.floor((w - 4) / 6);
      if (leaf.length > max) leaf = leaf.slice(0, Math.max(0, max - 1)) + "…";
      if (leaf.length > 0) s += '<text class="span-label" x="' + (x + 2).toFixed(1) + '" y="' + (y + ROW_H - 4) + '">' + esc(leaf) + "</text>";
    }
    return s;
  }

  function renderUtil() {
    var rowsH = D.lanes.length * UTIL_ROW;
    var full = LABEL_W + W;
    var p = ['<text class="util-label" x="6" y="10">utilisation, whole log (click to go)</text>'];
    var bw = W / D.bins;
    D.lanes.forEach(function (l, li) {
      var y = 14 + li * UTIL_ROW;
      for (var b = 0; b < l.util.length; b++) {
        if (l.util[b] > 0) {
          p.push('<rect class="util-cell" x="' + (LABEL_W + b * bw).toFixed(1) + '" y="' + y + '" width="' + Math.max(0.6, bw).toFixed(2) + '" height="' + (UTIL_ROW - 1) + '" opacity="' + (0.15 + 0.85 * l.util[b] / 100).toFixed(2) + '"><title>' + esc(l.name) + ": " + l.util[b] + "% busy</title></rect>");
        }
      }
    });
    p.push('<rect id="viewport" class="viewport" x="' + LABEL_W + '" y="12" width="' + W + '" height="' + (rowsH + 3) + '"/>');
    util.setAttribute("width", full);
    util.setAttribute("height", rowsH + 16);
    util.innerHTML = p.join("");
  }

  function showTip(e) {
    var t = e.target, text = null;
    if (t.dataset && t.dataset.i !== undefined) {
      var i = +t.dataset.i, li = S[i * F];
      var attrs = D.attrs[S[i * F + 5]];
      text = D.names[S[i * F + 4]] + "\n" +
        "duration " + fmtDur(S[i * F + 3]) + "\n" +
        "ts +" + fmtDur(S[i * F + 2]) + " from log start (" + (D.t0 + S[i * F + 2]) + " ns)\n" +
        "lane " + D.lanes[li].name + " (pid " + D.lanes[li].pid + ", tid " + D.lanes[li].tid + "), inv " + S[i * F + 7] +
        (attrs ? "\n" + attrs.split(/\s+/).join("\n") : "");
    } else if (t.dataset && t.dataset.g !== undefined) {
      var g = D.gaps[+t.dataset.g];
      text = g.label + "\nfrom +" + fmtDur(g.ts) + ", " + fmtDur(g.dur);
    } else if (t.dataset && t.dataset.n !== undefined) {
      text = t.dataset.n + " spans between +" + fmtDur(+t.dataset.a) + " and +" + fmtDur(+t.dataset.b) + " (zoom in)";
    }
    if (text === null) { tip.hidden = true; return; }
    tip.textContent = text;
    tip.hidden = false;
    var x = e.clientX + 14, y = e.clientY + 14;
    var r = tip.getBoundingClientRect();
    if (x + r.width > window.innerWidth) x = Math.max(0, e.clientX - r.width - 8);
    if (y + r.height > window.innerHeight) y = Math.max(0, e.clientY - r.height - 8);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  // Controls.
  D.binds.forEach(function (b, i) {
    var o = document.createElement("option");
    o.value = String(i);
    o.textContent = b.label;
    bindSel.appendChild(o);
  });
  function goBind(i) {
    if (i < 0 || i >= D.binds.length) { setView(0, total); return; }
    var b = D.binds[i], pad = Math.max(b.dur * 0.03, 100);
    setView(b.ts - pad, b.ts + b.dur + pad);
  }
  bindSel.addEventListener("change", function () { goBind(+bindSel.value); });
  document.getElementById("zoomin").addEventListener("click", function () { zoom(0.5); });
  document.getElementById("zoomout").addEventListener("click", function () { zoom(2); });
  document.getElementById("reset").addEventListener("click", function () { bindSel.value = "-1"; setView(0, total); });
  var legend = document.getElementById("legend");
  D.classes.forEach(function (c, i) {
    var s = document.createElement("span");
    s.innerHTML = '<i class="c-' + D.keys[i] + '"></i>';
    s.appendChild(document.createTextNode(c));
    legend.appendChild(s);
  });
  if (D.gaps.length) {
    var gs = document.createElement("span");
    gs.innerHTML = '<i style="background:rgba(220,30,30,.25)"></i>';
    gs.appendChild(document.createTextNode("gap (hbgtrace gaps)"));
    legend.appendChild(gs);
  }

  mainDiv.addEventListener("wheel", function (e) {
    e.preventDefault();
    var rect = svg.getBoundingClientRect();
    var x = e.clientX - rect.left;
    if (e.shiftKey) { pan(e.deltaY / 1000); return; }
    zoom(Math.exp(e.deltaY * 0.0015), x > LABEL_W ? tOf(x) : undefined);
  }, { passive: false });
  var drag = null;
  mainDiv.addEventListener("mousedown", function (e) {
    if (e.button !== 0) return;
    drag = { x: e.clientX, a: view.a, b: view.b };
    mainDiv.classList.add("dragging");
    e.preventDefault();
  });
  window.addEventListener("mousemove", function (e) {
    if (drag) {
      var dt = (e.clientX - drag.x) / W * (drag.b - drag.a);
      setView(drag.a - dt, drag.b - dt);
      tip.hidden = true;
      return;
    }
  });
  window.addEventListener("mouseup", function () { drag = null; mainDiv.classList.remove("dragging"); });
  svg.addEventListener("mousemove", function (e) { if (!drag) showTip(e); });
  svg.addEventListener("mouseleave", function () { tip.hidden = true; });
  function utilGo(e) {
    var rect = util.getBoundingClientRect();
    var t = (e.clientX - rect.left - LABEL_W) / W * total;
    var len = view.b - view.a;
    setView(t - len / 2, t + len / 2);
  }
  util.addEventListener("click", utilGo);
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "SELECT") return;
    switch (e.key) {
      case "w": case "W": case "+": case "=": zoom(0.7); break;
      case "s": case "S": case "-": case "_": zoom(1 / 0.7); break;
      case "a": case "A": case "ArrowLeft": pan(-0.2); break;
      case "d": case "D": case "ArrowRight": pan(0.2); break;
      case "0": case "Home": bindSel.value = "-1"; setView(0, total); break;
      default: return;
    }
    e.preventDefault();
  });
  window.addEventListener("resize", function () { W = plotWidth(); renderUtil(); schedule(); });

  W = plotWidth();
  renderUtil();
  render();
  // For scripts and tests: the view and what is drawn.
  window.hbgSwimlane = {
    view: function () { return [view.a, view.b]; },
    setView: function (a, b) { setView(a, b); render(); },
    goBind: function (i) { goBind(i); render(); },
    spans: nSpans,
    lanes: D.lanes.length,
    shapes: function () { return rendered; }
  };
})();
