"""Who reaches /api/admin/: every endpoint needs its scope; tokens are hashed,
expire, can be revoked; learners' sessions get 403, nobody gets in without credentials."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from sqlalchemy import select, update

from app.db import transaction
from app.models import TOKEN_SCOPES, ApiToken
from app.services import admin_tokens
from tests.admin.conftest import bearer, make_token, make_user, sign_in
from tests.web.conftest import csrf

# (method, path, scope, json body)
ENDPOINTS = [
    ("GET", "/api/admin/submissions", "grading:read", None),
    ("GET", "/api/admin/submissions/1", "grading:read", None),
    ("GET", "/api/admin/grades?track=foundations", "grading:read", None),
    ("POST", "/api/admin/submissions/1/regrade", "grading:write", {"reason": "r"}),
    ("POST", "/api/admin/exercises/reduction.block_sum/regrade", "grading:write", {"reason": "r"}),
    ("POST", "/api/admin/submissions/1/override", "grading:write", {"verdict": "accepted", "reason": "r"}),
    ("POST", "/api/admin/submissions/1/flag", "grading:write", {"reason": "r"}),
    ("GET", "/api/admin/users", "users:admin", None),
    ("POST", "/api/admin/users/1/role", "users:admin", {"role": "admin"}),
    ("POST", "/api/admin/users/1/disable", "users:admin", {"disabled": False}),
    ("GET", "/api/admin/tokens", "users:admin", None),
    ("POST", "/api/admin/tokens", "users:admin", {"user": "root@example.com", "scopes": ["grading:read"]}),
    ("DELETE", "/api/admin/tokens/999", "users:admin", None),
    ("GET", "/api/admin/audit", "users:admin", None),
    ("POST", "/api/admin/users/1/password-reset", "users:admin", {}),
    ("GET", "/api/admin/invites", "users:admin", None),
    ("POST", "/api/admin/invites", "users:admin", {}),
    ("DELETE", "/api/admin/invites/999", "users:admin", None),
    ("POST", "/api/admin/comments/1/hide", "content:admin", {"reason": "r"}),
    ("GET", "/api/admin/bug-reports", "content:admin", None),
    ("POST", "/api/admin/bug-reports/1/resolve", "content:admin", {"reason": "r"}),
    ("GET", "/api/admin/lessons", "content:admin", None),
    ("POST", "/api/admin/lessons/reload", "content:admin", None),
]


def _call(client, method, path, body, headers):  # noqa: ANN001, ANN202
    return client.request(method, path, json=body, headers=headers)


def _template(path: str) -> str:
    path = path.split("?")[0]
    return "/".join("{id}" if part.isdigit() or part == "reduction.block_sum" else part
                    for part in path.split("/"))


def test_the_endpoint_list_covers_the_whole_admin_api(anon):
    schema = anon.get("/api/openapi.json").json()
    routes = {(method.upper(), re.sub(r"\{[a-z_]+\}", "{id}", path))
              for path, ops in schema["paths"].items() if path.startswith("/api/admin")
              for method in ops}
    assert routes and routes == {(m, _template(p)) for m, p, _, _ in ENDPOINTS}


@pytest.mark.parametrize(("method", "path", "scope", "body"), ENDPOINTS,
                         ids=[f"{m} {p}" for m, p, _, _ in ENDPOINTS])
def test_each_endpoint_needs_its_scope(app, anon, admin_id, method, path, scope, body):
    others = ",".join(s for s in TOKEN_SCOPES if s != scope)
    without = make_token(app, "root@example.com", others)
    assert _call(anon, method, path, body, bearer(without)).status_code == 403
    only = make_token(app, "root@example.com", scope)
    assert _call(anon, method, path, body, bearer(only)).status_code not in (401, 403)
    anon.get("/api/me/progress")  # a CSRF cookie, so that writes reach the auth check
    assert _call(anon, method, path, body, csrf(anon)).status_code == 401


@pytest.mark.parametrize(("method", "path", "scope", "body"), ENDPOINTS,
                         ids=[f"{m} {p}" for m, p, _, _ in ENDPOINTS])
def test_a_learner_session_gets_403_everywhere(app, client, method, path, scope, body):
    make_user(app, "learner@example.com")
    sign_in(client, "learner@example.com")
    assert _call(client, method, path, body, csrf(client)).status_code == 403


def test_an_instructor_session_reads_grades_and_reloads_lessons_only(app, client):
    make_user(app, "teacher@example.com", "instructor")
    sign_in(client, "teacher@example.com")
    assert client.get("/api/admin/submissions").status_code == 200
    assert client.post("/api/admin/lessons/reload", headers=csrf(client)).status_code == 200
    assert client.post("/api/admin/exercises/reduction.block_sum/regrade", json={},
                       headers=csrf(client)).status_code == 403
    assert client.get("/api/admin/users").status_code == 403


def test_an_admin_session_uses_the_api_but_needs_csrf_for_writes(admin_client):
    assert admin_client.get("/api/admin/users").status_code == 200
    assert admin_client.post("/api/admin/lessons/reload").status_code == 403  # no CSRF header
    assert admin_client.post("/api/admin/lessons/reload", headers=csrf(admin_client)).status_code == 200


def test_bearer_requests_need_no_csrf(app, anon, admin_id):
    token = make_token(app, "root@example.com", "content:admin")
    assert anon.post("/api/admin/lessons/reload", headers=bearer(token)).status_code == 200


@pytest.mark.parametrize("bad", ["", "kd_", "kd_deadbeef_nope", "not-a-token", "kd_x_y_z"])
def test_unknown_tokens_get_401(anon, admin_id, bad):
    response = anon.get("/api/admin/users", headers={"Authorization": f"Bearer {bad}"})
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"


def test_expired_and_revoked_tokens_get_401(app, anon, admin_id):
    token = make_token(app, "root@example.com", "users:admin")
    assert anon.get("/api/admin/users", headers=bearer(token)).status_code == 200
    with transaction(app.state.sessionmaker) as session:
        session.execute(update(ApiToken).values(expires_at=dt.datetime(2000, 1, 1)))
    assert anon.get("/api/admin/users", headers=bearer(token)).status_code == 401

    fresh = make_token(app, "root@example.com", "users:admin")
    listed = anon.get("/api/admin/tokens", headers=bearer(fresh)).json()["items"]
    fresh_id = max(item["id"] for item in listed)
    assert anon.delete(f"/api/admin/tokens/{fresh_id}", headers=bearer(fresh)).json()["state"] == "revoked"
    assert anon.get("/api/admin/users", headers=bearer(fresh)).status_code == 401


def test_a_disabled_users_tokens_stop_working(app, anon, admin_id):
    make_user(app, "grader@example.com", "instructor")
    token = make_token(app, "grader@example.com", "grading:read")
    assert anon.get("/api/admin/submissions", headers=bearer(token)).status_code == 200
    admin_token = make_token(app, "root@example.com", "users:admin")
    users = anon.get("/api/admin/users?q=grader", headers=bearer(admin_token)).json()["items"]
    anon.post(f"/api/admin/users/{users[0]['id']}/disable", json={"reason": "left"}, headers=bearer(admin_token))
    assert anon.get("/api/admin/submissions", headers=bearer(token)).status_code == 401


def test_tokens_are_stored_hashed_shown_once_and_marked_used(app, anon, admin_id):
    admin = make_token(app, "root@example.com", "users:admin")
    created = anon.post("/api/admin/tokens", json={"user": "root@example.com", "scopes": ["grading:read"],
                                                   "days": 7, "name": "ci"}, headers=bearer(admin))
    assert created.status_code == 201
    token = created.json()["token"]
    assert token.startswith("kd_") and len(token) > 40
    with transaction(app.state.sessionmaker) as session:
        row = session.scalar(select(ApiToken).where(ApiToken.id == created.json()["id"]))
        assert row.token_hash == admin_tokens.digest(token) and token not in row.token_hash
        assert row.last_used_at is None
    listing = anon.get("/api/admin/tokens", headers=bearer(admin)).json()["items"]
    assert all("token" not in item for item in listing)  # never shown again
    assert anon.get("/api/admin/submissions", headers=bearer(token)).status_code == 200
    with transaction(app.state.sessionmaker) as session:
        assert session.get(ApiToken, created.json()["id"]).last_used_at is not None


def test_token_creation_refuses_unknown_scopes_and_users(app, anon, admin_id):
    admin = make_token(app, "root@example.com", "users:admin")
    bad_scope = anon.post("/api/admin/tokens", json={"user": "root@example.com", "scopes": ["root"]},
                          headers=bearer(admin))
    assert bad_scope.status_code == 422 and "unknown scope" in bad_scope.json()["detail"][0]["msg"]
    nobody = anon.post("/api/admin/tokens", json={"user": "x@example.com", "scopes": ["grading:read"]},
                       headers=bearer(admin))
    assert nobody.status_code == 404


def test_admin_endpoints_are_in_the_openapi_schema_tagged_admin(anon):
    schema = anon.get("/api/openapi.json").json()
    admin_paths = {p: ops for p, ops in schema["paths"].items() if p.startswith("/api/admin/")}
    assert "/api/admin/submissions" in admin_paths and "/api/admin/grades" in admin_paths
    assert all(op["tags"] == ["admin"] for ops in admin_paths.values() for op in ops.values())
    assert not any(p.startswith("/admin/") for p in schema["paths"])  # the token page is not API
