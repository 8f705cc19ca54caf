"""The judge speaks the page's language (#28): one kernel of each diagnostic kind is
judged on the emulator in a real Chromium, and the Korean page's result panel has
no English sentence left (the compiler's own text is shown as code); the English
page names a fault once ("data race on …", never "data race: data race on …")."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_judging import BROKEN, open_lesson, type_kernel, wait_for_verdict

pytestmark = pytest.mark.browser

HEAD = 'extern "C" __global__ void add_one(const float* in, float* out, int N) {\n' \
       "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
KERNELS = {  # kind → (kernel, verdict, a diagnostic kind the panel must list, or "")
    "race": (HEAD.replace("    int i", "    __shared__ float tile[256];\n    int i") +
             "    tile[threadIdx.x] = i < N ? in[i] : 0.0f;\n"
             "    float v = tile[(threadIdx.x + 1) % 256];\n"
             "    if (i < N) out[i] = v - v + tile[threadIdx.x] + 1.0f;\n}\n", "wrong_answer", "race"),
    "divergent_barrier": (HEAD + "    if (threadIdx.x < 16) {\n        __syncthreads();\n    }\n"
                          "    if (i < N) out[i] = in[i] + 1.0f;\n}\n", "accepted", "divergent_barrier"),
    "out_of_bounds": (HEAD + "    if (i < N) out[i] = in[i + 1] + 1.0f;\n}\n", "wrong_answer", "out_of_bounds"),
    "segfault": (HEAD + "    float* p = (float*)0x10;\n    if (i < N) out[i] = p[i] + 1.0f;\n}\n",
                 "runtime_error", "invalid_memory_access"),
    "time_limit": (HEAD + "    while (in[0] == in[0]) { }\n    if (i < N) out[i] = in[i] + 1.0f;\n}\n",
                   "time_limit_exceeded", ""),
    "compile_error": (BROKEN, "compile_error", ""),
    # our own compile diagnostics (#28): said in Korean, in the verdict and in the list
    "include_forbidden": ("#include <stdlib.h>\n" + HEAD + "    if (i < N) out[i] = in[i] + 1.0f;\n}\n", "rejected", ""),
    "trap": (HEAD + "    if (i == 5) __trap();\n    if (i < N) out[i] = in[i] + 1.0f;\n}\n", "runtime_error", ""),
}
# What may stay ASCII in a Korean sentence: quoted names, CUDA identifiers, directives
# (#include), addresses, acronyms (DRAM, FLOP) and the buttons' names (Run, Submit), as
# tests/pages/test_i18n.py
_IDENTIFIERS = re.compile(r"'[^']*'|__\w+(?:\(\))?|\bextern\b|#\w+|\b0x[0-9a-f]+\b|\b[A-Z0-9]+\b|\bRun\b|\bSubmit\b")
PANEL_TEXT = """(root) => {
    const copy = root.cloneNode(true);
    copy.querySelectorAll("code, details").forEach((node) => node.remove());
    document.body.append(copy);
    const text = copy.innerText;
    copy.remove();
    return text;
}"""


def judge(page, source: str) -> str:
    type_kernel(page, source)
    page.keyboard.press("Shift+Control+Enter")  # Run: tests only
    return wait_for_verdict(page)


@pytest.mark.parametrize("kind", list(KERNELS))
def test_the_korean_page_shows_each_judge_message_in_korean(page, kind: str) -> None:
    source, verdict, diagnostic = KERNELS[kind]
    open_lesson(page, "ko")
    assert judge(page, source) == verdict
    panel = page.locator(".exercise .results")
    if diagnostic:
        assert panel.locator(f".diagnostics .diag-kind[data-kind='{diagnostic}']").count() >= 1
    text = panel.evaluate(PANEL_TEXT)
    english = re.findall(r"[A-Za-z]{4,}", _IDENTIFIERS.sub("", text))
    assert english == [], (kind, english, text)
    if kind == "compile_error":  # the compiler's words, as code, after the Korean frame
        assert re.match(r"컴파일 오류 — [23]번째 줄: ", page.locator(".exercise .verdict").inner_text())
        assert page.locator(".exercise .verdict code.tool-text").count() == 1
    if kind == "include_forbidden":
        assert "#include할 수 없습니다" in page.locator(".exercise .compile-errors").inner_text()


def test_the_english_page_names_a_fault_once(page) -> None:
    open_lesson(page, "en")
    assert judge(page, KERNELS["race"][0]) == "wrong_answer"
    panel = page.locator(".exercise .results")
    text = panel.inner_text()
    assert "data race on shared memory array 'tile' element" in text
    assert "missing barrier" in text
    doubled = re.findall(r"\b([a-z][a-z -]{3,}): \1\b", text)
    assert doubled == [], doubled
    verdict = page.locator(".exercise .verdict").inner_text()
    assert re.match(r"Wrong answer — 4 of 4 tests failed; first: n=1: data race on ", verdict), verdict
