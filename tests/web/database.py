"""A migrated database for a test: the web tests' copy of one template.

Alembic takes ~0.1-0.5 s per run and hundreds of web, page and admin tests each want a
fresh database. Each test process (each pytest-xdist worker) runs the real migrations
once into a template SQLite file and copies it for every test that asks; PostgreSQL
URLs, and SQLite files that already exist, are migrated by Alembic as before.
tests/web/test_migrations.py runs Alembic itself on every test."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from sqlalchemy.engine import make_url

from app.migrate import upgrade

_template: Path | None = None


def _migrated_template() -> Path:
    global _template
    if _template is None:
        folder = Path(tempfile.mkdtemp(prefix="kdojo-template-db-"))
        atexit.register(shutil.rmtree, folder, True)
        path = folder / "template.sqlite3"
        upgrade(f"sqlite:///{path}")
        _template = path
    return _template


def migrate(database_url: str) -> None:
    """Bring `database_url` to the head revision: a copy of the template for a new SQLite
    file, Alembic otherwise."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        upgrade(database_url)
        return
    target = Path(url.database)
    if target.exists():
        upgrade(database_url)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_migrated_template(), target)
