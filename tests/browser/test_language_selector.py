"""The kernel-language selector on the lesson page (#29), in a real Chromium over a
`kdojo serve` whose fixture exercise also offers Triton: switching loads Triton's
starter with Python highlighting and Triton's instructions and hints, each language
keeps its own draft, the choice survives a reload, and Submit sends the language.
Judging the Triton kernel needs the judge's language seam: the verdict is asserted by
tests/web/test_language_seam.py after the merge; here the submitted document's
language is read back through the API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import serving
from tests.browser.test_judging import CORRECT, JUDGE_TIMEOUT_MS, type_kernel, wait_for_verdict
from tests.fixtures.triton import ADD_ONE, EXERCISE_ID, build_triton_lessons

pytestmark = pytest.mark.browser

TRITON_STARTER = (ADD_ONE / "starter.triton.py").read_text()
TRITON_KERNEL = (ADD_ONE / "reference.triton.py").read_text()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    lessons = build_triton_lessons(tmp_path_factory.mktemp("triton-lessons") / "lessons")
    with serving(lessons, tmp_path_factory.mktemp("triton-server")) as base_url:
        yield base_url


def open_lesson(page, lang: str) -> None:  # noqa: ANN001
    page.goto(f"/lessons/add-one?lang={lang}")
    page.wait_for_selector("body[data-lesson-ready='1'][data-progress-ready='1']")


def editor_text(page) -> str:  # noqa: ANN001
    return page.evaluate("document.querySelector('.exercise').kdojo.source()")


def choose(page, language: str) -> None:  # noqa: ANN001
    page.locator(f".language-choice[data-language='{language}']").click()
    page.locator(f".exercise[data-language='{language}']").wait_for()


def test_switching_to_triton_loads_its_starter_mode_text_and_keeps_each_draft(page, artifacts: Path) -> None:
    open_lesson(page, "ko")
    picker = page.locator(".language-picker")
    assert picker.is_visible() and picker.get_attribute("aria-label") == "커널 언어"
    assert page.locator(".language-choice").all_inner_texts() == ["CUDA C++", "Triton"]
    assert page.locator(".language-choice[data-language='cuda']").get_attribute("aria-checked") == "true"
    assert "__global__" in editor_text(page)
    assert page.locator(".cm-content").get_attribute("data-language") == "cpp"
    type_kernel(page, "// my CUDA draft\n")

    choose(page, "triton")
    assert editor_text(page) == TRITON_STARTER
    assert page.locator(".cm-content").get_attribute("data-language") == "python"
    assert page.locator(".language-choice[data-language='triton']").get_attribute("aria-checked") == "true"
    assert page.locator(".instructions[data-language-pane='triton']").is_visible()
    assert not page.locator(".instructions[data-language-pane='cuda']").is_visible()
    assert "Triton으로" in page.locator(".instructions[data-language-pane='triton']").inner_text()
    hints = page.locator(".hints[data-language-pane='triton']")
    assert hints.is_visible() and not page.locator(".hints[data-language-pane='cuda']").is_visible()
    hints.locator(".show-hint").click()
    assert "tl.arange" in hints.locator(".hint").first.inner_text()
    assert page.locator(".leaderboard-link").get_attribute("href").endswith("?language=triton")
    page.screenshot(path=str(artifacts / "language-triton-ko.png"), full_page=True)

    type_kernel(page, TRITON_KERNEL)
    choose(page, "cuda")
    assert editor_text(page) == "// my CUDA draft\n"  # each language keeps its own draft
    assert page.locator(".cm-content").get_attribute("data-language") == "cpp"
    choose(page, "triton")
    assert editor_text(page) == TRITON_KERNEL

    open_lesson(page, "ko")  # the choice and the draft survive a reload
    assert page.locator(".exercise").get_attribute("data-language") == "triton"
    assert editor_text(page) == TRITON_KERNEL


def test_submit_sends_the_chosen_language(page) -> None:
    open_lesson(page, "en")
    assert page.locator(".language-picker").get_attribute("aria-label") == "Kernel language"
    choose(page, "triton")
    type_kernel(page, TRITON_KERNEL)
    with page.expect_response(lambda r: r.url.endswith("/api/submissions") and r.request.method == "POST") as posted:
        page.keyboard.press("Control+Enter")
    created = posted.value.json()
    assert posted.value.request.post_data_json["language"] == "triton"
    document = page.request.get(f"/api/submissions/{created['id']}").json()
    assert (document["language"], document["source"]) == ("triton", TRITON_KERNEL)
    # whatever this judge makes of it, the panel and the history name the language
    page.locator(".exercise .results[data-state='done']").wait_for(timeout=JUDGE_TIMEOUT_MS)
    assert page.locator(".exercise .verdict").get_attribute("data-language") == "triton"
    assert "Triton" in page.locator(".exercise .verdict-language").inner_text()
    page.locator(".attempt-list li[data-language='triton']").first.wait_for()
    assert page.locator(".attempt-list li[data-language='cuda']").count() == 0  # Triton's attempts only
    choose(page, "cuda")
    assert page.locator(".exercise .results-idle").is_visible()


# --- the XP badge follows the selector and each verdict (#29) ------------------------------

def badge(page) -> tuple[str, str, str]:  # noqa: ANN001
    node = page.locator(".exercise .badge.xp")
    return node.get_attribute("data-xp-state"), node.get_attribute("data-xp"), node.inner_text()


def submit(page, source: str) -> str:  # noqa: ANN001
    type_kernel(page, source)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(".exercise .results[data-state='running']")
    return wait_for_verdict(page)


def test_a_signed_in_learner_sees_full_then_half_then_what_each_language_earned(page, artifacts: Path) -> None:
    page.goto("/signup?lang=en")
    page.fill("input[name=display_name]", "Polyglot")
    page.fill("input[name=email]", "polyglot@example.com")
    page.fill("input[name=password]", "correct horse battery")
    page.locator(".auth-form button[type=submit]").click()
    page.wait_for_load_state()
    open_lesson(page, "en")
    assert badge(page) == ("full", "50", "50 XP")
    choose(page, "triton")
    assert badge(page) == ("full", "50", "50 XP")  # no language has earned it yet

    choose(page, "cuda")
    assert submit(page, CORRECT) == "accepted"
    assert page.locator(".exercise .verdict .xp-awarded").inner_text().strip() == "+90 XP"  # 50 and the lesson's 40
    page.locator(".exercise .badge.xp[data-xp-state='earned']").wait_for()
    assert badge(page) == ("earned", "50", "Solved in CUDA C++ · 50 XP earned")
    choose(page, "triton")
    assert badge(page) == ("share", "25", "25 XP · half: already solved in CUDA C++")
    page.locator(".exercise h2").screenshot(path=str(artifacts / "xp-badge-share-en.png"))

    assert submit(page, TRITON_KERNEL) == "accepted"
    assert page.locator(".exercise .verdict .xp-awarded").inner_text().strip() == "+25 XP"
    page.locator(".exercise .badge.xp[data-xp-state='earned']").wait_for()
    assert badge(page) == ("earned", "25", "Solved in Triton · 25 XP earned")
    assert page.locator("#bar-xp").get_attribute("data-xp") == "115"
    choose(page, "cuda")
    assert badge(page) == ("earned", "50", "Solved in CUDA C++ · 50 XP earned")

    open_lesson(page, "ko")  # after a reload, in Korean: the remembered choice's badge
    assert badge(page) == ("earned", "50", "CUDA C++ 통과 · 50 XP 받음")
    choose(page, "triton")
    assert badge(page) == ("earned", "25", "Triton 통과 · 25 XP 받음")
    page.goto("/me?lang=en")
    assert page.locator("tr[data-language='cuda']").inner_text().split("\t") == ["CUDA C++", "1", "50"]
    assert page.locator("tr[data-language='triton']").inner_text().split("\t") == ["Triton", "1", "25"]


def test_a_signed_out_learners_second_language_brings_half_once(page) -> None:
    open_lesson(page, "ko")
    # a CUDA pass this browser kept, as K.recordLocalPass keeps it
    page.evaluate("(key) => localStorage.setItem('kdojo.progress.v1', JSON.stringify({exercises: {[key]: 50}, lessons: []}))",
                  EXERCISE_ID)
    open_lesson(page, "ko")
    assert badge(page) == ("earned", "50", "CUDA C++ 통과 · 50 XP 받음")
    choose(page, "triton")
    assert badge(page) == ("share", "25", "25 XP · 절반 (CUDA C++에서 이미 통과)")
    assert submit(page, TRITON_KERNEL) == "accepted"
    assert page.locator(".exercise .verdict .xp-local").inner_text().strip().startswith("+25 XP (이 브라우저에만")
    page.locator(".exercise .badge.xp[data-xp-state='earned']").wait_for()
    assert badge(page) == ("earned", "25", "Triton 통과 · 25 XP 받음")
    kept = page.evaluate("JSON.parse(localStorage.getItem('kdojo.progress.v1')).exercises")
    assert kept == {EXERCISE_ID: 50, f"{EXERCISE_ID}@triton": 25}
    assert submit(page, TRITON_KERNEL) == "accepted"  # a repeat brings nothing more
    assert page.locator(".exercise .verdict .xp-local").count() == 0
    assert badge(page) == ("earned", "25", "Triton 통과 · 25 XP 받음")
