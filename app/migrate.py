"""Run Alembic migrations programmatically (`kdojo serve`, `kdojo worker`, the tests)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.settings import REPO_ROOT


def alembic_config(database_url: str) -> Config:
    config = Config(str(REPO_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    config.attributes["database_url"] = database_url
    return config


def upgrade(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")
