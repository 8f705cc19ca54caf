"""Learner friction of #28 in a real Chromium: "Reset to starter" asks and can be
undone; the problem report still names the last submission after a reload; at
390 px the Performance panel's bars have width and a result does not make the
page scroll sideways."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.browser.test_judge_language import KERNELS
from tests.browser.test_judging import CORRECT, open_lesson, type_kernel, wait_for_verdict
from tests.browser.test_profile_panel import FEED, _profile, _submission

pytestmark = pytest.mark.browser

SOURCE_NOW = "document.querySelector('.exercise').kdojo.source()"
LAYOUT = """() => ({
    scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
    bars: Array.from(document.querySelectorAll('.exercise .results .bench-bar'),
                     (bar) => bar.getBoundingClientRect().width),
})"""


@pytest.fixture
def phone(browser, server: str) -> Iterator[object]:  # noqa: ANN001
    context = browser.new_context(base_url=server, locale="ko-KR", viewport={"width": 390, "height": 844})
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    yield pg
    context.close()


def test_reset_to_starter_asks_first_and_can_be_undone(page) -> None:
    open_lesson(page, "ko")
    starter = page.evaluate(SOURCE_NOW)
    type_kernel(page, CORRECT)
    asked: list[str] = []

    def answer(accept: bool):  # noqa: ANN202
        def handler(dialog) -> None:  # noqa: ANN001
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()
        return handler

    page.once("dialog", answer(False))
    page.locator(".exercise .reset").click()
    assert asked and "시작 코드로 되돌릴까요" in asked[0]
    assert page.evaluate(SOURCE_NOW) == CORRECT  # declined: nothing lost
    page.once("dialog", answer(True))
    page.locator(".exercise .reset").click()
    assert page.evaluate(SOURCE_NOW) == starter
    undo = page.locator(".exercise .reset-undo")
    assert undo.is_visible() and undo.inner_text() == "되돌리기 취소"
    undo.click()
    assert page.evaluate(SOURCE_NOW) == CORRECT and undo.is_hidden()
    open_lesson(page, "ko")  # the draft brought back is saved again
    assert page.evaluate(SOURCE_NOW) == CORRECT
    asked.clear()
    page.once("dialog", answer(True))
    page.locator(".exercise .reset").click()
    assert len(asked) == 1 and page.evaluate(SOURCE_NOW) == starter
    page.on("dialog", answer(False))
    page.locator(".exercise .reset").click()  # the starter itself: nothing to ask, nothing to lose
    page.wait_for_timeout(300)
    assert len(asked) == 1 and page.evaluate(SOURCE_NOW) == starter


def test_the_report_names_the_last_submission_after_a_reload(page) -> None:
    open_lesson(page, "ko")
    type_kernel(page, CORRECT)
    page.keyboard.press("Shift+Control+Enter")
    assert wait_for_verdict(page) == "accepted"
    open_lesson(page, "ko")
    page.locator("#report summary").click()
    preview = page.locator(".report-preview")
    preview.locator("li").first.wait_for()
    assert "제출 #" in preview.inner_text(), preview.inner_text()


def test_at_390_px_bars_have_width_and_the_page_does_not_scroll_sideways(phone) -> None:
    open_lesson(phone, "ko")
    type_kernel(phone, KERNELS["race"][0])  # long messages: a race's, with identifiers
    phone.keyboard.press("Shift+Control+Enter")
    assert wait_for_verdict(phone) == "wrong_answer"
    layout = phone.evaluate(LAYOUT)
    assert layout["scroll"] <= layout["inner"], layout
    phone.evaluate(FEED, _submission(_profile(4.0, ms=0.0571, flops=False), _profile(32.0, ms=0.5, flops=False)))
    layout = phone.evaluate(LAYOUT)
    assert layout["bars"] and min(layout["bars"]) > 0, layout
    assert layout["scroll"] <= layout["inner"], layout


def test_the_attempts_list_shows_each_attempts_code_and_its_diff(page) -> None:
    open_lesson(page, "en")
    for source in (CORRECT, CORRECT.replace("+ 1.0f", "+ 1.0f * 1.0f")):
        type_kernel(page, source)
        page.keyboard.press("Shift+Control+Enter")
        assert wait_for_verdict(page) == "accepted"
    items = page.locator(".exercise .attempts .attempt-list li")
    items.nth(1).locator("details.attempt-code").wait_for(state="attached")
    newest = items.nth(items.count() - 1)
    newest.locator("details.attempt-code summary").click()
    assert newest.locator(".attempt-source").inner_text().strip() == CORRECT.replace("+ 1.0f", "+ 1.0f * 1.0f").strip()
    assert "Changes since the previous attempt" in newest.inner_text()
    added = newest.locator(".attempt-diff .diff-add").all_inner_texts()
    removed = newest.locator(".attempt-diff .diff-del").all_inner_texts()
    assert any("* 1.0f" in line for line in added) and removed and not any("* 1.0f" in line for line in removed)
