"""Lesson Markdown → HTML.

Raw HTML in the source is escaped (markdown-it `html=False`), headings get
anchors, fenced code is highlighted by Pygments (CUDA by its own lexer),
consecutive fences tagged `tab=Label` become one tab group, `::: hint|note|warning`
become admonitions, and `$…$` / `$$…$$` are protected from Markdown and emitted
as `\\(…\\)` / `\\[…\\]` for KaTeX's auto-render on the client. An image
`![alt](figures/name.svg)` becomes that lesson's figure URL (app/content/figures.py);
any other image address is shown as its alt text, never fetched.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from app.content.figures import figure_name, figure_path, figure_size

ADMONITIONS = ("hint", "note", "warning")
_ADMONITION_TITLES = {
    "ko": {"hint": "힌트", "note": "참고", "warning": "주의"},
    "en": {"hint": "Hint", "note": "Note", "warning": "Warning"},
}
# Languages Pygments lacks, highlighted by their closest relative.
_LEXER_ALIASES = {"metal": "cpp", "cu": "cuda", "hip": "cpp", "ptx": "text"}
_TAB_RE = re.compile(r"(?:^|\s)tab=(\"[^\"]+\"|\S+)")
_FORMATTER = HtmlFormatter(nowrap=True)


def _slug(text: str) -> str:
    # Keep Hangul and other word characters: Korean headings need anchors too.
    slug = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return re.sub(r"\s+", "-", slug) or "section"


def _fence_info(info: str) -> tuple[str, str | None]:
    """`cuda tab=CUDA` → ("cuda", "CUDA"); the language is the first word."""
    tab_match = _TAB_RE.search(info)
    tab = tab_match.group(1).strip('"') if tab_match else None
    rest = _TAB_RE.sub(" ", info).split()
    return (rest[0].lower() if rest else ""), tab


def highlight_code(code: str, lang: str) -> str:
    """HTML for one code block's contents (no wrapper), Pygments classes."""
    name = _LEXER_ALIASES.get(lang, lang)
    try:
        lexer = get_lexer_by_name(name) if name else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return html.escape(code)
    return highlight(code, lexer, _FORMATTER)


def _mark_tab_groups(state: Any) -> None:
    """Core rule: consecutive `tab=` fences form one group (meta on the tokens)."""
    tokens: list[Token] = state.tokens
    i = 0
    while i < len(tokens):
        if tokens[i].type != "fence" or _fence_info(tokens[i].info)[1] is None:
            i += 1
            continue
        j = i
        while j + 1 < len(tokens) and tokens[j + 1].type == "fence" and _fence_info(tokens[j + 1].info)[1]:
            j += 1
        group = tokens[i : j + 1]
        labels = [_fence_info(t.info)[1] for t in group]
        group_id = f"tabs-{i}"
        for k, token in enumerate(group):
            token.meta = {"tab_index": k, "tab_labels": labels, "tab_group": group_id}
        i = j + 1


def _render_fence(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    lang, _ = _fence_info(token.info)
    lang_attr = html.escape(lang or "text", quote=True)
    body = highlight_code(token.content, lang)
    block = f'<pre class="highlight" data-lang="{lang_attr}"><code>{body}</code></pre>\n'
    meta = token.meta or {}
    if "tab_index" not in meta:
        return block
    index, labels, group = meta["tab_index"], meta["tab_labels"], meta["tab_group"]
    panel_id = f"{group}-{index}"
    hidden = "" if index == 0 else " hidden"
    out = ""
    if index == 0:
        buttons = "".join(
            f'<button type="button" role="tab" class="tab" id="{group}-{k}-tab" '
            f'aria-controls="{group}-{k}" aria-selected="{"true" if k == 0 else "false"}">'
            f"{html.escape(label)}</button>"
            for k, label in enumerate(labels)
        )
        out += f'<div class="tabs" data-tabs><div class="tab-list" role="tablist">{buttons}</div>\n'
    out += (
        f'<div class="tab-panel" role="tabpanel" id="{panel_id}" '
        f'aria-labelledby="{panel_id}-tab"{hidden}>{block}</div>\n'
    )
    if index == len(labels) - 1:
        out += "</div>\n"
    return out


def _admonition_renderer(kind: str):
    def render(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        if tokens[idx].nesting != 1:
            return "</details>\n" if kind == "hint" else "</aside>\n"
        title = _ADMONITION_TITLES[env.get("lang", "ko")][kind]
        if kind == "hint":  # hints stay folded until the learner asks
            return f'<details class="admonition hint"><summary>{title}</summary>\n'
        return f'<aside class="admonition {kind}"><p class="admonition-title">{title}</p>\n'

    return render


def _math_inline(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    return f'<span class="math inline">\\({html.escape(tokens[idx].content)}\\)</span>'


def _math_block(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    return f'<div class="math display">\\[{html.escape(tokens[idx].content.strip())}\\]</div>\n'


def _render_link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    if href.startswith(("http://", "https://")):
        token.attrSet("target", "_blank")
        token.attrSet("rel", "noopener noreferrer")
        token.attrJoin("class", "external")
    return self.renderToken(tokens, idx, options, env)


def _render_image(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    alt = html.escape(self.renderInlineAsText(token.children or [], options, env), quote=True)
    name = figure_name(str(token.attrGet("src") or ""))
    base = env.get("figures_url")
    if name is None or not base:  # not a figure of this lesson: nothing to fetch
        return f'<span class="figure-missing">{alt}</span>'
    # width and height give the browser the figure's proportions, so its room is kept
    # before the lazy load and nothing below it moves; CSS scales it to the column.
    size = ""
    path = figure_path(Path(env["figures_dir"]), name) if env.get("figures_dir") else None
    dims = figure_size(path) if path else None
    if dims:
        size = f' width="{dims[0]}" height="{dims[1]}"'
    return (f'<img class="lesson-figure" src="{html.escape(base + name, quote=True)}" alt="{alt}"{size}'
            ' loading="lazy">')


def _render_table_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    # A wide table scrolls inside its own box: on a 390 px phone it would
    # otherwise widen the whole page (issue #13).
    return '<div class="table-scroll">' + self.renderToken(tokens, idx, options, env)


def _render_table_close(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


@functools.cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    md.use(anchors_plugin, min_level=1, max_level=4, slug_func=_slug, permalink=True, permalinkSymbol="#")
    md.use(dollarmath_plugin, allow_space=True, allow_digits=False, double_inline=True)
    for kind in ADMONITIONS:
        md.use(container_plugin, name=kind, render=_admonition_renderer(kind))
    md.core.ruler.push("tab_groups", _mark_tab_groups)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("math_inline", _math_inline)
    md.add_render_rule("math_inline_double", _math_block)
    md.add_render_rule("math_block", _math_block)
    md.add_render_rule("math_block_label", _math_block)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)
    return md


@functools.lru_cache(maxsize=512)
def render_markdown(text: str, lang: str = "ko", figures_url: str = "", figures_dir: str = "") -> str:
    """Markdown → HTML (cached by text and language: a page render is a lookup).
    `figures_url` (`/lessons/<id>/figures/`) is where `figures/…` images are served,
    `figures_dir` the lesson's folder their sizes are read from."""
    if lang not in _ADMONITION_TITLES:
        raise ValueError(f"unknown language {lang!r}")
    return _parser().render(text, {"lang": lang, "figures_url": figures_url, "figures_dir": figures_dir})


def images(text: str) -> list[tuple[str, str]]:
    """(address, alt text) of every image in a Markdown text, in order."""
    found = []
    for block in _parser().parse(text, {"lang": "ko"}):
        for token in block.children or []:
            if token.type == "image":
                alt = "".join(child.content for child in token.children or [])
                found.append((str(token.attrGet("src") or ""), alt))
    return found


@functools.lru_cache(maxsize=1024)
def render_inline(text: str) -> str:
    """One line of Markdown (a hint) without the surrounding paragraph."""
    return _parser().renderInline(text, {"lang": "ko"})
