"""`Idempotency-Key` on POST /api/submissions (#25): a retry returns the submission the
first request created and creates nothing, also when two identical requests race
(real uvicorn, real SQLite, and marked `scaleout` PostgreSQL)."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import transaction
from app.main import create_app
from app.migrate import upgrade
from app.models import Submission, SubmissionKey
from tests.web.conftest import EXERCISE, csrf, make_settings, signup
from tests.web.live_server import browser, csrf_header, live_server
from tests.web.test_scaleout import pg_url  # noqa: F401 - the fixture

BODY = {"exercise_id": EXERCISE, "source": "// my kernel", "mode": "run"}


def _post(client, body: dict = BODY, key: str | bytes | None = None):  # noqa: ANN001, ANN202
    headers = {**csrf(client), **({"Idempotency-Key": key} if key is not None else {})}
    return client.post("/api/submissions", json=body, headers=headers)


def _count(app) -> int:  # noqa: ANN001
    with transaction(app.state.sessionmaker, write=False) as session:
        return session.scalar(select(func.count()).select_from(Submission))


def test_a_retry_with_the_same_key_returns_the_same_submission(client: TestClient, app) -> None:  # noqa: ANN001
    key = str(uuid.uuid4())
    first = _post(client, key=key)
    assert first.status_code == 202, first.text
    again = _post(client, key=key)
    assert again.status_code == 200, again.text
    assert again.json() == first.json()  # same id, status and place in the queue
    assert _count(app) == 1
    with transaction(app.state.sessionmaker, write=False) as session:
        assert session.scalar(select(func.count()).select_from(SubmissionKey)) == 1
    # A post without a key is a new submission, as before.
    assert _post(client).status_code == 202
    assert _count(app) == 2
    # At the pending cap a new key is refused, but a retry still gets its submission back.
    assert app.state.settings.max_pending_submissions == 2
    assert _post(client, key=str(uuid.uuid4())).status_code == 429
    assert _post(client, key=key).json() == first.json()
    assert _count(app) == 2


def test_the_same_key_with_another_body_is_a_conflict(client: TestClient, app) -> None:  # noqa: ANN001
    key = "retry-1"
    assert _post(client, key=key).status_code == 202
    other = _post(client, {**BODY, "source": "// something else"}, key=key)
    assert other.status_code == 409
    assert other.json()["code"] == "idempotency_key_reused"
    assert "different submission" in other.json()["detail"]
    assert _post(client, {**BODY, "mode": "submit"}, key=key).status_code == 409
    assert _count(app) == 1


@pytest.mark.parametrize("key", ["", "has space", "x" * 129, "ключ".encode(), "a\tb", "a/b"])
def test_a_malformed_key_is_refused_with_a_422(client: TestClient, app, key: str | bytes) -> None:  # noqa: ANN001
    response = _post(client, key=key)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["header", "Idempotency-Key"]
    assert _count(app) == 0


def test_keys_belong_to_their_owner(client: TestClient, app) -> None:  # noqa: ANN001
    """Another learner's key is not yours: the same key makes each their own submission."""
    anonymous = _post(client, key="shared")
    assert anonymous.status_code == 202
    signup(client)
    mine = _post(client, key="shared")
    assert mine.status_code == 202 and mine.json()["id"] != anonymous.json()["id"]
    assert _post(client, key="shared").json()["id"] == mine.json()["id"]
    assert _count(app) == 2


def race_identical_posts(app, sign_in: bool, racers: int = 4) -> None:  # noqa: ANN001
    """`racers` identical requests with one key at the same moment: one is created (202),
    the others get it back (200), and the database holds one row."""
    with live_server(app) as base:
        client = browser(base)
        if sign_in:
            response = client.post("/auth/signup", headers=csrf_header(client), json={
                "email": "race@example.com", "password": "correct horse", "display_name": "Race"})
            assert response.status_code == 200
        else:
            assert client.post("/api/submissions", json=BODY, headers=csrf_header(client)).status_code == 202
        before = _count(app)
        key = str(uuid.uuid4())
        barrier = threading.Barrier(racers)
        answers: list[tuple[int, int]] = []

        def post() -> None:
            barrier.wait()
            response = client.post("/api/submissions", json=BODY,
                                   headers={**csrf_header(client), "Idempotency-Key": key})
            answers.append((response.status_code, response.json().get("id")))

        threads = [threading.Thread(target=post) for _ in range(racers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        client.close()
    assert sorted(status for status, _ in answers) == [200] * (racers - 1) + [202], answers
    assert len({submission_id for _, submission_id in answers}) == 1
    assert _count(app) == before + 1


def test_racing_identical_posts_create_one_submission_on_sqlite(app) -> None:  # noqa: ANN001
    race_identical_posts(app, sign_in=True)


@pytest.mark.scaleout
@pytest.mark.parametrize("sign_in", [True, False], ids=["signed-in", "anonymous"])
def test_racing_identical_posts_create_one_submission_on_postgres(
    tmp_path: Path, lessons_dir: Path, pg_url: str, sign_in: bool,  # noqa: F811
) -> None:
    settings = make_settings(tmp_path, lessons_dir, database_url=pg_url, embedded_worker=False)
    upgrade(settings.database_url)
    app = create_app(settings)
    try:
        race_identical_posts(app, sign_in)
    finally:
        app.state.engine.dispose()
