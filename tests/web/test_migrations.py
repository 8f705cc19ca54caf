"""Alembic: the migrations build exactly the models' schema, and go down and up again."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.db import make_engine
from app.migrate import alembic_config, upgrade
from app.models import Base


def test_migrations_match_the_models(tmp_path):
    url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == [], f"models changed without a migration: {diff}"
    finally:
        engine.dispose()


def test_downgrade_to_base_and_upgrade_again(tmp_path):
    url = f"sqlite:///{tmp_path / 'd.sqlite3'}"
    upgrade(url)
    command.downgrade(alembic_config(url), "base")
    engine = make_engine(url)
    try:
        assert set(inspect(engine).get_table_names()) == {"alembic_version"}
        engine.dispose()
        upgrade(url)
        assert "submissions" in inspect(engine).get_table_names()
    finally:
        engine.dispose()
