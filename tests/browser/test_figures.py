"""Lesson figures in a real Chromium (#28): every lesson that places a figure shows
it, loaded from its own figures URL under the page's Content-Security-Policy, on a
390 px phone without sideways scrolling, in both languages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.content import load_catalog

from .conftest import REPO_ROOT, serving

pytestmark = pytest.mark.browser

LESSONS = REPO_ROOT / "lessons"
PHONE_WIDTH = 390
WITH_FIGURES = sorted(lesson.id for lesson in load_catalog(LESSONS).lessons.values()
                      if any((lesson.dir / "figures").glob("*.svg"))) if any(LESSONS.glob("*/lesson.toml")) else []


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(LESSONS, tmp_path_factory.mktemp("figures"), "--no-worker") as base_url:
        yield base_url


def test_some_lessons_have_figures() -> None:
    assert "coalescing" in WITH_FIGURES


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_figures_show_on_a_phone_without_sideways_scrolling(browser, real_server: str, lang: str,
                                                           artifacts: Path) -> None:
    context = browser.new_context(base_url=real_server, viewport={"width": PHONE_WIDTH, "height": 844},
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    try:
        for lesson_id in WITH_FIGURES:
            page.goto(f"/lessons/{lesson_id}?lang={lang}")
            page.wait_for_selector("body[data-lesson-ready='1']")
            figures = page.locator("#lesson-body img.lesson-figure")
            assert figures.count() >= 1, lesson_id
            for figure in figures.all():
                figure.scroll_into_view_if_needed()  # lazy images load when near the screen
                page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
                assert figure.get_attribute("src").startswith(f"/lessons/{lesson_id}/figures/")
                assert figure.get_attribute("alt").strip()
                box = figure.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE_WIDTH, (lesson_id, box)
                assert box["width"] >= PHONE_WIDTH * 0.75, (lesson_id, box)  # scaled to the column, not shrunk
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH, lesson_id
            if lesson_id == "coalescing":
                figures.first.scroll_into_view_if_needed()
                page.screenshot(path=str(artifacts / f"figure-coalescing-phone-{lang}.png"))
        assert errors == []
    finally:
        context.close()
