"""`kdojo users …` and `kdojo tokens …` against a real (migrated) SQLite database."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.cli import main as kdojo
from app.db import make_engine, make_sessionmaker, transaction
from app.main import create_app
from app.models import ApiToken, AuditEntry, User
from app.security import passwords
from tests.web.conftest import make_settings


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lessons_dir: Path) -> str:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    monkeypatch.setenv("KDOJO_DATABASE_URL", url)
    monkeypatch.setenv("KDOJO_LESSONS_DIR", str(lessons_dir))
    return url


def _rows(url: str, model: type) -> list:
    engine = make_engine(url)
    try:
        with transaction(make_sessionmaker(engine), write=False) as session:
            return list(session.scalars(select(model).order_by(model.id)))
    finally:
        engine.dispose()


def test_create_admin_from_stdin_then_promote_an_existing_account(database, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("a long enough password\n"))
    assert kdojo(["users", "create-admin", "--email", "Root@Example.com", "--password-stdin"]) == 0
    assert "created admin root@example.com" in capsys.readouterr().out
    (user,) = _rows(database, User)
    assert user.role == "admin" and passwords.verify_password("a long enough password", user.password_hash)
    monkeypatch.setattr("sys.stdin", io.StringIO("ignored\n"))
    assert kdojo(["users", "create-admin", "--email", "root@example.com", "--password-stdin"]) == 0
    assert "password was not changed" in capsys.readouterr().out
    assert [e.action for e in _rows(database, AuditEntry)] == ["user.create_admin", "user.promote_admin"]
    assert {e.via for e in _rows(database, AuditEntry)} == {"cli"}


def test_a_short_password_fails_with_one_line(database, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert kdojo(["users", "create-admin", "--email", "a@example.com", "--password-stdin"]) == 1
    lines = capsys.readouterr().err.splitlines()
    # the database the command used is named first (#13); the misuse itself is one line
    assert lines[0].startswith("kdojo: database SQLite ")
    assert len(lines) == 2 and "at least" in lines[1]
    assert _rows(database, User) == []


def test_without_a_terminal_the_password_must_come_from_stdin(database, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert kdojo(["users", "create-admin", "--email", "a@example.com"]) == 2
    assert "--password-stdin" in capsys.readouterr().err


def test_tokens_create_list_revoke(database, monkeypatch, capsys, tmp_path, lessons_dir):
    monkeypatch.setattr("sys.stdin", io.StringIO("a long enough password\n"))
    kdojo(["users", "create-admin", "--email", "root@example.com", "--password-stdin"])
    capsys.readouterr()
    assert kdojo(["tokens", "create", "--user", "root@example.com", "--scopes", "grading:write,grading:read",
                  "--days", "3", "--name", "nightly export"]) == 0
    out = capsys.readouterr().out.splitlines()
    token = out[0]
    assert token.startswith("kd_") and "shown only this once" in out[1]
    (row,) = _rows(database, ApiToken)
    assert row.scopes == ["grading:read", "grading:write"] and token not in (row.token_hash, row.prefix)

    settings = make_settings(tmp_path, lessons_dir, database_url=database, embedded_worker=False)
    with TestClient(create_app(settings)) as client:
        headers = {"Authorization": f"Bearer {token}"}
        assert client.get("/api/admin/submissions", headers=headers).status_code == 200
        assert kdojo(["tokens", "list"]) == 0
        listing = capsys.readouterr().out
        assert "active" in listing and "nightly export" in listing and token not in listing
        assert kdojo(["tokens", "revoke", str(row.id)]) == 0
        assert client.get("/api/admin/submissions", headers=headers).status_code == 401
    assert kdojo(["tokens", "revoke", "999"]) == 1
    assert "no token 999" in capsys.readouterr().err
    assert kdojo(["tokens", "create", "--user", "nobody@example.com", "--scopes", "grading:read"]) == 1
    assert kdojo(["tokens", "create", "--user", "root@example.com", "--scopes", "grading:read", "--days", "0"]) == 2


def test_users_list_and_set_role(database, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("a long enough password\n"))
    kdojo(["users", "create-admin", "--email", "root@example.com", "--password-stdin"])
    assert kdojo(["users", "set-role", "--email", "root@example.com", "--role", "learner"]) == 1
    assert "last admin" in capsys.readouterr().err
    assert kdojo(["users", "list", "--role", "admin"]) == 0
    assert "root@example.com" in capsys.readouterr().out
