"""The learner bar and merging browser-local progress into an account."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.web.conftest import EXERCISE, csrf, signup, store_verdict, v1_result


def test_anonymous_summary_starts_from_zero_like_the_seed(client):
    body = client.get("/api/me/progress").json()
    assert body["signed_in"] is False
    assert (body["level"], body["level_title"], body["xp"]) == (0, "Beginner", 0)
    assert (body["xp_in_level"], body["level_span_xp"], body["xp_to_next"]) == (0, 100, 100)
    assert (body["lessons_done"], body["lessons_total"]) == (0, 2)
    assert (body["achievements_done"], body["achievements_total"], body["pct_complete"]) == (0, 12, 0)
    assert len(body["achievements"]) == 12 and not any(a["unlocked"] for a in body["achievements"])


def test_signing_in_claims_this_browsers_anonymous_acceptance_with_xp(client, app):
    client.cookies.set("kdojo_anon", "browser-1")
    sub_id = store_verdict(app, None, v1_result("accepted"), anon_id="browser-1")
    assert client.get(f"/api/submissions/{sub_id}").json()["xp_awarded"] == 0  # anonymous: no XP
    signup(client)
    body = client.get("/api/me/progress").json()
    assert body["xp"] == 90 and body["completed_exercise_ids"] == [EXERCISE]
    claimed = client.get(f"/api/submissions/{sub_id}").json()  # now the account's
    assert claimed["xp_awarded"] == 90 and "first_kernel" in claimed["achievements"]


def test_claims_the_browser_cannot_back_count_as_progress_without_xp(client):
    signup(client)
    merged = client.post("/api/progress/merge",
                         json={"exercise_ids": [EXERCISE, "made.up"], "lesson_ids": ["reduction"]},
                         headers=csrf(client)).json()
    assert merged["xp_gained"] == 0 and merged["claimed_submissions"] == []
    progress = merged["progress"]
    assert progress["completed_exercise_ids"] == [EXERCISE]  # the unknown id is ignored
    assert progress["completed_lesson_ids"] == ["reduction"] and progress["xp"] == 0


def test_a_later_real_acceptance_upgrades_a_merged_claim_and_earns_xp(client, app):
    user = signup(client)
    client.post("/api/progress/merge", json={"exercise_ids": [EXERCISE]}, headers=csrf(client))
    store_verdict(app, user["id"], v1_result("accepted"))
    assert client.get("/api/me/progress").json()["xp"] == 90


def test_another_browsers_submissions_are_not_claimed(client, app):
    store_verdict(app, None, v1_result("accepted"), anon_id="someone-else")
    client.cookies.set("kdojo_anon", "mine")
    signup(client)
    assert client.get("/api/me/progress").json()["xp"] == 0


def test_merge_requires_sign_in(client):
    response = client.post("/api/progress/merge", json={"exercise_ids": [EXERCISE]}, headers=csrf(client))
    assert response.status_code == 401


def test_level_one_at_100_xp(client, app):
    user = signup(client)
    client.post("/api/progress/merge", json={"lesson_ids": ["intro"]}, headers=csrf(client))  # +10
    store_verdict(app, user["id"], v1_result("accepted"))  # +50 exercise, +40 lesson
    body = client.get("/api/me/progress").json()
    assert (body["xp"], body["level"], body["level_title"], body["level_title_ko"]) == (100, 1, "Thread", "스레드")
    assert body["pct_complete"] == 100
    with TestClient(app) as anon:
        assert anon.get("/api/me/progress").json()["xp"] == 0
