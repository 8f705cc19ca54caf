"""Admin fixtures: the web fixtures (real SQLite from the Alembic-built template, the lesson folder
built from the real `reduction.block_sum`), plus users of each role, tokens, and
clients signed in as them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.db import transaction
from app.models import User
from app.security import passwords
from app.services import admin_tokens
from tests.web.conftest import app, client, csrf, lessons_dir, settings, signup  # noqa: F401 - fixtures

PASSWORD = "correct horse battery"
_HASH = passwords.hash_password(PASSWORD)


def make_user(app, email: str, role: str = "learner", name: str = "") -> int:  # noqa: ANN001
    with transaction(app.state.sessionmaker) as session:
        user = User(email=email, display_name=name or email.split("@")[0], password_hash=_HASH, role=role)
        session.add(user)
        session.flush()
        return user.id


def make_token(app, email: str, scopes: str, days: int = 30) -> str:  # noqa: ANN001
    from app.services.admin_users import by_email

    with transaction(app.state.sessionmaker) as session:
        return admin_tokens.create(session, by_email(session, email), admin_tokens.parse_scopes(scopes),
                                   days).token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def sign_in(client: TestClient, email: str) -> None:
    response = client.post("/auth/signin", json={"email": email, "password": PASSWORD}, headers=csrf(client))
    assert response.status_code == 200, response.text


@pytest.fixture
def admin_id(app) -> int:  # noqa: ANN001
    return make_user(app, "root@example.com", "admin", "Root")


@pytest.fixture
def admin_client(app, admin_id) -> Iterator[TestClient]:  # noqa: ANN001
    with TestClient(app, base_url="http://testserver") as c:
        c.get("/api/me/progress")
        sign_in(c, "root@example.com")
        yield c


@pytest.fixture
def anon(app) -> Iterator[TestClient]:  # noqa: ANN001
    """A client with no session and no cookies, for bearer-token calls."""
    with TestClient(app, base_url="http://testserver") as c:
        yield c
