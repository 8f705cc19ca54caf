"""Accounts: sign-up, sign-in, sign-out, sessions, cookie flags, rate limit."""

from __future__ import annotations

from sqlalchemy import func, select

from app.models import User, UserSession
from tests.web.conftest import csrf, signup


def _cookie_header(response, name: str) -> str:
    return next(h for h in response.headers.get_list("set-cookie") if h.startswith(name + "="))


def test_form_signup_redirects_to_next_with_a_locked_down_session_cookie(client):
    response = client.post(
        "/auth/signup",
        data={"email": "Bo@Example.com", "password": "long enough", "display_name": "Bo",
              "next": "/lessons/reduction", "csrf_token": client.cookies.get("kdojo_csrf")},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/lessons/reduction"
    header = _cookie_header(response, "kdojo_session").lower()
    assert "httponly" in header and "samesite=lax" in header and "secure" not in header
    assert client.get("/api/me/progress").json()["signed_in"] is True


def test_session_cookie_is_secure_over_https(app):
    from fastapi.testclient import TestClient

    with TestClient(app, base_url="https://testserver") as c:
        c.get("/api/me/progress")
        response = c.post("/auth/signup", json={"email": "s@example.com", "password": "long enough"},
                          headers=csrf(c))
        assert response.status_code == 200
        assert "secure" in _cookie_header(response, "kdojo_session").lower()


def test_password_is_stored_as_argon2_hash(client, app):
    signup(client, email="h@example.com", password="my secret pw")
    with app.state.sessionmaker() as session:
        user = session.scalar(select(User).where(User.email == "h@example.com"))
    assert user.password_hash.startswith("$argon2id$")
    assert "my secret pw" not in user.password_hash


def test_duplicate_email_and_short_password_are_refused_with_a_message(client):
    signup(client, email="dup@example.com")
    again = client.post("/auth/signup", json={"email": "DUP@example.com", "password": "another one"},
                        headers=csrf(client))
    assert again.status_code == 409 and "already exists" in again.json()["detail"]
    short = client.post("/auth/signup", json={"email": "x@example.com", "password": "short"},
                        headers=csrf(client))
    assert short.status_code == 422 and "at least 8" in short.json()["detail"][0]["msg"]


def test_failed_form_signin_returns_to_the_form_with_the_error(client):
    signup(client, email="f@example.com")
    client.post("/auth/signout", json={}, headers=csrf(client))
    response = client.post(
        "/auth/signin",
        data={"email": "f@example.com", "password": "wrong password", "next": "/me",
              "csrf_token": client.cookies.get("kdojo_csrf")},
        follow_redirects=False,
    )
    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith("/signin?") and "error=signin_failed&" in location  # a code only (#13)
    assert "next=%2Fme" in location


def test_signin_and_signout_revoke_the_server_side_session(client, app):
    signup(client, email="s2@example.com", password="password 1")
    client.post("/auth/signout", json={}, headers=csrf(client))
    response = client.post("/auth/signin", json={"email": "s2@example.com", "password": "password 1"},
                           headers=csrf(client))
    assert response.status_code == 200
    token = client.cookies.get("kdojo_session")
    assert client.get("/api/me/progress").json()["signed_in"] is True
    assert client.post("/auth/signout", json={}, headers=csrf(client)).status_code == 200
    # Replaying the old cookie after sign-out must not work: the row is revoked.
    client.cookies.set("kdojo_session", token)
    assert client.get("/api/me/progress").json()["signed_in"] is False
    with app.state.sessionmaker() as session:
        assert all(s.revoked_at is not None for s in session.scalars(select(UserSession)))


def test_disabled_user_loses_access(client, app):
    signup(client, email="d@example.com")
    with app.state.sessionmaker() as session:
        session.scalar(select(User).where(User.email == "d@example.com")).disabled = True
        session.commit()
    assert client.get("/api/me/progress").json()["signed_in"] is False
    response = client.post("/auth/signin", json={"email": "d@example.com", "password": "correct horse"},
                           headers=csrf(client))
    assert response.status_code == 401


def test_next_cannot_redirect_off_site(client):
    response = client.post(
        "/auth/signup",
        data={"email": "o@example.com", "password": "long enough", "next": "//evil.example/x",
              "csrf_token": client.cookies.get("kdojo_csrf")},
        follow_redirects=False,
    )
    assert response.headers["location"] == "/"


def test_repeated_failed_signins_are_rate_limited(client, app):
    app.state.settings = app.state.settings.model_copy(update={"signin_attempts_per_15min": 3})
    signup(client, email="r@example.com")
    for _ in range(3):
        bad = client.post("/auth/signin", json={"email": "r@example.com", "password": "nope nope"},
                          headers=csrf(client))
        assert bad.status_code == 401
    blocked = client.post("/auth/signin", json={"email": "r@example.com", "password": "correct horse"},
                          headers=csrf(client))
    assert blocked.status_code == 429 and "15 minutes" in blocked.json()["detail"]


def test_signing_in_again_replaces_the_previous_session(client, app):
    signup(client, email="again@example.com", password="password 1")
    first = client.cookies.get("kdojo_session")
    client.post("/auth/signin", json={"email": "again@example.com", "password": "password 1"},
                headers=csrf(client))
    second = client.cookies.get("kdojo_session")
    assert first != second
    client.cookies.clear()
    client.cookies.set("kdojo_session", first)
    assert client.get("/api/me/progress").json()["signed_in"] is False


def test_housekeeping_purges_old_failed_signins_and_dead_sessions(client, app):
    import datetime as dt

    from app.db import transaction
    from app.models import AuthAttempt, utcnow
    from app.services.housekeeping import purge

    signup(client, email="hk@example.com")
    client.post("/auth/signout", json={}, headers=csrf(client))
    long_ago = utcnow() - dt.timedelta(days=60)
    with transaction(app.state.sessionmaker) as session:
        session.add(AuthAttempt(client_ip="1.2.3.4", created_at=long_ago))
        session.add(AuthAttempt(client_ip="1.2.3.4"))  # recent: kept
        session.execute(UserSession.__table__.update().values(revoked_at=long_ago))
    with transaction(app.state.sessionmaker) as session:
        assert purge(session) == 2
    with app.state.sessionmaker() as session:
        assert session.scalar(select(func.count()).select_from(AuthAttempt)) == 1
        assert session.scalar(select(func.count()).select_from(UserSession)) == 0
