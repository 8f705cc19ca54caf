"""The home page's track progress in a real browser (issue #14): an anonymous
learner's local progress (localStorage) re-marks the lesson card and recounts
its track's "lessons done" line and meter, in the reader's language."""

from __future__ import annotations

import json


def test_local_progress_recounts_the_track_line(page) -> None:
    page.goto("/?lang=ko")
    page.wait_for_selector("body[data-progress-ready='1']")
    line = page.locator("p.track-progress[data-track-id='foundations']")
    assert line.locator(".track-progress-text").inner_text() == "완료한 레슨: 0 / 1"
    assert line.locator("progress.track-meter").evaluate("m => [m.value, m.max]") == [0, 1]
    # what the browser keeps after an anonymous pass of the track's one exercise
    progress = {"exercises": {"fixture.add_one": 90}, "lessons": []}
    page.evaluate(f"localStorage.setItem('kdojo.progress.v1', {json.dumps(json.dumps(progress))})")
    page.reload()
    page.wait_for_selector("body[data-progress-ready='1']")
    assert page.locator(".lesson-card[data-lesson-id='add-one'] .lesson-state").get_attribute("data-state") == "done"
    assert line.locator(".track-progress-text").inner_text() == "완료한 레슨: 1 / 1"
    assert line.locator("progress.track-meter").evaluate("m => [m.value, m.max]") == [1, 1]
    page.evaluate("localStorage.removeItem('kdojo.progress.v1')")
