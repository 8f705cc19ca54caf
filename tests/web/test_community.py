"""Comments (Markdown, sanitized), replies, reply notifications, bug reports."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from app.services.comments import render_comment
from tests.web.conftest import EXERCISE, csrf, signup, store_verdict, v1_result

ATTACKS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "<a href=\"javascript:alert(1)\">x</a>",
    "![x](javascript:alert(1))",
    "<iframe src=//evil.example></iframe>",
    "<svg onload=alert(1)>",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
]


class _Elements(HTMLParser):
    """Every element and attribute a browser would build from the HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {k: v or "" for k, v in attrs}))


@pytest.mark.parametrize("body", ATTACKS)
def test_comment_markdown_cannot_carry_script(body):
    parser = _Elements()
    parser.feed(render_comment(body))
    for tag, attrs in parser.found:
        assert tag not in {"script", "img", "iframe", "svg", "object", "embed", "style"}, (body, tag)
        assert not [k for k in attrs if k.startswith("on") or k == "style"], (body, attrs)
        for key in ("href", "src"):
            if key in attrs:
                assert attrs[key].lower().startswith(("http://", "https://", "mailto:", "#", "/")), (body, attrs)


def test_markdown_still_renders_and_links_get_nofollow():
    html = render_comment("**bold** and `code` and [docs](https://docs.nvidia.com)\n\n```\nint x;\n```")
    assert "<strong>bold</strong>" in html and "<code>code</code>" in html
    assert 'href="https://docs.nvidia.com"' in html and "nofollow" in html
    assert "<pre><code>int x;" in html


def test_comments_need_sign_in_to_post_but_anyone_reads(client):
    denied = client.post("/api/lessons/reduction/comments", json={"body": "hi"}, headers=csrf(client))
    assert denied.status_code == 401 and denied.json()["detail"] == "Sign in to do this."
    assert client.get("/api/lessons/reduction/comments").json() == {
        "lesson_id": "reduction", "count": 0, "comments": []}


def test_comment_on_unknown_lesson_or_empty_is_refused(client):
    signup(client)
    unknown = client.post("/api/lessons/nope/comments", json={"body": "hi"}, headers=csrf(client))
    assert unknown.status_code == 404
    empty = client.post("/api/lessons/reduction/comments", json={"body": "  "}, headers=csrf(client))
    assert empty.status_code == 422


def test_replies_thread_and_notify_the_parent_author_only(client, app):
    signup(client, email="asker@example.com", name="Asker")
    root = client.post("/api/lessons/reduction/comments", json={"body": "Why *atomicAdd*?"},
                       headers=csrf(client))
    assert root.status_code == 201
    root_id = root.json()["id"]
    assert "<em>atomicAdd</em>" in root.json()["body_html"]
    client.post("/api/lessons/reduction/comments", json={"body": "self note", "parent_id": root_id},
                headers=csrf(client))
    assert client.get("/api/notifications").json()["unread"] == 0  # own reply: no notification
    with TestClient(app) as other:
        other.get("/api/me/progress")
        signup(other, email="helper@example.com", name="Helper")
        reply = other.post("/api/lessons/reduction/comments",
                           json={"body": "Many blocks write out[0].", "parent_id": root_id},
                           headers=csrf(other))
        assert reply.status_code == 201
        wrong_lesson = other.post("/api/lessons/intro/comments", json={"body": "x", "parent_id": root_id},
                                  headers=csrf(other))
        assert wrong_lesson.status_code == 404
        assert other.get("/api/notifications").json()["unread"] == 0
    listing = client.get("/api/lessons/reduction/comments").json()
    assert listing["count"] == 3 and len(listing["comments"]) == 1
    assert [r["author"] for r in listing["comments"][0]["replies"]] == ["Asker", "Helper"]
    notes = client.get("/api/notifications").json()
    assert notes["unread"] == 1
    assert notes["notifications"][0]["actor"] == "Helper" and notes["notifications"][0]["lesson_id"] == "reduction"
    marked = client.post("/api/notifications/read", json={}, headers=csrf(client)).json()
    assert marked == {"marked": 1, "unread": 0}


def test_notifications_need_sign_in(client):
    assert client.get("/api/notifications").status_code == 401
    assert client.post("/api/notifications/read", json={}, headers=csrf(client)).status_code == 401


def test_comment_rate_limit(client, app):
    app.state.settings = app.state.settings.model_copy(update={"comments_per_hour": 2})
    signup(client)
    for i in range(2):
        assert client.post("/api/lessons/reduction/comments", json={"body": f"c{i}"},
                           headers=csrf(client)).status_code == 201
    third = client.post("/api/lessons/reduction/comments", json={"body": "c3"}, headers=csrf(client))
    assert third.status_code == 429 and "per hour" in third.json()["detail"]


def test_bug_report_is_prefilled_with_latest_submission_gpu_and_toolchain(client, app):
    user = signup(client)
    sub_id = store_verdict(app, user["id"], v1_result("wrong_answer"))
    draft = client.get("/api/bug-reports/draft", params={"lesson_id": "reduction", "anchor": "exercise"}).json()
    assert draft["submission_id"] == sub_id and draft["anchor"] == "exercise"
    assert draft["gpu"] == "none (CPU emulator)" and draft["toolchain"].startswith("python ")
    report = client.post("/api/bug-reports", json={"lesson_id": "reduction", "anchor": "exercise",
                                                   "message": "The hint is wrong."}, headers=csrf(client))
    assert report.status_code == 201
    body = report.json()
    assert body["submission_id"] == sub_id and body["gpu"] == "none (CPU emulator)"
    assert body["status"] == "open" and body["toolchain"]


def test_bug_report_cannot_point_at_someone_elses_submission(client, app):
    user = signup(client, email="a@example.com")
    sub_id = store_verdict(app, user["id"], v1_result("accepted"))
    with TestClient(app) as other:
        other.get("/api/me/progress")
        response = other.post("/api/bug-reports", json={"lesson_id": "reduction", "submission_id": sub_id,
                                                        "message": "x"}, headers=csrf(other))
        assert response.status_code == 404
    assert EXERCISE.startswith("reduction.")


def test_a_reply_to_a_reply_joins_the_thread_and_notifies_whom_it_answers(client, app):
    signup(client, email="root@example.com", name="Root")
    root_id = client.post("/api/lessons/reduction/comments", json={"body": "root"}, headers=csrf(client)).json()["id"]
    with TestClient(app) as b, TestClient(app) as c:
        for other, email, name in ((b, "b@example.com", "B"), (c, "c@example.com", "C")):
            other.get("/api/me/progress")
            signup(other, email=email, name=name)
        reply_id = b.post("/api/lessons/reduction/comments", json={"body": "r1", "parent_id": root_id},
                          headers=csrf(b)).json()["id"]
        nested = c.post("/api/lessons/reduction/comments", json={"body": "r2", "parent_id": reply_id},
                        headers=csrf(c)).json()
        assert nested["parent_id"] == root_id
        assert [n["actor"] for n in b.get("/api/notifications").json()["notifications"]] == ["C"]
    assert [n["actor"] for n in client.get("/api/notifications").json()["notifications"]] == ["B"]
