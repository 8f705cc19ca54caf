"""The lesson page in a real Chromium: Korean text, tabs, KaTeX, hints, editor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser


def test_lesson_page_in_korean_renders_and_is_screenshotted(page, artifacts: Path) -> None:
    page.goto("/lessons/add-one?lang=ko")
    page.wait_for_selector("body[data-lesson-ready='1']")
    assert page.locator("html").get_attribute("lang") == "ko"
    # the fixture's second lesson is a draft: an anonymous reader counts one lesson
    assert page.locator(".lesson-position").inner_text() == "레슨 01 / 01"
    assert "하나 더하기" in page.locator("h1").first.inner_text()
    # KaTeX turned the protected \( \) spans into rendered math.
    assert page.locator(".lesson-body .katex").count() >= 2
    # CodeMirror replaced the textarea and holds the starter code.
    assert page.locator(".exercise .cm-editor").count() == 1
    assert "TODO" in page.locator(".exercise .cm-content").inner_text()
    # Tabs: Metal is hidden until its tab is clicked.
    metal = page.locator(".tab-panel").nth(1)
    assert metal.is_hidden()
    page.get_by_role("tab", name="Metal").click()
    assert metal.is_visible()
    # Hints are revealed one by one.
    hints = page.locator(".exercise .hint")
    assert hints.nth(0).is_hidden()
    page.locator(".show-hint").click()
    assert hints.nth(0).is_visible() and hints.nth(1).is_hidden()
    page.locator(".show-hint").click()
    assert hints.nth(1).is_visible()
    assert page.locator(".hints-done").is_visible()
    page.screenshot(path=str(artifacts / "lesson.png"), full_page=True)


def test_dark_mode_follows_the_os_setting(browser, server: str) -> None:
    backgrounds = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(base_url=server, color_scheme=scheme)
        page = context.new_page()
        page.goto("/lessons/add-one")
        page.wait_for_selector("body[data-lesson-ready='1']")
        backgrounds[scheme] = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        editor_bg = page.evaluate("getComputedStyle(document.querySelector('.cm-editor')).backgroundColor")
        backgrounds[scheme + "-editor"] = editor_bg
        context.close()
    assert backgrounds["light"] == "rgb(251, 251, 253)"
    assert backgrounds["dark"] == "rgb(21, 23, 28)"
    assert backgrounds["light-editor"] != backgrounds["dark-editor"]  # CodeMirror's one-dark theme


def test_language_switch_is_remembered(page) -> None:
    page.goto("/lessons/add-one")
    assert page.locator("html").get_attribute("lang") == "ko"
    page.get_by_role("link", name="English").click()
    page.wait_for_selector("html[lang=en]")
    page.goto("/")
    assert page.locator("h1").inner_text() == "Lessons"
    assert any(c["name"] == "kdojo_lang" and c["value"] == "en" for c in page.context.cookies())


def test_signed_in_learner_comments_and_reports_a_problem(page) -> None:
    page.goto("/signup?next=/lessons/add-one&lang=en")
    page.fill("input[name=display_name]", "Commenter")
    page.fill("input[name=email]", "commenter@example.com")
    page.fill("input[name=password]", "correct horse battery")
    page.locator(".auth-form button[type=submit]").click()
    page.wait_for_url("**/lessons/add-one")
    page.wait_for_selector("body[data-lesson-ready='1']")
    page.fill(".comment-form textarea", "Why **ceil_div**? <script>window.pwned=1</script>")
    page.locator(".comment-form button[type=submit]").click()
    body = page.locator("#comment-list .comment-body", has_text="Why ceil_div?")
    body.wait_for()  # htmx reloaded the list
    assert body.locator("strong").inner_text() == "ceil_div"
    assert page.evaluate("window.pwned") is None
    page.locator(".comment button.reply").first.click()
    page.fill(".comment-form textarea", "A reply.")
    page.locator(".comment-form button[type=submit]").click()
    page.locator(".comment-replies .comment-body", has_text="A reply.").wait_for()
    # Report a problem from the page.
    page.locator(".report-link").click()
    page.fill(".report-form textarea", "The hint is unclear.")
    page.locator(".report-form button[type=submit]").click()
    page.locator(".report-status", has_text=re.compile(r"\S")).wait_for()  # the CSP allows no eval
    assert page.locator(".report-status").inner_text() == "Sent. Thank you!"


GPU_RESULT = {
    "version": 1, "exercise": "fixture.add_one", "backend": "cuda",
    "device": {"name": "NVIDIA H100 80GB HBM3", "sm_clock_mhz": 1980, "temp_c": 41},
    "verdict": "accepted", "message": "all 4 tests passed",
    "compile": {"ok": True, "seconds": 0.04, "log": "", "diagnostics": []},
    "tests": [{"name": f"n={n}", "status": "pass", "message": "", "output": ""} for n in (1, 3, 256, 1000)],
    "diagnostics": [],
    "benchmark": {"sizes": [
        {"n": 1048576, "label": "1048576", "dims": {"N": 1048576}, "ms": 0.012, "ms_err": 0.0001, "best_ms": 0.011,
         "gbps": 699.1, "pct_of_peak": 23.3, "baselines": {"naive": 26.0, "framework": 0.009}},
        {"n": 268435456, "label": "268435456", "dims": {"N": 268435456}, "ms": 0.72, "ms_err": 0.002, "best_ms": 0.71,
         "gbps": 2982.6, "pct_of_peak": 99.4, "baselines": {"naive": None, "framework": 0.72}},
    ], "geomean_ms": 0.093, "peak_gbps": 3000.0},
    "timings": {"queued_s": 0.0, "compile_s": 0.04, "test_s": 0.2, "bench_s": 0.5, "total_s": 0.8},
}


def test_results_panel_draws_a_chart_per_benchmark_size_for_a_gpu_result(page) -> None:
    """A GPU result document (the judge's v1 schema) in the panel: no GPU here, so it is fed directly."""
    page.goto("/lessons/add-one?lang=en")
    page.wait_for_selector("body[data-lesson-ready='1']")
    page.evaluate(
        """(result) => {
            const section = document.querySelector('.exercise');
            const panel = new KDojoResults.Panel(section.querySelector('.results'));
            panel.reset();
            panel.final({verdict: 'accepted', result, xp_awarded: 80, achievements: ['first_kernel']}, null);
        }""",
        GPU_RESULT,
    )
    bench = page.locator(".exercise .bench")
    assert "NVIDIA H100 80GB HBM3" in bench.inner_text()
    charts = bench.locator("figure.bench-size")
    assert charts.count() == 2
    first = [r.get_attribute("class") for r in charts.nth(0).locator(".bench-row").all()]
    assert first == ["bench-row yours", "bench-row naive", "bench-row framework", "bench-row limit"]
    assert "699 GB/s" in charts.nth(0).inner_text() and "23.3% of peak bandwidth" in charts.nth(0).inner_text()
    # Hardware limit = time x achieved / peak bandwidth: 0.72 ms x 2982.6 / 3000.
    assert "0.716 ms" in charts.nth(1).locator(".bench-row.limit").inner_text()
    assert charts.nth(1).locator(".bench-row.naive").count() == 0  # skipped above max_n
    assert "+80 XP" in page.locator(".exercise .verdict").inner_text()
    assert "Achievement unlocked: First kernel" in page.locator(".exercise .verdict").inner_text()
    assert "timings are not available" not in bench.inner_text()


def _sign_up_in(browser, server: str, name: str, email: str):
    context = browser.new_context(base_url=server)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto("/signup?next=/lessons/add-one&lang=en")
    page.fill("input[name=display_name]", name)
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", "correct horse battery")
    page.locator(".auth-form button[type=submit]").click()
    page.wait_for_url("**/lessons/add-one")
    page.wait_for_selector("body[data-lesson-ready='1']")
    return context, page


def test_reply_notification_shows_in_the_header_and_is_marked_read(browser, server: str, artifacts: Path) -> None:
    author_ctx, author = _sign_up_in(browser, server, "Author", "author@example.com")
    replier_ctx, replier = _sign_up_in(browser, server, "Replier", "replier@example.com")
    try:
        author.fill(".comment-form textarea", "A question from the author.")
        author.locator(".comment-form button[type=submit]").click()
        author.locator("#comment-list .comment-body", has_text="A question from the author.").wait_for()
        replier.reload()
        replier.wait_for_selector("body[data-lesson-ready='1']")
        replier.locator(".comment button.reply").last.click()
        replier.fill(".comment-form textarea", "An answer.")
        replier.locator(".comment-form button[type=submit]").click()
        # Wait for this very reply: other tests on this server left replies of their own.
        replier.locator(".comment-replies .comment-body", has_text="An answer.").wait_for()
        author.reload()
        author.wait_for_selector("body[data-lesson-ready='1']")
        count = author.locator("#notification-count")
        assert count.inner_text() == "1"
        author.locator("#notifications summary").click()
        item = author.locator("#notification-list li a").first
        item.wait_for()
        assert item.inner_text() == "Replier replied to your comment"
        assert "/lessons/add-one#comment-" in item.get_attribute("href")
        author.screenshot(path=str(artifacts / "notifications.png"))
        author.locator("#notification-count", has_text=re.compile(r"^0$")).wait_for()
    finally:
        author_ctx.close()
        replier_ctx.close()
