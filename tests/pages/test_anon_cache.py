"""The anonymous lesson page served from memory (app.pages.anon_cache, issue #4):
same page for every anonymous reader, each with their own CSRF token and
language, fresh within the comments' 2 s, never for a signed-in learner, dropped
on a lesson reload and on a new or hidden comment. Real app, real SQLite."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.db import transaction
from app.i18n import LANG_COOKIE
from app.main import create_app
from app.security.csrf import CSRF_COOKIE, valid_token
from app.security.sessions import SESSION_COOKIE
from app.services.admin_content import reload_catalog

from .conftest import sign_up

PAGE = "/lessons/add-one"
META = re.compile(r'<meta name="csrf-token" content="([^"]*)">')


@pytest.fixture
def app(settings):  # noqa: ANN001, ANN201
    return create_app(settings)


@pytest.fixture
def client(app) -> Iterator[TestClient]:  # noqa: ANN001
    with TestClient(app) as test_client:
        yield test_client


def hits(app) -> int:  # noqa: ANN001
    return app.state.anon_pages.hits


def page_token(html: str) -> str:
    match = META.search(html)
    assert match, "no csrf meta tag"
    return match.group(1)


def post_comment(client: TestClient, body: str) -> int:
    response = client.post("/api/lessons/add-one/comments", json={"body": body},
                           headers={"X-CSRF-Token": client.cookies.get(CSRF_COOKIE)})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def become_anonymous(client: TestClient) -> None:
    client.post("/auth/signout", data={"csrf_token": client.cookies.get(CSRF_COOKIE)}, follow_redirects=False)
    client.cookies.delete(SESSION_COOKIE)


def test_second_anonymous_reader_gets_the_stored_page_with_their_own_csrf_token(app, settings) -> None:  # noqa: ANN001
    with TestClient(app) as first, TestClient(app) as second:
        a = first.get(PAGE)
        before = hits(app)
        b = second.get(PAGE)
        assert hits(app) == before + 1  # served from memory
        assert a.status_code == b.status_code == 200
        assert b.headers["content-type"] == "text/html; charset=utf-8"
        assert int(b.headers["content-length"]) == len(b.content)
        assert b.headers["x-frame-options"] == "DENY"  # the outer middlewares still apply
        token_a, token_b = page_token(a.text), page_token(b.text)
        assert token_a != token_b
        assert token_a == first.cookies.get(CSRF_COOKIE) and token_b == second.cookies.get(CSRF_COOKIE)
        assert valid_token(settings.secret_key, token_b)
        assert a.text.replace(token_a, "T") == b.text.replace(token_b, "T")  # the rest is the same page
        # A reader who already has a token gets that one again, and no new cookie.
        again = second.get(PAGE)
        assert page_token(again.text) == token_b and CSRF_COOKIE not in again.headers.get("set-cookie", "")
        # The token in a cached page works for a state-changing call.
        merge = second.post("/api/progress/merge", json={}, headers={"X-CSRF-Token": token_b})
        assert merge.status_code == 401  # past the CSRF check; merging needs an account
        forged = second.post("/api/progress/merge", json={}, headers={"X-CSRF-Token": token_a})
        assert forged.status_code == 403


def test_cached_page_is_in_the_readers_language_and_remembers_a_chosen_one(app) -> None:  # noqa: ANN001
    with TestClient(app) as warm:
        warm.get(PAGE)
        warm.get(PAGE + "?lang=en")
    with TestClient(app) as reader:
        before = hits(app)
        ko = reader.get(PAGE)
        assert '<html lang="ko">' in ko.text and LANG_COOKIE not in ko.headers.get("set-cookie", "")
        en = reader.get(PAGE + "?lang=en")
        assert '<html lang="en">' in en.text and "Report a problem" in en.text
        assert en.cookies.get(LANG_COOKIE) == "en" and "HttpOnly" in en.headers["set-cookie"]
        remembered = reader.get(PAGE)  # the cookie chooses English now
        assert '<html lang="en">' in remembered.text and LANG_COOKIE not in remembered.headers.get("set-cookie", "")
        back = reader.get(PAGE + "?lang=ko")
        assert '<html lang="ko">' in back.text and back.cookies.get(LANG_COOKIE) == "ko"
        assert hits(app) == before + 4
    with TestClient(app) as other:  # another reader still gets Korean
        other.cookies.set(LANG_COOKIE, "fr")
        assert '<html lang="ko">' in other.get(PAGE + "?lang=xx").text


def test_a_new_comment_shows_on_the_next_anonymous_page(client: TestClient, app) -> None:  # noqa: ANN001
    assert "댓글 0" in client.get(PAGE).text
    sign_up(client, name="Poster")
    post_comment(client, "fresh **news**")
    become_anonymous(client)
    html = client.get(PAGE).text
    assert 'action="/auth/signout"' not in html
    assert "댓글 1" in html and "<strong>news</strong>" in html
    before = hits(app)
    assert "댓글 1" in client.get(PAGE).text and hits(app) == before + 1


def test_a_comment_written_elsewhere_shows_within_the_freshness_window(client: TestClient, app) -> None:  # noqa: ANN001
    """A change the cache is not told about (another process) shows after at most 2 s."""
    from app.models import Comment, User
    from app.pages.anon_cache import ANON_PAGE_TTL_S

    assert "댓글 0" in client.get(PAGE).text
    with transaction(app.state.sessionmaker) as session:
        user = User(email="elsewhere@example.com", display_name="Elsewhere", password_hash="x")
        session.add(user)
        session.flush()
        session.add(Comment(lesson_id="add-one", user_id=user.id, body_md="from another process",
                            body_html="<p>from another process</p>"))
    assert "댓글 0" in client.get(PAGE).text  # still the stored page
    time.sleep(ANON_PAGE_TTL_S + 0.1)
    assert "from another process" in client.get(PAGE).text


def test_signed_in_learners_never_get_the_stored_page(client: TestClient, app) -> None:  # noqa: ANN001
    client.get(PAGE)
    client.get(PAGE)
    sign_up(client, name="Learner Kim")
    before = hits(app)
    html = client.get(PAGE).text
    assert hits(app) == before
    assert "Learner Kim" in html and 'action="/auth/signout"' in html
    assert page_token(html) == client.cookies.get(CSRF_COOKIE)
    # ...and what they see is not stored for anonymous readers.
    with TestClient(app) as anonymous:
        other = anonymous.get(PAGE).text
        assert "Learner Kim" not in other and 'action="/auth/signout"' not in other


def test_a_stale_session_cookie_reads_as_anonymous_through_the_route(client: TestClient, app) -> None:  # noqa: ANN001
    client.get(PAGE)
    client.cookies.set(SESSION_COOKIE, "not-a-session")
    before = hits(app)
    response = client.get(PAGE)
    assert response.status_code == 200 and hits(app) == before  # looked up, not served from memory
    assert 'action="/auth/signout"' not in response.text


def test_lesson_reload_drops_the_stored_pages(client: TestClient, app) -> None:  # noqa: ANN001
    client.get(PAGE)
    client.get(PAGE + "?lang=en")
    assert len(app.state.anon_pages) == 2
    old = app.state.catalog
    reload_catalog(app)
    assert app.state.catalog is not old and len(app.state.anon_pages) == 0
    before = hits(app)
    assert client.get(PAGE).status_code == 200 and hits(app) == before  # rendered from the new lessons
    assert client.get(PAGE).status_code == 200 and hits(app) == before + 1


def test_a_page_of_another_catalog_is_never_served(client: TestClient, app) -> None:  # noqa: ANN001
    client.get(PAGE)
    app.state.catalog = create_app(app.state.settings).state.catalog  # swapped without reload_catalog
    before = hits(app)
    client.get(PAGE)
    assert hits(app) == before


def test_hiding_a_comment_drops_it_from_the_anonymous_page(client: TestClient, app) -> None:  # noqa: ANN001
    from app.models import User
    from app.services import admin_tokens
    from app.services.admin_users import by_email

    sign_up(client, name="Spammer")
    comment_id = post_comment(client, "buy now")
    become_anonymous(client)
    assert "buy now" in client.get(PAGE).text
    with transaction(app.state.sessionmaker) as session:
        session.add(User(email="mod@example.com", display_name="Mod", password_hash="x", role="admin"))
    with transaction(app.state.sessionmaker) as session:
        token = admin_tokens.create(session, by_email(session, "mod@example.com"),
                                    admin_tokens.parse_scopes("content:admin"), 1).token
    with TestClient(app) as moderator:
        hidden = moderator.post(f"/api/admin/comments/{comment_id}/hide", json={"reason": "spam"},
                                headers={"Authorization": f"Bearer {token}"})
        assert hidden.status_code == 200, hidden.text
    assert "buy now" not in client.get(PAGE).text


def test_missing_and_draft_lessons_are_not_stored(client: TestClient, app) -> None:  # noqa: ANN001
    assert client.get("/lessons/no-such-lesson").status_code == 404
    assert client.get("/lessons/next-steps").status_code == 404
    assert client.get("/lessons/no-such-lesson").status_code == 404
    assert len(app.state.anon_pages) == 0 and hits(app) == 0


def test_fragments_take_the_route_and_head_is_a_get_without_body(client: TestClient, app) -> None:  # noqa: ANN001
    page = client.get(PAGE)
    before = hits(app)
    assert client.get(PAGE + "/comments").status_code == 200
    assert hits(app) == before
    # HEAD is answered as GET (app.security.head), so from the cache like one, with no body.
    head = client.head(PAGE)
    assert head.status_code == 200 and head.content == b"" and hits(app) == before + 1
    assert head.headers["content-length"] == page.headers["content-length"]


def test_readers_arriving_together_share_one_render(app) -> None:  # noqa: ANN001
    """At a page's expiry, many readers at once: one renders, the rest wait for it."""
    import asyncio

    import httpx

    async def readers(n: int) -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as reader:
            return list(await asyncio.gather(*(reader.get(PAGE + "?lang=en") for _ in range(n))))

    responses = asyncio.run(readers(20))
    assert [r.status_code for r in responses] == [200] * 20
    assert all('<html lang="en">' in r.text for r in responses)
    for r in responses:  # each with its own token (these cookie-less readers each got a new one)
        assert page_token(r.text) == r.cookies.get(CSRF_COOKIE)
    assert hits(app) == 19  # one rendered, nineteen waited for it
    missing = asyncio.run(asyncio.wait_for(_concurrent_404s(app), 30))
    assert missing == [404] * 5  # none stored: the waiters go to the route themselves


async def _concurrent_404s(app) -> list[int]:  # noqa: ANN001
    import asyncio

    import httpx

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as reader:
        responses = await asyncio.gather(*(reader.get("/lessons/no-such-lesson") for _ in range(5)))
    return [r.status_code for r in responses]


def test_a_render_that_began_before_a_new_comment_is_not_stored(client: TestClient, app) -> None:  # noqa: ANN001
    """A page rendered from comments read before a post would otherwise be kept for 2 s."""
    from app.pages.anon_cache import Entry, generation

    pages = app.state.anon_pages
    before = generation(app)  # a render starts...
    pages.drop_lesson("add-one")  # ...a comment is posted meanwhile...
    stale = Entry(expires=time.monotonic() + 2, catalog=app.state.catalog, lesson_id="add-one",
                  parts=(b"old",))
    pages.put(PAGE, "ko", stale, before)  # ...and the render ends: not stored
    assert len(pages) == 0
    pages.put(PAGE, "ko", stale, generation(app))
    assert len(pages) == 1
