"""Migration 0005 (#29) on a database with progress: every row already there is CUDA's,
an exercise is then completed once per language, and going down and up again keeps
the learner's progress."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from app.db import make_engine
from app.migrate import alembic_config, upgrade
from tests.web.test_scaleout import pg_url  # noqa: F401 - the fixture

NOW = "'2026-11-28 00:00:00'"


def _seed_0004(conn) -> None:  # noqa: ANN001
    conn.execute(text("INSERT INTO users (id, email, display_name, password_hash, role, disabled, created_at) "
                      f"VALUES (7, 'a@example.com', 'A', 'x', 'learner', false, {NOW})"))
    conn.execute(text("INSERT INTO submissions (id, user_id, client_ip, exercise_id, mode, source, status, verdict, "
                      "xp_awarded, achievements, attempts, worker_id, flagged, created_at) VALUES "
                      f"(1, 7, '', 'e.x', 'submit', 's', 'done', 'accepted', 50, '[]', 1, '', false, {NOW})"))
    for kind, item in (("exercise", "e.x"), ("lesson", "l")):
        conn.execute(text("INSERT INTO completions (user_id, kind, item_id, verified, submission_id, created_at) "
                          f"VALUES (7, :kind, :item, true, 1, {NOW})"), {"kind": kind, "item": item})
    for key, xp in (("exercise:e.x", 50), ("tier:e.x:peak_50", 20), ("lesson:l", 40)):
        conn.execute(text("INSERT INTO xp_awards (user_id, key, xp, submission_id, created_at) "
                          f"VALUES (7, :key, :xp, 1, {NOW})"), {"key": key, "xp": xp})


def check_language_migration(url: str) -> None:
    command.upgrade(alembic_config(url), "0004")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            _seed_0004(conn)
        upgrade(url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT language FROM submissions")).scalars().all() == ["cuda"]
            assert sorted(conn.execute(text("SELECT kind, language FROM completions")).all()) == \
                [("exercise", "cuda"), ("lesson", "")]
            assert sorted(conn.execute(text("SELECT key, language FROM xp_awards")).all()) == \
                [("exercise:e.x", "cuda"), ("lesson:l", ""), ("tier:e.x:peak_50", "cuda")]
        insert = ("INSERT INTO completions (user_id, kind, item_id, verified, language, created_at) "
                  f"VALUES (7, 'exercise', 'e.x', true, :language, {NOW})")
        with engine.begin() as conn:  # the same exercise in Triton is a completion of its own
            conn.execute(text(insert), {"language": "triton"})
        with pytest.raises(IntegrityError), engine.begin() as conn:  # but once per language
            conn.execute(text(insert), {"language": "triton"})
        command.downgrade(alembic_config(url), "0004")
        with engine.connect() as conn:  # the first completion of each exercise stays
            assert sorted(conn.execute(text("SELECT kind, item_id FROM completions")).all()) == \
                [("exercise", "e.x"), ("lesson", "l")]
            assert conn.execute(text("SELECT SUM(xp) FROM xp_awards")).scalar() == 110
        upgrade(url)
        with engine.connect() as conn:
            assert sorted(conn.execute(text("SELECT kind, language FROM completions")).all()) == \
                [("exercise", "cuda"), ("lesson", "")]
    finally:
        engine.dispose()


def test_rows_from_before_languages_are_cuda_on_sqlite(tmp_path) -> None:  # noqa: ANN001
    check_language_migration(f"sqlite:///{tmp_path / 'm.sqlite3'}")


@pytest.mark.scaleout
def test_rows_from_before_languages_are_cuda_on_postgres(pg_url: str) -> None:  # noqa: F811
    check_language_migration(pg_url)
