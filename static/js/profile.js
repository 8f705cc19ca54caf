// /me: cumulative XP over time as a uPlot line.
(function () {
  "use strict";
  const DAY_S = 24 * 3600;

  // The x range: the points' own span, at least a day on each side of a single
  // point (uPlot's automatic range around one value spans years); y from 0.
  function ranges(xs, ys) {
    let lo = Math.min(...xs), hi = Math.max(...xs);
    const pad = Math.max((hi - lo) * 0.05, lo === hi ? DAY_S : 3600);
    lo -= pad; hi += pad;
    return { x: { time: true, range: () => [lo, hi] }, y: { range: () => [0, Math.max(10, Math.max(...ys) * 1.15)] } };
  }

  // Tick and legend labels in the reader's language and time zone (uPlot's own
  // are English: "6:30am", "11/27/26" on the Korean page).
  function timeLabels(lang) {
    const clock = new Intl.DateTimeFormat(lang, { hour: "numeric", minute: "2-digit" });
    const day = new Intl.DateTimeFormat(lang, { month: "short", day: "numeric" });
    const full = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
    return {
      ticks: (u, splits, axis, space, incr) => {
        const texts = splits.map((s) => (incr < DAY_S ? clock : day).format(new Date(s * 1000)));
        u.root.parentElement.dataset.ticks = texts.join(" | ");  // drawn on a canvas: said here too, for tests
        return texts;
      },
      legend: (u, v) => (v == null ? "--" : full.format(new Date(v * 1000))),
    };
  }

  document.addEventListener("DOMContentLoaded", () => {
    const points = (window.KDojo.page.xpHistory || []);
    const host = document.getElementById("xp-chart");
    if (!host || !points.length || !window.uPlot) return;
    const xs = points.map((p) => Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(p.t) ? p.t : p.t + "Z") / 1000);
    const ys = points.map((p) => p.xp);
    host.dataset.range = JSON.stringify(ranges(xs, ys).x.range());
    const labels = timeLabels(window.KDojo.page.lang);
    new window.uPlot({ width: Math.min(host.clientWidth || 640, 720), height: 220, scales: ranges(xs, ys),
      axes: [{ values: labels.ticks, space: 90 }, {}],  // room for "오후 12:30"
      series: [{ label: window.KDojo.S.chart_time, value: labels.legend }, { label: "XP", stroke: "#4b7bec", fill: "rgba(75,123,236,0.12)", points: { show: true } }] },
      [xs, ys], host);
  });
})();
