"""The signed-in lesson page and the submission poll after the load work of issue #13:
kept exercise panels and shared page data never carry one learner's state to another,
follow an edited lesson, and render what the uncached templates render; the learner
bar is one query and a poll is one. Real app, real SQLite (PostgreSQL: scaleout)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape
from sqlalchemy import event

from app.db import transaction
from app.main import create_app
from tests.web.database import migrate
from app.models import Completion, Notification, Submission, User, UserAchievement, XpAward, utcnow
from app.pages import partials
from app.services import progress
from app.services import submissions as submission_service
from app.services.admin_content import reload_catalog
from app.templating import html_json, templates
from tests.web.conftest import EXERCISE, build_lessons, csrf, make_settings, signup, store_verdict, v1_result
from tests.web.test_scaleout import pg_url  # noqa: F401 - the fixture

PAGE = "/lessons/reduction"
PAGE_DATA = re.compile(r'<script id="page-data" type="application/json">(.*?)</script>', re.S)


@pytest.fixture
def own_lessons(tmp_path: Path) -> Path:
    """A lesson folder this test may edit."""
    return build_lessons(tmp_path / "lessons")


@pytest.fixture
def app(tmp_path: Path, own_lessons: Path):  # noqa: ANN201
    settings = make_settings(tmp_path, own_lessons, embedded_worker=False)
    migrate(settings.database_url)
    return create_app(settings)


def learner(app, email: str, name: str) -> tuple[TestClient, dict]:  # noqa: ANN001
    client = TestClient(app, base_url="http://testserver")
    client.get("/api/me/progress")
    return client, signup(client, email=email, name=name)


@pytest.fixture
def two(app) -> Iterator[tuple[TestClient, dict, TestClient, dict]]:  # noqa: ANN001
    """Ada, who has passed block_sum, and Bob, who has not."""
    with TestClient(app):  # lifespan once
        ada, ada_user = learner(app, "ada@example.com", "Ada")
        bob, bob_user = learner(app, "bob@example.com", "Bob")
        store_verdict(app, ada_user["id"], v1_result("accepted"))
        yield ada, ada_user, bob, bob_user
        ada.close()
        bob.close()


def reference_text(app) -> str:  # noqa: ANN001
    lesson = app.state.catalog.lesson("reduction")
    return lesson.exercise_files[0].reference


def exercise_section(html: str) -> str:
    match = re.search(r'<section class="exercise".*?\n</section>', html, re.S)
    assert match, "no exercise panel"
    return match.group(0)


def test_a_learners_solved_panel_never_reaches_another_learner(app, two) -> None:  # noqa: ANN001
    ada, _, bob, _ = two
    secret = str(escape(reference_text(app).strip().splitlines()[0]))  # as the page writes it
    for _ in range(3):  # in turn, with everything kept from the turn before
        ada_page, bob_page = ada.get(PAGE).text, bob.get(PAGE).text
        assert secret in ada_page and secret not in bob_page
        assert '<p class="reference-locked">' not in ada_page and '<p class="reference-locked">' in bob_page
        assert 'class="badge solved" hidden' in bob_page and 'class="badge solved" hidden' not in ada_page
        assert ">Ada</a>" in ada_page and "Bob" not in ada_page
        assert ">Bob</a>" in bob_page and "Ada" not in bob_page
        ada_data = json.loads(PAGE_DATA.search(ada_page).group(1))
        bob_data = json.loads(PAGE_DATA.search(bob_page).group(1))
        assert ada_data["summary"]["completed_exercise_ids"] == [EXERCISE] and ada_data["summary"]["xp"] > 0
        assert bob_data["summary"]["completed_exercise_ids"] == [] and bob_data["summary"]["xp"] == 0
    anonymous = TestClient(app).get(PAGE).text
    assert secret not in anonymous and "Ada" not in anonymous and "Bob" not in anonymous


def test_a_learner_cannot_poll_anothers_submission(app, two) -> None:  # noqa: ANN001
    ada, _, bob, _ = two
    mine = ada.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "__global__ void k() {}"},
                    headers=csrf(ada))
    assert mine.status_code == 202, mine.text
    poll = f"/api/submissions/{mine.json()['id']}"
    seen = ada.get(poll)
    assert seen.status_code == 200 and seen.json()["source"] == "__global__ void k() {}"
    assert seen.json()["status"] == "queued" and seen.json()["position"] == 1
    assert bob.get(poll).status_code == 404
    assert TestClient(app).get(poll).status_code == 404
    assert ada.get("/api/submissions/999999").status_code == 404


def test_the_reference_of_a_lesson_taken_out_is_a_404_not_a_500(app, own_lessons: Path) -> None:  # noqa: ANN001
    # issue #30: typing the catalog showed `lesson_for_exercise` may find no lesson
    with TestClient(app):
        ada, ada_user = learner(app, "ada@example.com", "Ada")
        submission_id = store_verdict(app, ada_user["id"], v1_result("accepted"))
        reference = f"/exercises/{EXERCISE}/reference?submission={submission_id}"
        assert ada.get(reference).status_code == 200
        shutil.rmtree(own_lessons / "02-reduction")
        reload_catalog(app)
        gone = ada.get(reference)
        assert gone.status_code == 404
        assert "no longer in the lessons" in gone.text


def test_an_edited_lesson_shows_its_new_instructions(app, two, own_lessons: Path) -> None:  # noqa: ANN001
    ada, _, bob, _ = two
    instructions = own_lessons / "02-reduction" / "exercises" / "block_sum" / "instructions.en.md"
    assert "Sum the blocks again" not in ada.get(PAGE + "?lang=en").text
    assert "Sum the blocks again" not in bob.get(PAGE + "?lang=en").text
    instructions.write_text("Sum the blocks again, this time with *warps*.\n")
    reload_catalog(app)
    for client in (ada, bob):
        page = client.get(PAGE + "?lang=en").text
        assert "Sum the blocks again, this time with <em>warps</em>." in page


def test_a_kept_panel_is_what_the_whole_page_context_renders(app, two) -> None:  # noqa: ANN001
    """The panel template gets only the exercise and the language: if it ever used the
    reader (user, request, …), the kept panel would differ from this full render."""
    ada, ada_user, bob, _ = two
    partials.clear()
    for client in (ada, bob):
        page = client.get(PAGE + "?lang=en").text
        kept = exercise_section(page)
        from app.pages.lesson import exercise_view

        lesson = app.state.catalog.lesson("reduction")
        solved = {EXERCISE} if client is ada else set()
        earned = client.get("/api/me/progress").json()["exercise_xp"]  # the XP badge's input (#29)
        ex = exercise_view(lesson, 0, "en", solved, page.split('data-profiling="', 1)[1].split('"', 1)[0],
                           earned=earned)
        with transaction(app.state.sessionmaker, write=False) as session:
            user = session.get(User, ada_user["id"]) if client is ada else None
            full = templates.get_template("partials/_exercise.html").render(
                ex=ex, lang="en", user=user, request=None, summary=None)
        assert kept == full.strip()
    assert partials.size() == 2  # solved and not solved


def test_page_data_is_what_tojson_writes(app, two) -> None:  # noqa: ANN001
    ada, _, _, _ = two
    for path in (PAGE, PAGE + "?lang=en", "/", "/me"):
        raw = PAGE_DATA.search(ada.get(path).text).group(1)
        assert raw == html_json(json.loads(raw)), path


def count_statements(app) -> list[str]:  # noqa: ANN001
    statements: list[str] = []
    event.listen(app.state.engine, "before_cursor_execute",
                 lambda _c, _cur, statement, *_: statements.append(statement))
    return statements


def test_a_signed_in_page_is_three_queries_and_a_poll_two(app, two) -> None:  # noqa: ANN001
    ada, _, _, _ = two
    sent = ada.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "__global__ void k() {}"},
                    headers=csrf(ada))
    statements = count_statements(app)
    assert ada.get(PAGE).status_code == 200
    page = [s for s in statements if s != "BEGIN"]
    assert len(page) == 3, page  # the session's user, the learner's state, the comments
    statements.clear()
    assert ada.get(f"/api/submissions/{sent.json()['id']}").status_code == 200
    poll = [s for s in statements if s != "BEGIN"]
    assert len(poll) == 2, poll  # the session's user, the submission with its place in the queue


def seed_state(factory) -> tuple[int, progress.LearnerState]:  # noqa: ANN001
    """A learner with XP, completions, achievements and notifications, in a known order."""
    with transaction(factory) as session:
        user = User(email="state@example.com", display_name="State", password_hash="x")
        other = User(email="other@example.com", display_name="Other", password_hash="x")
        session.add_all([user, other])
        session.flush()
        session.add_all([XpAward(user_id=user.id, key="a", xp=30, language="cuda"),
                         XpAward(user_id=user.id, key="b", xp=12, language="triton"),
                         XpAward(user_id=other.id, key="a", xp=1000)])
        for kind, item, language in [("exercise", "z.last_alphabetically", "cuda"), ("lesson", "intro", ""),
                                     ("exercise", "a.first", "triton"), ("exercise", "a.first", "cuda")]:
            session.add(Completion(user_id=user.id, kind=kind, item_id=item, language=language))
            session.flush()
        session.add(Completion(user_id=other.id, kind="exercise", item_id="other.one"))
        session.add_all([UserAchievement(user_id=user.id, achievement_id="first_lesson"),
                         UserAchievement(user_id=other.id, achievement_id="track_complete")])
        from app.models import Comment

        comment = Comment(lesson_id="intro", user_id=other.id, body_md="x", body_html="<p>x</p>")
        session.add(comment)
        session.flush()
        session.add_all([Notification(user_id=user.id, kind="reply", lesson_id="intro", comment_id=comment.id,
                                      actor_name="Other"),
                         Notification(user_id=user.id, kind="reply", lesson_id="intro", comment_id=comment.id,
                                      actor_name="Other", read_at=utcnow()),
                         Notification(user_id=other.id, kind="reply", lesson_id="intro", comment_id=comment.id,
                                      actor_name="State")])
        return user.id, progress.LearnerState(
            xp=42, exercise_ids=("z.last_alphabetically", "a.first"), lesson_ids=("intro",),
            achievement_ids=("first_lesson",), unread_notifications=1,
            # an exercise per kernel language (#29): once in exercise_ids, each language in `solved`
            solved=(("z.last_alphabetically", "cuda"), ("a.first", "triton"), ("a.first", "cuda")),
            xp_by_language=(("cuda", 30), ("triton", 12)))


def check_state_and_queue(factory) -> None:  # noqa: ANN001
    user_id, expected = seed_state(factory)
    with transaction(factory, write=False) as session:
        assert progress.learner_state(session, user_id) == expected
        assert progress.learner_state(session, 10**6) == progress.LearnerState()
        # the per-table reads it replaced agree
        assert progress.total_xp(session, user_id) == expected.xp
        assert tuple(progress.completed_ids(session, user_id, "exercise")) == expected.exercise_ids
    with transaction(factory) as session:
        rows = [Submission(user_id=user_id, exercise_id=EXERCISE, mode="submit", source="s", status=status,
                           achievements=[]) for status in ("queued", "running", "queued", "done", "queued")]
        session.add_all(rows)
        session.flush()
        ids = [row.id for row in rows]
    owner = submission_service.Owner(user=None, anon_id=None)
    with transaction(factory, write=False) as session:
        assert [submission_service.queue_position(session, i) for i in ids] == [1, 0, 2, 0, 3]
        assert submission_service.queue_position(session, max(ids) + 1) == 0
        user = session.get(User, user_id)
        session.expunge(user)
        mine = submission_service.Owner(user=user, anon_id=None)
        row, position = submission_service.get_with_position(session, mine, ids[2])
        assert (row.id, row.status, position) == (ids[2], "queued", 2)
        with pytest.raises(submission_service.NotFound):
            submission_service.get_with_position(session, owner, ids[2])


def test_learner_state_and_queue_positions_on_sqlite(app) -> None:  # noqa: ANN001
    check_state_and_queue(app.state.sessionmaker)


@pytest.mark.scaleout
def test_learner_state_and_queue_positions_on_postgres(tmp_path: Path, lessons_dir: Path, pg_url: str) -> None:
    from app.db import make_engine, make_sessionmaker

    settings = make_settings(tmp_path, lessons_dir, database_url=pg_url, embedded_worker=False)
    migrate(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        check_state_and_queue(make_sessionmaker(engine))
    finally:
        engine.dispose()


def test_sqlite_keeps_the_connections_a_burst_opened(app) -> None:  # noqa: ANN001
    """Past 10 at once, a connection used to be closed on return and opened again by the
    next burst (~370 µs of CPU each, at the busiest moment)."""
    opened: list[object] = []
    event.listen(app.state.engine, "connect", lambda *_: opened.append(1))
    for _ in range(3):
        held = [app.state.engine.raw_connection() for _ in range(25)]
        for connection in held:
            connection.close()  # back to the pool
    assert len(opened) == 25


def test_a_warmed_server_renders_its_first_signed_in_page_from_what_it_kept(app) -> None:  # noqa: ANN001
    """`kdojo serve` renders every lesson page once before it serves (#25): a class's first pages
    then compile no template, render no Markdown and make no panel; the warming counts no request."""
    from app.content.markdown import render_inline, render_markdown
    from app.pages.warm import warm

    render_markdown.cache_clear()
    render_inline.cache_clear()
    partials.clear()
    templates.env.cache.clear()
    done = warm(app)
    assert done["pages"] == 4 and done["failed"] == []  # two lessons, two languages
    assert app.state.metrics.http == {}

    def made() -> tuple[int, ...]:
        return (render_markdown.cache_info().misses, render_inline.cache_info().misses, partials.size(),
                len(templates.env.cache))

    kept = made()
    with TestClient(app):
        ada, _ = learner(app, "ada@example.com", "Ada")
        for lang in ("ko", "en"):
            page = ada.get(PAGE + f"?lang={lang}")
            assert page.status_code == 200 and '<a href="/me" class="nav-me">Ada</a>' in page.text
            assert f'<html lang="{lang}">' in page.text
        ada.close()
    assert made() == kept


def test_learners_loading_a_lesson_together_each_get_their_own_page(app) -> None:  # noqa: ANN001
    """Lesson pages render a few at a time (PAGE_THREADS, #25); 24 learners asking at the
    same moment of a real server each get their own page, with no other learner's name."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    from app.pages.lesson import PAGE_THREADS
    from app.security.passwords import hash_password
    from app.security.sessions import SESSION_COOKIE
    from app.services.accounts import NewAccount, create_account
    from app.services.sessions import create_session
    from tests.web.live_server import live_server

    password_hash = hash_password("together-secret")
    with transaction(app.state.sessionmaker) as session:
        tokens = [create_session(session, create_account(session, NewAccount(
            f"together{i}@example.com", f"Together {i:02d}", password_hash)), days=1) for i in range(24)]
    with live_server(app) as base:
        def page(i: int) -> httpx.Response:
            with httpx.Client(base_url=base, cookies={SESSION_COOKIE: tokens[i]}, timeout=60) as client:
                return client.get(PAGE)

        with ThreadPoolExecutor(24) as pool:
            pages = list(pool.map(page, range(24)))
    for i, response in enumerate(pages):
        assert response.status_code == 200
        names = re.findall(r'class="nav-me">([^<]*)<', response.text)
        assert names == [f"Together {i:02d}"]
    limiter = app.state.page_limiter
    assert (limiter.total_tokens, limiter.borrowed_tokens) == (PAGE_THREADS, 0)
