// The results panel's "Performance" part (#16, docs/judge.md "Profile"): who
// measured it, the estimated time (emulator: a model's estimate, never a
// measurement) with the model's stated accuracy, the roofline (uPlot, log-log)
// or, where the exercise has no flop model, the bandwidth bars, the metrics per
// kernel beside the learner's previous profiled attempt (served by the server:
// GET /api/submissions/<id> → previous_profile) with the change, and the findings
// with the lesson that teaches the fix. No inline handlers: the CSP allows none.
(function () {
  "use strict";
  const K = window.KDojo;
  const S = K.S;
  const lang = (K.page && K.page.lang) || "ko";
  const num3 = new Intl.NumberFormat(lang, { maximumSignificantDigits: 3 });
  const num2 = new Intl.NumberFormat(lang, { maximumFractionDigits: 2 });
  const num1 = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 });
  const compact = new Intl.NumberFormat(lang, { notation: "compact", maximumSignificantDigits: 3 });

  const el = K.el;

  const isNum = (v) => typeof v === "number" && isFinite(v);

  // One row per metric: [key, value, ideal, unit, better]; unit "%" values are
  // percentages (changes in percentage points); better says which way is good.
  function rows(k) {
    const m = k.metrics || {}, r = k.resources || {}, o = k.occupancy || {};
    return [
      ["load_sectors", m.global_load_sectors_per_request, m.global_load_ideal_sectors_per_request, "", "lower"],
      ["store_sectors", m.global_store_sectors_per_request, m.global_store_ideal_sectors_per_request, "", "lower"],
      ["shared_wavefronts", m.shared_wavefronts_per_request, m.shared_ideal_wavefronts_per_request, "", "lower"],
      ["lanes_active", m.warp_execution_efficiency_pct, 100, "%", "higher"],
      ["global_lanes_active", m.global_lanes_active_pct, 100, "%", "higher"],
      ["atomics_per_address", m.atomics_per_address_mean, null, "", "lower"],
      ["dram", m.dram_throughput_pct, null, "%", "higher"],
      ["tensor_pipe", m.tensor_pipe_pct, null, "%", "higher"],
      ["registers", r.registers_per_thread, null, "", null],
      ["shared_bytes", isNum(r.static_shared_bytes) ? r.static_shared_bytes + (k.dynamic_shared_bytes || 0) : null, null, "", null],
      ["spills", r.spill_bytes, 0, "", "lower"],
      ["occupancy", o.theoretical_pct, null, "%", "higher"],
      ["achieved_occupancy", m.achieved_occupancy_pct, null, "%", "higher"],
    ];
  }

  function fmtValue(v, unit) {
    if (!isNum(v)) return "—";
    return num2.format(v) + (unit || "");
  }

  // "−28", "+12.5%p": the change from the previous attempt, and whether it is for the better.
  function change(now, before, unit, better) {
    if (!isNum(now) || !isNum(before)) return null;
    const d = Math.round((now - before) * 100) / 100;
    if (d === 0) return { text: "0", cls: "same" };
    const sign = d > 0 ? "+" : "−";
    const mag = num2.format(Math.abs(d));
    const text = unit === "%" ? K.fmt(S["profile.points"], { n: sign + mag }) : sign + mag;
    const cls = !better ? "changed" : (d < 0) === (better === "lower") ? "better" : "worse";
    return { text, cls };
  }

  function limiterText(k) {
    const o = k.occupancy || {};
    return o.limiter && o.limiter !== "none" ? " (" + (S["profile.limiter." + o.limiter] || o.limiter) + ")" : "";
  }

  function metricsTable(k, before) {
    const head = el("tr", {}, el("th", { text: k.name }), el("th", { text: S["profile.this_attempt"] }),
      el("th", { text: S["profile.ideal"] }));
    if (before) head.append(el("th", { text: S["profile.previous"] }), el("th", { text: S["profile.change"] }));
    const table = el("table", { class: "profile-metrics", "data-kernel": k.name }, el("thead", {}, head));
    const body = el("tbody");
    const old = before ? Object.fromEntries(rows(before).map((r) => [r[0], r])) : {};
    for (const [key, value, ideal, unit, better] of rows(k)) {
      if (!isNum(value)) continue;
      const suffix = key === "occupancy" ? limiterText(k) : "";
      const row = el("tr", { "data-metric": key }, el("th", { scope: "row", text: S["profile.m." + key] || key }),
        el("td", { class: "now", text: fmtValue(value, unit) + suffix }), el("td", { class: "ideal", text: fmtValue(ideal, unit) }));
      if (before) {
        const prev = old[key] ? old[key][1] : null;
        const c = change(value, prev, unit, better);
        row.append(el("td", { class: "previous", text: fmtValue(prev, unit) }));
        const cell = el("td", { class: "change" + (c ? " " + c.cls : ""), text: c ? c.text : "—" });
        if (c && (c.cls === "better" || c.cls === "worse")) cell.title = S["profile." + c.cls];
        row.append(cell);
      }
      body.append(row);
    }
    table.append(body);
    return table;
  }

  // The estimated time (emulator only), always called an estimate, with the
  // model's accuracy as measured on a real GPU (or that it is not measured yet).
  function estimateBlock(est, previous) {
    const box = el("div", { class: "profile-estimate" });
    const ms = num3.format(est.time_ms);
    const line = el("p", { class: "estimate-time" },
      el("span", { class: "estimate-label", text: S["profile.estimate_label"] }), " ",
      el("strong", { class: "estimate-value", text: K.fmt(S["profile.estimate_time"], { ms, gpu: est.gpu, case: est.case }) }));
    if (est.bound) line.append(" · ", el("span", { class: "estimate-bound", text: K.fmt(S["profile.bound"], { what: S["profile.bound." + est.bound] || est.bound }) }));
    const prev = previous && previous.estimate;
    if (prev && isNum(prev.time_ms) && prev.case === est.case && prev.gpu === est.gpu) {
      const pct = Math.round(100 * (est.time_ms - prev.time_ms) / prev.time_ms);
      line.append(" · ", el("span", { class: "estimate-previous", text: K.fmt(S["profile.estimate_previous"], {
        ms: num3.format(prev.time_ms), change: (pct > 0 ? "+" : pct < 0 ? "−" : "") + Math.abs(pct) + "%" }) }));
    }
    box.append(line);
    if (est.counted_case && est.counted_case !== est.case) {
      box.append(el("p", { class: "estimate-scaled", text: K.fmt(S["profile.estimate_scaled"], { counted: est.counted_case, case: est.case }) }));
    }
    // The judge's only note today: inline-PTX tensor code, whose fallback path was counted.
    if (est.note) box.append(el("p", { class: "estimate-note", text: S["profile.estimate_fallback"] }));
    const acc = est.accuracy || {};
    const text = isNum(acc.median_abs_error_pct) && isNum(acc.spearman)
      ? K.fmt(S["profile.accuracy"], { gpu: est.gpu, error: num1.format(acc.median_abs_error_pct), rho: num2.format(acc.spearman), n: acc.kernels || 0 })
      : S["profile.accuracy_unknown"];
    box.append(el("p", { class: "estimate-accuracy", text }));
    return box;
  }

  function whoLabel(p) {
    const who = S["profile.who." + p.who] || p.who;
    return K.fmt(S["profile.point_label"], { who, kind: S["profile.kind." + p.kind] || p.kind });
  }

  // [{label, cls, point}] to plot: this attempt, the reference, the framework, the previous attempt.
  function plotted(roof, previousRoof) {
    const out = [];
    for (const p of roof.points || []) out.push({ label: whoLabel(p), cls: p.who, point: p });
    const prev = previousRoof && previousRoof.case === roof.case && previousRoof.gpu === roof.gpu
      ? (previousRoof.points || []).find((p) => p.who === "attempt") : null;
    if (prev) out.push({ label: K.fmt(S["profile.point_label"], { who: S["profile.who.previous"], kind: S["profile.kind." + prev.kind] || prev.kind }), cls: "previous", point: prev });
    return out;
  }

  const COLORS = { attempt: "#3a63d8", previous: "#8e99b3", reference: "#1b8a4b", framework: "#b7791f" };

  // Log-log roofline: min(intensity × bandwidth, compute) for FP32 (and the tensor
  // pipe where the GPU has one), the points by FLOP/byte and GFLOP/s.
  function rooflineChart(roof, marks, width) {
    const bw = roof.bandwidth_gbs, fp32 = roof.compute_gflops, tensor = roof.tensor_gflops;
    const xsPts = marks.map((m) => m.point.intensity);
    const knee = fp32 / bw, kneeT = isNum(tensor) ? tensor / bw : null;
    const lo = Math.pow(10, Math.floor(Math.log10(Math.min(...xsPts, knee) / 4)));
    const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...xsPts, kneeT || knee) * 4)));
    const xs = Array.from(new Set([lo, knee, hi, ...xsPts, ...(kneeT ? [kneeT] : [])])).sort((a, b) => a - b);
    const roofAt = (peak) => xs.map((x) => Math.min(x * bw, peak));
    const ink = getComputedStyle(document.body).color || "#1d1f24";
    const data = [xs, roofAt(fp32)];
    const series = [{ label: S["profile.roofline.x"], value: (u, v) => v == null ? "—" : num3.format(v) },
      { label: K.fmt(S["profile.roofline.fp32"], { gflops: num3.format(fp32), gbs: num3.format(bw) }), stroke: ink, width: 2, points: { show: false } }];
    if (kneeT) {
      data.push(roofAt(tensor));
      series.push({ label: K.fmt(S["profile.roofline.tensor"], { gflops: num3.format(tensor) }), stroke: ink, width: 1, dash: [6, 4], points: { show: false } });
    }
    for (const m of marks) {
      data.push(xs.map((x) => x === m.point.intensity ? m.point.gflops : null));
      series.push({ label: m.label, stroke: COLORS[m.cls] || ink, fill: COLORS[m.cls] || ink, paths: () => null,
        points: { show: true, size: m.cls === "attempt" ? 12 : 9, fill: COLORS[m.cls] || ink, stroke: COLORS[m.cls] || ink },
        value: (u, v) => v == null ? "—" : num3.format(v) + " GFLOP/s" });
    }
    const ys = data.slice(1).flat().filter(isNum);
    const ylo = Math.pow(10, Math.floor(Math.log10(Math.min(...ys)))), yhi = Math.pow(10, Math.ceil(Math.log10(Math.max(...ys) * 1.5)));
    // a log axis's splits include 2…9 × 10^k: only the powers of ten get a line and a label
    const decade = (v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
    const filter = (u, splits) => splits.map((v) => decade(v) ? v : null);
    const tick = (u, splits) => splits.map((v) => v == null ? "" : compact.format(v));
    const axis = (label) => ({ label, stroke: ink, values: tick, filter, grid: { stroke: "rgba(128,128,128,0.25)", filter },
      ticks: { stroke: "rgba(128,128,128,0.5)", filter } });
    const host = el("div", { class: "roofline-chart" });
    const opts = { width, height: 300, legend: { live: false },
      scales: { x: { time: false, distr: 3, log: 10, range: () => [lo, hi] }, y: { distr: 3, log: 10, range: () => [ylo, yhi] } },
      axes: [axis(S["profile.roofline.x"]), Object.assign(axis(S["profile.roofline.y"]), { size: 60 })],
      cursor: { show: false }, series };
    host.plot = window.uPlot ? new window.uPlot(opts, data, host) : null;
    return host;
  }

  const pos = (v) => isNum(v) && v > 0;

  // Without both a flop and a byte model a kernel has no place on the roofline:
  // its GB/s against the DRAM ceiling (no flop model) or its GFLOP/s against the
  // compute ceiling (no byte model), as bars. `key` is the point's field.
  function bars(marks, key, ceiling, template) {
    const fig = el("div", { class: "roofline-bars" });
    for (const m of marks) {
      const value = m.point[key];
      if (!pos(value)) continue;
      const pct = 100 * value / ceiling;
      fig.append(el("div", { class: "bench-row roofline-bar " + m.cls, "data-who": m.cls },
        el("span", { class: "bench-label", text: m.label }),
        el("span", { class: "bench-bar", style: `width:${Math.max(1, Math.min(100, pct)).toFixed(1)}%` }),
        el("span", { class: "bench-ms", text: K.fmt(S[template], { value: num3.format(value), pct: Math.round(pct) }) })));
    }
    return fig;
  }

  function roofline(roof, previousRoof, width) {
    if (!roof) return null;
    const marks = plotted(roof, previousRoof);
    const byFlops = marks.filter((m) => pos(m.point.intensity) && pos(m.point.gflops));
    const fig = el("figure", { class: "roofline", "data-case": roof.case || "" });
    const values = { gpu: roof.gpu, case: roof.case };
    if (byFlops.length && pos(roof.compute_gflops) && pos(roof.bandwidth_gbs)) {
      fig.dataset.kind = "roofline";
      fig.append(el("figcaption", { text: K.fmt(S["profile.roofline.title"], values) }), rooflineChart(roof, byFlops, width));
      // the chart's points in words (what a screen reader, or a reader of a small screen, gets)
      const list = el("ul", { class: "roofline-points" });
      for (const m of byFlops) list.append(el("li", { "data-who": m.cls, text: K.fmt(S["profile.roofline.point"], {
        who: m.label, intensity: num3.format(m.point.intensity), gflops: num3.format(m.point.gflops), ms: num3.format(m.point.time_ms) }) }));
      fig.append(list);
    } else if (pos(roof.bandwidth_gbs) && marks.some((m) => pos(m.point.gbs))) {
      fig.dataset.kind = "bandwidth";
      fig.append(el("figcaption", { text: K.fmt(S["profile.roofline.title_bw"], { ...values, gbs: num3.format(roof.bandwidth_gbs) }) }),
        bars(marks, "gbs", roof.bandwidth_gbs, "profile.roofline.gbs_pct"));
    } else if (pos(roof.compute_gflops) && marks.some((m) => pos(m.point.gflops))) {
      // past the FP32 ceiling only the tensor cores go: then theirs is the one to compare with
      const tensor = pos(roof.tensor_gflops) && marks.some((m) => m.point.gflops > roof.compute_gflops);
      const ceiling = tensor ? roof.tensor_gflops : roof.compute_gflops;
      fig.dataset.kind = "compute";
      fig.append(el("figcaption", { text: K.fmt(S[tensor ? "profile.roofline.title_tensor" : "profile.roofline.title_fp32"], { ...values, gflops: num3.format(ceiling) }) }),
        bars(marks, "gflops", ceiling, "profile.roofline.gflops_pct"));
    } else {
      return null;
    }
    return fig;
  }

  // box: the panel's .profile part; prof: this attempt's profile; previous: the
  // server's previous_profile ({submission_id, profile}) or null; message: the
  // results panel's finding translator.
  function render(box, prof, previous, message) {
    const before = previous && previous.profile;
    box.replaceChildren(el("h4", { text: S["profile.title"] }),
      el("p", { class: "profile-source", text: K.fmt(S["profile.source_" + prof.source] || prof.source, prof) }));
    if (before) box.append(el("p", { class: "profile-previous-note", "data-submission": String(previous.submission_id),
      text: K.fmt(S["profile.previous_note"], { id: previous.submission_id }) }));
    if (prof.estimate && isNum(prof.estimate.time_ms)) box.append(estimateBlock(prof.estimate, before));
    // as wide as the panel, between a phone's 280 px and 640 px
    const fig = roofline(prof.roofline, before && before.roofline, Math.max(280, Math.min(640, box.clientWidth || 560)));
    if (fig) box.append(fig);
    // what the counts below are of, where that is not simply the learner's kernel (profile.caveats)
    const caveats = (prof.caveats || []).filter((c) => S["profile.caveat." + c]);
    if (caveats.length) {
      box.append(el("ul", { class: "profile-caveats" },
        ...caveats.map((c) => el("li", { "data-caveat": c, text: S["profile.caveat." + c] }))));
    }
    for (const k of prof.kernels) {
      const old = before && (before.kernels || []).find((p) => p.name === k.name);
      box.append(metricsTable(k, old));
    }
    if (!prof.findings || !prof.findings.length) { box.append(el("p", { class: "profile-clean", text: S["profile.no_findings"] })); return; }
    const list = el("ul", { class: "profile-findings" });
    for (const f of prof.findings) {
      const item = el("li", { "data-code": f.code },
        el("span", { text: message({ message_code: f.code, message_params: f.params, message: f.message }) }));
      if (f.lesson) item.append(" — ", el("a", { href: f.lesson, text: S["profile.lesson"] }));
      list.append(item);
    }
    box.append(list);
  }

  // An accepted attempt without a profile: why (the page knows the staff's switches).
  function none(box, state) {
    box.replaceChildren(el("h4", { text: S["profile.title"] }),
      el("p", { class: "profile-off", "data-state": state, text: S["profile.off." + state] || S["profile.off.on"] }));
  }

  window.KDojoPerformance = { render, none, rows };
})();
