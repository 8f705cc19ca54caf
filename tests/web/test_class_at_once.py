"""A class at once (issue #25): writes serialised without deadlocks, verdicts that
a busy database cannot change, event streams fed by one poller, requests whose
client left not carried out, /healthz and /readyz."""

from __future__ import annotations

import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import func, select, text

from app.db import make_engine, make_sessionmaker, transaction, write_lock
from app.main import create_app
from app.migrate import upgrade
from app.models import Submission
from app.queue.tasks import JudgeRuntime
from kernels.exercises import find_exercise
from tests.web.conftest import BLOCK_SUM, EXERCISE, csrf, make_settings, signup
from tests.web.live_server import free_port, live_server

CORRECT = (BLOCK_SUM / "solutions" / "correct" / "shared_tree.cu").read_text()


def test_sqlite_writers_take_turns_and_a_nested_writer_is_refused_at_once(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'w.sqlite3'}")
    factory = make_sessionmaker(engine)
    with transaction(factory) as session:
        session.execute(text("CREATE TABLE t (n INTEGER)"))
    inside, overlaps = [0], [0]

    def write(i: int) -> None:
        with transaction(factory) as session:
            inside[0] += 1
            overlaps[0] = max(overlaps[0], inside[0])
            session.execute(text("INSERT INTO t VALUES (:n)"), {"n": i})
            time.sleep(0.002)
            inside[0] -= 1

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(write, range(64)))
    with factory() as session:
        assert session.scalar(text("SELECT count(*) FROM t")) == 64
    assert overlaps[0] == 1  # one write transaction at a time, none failed on "database is locked"
    with transaction(factory) as session:
        session.execute(text("INSERT INTO t VALUES (0)"))
        with pytest.raises(RuntimeError, match="holds another"):
            with transaction(factory):
                pass
    with transaction(factory) as session:  # the lock was given back after both
        session.execute(text("INSERT INTO t VALUES (0)"))
    engine.dispose()


def test_a_write_that_waits_too_long_is_a_503_with_retry_after(client, app):
    signup(client)
    lock = write_lock(app.state.engine)
    lock.timeout_s = 0.3
    lock.acquire()
    try:
        response = client.post("/api/notifications/read", json={}, headers=csrf(client))
    finally:
        lock.release()
    assert response.status_code == 503 and response.headers["retry-after"] == "5"
    assert "busy" in response.json()["detail"]
    assert client.post("/api/notifications/read", json={}, headers=csrf(client)).status_code == 200


def test_a_database_locked_while_a_kernel_is_judged_leaves_its_verdict(tmp_path, lessons_dir):
    """Another process holds SQLite's write lock through the kernel's whole run
    (longer than its 10 s time limit): progress events are dropped, the verdict
    is still the kernel's own."""
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=False, heartbeat_s=60)
    upgrade(settings.database_url)
    app = create_app(settings)
    with transaction(app.state.sessionmaker) as session:
        row = Submission(exercise_id=EXERCISE, mode="run", source=CORRECT, status="queued", achievements=[],
                         anon_id="a")
        session.add(row)
        session.flush()
        submission_id = row.id
    runtime = JudgeRuntime(settings, app.state.sessionmaker, app.state.catalog)
    blocker = sqlite3.connect(settings.database_url.split("///", 1)[1], isolation_level=None)
    limit_s = find_exercise(EXERCISE, lessons_dir).limits.run_s
    job = threading.Thread(target=runtime.judge_next)  # the only queued row: the fair queue's next
    job.start()
    deadline = time.monotonic() + 60
    while blocker.execute("SELECT status FROM submissions WHERE id = ?", (submission_id,)).fetchone()[0] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    blocker.execute("BEGIN IMMEDIATE")  # claimed: now the database is taken while it compiles and runs
    time.sleep(limit_s + 3)
    blocker.execute("COMMIT")
    blocker.close()
    job.join(120)
    runtime.close()
    with app.state.sessionmaker() as session:
        row = session.get(Submission, submission_id)
        assert (row.status, row.verdict) == ("done", "accepted"), row.result and row.result.get("message")
    app.state.engine.dispose()


def test_open_streams_share_one_poll_and_each_gets_its_events(tmp_path, lessons_dir):
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=False, sse_poll_s=0.05)
    upgrade(settings.database_url)
    app = create_app(settings)
    streams = 30
    with live_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        client.get("/api/me/progress")
        headers = {"X-CSRF-Token": client.cookies.get("kdojo_csrf")}
        ids = [client.post("/api/submissions", headers=headers, json={
            "exercise_id": EXERCISE, "source": CORRECT, "mode": "run"}).json()["id"] for _ in range(2)]
        seen: list[list[str]] = [[] for _ in range(streams)]
        started = threading.Barrier(streams + 1)

        def follow(i: int) -> None:
            with client.stream("GET", f"/api/submissions/{ids[i % 2]}/events") as response:
                for line in response.iter_lines():
                    if line.startswith("event: "):
                        seen[i].append(line[7:])
                        if line == "event: queued" and len(seen[i]) == 1:
                            started.wait(30)
                        if line == "event: done":
                            return

        threads = [threading.Thread(target=follow, args=(i,)) for i in range(streams)]
        for thread in threads:
            thread.start()
        started.wait(30)
        hub = app.state.streams
        assert hub.open_streams == streams
        polls, t0 = hub.polls, time.monotonic()
        time.sleep(1.0)
        rounds = (time.monotonic() - t0) / settings.sse_poll_s
        assert hub.polls - polls <= rounds + 2  # one query a round for all 30, not 30
        from app.services import judging
        from tests.web.conftest import v1_result

        for submission_id in ids:
            with transaction(app.state.sessionmaker) as session:
                attempt = judging.claim(session, submission_id, "w")
                judging.finish(session, submission_id, attempt, v1_result("accepted"), app.state.catalog)
        for thread in threads:
            thread.join(30)
        assert all(s[0] == "queued" and s[-1] == "done" for s in seen), seen
        deadline = time.monotonic() + 5
        while hub.open_streams and time.monotonic() < deadline:
            time.sleep(0.05)
        assert hub.open_streams == 0


def test_a_submission_whose_client_left_while_it_waited_is_not_carried_out(tmp_path, lessons_dir):
    settings = make_settings(tmp_path, lessons_dir, embedded_worker=False)
    upgrade(settings.database_url)
    app = create_app(settings)
    with live_server(app) as base:
        learner = httpx.Client(base_url=base, timeout=60)
        learner.get("/api/me/progress")
        headers = {"X-CSRF-Token": learner.cookies.get("kdojo_csrf")}
        assert learner.post("/auth/signup", headers=headers, json={
            "email": "late@example.com", "password": "correct horse"}).status_code == 200
        headers = {"X-CSRF-Token": learner.cookies.get("kdojo_csrf")}  # signing in renews it
        lock = write_lock(app.state.engine)
        lock.acquire()  # every pool thread will wait on it, holding the request pool full
        with ThreadPoolExecutor(48) as pool:
            blocked = [pool.submit(learner.post, "/api/notifications/read", headers=headers, json={})
                       for _ in range(44)]
            time.sleep(1.5)
            with pytest.raises(httpx.ReadTimeout):  # the learner gives up while it waits for a thread
                learner.post("/api/submissions", headers=headers, timeout=1.0,
                             json={"exercise_id": EXERCISE, "source": CORRECT, "mode": "run"})
            time.sleep(0.5)
            lock.release()
            assert {f.result().status_code for f in blocked} == {200}
        time.sleep(1.0)
        with app.state.sessionmaker() as session:
            assert session.scalar(select(func.count()).select_from(Submission)) == 0
        # a learner who waits gets the submission made
        made = learner.post("/api/submissions", headers=headers,
                            json={"exercise_id": EXERCISE, "source": CORRECT, "mode": "run"})
        assert made.status_code == 202
        learner.close()


def test_healthz_and_readyz(client, tmp_path, lessons_dir):
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"ready": True}
    broken = make_settings(tmp_path / "b", lessons_dir, embedded_worker=False, queue="redis",
                           redis_url=f"redis://127.0.0.1:{free_port()}/0")
    upgrade(broken.database_url)
    from fastapi.testclient import TestClient

    with TestClient(create_app(broken)) as other:
        response = other.get("/readyz")
        assert response.status_code == 503
        body = response.json()
        assert body["ready"] is False and len(body["reasons"]) == 1
        assert body["reasons"][0].startswith("queue: ")
        assert other.get("/healthz").status_code == 200


def test_status_is_shared_between_callers_for_a_moment(client, app):
    first = client.get("/api/status").json()
    with transaction(app.state.sessionmaker) as session:
        session.add(Submission(exercise_id=EXERCISE, mode="run", source="x", status="queued", achievements=[],
                               anon_id="a"))
    assert client.get("/api/status").json()["queued"] == first["queued"]  # within STATUS_TTL_S
    time.sleep(1.1)
    assert client.get("/api/status").json()["queued"] == first["queued"] + 1



def test_a_stream_that_joins_during_a_poll_misses_no_event():
    """Rows read from cursor 3 must not advance a stream that joined at 0 past
    events 1-3: it gets them from the next round's query."""
    from app.streams import StreamHub, Subscription

    hub = StreamHub(factory=None, poll_s=0.1)  # type: ignore[arg-type] - no query is made here
    behind, current = Subscription(7, 0), Subscription(7, 3)
    hub._subs = {7: {behind, current}}
    hub._dispatch([(7, 4, "testing", {}), (7, 5, "done", {})], {}, cursors={7: 3})
    assert [current.items.get_nowait()[1][0] for _ in range(2)] == [4, 5]
    assert behind.items.empty() and behind.after_seq == 0
    hub._dispatch([(7, seq, "testing", {}) for seq in range(1, 6)], {}, cursors={7: 0})
    assert [behind.items.get_nowait()[1][0] for _ in range(5)] == [1, 2, 3, 4, 5]
    assert current.items.empty()
