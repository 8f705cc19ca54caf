"""Server-rendered pages through TestClient on a real SQLite database (Alembic), in Korean and English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.i18n import LANG_COOKIE
from app.main import create_app
from tests.web.database import migrate

from .conftest import page_settings, sign_up


def test_catalog_lists_tracks_and_lessons_in_order_with_progress(client: TestClient) -> None:
    html = client.get("/").text
    assert "레슨 목록" in html and '<h2 id="track-foundations">기초: 스레드에서 텐서 코어까지</h2>' in html
    titles = re.findall(r'<span class="lesson-title">([^<]+)</span>', html)
    assert titles == ["하나 더하기 — 스레드 하나에 원소 하나"]  # the draft is for instructors only (#6)
    assert html.count('data-state="not_started"') == 1
    assert "레벨 0" in html and "입문자" in html and "0 XP" in html


def _sign_in_as_instructor(client: TestClient, settings) -> None:  # noqa: ANN001
    from sqlalchemy import update

    from app.db import make_engine, make_sessionmaker, transaction
    from app.models import User

    sign_up(client, "teacher@example.com", "Teacher")
    engine = make_engine(settings.database_url)
    with transaction(make_sessionmaker(engine)) as session:
        session.execute(update(User).where(User.email == "teacher@example.com").values(role="instructor"))
    engine.dispose()


def test_instructors_see_the_draft_in_the_catalog(client: TestClient, settings) -> None:  # noqa: ANN001
    _sign_in_as_instructor(client, settings)
    html = client.get("/").text
    titles = re.findall(r'<span class="lesson-title">([^<]+)</span>', html)
    assert titles == ["하나 더하기 — 스레드 하나에 원소 하나", "다음 단계"]
    assert 'class="badge status-draft">초안' in html  # the draft lesson says so


def test_lesson_page_in_korean_has_everything_the_issue_lists(client: TestClient) -> None:
    response = client.get("/lessons/add-one")
    assert response.status_code == 200
    html = response.text
    assert '<html lang="ko">' in html
    # header: track, position, minutes, tags (the status is for staff: tests/pages/test_friction.py)
    assert '<span class="track-name" title="foundations">기초: 스레드에서 텐서 코어까지</span>' in html
    assert "레슨 01 / 01" in html and ">공개</span>" not in html and "약 5분" in html  # the draft is not counted
    assert '<span class="tag">elementwise</span>' in html and '<span class="tag">indexing</span>' in html
    # learner bar: level and title, XP, lessons, achievements of 12, XP to next level, % complete
    for text in ("레벨 0", "입문자", "0 XP", "0/1 레슨", "0/12 업적", "다음 레벨까지 0/100 XP", "100 XP 남음", "0% 완료"):
        assert text in html, text
    assert "진행 상황은 이 브라우저에만 저장됩니다" in html  # local-only progress note
    # body: anchors, highlighted CUDA, tabs, math for KaTeX, admonitions, external link, escaped HTML
    assert '<h2 id="스레드-하나에-원소-하나">' in html
    assert '<span class="kr">__global__</span>' in html
    assert ">CUDA</button>" in html and ">Metal</button>" in html
    assert r"\(i = \text{blockIdx.x}" in html and r"\[\text{out}_i" in html
    assert '<details class="admonition hint"><summary>힌트</summary>' in html
    assert '<p class="admonition-title">주의</p>' in html
    assert 'class="external"' in html
    assert "&lt;script&gt;alert" in html and '<script>alert("raw' not in html
    # exercise panel: instructions, editor with the starter, Run/Submit, shortcut, hints, no reference yet
    assert "연습 문제: 하나 더하기" in html and "50 XP" in html
    assert re.search(r'<textarea class="source"[^>]*>extern &#34;C&#34; __global__ void add_one\(.*// TODO: write out\[i\].*?</textarea>', html, re.S)
    assert ">실행</button>" in html and ">제출</button>" in html and "Ctrl/Cmd+Enter" in html
    assert html.count('<li class="hint" hidden>') == 2
    assert "참고 풀이는 통과한 뒤에 볼 수 있습니다." in html
    assert "if (i &lt; N) out[i] = in[i] + 1.0f;" not in html  # the reference is not in the page
    # results panel, report a problem, comments
    assert 'class="results"' in html and "결과가 여기에 나타납니다" in html
    assert "문제 신고" in html and "댓글 0" in html and "아직 댓글이 없어요" in html
    # scripts and styles are the vendored ones, versioned
    for asset in ("vendor/editor.js", "vendor/katex/katex.min.js", "vendor/htmx.min.js", "vendor/uPlot.iife.min.js"):
        assert re.search(rf'/static/{re.escape(asset)}\?v=[0-9a-f]{{10}}"', html), asset
    assert '<meta name="csrf-token" content="' in html


def test_lesson_page_in_english_and_language_cookie(client: TestClient) -> None:
    response = client.get("/lessons/add-one?lang=en")
    html = response.text
    assert '<html lang="en">' in html
    assert "Lesson 01 of 01" in html and "~5 min" in html and ">published</span>" not in html  # staff only
    for text in ("Level 0", "Beginner", "0/1 lessons", "0/12 achievements", "0/100 XP to next level", "0% complete"):
        assert text in html, text
    assert "Progress is local-only — sign in to sync across devices." in html
    assert "Exercise: Add one" in html and ">Run</button>" in html and ">Submit</button>" in html
    assert '<details class="admonition hint"><summary>Hint</summary>' in html
    assert "Report a problem" in html and "0 comments" in html
    assert response.cookies.get(LANG_COOKIE) == "en"
    # The cookie is remembered: the next page is English without ?lang=.
    assert '<html lang="en">' in client.get("/").text
    assert '<html lang="ko">' in client.get("/?lang=ko").text


def test_bad_language_falls_back_to_korean(client: TestClient) -> None:
    client.cookies.set(LANG_COOKIE, "fr")
    assert '<html lang="ko">' in client.get("/lessons/add-one?lang=xx").text


def test_unknown_lesson_and_exercise_are_404_pages(client: TestClient) -> None:
    lesson = client.get("/lessons/no-such-lesson")
    assert lesson.status_code == 404 and lesson.headers["content-type"].startswith("text/html")
    assert "페이지를 찾을 수 없습니다." in lesson.text and "There is no" not in lesson.text
    board = client.get("/exercises/no.such/leaderboard?lang=en")
    assert board.status_code == 404 and "Page not found." in board.text


def test_draft_lesson_page_shows_its_status_and_prerequisite(client: TestClient, settings) -> None:  # noqa: ANN001
    assert client.get("/lessons/next-steps?lang=en").status_code == 404  # not for learners (#6)
    _sign_in_as_instructor(client, settings)
    html = client.get("/lessons/next-steps?lang=en").text
    assert "Lesson 02 of 02" in html and ">draft</span>" in html
    assert '<a href="/lessons/add-one" data-lesson-id="add-one">Add one — one element per thread</a>' in html
    assert 'rel="prev" href="/lessons/add-one"' in html


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_signin_and_signup_pages_post_to_the_backend_with_csrf(client: TestClient, lang: str) -> None:
    for path, action in (("/signin", "/auth/signin"), ("/signup", "/auth/signup")):
        html = client.get(f"{path}?lang={lang}&next=/lessons/add-one").text
        assert f'action="{action}"' in html
        token = client.cookies.get("kdojo_csrf")
        assert token and f'name="csrf_token" value="{token}"' in html
        assert 'name="next" value="/lessons/add-one"' in html
    assert ("로그인" if lang == "ko" else "Sign in") in client.get(f"/signin?lang={lang}").text


def test_signin_page_refuses_an_offsite_next(client: TestClient) -> None:
    html = client.get("/signin?next=//evil.example/x").text
    assert 'name="next" value="/"' in html


def test_signin_page_shows_the_backend_error(client: TestClient) -> None:
    html = client.get("/signin?error=signin_failed&email=a%40b.c").text
    assert 'role="alert">이메일 또는 비밀번호가 맞지 않습니다.</p>' in html and 'value="a@b.c"' in html
    english = client.get("/signin?error=password_short&lang=en").text
    assert 'role="alert">The password must be at least 8 characters.</p>' in english


def test_signin_error_text_from_a_link_is_never_shown(client: TestClient) -> None:
    """`?error=` is a code: any other text gets the generic message, never itself (#13)."""
    html = client.get("/signin?error=Your+account+is+locked.+Call+555-0100&lang=en").text
    # the link's own query may stay in hrefs (the language switch keeps it); never as text
    visible = re.sub(r"<[^>]+>", " ", re.sub(r"<script.*?</script>", "", html, flags=re.S))
    assert "555-0100" not in visible and "account is locked" not in visible
    assert 'role="alert">The request could not be completed. Please try again.</p>' in html


def test_profile_asks_anonymous_learners_to_sign_in(client: TestClient) -> None:
    assert "프로필을 보려면 로그인해 주세요." in client.get("/me").text


def test_signed_in_pages_show_the_account(client: TestClient) -> None:
    sign_up(client, name="윤커널")
    html = client.get("/lessons/add-one").text
    assert "윤커널" in html and 'action="/auth/signout"' in html
    assert "진행 상황은 이 브라우저에만" not in html  # progress is the account's now
    assert 'class="comment-form"' in html
    profile = client.get("/me?lang=en").text
    assert "Your profile" in profile and "Achievements (0/12)" in profile
    assert profile.count('class="achievement locked"') == 12
    assert "No submissions yet." in profile
    # no XP yet: a sentence under the chart's title, not an empty box
    assert "No XP yet. Submit a passing kernel and the chart starts here." in profile and 'id="xp-chart"' not in profile


def test_comments_render_with_replies_and_fragment(client: TestClient) -> None:
    sign_up(client, name="Commenter")
    token = client.cookies.get("kdojo_csrf")
    headers = {"X-CSRF-Token": token}
    first = client.post("/api/lessons/add-one/comments", json={"body": "Why **ceil_div**?"}, headers=headers)
    assert first.status_code in (200, 201), first.text
    reply = client.post("/api/lessons/add-one/comments",
                        json={"body": "Because <b>N</b> is odd.", "parent_id": first.json()["id"]}, headers=headers)
    assert reply.status_code in (200, 201), reply.text
    html = client.get("/lessons/add-one?lang=en").text
    assert "2 comments" in html and "<strong>ceil_div</strong>" in html
    assert '<ol class="comment-replies">' in html and "<b>N</b>" not in html
    fragment = client.get("/lessons/add-one/comments").text
    assert "<strong>ceil_div</strong>" in fragment and "<html" not in fragment


def test_leaderboard_page_renders_empty(client: TestClient) -> None:
    html = client.get("/exercises/fixture.add_one/leaderboard?lang=en").text
    assert "Leaderboard — Add one" in html and "No accepted submissions yet." in html


def test_reference_fragment_needs_an_accepted_submission_of_ones_own(client: TestClient) -> None:
    assert client.get("/exercises/fixture.add_one/reference?submission=1").status_code == 404


def test_static_vendor_files_are_served(client: TestClient) -> None:
    for path in ("/static/vendor/editor.js", "/static/vendor/katex/katex.min.css", "/static/css/site.css",
                 "/static/js/lesson.js", "/static/vendor/katex/fonts/KaTeX_Main-Regular.woff2"):
        assert client.get(path).status_code == 200, path


def test_anonymous_readers_see_new_comments_within_the_cache_ttl(client: TestClient, monkeypatch) -> None:
    from app.pages import anon_cache

    monkeypatch.setattr(anon_cache, "ANON_COMMENTS_TTL_S", 0.0)
    assert "댓글 0" in client.get("/lessons/add-one").text
    sign_up(client, name="Poster")
    headers = {"X-CSRF-Token": client.cookies.get("kdojo_csrf")}
    assert client.post("/api/lessons/add-one/comments", json={"body": "hello"}, headers=headers).status_code in (200, 201)
    client.post("/auth/signout", data={"csrf_token": client.cookies.get("kdojo_csrf")}, follow_redirects=False)
    html = client.get("/lessons/add-one").text
    assert 'action="/auth/signout"' not in html  # anonymous again: the cached path
    assert "댓글 1" in html


def test_reference_fragment_refuses_a_submission_that_has_not_passed(client: TestClient, settings) -> None:
    client.get("/lessons/add-one")  # the anonymous and CSRF cookies
    created = client.post(
        "/api/submissions",
        json={"exercise_id": "fixture.add_one", "source": "extern \"C\" __global__ void add_one() {}", "mode": "run"},
        headers={"X-CSRF-Token": client.cookies.get("kdojo_csrf")},
    )
    assert created.status_code == 202, created.text
    sub_id = created.json()["id"]  # queued: no worker runs in page tests
    refused = client.get(f"/exercises/fixture.add_one/reference?submission={sub_id}")
    assert refused.status_code == 403 and "after you pass" in refused.json()["detail"]
    with TestClient(create_app(settings)) as stranger:  # another browser: not its submission
        assert stranger.get(f"/exercises/fixture.add_one/reference?submission={sub_id}").status_code == 404


def test_an_unexpected_error_is_a_page_in_the_readers_language(tmp_path: Path) -> None:
    """A bug of ours: a browser gets error.html with 500 in its language, a
    script gets JSON; never Starlette's bare English "Internal Server Error"."""
    settings = page_settings(tmp_path)
    migrate(settings.database_url)
    app = create_app(settings)

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("a bug")

    with TestClient(app, raise_server_exceptions=False) as client:
        page = client.get("/boom?lang=ko", headers={"accept": "text/html"})
        assert page.status_code == 500 and page.headers["content-type"].startswith("text/html")
        assert "서버에 문제가 생겼습니다" in page.text and "학습자 잘못이 아니라 저희 쪽 문제입니다" in page.text
        assert "a bug" not in page.text and "Internal Server Error" not in page.text
        english = client.get("/boom?lang=en", headers={"accept": "text/html"})
        assert "Something went wrong on our side" in english.text
        script = client.get("/boom")
        assert script.status_code == 500
        assert script.json() == {"detail": "Something went wrong on our side (not your fault); it has been logged. "
                                           "Try again in a moment."}
