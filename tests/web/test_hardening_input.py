"""Hostile input gets a documented 4xx, never a 500 (issue #13): bodies limited
while read, huge integers, malformed and deeply nested JSON, strict ids,
concurrent sign-ups on SQLite; the progress merge trusts only what the server
verified; every response carries a Content-Security-Policy."""

from __future__ import annotations

import re
import threading

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import transaction
from app.main import create_app
from tests.web.database import migrate
from app.models import BugReport, User
from tests.web.conftest import csrf, make_settings, signup
from tests.web.live_server import browser, csrf_header, live_server

LIMIT = 1 << 20


def _reports(app) -> int:  # noqa: ANN001
    with transaction(app.state.sessionmaker, write=False) as session:
        return session.scalar(select(func.count()).select_from(BugReport))


def test_a_body_announced_too_large_is_refused_before_reading(client, app):
    response = client.post("/api/bug-reports", content=b"{" + b" " * LIMIT + b"}",
                           headers=csrf(client) | {"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"detail": f"The request body is larger than {LIMIT} bytes."}
    assert _reports(app) == 0


def test_a_chunked_body_without_length_is_counted_while_read(client, app):
    def chunks():
        yield b'{"lesson_id": "reduction", "message": "'
        for _ in range(40):
            yield b"x" * 65536
        yield b'"}'

    response = client.post("/api/bug-reports", content=chunks(),
                           headers=csrf(client) | {"content-type": "application/json"})
    assert "content-length" not in response.request.headers
    assert response.status_code == 413 and "larger than" in response.json()["detail"]
    assert _reports(app) == 0


def test_a_chunked_body_under_the_limit_still_works(client, app):
    def chunks():
        yield b'{"lesson_id": "reduction", '
        yield b'"message": "a typo"}'

    response = client.post("/api/bug-reports", content=chunks(),
                           headers=csrf(client) | {"content-type": "application/json"})
    assert response.status_code == 201 and _reports(app) == 1


@pytest.fixture
def roomy(tmp_path, lessons_dir):
    """A server allowing 4 MiB bodies: the CSRF check's own 1 MiB form limit shows."""
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=False, max_request_bytes=4 << 20)
    migrate(settings.database_url)
    with TestClient(create_app(settings)) as c:
        c.get("/api/me/progress")
        yield c


def test_a_form_over_one_mebibyte_in_the_csrf_check_is_413(roomy):
    response = roomy.post("/auth/signin", data={"email": "a@example.com", "password": "x" * (LIMIT + 10)})
    assert response.status_code == 413 and "form is larger" in response.json()["detail"]


def test_a_malformed_multipart_form_is_400(roomy):
    response = roomy.post("/auth/signin", content=b"--nope\r\nbroken",
                          headers={"content-type": "multipart/form-data; boundary=zzz"})
    assert response.status_code == 400 and response.json()["detail"] == "The form could not be read."


@pytest.mark.parametrize("path", [
    "/api/submissions/99999999999999999999", "/api/submissions/2147483648", "/api/submissions/0",
    "/api/submissions/99999999999999999999/events",
])
def test_huge_ids_in_paths_are_422_for_anyone(client, path):
    response = client.get(path)
    assert response.status_code == 422 and isinstance(response.json()["detail"], list)


def test_huge_integers_for_an_admin_are_422(client, app):
    from tests.admin.conftest import bearer, make_token, make_user

    make_user(app, "root@example.com", "admin")
    token = bearer(make_token(app, "root@example.com", "users:admin,grading:read,grading:write"))
    huge = "99999999999999999999"
    for method, path in [("GET", f"/api/admin/users?page={huge}"), ("GET", f"/api/admin/audit?page={huge}"),
                         ("GET", f"/api/admin/submissions?page={huge}"), ("DELETE", f"/api/admin/tokens/{huge}"),
                         ("POST", f"/api/admin/users/{huge}/role"), ("GET", f"/api/admin/submissions/{huge}")]:
        response = client.request(method, path, headers=token, json={"role": "learner"})
        assert response.status_code == 422, (path, response.text)
    override = client.post("/api/admin/submissions/1/override", headers=token,
                           json={"xp": 10**20, "reason": "x"})
    assert override.status_code == 422


@pytest.mark.parametrize("body", [b"{", b"not json", b"[" * 100_000 + b"]" * 100_000, b'{"email": 1}',
                                  b"[1, 2]", b'{"email": "a@example.com"}'])
@pytest.mark.parametrize("path", ["/auth/signin", "/auth/signup"])
def test_malformed_or_deeply_nested_json_on_auth_is_422(client, path, body):
    response = client.post(path, content=body, headers=csrf(client) | {"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert all({"type", "loc", "msg"} <= set(item) for item in response.json()["detail"])


@pytest.mark.parametrize("ids", [[False], [True], ["1"], [1.5], [99999999999999999999], [0]])
def test_notification_ids_are_strict_positive_ints(client, ids):
    signup(client)
    response = client.post("/api/notifications/read", json={"ids": ids}, headers=csrf(client))
    assert response.status_code == 422, response.text


def test_huge_ids_in_bodies_are_422(client):
    signup(client)
    for path, body in [("/api/bug-reports", {"lesson_id": "reduction", "message": "x", "submission_id": 2**31}),
                       ("/api/lessons/reduction/comments", {"body": "x", "parent_id": 10**20})]:
        response = client.post(path, json=body, headers=csrf(client))
        assert response.status_code == 422, (path, response.text)


@pytest.mark.parametrize("body", [b"1e999999", b"-1e999", b'"text"',
                                  b'{"exercise_id": 1e999, "source": "x", "lesson_id": 1e999, "message": 1e999,'
                                  b' "email": 1e999, "password": 1e999, "body": 1e999, "exercise_ids": [1e999]}'])
@pytest.mark.parametrize("path", ["/api/submissions", "/api/bug-reports", "/auth/signin", "/auth/signup",
                                  "/api/lessons/reduction/comments", "/api/progress/merge"])
def test_json_numbers_past_a_double_are_422_not_500(client, path, body):
    """`1e999` parses to infinity, which the 422 used to echo back as its `input`
    and fail to serialize (a 500). The items carry type, loc and msg only."""
    signup(client)
    response = client.post(path, content=body, headers=csrf(client) | {"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert all(set(item) == {"type", "loc", "msg"} for item in response.json()["detail"])


def test_every_422_detail_is_a_list(client):
    signup(client)
    service = client.post("/api/submissions", json={"exercise_id": "reduction.block_sum", "source": "  "},
                          headers=csrf(client))
    validation = client.post("/api/submissions", json={"exercise_id": 5}, headers=csrf(client))
    for response in (service, validation):
        assert response.status_code == 422
        assert isinstance(response.json()["detail"], list) and response.json()["detail"][0]["msg"]


def test_fifty_concurrent_sign_ups_on_sqlite_all_succeed(tmp_path, lessons_dir):
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=False)
    migrate(settings.database_url)
    app = create_app(settings)
    statuses: list[int] = []
    with live_server(app) as base:
        clients = [browser(base) for _ in range(50)]
        barrier = threading.Barrier(50)

        def sign_up(i: int) -> None:
            barrier.wait(timeout=60)
            response = clients[i].post("/auth/signup", headers=csrf_header(clients[i]),
                                       json={"email": f"learner{i}@example.com", "password": "correct horse"})
            statuses.append(response.status_code)

        threads = [threading.Thread(target=sign_up, args=(i,)) for i in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        for c in clients:
            c.close()
    assert statuses == [200] * 50
    with transaction(app.state.sessionmaker, write=False) as session:
        assert session.scalar(select(func.count()).select_from(User)) == 50


def test_merge_cannot_claim_achievements_or_xp_without_submissions(client):
    signup(client)
    claim = {"exercise_ids": ["reduction.block_sum"], "lesson_ids": ["intro", "reduction"]}
    body = client.post("/api/progress/merge", json=claim, headers=csrf(client)).json()
    unlocked = set(body["achievements"])
    assert not unlocked & {"first_kernel", "first_lesson", "track_complete", "five_exercises"}, unlocked
    assert body["xp_gained"] == 10  # the reading lesson `intro` only (10 XP); block_sum is unverified
    mine = client.get("/api/me/progress").json()
    assert {a["id"] for a in mine["achievements"] if a["unlocked"]} == unlocked


def test_merge_item_ids_are_bounded(client):
    signup(client)
    response = client.post("/api/progress/merge", json={"exercise_ids": ["x" * 129]}, headers=csrf(client))
    assert response.status_code == 422


def test_every_response_has_a_strict_script_policy(client):
    for path in ("/", "/lessons/reduction", "/api/me/progress", "/nonexistent", "/static/js/progress.js"):
        policy = client.get(path, headers={"accept": "text/html"}).headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert re.fullmatch(r"'self' 'nonce-[\w-]+'", directives["script-src"]), policy
        assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"


def test_pages_have_no_inline_script_that_the_policy_would_block(client):
    signup(client)
    for path in ("/", "/lessons/reduction", "/me", "/signin", "/signup"):
        html = client.get(path).text
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag or 'type="application/json"' in tag, (path, tag)
        assert not re.search(r"\son[a-z]+\s*=", html.split("<body", 1)[-1]), path  # no onclick= etc.


def test_the_api_docs_inline_script_carries_the_responses_nonce(client):
    response = client.get("/api/docs")
    nonce = re.search(r"'nonce-([\w-]+)'", response.headers["content-security-policy"]).group(1)
    scripts = re.findall(r"<script\b[^>]*>", response.text)
    inline = [tag for tag in scripts if "src=" not in tag]
    assert inline and all(f'nonce="{nonce}"' in tag for tag in inline)


def test_a_huge_last_event_id_is_bounded_for_the_database():
    from starlette.requests import Request

    from app.api.submissions import _last_event_id
    from app.deps import MAX_DB_INT

    huge = b"99999999999999999999"
    request = Request({"type": "http", "method": "GET", "path": "/", "query_string": b"last_event_id=" + huge,
                       "headers": [(b"last-event-id", huge)]})
    assert _last_event_id(request) == MAX_DB_INT


@pytest.mark.parametrize("name", ["a\x00b", "bell\x07", "\u202eevil", "iso\u2066late"])
def test_a_display_name_with_control_or_direction_characters_is_refused(client, name):
    """SQLite stored them (PostgreSQL refused the NUL); a right-to-left override
    showed other learners a name written backwards."""
    response = client.post("/auth/signup", json={"email": "n@example.com", "password": "correct horse",
                                                 "display_name": name}, headers=csrf(client))
    assert response.status_code == 422 and response.json()["code"] == "display_name_invalid", response.text
    form = client.post("/auth/signup", data={"email": "n@example.com", "password": "correct horse",
                                             "display_name": name, "csrf_token": client.cookies.get("kdojo_csrf")},
                       follow_redirects=False)
    assert form.status_code == 303 and "error=display_name_invalid" in form.headers["location"]
    page = client.get(form.headers["location"] + "&lang=en")
    assert "The display name cannot contain control or text-direction characters." in page.text


@pytest.mark.parametrize("text", ["a\x00b", "\x1b[31mred"])
def test_comments_and_reports_with_control_characters_are_422_on_sqlite_too(client, text):
    signup(client)
    comment = client.post("/api/lessons/reduction/comments", json={"body": text}, headers=csrf(client))
    report = client.post("/api/bug-reports", json={"lesson_id": "reduction", "message": text}, headers=csrf(client))
    anchor = client.post("/api/bug-reports", json={"lesson_id": "reduction", "message": "typo", "anchor": text},
                         headers=csrf(client))
    for response in (comment, report, anchor):
        assert response.status_code == 422 and response.json()["code"] == "text_control", response.text
    fine = client.post("/api/lessons/reduction/comments", json={"body": "tabs\tand\nlines\r\nare fine"},
                       headers=csrf(client))
    assert fine.status_code == 201, fine.text


@pytest.mark.parametrize("path", ["/", "/lessons/reduction", "/signin", "/api/status", "/static/css/site.css"])
def test_head_is_answered_like_get_without_a_body(client, path):
    """`curl -I` and uptime checks got 405 from every page."""
    get = client.get(path)
    head = client.head(path)
    assert head.status_code == get.status_code == 200
    assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"]
    assert "content-security-policy" in head.headers


def test_head_of_a_missing_page_is_404(client):
    head = client.head("/lessons/nope", headers={"accept": "text/html"})
    assert head.status_code == 404 and head.content == b""
