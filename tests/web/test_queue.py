"""The judging path: the real Huey queue (SqliteHuey consumer embedded in the app),
the real judge on the emulator, heartbeats and the reaper."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.db import transaction
from app.main import create_app
from tests.web.database import migrate
from app.models import Submission, SubmissionAttempt, SubmissionEvent, utcnow
from app.queue.tasks import JudgeRuntime
from app.queue.worker import Reaper
from app.services import judging
from tests.web.conftest import BLOCK_SUM, EXERCISE, csrf, make_settings, signup, v1_result

CORRECT = (BLOCK_SUM / "solutions" / "correct" / "warp_shuffle.cu").read_text()
WRONG = (BLOCK_SUM / "solutions" / "wrong" / "missing_bounds_check.cu").read_text()


@pytest.fixture
def live_client(tmp_path: Path, lessons_dir: Path):
    """The whole product in one process, as `kdojo serve` runs it."""
    targets = pytest.importorskip("kernels.targets", reason="the judge is not in this tree yet")
    ok, why = targets.emu_available()
    if not ok:
        pytest.skip(f"the emulator backend cannot run: {why}")
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=True, worker_threads=1)
    migrate(settings.database_url)
    with TestClient(create_app(settings)) as client:
        client.get("/api/me/progress")
        yield client


def _wait_done(client: TestClient, submission_id: int, timeout_s: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body = client.get(f"/api/submissions/{submission_id}").json()
        if body["status"] == "done":
            return body
        time.sleep(0.2)
    raise AssertionError(f"submission {submission_id} not done after {timeout_s}s: {body}")


def test_submit_is_judged_on_the_emulator_and_awards_xp_once(live_client):
    signup(live_client)
    wrong = live_client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": WRONG,
                                                       "mode": "submit"}, headers=csrf(live_client))
    assert wrong.status_code == 202
    wrong_body = _wait_done(live_client, wrong.json()["id"])
    assert wrong_body["verdict"] == "wrong_answer" and wrong_body["xp_awarded"] == 0
    assert wrong_body["result"]["backend"] == "emu"

    good = live_client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT,
                                                      "mode": "submit"}, headers=csrf(live_client))
    body = _wait_done(live_client, good.json()["id"])
    assert body["verdict"] == "accepted", body["result"]["message"]
    assert body["result"]["benchmark"] is None or body["result"].get("timings_note")
    assert body["xp_awarded"] == 50 + 40  # the exercise, then the lesson it completes
    assert {"first_kernel", "first_lesson"} <= set(body["achievements"])

    stages = []
    with live_client.stream("GET", f"/api/submissions/{good.json()['id']}/events") as response:
        stages = [line[7:] for line in response.iter_lines() if line.startswith("event: ")]
    assert stages[0] == "queued" and stages[-1] == "done"
    assert "compiling" in stages and "testing" in stages

    again = live_client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT,
                                                       "mode": "submit"}, headers=csrf(live_client))
    assert _wait_done(live_client, again.json()["id"])["xp_awarded"] == 0
    progress = live_client.get("/api/me/progress").json()
    assert progress["xp"] == 90 and progress["level"] == 0 and progress["xp_to_next"] == 10


def test_run_mode_judges_without_benchmark_or_xp(live_client):
    signup(live_client)
    run = live_client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT,
                                                     "mode": "run"}, headers=csrf(live_client))
    body = _wait_done(live_client, run.json()["id"])
    assert body["verdict"] == "accepted" and body["result"]["benchmark"] is None
    assert body["xp_awarded"] == 0
    assert live_client.get("/api/me/progress").json()["xp"] == 0


def _age_heartbeat(app, submission_id: int, seconds: float) -> None:  # noqa: ANN001
    with transaction(app.state.sessionmaker) as session:
        session.execute(update(Submission).where(Submission.id == submission_id)
                        .values(heartbeat_at=utcnow() - dt.timedelta(seconds=seconds)))


def _queued_submission(client: TestClient) -> int:
    response = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT},
                           headers=csrf(client))
    assert response.status_code == 202
    return response.json()["id"]


def test_reaper_requeues_a_dead_workers_job_and_the_late_worker_cannot_overwrite(client, app):
    signup(client)
    sub_id = _queued_submission(client)
    enqueued: list[int] = []
    reaper = Reaper(JudgeRuntime(app.state.settings, app.state.sessionmaker, app.state.catalog),
                    enqueued.append)
    with transaction(app.state.sessionmaker) as session:
        first = judging.claim(session, sub_id, "worker-a")
    assert first == 1
    assert reaper.run_once() == []  # heartbeat fresh: alive
    _age_heartbeat(app, sub_id, app.state.settings.stale_after_s + 5)
    assert reaper.run_once() == [sub_id] and enqueued == [sub_id]
    with transaction(app.state.sessionmaker) as session:
        second = judging.claim(session, sub_id, "worker-b")
        assert second == 2
        # worker-a wakes up and tries to store its verdict: refused, nothing changes
        assert not judging.finish(session, sub_id, first, v1_result("wrong_answer"), app.state.catalog)
        assert judging.finish(session, sub_id, second, v1_result("accepted"), app.state.catalog)
        assert not judging.finish(session, sub_id, second, v1_result("accepted"), app.state.catalog)
    with app.state.sessionmaker() as session:
        row = session.get(Submission, sub_id)
        assert (row.status, row.verdict, row.attempts) == ("done", "accepted", 2)
        outcomes = session.execute(select(SubmissionAttempt.attempt, SubmissionAttempt.outcome)
                                   .order_by(SubmissionAttempt.attempt)).all()
        assert [tuple(o) for o in outcomes] == [(1, "stale"), (2, "done")]
        done_events = session.scalars(select(SubmissionEvent).where(SubmissionEvent.event == "done")).all()
        assert len(done_events) == 1


def test_reaper_gives_up_after_max_attempts_with_an_internal_error(client, app):
    sub_id = _queued_submission(client)
    reaper = Reaper(JudgeRuntime(app.state.settings, app.state.sessionmaker, app.state.catalog),
                    lambda _id: None)
    for attempt in range(1, app.state.settings.max_attempts + 1):
        with transaction(app.state.sessionmaker) as session:
            assert judging.claim(session, sub_id, "dies") == attempt
        _age_heartbeat(app, sub_id, 3600)
        reaper.run_once()
    body = client.get(f"/api/submissions/{sub_id}").json()
    assert body["status"] == "done" and body["verdict"] == "internal_error"
    assert "our fault" in body["result"]["message"]


def test_a_job_lost_before_any_worker_took_it_is_enqueued_again(client, app):
    sub_id = _queued_submission(client)
    enqueued: list[int] = []
    reaper = Reaper(JudgeRuntime(app.state.settings, app.state.sessionmaker, app.state.catalog),
                    enqueued.append)
    assert reaper.run_once() == []
    _age_heartbeat(app, sub_id, app.state.settings.requeue_queued_after_s + 1)
    assert reaper.run_once() == [sub_id]
    assert reaper.run_once() == []  # not again until the threshold passes again
    with transaction(app.state.sessionmaker) as session:
        assert judging.claim(session, sub_id, "w") == 1
        assert judging.claim(session, sub_id, "w2") is None  # a duplicate job finds it taken


def test_the_embedded_consumer_finishes_a_job_even_when_the_judge_cannot_start(tmp_path, lessons_dir):
    """The real SqliteHuey consumer picks the job up; a judge that cannot run
    (the `cuda` backend without a GPU) is reported as our internal error, never
    left `running`."""
    from kernels.targets import gpu_visible

    if gpu_visible():
        pytest.skip("a GPU is visible: the cuda backend would judge for real")
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=True, judge_backend="cuda")
    migrate(settings.database_url)
    with TestClient(create_app(settings)) as client:
        client.get("/api/me/progress")
        sub_id = _queued_submission(client)
        body = _wait_done(client, sub_id, timeout_s=30)
    assert body["verdict"] == "internal_error" and body["attempts"] == 1
    assert "not yours" in body["result"]["message"]


@pytest.mark.gpu
def test_on_a_gpu_submit_is_timed_and_speed_tiers_follow_the_benchmark(tmp_path, lessons_dir):
    from app import xp

    settings = make_settings(tmp_path, lessons_dir, embedded_worker=True, judge_backend="cuda")
    migrate(settings.database_url)
    with TestClient(create_app(settings)) as client:
        client.get("/api/me/progress")
        assert client.get("/api/status").json()["timings_available"] is True
        signup(client)
        response = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT},
                               headers=csrf(client))
        body = _wait_done(client, response.json()["id"], timeout_s=300)
    result = body["result"]
    assert body["verdict"] == "accepted" and result["backend"] == "cuda"
    assert result["benchmark"]["sizes"] and result["benchmark"]["geomean_ms"] > 0
    assert body["xp_awarded"] == 90 + sum(t.xp for t in xp.tiers_reached(result))


@pytest.mark.gpu
def test_on_a_gpu_the_result_comes_first_and_its_profile_after(tmp_path, lessons_dir):
    # #26: the ncu profile is not on the result's path; the worker stores it afterwards
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=True, judge_backend="cuda")
    upgrade(settings.database_url)
    with TestClient(create_app(settings)) as client:
        client.get("/api/me/progress")
        if not client.get("/api/status").json()["profiler"]["enabled"]:
            pytest.skip("no ncu here: nothing is profiled")
        signup(client)
        response = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT},
                               headers=csrf(client))
        sub_id = response.json()["id"]
        body = _wait_done(client, sub_id, timeout_s=300)
        assert body["verdict"] == "accepted" and body["result"]["benchmark"]["geomean_ms"] > 0
        deadline = time.monotonic() + 30
        while "profile" not in body["result"] and time.monotonic() < deadline:
            time.sleep(0.5)
            body = client.get(f"/api/submissions/{sub_id}").json()
        assert body["result"]["profile"]["source"] == "ncu"
        with client.app.state.sessionmaker() as session:
            events = session.scalars(select(SubmissionEvent.event).where(SubmissionEvent.submission_id == sub_id)
                                     .order_by(SubmissionEvent.seq)).all()
        assert events.index("done") < events.index("profiled")
