import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * uPlot (MIT, pinned in package.json), read from the installed package and
 * inlined so the report stays one self-contained file.
 */
export function uplotAssets(): { js: string; css: string } {
  const require = createRequire(import.meta.url);
  const dir = require.resolve("uplot/package.json").replace(/package\.json$/, "dist/");
  return { js: readFileSync(`${dir}uPlot.iife.min.js`, "utf8"), css: readFileSync(`${dir}uPlot.min.css`, "utf8") };
}

/**
 * The page's own script: draws every `.chart` from its embedded JSON with
 * uPlot, adds the guide lines and compaction markers, redraws on resize, and
 * opens a compaction's details when its marker is clicked. Plain ES2020, no
 * network.
 */
export const REPORT_SCRIPT = String.raw`
(function () {
  "use strict";
  var compact = function (v) {
    var a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1).replace(/\.0$/, "") + "M";
    if (a >= 1e3) return (v / 1e3).toFixed(a >= 1e4 ? 0 : 1).replace(/\.0$/, "") + "k";
    return String(Math.round(v));
  };
  var whole = function (v) { return v == null ? "–" : Math.round(v).toLocaleString("en-US"); };
  function heightFor(width) { return width < 560 ? 240 : 320; }

  function open(id) {
    var el = document.getElementById(id);
    if (!el) return;
    var prev = document.querySelector(".compaction.selected");
    if (prev) prev.classList.remove("selected");
    var section = el.closest("details.session-details");
    if (section) section.open = true;
    var list = el.closest("details.compactions");
    if (list) list.open = true;
    el.open = true;
    el.classList.add("selected");
    el.scrollIntoView({ block: "nearest" });
  }

  function drawExtras(u, data) {
    var ctx = u.ctx, dpr = devicePixelRatio || 1;
    var left = u.bbox.left, right = u.bbox.left + u.bbox.width;
    ctx.save();
    ctx.font = Math.round(11 * dpr) + "px system-ui, sans-serif";
    // Labels alternate right and left, so close lines (a threshold under the window) do not overprint.
    data.guides.forEach(function (g, i) {
      var y = u.valToPos(g.y, "y", true);
      if (y < u.bbox.top || y > u.bbox.top + u.bbox.height) return;
      ctx.strokeStyle = g.color; ctx.fillStyle = g.color; ctx.lineWidth = 1.5 * dpr;
      ctx.setLineDash(g.dash.map(function (d) { return d * dpr; }));
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(right, y); ctx.stroke();
      ctx.setLineDash([]);
      ctx.textAlign = i % 2 === 0 ? "right" : "left";
      ctx.fillText(g.label, i % 2 === 0 ? right - 4 * dpr : left + 4 * dpr, y - 4 * dpr);
    });
    data.markers.forEach(function (m) {
      var x = u.valToPos(m.x, "x", true), y = u.valToPos(m.y, "y", true), r = 6 * dpr;
      ctx.fillStyle = "#fff"; ctx.strokeStyle = data.series[m.series - 1].color; ctx.lineWidth = 2 * dpr;
      ctx.beginPath(); ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y); ctx.closePath();
      ctx.fill(); ctx.stroke();
    });
    ctx.restore();
  }

  /** The compaction marker nearest to a point of the plot (CSS pixels), within reach of a finger. */
  function nearestMarker(u, data, left, top) {
    var best = null, bestD = 18 * 18;
    data.markers.forEach(function (m) {
      var dx = u.valToPos(m.x, "x") - left, dy = u.valToPos(m.y, "y") - top, d = dx * dx + dy * dy;
      if (d <= bestD) { bestD = d; best = m; }
    });
    return best;
  }

  function build(box) {
    var data = JSON.parse(box.querySelector("script.chart-data").textContent);
    var target = box.querySelector(".plot");
    var width = Math.max(200, target.clientWidth);
    var fmt = data.unit === "percent" ? function (v) { return v == null ? "–" : v + "%"; } : whole;
    var yMax = Math.max(1, data.yMax || 0);
    data.series.forEach(function (s) { s.values.forEach(function (v) { if (v != null && v > yMax) yMax = v; }); });
    data.guides.forEach(function (g) { if (g.y > yMax) yMax = g.y; });
    var opts = {
      width: width,
      height: heightFor(width),
      scales: { x: { time: false }, y: { range: [0, data.yMax || yMax * 1.05] } },
      axes: [
        // Request numbers are whole: ticks only at whole steps.
        { label: data.xLabel, size: 44, incrs: [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000, 20000, 50000], values: function (u, ticks) { return ticks.map(function (t) { return String(Math.round(t)); }); } },
        { label: width < 560 ? "" : data.yLabel, size: 56, values: function (u, ticks) { return ticks.map(data.unit === "percent" ? function (t) { return t + "%"; } : compact); } },
      ],
      cursor: { points: { size: 8 }, drag: { x: false, y: false } },
      legend: { live: true },
      series: [{ label: "request", value: function (u, v) { return v == null ? "–" : "#" + v; } }].concat(
        data.series.map(function (s) { return { label: s.name, stroke: s.color, width: 2, spanGaps: false, value: function (u, v) { return fmt(v); } }; }),
      ),
      hooks: {
        draw: [function (u) { drawExtras(u, data); }],
        // The values legend shows only while the pointer is over the plot.
        setCursor: [function (u) { box.classList.toggle("hovering", u.cursor.idx != null); }],
      },
    };
    var u = new uPlot(opts, [data.x].concat(data.series.map(function (s) { return s.values; })), target);
    box.uplot = u;
    if (data.markers.length) {
      u.over.style.cursor = "default";
      u.over.addEventListener("mousemove", function (e) {
        var m = nearestMarker(u, data, e.offsetX, e.offsetY);
        u.over.style.cursor = m ? "pointer" : "default";
        u.over.title = m ? m.label + " — click for the summary" : "";
      });
      u.over.addEventListener("click", function (e) {
        var m = nearestMarker(u, data, e.offsetX, e.offsetY);
        if (m) open(m.target);
      });
    }
    return u;
  }

  function start() {
    var boxes = Array.prototype.slice.call(document.querySelectorAll(".chart[data-chart]"));
    var charts = boxes.map(function (box) {
      try { return { box: box, u: build(box) }; }
      catch (err) { box.querySelector(".plot").textContent = "The chart could not be drawn: " + err; return null; }
    }).filter(Boolean);
    var pending = 0;
    window.addEventListener("resize", function () {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(function () {
        charts.forEach(function (c) {
          var w = Math.max(200, c.box.querySelector(".plot").clientWidth);
          c.u.setSize({ width: w, height: heightFor(w) });
        });
      });
    });
    // A link to a compaction (#compaction-…) opens it, as a marker click does; a link to a session
    // (the failed list at the top) unfolds it.
    var unfold = function () {
      if (location.hash.indexOf("#compaction-") === 0) return open(location.hash.slice(1));
      var el = location.hash.indexOf("#session-") === 0 ? document.getElementById(location.hash.slice(1)) : null;
      var d = el && el.querySelector("details.session-details");
      if (d) { d.open = true; el.scrollIntoView({ block: "start" }); }
    };
    window.addEventListener("hashchange", unfold);
    unfold();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
`;
