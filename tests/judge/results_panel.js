// The page's own result panel (static/js/progress.js, static/js/results.js) run in
// Node over a small DOM, for tests/judge/test_judge_language.py (#28). Reads
// {"strings": js_strings(lang), "lang": "ko", "results": [v1 documents]} on stdin;
// writes one {"text", "code"} per document: the panel's text without the <code>
// elements (the compiler's and the learner's own words), and those elements' text.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

class Node {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.attributes = {};
    this.dataset = {};
    this.hidden = false;
    this.className = "";
    this.ownText = "";
    this.parent = null;
    const self = this;
    this.classList = {
      add: (c) => { if (!self.classes().includes(c)) self.className = (self.className + " " + c).trim(); },
      contains: (c) => self.classes().includes(c),
      replace: (a, b) => { self.className = self.classes().map((c) => (c === a ? b : c)).join(" "); },
    };
  }
  classes() { return this.className.split(/\s+/).filter(Boolean); }
  set textContent(value) { this.children = []; this.ownText = String(value); }
  get textContent() { return this.ownText + this.children.map((c) => c.textContent).join(""); }
  setAttribute(k, v) { this.attributes[k] = String(v); if (k.startsWith("data-")) this.dataset[k.slice(5)] = String(v); }
  append(...items) {
    for (const item of items) {
      const node = item instanceof Node ? item : text(String(item));
      node.parent = this;
      this.children.push(node);
    }
  }
  replaceChildren(...items) { this.children = []; this.ownText = ""; this.append(...items); }
  replaceWith(node) { const i = this.parent.children.indexOf(this); this.parent.children[i] = node; node.parent = this.parent; }
  remove() { if (this.parent) this.parent.children = this.parent.children.filter((c) => c !== this); }
  closest() { return null; }
  all() { return this.children.flatMap((c) => [c, ...c.all()]); }
  querySelectorAll(selector) {
    const match = /^([a-z]+)?(?:\.([\w-]+))?/.exec(selector.split(/\s+/).pop());
    return this.all().filter((n) => (!match[1] || n.tagName === match[1].toUpperCase()) &&
      (!match[2] || n.classes().includes(match[2])));
  }
  querySelector(selector) { return this.querySelectorAll(selector)[0] || null; }
  // What a reader sees, and (apart) what the panel shows as code.
  visible(out) {
    if (this.hidden) return out;
    if (this.tagName === "CODE") { out.code.push(this.textContent); return out; }
    out.text.push(this.ownText);
    for (const c of this.children) c.visible(out);
    if (["LI", "P", "SECTION", "H4", "PRE", "DIV"].includes(this.tagName)) out.text.push("\n");
    return out;
  }
}

function text(value) { const n = new Node("#text"); n.ownText = value; return n; }

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const pageData = { textContent: JSON.stringify({ lang: input.lang, strings: input.strings }) };
const documentStub = {
  createElement: (tag) => new Node(tag),
  getElementById: (id) => (id === "page-data" ? pageData : null),
  querySelector: () => null,
  querySelectorAll: () => [],
  addEventListener: () => {},
};
const context = { document: documentStub, performance: { now: () => 0 }, setInterval: () => 1, clearInterval: () => {},
  console, Intl, JSON, Object, Array, String, Number, Math, Map, Set, Promise };
context.window = context;
vm.createContext(context);
const root = path.resolve(__dirname, "..", "..", "static", "js");
for (const file of ["progress.js", "results.js"]) {
  vm.runInContext(fs.readFileSync(path.join(root, file), "utf8"), context, { filename: file });
}

const out = [];
for (const result of input.results) {
  const panel = new Node("div");
  for (const name of ["results-idle", "stages", "verdict", "compile-errors", "tests", "diagnostics", "profile", "bench",
    "attempts"]) {
    const part = new Node("div");
    part.className = name;
    panel.append(part);
  }
  const Panel = context.KDojoResults.Panel;
  new Panel(panel).final({ result, verdict: result.verdict, mode: "run" }, null, null);
  const seen = panel.visible({ text: [], code: [] });
  out.push({ text: seen.text.join(""), code: seen.code });
}
process.stdout.write(JSON.stringify(out));
