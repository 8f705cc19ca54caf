"""Operations a class relies on, with real processes (issue #25): migrations run
once under a lock, one server per data folder, secrets never printed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.settings import REPO_ROOT
from tests.web import test_scaleout
from tests.web.test_commands import _free_port

KDOJO = [sys.executable, "-m", "app.cli"]
pg_url = test_scaleout.pg_url  # the fixture: a fresh PostgreSQL schema per test


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}


def _migrate_at_once(database_url: str, processes: int = 3) -> list[subprocess.CompletedProcess[str]]:
    """Start `processes` `kdojo migrate` together on one fresh database and wait for them all."""
    procs = [subprocess.Popen(KDOJO + ["migrate"], cwd=REPO_ROOT, env=_env(KDOJO_DATABASE_URL=database_url),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(processes)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        results.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return results


def _check_one_migrated(results: list[subprocess.CompletedProcess[str]]) -> None:
    for result in results:
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
    said = [result.stderr.strip().splitlines()[-1] for result in results]
    assert sum("migrated to the latest revision" in line for line in said) == 1, said
    assert sum("is at the latest revision" in line for line in said) == len(results) - 1, said


def test_a_worker_name_with_a_colon_or_empty_is_a_usage_error():
    for name in ("gpu:0", ""):
        out = subprocess.run(KDOJO + ["worker", "--name", name], check=False, cwd=REPO_ROOT, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 2
        assert out.stderr.strip().splitlines() == ["kdojo worker: --name must be 1 to 64 characters without ':'"]


def test_three_processes_migrating_a_fresh_sqlite_database_all_succeed(tmp_path):
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    _check_one_migrated(_migrate_at_once(url))
    again = subprocess.run(KDOJO + ["migrate"], check=False, cwd=REPO_ROOT, env=_env(KDOJO_DATABASE_URL=url),
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and "is at the latest revision" in again.stderr


@pytest.mark.scaleout
def test_three_processes_migrating_a_fresh_postgresql_database_all_succeed(pg_url):
    _check_one_migrated(_migrate_at_once(pg_url))


def test_a_migration_error_never_prints_the_database_password():
    port = _free_port()  # nobody listens there
    url = f"postgresql://kdojo:Sup3rSecretPw@127.0.0.1:{port}/kdojo"
    for command in (["migrate"], ["serve", "--port", str(_free_port())], ["worker"]):
        out = subprocess.run(KDOJO + command, check=False, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
                             env=_env(KDOJO_DATABASE_URL=url))
        assert out.returncode == 1, (command, out.stderr)
        assert "Sup3rSecretPw" not in out.stderr + out.stdout, command
        last = out.stderr.strip().splitlines()[-1]
        assert last.startswith(f"kdojo {command[0]}: migrating postgresql://kdojo:***@127.0.0.1:{port}/kdojo failed")
        assert "Traceback" not in out.stderr


def test_an_unreachable_redis_never_prints_its_password(tmp_path):
    port = _free_port()
    out = subprocess.run(KDOJO + ["worker"], check=False, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
                         env=_env(KDOJO_DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", KDOJO_QUEUE="redis",
                                  KDOJO_REDIS_URL=f"redis://:R3disSecretPw@127.0.0.1:{port}/3"))
    assert out.returncode == 1, out.stderr
    assert "R3disSecretPw" not in out.stderr + out.stdout
    assert f"cannot reach Redis at redis://:***@127.0.0.1:{port}/3" in out.stderr.strip().splitlines()[-1]


class Server:
    """A `kdojo serve` subprocess on a data folder of its own, its log in a file."""

    def __init__(self, data: Path, lessons_dir: Path, **env: str) -> None:
        self.port = _free_port()
        self.data = data
        self.log = data / f"serve-{self.port}.log"
        data.mkdir(parents=True, exist_ok=True)
        self.env = _env(KDOJO_DATA_DIR=str(data), KDOJO_LESSONS_DIR=str(lessons_dir), KDOJO_JUDGE_BACKEND="emu",
                        KDOJO_SECRET_KEY="test-secret-key-that-is-long-enough-0123456789", **env)
        self.env.pop("KDOJO_DATABASE_URL", None)
        self.env.pop("KDOJO_QUEUE_PATH", None)
        with self.log.open("w") as log_file:
            self.proc = subprocess.Popen(KDOJO + ["serve", "--port", str(self.port)], cwd=REPO_ROOT, env=self.env,
                                         stdout=log_file, stderr=subprocess.STDOUT)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout_s: float = 60) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/api/me/progress", timeout=2)
                return
            except httpx.TransportError:
                assert self.proc.poll() is None, self.log.read_text()
                time.sleep(0.2)
        pytest.fail(f"the server did not answer in {timeout_s} s: {self.log.read_text()}")

    def stop(self, sig: int = signal.SIGINT) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def test_a_second_server_on_one_data_folder_exits_at_once_naming_it_and_the_pid(tmp_path, lessons_dir):
    first = Server(tmp_path / "data", lessons_dir)
    try:
        first.wait_ready()
        started = time.monotonic()
        second = Server(tmp_path / "data", lessons_dir)
        second.proc.wait(timeout=30)
        assert second.proc.returncode == 1
        assert time.monotonic() - started < 20  # at once: before migrating or loading lessons
        last = second.log.read_text().strip().splitlines()[-1]
        assert last == (f"kdojo serve: another server (pid {first.proc.pid}) is running on the data folder "
                        f"{(tmp_path / 'data').resolve()} (database kdojo.sqlite3); stop it first")
        same_port = subprocess.run(KDOJO + ["serve", "--port", str(first.port)], check=False, cwd=REPO_ROOT,
                                   env=first.env, capture_output=True, text=True, timeout=60)
        assert same_port.returncode == 1 and same_port.stderr.strip().splitlines()[-1] == last  # folder first
    finally:
        first.stop(signal.SIGKILL)  # killed: it cannot release anything itself
    third = Server(tmp_path / "data", lessons_dir)  # the OS released the killed server's lock
    try:
        third.wait_ready()
    finally:
        third.stop()
    assert third.proc.returncode == 0, third.log.read_text()


SPIN = """extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    volatile int spins = 0;
    while (true) { spins = spins + 1; }   // runs until the judge's time limit
}
"""


def _row(db: Path, submission_id: int) -> tuple[str, int, list[tuple[int, str]]]:
    import sqlite3

    with sqlite3.connect(db, timeout=30) as conn:
        status, attempts = conn.execute("SELECT status, attempts FROM submissions WHERE id = ?",
                                        (submission_id,)).fetchone()
        outcomes = conn.execute("SELECT attempt, outcome FROM submission_attempts WHERE submission_id = ? "
                                "ORDER BY attempt", (submission_id,)).fetchall()
    return status, attempts, outcomes


def _until(check, timeout_s: float, what: str) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if check():
            return time.monotonic() - started
        time.sleep(0.1)
    pytest.fail(f"{what}: not within {timeout_s} s")


def test_a_server_killed_mid_judgement_requeues_its_job_at_once_when_restarted(tmp_path, lessons_dir):
    from tests.web.conftest import EXERCISE

    data = tmp_path / "data"
    db = data / "kdojo.sqlite3"
    env = {"KDOJO_STALE_AFTER_S": "600", "KDOJO_WORKER_THREADS": "1"}  # the reaper would wait 10 minutes
    first = Server(data, lessons_dir, **env)
    try:
        first.wait_ready()
        with httpx.Client(base_url=first.url, timeout=30) as client:
            client.get("/api/me/progress")
            answer = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": SPIN, "mode": "run"},
                                 headers={"X-CSRF-Token": client.cookies.get("kdojo_csrf") or ""})
        assert answer.status_code == 202, answer.text
        submission_id = answer.json()["id"]
        _until(lambda: _row(db, submission_id)[0] == "running", 60, "the job was never claimed")
        time.sleep(1.0)  # judging: compiling or spinning
    finally:
        first.stop(signal.SIGKILL)
    assert _row(db, submission_id)[:2] == ("running", 1)  # what the killed server left behind

    second = Server(data, lessons_dir, **env)
    try:
        second.wait_ready()
        _until(lambda: _row(db, submission_id)[1] == 2, 30, "the interrupted job was not judged again")
        status, _attempts, outcomes = _row(db, submission_id)
        assert outcomes[0] == (1, "stale") and outcomes[1][0] == 2
        assert status in ("running", "done")
        log = second.log.read_text()
        assert f"re-queued submissions [{submission_id}] that a previous run of this worker was judging" in log
    finally:
        second.stop(signal.SIGKILL)  # no need to wait out the spinning kernel's time limit


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid  # exited and reaped: no process has it (until the kernel reuses it)


def test_a_starting_worker_requeues_only_its_own_dead_claims(tmp_path, lessons_dir):
    import socket

    from app.db import make_engine, make_sessionmaker, transaction
    from app.main import Queue
    from app.migrate import upgrade
    from app.models import Submission, SubmissionAttempt
    from app.queue.tasks import JudgeRuntime
    from app.queue.worker import Worker
    from tests.web.conftest import EXERCISE, make_settings

    settings = make_settings(tmp_path, lessons_dir, embedded_worker=False)
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    factory = make_sessionmaker(engine)
    host = socket.gethostname()
    claims = {"dead here": f"{host}:{_dead_pid()}:1", "alive here": f"{host}:{os.getppid()}:1",
              "other host": f"not-{host}:{_dead_pid()}:1", "named": "gpu-node-3:1:1", "named-like": "gpu-node-30:1:1"}
    ids = {}
    with transaction(factory) as session:
        for what, worker_id in claims.items():
            row = Submission(exercise_id=EXERCISE, mode="run", source="x", status="running", attempts=1,
                             worker_id=worker_id)
            session.add(row)
            session.flush()
            session.add(SubmissionAttempt(submission_id=row.id, attempt=1, worker_id=worker_id))
            ids[what] = row.id
    enqueued: list[int] = []
    queue = Queue(settings)
    try:
        by_host = Worker(queue.huey, JudgeRuntime(settings, factory, None), enqueued.append, 1)
        assert by_host.requeue_orphans(own_pid_free=True) == [ids["dead here"]]
        named = Worker(queue.huey, JudgeRuntime(settings, factory, None, name="gpu-node-3"), enqueued.append, 1)
        assert named.requeue_orphans(own_pid_free=False) == [ids["named"]]
        assert enqueued == [ids["dead here"], ids["named"]]
        with transaction(factory) as session:
            status = {what: session.get(Submission, sid).status for what, sid in ids.items()}
            outcome = {what: session.query(SubmissionAttempt.outcome).filter_by(submission_id=sid).scalar()
                       for what, sid in ids.items()}
        assert status == {"dead here": "queued", "alive here": "running", "other host": "running",
                          "named": "queued", "named-like": "running"}
        assert outcome["dead here"] == outcome["named"] == "stale" and outcome["alive here"] == "running"
    finally:
        engine.dispose()


def test_a_repeated_500_logs_its_traceback_once_then_one_line_each(tmp_path, lessons_dir):
    import sqlite3

    from tests.web.conftest import EXERCISE

    server = Server(tmp_path / "data", lessons_dir, KDOJO_EMBEDDED_WORKER="false")
    try:
        server.wait_ready()
        with sqlite3.connect(tmp_path / "data" / "kdojo.sqlite3", timeout=30) as conn:
            conn.execute("DROP TABLE submission_events")  # every new submission now fails: our fault, a 500
        statuses = []
        for _ in range(4):  # a connection each: uvicorn closes the one a request failed on
            with httpx.Client(base_url=server.url, timeout=30) as client:
                client.get("/api/me/progress")
                statuses.append(client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "x",
                                                                      "mode": "run"},
                                            headers={"X-CSRF-Token": client.cookies.get("kdojo_csrf") or ""}
                                            ).status_code)
    finally:
        server.stop()
    assert statuses == [500] * 4
    log = server.log.read_text()
    lines = log.splitlines()
    assert lines.count("ERROR uvicorn.error: Exception in ASGI application") == 1, log  # with its traceback
    assert 1 <= log.count("Traceback (most recent call last)") <= 2  # the driver's error, chained
    one_liners = [line for line in log.splitlines() if "traceback shown at most once per 60 s" in line]
    assert len(one_liners) == 3, log
    assert all(line.startswith("ERROR uvicorn.error: Exception in ASGI application: OperationalError at ")
               for line in one_liners), one_liners
