"""Users (list, role, disable), moderation (hide a comment, bug reports) and the audit log."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.db import transaction
from app.models import BugReport
from tests.admin.conftest import PASSWORD, bearer, make_token, make_user, sign_in
from tests.web.conftest import csrf


@pytest.fixture
def users_admin(app, admin_id) -> dict[str, str]:  # noqa: ANN001
    return bearer(make_token(app, "root@example.com", "users:admin"))


@pytest.fixture
def moderator(app, admin_id) -> dict[str, str]:  # noqa: ANN001
    return bearer(make_token(app, "root@example.com", "content:admin"))


def test_list_users_with_filters_and_paging(app, anon, users_admin):
    for i in range(3):
        make_user(app, f"l{i}@example.com")
    make_user(app, "teach@example.com", "instructor", "Teacher Kim")
    everyone = anon.get("/api/admin/users?per_page=2", headers=users_admin).json()
    assert everyone["total"] == 5 and len(everyone["items"]) == 2
    assert [u["email"] for u in anon.get("/api/admin/users?role=instructor", headers=users_admin).json()["items"]] \
        == ["teach@example.com"]
    assert [u["email"] for u in anon.get("/api/admin/users?q=kim", headers=users_admin).json()["items"]] \
        == ["teach@example.com"]


def test_change_role_and_the_last_admin_stays(app, anon, admin_id, users_admin):
    learner = make_user(app, "learner@example.com")
    promoted = anon.post(f"/api/admin/users/{learner}/role", json={"role": "instructor", "reason": "TA"},
                         headers=users_admin)
    assert promoted.json()["role"] == "instructor"
    assert anon.post(f"/api/admin/users/{learner}/role", json={"role": "king"},
                     headers=users_admin).status_code == 422
    last = anon.post(f"/api/admin/users/{admin_id}/role", json={"role": "learner"}, headers=users_admin)
    assert last.status_code == 409 and "last admin" in last.json()["detail"]
    assert anon.post(f"/api/admin/users/{admin_id}/disable", json={}, headers=users_admin).status_code == 409
    assert anon.post("/api/admin/users/9999/role", json={"role": "admin"}, headers=users_admin).status_code == 404


def test_a_disabled_user_is_signed_out_and_cannot_sign_in(app, anon, users_admin):
    learner = make_user(app, "mallory@example.com")
    with TestClient(app, base_url="http://testserver") as browser:
        browser.get("/api/me/progress")
        sign_in(browser, "mallory@example.com")
        assert browser.get("/api/notifications").status_code == 200  # signed in
        done = anon.post(f"/api/admin/users/{learner}/disable", json={"reason": "spam"}, headers=users_admin)
        assert done.json()["disabled"] is True
        assert browser.get("/api/notifications").status_code == 401  # the session was revoked
        again = browser.post("/auth/signin", json={"email": "mallory@example.com", "password": PASSWORD},
                             headers=csrf(browser))
        assert again.status_code == 401
    enabled = anon.post(f"/api/admin/users/{learner}/disable", json={"disabled": False, "reason": "appeal"},
                        headers=users_admin)
    assert enabled.json()["disabled"] is False
    log = anon.get("/api/admin/audit?target_type=user", headers=users_admin).json()["items"]
    assert [(e["action"], e["reason"]) for e in log] == [("user.enable", "appeal"), ("user.disable", "spam")]
    assert log[1]["details"]["sessions_revoked"] == 1


def test_hide_a_comment(app, client, anon, moderator):
    make_user(app, "ada@example.com")
    sign_in(client, "ada@example.com")
    posted = client.post("/api/lessons/reduction/comments", json={"body": "spam spam"}, headers=csrf(client))
    assert posted.status_code == 201, posted.text
    comment_id = posted.json()["id"]
    assert len(client.get("/api/lessons/reduction/comments").json()["comments"]) == 1
    assert anon.post(f"/api/admin/comments/{comment_id}/hide", json={}, headers=moderator).status_code == 422
    hidden = anon.post(f"/api/admin/comments/{comment_id}/hide", json={"reason": "spam"}, headers=moderator)
    assert hidden.json() == {"id": comment_id, "hidden": True}
    assert client.get("/api/lessons/reduction/comments").json()["comments"] == []
    assert anon.post("/api/admin/comments/999/hide", json={"reason": "x"}, headers=moderator).status_code == 404


def test_list_and_resolve_bug_reports(app, anon, moderator):
    with transaction(app.state.sessionmaker) as session:
        for text in ("typo in section 2", "test 3 is wrong"):
            session.add(BugReport(lesson_id="reduction", message=text))
    open_reports = anon.get("/api/admin/bug-reports?status=open", headers=moderator).json()
    assert open_reports["total"] == 2
    newest = open_reports["items"][0]
    assert newest["message"] == "test 3 is wrong"
    resolved = anon.post(f"/api/admin/bug-reports/{newest['id']}/resolve", json={"reason": "fixed in #7"},
                         headers=moderator)
    assert resolved.json() == {"id": newest["id"], "status": "closed"}
    assert anon.get("/api/admin/bug-reports?status=open", headers=moderator).json()["total"] == 1
    assert anon.get("/api/admin/bug-reports?status=closed", headers=moderator).json()["total"] == 1
    assert anon.get("/api/admin/bug-reports?status=weird", headers=moderator).status_code == 422


def test_the_audit_log_pages_newest_first_and_records_the_credential(app, admin_client, users_admin, anon):
    learner = make_user(app, "x@example.com")
    for role in ("instructor", "learner", "instructor"):
        admin_client.post(f"/api/admin/users/{learner}/role", json={"role": role, "reason": role},
                          headers=csrf(admin_client))
    page = anon.get("/api/admin/audit?per_page=2", headers=users_admin).json()
    assert page["total"] == 3 and [e["reason"] for e in page["items"]] == ["instructor", "learner"]
    assert {e["via"] for e in page["items"]} == {"session"}
    assert page["items"][0]["actor"] == "root@example.com" and page["items"][0]["created_at"].endswith("Z")
    second = anon.get("/api/admin/audit?per_page=2&page=2", headers=users_admin).json()
    assert [e["details"]["role"] for e in second["items"]] == ["instructor"]
