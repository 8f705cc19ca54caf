// Kernel Dojo's editor bundle: CodeMirror 6 with C++ mode (CUDA is C++ to the
// highlighter), Python mode (Triton kernels are Python) and lint diagnostics. esbuild turns this into
// static/vendor/editor.js, which exposes one global: window.KDojoEditor.
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection } from "@codemirror/view";
import { EditorState, Compartment } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, indentOnInput, syntaxHighlighting, defaultHighlightStyle } from "@codemirror/language";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { cpp } from "@codemirror/lang-cpp";
import { python } from "@codemirror/lang-python";
import { oneDark } from "@codemirror/theme-one-dark";

const theme = new Compartment();
const language = new Compartment();

// The editor mode of a kernel language (kernels.languages: `editor_mode`):
// "cuda" (C++ highlighting) or "python"; anything else falls back to C++.
function modeExtension(mode) {
  return mode === "python" ? python() : cpp();
}

function darkPreferred() {
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
}

// create(parent, doc, {onRun, onSubmit}, mode) -> view. Ctrl/Cmd+Enter submits,
// Shift+Ctrl/Cmd+Enter runs the tests only. `mode`: "cuda" (default) or "python".
function create(parent, doc, handlers = {}, mode = "cuda") {
  const runKeys = keymap.of([
    { key: "Mod-Enter", preventDefault: true, run: () => { handlers.onSubmit && handlers.onSubmit(); return true; } },
    { key: "Shift-Mod-Enter", preventDefault: true, run: () => { handlers.onRun && handlers.onRun(); return true; } },
  ]);
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        runKeys,
        lineNumbers(), highlightActiveLineGutter(), highlightActiveLine(), drawSelection(),
        history(), indentOnInput(), bracketMatching(), closeBrackets(), highlightSelectionMatches(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, indentWithTab]),
        language.of(modeExtension(mode)), lintGutter(),
        theme.of(darkPreferred() ? oneDark : []),
        EditorView.lineWrapping,
      ],
    }),
  });
  if (window.matchMedia) {
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", (e) => {
      view.dispatch({ effects: theme.reconfigure(e.matches ? oneDark : []) });
    });
  }
  return view;
}

// setMode(view, mode): switch the highlighting when the learner picks another language.
function setMode(view, mode) {
  view.dispatch({ effects: language.reconfigure(modeExtension(mode)) });
}

function getText(view) { return view.state.doc.toString(); }

function setText(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

// diagnostics: [{line, column, severity, message}] with 1-based learner lines.
function showDiagnostics(view, diagnostics) {
  const doc = view.state.doc;
  const items = [];
  for (const d of diagnostics || []) {
    if (!d.line || d.line < 1 || d.line > doc.lines) continue;
    const line = doc.line(d.line);
    const from = Math.min(line.from + Math.max((d.column || 1) - 1, 0), line.to);
    items.push({
      from, to: Math.max(from, line.to),
      severity: d.severity === "warning" ? "warning" : d.severity === "note" ? "info" : "error",
      message: d.message || "",
    });
  }
  view.dispatch(setDiagnostics(view.state, items));
  return items.length;
}

window.KDojoEditor = { create, getText, setText, setMode, showDiagnostics };
