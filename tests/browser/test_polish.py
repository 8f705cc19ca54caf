"""Issue #13 in a real Chromium, in Korean and English: what a learner sees.

Judge messages in the reader's language, stages with elapsed seconds, Run not
counted, the anonymous "+XP" line, warnings apart from errors, HTML error
pages, sign-in errors by code, the language switch keeping `next=`, comment
counts, local times, the report's section and preview, hints kept on reload,
the /me chart's axis."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .test_judging import CORRECT, WRONG, open_lesson, type_kernel, wait_for_verdict

pytestmark = pytest.mark.browser

WRONG_RESULT = {
    "version": 1, "exercise": "fixture.add_one", "backend": "emu",
    "device": {"name": None, "sm_clock_mhz": None, "temp_c": None},
    "verdict": "wrong_answer", "message": "2 of 4 tests failed; first: n=3: out[1]: expected 3, got 4; 1 of 3 element(s) differ",
    "message_code": "tests_failed", "message_params": {"failed": 2, "total": 4, "case": "n=3"},
    "compile": {"ok": True, "seconds": 0.5, "log": "kernel.cu(3): warning: variable \"unused\" was declared but never referenced",
                "diagnostics": [{"line": 3, "column": 9, "severity": "warning",
                                 "message": "variable \"unused\" was declared but never referenced"}]},
    "tests": [
        {"name": "n=1", "status": "pass", "message": "", "output": ""},
        {"name": "n=3", "status": "fail", "output": "",
         "message": "out[1]: expected 3, got 4; 1 of 3 element(s) differ", "message_code": "mismatch",
         "message_params": {"where": "out[1]", "expected": "3", "got": "4", "count": 1, "size": 3, "never_written": 0}},
        {"name": "n=256", "status": "error", "output": "",
         "message": "out-of-bounds read: address 0x10 (line 4)", "message_code": "fault",
         "message_params": {"name": "out-of-bounds read", "detail": "address 0x10 (line 4)"}},
        {"name": "n=1000", "status": "fail", "message": "something new", "message_code": "a_future_code",
         "message_params": {}, "output": ""},
    ],
    "diagnostics": [{"kind": "race", "line": 5, "message": "a write-write race on shared memory"}],
    "benchmark": None, "timings_note": "emu",
    "timings": {"queued_s": 0.0, "compile_s": 0.5, "test_s": 0.2, "bench_s": 0.0, "total_s": 0.7},
}

FEED = """(args) => {
    const section = document.querySelector('.exercise');
    const panel = new KDojoResults.Panel(section.querySelector('.results'));
    panel.reset();
    panel.final(args.sub, null, args.extra || {});
}"""


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_judge_messages_and_warnings_in_the_readers_language(page, lang: str) -> None:
    open_lesson(page, lang)
    page.evaluate(FEED, {"sub": {"verdict": "wrong_answer", "mode": "submit", "result": WRONG_RESULT}})
    verdict = page.locator(".exercise .verdict").inner_text()
    tests = page.locator(".exercise .tests li.test")
    errors_box = page.locator(".exercise .compile-errors")
    # The verdict's name in words, never its id (wrong_answer).
    assert page.locator(".exercise .verdict-name").inner_text() == ("틀린 답" if lang == "ko" else "Wrong answer")
    if lang == "ko":
        assert "틀린 답" in verdict
        assert "테스트 4개 중 2개 실패 — 첫 실패: n=3: out[1]: 기댓값 3, 실제 값 4" in verdict, verdict
        assert "expected" not in verdict and "tests failed" not in verdict
        assert tests.nth(1).locator(".test-message").inner_text() == \
            "out[1]: 기댓값 3, 실제 값 4 — 원소 3개 중 1개가 다릅니다"
        assert tests.nth(2).locator(".test-message").inner_text() == "범위 밖 읽기: address 0x10 (line 4)"
        assert tests.nth(1).locator(".test-status").inner_text() == "실패"
        # Warnings under their own title, not "compile errors"; the log toggle is translated.
        assert errors_box.locator(".diag-group.warnings h4").inner_text() == "컴파일 경고"
        assert errors_box.locator("details summary").inner_text() == "컴파일러 로그"
        assert page.locator(".exercise .diagnostics .diag-kind").inner_text() == "데이터 경쟁"
    else:
        assert "2 of 4 tests failed; first: n=3: out[1]: expected 3, got 4; 1 of 3 element(s) differ" in verdict
        assert errors_box.locator(".diag-group.warnings h4").inner_text() == "Compiler warnings"
        assert errors_box.locator("details summary").inner_text() == "Compiler log"
    # A code this page does not know: the judge's English message, as it is.
    assert tests.nth(3).locator(".test-message").inner_text() == "something new"
    assert errors_box.locator(".diag-group.errors").count() == 0
    assert "variable \"unused\"" in errors_box.locator(".diag-group.warnings").inner_text()


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_repeated_diagnostics_fold_under_the_first_of_their_line(page, lang: str) -> None:
    """A missing bounds check reports the same line once per test case and
    buffer (25 items for lesson 01); the panel shows one item per kind and
    line, the rest folded under it with their count."""
    oob = [{"kind": "out_of_bounds", "line": 9, "message": f"out-of-bounds read of 4 bytes: buffer 'x' at element 255, "
                                                          f"valid elements are 0..{n} (thread 255 of block 0, line 9)"}
           for n in range(6)]
    result = WRONG_RESULT | {"diagnostics": [*oob, {"kind": "race", "line": 5, "message": "a write-write race"}]}
    open_lesson(page, lang)
    page.evaluate(FEED, {"sub": {"verdict": "wrong_answer", "mode": "submit", "result": result}})
    items = page.locator(".exercise .diagnostics > ul > li")
    assert items.count() == 2
    first = items.nth(0)
    assert first.locator(".diag-message").inner_text().endswith("valid elements are 0..0 (thread 255 of block 0, line 9)")
    more = first.locator("details.diag-more")
    assert more.locator("summary").inner_text() == ("같은 줄의 같은 종류 5건 더" if lang == "ko" else "5 more of this kind on this line")
    assert not more.locator("li").first.is_visible()  # folded until asked
    more.locator("summary").click()
    assert more.locator("li").count() == 5 and more.locator("li").last.is_visible()
    assert items.nth(1).locator("details").count() == 0  # a single item has nothing to fold


def test_wrong_kernel_judged_live_in_korean_with_stages_and_seconds(page) -> None:
    open_lesson(page, "ko")
    type_kernel(page, WRONG)
    page.locator(".exercise button.submit").click()
    # the running stage carries the seconds since submit
    page.locator(".exercise .stages li.active .elapsed", has_text="초").first.wait_for()
    assert wait_for_verdict(page) == "wrong_answer"
    verdict = page.locator(".exercise .verdict").inner_text()
    assert "틀린 답" in verdict and "실패" in verdict and "expected" not in verdict, verdict
    testing = page.locator(".exercise .stages li[data-stage='testing']").inner_text()
    assert re.fullmatch(r"테스트 중 \d/4 · \d+\.\d초", testing), testing
    message = page.locator(".exercise .tests li.test.fail .test-message").first.inner_text()
    assert "기댓값" in message and "expected" not in message, message
    # The attempts list names verdicts in Korean, not by their ids alone.
    page.locator(".exercise .attempts .attempt-list li").first.wait_for()
    attempt = page.locator(".exercise .attempts .attempt-list li").last.inner_text()
    assert "틀린 답" in attempt and "제출" in attempt, attempt


def test_run_is_not_counted_and_an_anonymous_pass_shows_its_xp(page) -> None:
    open_lesson(page, "en")
    type_kernel(page, CORRECT)
    page.locator(".exercise button.run").click()
    assert wait_for_verdict(page) == "accepted"
    assert page.locator(".exercise .verdict .run-note").inner_text() == "Run is not counted: Submit earns the XP."
    assert page.locator("#bar-xp").inner_text() == "0 XP"
    page.locator(".exercise button.submit").click()
    page.wait_for_selector(".exercise .results[data-state='running']")
    assert wait_for_verdict(page) == "accepted"
    assert page.locator(".exercise .verdict .run-note").count() == 0
    assert page.locator(".exercise .verdict .xp-local").inner_text().strip().startswith("+50 XP (saved in this browser only")


def test_error_pages_are_html_in_the_readers_language(page) -> None:
    response = page.goto("/nonexistent")
    assert response.status == 404
    assert page.locator("h1").inner_text() == "페이지를 찾을 수 없습니다."
    assert page.locator(".site-header").is_visible()
    response = page.goto("/admin/tokens?lang=en")
    assert response.status == 401 and page.locator("h1").inner_text() == "Sign in to see this page."
    response = page.goto("/exercises/fixture.add_one/reference?submission=1")
    assert response.status == 404 and page.locator("h1").inner_text() == "Page not found."


def test_signin_errors_by_code_and_the_language_switch_keeps_next(page) -> None:
    page.goto("/signin?next=/lessons/add-one&lang=ko")
    page.fill("input[name=email]", "nobody@example.com")
    page.fill("input[name=password]", "not the password")
    page.locator(".auth-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/signin\?error=signin_failed"))
    assert page.locator(".form-error").inner_text() == "이메일 또는 비밀번호가 맞지 않습니다."
    page.get_by_role("link", name="English").click()
    page.wait_for_selector("html[lang=en]")
    assert page.locator(".form-error").inner_text() == "The e-mail or password is wrong."
    assert page.locator("input[name=next]").get_attribute("value") == "/lessons/add-one"
    # A crafted link's text is never shown.
    page.goto("/signin?error=Call+555-0100+to+unlock")
    assert "555-0100" not in page.locator("main").inner_text()


def test_a_refused_sign_up_keeps_what_was_typed_but_the_password(page) -> None:
    """A too common password sent the learner back with the display name gone."""
    page.goto("/signup?lang=ko")
    page.fill("input[name=display_name]", "김커널")
    page.fill("input[name=email]", "kim@example.com")
    page.fill("input[name=password]", "password")
    page.locator(".auth-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/signup\?error=password_common"))
    assert page.locator(".form-error").inner_text() == "너무 흔한 비밀번호입니다. 다른 비밀번호를 골라 주세요."
    assert page.locator("input[name=display_name]").input_value() == "김커널"
    assert page.locator("input[name=email]").input_value() == "kim@example.com"
    assert page.locator("input[name=password]").input_value() == ""


def test_comments_count_times_report_and_hints(browser, server: str, artifacts: Path) -> None:
    context = browser.new_context(base_url=server, locale="ko-KR", timezone_id="Asia/Seoul",
                                  viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto("/signup?next=/lessons/add-one&lang=ko")
    page.fill("input[name=display_name]", "Polish")
    page.fill("input[name=email]", "polish@example.com")
    page.fill("input[name=password]", "correct horse battery")
    page.locator(".auth-form button[type=submit]").click()
    page.wait_for_url("**/lessons/add-one")
    page.wait_for_selector("body[data-lesson-ready='1']")
    assert "로그인 필요" not in page.locator("#comments").inner_text()
    before = int(page.locator("#comments-title").get_attribute("data-count"))
    page.fill(".comment-form textarea", "첫 댓글")
    page.locator(".comment-form button[type=submit]").click()
    page.locator("#comment-list .comment-body", has_text="첫 댓글").wait_for()
    page.locator(f"#comments-title[data-count='{before + 1}']").wait_for()  # locators: the CSP allows no eval
    assert page.locator("#comments-title").inner_text() == f"댓글 {before + 1}"
    # The comment's time: in the reader's zone (Seoul), labelled, not bare UTC.
    stamp = page.locator("#comment-list time").first
    page.locator("#comment-list time[data-local='1']").first.wait_for()
    shown = stamp.inner_text()
    assert "UTC" not in shown and re.search(r"GMT\+9|KST", shown), shown
    # Report: the section being read when the form is opened, previewed.
    heading = page.locator(".lesson-body h2").first
    heading.evaluate("(h) => window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 100)")
    page.wait_for_timeout(200)
    page.locator(".report-link").click()
    preview = page.locator(".report-preview")
    preview.locator("li").first.wait_for()
    title = heading.evaluate("(h) => h.firstChild.textContent.trim()")
    assert preview.locator("li").first.inner_text() == f"보던 부분: {title}"
    # Hints: revealed ones stay revealed after a reload.
    page.locator(".exercise .show-hint").click()
    assert page.locator(".exercise .hint").first.is_visible()
    page.reload()
    page.wait_for_selector("body[data-lesson-ready='1']")
    assert page.locator(".exercise .hint").first.is_visible()
    assert page.locator(".exercise .hint").nth(1).is_hidden()
    page.screenshot(path=str(artifacts / "polish-comments-ko.png"), full_page=True)
    context.close()


def test_me_chart_with_one_day_of_xp_has_a_sensible_axis(browser, server: str, artifacts: Path) -> None:
    context = browser.new_context(base_url=server, locale="en-US", timezone_id="America/New_York",
                                  viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto("/signup?next=/lessons/add-one&lang=en")
    page.fill("input[name=display_name]", "Charted")
    page.fill("input[name=email]", "charted@example.com")
    page.fill("input[name=password]", "correct horse battery")
    page.locator(".auth-form button[type=submit]").click()
    page.wait_for_url("**/lessons/add-one")
    page.wait_for_selector("body[data-lesson-ready='1']")
    type_kernel(page, CORRECT)
    page.locator(".exercise button.submit").click()
    page.wait_for_selector(".exercise .results[data-state='running']")
    assert wait_for_verdict(page) == "accepted"
    page.goto("/me")
    page.locator("#xp-chart .u-over").wait_for()
    low, high = page.evaluate("JSON.parse(document.getElementById('xp-chart').dataset.range)")
    assert 0 < high - low <= 3 * 24 * 3600  # about a day either side, not years
    year = str(page.evaluate("new Date().getFullYear()"))
    ticks = page.locator("#xp-chart").get_attribute("data-ticks")  # the x axis' labels (drawn on a canvas)
    assert not any(str(int(year) + k) in ticks for k in (1, 2, 3)), ticks
    assert re.search(r"\d:\d\d (AM|PM)", ticks) and not re.search(r"\d(am|pm)\b", ticks), ticks  # Intl's, not uPlot's
    # the submissions table: translated verdict, local time with its zone
    row = page.locator("table.data tbody tr").first
    when = row.locator("time").inner_text()
    # the exercise by its title, linked to its lesson, not by its id
    assert row.locator("a[href='/lessons/add-one#exercise-fixture.add_one']").inner_text() == "Add one"
    assert "fixture.add_one" not in row.inner_text()
    assert "Accepted" in row.inner_text() and "accepted" not in row.inner_text() and "UTC" not in when and re.search(r"\b(EST|EDT)\b", when), when
    page.screenshot(path=str(artifacts / "me-one-day.png"), full_page=True)
    # In Korean the ticks are Korean times ("오후 3:05"), not uPlot's English "3:05pm".
    page.goto("/me?lang=ko")
    page.locator("#xp-chart .u-over").wait_for()
    ticks_ko = page.locator("#xp-chart").get_attribute("data-ticks")
    assert re.search(r"(오전|오후) \d{1,2}:\d\d", ticks_ko) and not re.search(r"am|pm", ticks_ko), ticks_ko
    page.screenshot(path=str(artifacts / "me-one-day-ko.png"), full_page=True)
    context.close()


def test_api_docs_render_without_the_internet(page, server: str) -> None:
    # every request that does not go to our server fails, as on a machine offline
    elsewhere: list[str] = []

    def only_ours(route) -> None:  # noqa: ANN001
        if route.request.url.startswith(server):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_ours)
    page.goto("/api/docs")
    page.locator(".swagger-ui .info .title", has_text="Kernel Dojo").wait_for()
    assert page.locator(".swagger-ui .opblock").count() > 5
    assert elsewhere == []  # not even a favicon from another site


def test_the_verdict_shows_before_the_benchmark_ends(page) -> None:
    """The judge's `tested` event puts the verdict on screen while the benchmark still runs."""
    open_lesson(page, "ko")
    page.evaluate("""() => {
        const panel = new KDojoResults.Panel(document.querySelector('.exercise .results'));
        panel.reset();
        panel.stage('compiling', {});
        panel.stage('test_start', {index: 0, total: 2});
        panel.stage('testing', {index: 1, total: 2, test: {name: 'n=1', status: 'pass', message: '', output: ''}});
        panel.tested({verdict: 'accepted', message: 'all 2 tests passed', message_code: 'all_passed',
                      message_params: {total: 2}, benchmark_follows: true});
        panel.stage('benchmarking', {index: 0, total: 3});
        window.kdojoPanel = panel;
    }""")
    results = page.locator(".exercise .results")
    assert results.get_attribute("data-state") == "running"
    assert page.locator(".exercise .verdict").inner_text() == "통과 — 테스트 2개를 모두 통과했습니다"
    active = page.locator(".exercise .stages li.active")
    assert active.get_attribute("data-stage") == "benchmarking"
    page.locator(".exercise .stages li.active .elapsed", has_text="초").wait_for()
    assert re.fullmatch(r"벤치마크 중 1/3 · \d+\.\d초", active.inner_text())
    page.evaluate("window.kdojoPanel.stopClock()")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_notification_panel_stays_on_a_phones_screen(browser, server: str, lang: str, artifacts: Path) -> None:
    """At 390 px the panel hung off the left edge ("r replied to your comment")."""
    context = browser.new_context(base_url=server, viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"/signup?lang={lang}")
    page.fill("input[name=display_name]", "Phone")
    page.fill("input[name=email]", f"phone-{lang}@example.com")
    page.fill("input[name=password]", "correct horse battery")
    page.locator(".auth-form button[type=submit]").click()
    page.wait_for_url("**/")
    page.locator("#notifications summary").click()
    panel = page.locator(".notification-panel")
    panel.locator("li").first.wait_for()  # "no new notifications" at least
    box = panel.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(artifacts / f"notifications-phone-{lang}.png"))
    context.close()
