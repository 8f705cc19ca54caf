// The lesson page: tabs, KaTeX, hints, the editor, Run/Submit over the API with
// live stages over SSE, the reference after a pass, comments and problem reports.
(function () {
  "use strict";
  const K = window.KDojo;
  const S = K.S;
  const E = K.page.events; // the stream's event names (kernels.contract.Event)
  let lastSubmissionId = null;

  function setupTabs(root) {
    root.querySelectorAll("[data-tabs]").forEach((group) => {
      const tabs = group.querySelectorAll('[role="tab"]');
      tabs.forEach((tab) => tab.addEventListener("click", () => {
        tabs.forEach((other) => {
          const selected = other === tab;
          other.setAttribute("aria-selected", String(selected));
          document.getElementById(other.getAttribute("aria-controls")).hidden = !selected;
        });
      }));
    });
  }

  // A fresh Idempotency-Key per click: however often the post is retried (a dropped
  // connection, a proxy's 502), the server creates one submission for it.
  function idempotencyKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();  // secure contexts only
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  const POST_TRIES = 3;
  const POST_RETRY_MS = 1000;

  // Retried, with the same key, only when no answer came or the answer was a server
  // or gateway error: a 4xx is the answer (a limit, a bad source) and is shown.
  async function postSubmission(body) {
    const headers = { "Idempotency-Key": idempotencyKey() };
    for (let attempt = 1; ; attempt++) {
      try {
        return await K.api("POST", "/api/submissions", body, headers);
      } catch (e) {
        const retryable = !e.status || e.status >= 500;
        if (!retryable || attempt >= POST_TRIES) throw e;
        await new Promise((resolve) => setTimeout(resolve, POST_RETRY_MS * attempt));
      }
    }
  }

  function renderMath() {
    if (!window.renderMathInElement) return;
    document.querySelectorAll(".prose").forEach((node) => window.renderMathInElement(node, {
      delimiters: [{ left: "\\[", right: "\\]", display: true }, { left: "\\(", right: "\\)", display: false }],
      throwOnError: false,
    }));
  }

  // Hints are revealed one at a time; how many were revealed is kept per
  // exercise (and kernel language other than CUDA, #29) in localStorage, so a
  // reload shows the same hints.
  function setupHints(section, box) {
    const button = box.querySelector(".show-hint");
    const hints = Array.from(box.querySelectorAll(".hint"));
    const language = box.dataset.languagePane || "cuda";
    const key = "kdojo.hints." + section.dataset.exerciseId + (language === "cuda" ? "" : "." + language);
    const reveal = (count) => {
      hints.forEach((h, i) => { if (i < count) h.hidden = false; });
      const shown = hints.filter((h) => !h.hidden).length;
      if (shown >= hints.length) { button.hidden = true; box.querySelector(".hints-done").hidden = false; }
      else button.textContent = K.fmt(button.dataset.label, { n: shown + 1 });
      return shown;
    };
    const saved = Number(localStorage.getItem(key)) || 0;
    if (saved > 0) reveal(saved);
    button.addEventListener("click", () => {
      const shown = reveal(hints.filter((h) => !h.hidden).length + 1);
      try { localStorage.setItem(key, String(shown)); } catch (e) { /* private mode: not kept */ }
    });
  }

  // The kernel languages of an exercise (#29), from the page data: [{name, title,
  // editor_mode, starter, solved}], CUDA first.
  function languagesOf(id, textarea) {
    const found = (K.page.exercises || []).find((e) => e.id === id);
    if (found && found.languages && found.languages.length) return found.languages;
    return [{ name: "cuda", title: "CUDA C++", editor_mode: "cuda", starter: textarea.defaultValue, solved: false }];
  }

  class ExerciseUI {
    constructor(section) {
      this.section = section;
      this.id = section.dataset.exerciseId;
      this.xp = Number(section.dataset.xp) || 0;
      this.panel = new window.KDojoResults.Panel(section.querySelector(".results"));
      const textarea = section.querySelector("textarea.source");
      this.languages = languagesOf(this.id, textarea);
      this.panel.showLanguage = this.languages.length > 1;
      // the learner's last choice for this exercise, if it is still offered
      const chosen = localStorage.getItem(this.languageKey());
      this.language = this.languages.some((l) => l.name === chosen) ? chosen : this.languages[0].name;
      this.starter = this.current().starter;
      this.view = null;
      if (window.KDojoEditor) {
        const host = section.querySelector(".editor");
        host.hidden = false;
        textarea.hidden = true;
        const doc = localStorage.getItem(this.draftKey()) || this.starter;
        this.view = window.KDojoEditor.create(host, doc, {
          onSubmit: () => this.send("submit"), onRun: () => this.send("run"),
        }, this.current().editor_mode);
        host.addEventListener("keyup", () => localStorage.setItem(this.draftKey(), this.source()));
      } else {
        this.textarea = textarea;
        if (this.language !== this.languages[0].name) textarea.value = this.starter;  // the page holds CUDA's
        textarea.addEventListener("keydown", (e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.send(e.shiftKey ? "run" : "submit"); }
        });
      }
      section.querySelectorAll("button[data-mode]").forEach((b) => b.addEventListener("click", () => this.send(b.dataset.mode)));
      section.querySelector(".reset").addEventListener("click", () => this.resetToStarter());
      section.querySelectorAll(".hints").forEach((box) => setupHints(section, box));
      this.setupPicker();
      this.showLanguage();
      this.loadAttempts();
      // a verdict, a sign-in merge or another tab's pass: the badge follows the new summary
      document.addEventListener("kdojo:progress", () => this.showXp());
    }

    current() { return this.languages.find((l) => l.name === this.language) || this.languages[0]; }
    // Drafts and the choice are kept per exercise; CUDA's draft keeps its key from before #29.
    draftKey(language) {
      const name = language || this.language;
      return "kdojo.draft." + this.id + (name === "cuda" ? "" : "." + name);
    }
    languageKey() { return "kdojo.language." + this.id; }

    // The selector beside the editor (#29), shown only where the exercise offers more
    // than one language: arrow keys move between the choices, as in a radio group.
    setupPicker() {
      const picker = this.section.querySelector(".language-picker");
      if (!picker || this.languages.length < 2) return;
      picker.hidden = false;
      const choices = Array.from(picker.querySelectorAll(".language-choice"));
      choices.forEach((button, i) => {
        button.addEventListener("click", () => this.switchTo(button.dataset.language));
        button.addEventListener("keydown", (e) => {
          const step = e.key === "ArrowRight" || e.key === "ArrowDown" ? 1 : e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 0;
          if (!step) return;
          e.preventDefault();
          const next = choices[(i + step + choices.length) % choices.length];
          next.focus();
          this.switchTo(next.dataset.language);
        });
      });
    }

    // Another language: keep this one's draft, load that one's draft or starter, set the
    // editor's mode, and show its instructions, hints, reference and attempts.
    switchTo(name) {
      if (name === this.language || this.running || !this.languages.some((l) => l.name === name)) return;
      const draft = this.source();
      if (draft !== this.starter) localStorage.setItem(this.draftKey(), draft);
      this.language = name;
      try { localStorage.setItem(this.languageKey(), name); } catch (e) { /* private mode: not kept */ }
      this.starter = this.current().starter;
      const doc = localStorage.getItem(this.draftKey()) || this.starter;
      if (this.view) {
        window.KDojoEditor.setMode(this.view, this.current().editor_mode);
        window.KDojoEditor.setText(this.view, doc);
        window.KDojoEditor.showDiagnostics(this.view, []);
      } else {
        this.section.querySelector("textarea.source").value = doc;
      }
      const undo = this.section.querySelector(".reset-undo");
      if (undo) undo.hidden = true;
      this.panel.clear();
      this.showLanguage();
      this.loadAttempts();
    }

    showLanguage() {
      const name = this.language;
      this.section.dataset.language = name;
      this.section.querySelectorAll(".language-choice").forEach((b) => b.setAttribute("aria-checked", String(b.dataset.language === name)));
      this.section.querySelectorAll("[data-language-pane]").forEach((pane) => {
        const mine = pane.dataset.languagePane === name;
        pane.hidden = !mine || (pane.matches("details.reference") && pane.dataset.solved !== "1");
      });
      const board = this.section.querySelector(".leaderboard-link");
      if (board) board.href = `/exercises/${encodeURIComponent(this.id)}/leaderboard` + (name === "cuda" ? "" : "?language=" + name);
      this.showXp();
    }

    // The XP badge (#29): what the chosen language brings now — the full XP while no
    // language has earned it, the further language's share once another has, and what
    // this language earned once it has (app/xp.py language_award, K.languageAward).
    showXp() {
      const badge = this.section.querySelector(".badge.xp");
      if (!badge) return;
      const summary = K.summary() || {};
      const earned = (summary.exercise_xp || {})[this.id] || {};
      const award = K.languageAward(this.xp, earned, this.language);
      const title = (name) => (this.languages.find((l) => l.name === name) || {}).title || (K.page.languageTitles || {})[name] || name;
      let text;
      if (award.state === "earned") {
        text = this.languages.length > 1
          ? K.fmt(S["exercise.xp_earned"], { xp: award.xp, language: title(this.language) })
          : K.fmt(S["exercise.xp_earned_one"], { xp: award.xp });
      } else if (award.state === "share") {
        const names = Object.keys(earned).filter((name) => Number(earned[name]) > 0).map(title);
        text = K.fmt(S["exercise.xp_share"], { xp: award.xp, languages: names.join(", ") });
      } else {
        text = K.fmt(S["exercise.xp"], { xp: award.xp });
      }
      badge.textContent = text;
      badge.dataset.xpState = award.state;
      badge.dataset.xp = String(award.xp);
    }

    source() { return this.view ? window.KDojoEditor.getText(this.view) : this.section.querySelector("textarea.source").value; }
    setSource(text) {
      if (this.view) window.KDojoEditor.setText(this.view, text); else this.section.querySelector("textarea.source").value = text;
      localStorage.removeItem(this.draftKey());
    }

    // "Reset to starter" (#28): asks first when there is a draft, then offers to undo
    // it (the draft comes back, saved again).
    resetToStarter() {
      const draft = this.source();
      if (draft === this.starter || !window.confirm(S.reset_confirm)) return;
      this.setSource(this.starter);
      const reset = this.section.querySelector(".reset");
      let undo = this.section.querySelector(".reset-undo");
      if (!undo) {
        undo = K.el("button", { type: "button", class: "btn subtle reset-undo", text: S.reset_undo });
        reset.after(undo);
      }
      undo.hidden = false;
      const key = this.draftKey();
      undo.onclick = () => {
        this.setSource(draft);
        localStorage.setItem(key, draft);
        undo.hidden = true;
      };
    }

    busy(yes) { this.section.querySelectorAll("button[data-mode]").forEach((b) => { b.disabled = yes; }); }

    async send(mode) {
      if (this.running) return;
      this.running = true;
      this.busy(true);
      this.panel.reset();
      try {
        const created = await postSubmission({ exercise_id: this.id, source: this.source(), mode, language: this.language });
        lastSubmissionId = created.id;
        this.panel.stage(E.queued, { position: created.position });
        await this.follow(created.id);
      } catch (e) {
        this.panel.root.dataset.state = "error";
        const v = this.panel.parts.verdict;
        v.hidden = false;
        v.className = "verdict verdict-error";
        v.textContent = e.status ? e.message : S.network_error;
      } finally {
        this.running = false;
        this.busy(false);
      }
    }

    // Stages arrive over SSE; EventSource resumes with Last-Event-ID by itself.
    follow(id) {
      return new Promise((resolve) => {
        const source = new EventSource(`/api/submissions/${id}/events`);
        for (const kind of [E.queued, E.compiling, E.test_start, E.testing, E.benchmarking, E.profiling]) {
          source.addEventListener(kind, (e) => this.panel.stage(kind, JSON.parse(e.data || "{}")));
        }
        // The verdict, before the benchmark has run (issue #13).
        source.addEventListener(E.tested, (e) => this.panel.tested(JSON.parse(e.data || "{}")));
        source.addEventListener(E.done, async (e) => {
          source.close();
          this.panel.stage(E.done, {});
          const data = JSON.parse(e.data || "{}");
          await this.finish(id, data.profile_follows ? e.lastEventId : null);
          resolve();
        });
      });
    }

    // A GPU profile made after `done` (#26): the events after `done` until `profiled`,
    // then the stored document's profile (or, without a source, why none came).
    followProfile(id, afterSeq) {
      const source = new EventSource(`/api/submissions/${id}/events?last_event_id=${encodeURIComponent(afterSeq)}`);
      source.addEventListener(E.profiled, async () => {
        source.close();
        try { this.panel.lateProfile(await K.api("GET", `/api/submissions/${id}`)); }
        catch (e) { this.panel.lateProfile(null); }
      });
    }

    async finish(id, profileAfterSeq) {
      const sub = await K.api("GET", `/api/submissions/${id}`);
      // A signed-out pass is kept in this browser: say so, with the XP it will bring.
      const localPass = sub.verdict === "accepted" && sub.mode === "submit" && !K.page.signedIn;
      const localXp = localPass ? K.recordLocalPass(this.id, this.xp, sub.language) : 0;
      rememberSubmission(id);
      const profileFollows = profileAfterSeq != null && !(sub.result && sub.result.profile);
      this.panel.final(sub, this.view, { localXp, profileFollows });
      if (profileFollows) this.followProfile(id, profileAfterSeq);
      if (sub.verdict === "accepted") {
        if (sub.mode === "submit") this.markSolved(sub.language);
        await this.revealReference(id, sub.language);
      }
      await K.refresh();
      await this.loadAttempts();
      this.section.dispatchEvent(new CustomEvent("kdojo:verdict", { bubbles: true, detail: sub }));
    }

    markSolved(language) {
      const entry = this.languages.find((l) => l.name === language);
      if (entry) entry.solved = true;
      const badge = this.section.querySelector(`.language-choice[data-language="${language}"] .language-solved`);
      if (badge) badge.hidden = false;
    }

    // The reference in the language of the passing submission (#29).
    async revealReference(id, language) {
      const name = language || "cuda";
      const details = this.section.querySelector(`details.reference[data-language-pane="${name}"]`) ||
        this.section.querySelector("details.reference");
      const res = await fetch(`/exercises/${encodeURIComponent(this.id)}/reference?submission=${id}`, { credentials: "same-origin" });
      if (!res.ok || !details) return;
      details.querySelector(".reference-body").innerHTML = await res.text();
      details.dataset.solved = "1";
      details.hidden = name !== this.language;
      const locked = this.section.querySelector(`.reference-locked[data-language-pane="${name}"]`) ||
        (this.languages.length < 2 && this.section.querySelector(".reference-locked"));
      if (locked) locked.remove();
    }

    // This language's attempts only: a diff between a CUDA and a Triton attempt means nothing.
    async loadAttempts() {
      const language = this.language;
      const url = `/api/exercises/${encodeURIComponent(this.id)}/attempts?language=${encodeURIComponent(language)}`;
      try {
        const payload = await K.api("GET", url);
        if (language === this.language) this.panel.attempts(payload);
      } catch (e) { /* no attempts to show */ }
    }
  }

  // The heading of the section the reader was looking at: the last heading above
  // the middle of the screen, remembered while they scroll (opening the report
  // form at the bottom of the page must not change it).
  let readingAnchor = "";
  function trackReading() {
    const headings = Array.from(document.querySelectorAll(".lesson-body h1[id], .lesson-body h2[id], .lesson-body h3[id], .lesson-body h4[id], .exercise[id]"));
    const report = document.getElementById("report");
    const update = () => {
      if (report && report.getBoundingClientRect().top < window.innerHeight * 0.9) return;  // at the form itself
      const middle = window.innerHeight / 2;
      let best = "";
      for (const h of headings) if (h.getBoundingClientRect().top < middle) best = h.id;
      readingAnchor = best;
    };
    update();
    window.addEventListener("scroll", update, { passive: true });
  }

  function headingText(id) {
    const node = id && document.getElementById(id);
    if (!node) return S.report_top;
    const title = node.matches(".exercise") ? node.querySelector("h2") : node;
    return (title.firstChild && title.firstChild.textContent || title.textContent).replace(/#\s*$/, "").trim();
  }

  // The report names the learner's last submission on this lesson, after a reload too (#28).
  function reportKey() {
    const form = document.querySelector(".report-form");
    return form ? "kdojo.report.submission." + form.dataset.lessonId : null;
  }

  function rememberSubmission(id) {
    const key = reportKey();
    if (key) localStorage.setItem(key, String(id));
  }

  function setupReport() {
    const form = document.querySelector(".report-form");
    if (!form) return;
    if (!lastSubmissionId) lastSubmissionId = Number(localStorage.getItem(reportKey())) || null;
    trackReading();
    const preview = form.querySelector(".report-preview");
    const showPreview = () => {
      if (!preview) return;
      preview.replaceChildren();
      const add = (text) => { const li = document.createElement("li"); li.textContent = text; preview.append(li); };
      add(K.fmt(S.report_section, { section: headingText(readingAnchor) }));
      add(lastSubmissionId ? K.fmt(S.report_submission, { id: lastSubmissionId }) : S.report_no_submission);
      add(location.pathname);
    };
    const details = form.closest("details");
    if (details) details.addEventListener("toggle", showPreview);
    form.addEventListener("focusin", showPreview);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const status = form.querySelector(".report-status");
      try {
        await K.api("POST", "/api/bug-reports", {
          lesson_id: form.dataset.lessonId, anchor: readingAnchor, submission_id: lastSubmissionId,
          message: form.elements.message.value,
        });
        form.elements.message.value = "";
        status.textContent = S.sent;
      } catch (err) { status.textContent = err.message || S.network_error; }
    });
  }

  function recount() {
    const title = document.getElementById("comments-title");
    const n = document.querySelectorAll("#comment-list li.comment").length;
    if (title) { title.textContent = K.fmt(S.comments_count, { n }); title.dataset.count = String(n); }
  }

  function setupComments() {
    const form = document.querySelector(".comment-form");
    if (!form) return;
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const status = form.querySelector(".comment-status");
      const parent = form.elements.parent_id.value;
      try {
        await K.api("POST", `/api/lessons/${encodeURIComponent(form.dataset.lessonId)}/comments`,
          { body: form.elements.body.value, parent_id: parent ? Number(parent) : null });
        form.elements.body.value = "";
        form.elements.parent_id.value = "";
        status.textContent = "";
        document.body.dispatchEvent(new CustomEvent("kdojo:comments-changed"));
        // the title's count follows the list htmx reloads (issue #13)
        document.body.addEventListener("htmx:afterSwap", recount, { once: true });
      } catch (err) { status.textContent = err.message || S.network_error; }
    });
    document.getElementById("comments").addEventListener("click", (e) => {
      const button = e.target.closest("button.reply");
      if (!button) return;
      form.elements.parent_id.value = button.dataset.commentId;
      form.elements.body.focus();
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    try {
      setupTabs(document);
      renderMath();
      document.querySelectorAll(".exercise[data-exercise-id]").forEach((s) => { s.kdojo = new ExerciseUI(s); });
      setupReport();
      setupComments();
    } finally {
      document.body.dataset.lessonReady = "1";
    }
  });
})();
