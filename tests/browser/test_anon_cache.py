"""A real browser on the anonymous lesson page served from memory (issue #4): a
second reader, right after the first, gets the stored page with their own CSRF
token, and Run works with it (POST /api/submissions, then the stages over SSE)."""

from __future__ import annotations

import pytest

from .test_judging import WRONG, open_lesson, type_kernel, wait_for_verdict

pytestmark = pytest.mark.browser


def test_second_anonymous_reader_runs_a_kernel_from_the_stored_page(browser, server: str) -> None:
    first = browser.new_context(base_url=server, locale="ko-KR")
    second = browser.new_context(base_url=server, locale="ko-KR")
    try:
        a, b = first.new_page(), second.new_page()
        open_lesson(a)
        open_lesson(b)  # well within the 2 s an anonymous page is kept
        token_a = a.locator('meta[name="csrf-token"]').get_attribute("content")
        token_b = b.locator('meta[name="csrf-token"]').get_attribute("content")
        cookie_b = next(c["value"] for c in second.cookies() if c["name"] == "kdojo_csrf")
        assert token_a and token_b and token_a != token_b and token_b == cookie_b
        b.set_default_timeout(20_000)
        type_kernel(b, WRONG)
        b.keyboard.press("Control+Enter")
        b.locator(".exercise .stages li").first.wait_for()  # the POST passed the CSRF check
        assert wait_for_verdict(b) == "wrong_answer"
    finally:
        first.close()
        second.close()
