"""The 12 achievements: one definition list, a test for each, unlocked once."""

from __future__ import annotations

import dataclasses

import pytest
from fastapi.testclient import TestClient

from app.achievements import ACHIEVEMENTS, BY_ID, LearnerStats, unlocked_ids
from tests.web.conftest import csrf, signup, store_verdict, v1_result

# achievement id -> (stats just reaching it, stats just short of it)
THRESHOLDS = {
    "first_kernel": ({"accepted_exercises": 1}, {"accepted_exercises": 0}),
    "first_try": ({"first_try_accepts": 1}, {"first_try_accepts": 0}),
    "persistent": ({"max_failures_before_accept": 3}, {"max_failures_before_accept": 2}),
    "from_the_ashes": ({"compile_error_then_accepted": True}, {"compile_error_then_accepted": False}),
    "five_exercises": ({"accepted_exercises": 5}, {"accepted_exercises": 4}),
    "first_lesson": ({"lessons_done": 1}, {"lessons_done": 0}),
    "track_complete": ({"tracks_done": 1}, {"tracks_done": 0}),
    "hard_mode": ({"hard_accepted": 1}, {"hard_accepted": 0}),
    "beat_framework": ({"beat_framework": True}, {"beat_framework": False}),
    "roofline_80": ({"best_pct_of_peak": 80.0}, {"best_pct_of_peak": 79.9}),
    "helpful": ({"replies_received": 1}, {"replies_received": 0}),
    "bug_hunter": ({"bug_reports": 1}, {"bug_reports": 0}),
}


def test_there_are_exactly_twelve_distinct_achievements_with_both_languages():
    assert len(ACHIEVEMENTS) == 12 and len(BY_ID) == 12
    assert set(THRESHOLDS) == set(BY_ID)
    for a in ACHIEVEMENTS:
        assert a.title_ko and a.title_en and a.description_ko and a.description_en


def test_a_new_learner_has_none():
    assert unlocked_ids(LearnerStats()) == []


@pytest.mark.parametrize("achievement_id", list(THRESHOLDS))
def test_each_achievement_unlocks_exactly_at_its_threshold(achievement_id):
    reach, short = THRESHOLDS[achievement_id]
    assert BY_ID[achievement_id].unlocked(dataclasses.replace(LearnerStats(), **reach))
    assert not BY_ID[achievement_id].unlocked(dataclasses.replace(LearnerStats(), **short))


def _achievements(client: TestClient) -> set[str]:
    return set(client.get("/api/me/progress").json()["achievement_ids"])


def test_first_try_and_first_lesson_from_real_verdicts(client, app):
    user = signup(client)
    sub_id = store_verdict(app, user["id"], v1_result("accepted"))
    assert {"first_kernel", "first_try", "first_lesson"} <= _achievements(client)
    assert "track_complete" not in _achievements(client)  # `intro` is not read yet
    body = client.get(f"/api/submissions/{sub_id}").json()
    assert set(body["achievements"]) == {"first_kernel", "first_try", "first_lesson"}


def test_persistence_and_comeback_after_failures(client, app):
    user = signup(client)
    store_verdict(app, user["id"], v1_result("compile_error"))
    store_verdict(app, user["id"], v1_result("wrong_answer"))
    store_verdict(app, user["id"], v1_result("internal_error"))  # ours: does not count
    assert _achievements(client) == set()
    store_verdict(app, user["id"], v1_result("wrong_answer"))
    store_verdict(app, user["id"], v1_result("accepted"))
    got = _achievements(client)
    assert {"persistent", "from_the_ashes", "first_kernel"} <= got and "first_try" not in got


def test_speed_achievements_need_gpu_timings(client, app):
    user = signup(client)
    store_verdict(app, user["id"], v1_result("accepted", backend="emu", ms=0.1, framework_ms=1.0,
                                             pct_of_peak=99.0))
    assert not {"beat_framework", "roofline_80"} & _achievements(client)
    store_verdict(app, user["id"], v1_result("accepted", backend="cuda", ms=0.3, framework_ms=0.36,
                                             pct_of_peak=81.0))
    assert {"beat_framework", "roofline_80"} <= _achievements(client)


def test_track_complete_after_reading_intro_and_passing_reduction(client, app):
    user = signup(client)
    client.post("/api/progress/merge", json={"lesson_ids": ["intro"]}, headers=csrf(client))
    store_verdict(app, user["id"], v1_result("accepted"))
    assert "track_complete" in _achievements(client)


def test_bug_hunter_from_a_report(client):
    signup(client)
    client.post("/api/bug-reports", json={"lesson_id": "reduction", "message": "typo"}, headers=csrf(client))
    assert _achievements(client) == {"bug_hunter"}


def test_helpful_when_someone_replies(client, app):
    signup(client, email="a@example.com")
    root = client.post("/api/lessons/reduction/comments", json={"body": "question"},
                       headers=csrf(client)).json()
    with TestClient(app) as other:
        other.get("/api/me/progress")
        signup(other, email="b@example.com", name="B")
        other.post("/api/lessons/reduction/comments", json={"body": "answer", "parent_id": root["id"]},
                   headers=csrf(other))
    assert _achievements(client) == {"helpful"}


def test_hard_mode_counts_only_hard_exercises(client, app):
    user = signup(client)
    store_verdict(app, user["id"], v1_result("accepted"))  # block_sum is easy
    assert "hard_mode" not in _achievements(client)
