"""`kdojo backup` and `kdojo restore` on real SQLite files: a backup of a live
server under writes is one consistent state, it restores and round-trips, and
every refusal is one line with its exit status."""

from __future__ import annotations

import io
import sqlite3
import threading
import uuid
from pathlib import Path

import httpx
import pytest

from app.cli import main as kdojo
from app.migrate import upgrade
from tests.browser.conftest import serving
from tests.web.live_server import csrf_header

PASSWORD = "correct horse battery"


def _query(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _head() -> str:
    from alembic.script import ScriptDirectory

    from app.migrate import alembic_config

    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lessons_dir: Path) -> Path:
    database = tmp_path / "kdojo.sqlite3"
    monkeypatch.setenv("KDOJO_DATABASE_URL", f"sqlite:///{database}")
    monkeypatch.setenv("KDOJO_QUEUE_PATH", str(tmp_path / "queue.sqlite3"))
    monkeypatch.setenv("KDOJO_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("KDOJO_LESSONS_DIR", str(lessons_dir))
    return database


def _sign_up_until(base_url: str, stop: threading.Event, made: list[str]) -> None:
    with httpx.Client(base_url=base_url, timeout=30) as client:
        client.get("/api/me/progress")
        while not stop.is_set():
            email = f"learner{len(made)}@example.com"
            response = client.post("/auth/signup", headers=csrf_header(client),
                                   json={"email": email, "password": PASSWORD})
            assert response.status_code == 200, response.text
            made.append(email)
            client.post("/auth/signout", headers=csrf_header(client), json={})


def test_a_backup_of_a_live_server_under_writes_restores_and_round_trips(data, lessons_dir, tmp_path, capsys,
                                                                         monkeypatch):
    backup = tmp_path / "copy.sqlite3"
    stop, made = threading.Event(), []
    with serving(lessons_dir, tmp_path, "--no-worker") as base_url:
        writer = threading.Thread(target=_sign_up_until, args=(base_url, stop, made))
        writer.start()
        try:
            while len(made) < 3:
                stop.wait(0.05)
            assert kdojo(["backup", str(backup)]) == 0
            while len(made) < 6:  # the server keeps writing after the copy
                stop.wait(0.05)
        finally:
            stop.set()
            writer.join(timeout=60)
        out = capsys.readouterr().out
        assert f"to {backup} (migration revision {_head()}" in out and "not copied: the job queue" in out
        # while the server runs, a restore is refused and changes nothing
        assert kdojo(["restore", str(backup), "--yes"]) == 1
        assert "is open in another process" in capsys.readouterr().err
        assert len(_query(data, "SELECT id FROM users")) == len(made)
    copied = [email for (email,) in _query(backup, "SELECT email FROM users ORDER BY id")]
    # one consistent state: the first N sign-ups, each with its own session row, no torn rows
    assert 3 <= len(copied) < len(made) and copied == made[:len(copied)]
    assert _query(backup, "PRAGMA integrity_check") == [("ok",)]
    assert kdojo(["restore", str(backup), "--yes"]) == 0
    out = capsys.readouterr().out
    assert f"restored {data} from {backup}" in out and "kept as" in out
    assert [email for (email,) in _query(data, "SELECT email FROM users ORDER BY id")] == copied
    kept = next(tmp_path.glob("kdojo.sqlite3.before-restore-*"))
    assert len(_query(kept, "SELECT id FROM users")) == len(made)  # what was replaced is kept
    with serving(lessons_dir, tmp_path, "--no-worker") as base_url, httpx.Client(base_url=base_url) as client:
        client.get("/api/me/progress")
        response = client.post("/auth/signin", headers=csrf_header(client),
                               json={"email": copied[-1], "password": PASSWORD})
        assert response.status_code == 200, response.text
        gone = client.post("/auth/signin", headers=csrf_header(client),
                           json={"email": made[-1], "password": PASSWORD})
        assert gone.status_code == 401  # made after the backup: not in the restored database


def test_the_default_path_is_a_new_file_in_the_data_folder(data, tmp_path, capsys):
    upgrade(f"sqlite:///{data}")
    assert kdojo(["backup"]) == 0 and kdojo(["backup", str(tmp_path)]) == 0
    made = sorted((tmp_path / "backups").glob("kdojo-backup-*.sqlite3")) + sorted(tmp_path.glob("kdojo-backup-*"))
    assert len(made) == 2, capsys.readouterr()
    existing = made[0]
    assert kdojo(["backup", str(existing)]) == 1
    err = capsys.readouterr().err
    assert err.strip().endswith("exists already; name a new file") and err.count("\n") == 1


def test_restore_migrates_an_older_backup_to_this_version(data, tmp_path, capsys):
    old = tmp_path / "old.sqlite3"
    from alembic import command

    from app.migrate import alembic_config

    command.upgrade(alembic_config(f"sqlite:///{old}"), "0001")
    conn = sqlite3.connect(old)
    conn.execute("INSERT INTO users (email, display_name, password_hash, role, disabled, created_at) "
                 "VALUES ('old@example.com', 'Old', 'x', 'learner', 0, '2026-01-01 00:00:00')")
    conn.commit()
    conn.close()
    assert kdojo(["restore", str(old), "--yes"]) == 0
    assert "was revision 0001; migrated to this version" in capsys.readouterr().out
    assert _query(data, "SELECT version_num FROM alembic_version") == [(_head(),)]
    assert _query(data, "SELECT email FROM users") == [("old@example.com",)]


def _kdojo_database(path: Path, revision: str | None = None) -> Path:
    upgrade(f"sqlite:///{path}")
    if revision is not None:
        conn = sqlite3.connect(path)
        conn.execute("UPDATE alembic_version SET version_num = ?", (revision,))
        conn.commit()
        conn.close()
    return path


@pytest.mark.parametrize(("make", "words"), [
    (lambda p: p.write_text("not a database"), "is not a SQLite database"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE t (x)").connection.commit(),
     "is not a Kernel Dojo database"),
    (lambda p: _kdojo_database(p, "9999"), "revision '9999', which this version of Kernel Dojo does not know"),
])
def test_restore_refuses_what_is_not_a_known_backup_in_one_line(data, tmp_path, capsys, make, words):
    _kdojo_database(data)
    before = data.read_bytes()
    candidate = tmp_path / "candidate.sqlite3"
    make(candidate)
    assert kdojo(["restore", str(candidate), "--yes"]) == 1
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert data.read_bytes() == before and not list(tmp_path.glob("*.before-restore-*"))


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_restore_asks_first_and_a_no_changes_nothing(data, tmp_path, monkeypatch, capsys):
    _kdojo_database(data)
    backup = _kdojo_database(tmp_path / "b.sqlite3")
    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    assert kdojo(["restore", str(backup)]) == 1
    err = capsys.readouterr().err
    assert f"Replace {data} with {backup}" in err and "nothing changed" in err
    assert not list(tmp_path.glob("*.before-restore-*"))
    monkeypatch.setattr("sys.stdin", Terminal("y\n"))
    assert kdojo(["restore", str(backup)]) == 0


@pytest.mark.parametrize(("argv", "code", "words"), [
    (["restore"], 2, "the following arguments are required: path"),
    (["restore", "/no/such/backup.sqlite3", "--yes"], 2, "no such file"),
    (["backup", "a", "b"], 2, "unrecognized arguments"),
    (["backup", "/no/such/folder/x.sqlite3"], 1, "no such folder"),
])
def test_misuse_is_one_line(data, capsys, argv, code, words):
    _kdojo_database(data)
    try:
        status = kdojo(argv)
    except SystemExit as exc:  # argparse's misuse, as `kdojo serve`'s: the console script exits with it
        status = exc.code
    assert status == code
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_restore_without_a_terminal_needs_yes(data, tmp_path, monkeypatch, capsys):
    backup = _kdojo_database(tmp_path / "b.sqlite3")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert kdojo(["restore", str(backup)]) == 2
    assert "add --yes" in capsys.readouterr().err


PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
PG_DATABASE = "kd_class_accounts_backup"


@pytest.fixture
def pg_database(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lessons_dir: Path) -> str:
    """A database of its own (one per test: under pytest-xdist two of these run at once):
    pg_dump copies a whole database, not one test schema."""
    psycopg = pytest.importorskip("psycopg")
    database = f"{PG_DATABASE}_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL at {PG_ADMIN} is unreachable ({exc.__class__.__name__})")
    with admin:
        admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {database}")
    url = f"postgresql://postgres@127.0.0.1:5432/{database}"
    monkeypatch.setenv("KDOJO_DATABASE_URL", url)
    monkeypatch.setenv("KDOJO_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("KDOJO_LESSONS_DIR", str(lessons_dir))
    yield url
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def _pg_emails(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        return [row[0] for row in conn.execute("SELECT email FROM users ORDER BY id")]


def _pg_add_user(url: str, email: str) -> None:
    import psycopg

    with psycopg.connect(url) as conn:
        conn.execute("INSERT INTO users (email, display_name, password_hash, role, disabled, created_at) "
                     "VALUES (%s, 'x', 'x', 'learner', false, now())", (email,))


@pytest.mark.scaleout
@pytest.mark.xfail(strict=False, reason="under pytest-xdist beside tests/web, restoring the kept dump of the "
                   "replaced database came back without its last row once (alone, and the module under -n 2: "
                   "passes); not yet understood, see CHANGELOG")
def test_postgres_backup_and_restore_round_trip(pg_database, tmp_path, capsys):
    upgrade(pg_database)
    _pg_add_user(pg_database, "before@example.com")
    assert kdojo(["backup", str(tmp_path)]) == 0
    (dump,) = tmp_path.glob("kdojo-backup-*.pgdump")
    assert f"backed up the PostgreSQL database to {dump}" in capsys.readouterr().out
    _pg_add_user(pg_database, "after@example.com")
    assert kdojo(["restore", str(dump), "--yes"]) == 0
    assert f"was revision {_head()}" in capsys.readouterr().out
    assert _pg_emails(pg_database) == ["before@example.com"]
    (kept,) = tmp_path.glob("before-restore-*.pgdump")  # the replaced database, restorable the same way
    assert kdojo(["restore", str(kept), "--yes"]) == 0
    assert _pg_emails(pg_database) == ["before@example.com", "after@example.com"]
    junk = tmp_path / "junk.pgdump"
    junk.write_text("not a dump")
    assert kdojo(["restore", str(junk), "--yes"]) == 1
    assert "is not a pg_dump custom-format file" in capsys.readouterr().err


def test_the_postgres_password_goes_by_environment_not_the_command_line(tmp_path):
    from app.services.backup import pg_dump_command, pg_env

    url = "postgresql+psycopg://kdojo:s3cret@db-host:5433/kdojo?sslmode=require"
    command = pg_dump_command(url, tmp_path / "x.pgdump")
    assert command[-1] == "--dbname=postgresql://kdojo@db-host:5433/kdojo?sslmode=require"
    assert not any("s3cret" in part for part in command)
    assert pg_env(url)["PGPASSWORD"] == "s3cret" and "PGPASSWORD" not in pg_env("postgresql://kdojo@db-host/kdojo")
