"""Changing a password (signed in) and resetting one with an admin's one-time
link (issue #25), against a real SQLite database built by Alembic."""

from __future__ import annotations

import datetime as dt
import io
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.cli import main as kdojo
from app.db import transaction
from app.models import AuditEntry, PasswordReset, User, UserSession
from app.security import passwords
from tests.admin.conftest import PASSWORD, bearer, make_token, make_user, sign_in
from tests.web.conftest import csrf

NEW = "a brand new passphrase"


def _client(app) -> TestClient:  # noqa: ANN001
    client = TestClient(app, base_url="http://testserver")
    client.get("/api/me/progress")
    return client


def _signed_in(app, email: str) -> TestClient:  # noqa: ANN001
    client = _client(app)
    sign_in(client, email)
    return client


def _signin_status(app, email: str, password: str) -> int:  # noqa: ANN001
    with _client(app) as client:
        return client.post("/auth/signin", json={"email": email, "password": password},
                           headers=csrf(client)).status_code


def _change(client: TestClient, current: str, new: str, again: str | None = None):  # noqa: ANN202
    return client.post("/auth/password", headers=csrf(client), json={
        "current_password": current, "new_password": new, "new_password_again": new if again is None else again})


def test_a_learner_changes_their_password_and_only_this_browser_stays_signed_in(app):
    make_user(app, "ada@example.com")
    here, elsewhere = _signed_in(app, "ada@example.com"), _signed_in(app, "ada@example.com")
    with here, elsewhere:
        response = _change(here, PASSWORD, NEW)
        assert response.status_code == 200, response.text
        assert response.json() == {"changed": True, "sessions_ended": 1}
        assert here.get("/api/me/progress").json()["signed_in"] is True
        assert elsewhere.get("/api/me/progress").json()["signed_in"] is False
    assert _signin_status(app, "ada@example.com", NEW) == 200
    assert _signin_status(app, "ada@example.com", PASSWORD) == 401


@pytest.mark.parametrize(("current", "new", "again", "status", "code"), [
    ("not my password", NEW, NEW, 401, "password_wrong"),
    (PASSWORD, NEW, NEW + "x", 422, "password_mismatch"),
    (PASSWORD, "password", "password", 422, "password_common"),
    (PASSWORD, "short", "short", 422, "password_short"),
    (PASSWORD, "ada@example.com", "ada@example.com", 422, "password_common"),
])
def test_a_refused_change_says_why_and_changes_nothing(app, current, new, again, status, code):
    make_user(app, "ada@example.com")
    with _signed_in(app, "ada@example.com") as client:
        response = _change(client, current, new, again)
        assert response.status_code == status, response.text
        body = response.json()
        assert code in (body.get("code"), body["detail"][0]["type"] if isinstance(body["detail"], list) else None)
    assert _signin_status(app, "ada@example.com", PASSWORD) == 200


def test_wrong_current_passwords_meet_the_sign_in_limit(app, settings):
    make_user(app, "ada@example.com")
    with _signed_in(app, "ada@example.com") as client:
        codes = [_change(client, "guess", NEW).status_code for _ in range(settings.signin_attempts_per_15min + 1)]
        assert codes[-1] == 429 and set(codes[:-1]) <= {401, 429}
        assert _change(client, PASSWORD, NEW).status_code == 429  # the right one waits too


def test_changing_needs_a_signed_in_browser_not_a_token(app):
    make_user(app, "root@example.com", "admin")
    token = make_token(app, "root@example.com", "users:admin")
    with _client(app) as client:
        response = _change(client, PASSWORD, NEW)
        assert response.status_code == 401 and response.json()["code"] == "signin_needed"
        response = client.post("/auth/password", headers=bearer(token), json={
            "current_password": PASSWORD, "new_password": NEW, "new_password_again": NEW})
        assert response.status_code == 401


def test_the_form_goes_back_to_its_page_with_the_outcome(app):
    make_user(app, "ada@example.com")
    with _signed_in(app, "ada@example.com") as client:
        form = {"csrf_token": client.cookies.get("kdojo_csrf"), "current_password": PASSWORD,
                "new_password": NEW, "new_password_again": "different"}
        response = client.post("/auth/password", data=form, follow_redirects=False)
        assert response.status_code == 303
        assert parse_qs(urlsplit(response.headers["location"]).query)["error"] == ["password_mismatch"]
        response = client.post("/auth/password", data=form | {"new_password_again": NEW}, follow_redirects=False)
        assert response.headers["location"] == "/account/password?changed=1"
        assert "비밀번호를 바꿨습니다" in client.get(response.headers["location"]).text
    with _client(app) as anonymous:
        response = anonymous.get("/account/password", follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"].startswith("/signin?next=")


def _reset_link(admin_client: TestClient, user_id: int, **body: int) -> dict:
    response = admin_client.post(f"/api/admin/users/{user_id}/password-reset", json=body,
                                 headers=csrf(admin_client))
    assert response.status_code == 201, response.text
    return response.json()


def _redeem(client: TestClient, token: str, new: str = NEW, again: str | None = None):  # noqa: ANN202
    if not client.cookies.get("kdojo_csrf"):
        client.get("/api/me/progress")
    return client.post("/auth/reset-password", headers=csrf(client), json={
        "token": token, "new_password": new, "new_password_again": new if again is None else again})


def test_a_reset_link_works_once_and_ends_every_session(app, admin_client, anon):
    user_id = make_user(app, "ada@example.com")
    signed_in = _signed_in(app, "ada@example.com")
    link = _reset_link(admin_client, user_id)
    assert link["link"] == f"/reset-password?token={link['token']}" and link["email"] == "ada@example.com"
    page = anon.get(link["link"])
    assert page.status_code == 200 and 'name="new_password_again"' in page.text
    assert page.headers["referrer-policy"] == "no-referrer" and page.headers["cache-control"] == "no-store"
    response = _redeem(anon, link["token"])
    assert response.status_code == 200 and response.json() == {"changed": True, "sessions_ended": 1}
    with signed_in:
        assert signed_in.get("/api/me/progress").json()["signed_in"] is False
    assert _signin_status(app, "ada@example.com", NEW) == 200
    again = _redeem(anon, link["token"], "yet another passphrase")
    assert again.status_code == 422 and again.json()["code"] == "reset_invalid"
    assert 'name="new_password"' not in anon.get(link["link"]).text
    with transaction(app.state.sessionmaker, write=False) as session:
        row = session.scalar(select(PasswordReset))
        assert row.token_hash != link["token"] and len(row.token_hash) == 64  # only the digest is stored
        actions = [e.action for e in session.scalars(select(AuditEntry).order_by(AuditEntry.id))]
    assert actions == ["user.password_reset_link", "user.password_reset"]


def test_an_expired_replaced_or_disabled_link_does_not_work(app, admin_client, anon):
    user_id = make_user(app, "ada@example.com")
    first = _reset_link(admin_client, user_id)
    second = _reset_link(admin_client, user_id, hours=1)
    assert _redeem(anon, first["token"]).json()["code"] == "reset_invalid"  # replaced by the newer link
    with transaction(app.state.sessionmaker) as session:
        session.execute(update(PasswordReset).values(expires_at=dt.datetime(2020, 1, 1)))
    assert _redeem(anon, second["token"]).json()["code"] == "reset_invalid"  # expired
    third = _reset_link(admin_client, user_id)
    with transaction(app.state.sessionmaker) as session:
        session.execute(update(User).where(User.id == user_id).values(disabled=True))
    assert _redeem(anon, third["token"]).json()["code"] == "reset_invalid"  # disabled account
    assert _signin_status(app, "ada@example.com", PASSWORD) == 401  # disabled, and unchanged


def test_a_reset_keeps_the_new_password_rules_and_the_token_on_a_refusal(app, admin_client, anon):
    user_id = make_user(app, "ada@example.com")
    token = _reset_link(admin_client, user_id)["token"]
    assert _redeem(anon, token, "password").json()["detail"][0]["type"] == "password_common"
    anon.get("/api/me/progress")
    form = {"csrf_token": anon.cookies.get("kdojo_csrf"), "token": token, "new_password": NEW,
            "new_password_again": "other"}
    response = anon.post("/auth/reset-password", data=form, follow_redirects=False)
    query = parse_qs(urlsplit(response.headers["location"]).query)
    assert query["error"] == ["password_mismatch"] and query["token"] == [token]  # try again on the same link
    response = anon.post("/auth/reset-password", data=form | {"new_password_again": NEW}, follow_redirects=False)
    assert response.headers["location"] == "/signin?notice=password_reset"
    assert "Your new password is saved" in anon.get("/signin?notice=password_reset&lang=en").text


def test_guessing_reset_tokens_meets_the_per_address_limit(app, settings, anon):
    codes = [_redeem(anon, f"guess-{i}").status_code for i in range(settings.signin_attempts_per_15min + 1)]
    assert codes[:-1] == [422] * settings.signin_attempts_per_15min and codes[-1] == 429


def test_reset_links_are_for_user_admins_only(app, anon, admin_client):
    user_id = make_user(app, "ada@example.com")
    make_user(app, "grader@example.com", "instructor")
    token = make_token(app, "grader@example.com", "grading:read")
    anon.get("/api/me/progress")
    assert anon.post(f"/api/admin/users/{user_id}/password-reset", json={}, headers=csrf(anon)).status_code == 401
    response = anon.post(f"/api/admin/users/{user_id}/password-reset", json={}, headers=bearer(token))
    assert response.status_code == 403
    missing = admin_client.post("/api/admin/users/999/password-reset", json={}, headers=csrf(admin_client))
    assert missing.status_code == 404
    too_long = admin_client.post(f"/api/admin/users/{user_id}/password-reset", json={"hours": 169},
                                 headers=csrf(admin_client))
    assert too_long.status_code == 422
    with transaction(app.state.sessionmaker, write=False) as session:
        assert session.scalar(select(PasswordReset)) is None


# --- the command line ---------------------------------------------------------------------


@pytest.fixture
def cli_database(settings, monkeypatch):  # noqa: ANN001, ANN201
    monkeypatch.setenv("KDOJO_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KDOJO_LESSONS_DIR", str(settings.lessons_dir))
    return settings


def test_the_cli_prints_a_one_time_link_that_works(app, cli_database, capsys, anon):
    make_user(app, "ada@example.com")
    assert kdojo(["users", "reset-password", "--email", "ADA@example.com", "--base-url", "https://dojo.example/"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("one-time link for ada@example.com, valid until ")
    assert out[1].startswith("https://dojo.example/reset-password?token=")
    token = parse_qs(urlsplit(out[1]).query)["token"][0]
    assert _redeem(anon, token).status_code == 200
    assert _signin_status(app, "ada@example.com", NEW) == 200


def test_the_cli_sets_a_password_and_ends_the_sessions(app, cli_database, capsys, monkeypatch):
    make_user(app, "ada@example.com")
    client = _signed_in(app, "ada@example.com")
    monkeypatch.setattr("sys.stdin", io.StringIO(NEW + "\n"))
    assert kdojo(["users", "reset-password", "--email", "ada@example.com", "--set", "--password-stdin"]) == 0
    assert "set the password of ada@example.com; 1 session(s) ended" in capsys.readouterr().out
    with client:
        assert client.get("/api/me/progress").json()["signed_in"] is False
    with transaction(app.state.sessionmaker, write=False) as session:
        user = session.scalar(select(User).where(User.email == "ada@example.com"))
        assert passwords.verify_password(NEW, user.password_hash)
        assert session.scalar(select(UserSession.revoked_at).where(UserSession.user_id == user.id)) is not None
        assert session.scalar(select(AuditEntry.via).where(AuditEntry.action == "user.set_password")) == "cli"


@pytest.mark.parametrize(("argv", "stdin", "code", "words"), [
    (["--set", "--password-stdin"], "password\n", 1, "too common"),
    (["--password-stdin"], "", 2, "--password-stdin goes with --set"),
    (["--set"], "", 2, "no terminal to ask for a password"),
    (["--hours", "0"], "", 1, "1 to 168 hours"),
])
def test_cli_refusals_are_one_line(app, cli_database, capsys, monkeypatch, argv, stdin, code, words):
    make_user(app, "ada@example.com")
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert kdojo(["users", "reset-password", "--email", "ada@example.com", *argv]) == code
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("kdojo: database")]
    assert len(err) == 1 and words in err[0]
    assert _signin_status(app, "ada@example.com", PASSWORD) == 200
