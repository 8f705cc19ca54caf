"""Migration 0003 (#25) on a database with submissions: rows already there get the
turn of their author or address, and those still waiting keep their order."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import text

from app.db import make_engine, make_sessionmaker
from app.migrate import alembic_config, upgrade
from app.services import fairqueue
from tests.web.test_scaleout import pg_url  # noqa: F401 - the fixture


def check_backfill(url: str) -> None:
    command.upgrade(alembic_config(url), "0002")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO users (id, email, display_name, password_hash, role, disabled, created_at) "
                              "VALUES (7, 'a@example.com', 'A', 'x', 'learner', false, '2026-11-28 00:00:00')"))
            for user_id, anon_id, ip in ((7, None, "10.0.0.9"), (None, "cookie", "10.0.0.1"), (None, "c2", ""),
                                         (7, None, "")):
                conn.execute(text(
                    "INSERT INTO submissions (user_id, anon_id, client_ip, exercise_id, mode, source, status, "
                    "xp_awarded, achievements, attempts, worker_id, flagged, created_at) VALUES "
                    "(:u, :a, :ip, 'e.x', 'run', 's', 'queued', 0, '[]', 0, '', false, '2026-11-28 00:00:00')"),
                    {"u": user_id, "a": anon_id, "ip": ip})
        upgrade(url)
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id, queue_name, fair_key, fair_tag FROM submissions ORDER BY id")).all()
        assert [tuple(r[1:]) for r in rows] == [("kdojo", "user:7", 0), ("kdojo", "addr:10.0.0.1", 0),
                                                 ("kdojo", "anon:c2", 0), ("kdojo", "user:7", 0)]
        with make_sessionmaker(engine)() as session:  # the waiting rows keep their first-come order
            assert fairqueue.positions(session, [r[0] for r in rows]) == {r[0]: i + 1 for i, r in enumerate(rows)}
    finally:
        engine.dispose()


def test_rows_from_before_the_fair_queue_take_their_authors_turn_on_sqlite(tmp_path) -> None:  # noqa: ANN001
    check_backfill(f"sqlite:///{tmp_path / 'm.sqlite3'}")


@pytest.mark.scaleout
def test_rows_from_before_the_fair_queue_take_their_authors_turn_on_postgres(pg_url: str) -> None:  # noqa: F811
    check_backfill(pg_url)
