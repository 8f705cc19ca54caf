"""Scale-out: PostgreSQL for the app, RedisHuey for jobs, a stand-alone `kdojo worker`.

Uses the local servers (PostgreSQL 127.0.0.1:5432 db `test`, Redis
127.0.0.1:6379); each test gets a fresh PostgreSQL schema and its own Redis
queue name. Skips, saying why, only when a server is unreachable.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.content import load_catalog
from app.db import make_engine, make_sessionmaker
from app.main import create_app
from app.migrate import upgrade
from app.models import Submission, XpAward
from app.services.progress import total_xp
from app.settings import Settings
from tests.web.conftest import BLOCK_SUM, EXERCISE, csrf, make_settings, race_to_store, signup, v1_result

pytestmark = pytest.mark.scaleout

PG_SERVER = os.environ.get("KDOJO_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("KDOJO_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _reachable() -> str | None:
    import psycopg
    import redis

    try:
        psycopg.connect(PG_SERVER, connect_timeout=3).close()
    except psycopg.Error as exc:
        return f"PostgreSQL at {PG_SERVER} is unreachable ({exc.__class__.__name__})"
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        return f"Redis at {REDIS_URL} is unreachable ({exc.__class__.__name__})"
    return None


@pytest.fixture
def pg_url() -> Iterator[str]:
    why = _reachable()
    if why:
        pytest.skip(why)
    import psycopg

    schema = f"kdojo_test_{secrets.token_hex(6)}"
    with psycopg.connect(PG_SERVER, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_SERVER}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(PG_SERVER, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def scaleout_settings(tmp_path: Path, lessons_dir: Path, pg_url: str) -> Iterator[Settings]:
    settings = make_settings(tmp_path, lessons_dir, database_url=pg_url, queue="redis", redis_url=REDIS_URL,
                             queue_name=f"kdojo-test-{secrets.token_hex(4)}", embedded_worker=False)
    upgrade(settings.database_url)
    yield settings
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(f"*{settings.queue_name}*"):
        client.delete(key)


def _start_worker(settings: Settings) -> tuple[threading.Thread, threading.Event, list[int]]:
    from app.commands.worker import run_worker

    stop = threading.Event()
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(run_worker(settings, 1, stop)), daemon=True)
    thread.start()
    return thread, stop, codes


def _wait_done(client: TestClient, submission_id: int, timeout_s: float) -> dict:
    deadline = time.monotonic() + timeout_s
    body: dict = {}
    while time.monotonic() < deadline:
        body = client.get(f"/api/submissions/{submission_id}").json()
        if body["status"] == "done":
            return body
        time.sleep(0.2)
    raise AssertionError(f"not done in {timeout_s}s: {body}")


def test_web_enqueues_to_redis_and_a_separate_worker_stores_the_verdict_in_postgres(scaleout_settings):
    """The web process runs no worker; `kdojo worker`'s loop takes the job from Redis."""
    thread, stop, codes = _start_worker(scaleout_settings)
    try:
        with TestClient(create_app(scaleout_settings)) as client:
            client.get("/api/me/progress")
            signup(client)
            source = (BLOCK_SUM / "solutions" / "correct" / "warp_shuffle.cu").read_text()
            response = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": source},
                                   headers=csrf(client))
            assert response.status_code == 202
            body = _wait_done(client, response.json()["id"], timeout_s=120)
            assert body["attempts"] == 1 and body["verdict"] is not None
            with client.stream("GET", f"/api/submissions/{body['id']}/events") as stream:
                events = [line[7:] for line in stream.iter_lines() if line.startswith("event: ")]
            assert events[0] == "queued" and events[-1] == "done"
            from kernels.targets import emu_available

            if emu_available()[0]:
                assert body["verdict"] == "accepted" and body["xp_awarded"] == 90, body
    finally:
        stop.set()
        thread.join(timeout=60)
    assert codes == [0]


def test_xp_is_awarded_once_when_workers_race_on_postgres(scaleout_settings):
    """On PostgreSQL nothing serializes the writers but the unique indexes."""
    engine = make_engine(scaleout_settings.database_url)
    factory = make_sessionmaker(engine)
    catalog = load_catalog(scaleout_settings.lessons_dir)
    racers = 6
    try:
        user_id = race_to_store(factory, catalog, racers, v1_result())
        with factory() as session:
            assert total_xp(session, user_id) == 90
            assert session.scalar(select(func.sum(Submission.xp_awarded))) == 90
            assert session.scalar(select(func.count()).select_from(XpAward)) == 2
    finally:
        engine.dispose()

