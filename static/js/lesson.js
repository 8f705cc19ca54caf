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
  // exercise in localStorage, so a reload shows the same hints.
  function setupHints(section) {
    const box = section.querySelector(".hints");
    if (!box) return;
    const button = box.querySelector(".show-hint");
    const hints = Array.from(box.querySelectorAll(".hint"));
    const key = "kdojo.hints." + section.dataset.exerciseId;
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

  class ExerciseUI {
    constructor(section) {
      this.section = section;
      this.id = section.dataset.exerciseId;
      this.xp = Number(section.dataset.xp) || 0;
      this.panel = new window.KDojoResults.Panel(section.querySelector(".results"));
      this.draftKey = "kdojo.draft." + this.id;
      const textarea = section.querySelector("textarea.source");
      this.starter = textarea.defaultValue;
      this.view = null;
      if (window.KDojoEditor) {
        const host = section.querySelector(".editor");
        host.hidden = false;
        textarea.hidden = true;
        const doc = localStorage.getItem(this.draftKey) || this.starter;
        this.view = window.KDojoEditor.create(host, doc, {
          onSubmit: () => this.send("submit"), onRun: () => this.send("run"),
        });
        host.addEventListener("keyup", () => localStorage.setItem(this.draftKey, this.source()));
      } else {
        this.textarea = textarea;
        textarea.addEventListener("keydown", (e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.send(e.shiftKey ? "run" : "submit"); }
        });
      }
      section.querySelectorAll("button[data-mode]").forEach((b) => b.addEventListener("click", () => this.send(b.dataset.mode)));
      section.querySelector(".reset").addEventListener("click", () => this.resetToStarter());
      setupHints(section);
      this.loadAttempts();
    }

    source() { return this.view ? window.KDojoEditor.getText(this.view) : this.section.querySelector("textarea.source").value; }
    setSource(text) {
      if (this.view) window.KDojoEditor.setText(this.view, text); else this.section.querySelector("textarea.source").value = text;
      localStorage.removeItem(this.draftKey);
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
      undo.onclick = () => {
        this.setSource(draft);
        localStorage.setItem(this.draftKey, draft);
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
        const created = await postSubmission({ exercise_id: this.id, source: this.source(), mode });
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
      const localXp = sub.verdict === "accepted" && sub.mode === "submit" && !K.page.signedIn ? this.xp : 0;
      rememberSubmission(id);
      const profileFollows = profileAfterSeq != null && !(sub.result && sub.result.profile);
      this.panel.final(sub, this.view, { localXp, profileFollows });
      if (profileFollows) this.followProfile(id, profileAfterSeq);
      if (sub.verdict === "accepted") {
        if (localXp) K.recordLocalPass(this.id, this.xp);
        await this.revealReference(id);
      }
      await K.refresh();
      await this.loadAttempts();
      this.section.dispatchEvent(new CustomEvent("kdojo:verdict", { bubbles: true, detail: sub }));
    }

    async revealReference(id) {
      const details = this.section.querySelector("details.reference");
      const res = await fetch(`/exercises/${encodeURIComponent(this.id)}/reference?submission=${id}`, { credentials: "same-origin" });
      if (!res.ok) return;
      details.querySelector(".reference-body").innerHTML = await res.text();
      details.hidden = false;
      const locked = this.section.querySelector(".reference-locked");
      if (locked) locked.hidden = true;
    }

    async loadAttempts() {
      try { this.panel.attempts(await K.api("GET", `/api/exercises/${encodeURIComponent(this.id)}/attempts`)); }
      catch (e) { /* no attempts to show */ }
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
