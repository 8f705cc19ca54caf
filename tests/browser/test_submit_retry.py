"""The lesson page's post of a submission survives a lost answer (#25): it retries
with the same Idempotency-Key, the server answers with the submission the first
post created, and the learner sees one submission judged, not two."""

from __future__ import annotations

import pytest

from tests.browser.test_judging import (
    CORRECT,
    open_lesson,
    type_kernel,
    wait_for_verdict,
)

pytestmark = pytest.mark.browser


def test_a_lost_answer_is_retried_with_the_same_key_and_creates_one_submission(page) -> None:
    posts: list[dict] = []

    def lose_the_first_answer(route) -> None:  # noqa: ANN001
        if route.request.method != "POST":
            route.continue_()
            return
        response = route.fetch()  # the server gets the request and answers it…
        posts.append({"key": route.request.headers.get("idempotency-key"), "status": response.status,
                      "id": response.json()["id"]})
        if len(posts) == 1:
            route.abort("connectionreset")  # …but the first answer never reaches the page
        else:
            route.fulfill(response=response)

    page.route("**/api/submissions", lose_the_first_answer)
    open_lesson(page, "en")
    type_kernel(page, CORRECT)
    page.keyboard.press("Control+Enter")
    assert wait_for_verdict(page) == "accepted"
    assert len(posts) == 2, posts
    assert posts[0]["key"] and posts[1]["key"] == posts[0]["key"]
    assert [p["status"] for p in posts] == [202, 200]
    assert posts[1]["id"] == posts[0]["id"]
    exercise_id = page.evaluate("document.querySelector('.exercise').kdojo.id")
    attempts = page.request.get(f"/api/exercises/{exercise_id}/attempts").json()["attempts"]
    assert [a["id"] for a in attempts] == [posts[0]["id"]]

    # The next click is a new submission: a fresh key.
    page.keyboard.press("Control+Enter")
    assert wait_for_verdict(page) == "accepted"
    assert len(posts) == 3 and posts[2]["key"] != posts[0]["key"] and posts[2]["status"] == 202
