// /me: cumulative XP over time as a uPlot line.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", () => {
    const points = (window.KDojo.page.xpHistory || []);
    const host = document.getElementById("xp-chart");
    if (!host || !points.length || !window.uPlot) return;
    const xs = points.map((p) => Date.parse(p.t) / 1000);
    const ys = points.map((p) => p.xp);
    new window.uPlot({ width: Math.min(host.clientWidth || 640, 720), height: 220,
      series: [{}, { label: "XP", stroke: "#4b7bec", fill: "rgba(75,123,236,0.12)", points: { show: true } }] },
      [xs, ys], host);
  });
})();
