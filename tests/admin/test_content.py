"""Drafts are for instructors and admins only; lessons reload without a restart
(the admin endpoint, and the development watcher); the admin's token page."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.web.database import migrate
from tests.admin.conftest import bearer, make_token, make_user, sign_in
from tests.web.conftest import EXERCISE, build_lessons, csrf, make_settings


@pytest.fixture
def own_lessons(tmp_path: Path) -> Path:
    """A lesson folder this test may edit."""
    return build_lessons(tmp_path / "lessons")


def _set_status(lessons: Path, status: str) -> None:
    toml = lessons / "02-reduction" / "lesson.toml"
    toml.write_text(re.sub(r'status = "\w+"', f'status = "{status}"', toml.read_text()))


@pytest.fixture
def draft_app(tmp_path: Path, own_lessons: Path):  # noqa: ANN201
    _set_status(own_lessons, "draft")
    settings = make_settings(tmp_path, own_lessons, embedded_worker=False)
    migrate(settings.database_url)
    return create_app(settings)


def _browser(app, email: str | None = None) -> TestClient:  # noqa: ANN001
    client = TestClient(app, base_url="http://testserver")
    client.get("/api/me/progress")
    if email:
        sign_in(client, email)
    return client


def test_drafts_are_hidden_from_learners_and_shown_to_staff(draft_app):
    make_user(draft_app, "learner@example.com")
    make_user(draft_app, "teacher@example.com", "instructor")
    anonymous, learner, teacher = _browser(draft_app), _browser(draft_app, "learner@example.com"), \
        _browser(draft_app, "teacher@example.com")
    for reader in (anonymous, learner):
        assert 'href="/lessons/reduction"' not in reader.get("/?lang=en").text
        assert reader.get("/lessons/reduction?lang=en").status_code == 404
        assert 'href="/lessons/reduction"' not in reader.get("/lessons/intro?lang=en").text  # no "next" link
        assert reader.get(f"/api/exercises/{EXERCISE}/leaderboard").status_code == 404
    assert 'href="/lessons/reduction"' in teacher.get("/?lang=en").text
    page = teacher.get("/lessons/reduction?lang=en")
    assert page.status_code == 200 and "Reduction" in page.text
    refused = learner.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "x", "mode": "submit"},
                           headers=csrf(learner))
    assert refused.status_code == 404
    # staff try a draft's exercise before it ships (judged like any submission)
    tried = teacher.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "x", "mode": "run"},
                         headers=csrf(teacher))
    assert tried.status_code == 202, tried.text
    assert teacher.get(f"/api/exercises/{EXERCISE}/attempts").status_code == 200


def test_the_admin_lesson_list_includes_drafts(draft_app):
    make_user(draft_app, "root@example.com", "admin")
    token = bearer(make_token(draft_app, "root@example.com", "content:admin"))
    items = _browser(draft_app).get("/api/admin/lessons", headers=token).json()["items"]
    assert [(i["id"], i["status"], i["exercises"]) for i in items] == [
        ("intro", "published", []), ("reduction", "draft", [EXERCISE])]
    assert items[1]["title"]["en"] == "Reduction" and items[1]["folder"] == "02-reduction"


def test_publishing_takes_effect_on_reload(draft_app, own_lessons):
    make_user(draft_app, "root@example.com", "admin")
    token = bearer(make_token(draft_app, "root@example.com", "content:admin"))
    anonymous = _browser(draft_app)
    assert anonymous.get("/lessons/reduction").status_code == 404
    _set_status(own_lessons, "published")
    assert anonymous.get("/lessons/reduction").status_code == 404  # nothing reloads by itself here
    reloaded = anonymous.post("/api/admin/lessons/reload", headers=token)
    assert reloaded.status_code == 200 and reloaded.json() == {"lessons": 2, "drafts": [], "exercises": 1}
    assert anonymous.get("/lessons/reduction").status_code == 200


def test_a_malformed_lesson_is_not_swapped_in(draft_app, own_lessons):
    make_user(draft_app, "root@example.com", "admin")
    token = bearer(make_token(draft_app, "root@example.com", "content:admin"))
    toml = own_lessons / "01-intro" / "lesson.toml"
    toml.write_text(toml.read_text().replace("minutes = 5", 'minutes = "five"'))
    failed = _browser(draft_app).post("/api/admin/lessons/reload", headers=token)
    assert failed.status_code == 422
    assert "01-intro/lesson.toml: minutes: expected int" in failed.json()["detail"][0]["msg"]
    assert _browser(draft_app).get("/lessons/intro").status_code == 200  # the old lessons still serve


def test_the_watcher_reloads_changed_lessons(tmp_path, own_lessons):
    settings = make_settings(tmp_path, own_lessons, embedded_worker=False, reload_lessons=True,
                             reload_lessons_interval_s=0.05)
    migrate(settings.database_url)
    app = create_app(settings)
    with TestClient(app) as client:
        assert "Intro" in client.get("/lessons/intro?lang=en").text
        text = own_lessons / "01-intro" / "en.md"
        text.write_text(text.read_text().replace('title = "Intro"', 'title = "Warm-up"'))
        deadline = time.monotonic() + 20
        while "Warm-up" not in client.get("/lessons/intro?lang=en").text:
            assert time.monotonic() < deadline, "the watcher did not reload the lessons"
            time.sleep(0.05)
        assert app.state.lesson_watcher.reloads >= 1
    assert not app.state.lesson_watcher.running  # stopped with the app


def test_no_watcher_unless_asked(app):
    with TestClient(app):
        assert app.state.lesson_watcher is None


def test_the_token_page_creates_a_token_shown_once_and_revokes_it(app, admin_client, anon):
    korean = admin_client.get("/admin/tokens")
    assert korean.status_code == 200 and "아직 토큰이 없습니다." in korean.text  # the page speaks Korean first
    page = admin_client.get("/admin/tokens?lang=en")  # and English from here on (the cookie remembers)
    assert page.status_code == 200 and "No tokens yet." in page.text
    created = admin_client.post("/admin/tokens", data={
        "csrf_token": admin_client.cookies.get("kdojo_csrf"), "email": "root@example.com", "name": "grader",
        "scopes": ["grading:read", "grading:write"], "days": "30"})
    assert created.status_code == 200
    token = re.search(r'<code id="new-token">(kd_[^<]+)</code>', created.text).group(1)
    assert anon.get("/api/admin/submissions", headers=bearer(token)).status_code == 200
    listing = admin_client.get("/admin/tokens").text
    assert token not in listing and "grading:read, grading:write" in listing and "active" in listing
    assert "<th>Last used</th>" in listing and "<th>Scopes</th>" in listing  # headers, not lower-case keys
    token_id = re.search(r'/admin/tokens/(\d+)/revoke', listing).group(1)
    revoked = admin_client.post(f"/admin/tokens/{token_id}/revoke",
                                data={"csrf_token": admin_client.cookies.get("kdojo_csrf")}, follow_redirects=False)
    assert revoked.status_code == 303
    assert anon.get("/api/admin/submissions", headers=bearer(token)).status_code == 401
    bad = admin_client.post("/admin/tokens", data={"csrf_token": admin_client.cookies.get("kdojo_csrf"),
                                                   "email": "root@example.com", "days": "30"})
    assert bad.status_code == 422 and "give at least one scope" in bad.text


def test_the_token_page_is_for_admins_only(app, client):
    assert client.get("/admin/tokens").status_code == 401
    make_user(app, "teacher@example.com", "instructor")
    sign_in(client, "teacher@example.com")
    assert client.get("/admin/tokens").status_code == 403
    assert client.post("/admin/tokens", data={"csrf_token": client.cookies.get("kdojo_csrf"),
                                              "email": "teacher@example.com", "scopes": ["users:admin"]}
                       ).status_code == 403
