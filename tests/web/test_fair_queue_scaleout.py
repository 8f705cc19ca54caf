"""The fair queue scaled out (#25): PostgreSQL, RedisHuey and two workers taking
jobs at the same time (a `kdojo worker` process, and the same loop in a thread). Every job claims the next fair row
(FOR UPDATE SKIP LOCKED), so each submission is judged exactly once, and a
learner behind a flood is judged before the flood's backlog."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import make_engine, make_sessionmaker
from app.deps import ANON_COOKIE
from app.main import create_app
from app.models import Submission, SubmissionAttempt
from app.settings import REPO_ROOT, Settings
from tests.web.conftest import BLOCK_SUM, EXERCISE, csrf, signup
from tests.web.test_scaleout import _start_worker, pg_url, scaleout_settings  # noqa: F401 - fixtures

pytestmark = pytest.mark.scaleout

CORRECT = (BLOCK_SUM / "solutions" / "correct" / "warp_shuffle.cu").read_text()


def _post(client: TestClient) -> int:
    response = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT, "mode": "run"},
                           headers=csrf(client))
    assert response.status_code == 202, response.text
    return response.json()["id"]


def _judged(settings: Settings, ids: list[int], timeout_s: float) -> dict[int, dict]:
    """Each row once all are done (or the time is up): its status, claims, attempt rows,
    when it was created and when its first attempt started."""
    engine = make_engine(settings.database_url)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            with make_sessionmaker(engine)() as session:
                rows = {row.id: row for row in session.scalars(select(Submission).where(Submission.id.in_(ids)))}
                if all(row.status == "done" for row in rows.values()) or time.monotonic() > deadline:
                    tries = {sid: (n, first) for sid, n, first in session.execute(
                        select(SubmissionAttempt.submission_id, func.count(), func.min(SubmissionAttempt.started_at))
                        .where(SubmissionAttempt.submission_id.in_(ids)).group_by(SubmissionAttempt.submission_id))}
                    return {i: {"status": rows[i].status, "claims": rows[i].attempts,
                                "attempt_rows": tries.get(i, (0, None))[0], "created": rows[i].created_at,
                                "started": tries.get(i, (0, None))[1],
                                "process": rows[i].worker_id.rsplit(":", 1)[0]} for i in ids}
            time.sleep(0.3)
    finally:
        engine.dispose()


@contextmanager
def worker_process(settings: Settings, log_path: Path) -> Iterator[subprocess.Popen]:
    """`kdojo worker --threads 1` in its own process, as on a second GPU node."""
    env = {**os.environ, "KDOJO_ENVIRONMENT": "test", "KDOJO_DATABASE_URL": settings.database_url,
           "KDOJO_QUEUE": "redis", "KDOJO_REDIS_URL": settings.redis_url,
           "KDOJO_QUEUE_NAME": settings.queue_name, "KDOJO_LESSONS_DIR": str(settings.lessons_dir),
           "KDOJO_JUDGE_BACKEND": "emu", "KDOJO_SECRET_KEY": settings.secret_key}
    with log_path.open("w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "app.cli", "worker", "--threads", "1"],
                                cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_two_workers_judge_each_submission_once_in_the_fair_order(
    scaleout_settings: Settings, tmp_path: Path,  # noqa: F811
) -> None:
    thread, stop, codes = _start_worker(scaleout_settings)
    try:
        with worker_process(scaleout_settings, tmp_path / "worker.log") as other:
            judged = _flood_and_one_learner(scaleout_settings)
            assert other.poll() is None, (tmp_path / "worker.log").read_text()[-2000:]
    finally:
        stop.set()
        thread.join(timeout=60)
    assert codes == [0]
    check_judged_once_and_fairly(*judged)
    assert len({v["process"] for v in judged[0].values()}) == 2  # both workers took jobs


def _flood_and_one_learner(settings: Settings) -> tuple[dict[int, dict], list[int], int]:
    app = create_app(settings)  # a web node: no worker of its own
    with TestClient(app) as flooder:
        flooder.get("/api/me/progress")
        flood = []
        for _ in range(3):  # three anonymous cookies, one address: one learner
            flooder.cookies.delete(ANON_COOKIE)
            flood += [_post(flooder), _post(flooder)]
        learner = TestClient(app)
        learner.get("/api/me/progress")
        signup(learner, email="late@example.com")
        mine = _post(learner)
        return _judged(settings, [*flood, mine], timeout_s=300), flood, mine


def check_judged_once_and_fairly(judged: dict[int, dict], flood: list[int], mine: int) -> None:
    # Exactly once: one claim, one attempt row, each done.
    assert {row: (v["status"], v["claims"], v["attempt_rows"]) for row, v in judged.items()} == \
        {row: ("done", 1, 1) for row in judged}
    posted, started = judged[mine]["created"], {row: v["started"] for row, v in judged.items()}
    still_waiting = [row for row in flood if started[row] >= posted]
    assert len(still_waiting) >= 3, "the flood was judged before the learner posted: nothing was measured"
    overtaking = [row for row in still_waiting if started[row] <= started[mine]]
    # One other active learner: at most one of its jobs, plus one a second worker may
    # have claimed in the instant between the learner's post and its own claim.
    assert len(overtaking) <= 1 + 1, (overtaking, started, posted)
