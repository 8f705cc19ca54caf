"""Database engine and sessions (SQLAlchemy 2).

SQLite by default (one file, WAL so the embedded worker and the web threads can
read while one writes); PostgreSQL via `KDOJO_DATABASE_URL`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker


def normalize_url(url: str) -> str:
    # psycopg 3 is the installed driver; plain postgresql:// would ask for psycopg2.
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


POOL_SIZE = 10  # connections kept open per process
POOL_OVERFLOW = 40  # more while a burst lasts; PostgreSQL's max_connections must cover every process's 50


def make_engine(url: str) -> Engine:
    url = normalize_url(url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # The pool is as large as the threads that may ask at once (anyio's 40
        # worker threads, SSE polls, the embedded worker), so a burst waits on
        # SQLite's busy timeout, not on a pool timeout (issue #13). All of them are
        # kept once opened: an overflow connection is closed when it is returned,
        # and opening one (connect + pragmas) costs ~370 µs of CPU against ~9 µs
        # for a kept one, paid by every request above 10 at once, just when the
        # server is busiest (the signed-in load bench, issue #13).
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                               pool_size=POOL_SIZE + POOL_OVERFLOW, max_overflow=0, pool_timeout=60)
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin_immediate)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW,
                         pool_timeout=60)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # Let SQLAlchemy issue BEGIN itself (see _sqlite_begin_immediate).
    dbapi_conn.isolation_level = None
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def _sqlite_begin_immediate(conn: Any) -> None:
    # Writers ask for BEGIN IMMEDIATE (see `transaction(..., write=True)`): it takes
    # the write lock up front, so two racing writers queue on busy_timeout instead
    # of one failing when a read transaction upgrades to a write. Readers use a
    # plain BEGIN and never block anyone (WAL).
    immediate = conn.get_execution_options().get(WRITE_OPTION, False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


WRITE_OPTION = "kdojo_write"


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)


def open_session(factory: sessionmaker[Session], write: bool = False) -> Session:
    """A session; `write=True` starts its transaction holding the write lock (SQLite)."""
    session = factory()
    if write:
        session.connection(execution_options={WRITE_OPTION: True})
    return session


@contextmanager
def transaction(factory: sessionmaker[Session], write: bool = True) -> Iterator[Session]:
    """A session that commits on success and rolls back on error."""
    session = open_session(factory, write)
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def insert_ignore(session: Session, model: type, values: dict[str, Any]) -> bool:
    """INSERT … ON CONFLICT DO NOTHING; True when a row was inserted.

    Idempotency lives in the unique indexes: a retry or a concurrent award of
    the same thing inserts nothing and returns False.
    """
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    # RETURNING, not rowcount: psycopg reports no rowcount for an INSERT that returns.
    stmt = insert(model).values(**values).on_conflict_do_nothing().returning(model.id)
    return session.execute(stmt).scalar() is not None
