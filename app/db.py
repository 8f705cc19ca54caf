"""Database engine and sessions (SQLAlchemy 2).

SQLite by default (one file, WAL so the embedded worker and the web threads can
read while one writes); PostgreSQL via `KDOJO_DATABASE_URL`.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker


def normalize_url(url: str) -> str:
    # psycopg 3 is the installed driver; plain postgresql:// would ask for psycopg2.
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


POOL_SIZE = 10  # PostgreSQL: connections kept open per process
POOL_OVERFLOW = 40  # more while a burst lasts; PostgreSQL's max_connections must cover every process's 50
POOL_TIMEOUT_S = 30.0  # a checkout waiting longer is answered 503 (app.api.errors), not held
# SQLite: as many kept connections as threads may ask at once (anyio's 40, the
# judging threads, heartbeats, the event writer, the reaper, the stream poller),
# so a burst never opens and closes connections (~370 µs of CPU each, issue #13);
# overflow above that for the rare moment more ask.
SQLITE_POOL_SIZE = 50
SQLITE_OVERFLOW = 50
# Writers wait for the process's write lock at most this long, then get a 503.
WRITE_LOCK_TIMEOUT_S = 20.0
# Another process (a `kdojo` command) holding SQLite's lock: how long to wait for it.
SQLITE_BUSY_TIMEOUT_MS = 10_000
WRITE_OPTION = "kdojo_write"


class DatabaseBusy(Exception):
    """A write waited WRITE_LOCK_TIMEOUT_S for the write lock, or a checkout for the pool."""


class WriteLock:
    """SQLite's writers, serialised inside the process (issue #25).

    SQLite allows one writer at a time. Letting threads race for its lock with
    `busy_timeout` made ~40 concurrent writers each spin for up to 30 s; here a
    write transaction takes this lock in its BEGIN and gives it back when its
    connection returns to the pool (after COMMIT or ROLLBACK), so writers queue
    in order, in their own threads. The rule that keeps it deadlock-free: a write
    transaction begins and ends in one thread, with no await, thread hop or
    wait for another pooled resource in between (docs/architecture.md)."""

    def __init__(self, timeout_s: float = WRITE_LOCK_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._holder: int | None = None

    def acquire(self) -> None:
        me = threading.get_ident()
        if self._holder == me:  # a second write transaction in the same thread would wait on itself
            raise RuntimeError("a write transaction began while this thread holds another")
        if not self._lock.acquire(timeout=self.timeout_s):
            raise DatabaseBusy(f"the database stayed busy for {self.timeout_s:.0f} s")
        self._holder = me

    def release(self) -> None:
        self._holder = None
        self._lock.release()


def make_engine(url: str) -> Engine:
    url = normalize_url(url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False,
                                                  "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
                               pool_size=SQLITE_POOL_SIZE, max_overflow=SQLITE_OVERFLOW,
                               pool_timeout=POOL_TIMEOUT_S)
        lock = _WRITE_LOCKS[engine] = WriteLock()
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", functools.partial(_sqlite_begin, lock))
        event.listen(engine.pool, "checkin", functools.partial(_release_write_lock, lock))
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW,
                         pool_timeout=POOL_TIMEOUT_S)


_WRITE_LOCKS: weakref.WeakKeyDictionary[Engine, WriteLock] = weakref.WeakKeyDictionary()


def write_lock(engine: Engine) -> WriteLock | None:
    """The SQLite engine's write lock (None for PostgreSQL)."""
    return _WRITE_LOCKS.get(engine)


def write_engine(engine: Engine) -> Engine:
    """The same engine and pool, whose transactions are write transactions (SQLite:
    BEGIN IMMEDIATE under the write lock; PostgreSQL: no difference)."""
    return engine.execution_options(**{WRITE_OPTION: True})


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # Let SQLAlchemy issue BEGIN itself (see _sqlite_begin).
    dbapi_conn.isolation_level = None
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cur.close()


def _sqlite_begin(lock: WriteLock, conn: Any) -> None:
    # A write transaction takes the process's write lock, then BEGIN IMMEDIATE (the
    # database's lock, against other processes) so it never fails upgrading a read
    # to a write. Readers use a plain BEGIN and never block anyone (WAL).
    if not conn.get_execution_options().get(WRITE_OPTION, False):
        conn.exec_driver_sql("BEGIN")
        return
    lock.acquire()
    try:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    except BaseException:
        lock.release()
        raise
    conn.connection.info["kdojo_write_lock"] = True  # the pool entry's: released at checkin


def _release_write_lock(lock: WriteLock, _dbapi_conn: Any, record: Any) -> None:
    # After COMMIT/ROLLBACK, when the connection is back in the pool.
    if record is not None and record.info.pop("kdojo_write_lock", False):
        lock.release()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)


def open_session(factory: sessionmaker[Session], write: bool = False) -> Session:
    """A session; `write=True` starts its transaction holding the write lock (SQLite)."""
    session = factory()
    if write:
        session.connection(execution_options={WRITE_OPTION: True})
    return session


def lazy_session(factory: sessionmaker[Session], write: bool) -> Session:
    """A session whose transaction begins at its first statement, in that thread;
    with `write=True` it is then a write transaction (see `write_engine`)."""
    if not write:
        return factory()
    session = factory(bind=write_engine(factory.kw["bind"]))
    session.info["write"] = True
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


def ping(factory: sessionmaker[Session]) -> None:
    """One round trip to the database (readiness)."""
    with factory() as session:
        session.execute(text("SELECT 1"))
