"""The judging pool is sized to the machine and one learner cannot hold all of it
(issue #13, item 16): a correct kernel is not stuck behind another learner's two
endless loops."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.web.database import migrate
from app.queue.worker import pool_size
from tests.web.conftest import BLOCK_SUM, EXERCISE, csrf, make_settings, signup

CORRECT = (BLOCK_SUM / "solutions" / "correct" / "warp_shuffle.cu").read_text()
ENDLESS = """extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    volatile int spin = 1;
    while (spin) { }
}
"""


def test_pool_size_rules() -> None:
    assert pool_size(4, "emu", 2) == 4  # an explicit setting wins
    assert pool_size(0, "cuda", 2, cpus=64) == 1  # one timed job per GPU
    assert pool_size(0, "emu", 2, cpus=16) == 16  # one per core
    # more threads than one learner may have pending, even on a small machine
    assert pool_size(0, "emu", 2, cpus=2) == 3
    assert pool_size(0, "emu", 5, cpus=1) == 6
    assert pool_size(0, None, 2, cpus=1) == 3


def _wait_done(client: TestClient, submission_id: int, timeout_s: float = 180.0) -> tuple[dict, float]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body = client.get(f"/api/submissions/{submission_id}").json()
        if body["status"] == "done":
            return body, time.monotonic()
        time.sleep(0.1)
    raise AssertionError(f"submission {submission_id} not done after {timeout_s}s: {body}")


def test_a_correct_kernel_is_not_stuck_behind_two_endless_loops(tmp_path: Path, lessons_dir: Path) -> None:
    targets = pytest.importorskip("kernels.targets")
    ok, why = targets.emu_available()
    if not ok:
        pytest.skip(f"the emulator backend cannot run: {why}")
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=True, worker_threads=0)
    migrate(settings.database_url)
    with TestClient(create_app(settings)) as looper:
        assert looper.app.state.worker.threads >= settings.max_pending_submissions + 1
        looper.get("/api/me/progress")
        signup(looper)
        loops = []
        for _ in range(2):
            posted = looper.post("/api/submissions", json={"exercise_id": EXERCISE, "source": ENDLESS,
                                                           "mode": "run"}, headers=csrf(looper))
            assert posted.status_code == 202, posted.text
            loops.append(posted.json()["id"])
        time.sleep(1.0)  # the loops are taken first
        other = TestClient(looper.app)
        other.get("/api/me/progress")
        signup(other, email="grace@example.com", name="Grace")
        submitted = time.monotonic()
        good = other.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT,
                                                    "mode": "run"}, headers=csrf(other))
        assert good.status_code == 202, good.text
        good_id = good.json()["id"]
        # when the correct kernel was taken by a judging thread, and when each loop ended
        taken_at, loops_done = None, {}
        deadline = time.monotonic() + 180
        while (taken_at is None or len(loops_done) < 2) and time.monotonic() < deadline:
            if taken_at is None and other.get(f"/api/submissions/{good_id}").json()["status"] != "queued":
                taken_at = time.monotonic()
            for i in loops:
                if i not in loops_done and looper.get(f"/api/submissions/{i}").json()["status"] == "done":
                    loops_done[i] = time.monotonic()
            time.sleep(0.05)
        body, _ = _wait_done(other, good_id)
        assert body["verdict"] == "accepted", body["result"]["message"]
        assert all(looper.get(f"/api/submissions/{i}").json()["verdict"] == "time_limit_exceeded" for i in loops)
        # a free thread took it at once: it did not wait for the loops to end
        assert taken_at is not None and taken_at < min(loops_done.values()), (
            f"taken {taken_at - submitted if taken_at else None} s after submit")
        assert taken_at - submitted < 2.0
