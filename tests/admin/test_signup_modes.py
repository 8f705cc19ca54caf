"""`KDOJO_SIGNUP=open|invite|closed` and invite codes (issue #25), on a real
SQLite database built by Alembic."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from app.cli import main as kdojo
from app.db import transaction
from app.main import create_app
from app.migrate import upgrade
from app.models import AuditEntry, InviteCode, User
from tests.admin.conftest import make_user, sign_in
from tests.web.conftest import csrf, make_settings

PASSWORD = "correct horse battery"


@pytest.fixture
def mode(request: pytest.FixtureRequest) -> str:
    return getattr(request, "param", "invite")


@pytest.fixture
def site(tmp_path, lessons_dir, mode):  # noqa: ANN001, ANN201
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=False, signup=mode)
    upgrade(settings.database_url)
    return create_app(settings)


@pytest.fixture
def browser(site) -> Iterator[TestClient]:  # noqa: ANN001
    with TestClient(site, base_url="http://testserver") as client:
        client.get("/api/me/progress")
        yield client


@pytest.fixture
def admin(site) -> Iterator[TestClient]:  # noqa: ANN001
    make_user(site, "root@example.com", "admin")
    with TestClient(site, base_url="http://testserver") as client:
        client.get("/api/me/progress")
        sign_in(client, "root@example.com")
        yield client


def _signup(client: TestClient, email: str, code: str | None = None, password: str = PASSWORD):  # noqa: ANN202
    body = {"email": email, "password": password} | ({"invite_code": code} if code is not None else {})
    response = client.post("/auth/signup", json=body, headers=csrf(client))
    if response.status_code == 200:  # a new browser for the next sign-up
        client.post("/auth/signout", json={}, headers=csrf(client))
    return response


def _accounts(site) -> int:  # noqa: ANN001
    with transaction(site.state.sessionmaker, write=False) as session:
        return int(session.scalar(select(func.count()).select_from(User).where(User.role == "learner")))


def _invite(admin: TestClient, **body: object) -> dict:
    response = admin.post("/api/admin/invites", json=body, headers=csrf(admin))
    assert response.status_code == 201, response.text
    return response.json()


@pytest.mark.parametrize("mode", ["closed"], indirect=True)
def test_closed_sign_up_is_a_403_with_a_code_and_the_page_says_why(site, browser):
    response = _signup(browser, "ada@example.com")
    assert response.status_code == 403
    assert response.json()["code"] == "signup_closed" and "closed" in response.json()["detail"]
    assert _accounts(site) == 0
    form = browser.post("/auth/signup", data={"email": "ada@example.com", "password": PASSWORD,
                                              "csrf_token": browser.cookies.get("kdojo_csrf")},
                        follow_redirects=False)
    assert parse_qs(urlsplit(form.headers["location"]).query)["error"] == ["signup_closed"]
    korean, english = browser.get("/signup?lang=ko").text, browser.get("/signup?lang=en").text
    assert "새 가입을 받지 않습니다" in korean and "not taking new sign-ups" in english
    assert 'action="/auth/signup"' not in korean


def test_invite_sign_up_needs_a_live_code(site, browser, admin):
    page = browser.get("/signup?lang=en").text
    assert 'name="invite_code"' in page and "by invitation" in page
    assert "초대 코드" in browser.get("/signup?lang=ko").text
    for code in (None, "", "not-a-code"):
        response = _signup(browser, "ada@example.com", code)
        assert response.status_code == 403 and response.json()["code"] == "invite_invalid"
    invite = _invite(admin, uses=2, note="class of 2026")
    assert invite["max_uses"] == 2 and invite["live"] and invite["prefix"] == invite["code"][:6]
    assert _signup(browser, "ada@example.com", " " + invite["code"] + " ").status_code == 200  # spaces forgiven
    assert _signup(browser, "bo@example.com", invite["code"]).status_code == 200
    used_up = _signup(browser, "cy@example.com", invite["code"])
    assert used_up.status_code == 403 and used_up.json()["code"] == "invite_invalid"
    assert _accounts(site) == 2
    listed = admin.get("/api/admin/invites").json()["items"]
    assert [(i["uses"], i["live"], i["note"]) for i in listed] == [(2, False, "class of 2026")]
    assert "code" not in listed[0]
    with transaction(site.state.sessionmaker, write=False) as session:
        assert session.scalar(select(InviteCode.code_hash)) != invite["code"]


def test_a_failed_sign_up_spends_no_use(site, browser, admin):
    code = _invite(admin)["code"]
    assert _signup(browser, "ada@example.com", code, password="password").status_code == 422  # too common
    make_user(site, "taken@example.com")
    assert _signup(browser, "taken@example.com", code).status_code == 409
    assert _signup(browser, "ada@example.com", code).status_code == 200
    assert _signup(browser, "bo@example.com", code).json()["code"] == "invite_invalid"


def test_expired_and_revoked_codes_do_not_work(site, browser, admin):
    expired, revoked = _invite(admin), _invite(admin, uses=5)
    with transaction(site.state.sessionmaker) as session:
        session.execute(update(InviteCode).where(InviteCode.id == expired["id"])
                        .values(expires_at=dt.datetime(2020, 1, 1)))
    response = admin.delete(f"/api/admin/invites/{revoked['id']}", headers=csrf(admin))
    assert response.status_code == 200 and response.json()["revoked"] is True
    for invite in (expired, revoked):
        assert _signup(browser, "ada@example.com", invite["code"]).json()["code"] == "invite_invalid"
    assert admin.delete("/api/admin/invites/999", headers=csrf(admin)).status_code == 404
    with transaction(site.state.sessionmaker, write=False) as session:
        actions = [a for (a,) in session.execute(select(AuditEntry.action).order_by(AuditEntry.id))]
    assert actions == ["invite.create", "invite.create", "invite.revoke"]


def test_guessing_codes_meets_the_per_address_limit(site, browser, admin):
    limit = site.state.settings.signin_attempts_per_15min
    codes = [_signup(browser, "ada@example.com", f"guess-{i}").status_code for i in range(limit + 1)]
    assert codes[:-1] == [403] * limit and codes[-1] == 429
    assert _signup(browser, "ada@example.com", _invite(admin)["code"]).status_code == 429


@pytest.mark.parametrize("body", [{"uses": 0}, {"uses": 10_001}, {"days": 0}, {"days": 366}, {"note": "x" * 101}])
def test_invite_limits_are_422(admin, body):
    assert admin.post("/api/admin/invites", json=body, headers=csrf(admin)).status_code == 422


@pytest.mark.parametrize("mode", ["open"], indirect=True)
def test_open_sign_up_ignores_an_invite_code(site, browser):
    assert "invite_code" not in browser.get("/signup").text
    assert _signup(browser, "ada@example.com", "anything").status_code == 200


def test_the_cli_makes_lists_and_revokes_codes(site, browser, monkeypatch, capsys):
    monkeypatch.setenv("KDOJO_DATABASE_URL", site.state.settings.database_url)
    monkeypatch.setenv("KDOJO_LESSONS_DIR", str(site.state.settings.lessons_dir))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert kdojo(["users", "invite", "--uses", "3", "--days", "7", "--note", "workshop"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("invite code (for 3 sign-up(s) until ")
    code = out[1]
    assert _signup(browser, "ada@example.com", code).status_code == 200
    assert kdojo(["users", "invites"]) == 0
    listed = capsys.readouterr().out
    assert f"{code[:6]}…  1/3 used" in listed and "live  workshop" in listed and code not in listed
    invite_id = listed.split()[0]
    assert kdojo(["users", "revoke-invite", invite_id]) == 0
    assert _signup(browser, "bo@example.com", code).status_code == 403
    assert kdojo(["users", "invite", "--uses", "0"]) == 1
    assert "1 to 10000 sign-ups" in capsys.readouterr().err
