"""Settings: every one documented; production refuses a placeholder secret."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from app.settings import REPO_ROOT, Settings


def _documented() -> set[str]:
    # the app's table only: the judge's settings have their own section (tests/judge)
    text = (REPO_ROOT / "docs" / "configuration.md").read_text(encoding="utf-8").split("\n## Judge\n")[0]
    return set(re.findall(r"^\| `KDOJO_([A-Z0-9_]+)` \|", text, flags=re.M))


def test_every_setting_is_documented_and_nothing_else():
    fields = {name.upper() for name in Settings.model_fields}
    assert fields - _documented() == set(), "undocumented settings"
    assert _documented() - fields == set(), "documented settings that do not exist"


def test_production_refuses_the_placeholder_secret():
    with pytest.raises(ValidationError, match="KDOJO_SECRET_KEY"):
        Settings(environment="production")
    with pytest.raises(ValidationError, match="32"):
        Settings(environment="production", secret_key="short")
    assert Settings(environment="production", secret_key="x" * 40).secret_key == "x" * 40


def test_settings_come_from_kdojo_environment_variables(monkeypatch):
    monkeypatch.setenv("KDOJO_DATABASE_URL", "postgresql://u@h/db")
    monkeypatch.setenv("KDOJO_MAX_PENDING_SUBMISSIONS", "5")
    settings = Settings()
    assert settings.database_url == "postgresql://u@h/db" and settings.max_pending_submissions == 5
