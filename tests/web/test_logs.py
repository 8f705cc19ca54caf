"""Secrets masked in what we print; a repeated fault told once, then seldom (issue #25)."""

from __future__ import annotations

import io
import logging
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

from app.logs import (
    FaultLog,
    RedactingFormatter,
    RepeatedTracebackFilter,
    mask_url,
    redact,
    register_secret,
    register_url,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def captured() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A real logger writing through the commands' formatter into a buffer."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(RedactingFormatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger(f"kdojo.test.{time.monotonic_ns()}")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    yield logger, out
    logger.removeHandler(handler)


def test_urls_lose_their_passwords_and_tokens():
    assert mask_url("postgresql://kdojo:pa55word@db/kdojo") == "postgresql://kdojo:***@db/kdojo"
    assert mask_url("redis://:hunter2@queue:6379/0") == "redis://:***@queue:6379/0"
    assert mask_url("postgresql://db/kdojo?user=k&password=pa55word") == "postgresql://db/kdojo?user=k&password=***"
    assert mask_url("redis://queue:6379/0") == "redis://queue:6379/0"  # nothing to hide: unchanged
    text = "cannot connect to postgresql+psycopg://u:s3cr%40t@h:5432/d (Background: x)"
    assert "s3cr" not in redact(text) and "u:***@h:5432" in redact(text)


def test_a_registered_secret_is_masked_even_without_its_url(captured):
    register_url("postgresql://kdojo:only-in-the-driver-message@db/kdojo")
    register_secret("abc")  # too short to mask sensibly: ignored
    logger, out = captured
    logger.error("password authentication failed (password only-in-the-driver-message) abc")
    assert "only-in-the-driver-message" not in out.getvalue()
    assert "(password ***) abc" in out.getvalue()


def test_a_traceback_is_masked_too(captured):
    logger, out = captured
    try:
        raise ConnectionError("redis://:topsecret@127.0.0.1:1/0 refused")
    except ConnectionError:
        logger.exception("reading the queue failed")
    assert "Traceback" in out.getvalue() and "topsecret" not in out.getvalue()


def _raise_here(kind: type[Exception]) -> None:
    raise kind("boom")


def test_a_repeated_500_shows_its_traceback_once_per_period(captured):
    logger, out = captured
    clock = Clock()
    logger.addFilter(RepeatedTracebackFilter(period_s=60, clock=clock))
    for kind in (ValueError, ValueError, ValueError, KeyError):
        try:
            _raise_here(kind)
        except Exception:
            logger.exception("Exception in ASGI application\n")  # as uvicorn words it
    text = out.getvalue()
    assert text.count("Traceback") == 2  # the first ValueError and the first KeyError
    one_liners = [line for line in text.splitlines() if "traceback shown at most once per 60 s" in line]
    assert len(one_liners) == 2 and all("ValueError at " in line and "test_logs.py:" in line for line in one_liners)
    assert all("ERROR " in line and "Exception in ASGI application: ValueError at " in line for line in one_liners)
    clock.now += 61
    try:
        _raise_here(ValueError)
    except ValueError:
        logger.exception("Exception in ASGI application\n")  # as uvicorn words it
    assert out.getvalue().count("Traceback") == 3  # the period is over: shown again


def test_a_fault_is_one_line_then_backs_off_then_says_it_recovered(captured):
    logger, out = captured
    clock = Clock()
    faults = FaultLog(logger, "reading the queue", first_s=5, cap_s=40, clock=clock)
    for _ in range(600):  # ten minutes of failures every second
        try:
            raise ConnectionError("Connection refused")
        except ConnectionError as exc:
            faults.failed(exc)
        clock.now += 1
    faults.ok()
    faults.ok()  # nothing more to say
    lines = out.getvalue().splitlines()
    failures = [line for line in lines if line.startswith("ERROR")]
    # at 0 s, then 5, 10, 20, 40 s (the period doubling), then every 40 s (the cap): 80 … 560
    assert len(failures) == 1 + 4 + 13, lines
    assert "reading the queue failed: ConnectionError: Connection refused" in failures[0]
    assert out.getvalue().count("Traceback") == 1
    assert lines[-1] == "WARNING " + logger.name + ": reading the queue works again after 600 s (600 failures)"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server to start a private one")
def test_a_worker_whose_redis_goes_away_logs_a_few_lines_and_one_when_it_is_back(tmp_path, lessons_dir, caplog):
    """A private Redis (never the shared one) is stopped under a running worker, then started again."""
    from app.db import make_engine, make_sessionmaker
    from app.main import Queue
    from app.migrate import upgrade
    from app.queue.tasks import JudgeRuntime
    from app.queue.worker import Worker
    from tests.web.conftest import make_settings

    port = _free_port()
    def start_redis() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                 "--appendonly", "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return proc
            except OSError:
                time.sleep(0.05)
        proc.kill()
        pytest.fail("private redis-server did not start")

    redis_proc = start_redis()
    settings = make_settings(tmp_path, lessons_dir, queue="redis", redis_url=f"redis://127.0.0.1:{port}/0",
                             embedded_worker=False)
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    queue = Queue(settings)
    worker = Worker(queue.huey, JudgeRuntime(settings, make_sessionmaker(engine), None), queue.enqueue, 4)
    caplog.set_level(logging.INFO)
    worker.consumer.start()
    try:
        time.sleep(0.5)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
        time.sleep(4)  # four threads polling every 0.1 s would have logged ~160 tracebacks
        down = [r for r in caplog.records if r.levelno >= logging.ERROR]  # huey's own loggers too
        assert 1 <= len(down) <= 3, [r.getMessage() for r in down]
        assert sum(1 for r in down if r.exc_info) == 1
        redis_proc = start_redis()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not any("works again" in r.getMessage() for r in caplog.records):
            time.sleep(0.1)
        assert any("reading the judging queue works again" in r.getMessage() for r in caplog.records)
    finally:
        worker.consumer.stop(graceful=True)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
        engine.dispose()


def test_a_reaper_without_its_database_logs_one_traceback_and_backs_off(tmp_path, lessons_dir, caplog):
    from app.db import make_engine, make_sessionmaker
    from app.queue.tasks import JudgeRuntime
    from app.queue.worker import Reaper
    from tests.web.conftest import make_settings

    url = f"postgresql://kdojo:Db5ecretPw@127.0.0.1:{_free_port()}/kdojo"  # nobody listens there
    register_url(url)
    settings = make_settings(tmp_path, lessons_dir, database_url=url, reaper_interval_s=0.05)
    engine = make_engine(url)
    reaper = Reaper(JudgeRuntime(settings, make_sessionmaker(engine), None), lambda _id: None)
    caplog.set_level(logging.INFO, logger="kdojo.worker")
    reaper.start()
    time.sleep(3)  # at 0.05 s a round, 60 rounds: one traceback each before
    reaper.stop()
    engine.dispose()
    failures = [r for r in caplog.records if "the reaper's round" in r.getMessage()]
    # rounds back off from 0.1 s doubling: 0.1, 0.2, 0.4, 0.8, 1.6 s -> about five failures in 3 s
    assert 3 <= reaper.faults.failures <= 7, reaper.faults.failures
    assert 1 <= len(failures) <= 3 and sum(1 for r in failures if r.exc_info) == 1
    shown = "\n".join(RedactingFormatter("%(message)s").format(r) for r in failures)
    assert "OperationalError" in shown and "Db5ecretPw" not in shown
