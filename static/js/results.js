// The results panel: live stages, per-test results, compile errors, diagnostics,
// benchmark bars (learner vs naive vs framework vs hardware limit) and attempts.
(function () {
  "use strict";
  const K = window.KDojo;
  const S = K.S;
  const E = K.page.events; // the stream's event names (kernels.contract.Event)

  const el = K.el;

  function show(node, yes) { node.hidden = !yes; return node; }

  // A judge message in the reader's language from its code and parameters
  // (docs/judge.md); the English `message` when the code is unknown here.
  // `tests` lets "first: …" use the failing case's own translated message.
  function message(holder, tests) {
    const code = holder && holder.message_code;
    const p = Object.assign({}, (holder && holder.message_params) || {});
    const fallback = (holder && holder.message) || "";
    if (!code) return fallback;
    sharedParts(p);
    let key = "msg." + code;
    if (code === "tests_failed" || code === "case_failed") {
      const first = (tests || []).find((t) => t.name === p.case);
      if (!first) return fallback;
      p.first = p.case + ": " + message(first);
    } else if ((code === "compile_failed" || code === "rejected") && p.line) key += "_at";
    else if (code === "mismatch") p.never = p.never_written ? S["msg.never_written"] : "";
    else if (code === "fault" || code === "check_crash") p.name = S["fault." + p.name] || p.name;
    else if (code === "emu_no_memory" && S[key + "_" + p.what]) key += "_" + p.what;
    else if (code.startsWith("profile_")) {  // #16: the words inside a finding, translated too
      if (p.access) p.access = S["profile.access." + p.access] || p.access;
      if (p.limiter) p.limiter = S["profile.limiter." + p.limiter] || p.limiter;
    }
    else if (code === "race_order" || code === "bench_mismatch") p.mismatch = message({ message_code: "mismatch", message_params: p });
    else if (code === "shuffle_source" && !p.mask) key += "_gone";
    else if (code === "wrote_outside") {
      const parts = [];
      if (p.before) parts.push(K.fmt(S["msg.wrote_before"], p));
      if (p.after) parts.push(K.fmt(S["msg.wrote_after"], p));
      p.parts = parts.join(", ");
    }
    return S[key] ? K.fmt(S[key], p) : fallback;
  }

  // The parts the emulator's sentences share (#28, app/i18n_diagnostics.py): a region,
  // an element or byte offset, a thread of a block, a line, an access, a race's scope.
  function sharedParts(p) {
    const lineText = (line) => (line ? K.fmt(S.line, { line }) : S["msg.unknown_line"]);
    if (p.region) p.where_text = K.fmt(S["msg.region." + p.region] || p.region, p);
    if (p.index != null && p.offset != null) {
      p.at = p.index >= 0 ? K.fmt(S["msg.at_element"], p) : p.offset >= 0 ? K.fmt(S["msg.at_offset"], p) : "";
    }
    if (p.thread != null) p.who = K.fmt(S["msg.who"], p);
    if (p.other_thread != null) p.other_who = K.fmt(S["msg.who"], { thread: p.other_thread, block: p.other_block });
    if (p.line != null) p.at_line = lineText(p.line);
    if (p.other_line != null) p.other_at_line = lineText(p.other_line);
    if (p.access) { p.access_text = S["msg.access." + p.access] || p.access; p.access_verb = S["msg.verb." + p.access] || p.access; }
    if (p.other_access) {
      p.other_access_past = S["msg.verb_past." + p.other_access] || p.other_access;
      p.other_access_text = S["msg.access." + p.other_access] || p.other_access;
    }
    if (p.scope) p.scope_text = S["msg.race_scope." + p.scope] || "";
  }

  // The verdict's message after its name; the compiler's own text (a `detail` it
  // ends with) as code: it is the tool's, in the tool's language. A compile error
  // of our own (a policy, a signature, a constant: #28) is said in the reader's language.
  function verdictMessage(box, holder, tests) {
    const own = ownCompileError(holder);
    const text = own ? message(own.shown) : message(holder, tests);
    if (!text) return;
    // the part it ends with that is a tool's: the diagnostic's, or "first: …"'s failing test's
    const code = holder.message_code;
    const first = (code === "tests_failed" || code === "case_failed") &&
      (tests || []).find((t) => t.name === (holder.message_params || {}).case);
    const span = el("span", { class: "verdict-message", text: " — " });
    span.append(...toolFramed(own ? own.diagnostic : first || holder, text));
    box.append(span);
  }

  // A compile_failed/rejected verdict whose `detail` is its first error's coded sentence:
  // that sentence in the reader's language inside the verdict's frame.
  function ownCompileError(holder) {
    const code = holder.message_code;
    if ((code !== "compile_failed" && code !== "rejected") || !holder.compile) return null;
    const diagnostic = (holder.compile.diagnostics || []).find((d) => (d.severity || "error") === "error");
    const params = holder.message_params || {};
    if (!diagnostic || !diagnostic.message_code || diagnostic.message !== params.detail) return null;
    const detail = message(diagnostic);
    return { diagnostic, shown: { message_code: code, message_params: Object.assign({}, params, { detail }) } };
  }

  // `text` as nodes: what it ends with that is code, not prose, as code: the compiler's
  // own words (`detail`) or a kernel's declaration (`declaration`).
  function toolFramed(holder, text) {
    const p = holder.message_params || {};
    const tail = [p.detail, p.declaration].map((v) => String(v || "")).find((v) => v && text.endsWith(v));
    if (!tail) return [text];
    return [text.slice(0, -tail.length), el("code", { class: "tool-text", text: tail })];
  }

  // An attempt's source and its diff against the attempt before it (#28), as
  // templates/partials/_attempt_code.html renders them on /me.
  function attemptCode(r) {
    if (r.source == null) return "";
    const box = el("details", { class: "attempt-code", "data-submission": String(r.id) },
      el("summary", { text: S.attempt_code }), el("pre", { class: "attempt-source" }, el("code", { text: r.source })));
    if (r.diff == null) return box;
    box.append(el("p", { class: "attempt-diff-title", text: S.attempt_diff }));
    if (!r.diff) {
      box.append(el("p", { class: "attempt-same", text: S.attempt_same }));
      return box;
    }
    const pre = el("pre", { class: "attempt-diff" });
    for (const line of r.diff.split("\n")) {
      const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
      pre.append(el("span", { class: "diff-" + kind, text: line }), "\n");
    }
    box.append(pre);
    return box;
  }

  function verdictName(v) { return S["verdict." + v] || v; }

  class Panel {
    constructor(root) {
      this.root = root;
      this.parts = {};
      for (const name of ["results-idle", "stages", "verdict", "compile-errors", "tests", "diagnostics", "profile", "bench", "attempts"]) {
        this.parts[name] = root.querySelector("." + name);
      }
    }

    reset() {
      this.started = performance.now();
      this.stopClock();
      this.clock = setInterval(() => this.tick(), 100);
      show(this.parts["results-idle"], false);
      for (const name of ["verdict", "compile-errors", "tests", "diagnostics", "profile", "bench"]) {
        this.parts[name].replaceChildren(); show(this.parts[name], false);
      }
      this.parts.stages.replaceChildren(); show(this.parts.stages, true);
      this.root.dataset.state = "running";
    }

    // Back to "nothing judged yet" (another kernel language was chosen, #29).
    clear() {
      this.stopClock();
      for (const name of ["stages", "verdict", "compile-errors", "tests", "diagnostics", "profile", "bench", "attempts"]) {
        if (name !== "attempts") this.parts[name].replaceChildren();
        show(this.parts[name], false);
      }
      show(this.parts["results-idle"], true);
      delete this.root.dataset.state;
      delete this.root.dataset.verdict;
    }

    languageTitle(name) { return (K.page.languageTitles || {})[name] || name; }

    stopClock() { if (this.clock) clearInterval(this.clock); this.clock = null; }

    // Seconds since submit on the running stage, so a long test shows as one.
    tick() {
      const active = this.parts.stages.querySelector("li.active .elapsed");
      if (active) active.textContent = " · " + K.fmt(S.elapsed, { s: ((performance.now() - this.started) / 1000).toFixed(1) });
    }

    stage(kind, data) {
      const list = this.parts.stages;
      let text;
      if (kind === E.test_start) kind = E.testing;
      if (kind === E.queued) text = data && data.position ? K.fmt(S.queued_pos, data) : S.queued;
      // The judge counts from 0; learners count from 1.
      else if (kind === E.testing) text = K.fmt(S.testing, { index: data.index + 1, total: data.total });
      else if (kind === E.benchmarking) text = K.fmt(S.benchmarking, { index: data.index + 1, total: data.total });
      else text = S[kind] || kind;
      let item = list.querySelector(`[data-stage="${kind}"]`);
      if (!item) {
        list.querySelectorAll("li").forEach((li) => li.classList.replace("active", "finished"));
        item = el("li", { "data-stage": kind, class: "active" });
        list.append(item);
      }
      item.replaceChildren(el("span", { class: "stage-name", text }), el("span", { class: "elapsed" }));
      this.tick();
      if (kind === E.testing && data && data.test) this.testRow(data.test);
      if (kind === E.done) { item.classList.replace("active", "finished"); this.stopClock(); }
    }

    // The verdict as soon as the tests end (the benchmark may still be running).
    tested(data) {
      const v = show(this.parts.verdict, true);
      v.className = "verdict verdict-" + data.verdict;
      const tests = Array.from(this.parts.tests.children).map((li) => li.test).filter(Boolean);
      v.replaceChildren(el("strong", { class: "verdict-name", text: verdictName(data.verdict) }));
      verdictMessage(v, data, tests);
      this.root.dataset.verdict = data.verdict;
    }

    testRow(test) {
      const list = show(this.parts.tests, true);
      const ok = test.status === "pass";
      const row = el("li", { class: "test " + (ok ? "pass" : "fail"), "data-status": test.status },
        el("span", { class: "test-status", text: S[test.status] || test.status }),
        el("span", { class: "test-name", text: test.name }));
      if (test.message) row.append(el("pre", { class: "test-message" }, ...toolFramed(test, message(test))));
      row.test = test;
      if (test.output) row.append(el("details", {}, el("summary", { text: S.output }), el("pre", { text: test.output })));
      const existing = Array.from(list.children).find((li) => li.dataset.name === test.name);
      row.dataset.name = test.name;
      if (existing) existing.replaceWith(row); else list.append(row);
    }

    // The stored v1 document, once the verdict is in.
    final(sub, editorView, extra) {
      const result = sub.result || {};
      const verdict = sub.verdict || result.verdict || "internal_error";
      this.stopClock();
      this.root.dataset.state = "done";
      this.root.dataset.verdict = verdict;
      const v = show(this.parts.verdict, true);
      v.className = "verdict verdict-" + verdict;
      v.replaceChildren(el("strong", { class: "verdict-name", text: verdictName(verdict) }));
      v.dataset.language = sub.language || "cuda";
      if (this.showLanguage) v.append(el("span", { class: "verdict-language", text: " · " + this.languageTitle(sub.language || "cuda") }));
      verdictMessage(v, result, result.tests);
      if (sub.xp_awarded) v.append(el("span", { class: "xp-awarded", text: " " + K.fmt(S.xp_awarded, { xp: sub.xp_awarded }) }));
      else if (extra && extra.localXp) v.append(el("span", { class: "xp-awarded xp-local", text: " " + K.fmt(S.xp_local, { xp: extra.localXp }) }));
      if (sub.mode === "run" && verdict === "accepted") v.append(el("p", { class: "run-note", text: S.run_not_counted }));
      const titles = K.page.achievementTitles || {};
      for (const a of sub.achievements || []) v.append(el("p", { class: "achievement", text: K.fmt(S.achievement, { name: titles[a] || a }) }));
      this.parts.tests.replaceChildren();
      for (const test of result.tests || []) this.testRow(test);
      this.compileErrors(result.compile, editorView);
      this.diagnostics(result.diagnostics || []);
      this.profile(result.profile, sub.previous_profile, verdict, extra && extra.profileFollows);
      this.bench(result);
    }

    // "Why is my kernel slow?" (#16, static/js/performance.js): this attempt's profile
    // beside the previous profiled one the server found (`previous_profile`); for a
    // pass without one, why not (the staff's switches, on the exercise's section).
    profile(prof, previous, verdict, follows) {
      const perf = window.KDojoPerformance;
      if (!perf) return;
      if (prof && prof.kernels && prof.kernels.length) {
        perf.render(show(this.parts.profile, true), prof, previous || null, message);
      } else if (verdict === "accepted" && follows) {
        perf.none(show(this.parts.profile, true), "pending");  // a GPU profile after `done`: lateProfile
      } else if (verdict === "accepted") {
        const section = this.root.closest("[data-profiling]");
        perf.none(show(this.parts.profile, true), (section && section.dataset.profiling) || "on");
      }
    }

    // The `profiled` event's document (null: it could not be read): its profile, or why none came.
    lateProfile(sub) {
      const result = (sub && sub.result) || {};
      this.profile(result.profile, sub && sub.previous_profile, "accepted", false);
    }

    compileErrors(compile, editorView) {
      const diags = (compile && compile.diagnostics) || [];
      if (editorView && window.KDojoEditor) window.KDojoEditor.showDiagnostics(editorView, diags);
      if (!compile || (compile.ok && !diags.length)) return;
      const box = show(this.parts["compile-errors"], true);
      box.replaceChildren();
      // Errors under "Compile errors", warnings and remarks under their own title.
      const errors = diags.filter((d) => (d.severity || "error") === "error");
      const warnings = diags.filter((d) => (d.severity || "error") !== "error");
      for (const [title, items, cls] of [[S.compile_errors, errors, "errors"], [S.warnings, warnings, "warnings"]]) {
        if (!items.length && !(cls === "errors" && !compile.ok)) continue;
        const list = el("ul");
        for (const d of items) {
          list.append(el("li", { class: "diag " + (d.severity || "error") },
            el("span", { class: "diag-line", text: K.fmt(S.line, { line: d.line }) + (d.column ? ":" + d.column : "") }),
            " ", ...(d.message_code ? [el("span", { class: "diag-message" }, ...toolFramed(d, message(d)))]
              : [el("code", { class: "tool-text", text: d.message })])));
        }
        box.append(el("section", { class: "diag-group " + cls }, el("h4", { text: title }), list));
      }
      // The log as the tools wrote it, less the lines the list above already says in the reader's language.
      const said = diags.filter((d) => d.message_code).map((d) => String(d.message));
      const log = (compile.log || "").split("\n").filter((line) => !said.some((m) => m && line.endsWith(m))).join("\n");
      if (log.trim()) {
        box.append(el("details", {}, el("summary", { text: S.log }), el("pre", {}, el("code", { class: "tool-text", text: log }))));
      }
    }

    diagnostics(items) {
      if (!items.length) return;
      const box = show(this.parts.diagnostics, true);
      box.replaceChildren(el("h4", { text: S.diagnostics }));
      // One item per kind and line: a missing bounds check reports the same
      // line once per test case and buffer; the rest fold under the first.
      const groups = new Map();
      for (const d of items) {
        const key = (d.kind || "") + ":" + (d.line || "");
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push(d);
      }
      const list = el("ul");
      for (const [, same] of groups) {
        const d = same[0];
        const li = el("li", { class: "diag " + (d.kind || "") },
          el("span", { class: "diag-kind", "data-kind": d.kind || "", text: S["diag." + d.kind] || d.kind || "" }), d.line ? " " + K.fmt(S.line, { line: d.line }) + ": " : ": ",
          el("span", { class: "diag-message" }, ...toolFramed(d, message(d))));
        if (same.length > 1) {
          const rest = el("ul");
          for (const other of same.slice(1)) rest.append(el("li", { text: message(other) }));
          li.append(el("details", { class: "diag-more" }, el("summary", { text: K.fmt(S.diag_more, { n: same.length - 1 }) }), rest));
        }
        list.append(li);
      }
      box.append(list);
    }

    bench(result) {
      const box = this.parts.bench;
      // a target that does not time its launches (the CPU) says so in timings_note (#29)
      if (result.timings_note) {
        show(box, true).replaceChildren(el("p", { class: "no-timings", text: S.no_timings }));
        return;
      }
      const bench = result.benchmark;
      if (!bench || !bench.sizes || !bench.sizes.length) return;
      show(box, true).replaceChildren(el("h4", { text: S.benchmark + (result.device ? " — " + result.device.name : "") }));
      for (const size of bench.sizes) box.append(this.benchChart(size, bench.peak_gbps));
    }

    benchChart(size, peakGbps) {
      const rows = [[S.yours, size.ms, "yours"]];
      const base = size.baselines || {};
      if (base.naive != null) rows.push([S.naive, base.naive, "naive"]);
      if (base.framework != null) rows.push([S.framework, base.framework, "framework"]);
      if (size.gbps && peakGbps) rows.push([S.limit, size.ms * size.gbps / peakGbps, "limit"]);
      const longest = Math.max(...rows.map((r) => r[1]));
      const fig = el("figure", { class: "bench-size" },
        el("figcaption", {}, el("strong", { text: size.label || ("n=" + size.n) }),
          size.gbps ? " · " + size.gbps.toFixed(0) + " GB/s · " + K.fmt(S.pct_of_peak, { pct: (size.pct_of_peak || 0).toFixed(1) }) : ""));
      for (const [label, ms, kind] of rows) {
        // Log scale: a naive baseline can be 1000x slower than the rest.
        const width = Math.max(2, 100 * Math.log1p(ms * 1000) / Math.log1p(longest * 1000));
        fig.append(el("div", { class: "bench-row " + kind },
          el("span", { class: "bench-label", text: label }),
          el("span", { class: "bench-bar", style: `width:${width.toFixed(1)}%` }),
          el("span", { class: "bench-ms", text: ms.toPrecision(3) + " ms" })));
      }
      return fig;
    }

    attempts(payload) {
      const rows = Array.isArray(payload) ? payload : (payload && payload.attempts) || [];
      const box = this.parts.attempts;
      const chart = box.querySelector(".attempts-chart");
      chart.replaceChildren();
      if (!rows || !rows.length) { show(box, false); return; }
      show(box, true);
      const ordered = rows.slice().reverse();
      const list = el("ol", { class: "attempt-list" });
      ordered.forEach((r, i) => list.append(el("li", { class: "verdict-" + (r.verdict || r.status), "data-verdict": r.verdict || r.status, "data-language": r.language || "cuda" },
        K.fmt(S.attempt, { n: i + 1 }) + (this.showLanguage ? " · " + this.languageTitle(r.language || "cuda") : "") + " · " + (S["mode." + r.mode] || r.mode) + " · " + (r.verdict ? verdictName(r.verdict) : (S[r.status] || r.status)) + (r.geomean_ms ? " · " + r.geomean_ms.toPrecision(3) + " ms" : ""),
        attemptCode(r))));
      const timed = ordered.map((r, i) => [i + 1, r.geomean_ms]).filter((p) => p[1]);
      if (timed.length >= 2 && window.uPlot) {
        const opts = { width: Math.min(chart.clientWidth || 480, 640), height: 180, scales: { x: { time: false } },
          series: [{ label: S.chart_attempt }, { label: S.chart_ms, stroke: "#4b7bec", points: { show: true } }] };
        new window.uPlot(opts, [timed.map((p) => p[0]), timed.map((p) => p[1])], chart);
      }
      chart.append(list);
    }
  }

  window.KDojoResults = { Panel, message, toolFramed };
})();
