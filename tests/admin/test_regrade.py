"""Regrading through the normal queue: the whole product in one process (embedded Huey
worker, the real judge on the emulator); a regrade is a new attempt and the earlier
verdict stays in the history."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.db import transaction
from app.main import create_app
from tests.web.database import migrate
from app.models import Submission
from app.services import judging
from tests.admin.conftest import bearer, make_token, make_user
from tests.web.conftest import BLOCK_SUM, EXERCISE, make_settings, v1_result

CORRECT = (BLOCK_SUM / "solutions" / "correct" / "warp_shuffle.cu").read_text()
WRONG = (BLOCK_SUM / "solutions" / "wrong" / "missing_bounds_check.cu").read_text()


@pytest.fixture
def live(tmp_path: Path, lessons_dir: Path):  # noqa: ANN201
    targets = pytest.importorskip("kernels.targets")
    ok, why = targets.emu_available()
    if not ok:
        pytest.skip(f"the emulator backend cannot run: {why}")
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=True, worker_threads=1)
    migrate(settings.database_url)
    app = create_app(settings)
    with TestClient(app) as client:
        yield app, client


def _stored(app, user_id: int, source: str, verdict: str) -> int:  # noqa: ANN001
    """A finished submission whose stored verdict is `verdict`, whatever its source
    deserves (as if the judge or a test had been wrong when it was graded)."""
    with transaction(app.state.sessionmaker) as session:
        row = Submission(user_id=user_id, exercise_id=EXERCISE, mode="submit", source=source,
                         status="queued", achievements=[])
        session.add(row)
        session.flush()
        submission_id = row.id
    with transaction(app.state.sessionmaker) as session:
        attempt = judging.claim(session, submission_id, "old-worker")
        judging.finish(session, submission_id, attempt, v1_result(verdict), app.state.catalog)
    return submission_id


def _wait_done(client: TestClient, ids: list[int], headers: dict[str, str], timeout_s: float = 240.0) -> dict:
    deadline = time.monotonic() + timeout_s
    bodies: dict[int, dict] = {}
    while time.monotonic() < deadline:
        bodies = {i: client.get(f"/api/admin/submissions/{i}", headers=headers).json() for i in ids}
        if all(b["status"] == "done" for b in bodies.values()):
            return bodies
        time.sleep(0.3)
    raise AssertionError(f"not regraded after {timeout_s}s: {bodies}")


def test_regrade_all_of_an_exercise_end_to_end_on_the_emulator(live):
    app, client = live
    make_user(app, "root@example.com", "admin")
    learner = make_user(app, "ada@example.com")
    wrongly_accepted = _stored(app, learner, WRONG, "accepted")
    wrongly_failed = _stored(app, learner, CORRECT, "internal_error")
    writer = bearer(make_token(app, "root@example.com", "grading:read,grading:write"))
    reader = bearer(make_token(app, "root@example.com", "grading:read"))

    assert client.post(f"/api/admin/exercises/{EXERCISE}/regrade", json={"reason": "x"},
                       headers=reader).status_code == 403  # grading:read cannot regrade
    queued = client.post(f"/api/admin/exercises/{EXERCISE}/regrade", json={"reason": "test 7 fixed"},
                         headers=writer)
    assert queued.status_code == 202, queued.text
    assert queued.json() == {"exercise_id": EXERCISE, "queued": [wrongly_accepted, wrongly_failed], "count": 2}

    bodies = _wait_done(client, [wrongly_accepted, wrongly_failed], reader)
    fixed_wrong, fixed_right = bodies[wrongly_accepted], bodies[wrongly_failed]
    assert fixed_wrong["verdict"] == "wrong_answer" and fixed_wrong["result"]["backend"] == "emu"
    assert fixed_right["verdict"] == "accepted", fixed_right["result"]["message"]
    for body, old in ((fixed_wrong, "accepted"), (fixed_right, "internal_error")):
        assert body["attempts"] == 2
        assert [(a["attempt"], a["outcome"]) for a in body["attempt_history"]] == [(1, "done"), (2, "done")]
        (previous,) = body["previous_grades"]
        assert (previous["attempt"], previous["verdict"], previous["replaced_by"], previous["reason"]) == \
            (1, old, "regrade", "test 7 fixed")

    auditor = bearer(make_token(app, "root@example.com", "users:admin"))
    actions = [e["action"] for e in client.get("/api/admin/audit", headers=auditor).json()["items"]]
    assert actions.count("submission.regrade") == 2 and "exercise.regrade" in actions


def test_regrade_one_and_refuse_while_it_is_queued(live):
    app, client = live
    make_user(app, "root@example.com", "admin")
    learner = make_user(app, "bob@example.com")
    submission = _stored(app, learner, CORRECT, "wrong_answer")
    writer = bearer(make_token(app, "root@example.com", "grading:read,grading:write"))
    first = client.post(f"/api/admin/submissions/{submission}/regrade", json={"reason": "appeal"}, headers=writer)
    assert first.status_code == 202 and first.json() == {"id": submission, "status": "queued"}
    second = client.post(f"/api/admin/submissions/{submission}/regrade", json={}, headers=writer)
    assert second.status_code in (202, 409)  # 409 while it is queued or running; 202 if already done
    body = _wait_done(client, [submission], writer)[submission]
    assert body["verdict"] == "accepted" and body["xp_awarded"] > 0  # now it earns the XP it deserved
    assert body["previous_grades"][0]["verdict"] == "wrong_answer"
    assert client.post("/api/admin/submissions/424242/regrade", json={}, headers=writer).status_code == 404
    assert client.post("/api/admin/exercises/nope.nope/regrade", json={}, headers=writer).status_code == 404
