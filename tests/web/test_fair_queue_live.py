"""Issue #25's complaint, CI-sized, end to end: the whole product in one process
(the embedded SqliteHuey worker with one judging thread, the real judge on the
emulator). One client floods from one address with several anonymous cookies;
a learner who submits behind the flood waits for at most one of its jobs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import transaction
from app.deps import ANON_COOKIE
from app.main import create_app
from app.migrate import upgrade
from app.models import Submission, SubmissionAttempt
from tests.web.conftest import BLOCK_SUM, EXERCISE, csrf, make_settings, signup

CORRECT = (BLOCK_SUM / "solutions" / "correct" / "warp_shuffle.cu").read_text()
COOKIES = 2  # the flooder's anonymous browsers, each at the pending cap (2)


def _post(client: TestClient) -> dict:
    response = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT, "mode": "run"},
                           headers=csrf(client))
    assert response.status_code == 202, response.text
    return response.json()


def _wait_all_done(app, ids: list[int], timeout_s: float) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with transaction(app.state.sessionmaker, write=False) as session:
            statuses = set(session.scalars(select(Submission.status).where(Submission.id.in_(ids))))
        if statuses == {"done"}:
            return
        time.sleep(0.2)
    raise AssertionError(f"not all of {ids} judged in {timeout_s}s")


def test_a_flooder_delays_another_learners_verdict_by_at_most_one_job(tmp_path: Path, lessons_dir: Path) -> None:
    targets = pytest.importorskip("kernels.targets")
    ok, why = targets.emu_available()
    if not ok:
        pytest.skip(f"the emulator backend cannot run: {why}")
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=True, worker_threads=1)
    upgrade(settings.database_url)
    app = create_app(settings)
    with TestClient(app) as flooder:
        flooder.get("/api/me/progress")
        flood = []
        for _ in range(COOKIES):  # a fresh anonymous cookie, the same address
            flooder.cookies.delete(ANON_COOKIE)
            flood += [_post(flooder)["id"] for _ in range(settings.max_pending_submissions)]
        learner = TestClient(app)  # another browser on the same server
        learner.get("/api/me/progress")
        signup(learner, email="late@example.com")
        posted = _post(learner)
        mine = posted["id"]
        assert posted["position"] in (1, 2), posted  # behind at most the flooder's first job
        with transaction(app.state.sessionmaker, write=False) as session:
            created_at = session.get(Submission, mine).created_at
        _wait_all_done(app, [*flood, mine], timeout_s=300)
        with transaction(app.state.sessionmaker, write=False) as session:
            started = {row_id: at for row_id, at in session.execute(
                select(SubmissionAttempt.submission_id, SubmissionAttempt.started_at))}
    # Jobs started between the learner's post and the learner's own job: the flooder's,
    # and at most one of them (one per other active learner), whatever was running already.
    still_waiting = [i for i in flood if started[i] >= created_at]
    assert len(still_waiting) >= 2, "the flood was judged before the learner posted: nothing was measured"
    overtaking = [i for i in still_waiting if started[i] <= started[mine]]
    assert len(overtaking) <= 1, (overtaking, started, created_at)  # first in, first out: all of them
