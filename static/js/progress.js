// Learner progress in the browser: the learner bar, local progress for
// anonymous learners (localStorage), and merging it into the account at sign-in.
(function () {
  "use strict";
  const KEY = "kdojo.progress.v1";
  const page = JSON.parse(document.getElementById("page-data").textContent);
  const S = page.strings;

  // A string, or {one, other, …} chosen by the language's plural rule for `n`
  // (or the first number given), like app.i18n.translate with Babel.
  const plurals = new Intl.PluralRules(page.lang);
  function fmt(template, values) {
    values = values || {};
    if (template && typeof template === "object") {
      const count = "n" in values ? values.n : Object.values(values).find((v) => typeof v === "number");
      template = template[plurals.select(Number(count) || 0)] || template.other;
    }
    return String(template || "").replace(/\{(\w+)(?::0?(\d+)d)?\}/g, (m, name, width) => {
      if (!(name in values)) return m;
      const v = String(values[name]);
      return width ? v.padStart(Number(width), "0") : v;
    });
  }

  function csrf() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  async function api(method, url, body, headers) {
    const init = { method, headers: { "Accept": "application/json", ...(headers || {}) }, credentials: "same-origin" };
    if (method !== "GET") init.headers["X-CSRF-Token"] = csrf();
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    const res = await fetch(url, init);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      // A service error with a code is shown in the reader's language (error.<code>).
      const code = data && data.code;
      const known = code && S["error." + code];
      const first = data && Array.isArray(data.detail) && data.detail[0];
      const detail = data && typeof data.detail === "string" ? data.detail : (first && first.msg) || res.statusText;
      const err = new Error(known ? fmt(known, data.params || {}) : detail);
      err.status = res.status;
      err.code = code || null;
      throw err;
    }
    return data;
  }

  function loadLocal() {
    try {
      const v = JSON.parse(localStorage.getItem(KEY) || "{}");
      return { exercises: v.exercises || {}, lessons: v.lessons || [] };
    } catch (e) { return { exercises: {}, lessons: [] }; }
  }
  function saveLocal(p) { localStorage.setItem(KEY, JSON.stringify(p)); }

  // A local pass is kept under the exercise's id for CUDA and `<id>@<language>` for
  // another kernel language (#29), as POST /api/progress/merge reads them.
  function baseId(key) { return key.split("@")[0]; }
  function keyLanguage(key) { return key.split("@")[1] || "cuda"; }
  function localExerciseIds(local) { return Array.from(new Set(Object.keys(local.exercises).map(baseId))); }

  // The same arithmetic as app.services.progress.learner_summary, over local data.
  function summaryFromLocal(local) {
    let xp = 0;
    for (const id in local.exercises) xp += Number(local.exercises[id]) || 0;
    const done = [];
    const solved = new Set(localExerciseIds(local));
    for (const [id, lesson] of Object.entries(page.lessons)) {
      const all = lesson.exercises.length > 0 && lesson.exercises.every((e) => solved.has(e));
      if (all || local.lessons.includes(id)) { done.push(id); xp += lesson.xp || 0; }
    }
    const total = Object.keys(page.lessons).length;
    return Object.assign(levelInfo(xp), {
      xp, lessons_done: done.length, lessons_total: total,
      achievements_done: 0, achievements_total: page.achievementsTotal,
      pct_complete: total ? Math.floor((100 * done.length) / total) : 0,
      completed_exercise_ids: Array.from(solved), completed_lesson_ids: done,
      exercise_xp: localExerciseXp(local),
    });
  }

  // {exercise id: {language: XP}}, as the server's learner summary has it.
  function localExerciseXp(local) {
    const found = {};
    for (const [key, xp] of Object.entries(local.exercises)) {
      if (!(Number(xp) > 0)) continue;
      (found[baseId(key)] = found[baseId(key)] || {})[keyLanguage(key)] = Number(xp);
    }
    return found;
  }

  // What an exercise worth `fullXp` brings in `language`, given {language: XP earned on it}:
  // the same rule as app.xp.language_award (#29).
  function languageAward(fullXp, earned, language) {
    earned = earned || {};
    if (Number(earned[language]) > 0) return { state: "earned", xp: Number(earned[language]) };
    if (Object.values(earned).some((xp) => Number(xp) > 0)) return { state: "share", xp: Math.floor(fullXp * page.xpShare) };
    return { state: "full", xp: fullXp };
  }

  function levelInfo(xp) {
    let level = page.levels[0], next = null;
    for (let i = 0; i < page.levels.length; i++) {
      if (page.levels[i].min_xp <= xp) { level = page.levels[i]; next = page.levels[i + 1] || null; }
    }
    return {
      level: level.number, level_title: level.title_en, level_title_ko: level.title_ko,
      xp_in_level: xp - level.min_xp, level_span_xp: next ? next.min_xp - level.min_xp : 0,
      xp_to_next: next ? next.min_xp - xp : 0, next_level_xp: next ? next.min_xp : null,
    };
  }

  function setText(id, text) { const el = document.getElementById(id); if (el) el.textContent = text; }

  // The latest learner summary: the server's (signed in) or this browser's; renderBar
  // announces each new one with a `kdojo:progress` event on the document.
  let latest = null;
  function summary() { return latest || (page.signedIn ? page.summary : summaryFromLocal(loadLocal())); }

  function renderBar(s) {
    latest = s;
    setText("bar-level", fmt(S["bar.level"], { level: s.level }));
    setText("bar-title", page.lang === "ko" ? s.level_title_ko : s.level_title);
    setText("bar-xp", fmt(S["bar.xp"], { xp: s.xp }));
    const xpEl = document.getElementById("bar-xp");
    if (xpEl) xpEl.dataset.xp = String(s.xp);
    setText("bar-lessons", fmt(S["bar.lessons"], { done: s.lessons_done, total: s.lessons_total }));
    setText("bar-achievements", fmt(S["bar.achievements"], { done: s.achievements_done, total: s.achievements_total }));
    setText("bar-to-next", fmt(S["bar.to_next"], { have: s.xp_in_level, need: s.level_span_xp }));
    setText("bar-to-go", fmt(S["bar.to_go"], { n: s.xp_to_next }));
    setText("bar-complete", fmt(S["bar.complete"], { pct: s.pct_complete }));
    const fill = document.getElementById("bar-fill");
    if (fill) fill.style.width = (100 * s.xp_in_level / (s.level_span_xp || 1)).toFixed(1) + "%";
    markCatalog(s);
    markSolved(s.completed_exercise_ids || []);
    document.dispatchEvent(new CustomEvent("kdojo:progress", { detail: s }));
  }

  function markCatalog(s) {
    const doneEx = new Set(s.completed_exercise_ids || []);
    const doneLessons = new Set(s.completed_lesson_ids || []);
    document.querySelectorAll(".lesson-card[data-lesson-id]").forEach((card) => {
      const id = card.dataset.lessonId;
      const lesson = page.lessons[id];
      let state = "not_started";
      if (doneLessons.has(id)) state = "done";
      else if (lesson && lesson.exercises.some((e) => doneEx.has(e))) state = "in_progress";
      card.className = card.className.replace(/state-\S+/, "state-" + state);
      const label = card.querySelector(".lesson-state");
      if (label) { label.dataset.state = state; label.textContent = S["catalog." + state] || state; }
    });
    markTracks();
  }

  // Each track's "lessons done" line, recounted from its cards' states.
  function markTracks() {
    document.querySelectorAll("section.track").forEach((section) => {
      const cards = section.querySelectorAll(".lesson-card[data-lesson-id]");
      const done = Array.from(cards).filter((card) => card.classList.contains("state-done")).length;
      const text = section.querySelector(".track-progress-text");
      if (text) text.textContent = fmt(S["catalog.track_progress"], { done, total: cards.length });
      const meter = section.querySelector(".track-meter");
      if (meter) { meter.max = cards.length; meter.value = done; }
    });
  }

  function markSolved(ids) {
    ids.forEach((id) => {
      const badge = document.querySelector(`.exercise[data-exercise-id="${CSS.escape(id)}"] .badge.solved`);
      if (badge) badge.hidden = false;
    });
  }

  async function refresh() {
    if (page.signedIn) {
      try { renderBar(await api("GET", "/api/me/progress")); } catch (e) { /* keep the server-rendered bar */ }
    } else {
      renderBar(summaryFromLocal(loadLocal()));
    }
  }

  // A pass while signed out is remembered here until the learner signs in.
  // The first language to pass an exercise brings its XP, each further one its share
  // (app/xp.py); a repeat brings nothing, as on the server.
  function recordLocalPass(exerciseId, xp, language) {
    const local = loadLocal();
    const key = !language || language === "cuda" ? exerciseId : exerciseId + "@" + language;
    if (key in local.exercises) return 0;
    const award = languageAward(xp, localExerciseXp(local)[exerciseId], keyLanguage(key));
    local.exercises[key] = award.xp;
    saveLocal(local);
    return award.xp;  // the XP this language's pass brings here
  }

  async function mergeIfSignedIn() {
    const local = loadLocal();
    const exerciseIds = Object.keys(local.exercises);
    if (!page.signedIn || (exerciseIds.length === 0 && local.lessons.length === 0)) return false;
    await api("POST", "/api/progress/merge", { exercise_ids: exerciseIds, lesson_ids: local.lessons });
    localStorage.removeItem(KEY);
    return true;
  }

  // <time datetime="…Z"> elements: shown in the reader's time zone and language,
  // labelled with the zone (the server renders UTC, labelled "UTC", without JS).
  function localTimes(root) {
    const format = new Intl.DateTimeFormat(page.lang, {
      year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
    });
    (root || document).querySelectorAll("time[datetime]").forEach((node) => {
      if (node.dataset.local) return;
      const iso = node.getAttribute("datetime");
      const when = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : iso + "Z");
      if (Number.isNaN(when.getTime())) return;
      node.textContent = format.format(when);
      node.title = S.time_zone ? S.time_zone + " · " + iso : iso;
      node.dataset.local = "1";
    });
  }

  // A DOM element: attributes ("class", "text" or any other) and children.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const c of children) if (c != null) node.append(c);
    return node;
  }

  window.KDojo = {
    page, S, fmt, api, csrf, refresh, summary, languageAward, recordLocalPass, summaryFromLocal, loadLocal, localTimes, el,
  };

  document.addEventListener("DOMContentLoaded", async () => {
    try {
      localTimes(document);
      document.body.addEventListener("htmx:afterSwap", (e) => localTimes(e.target));
      try { await mergeIfSignedIn(); } catch (e) { console.warn("progress merge failed:", e.message); }
      if (!page.signedIn || document.getElementById("learner-bar")) await refresh();
    } finally {
      document.body.dataset.progressReady = "1";  // tests and scripts wait on this, even after an error
    }
  });
})();
