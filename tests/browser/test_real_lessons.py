"""Every lesson in lessons/, in both languages, in a real Chromium: the page
loads without script errors, KaTeX renders every formula, tabs and the editor work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.content import load_catalog

from .conftest import REPO_ROOT, serving

pytestmark = pytest.mark.browser

LESSONS = REPO_ROOT / "lessons"
LESSON_IDS = list(load_catalog(LESSONS).lessons) if any(LESSONS.glob("*/lesson.toml")) else []


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(LESSONS, tmp_path_factory.mktemp("real"), "--no-worker") as base_url:
        yield base_url


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("lesson_id", LESSON_IDS)
def test_real_lesson_renders_cleanly(browser, real_server: str, lesson_id: str, lang: str, artifacts: Path) -> None:
    context = browser.new_context(base_url=real_server, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    try:
        page.goto(f"/lessons/{lesson_id}?lang={lang}")
        page.wait_for_selector("body[data-lesson-ready='1'][data-progress-ready='1']")
        assert errors == []
        assert page.locator(".katex-error").count() == 0, page.locator(".katex-error").first.inner_text()
        assert page.locator("span.math, div.math").count() == page.locator(
            "span.math .katex, div.math .katex").count()
        assert page.locator(".exercise .cm-editor").count() == page.locator(".exercise").count() >= 1
        for group in page.locator("[data-tabs]").all():
            tabs = group.locator("[role=tab]")
            tabs.last.click()
            assert group.locator(".tab-panel").last.is_visible()
        if lesson_id == "reduction":
            page.screenshot(path=str(artifacts / f"reduction-{lang}.png"), full_page=True)
            page.locator("[data-tabs]").first.scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / f"reduction-{lang}-tabs.png"))
    finally:
        context.close()


PHONE_WIDTH = 390  # an iPhone 12-15's CSS width


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_every_lesson_fits_a_phone_without_sideways_scrolling(browser, real_server: str, lang: str,
                                                              artifacts: Path) -> None:
    """At 390 px no lesson page is wider than the screen: wide Markdown tables
    (the benchmark tables of lessons 04-19) scroll inside their own box, long
    inline code wraps."""
    context = browser.new_context(base_url=real_server, viewport={"width": PHONE_WIDTH, "height": 844},
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    too_wide = {}
    try:
        for lesson_id in LESSON_IDS:
            page.goto(f"/lessons/{lesson_id}?lang={lang}")
            page.wait_for_selector("body[data-lesson-ready='1']")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE_WIDTH:
                too_wide[lesson_id] = width
        assert too_wide == {}
        page.goto(f"/lessons/flash-attention?lang={lang}")
        page.wait_for_selector("body[data-lesson-ready='1']")
        tables = page.locator("#lesson-body .table-scroll")
        wide = tables.evaluate_all("els => els.findIndex(e => e.scrollWidth > e.clientWidth)")
        assert wide >= 0  # the benchmark table scrolls inside its box, the page does not
        tables.nth(wide).scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"flash-attention-phone-{lang}.png"))
    finally:
        context.close()
