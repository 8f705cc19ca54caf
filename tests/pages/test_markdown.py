"""The lesson Markdown renderer: tabs, math kept for KaTeX, admonitions, anchors, CUDA highlighting, escaping."""

from __future__ import annotations

import re

import pytest

from app.content.markdown import render_inline, render_markdown

TABS = """\
```cuda tab=CUDA
__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
```
```metal tab=Metal
kernel void k() {}
```
```mojo tab="Mojo (original)"
fn k(): pass
```
"""


def test_consecutive_tab_fences_become_one_tab_group() -> None:
    html = render_markdown(TABS, "en")
    assert html.count('<div class="tabs" data-tabs>') == 1
    assert re.findall(r'role="tab"[^>]*>([^<]+)</button>', html) == ["CUDA", "Metal", "Mojo (original)"]
    panels = re.findall(r'<div class="tab-panel"[^>]*?( hidden)?>', html)
    assert panels == ["", " hidden", " hidden"]  # only the first panel shows
    assert 'data-lang="metal"' in html and 'data-lang="mojo"' in html


def test_separate_tab_groups_stay_separate() -> None:
    html = render_markdown(TABS + "\nBetween.\n\n" + TABS, "en")
    assert html.count('<div class="tabs" data-tabs>') == 2
    ids = re.findall(r'<div class="tab-panel" role="tabpanel" id="([^"]+)"', html)
    assert len(ids) == len(set(ids)) == 6


def test_cuda_is_highlighted_by_the_cuda_lexer() -> None:
    html = render_markdown("```cuda\n__global__ void k() { __syncthreads(); }\n```\n", "ko")
    # The CUDA lexer knows __global__ (keyword type) and threadIdx-style builtins; the C lexer would not.
    assert '<span class="kr">__global__</span>' in html
    assert 'data-lang="cuda"' in html


def test_unknown_language_is_escaped_plain_text() -> None:
    html = render_markdown("```nosuchlang\na < b && c\n```\n", "en")
    assert "a &lt; b &amp;&amp; c" in html


def test_math_is_protected_and_left_for_katex() -> None:
    html = render_markdown("Index $i = b_x \\cdot d_x + t_x$ and *not* $a_1 * b_2$.\n\n$$\n\\sum_i x_i\n$$\n", "en")
    assert r"\(i = b_x \cdot d_x + t_x\)" in html
    assert r"\(a_1 * b_2\)" in html  # the * did not turn into <em>
    assert r"\[\sum_i x_i\]" in html
    assert "<em>not</em>" in html


def test_math_with_html_characters_is_escaped() -> None:
    html = render_markdown("$a<b$\n", "en")
    assert r"\(a&lt;b\)" in html


@pytest.mark.parametrize(("lang", "title"), [("ko", "힌트"), ("en", "Hint")])
def test_hint_admonition_is_folded_and_titled_in_the_language(lang: str, title: str) -> None:
    html = render_markdown("::: hint\nTry **this**.\n:::\n", lang)
    assert f'<details class="admonition hint"><summary>{title}</summary>' in html
    assert "<strong>this</strong>" in html and html.rstrip().endswith("</details>")


@pytest.mark.parametrize(("kind", "ko", "en"), [("note", "참고", "Note"), ("warning", "주의", "Warning")])
def test_note_and_warning_admonitions(kind: str, ko: str, en: str) -> None:
    assert f'<aside class="admonition {kind}"><p class="admonition-title">{ko}</p>' in render_markdown(f"::: {kind}\nx\n:::\n", "ko")
    assert f'<p class="admonition-title">{en}</p>' in render_markdown(f"::: {kind}\nx\n:::\n", "en")


def test_headings_get_anchors_including_korean() -> None:
    html = render_markdown("## Warp shuffle, step 2\n\n### 공유 메모리 트리\n", "ko")
    assert '<h2 id="warp-shuffle-step-2">' in html
    assert '<h3 id="공유-메모리-트리">' in html
    assert '<a class="header-anchor" href="#공유-메모리-트리">' in html


def test_raw_html_is_escaped() -> None:
    html = render_markdown('<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)>\n', "en")
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_external_links_open_in_a_new_tab_internal_ones_do_not() -> None:
    html = render_markdown("[guide](https://docs.nvidia.com/cuda/) and [next](/lessons/reduction)\n", "en")
    assert '<a href="https://docs.nvidia.com/cuda/" target="_blank" rel="noopener noreferrer" class="external">' in html
    assert '<a href="/lessons/reduction">next</a>' in html


def test_javascript_links_are_not_rendered_as_links() -> None:
    html = render_markdown("[x](javascript:alert(1))\n", "en")
    assert 'href="javascript:' not in html


def test_inline_hint_has_no_paragraph() -> None:
    assert render_inline("Use `__shfl_down_sync`.") == "Use <code>__shfl_down_sync</code>."


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown language"):
        render_markdown("x", "fr")


def test_a_table_scrolls_inside_its_own_box() -> None:
    html = render_markdown("| n | time |\n|---|---|\n| 1 | 2 ms |\n", "en")
    assert html.startswith('<div class="table-scroll"><table>') and html.rstrip().endswith("</table>\n</div>")
