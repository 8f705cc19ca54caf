"""Settings: one pydantic-settings class, read from `KDOJO_*` environment variables.

Every field is documented in docs/configuration.md (a test fails when one is not).
Settings are built when the app or a command starts, never at import time.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.datadir import default_database_url, default_queue_path

PLACEHOLDER_SECRET = "change-me"
REPO_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KDOJO_", env_file=None, extra="ignore")

    environment: Literal["development", "production", "test"] = "development"
    # default: the data folder, wherever the command runs from (app/datadir.py, issue #13)
    database_url: str = Field(default_factory=default_database_url)
    lessons_dir: Path = REPO_ROOT / "lessons"
    secret_key: str = PLACEHOLDER_SECRET
    host: str = "127.0.0.1"
    port: int = 8000
    # Peers allowed to say who the client is (X-Forwarded-For/-Proto): comma-separated
    # addresses or networks of your reverse proxies, "*" for any; "" trusts none.
    forwarded_allow_ips: str = ""
    max_request_bytes: int = 1 << 20  # bodies are counted while read; more is a 413
    metrics_token: str = ""  # "": /metrics only to this machine (app.metrics)
    access_log: bool = False  # uvicorn's line per request: ~10% of an uncached request's cost (issue #4)
    web_threads: int = Field(default=0, ge=0)  # request threads (sync routes); 0: 6 per core, at least 8 (app.main)

    judge_backend: Literal["auto", "cuda", "emu"] = "auto"
    queue: Literal["sqlite", "redis"] = "sqlite"
    queue_path: Path = Field(default_factory=default_queue_path)
    redis_url: str = "redis://127.0.0.1:6379/0"
    queue_name: str = "kdojo"
    embedded_worker: bool = True
    worker_threads: int = 0  # 0: sized to the machine (app.queue.worker.pool_size)

    heartbeat_s: float = 5.0
    stale_after_s: float = 60.0
    requeue_queued_after_s: float = 300.0
    reaper_interval_s: float = 10.0
    max_attempts: int = 3

    session_days: int = 30
    # who may create an account: anyone, holders of an invite code, or nobody (issue #25)
    signup: Literal["open", "invite", "closed"] = "open"
    cookie_secure: bool = False
    max_pending_submissions: int = 2
    submissions_per_hour: int = 60
    anonymous_submissions_per_hour: int = 20
    anonymous_submissions_per_address_per_hour: int = 200
    comments_per_hour: int = 20
    signin_attempts_per_15min: int = 10  # failed sign-ins per client address
    signin_failures_per_account: int = 5  # then a back-off from 15 s doubling to 15 min
    max_source_bytes: int = 65536
    sse_poll_s: float = 0.1  # an open stream is a short one (while judged): the verdict shows sooner

    reload_lessons: bool = False  # development: a watcher reloads lessons when files change
    reload_lessons_interval_s: float = 1.0

    @model_validator(mode="after")
    def _refuse_placeholder_secret(self) -> "Settings":
        # A guessable secret is only tolerable on a developer's own machine.
        if self.environment == "production" and (
            self.secret_key == PLACEHOLDER_SECRET or len(self.secret_key) < 32
        ):
            raise ValueError(
                "KDOJO_SECRET_KEY must be set to a random string of 32+ characters in production"
            )
        return self

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@functools.lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
