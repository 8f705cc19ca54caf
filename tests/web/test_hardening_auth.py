"""Hardening of who a request is (issue #13): Bearer requests carry no cookies,
CSRF tokens are tied to the session, forwarded addresses are believed only from
configured proxies, sign-in is limited per address and per account, weak
passwords are refused."""

from __future__ import annotations

import datetime as dt

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.db import transaction
from app.main import create_app
from tests.web.database import migrate
from app.models import AuthAttempt
from app.security.csrf import CSRF_COOKIE, valid_token
from app.security.sessions import SESSION_COOKIE
from tests.web.conftest import csrf, make_settings, signup


def test_bearer_header_with_a_session_cookie_is_not_that_session(client):
    signup(client)
    assert client.get("/api/me/progress").json()["signed_in"] is True
    forged = {"Authorization": "Bearer anything"}  # no CSRF token: it used to pass for the cookie's session
    assert client.post("/api/progress/merge", json={}, headers=forged).status_code == 401
    assert client.post("/api/lessons/reduction/comments", json={"body": "hi"}, headers=forged).status_code == 401
    assert client.get("/api/me/progress", headers=forged).json()["signed_in"] is False
    client.post("/auth/signout", json={}, headers=forged)
    assert client.get("/api/me/progress").json()["signed_in"] is True  # the session was not touched


def test_signing_in_renews_the_csrf_token_and_the_old_one_is_refused(client, settings):
    before = client.cookies.get(CSRF_COOKIE)
    signup(client)
    after = client.cookies.get(CSRF_COOKIE)
    session_token = client.cookies.get(SESSION_COOKIE)
    assert after != before
    assert valid_token(settings.secret_key, after, session_token)
    assert not valid_token(settings.secret_key, before, session_token)
    client.cookies.delete(CSRF_COOKIE)
    client.cookies.set(CSRF_COOKIE, before)  # the pair from before signing in
    old = client.post("/api/bug-reports", json={"lesson_id": "reduction", "message": "x"},
                      headers={"X-CSRF-Token": before})
    assert old.status_code == 403
    client.cookies.delete(CSRF_COOKIE)
    client.cookies.set(CSRF_COOKIE, after)
    assert client.post("/api/bug-reports", json={"lesson_id": "reduction", "message": "x"},
                       headers=csrf(client)).status_code == 201


def test_a_signed_out_token_pair_does_not_work_with_a_victims_session(app, client):
    signup(client, email="victim@example.com")
    victim_session = client.cookies.get(SESSION_COOKIE)
    with TestClient(app) as attacker:
        attacker.get("/api/me/progress")
        token = attacker.cookies.get(CSRF_COOKIE)  # valid for a browser without a session
        attacker.cookies.set(SESSION_COOKIE, victim_session)  # as a cookie-planting attacker could
        response = attacker.post("/api/bug-reports", json={"lesson_id": "reduction", "message": "x"},
                                 headers={"X-CSRF-Token": token})
    assert response.status_code == 403


def test_signing_out_renews_the_token_for_no_session(client, settings):
    signup(client)
    response = client.post("/auth/signout", json={}, headers=csrf(client))
    assert response.status_code == 200
    assert valid_token(settings.secret_key, client.cookies.get(CSRF_COOKIE), None)


def _fail(client: TestClient, email: str, address: str | None = None, password: str = "wrong password"):
    headers = csrf(client) | ({"X-Forwarded-For": address} if address else {})
    return client.post("/auth/signin", json={"email": email, "password": password}, headers=headers)


def test_forwarded_for_from_an_untrusted_peer_is_ignored(client):
    codes = [_fail(client, f"u{i}@example.com", f"203.0.113.{i}").status_code for i in range(11)]
    assert codes == [401] * 10 + [429]  # one address: the connection's, whatever the header says


@pytest.fixture
def proxied(tmp_path, lessons_dir):
    """The app behind a trusted proxy: TestClient's peer is `testclient`."""
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=False, forwarded_allow_ips="testclient")
    migrate(settings.database_url)
    app = create_app(settings)
    with TestClient(app) as c:
        c.get("/api/me/progress")
        yield app, c


def test_address_limit_blocks_one_address_but_the_account_signs_in_from_another(proxied):
    app, client = proxied
    signup(client, email="ada@example.com")
    client.post("/auth/signout", json={}, headers=csrf(client))
    for i in range(10):  # ten different accounts: the account limit is not reached
        assert _fail(client, f"nobody{i}@example.com", "198.51.100.7").status_code == 401
    blocked = _fail(client, "ada@example.com", "198.51.100.7", "correct horse")
    assert blocked.status_code == 429 and blocked.json()["code"] == "signin_limit"
    assert _fail(client, "ada@example.com", "198.51.100.8", "correct horse").status_code == 200


def test_account_limit_holds_across_forged_addresses_with_a_back_off(proxied):
    app, client = proxied
    signup(client, email="ada@example.com")
    client.post("/auth/signout", json={}, headers=csrf(client))
    for i in range(5):  # five guesses from five addresses
        assert _fail(client, "ADA@example.com", f"192.0.2.{i}").status_code == 401
    refused = _fail(client, "ada@example.com", "192.0.2.99", "correct horse")
    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "signin_account_limit" and 1 <= body["params"]["seconds"] <= 15
    with transaction(app.state.sessionmaker) as session:  # the 15 s back-off passes
        session.execute(update(AuthAttempt).values(created_at=AuthAttempt.created_at - dt.timedelta(seconds=16)))
    assert _fail(client, "ada@example.com", "192.0.2.99", "correct horse").status_code == 200


@pytest.mark.parametrize(("password", "code"), [
    ("        ", "password_blank"), ("", "password_blank"), ("short", "password_short"),
    ("password", "password_common"), ("Password", "password_common"), ("12345678", "password_common"),
    ("  password  ", "password_common"), ("qwertyuiop", "password_common"),
    ("weak@example.com", "password_common"),
])
def test_weak_passwords_are_refused_with_a_code(client, password, code):
    response = client.post("/auth/signup", json={"email": "weak@example.com", "password": password},
                           headers=csrf(client))
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["code"] == code and body["detail"][0]["type"] == code and body["detail"][0]["msg"]


def test_a_password_over_1024_characters_is_a_validation_error(client):
    response = client.post("/auth/signup", json={"email": "long@example.com", "password": "x" * 1025},
                           headers=csrf(client))
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "password"]


def test_a_weak_password_in_the_form_goes_back_with_its_code(client):
    response = client.post("/auth/signup", data={"email": "f@example.com", "password": "password",
                                                 "csrf_token": client.cookies.get(CSRF_COOKIE)},
                           follow_redirects=False)
    assert response.status_code == 303 and "error=password_common" in response.headers["location"]
