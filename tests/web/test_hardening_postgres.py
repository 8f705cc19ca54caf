"""Hostile input on PostgreSQL (issue #13): NUL bytes and integers past
`integer` are 422s, and 20 parallel submissions from one learner leave exactly
the cap pending. Uses the scale-out servers (tests/web/test_scaleout.py)."""

from __future__ import annotations

import threading

import httpx
import pytest
from sqlalchemy import func, select

from app.db import transaction
from app.main import create_app
from app.models import Submission
from tests.web.conftest import EXERCISE, csrf, signup
from tests.web.live_server import browser, csrf_header, live_server
from tests.web.test_scaleout import pg_url, scaleout_settings  # noqa: F401 - fixtures

pytestmark = pytest.mark.scaleout


@pytest.fixture
def pg_client(scaleout_settings):  # noqa: F811
    from fastapi.testclient import TestClient

    with TestClient(create_app(scaleout_settings)) as c:
        c.get("/api/me/progress")
        yield c


@pytest.mark.parametrize("path", ["/auth/signup", "/auth/signin"])
def test_a_nul_byte_in_an_email_is_422(pg_client, path):
    response = pg_client.post(path, json={"email": "a\x00b@example.com", "password": "correct horse"},
                              headers=csrf(pg_client))
    assert response.status_code == 422, response.text
    assert isinstance(response.json()["detail"], list)


def test_a_nul_byte_in_a_comment_is_422(pg_client):
    signup(pg_client)
    response = pg_client.post("/api/lessons/reduction/comments", json={"body": "hi\x00there"},
                              headers=csrf(pg_client))
    assert response.status_code == 422, response.text


@pytest.mark.parametrize("path", ["/api/submissions/2147483648", "/api/submissions/99999999999999999999"])
def test_ids_past_integer_are_422(pg_client, path):
    assert pg_client.get(path).status_code == 422


def _race(base: str, cookies: httpx.Cookies, posts: int) -> list[int]:
    clients = [httpx.Client(base_url=base, timeout=60, cookies=cookies) for _ in range(posts)]
    barrier = threading.Barrier(posts)
    statuses: list[int] = []

    def post(c: httpx.Client) -> None:
        barrier.wait(timeout=60)
        response = c.post("/api/submissions", headers=csrf_header(c),
                          json={"exercise_id": EXERCISE, "source": "__global__ void k() {}", "mode": "run"})
        statuses.append(response.status_code)

    threads = [threading.Thread(target=post, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for c in clients:
        c.close()
    return statuses


def test_twenty_parallel_submissions_leave_exactly_the_cap_pending(scaleout_settings):  # noqa: F811
    app = create_app(scaleout_settings)  # no worker: nothing leaves the queue
    cap = scaleout_settings.max_pending_submissions
    with live_server(app) as base:
        learner = browser(base)
        response = learner.post("/auth/signup", headers=csrf_header(learner),
                                json={"email": "racer@example.com", "password": "correct horse"})
        assert response.status_code == 200
        statuses = _race(base, learner.cookies, 20)
        anonymous = browser(base)
        anonymous.post("/api/submissions", headers=csrf_header(anonymous),
                       json={"exercise_id": EXERCISE, "source": "__global__ void k() {}", "mode": "run"})
        anon_statuses = _race(base, anonymous.cookies, 20)  # one browser id: its own cap
        learner.close()
        anonymous.close()
    assert sorted(statuses) == [202] * cap + [429] * (20 - cap)
    assert sorted(anon_statuses) == [202] * (cap - 1) + [429] * (21 - cap)
    try:
        with transaction(app.state.sessionmaker, write=False) as session:
            pending = session.scalar(select(func.count()).select_from(Submission)
                                     .where(Submission.status == "queued", Submission.user_id.is_not(None)))
    finally:
        app.state.engine.dispose()
    assert pending == cap
