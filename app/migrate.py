"""Run Alembic migrations programmatically (`kdojo migrate`, `kdojo serve`,
`kdojo worker`, the tests), one process at a time.

Processes started together on a fresh database (a web node and its workers)
would each create `alembic_version` and all but one fail. So the migration runs
under a lock held across processes: a PostgreSQL advisory lock on the database,
or, for SQLite, an OS file lock beside the database file. Whoever takes it
second finds the schema current and does nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from app.db import make_engine, normalize_url
from app.logs import mask_url
from app.settings import REPO_ROOT

log = logging.getLogger("kdojo.migrate")
# pg_advisory_lock's key for "migrating Kernel Dojo's schema" (any fixed 64-bit number; "kdojomig")
ADVISORY_LOCK_KEY = int.from_bytes(b"kdojomig", "big") & 0x7FFF_FFFF_FFFF_FFFF
LOCK_POLL_S = 0.2
LOCK_WAIT_S = 600.0  # a migration of ours takes seconds; waiting longer means a stuck process


class MigrationLockTimeout(RuntimeError):
    pass


def alembic_config(database_url: str) -> Config:
    config = Config(str(REPO_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    config.attributes["database_url"] = database_url
    return config


def head_revisions(database_url: str) -> set[str]:
    return set(ScriptDirectory.from_config(alembic_config(database_url)).get_heads())


def current_revisions(database_url: str) -> set[str]:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return set(MigrationContext.configure(conn).get_current_heads())
    finally:
        engine.dispose()


def upgrade(database_url: str) -> bool:
    """Bring the schema to the latest revision; True when this call migrated it,
    False when it was current already (another process did it, or nobody had to)."""
    heads = head_revisions(database_url)
    with migration_lock(database_url):
        if current_revisions(database_url) == heads:
            return False
        command.upgrade(alembic_config(database_url), "head")
        return True


@contextlib.contextmanager
def migration_lock(database_url: str, wait_s: float = LOCK_WAIT_S) -> Iterator[None]:
    url = normalize_url(database_url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1].split("?", 1)[0]
        if not path or path == ":memory:":  # one process's own database: nobody to race
            yield
            return
        with _file_lock(Path(path).with_name(Path(path).name + ".migrate-lock"), wait_s):
            yield
        return
    with _advisory_lock(database_url, wait_s):
        yield


@contextlib.contextmanager
def _file_lock(path: Path, wait_s: float) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:  # never truncated or removed: the lock is the open file's
        _wait_for(lambda: _try_flock(handle.fileno()), wait_s, str(path))
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def _advisory_lock(database_url: str, wait_s: float) -> Iterator[None]:
    from sqlalchemy import text

    engine = make_engine(database_url)
    try:
        # A session-level lock on its own connection: released by unlock, or by
        # the server when this process dies.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            try_lock = text("SELECT pg_try_advisory_lock(:key)").bindparams(key=ADVISORY_LOCK_KEY)
            _wait_for(lambda: bool(conn.execute(try_lock).scalar()), wait_s, mask_url(database_url))
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)").bindparams(key=ADVISORY_LOCK_KEY))
    finally:
        engine.dispose()


def _wait_for(take: Callable[[], bool], wait_s: float, where: str) -> None:
    deadline = time.monotonic() + wait_s
    told = False
    while not take():
        if not told:
            log.info("waiting for another process migrating %s", where)
            told = True
        if time.monotonic() >= deadline:
            raise MigrationLockTimeout(f"another process has held the migration lock of {where} "
                                       f"for {wait_s:g} s")
        time.sleep(LOCK_POLL_S)
