"""Backing up and restoring the database (`kdojo backup`, `kdojo restore`; docs/operations.md).

SQLite: SQLite's online backup API copies the database page by page under a
read transaction, so the copy is one consistent state even while the server
writes (WAL: the server's writers never wait for it). PostgreSQL: `pg_dump`,
which is consistent by itself (one repeatable-read snapshot).

The job queue file is never part of a backup: it only carries submission ids,
and the database rows are the truth (a `queued` row nobody judged is enqueued
again by the reaper, docs/operations.md "How a submission survives failures").
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
# SQLite's unix VFS: every connection to a WAL database holds a shared lock on
# this byte of the `-shm` file while it is open (the "dead man switch").
SHM_DMS_OFFSET = 128


class BackupError(Exception):
    """A backup or restore that cannot be done; the message is one line for the operator."""


@dataclass(frozen=True)
class Summary:
    path: Path
    revision: str
    users: int
    submissions: int
    size_bytes: int


def sqlite_path(database_url: str) -> Path | None:
    """The file of a SQLite URL (None for in-memory or another database)."""
    if not database_url.startswith("sqlite"):
        return None
    path = database_url.split(":///", 1)[-1]
    return Path(path).resolve() if path and path != ":memory:" else None


def timestamp(now: dt.datetime | None = None) -> str:
    return (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%SZ")


def target_path(path: Path | None, folder: Path, suffix: str = ".sqlite3") -> Path:
    """Where a backup goes: `path`, a new file in `path` when it is a folder,
    else a new file in `folder`. Never an existing file."""
    if path is None:
        path = folder / "backups"
        path.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        path = path / f"kdojo-backup-{timestamp()}{suffix}"
    if path.exists():
        raise BackupError(f"{path} exists already; name a new file")
    if not path.parent.is_dir():
        raise BackupError(f"{path.parent}: no such folder")
    return path


def backup_sqlite(source: Path, target: Path) -> Summary:
    """Copy the live database `source` to the new file `target`, then check the copy."""
    if not source.is_file():
        raise BackupError(f"{source}: no database there")
    partial = target.with_name(target.name + ".partial")
    try:
        copy_sqlite(source, partial)  # all pages in one step: one read transaction, one consistent state
    except BackupError:
        partial.unlink(missing_ok=True)
        raise
    try:
        summary = inspect(partial)
    except BackupError:
        partial.unlink(missing_ok=True)
        raise
    partial.rename(target)
    return Summary(target, summary.revision, summary.users, summary.submissions, summary.size_bytes)


def inspect(path: Path) -> Summary:
    """Check that `path` is an intact Kernel Dojo database; what it holds."""
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise BackupError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if magic != SQLITE_MAGIC:
        raise BackupError(f"{path} is not a SQLite database")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise BackupError(f"{path} is damaged (SQLite's quick_check failed)")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"alembic_version", "users", "submissions"} <= tables:
            raise BackupError(f"{path} is not a Kernel Dojo database (no alembic_version, users, submissions)")
        revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        users = conn.execute("SELECT count(*) FROM users").fetchone()[0]
        submissions = conn.execute("SELECT count(*) FROM submissions").fetchone()[0]
    except sqlite3.Error as exc:
        raise BackupError(f"{path}: cannot read it as a database ({exc})") from None
    finally:
        conn.close()
    if revision is None:
        raise BackupError(f"{path} has no migration revision recorded")
    return Summary(path, str(revision[0]), int(users), int(submissions), path.stat().st_size)


def known_revisions() -> set[str]:
    from alembic.script import ScriptDirectory

    from app.migrate import alembic_config

    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return {rev.revision for rev in script.walk_revisions()}


def in_use(database: Path) -> bool:
    """Whether another process has the SQLite database open now (a running
    server keeps its connections open): it holds a shared lock on the `-shm`
    file's dead-man-switch byte, which an exclusive lock test then fails on."""
    shm = database.with_name(database.name + "-shm")
    try:
        fd = os.open(shm, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, SHM_DMS_OFFSET)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, SHM_DMS_OFFSET)
        return False
    finally:
        os.close(fd)


def restore_sqlite(backup: Path, database: Path) -> Path | None:
    """Replace `database` with the checked `backup`. The database it replaces
    is first kept beside it (returned), so a wrong restore can be undone."""
    summary = inspect(backup)
    if summary.revision not in known_revisions():
        raise BackupError(f"{backup} is at migration revision {summary.revision!r}, which this version of "
                          "Kernel Dojo does not know (made by a newer version?)")
    kept = None
    if database.exists():
        kept = database.with_name(f"{database.name}.before-restore-{timestamp()}")
        copy_sqlite(database, kept)
    database.parent.mkdir(parents=True, exist_ok=True)
    copy_sqlite(backup, database)
    return kept


def copy_sqlite(source: Path, target: Path) -> None:
    """SQLite's backup API from `source` onto `target` (created or overwritten,
    its WAL folded in), without checks."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    try:
        dst = sqlite3.connect(target, timeout=30)
        try:
            src.backup(dst)
            # one self-contained file: the copy would otherwise keep the source's WAL mode
            # and grow `-wal`/`-shm` files beside it when read (the server turns WAL back on)
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
    except sqlite3.Error as exc:
        raise BackupError(f"copying {source} to {target} failed: {exc}") from None
    finally:
        src.close()


def libpq_url(database_url: str) -> str:
    """The URL `pg_dump` understands: no SQLAlchemy driver suffix, and no
    password (a command line is readable by every local user: `pg_env`)."""
    from sqlalchemy.engine import make_url

    url = make_url(database_url)._replace(drivername="postgresql", password=None)  # set() keeps a None field
    return url.render_as_string(hide_password=False)


def pg_env(database_url: str) -> dict[str, str]:
    """The environment for `pg_dump`/`pg_restore`: the password, if the URL has one."""
    from sqlalchemy.engine import make_url

    password = make_url(database_url).password
    return {**os.environ, **({"PGPASSWORD": str(password)} if password else {})}


def run_pg(command: list[str], database_url: str, what: str) -> None:
    """Run a PostgreSQL client tool; BackupError with its first line of stderr when it fails."""
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=pg_env(database_url))
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise BackupError(f"{what} failed: {first}")


def pg_dump_command(database_url: str, target: Path) -> list[str]:
    return ["pg_dump", "--format=custom", f"--file={target}", f"--dbname={libpq_url(database_url)}"]


def pg_restore_command(database_url: str, backup: Path) -> list[str]:
    return ["pg_restore", "--no-owner", "--single-transaction", f"--dbname={libpq_url(database_url)}",
            str(backup)]


def pg_backup_revision(backup: Path) -> str:
    """The migration revision recorded in a `pg_dump --format=custom` file
    (its `alembic_version` rows, read by `pg_restore` without a server)."""
    done = subprocess.run(["pg_restore", "--data-only", "--table=alembic_version", "--file=-", str(backup)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"{backup} is not a pg_dump custom-format file")
    lines = done.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("COPY ") and "alembic_version" in line), None)
    if start is None or start + 1 >= len(lines) or lines[start + 1] == "\\.":
        raise BackupError(f"{backup} is not a Kernel Dojo database (no alembic_version rows)")
    return lines[start + 1].strip()


def pg_empty(database_url: str) -> None:
    """Drop every table of the database's current schema (before a restore into it)."""
    from sqlalchemy import MetaData

    from app.db import make_engine

    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            tables = MetaData()
            tables.reflect(conn)
            tables.drop_all(conn)
    finally:
        engine.dispose()


def have(program: str) -> bool:
    return shutil.which(program) is not None
