"""A GPU profile made after `done` (#26) reaches the open page: the `done` event says
one follows, the panel says it is on its way, and the `profiled` event brings it
in (or, without a source, says none came). The submission's API answers and events
are fed to the page (a GPU worker's timing), the page and its scripts are real."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.test_judging import open_lesson
from tests.browser.test_profile_panel import _profile, _submission

pytestmark = pytest.mark.browser

SUB_ID = 9
FEED_WAIT_S = 10.0


def _sse(*events: tuple[int, str, dict]) -> str:
    return "retry: 60000\n\n" + "".join(f"id: {seq}\nevent: {name}\ndata: {json.dumps(data)}\n\n"
                                        for seq, name, data in events)


def _feed(page, answers: dict) -> list:  # noqa: ANN001
    """Serve submission SUB_ID from `answers["sub"]`; hold the stream after `done` (returned)."""
    held: list = []

    def create(route) -> None:  # noqa: ANN001
        route.fulfill(status=202, content_type="application/json",
                      body=json.dumps({"id": SUB_ID, "status": "queued", "position": 1}))

    def events(route) -> None:  # noqa: ANN001
        if "last_event_id=2" in route.request.url:
            held.append(route)  # answered by the test, when it says the profile came
            return
        route.fulfill(status=200, content_type="text/event-stream", body=_sse(
            (1, "tested", {"verdict": "accepted", "message": "all 4 tests passed", "message_code": "all_passed",
                           "message_params": {"total": 4}}),
            (2, "done", {"verdict": "accepted", "xp_awarded": 0, "achievements": [], "profile_follows": True})))

    page.route(re.compile(r".*/api/submissions$"), create)
    page.route(re.compile(rf".*/api/submissions/{SUB_ID}/events.*"), events)
    page.route(re.compile(rf".*/api/submissions/{SUB_ID}$"),
               lambda route: route.fulfill(status=200, content_type="application/json",
                                           body=json.dumps(answers["sub"])))
    page.route(re.compile(r".*/reference\?submission=.*"), lambda route: route.fulfill(status=404, body=""))
    return held


def _submit_and_wait_for_pending(page, held: list) -> None:  # noqa: ANN001
    page.locator(".exercise button.submit").click()
    page.locator(".exercise .results[data-state='done']").wait_for()
    line = page.locator(".exercise .profile .profile-off")
    assert line.get_attribute("data-state") == "pending"
    for _ in range(int(FEED_WAIT_S / 0.1)):  # the page opens the stream after `done` by itself
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the page did not follow the events after done"


@pytest.mark.parametrize("lang, pending", [("ko", "성능 분석 결과가 오는 중입니다"), ("en", "The profile is on its way")])
def test_a_late_profile_arrives_with_the_profiled_event(page, lang: str, pending: str) -> None:
    open_lesson(page, lang)
    answers = {"sub": _submission(None, None)}
    held = _feed(page, answers)
    _submit_and_wait_for_pending(page, held)
    assert pending in page.locator(".exercise .profile").inner_text()
    assert page.locator(".exercise .profile table.profile-metrics").count() == 0
    answers["sub"] = _submission(_profile(4.0), None)  # stored by the worker, then `profiled`
    held[0].fulfill(status=200, content_type="text/event-stream", body=_sse((3, "profiled", {"source": "emulator"})))
    page.locator(".exercise .profile table.profile-metrics").wait_for()
    assert page.locator(".exercise .profile .profile-off").count() == 0
    assert page.locator(".exercise .results").get_attribute("data-verdict") == "accepted"


@pytest.mark.parametrize("lang, missed", [("ko", "성능 분석기가 이번 제출의 결과를 내지 못했습니다"),
                                          ("en", "The profiler gave no result for this attempt")])
def test_a_profile_that_never_comes_ends_the_wait(page, lang: str, missed: str) -> None:
    open_lesson(page, lang)
    held = _feed(page, {"sub": _submission(None, None)})
    _submit_and_wait_for_pending(page, held)
    held[0].fulfill(status=200, content_type="text/event-stream", body=_sse((3, "profiled", {"source": None})))
    page.locator(".exercise .profile .profile-off[data-state='on']").wait_for()
    assert missed in page.locator(".exercise .profile").inner_text()
