"""XP rules, levels and tier bonuses; XP is awarded once under concurrency."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from sqlalchemy import func, select

from app import xp
from app.content import load_catalog
from app.db import make_engine, make_sessionmaker, transaction
from tests.web.database import migrate
from app.models import Completion, Submission, User, UserAchievement, XpAward
from app.services import judging
from app.services.progress import total_xp
from tests.web.conftest import EXERCISE, csrf, race_to_store, signup, store_verdict, v1_result


def test_levels_start_at_zero_and_the_first_is_reached_at_100_xp():
    assert xp.level_for(0).number == 0 and xp.level_for(0).title_en == "Beginner"
    assert xp.level_for(99).number == 0
    assert xp.level_for(100).number == 1
    assert xp.next_level(0).min_xp == 100
    thresholds = [level.min_xp for level in xp.LEVELS]
    assert thresholds == sorted(set(thresholds))
    assert xp.next_level(thresholds[-1]) is None


def test_exercise_xp_uses_the_spec_value_else_difficulty():
    assert xp.exercise_xp("hard", 75) == 75
    assert [xp.exercise_xp(d) for d in ("easy", "medium", "hard")] == [50, 100, 200]


def test_tier_bonuses_need_gpu_timings_of_an_accepted_result():
    fast = v1_result("accepted", backend="cuda", ms=0.30, framework_ms=0.36, pct_of_peak=85.0)
    assert [t.id for t in xp.tiers_reached(fast)] == ["beat_framework", "peak_50", "peak_80"]
    slow = v1_result("accepted", backend="cuda", ms=0.9, framework_ms=0.36, pct_of_peak=55.0)
    assert [t.id for t in xp.tiers_reached(slow)] == ["peak_50"]
    emulated = v1_result("accepted", backend="emu", ms=0.1, framework_ms=0.36, pct_of_peak=99.0)
    assert xp.tiers_reached(emulated) == []
    assert xp.tiers_reached(v1_result("wrong_answer", backend="cuda", ms=0.1, framework_ms=1.0)) == []


def test_tier_bonus_is_added_once_to_the_exercise_xp(client, app):
    user = signup(client)
    fast = v1_result("accepted", backend="cuda", ms=0.30, framework_ms=0.36, pct_of_peak=85.0)
    store_verdict(app, user["id"], fast)
    store_verdict(app, user["id"], fast)
    expected = 50 + 40 + sum(t.xp for t in xp.TIERS)
    assert client.get("/api/me/progress").json()["xp"] == expected


def test_only_submit_mode_acceptances_earn_xp(client, app):
    user = signup(client)
    store_verdict(app, user["id"], v1_result("accepted"), mode="run")
    store_verdict(app, user["id"], v1_result("wrong_answer"))
    body = client.get("/api/me/progress").json()
    assert body["xp"] == 0 and body["completed_exercise_ids"] == []


def test_lesson_without_exercises_is_completed_by_reading(client):
    signup(client)
    merged = client.post("/api/progress/merge", json={"lesson_ids": ["intro"]}, headers=csrf(client)).json()
    assert merged["xp_gained"] == 10
    again = client.post("/api/progress/merge", json={"lesson_ids": ["intro"]}, headers=csrf(client)).json()
    assert again["xp_gained"] == 0
    assert merged["progress"]["lessons_done"] == 1 and merged["progress"]["pct_complete"] == 50


@pytest.fixture(scope="module")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database built by Alembic once; each example races on a fresh copy of it."""
    path = tmp_path_factory.mktemp("xp-template") / "template.sqlite3"
    migrate(f"sqlite:///{path}")
    return path


@hsettings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(racers=st.integers(min_value=2, max_value=6), tiers=st.booleans())
def test_xp_is_awarded_once_when_workers_race_on_the_same_completion(
    template_db, lessons_dir, tmp_path_factory, racers, tiers
):
    db = tmp_path_factory.mktemp("race") / "race.sqlite3"
    shutil.copy(template_db, db)
    engine = make_engine(f"sqlite:///{db}")
    factory = make_sessionmaker(engine)
    catalog = load_catalog(lessons_dir)
    result = (v1_result("accepted", backend="cuda", ms=0.3, framework_ms=0.4, pct_of_peak=90.0)
              if tiers else v1_result("accepted"))
    try:
        user_id = race_to_store(factory, catalog, racers, result)
        expected = 50 + 40 + (sum(t.xp for t in xp.TIERS) if tiers else 0)
        with factory() as session:
            assert total_xp(session, user_id) == expected
            assert session.scalar(select(func.sum(Submission.xp_awarded))) == expected
            keys = session.scalars(select(XpAward.key)).all()
            assert len(keys) == len(set(keys))
            assert session.scalar(select(func.count()).select_from(Completion)) == 2  # exercise + lesson
            unlocked = session.scalars(select(UserAchievement.achievement_id)).all()
            assert len(unlocked) == len(set(unlocked)) and "first_kernel" in unlocked
    finally:
        engine.dispose()


def test_the_database_itself_refuses_a_second_award(app):
    """Not only the code: the unique index rejects a duplicate award row."""
    from sqlalchemy.exc import IntegrityError

    with transaction(app.state.sessionmaker) as session:
        user = User(email="u@example.com", display_name="U", password_hash="x")
        session.add(user)
        session.flush()
        session.add(XpAward(user_id=user.id, key=f"exercise:{EXERCISE}", xp=50))
    with pytest.raises(IntegrityError):
        with transaction(app.state.sessionmaker) as session:
            session.add(XpAward(user_id=user.id, key=f"exercise:{EXERCISE}", xp=50))


def test_xp_is_awarded_once_when_processes_race_on_the_same_completion(template_db, lessons_dir, tmp_path):
    import multiprocessing

    from tests.web.conftest import finish_in_process

    db = tmp_path / "procs.sqlite3"
    shutil.copy(template_db, db)
    url = f"sqlite:///{db}"
    engine = make_engine(url)
    factory = make_sessionmaker(engine)
    racers = 3
    try:
        with transaction(factory) as session:
            user = User(email="p@example.com", display_name="P", password_hash="x")
            session.add(user)
            session.flush()
            rows = [Submission(user_id=user.id, exercise_id=EXERCISE, mode="submit", source="s",
                               status="queued", achievements=[]) for _ in range(racers)]
            session.add_all(rows)
            session.flush()
            user_id = user.id
            claims = [(row.id, judging.claim(session, row.id, "p")) for row in rows]
        ctx = multiprocessing.get_context("spawn")
        barrier = ctx.Barrier(racers)
        procs = [ctx.Process(target=finish_in_process, args=(url, str(lessons_dir), sid, attempt,
                                                             v1_result(), barrier)) for sid, attempt in claims]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=120)
        assert [p.exitcode for p in procs] == [0] * racers
        with factory() as session:
            assert total_xp(session, user_id) == 90
            assert session.scalar(select(func.sum(Submission.xp_awarded))) == 90
            assert session.scalar(select(func.count()).select_from(Submission)
                                  .where(Submission.status == "done")) == racers
    finally:
        engine.dispose()
