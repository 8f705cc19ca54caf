"""Page-test fixtures: a fresh SQLite database per test (a copy of one Alembic-built
template: tests/web/database.py), the fixture lessons under tests/fixtures/lessons, and
the app without its embedded worker (page tests render pages; judging is the browser
tests' business)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.web.database import migrate
from app.settings import Settings

FIXTURE_LESSONS = Path(__file__).resolve().parent.parent / "fixtures" / "lessons"


def page_settings(tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "environment": "test",
        "database_url": f"sqlite:///{tmp_path / 'kdojo.sqlite3'}",
        "queue_path": tmp_path / "queue.sqlite3",
        "lessons_dir": FIXTURE_LESSONS,
        "judge_backend": "emu",
        "embedded_worker": False,
        "secret_key": "page-tests-" + "x" * 32,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    s = page_settings(tmp_path)
    migrate(s.database_url)
    return s


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def sign_up(client: TestClient, email: str = "learner@example.com", name: str = "Learner") -> None:
    """A real account through the backend's form endpoint (CSRF token from the cookie)."""
    client.get("/signup")
    token = client.cookies.get("kdojo_csrf")
    response = client.post(
        "/auth/signup",
        data={"email": email, "password": "correct horse battery", "display_name": name,
              "csrf_token": token, "next": "/"},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
