"""The Huey instance: SqliteHuey beside the app by default, RedisHuey to scale out."""

from __future__ import annotations

from pathlib import Path

from huey import Huey, RedisHuey, SqliteHuey

from app.settings import Settings


def build_huey(settings: Settings) -> Huey:
    # results=False: the database, not Huey, holds every outcome.
    if settings.queue == "redis":
        return RedisHuey(settings.queue_name, url=settings.redis_url, results=False)
    path = Path(settings.queue_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return SqliteHuey(settings.queue_name, filename=str(path), results=False)
