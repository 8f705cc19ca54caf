"""The app, a signed-in learner and an admin token for the schemathesis runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient

from app.main import create_app
from tests.web.database import migrate
from app.settings import Settings
from tests.web.conftest import build_lessons, csrf, make_settings

PASSWORD = "correct horse battery"


@dataclass
class Callers:
    app: Any
    learner: dict[str, str]  # headers: the session cookie and its CSRF token
    admin: dict[str, str]  # headers: a Bearer token with every scope


def callers_for(settings: Settings) -> Callers:
    from app.db import transaction
    from app.services import admin_tokens
    from app.services.admin_users import by_email

    app = create_app(settings)
    with TestClient(app) as client:
        client.get("/api/me/progress")
        for email in ("learner@example.com", "admin@example.com"):
            client.cookies.clear()
            client.get("/api/me/progress")
            response = client.post("/auth/signup", json={"email": email, "password": PASSWORD},
                                   headers=csrf(client))
            assert response.status_code == 200, response.text
        client.cookies.clear()
        client.get("/api/me/progress")
        client.post("/auth/signin", json={"email": "learner@example.com", "password": PASSWORD},
                    headers=csrf(client))
        learner = {"Cookie": f"kdojo_session={client.cookies.get('kdojo_session')}; "
                             f"kdojo_csrf={client.cookies.get('kdojo_csrf')}", **csrf(client)}
    with transaction(app.state.sessionmaker) as session:
        owner = by_email(session, "admin@example.com")
        owner.role = "admin"
        token = admin_tokens.create(session, owner, admin_tokens.parse_scopes(
            "grading:read,grading:write,users:admin,content:admin"), 30).token
    return Callers(app, learner, {"Authorization": f"Bearer {token}"})


@pytest.fixture(scope="module")
def callers(tmp_path_factory: pytest.TempPathFactory) -> Callers:
    tmp = tmp_path_factory.mktemp("schema")
    settings = make_settings(tmp, build_lessons(tmp / "lessons"), embedded_worker=False)
    migrate(settings.database_url)
    return callers_for(settings)


@pytest.fixture(scope="module")
def api_schema(callers: Callers) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_asgi("/api/openapi.json", callers.app)
