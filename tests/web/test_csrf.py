"""Every state-changing request needs the double-submit token."""

from __future__ import annotations

import pytest

from tests.web.conftest import EXERCISE, csrf

STATE_CHANGING = [
    ("/auth/signup", {"email": "c@example.com", "password": "long enough"}),
    ("/auth/signin", {"email": "c@example.com", "password": "long enough"}),
    ("/auth/signout", {}),
    ("/api/submissions", {"exercise_id": EXERCISE, "source": "x", "mode": "run"}),
    ("/api/progress/merge", {"exercise_ids": []}),
    ("/api/lessons/reduction/comments", {"body": "hi"}),
    ("/api/notifications/read", {}),
    ("/api/bug-reports", {"lesson_id": "reduction", "message": "typo"}),
]


@pytest.mark.parametrize(("path", "payload"), STATE_CHANGING)
def test_post_without_or_with_a_wrong_token_is_refused(client, path, payload):
    missing = client.post(path, json=payload)
    assert missing.status_code == 403 and "CSRF" in missing.json()["detail"]
    wrong = client.post(path, json=payload, headers={"X-CSRF-Token": "forged.0000"})
    assert wrong.status_code == 403


def test_a_valid_token_from_another_browser_is_refused(client, app):
    from fastapi.testclient import TestClient

    with TestClient(app) as other:
        other.get("/api/me/progress")
        stolen = other.cookies.get("kdojo_csrf")
    response = client.post("/api/bug-reports", json={"lesson_id": "reduction", "message": "x"},
                           headers={"X-CSRF-Token": stolen})
    assert response.status_code == 403


def test_form_field_token_is_accepted_and_the_form_still_reaches_the_route(client):
    response = client.post("/auth/signup", data={"email": "form@example.com", "password": "long enough",
                                                 "csrf_token": client.cookies.get("kdojo_csrf")},
                           follow_redirects=False)
    assert response.status_code == 303
    assert client.get("/api/me/progress").json()["signed_in"] is True


def test_header_token_passes(client):
    response = client.post("/api/bug-reports", json={"lesson_id": "reduction", "message": "a typo"},
                           headers=csrf(client))
    assert response.status_code == 201


def test_first_visit_sets_a_signed_token_cookie(app):
    from fastapi.testclient import TestClient

    from app.security.csrf import valid_token

    with TestClient(app) as c:
        response = c.get("/api/me/progress")
        header = next(h for h in response.headers.get_list("set-cookie") if h.startswith("kdojo_csrf="))
        assert "samesite=lax" in header.lower()
        assert valid_token(app.state.settings.secret_key, c.cookies.get("kdojo_csrf"))


def test_responses_carry_security_headers_even_when_refused(client):
    for response in (client.get("/api/me/progress"), client.post("/api/bug-reports", json={})):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "same-origin"
