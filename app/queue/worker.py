"""Running workers: the Huey consumer (embedded in `kdojo serve` or stand-alone in
`kdojo worker`) and the reaper that re-queues submissions of dead workers."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from huey import Huey
from huey.consumer import Consumer, Scheduler
from huey.consumer import Worker as HueyWorker

from app.db import transaction
from app.logs import FaultLog
from app.queue.tasks import JudgeRuntime
from app.services import housekeeping, judging
from kernels import targets

log = logging.getLogger("kdojo.worker")
QUEUE_RETRY_CAP_S = 5.0  # an unreadable queue is tried again at most this far apart
REAPER_RETRY_CAP_S = 120.0


class _PollingWorker(HueyWorker):
    """Huey's worker thread, but a queue it cannot read (Redis gone) is told by
    the consumer's FaultLog, and polled with a back-off, not logged per poll."""

    faults: FaultLog

    def loop(self, now: Any = None) -> None:
        try:
            task = self.huey.dequeue()
        except Exception as exc:  # noqa: BLE001 - redis and sqlite raise their own errors
            self.faults.failed(exc)
            self.stop_flag.wait(self.faults.backoff_s(self.max_delay, QUEUE_RETRY_CAP_S))
            return
        self.faults.ok()
        if task is None:
            if not self.huey.storage.blocking:
                self.sleep()  # huey's own idle back-off, up to max_delay
            return
        self.delay = self.default_delay
        try:
            self.huey.execute(task, now)
        except Exception:  # one job's failure must not stop the thread
            log.exception("judging job %s failed", task.id)


class _PollingScheduler(Scheduler):
    """Huey's scheduler (it moves delayed tasks to the queue every second; we
    schedule none, but it reads Redis all the same), its failures told by the
    consumer's FaultLog instead of a traceback a second."""

    faults: FaultLog

    def loop(self, now: Any = None) -> None:
        try:
            for task in self.huey.read_schedule(now):
                self.huey.enqueue(task)
        except Exception as exc:  # noqa: BLE001 - redis and sqlite raise their own errors
            self.faults.failed(exc)
        else:
            self.faults.ok()
        self.stop_flag.wait(self.faults.backoff_s(self.interval, QUEUE_RETRY_CAP_S))


class _EmbeddedConsumer(Consumer):
    worker_class = _PollingWorker
    scheduler_class = _PollingScheduler

    def __init__(self, huey: Huey, **kwargs: Any) -> None:
        self.faults = FaultLog(log, "reading the judging queue")
        super().__init__(huey, **kwargs)

    def _create_worker(self) -> _PollingWorker:
        worker = super()._create_worker()
        worker.faults = self.faults  # every thread reports to one log: one line, not one per thread
        return worker

    def _create_scheduler(self) -> _PollingScheduler:
        scheduler = super()._create_scheduler()
        scheduler.faults = self.faults
        return scheduler

    # The web server owns the process's signals; we are stopped from its lifespan.
    def _set_signal_handlers(self) -> None:
        pass


class Reaper:
    """Every `interval_s`, re-queue stale `running` rows and forgotten `queued` ones
    (and purge stale sign-in records)."""

    def __init__(self, runtime: JudgeRuntime, enqueue: Any) -> None:
        self.runtime = runtime
        self.enqueue = enqueue
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="kdojo-reaper", daemon=True)
        self.faults = FaultLog(log, "the reaper's round")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def run_once(self) -> list[int]:
        settings = self.runtime.settings
        with transaction(self.runtime.factory) as session:
            ids = judging.reap(session, stale_after_s=settings.stale_after_s,
                               max_attempts=settings.max_attempts,
                               requeue_queued_after_s=settings.requeue_queued_after_s,
                               queue_name=settings.queue_name)
            housekeeping.purge(session)
        for submission_id in ids:
            self.enqueue(submission_id)
        return ids

    def _loop(self) -> None:
        interval_s = self.runtime.settings.reaper_interval_s
        while not self._stop.wait(self.faults.backoff_s(interval_s, max(interval_s, REAPER_RETRY_CAP_S))):
            try:
                reaped = self.run_once()
            except Exception as exc:  # noqa: BLE001 - the reaper keeps going; the next round retries
                self.faults.failed(exc)
                continue
            self.faults.ok()
            if reaped:
                log.warning("re-queued submissions %s", reaped)


def process_gone(pid_text: str, own_pid_free: bool) -> bool:
    """Whether the process `pid_text` of this host is no longer running.
    `own_pid_free`: no worker of this process has claimed anything yet, so a row
    under our own pid is an earlier process's (a container restarts as pid 1)."""
    try:
        pid = int(pid_text)
    except ValueError:
        return False  # not a worker id of ours: leave it to the reaper
    if pid == os.getpid():
        return own_pid_free
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False


def pool_size(threads: int, backend: str | None, max_pending: int, cpus: int | None = None) -> int:
    """Judging threads: `threads` when set (> 0), else sized to the machine.

    On the emulator a job is CPU work: one thread per core, and always more
    threads than one learner may have pending (`max_pending`), so a learner's
    endless loops can never hold every thread and block everyone else (each
    waits at most its time limit; issue #13). On a GPU one job at a time, so
    timings are not disturbed by a neighbour (one worker per GPU scales out)."""
    if threads > 0:
        return threads
    if targets.timed(backend):
        return 1
    cores = cpus if cpus is not None else (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                           else os.cpu_count() or 1)
    return max(cores, max_pending + 1, 2)


class Worker:
    """A Huey consumer with `threads` judging threads plus a reaper (0: `pool_size`)."""

    _running_here = 0  # Workers of this process started and not stopped (a test may run two)
    _running_lock = threading.Lock()

    def __init__(self, huey: Huey, runtime: JudgeRuntime, enqueue: Any, threads: int) -> None:
        self.huey = huey
        self.runtime = runtime
        self.enqueue = enqueue
        huey.kdojo_runtime = runtime  # type: ignore[attr-defined]
        if threads <= 0:
            from kernels.targets import TargetUnavailable, resolve

            settings = runtime.settings
            try:
                backend: str | None = resolve(settings.judge_backend)
            except TargetUnavailable:
                backend = None  # each job reports it; one thread or many makes no difference
            threads = pool_size(0, backend, settings.max_pending_submissions)
        self.threads = threads
        log.info("judging with %d thread(s)", threads)
        # An idle consumer polls at most every 0.1 s: a submission's verdict is due
        # on screen 0.3 s after submit on a GPU (#13); a poll is one indexed query.
        self.consumer = _EmbeddedConsumer(huey, workers=threads, worker_type="thread",
                                          periodic=False, initial_delay=0.05, max_delay=0.1,
                                          check_worker_health=False, shutdown_timeout=30)
        self.reaper = Reaper(runtime, enqueue)

    def start(self) -> None:
        with Worker._running_lock:
            first_here = Worker._running_here == 0
            Worker._running_here += 1
        self.requeue_orphans(own_pid_free=first_here)
        self.runtime.warm()
        self.consumer.start()
        self.reaper.start()

    def requeue_orphans(self, own_pid_free: bool) -> list[int]:
        """Jobs a previous run of this worker was judging when it died are queued
        again now, not after KDOJO_STALE_AFTER_S (issue #25). A named worker owns
        every row under its name; otherwise a row of this host whose process is gone."""
        runtime = self.runtime
        gone: Callable[[str], bool] = ((lambda _pid: True) if runtime.named
                                       else lambda pid: process_gone(pid, own_pid_free))
        try:
            with transaction(runtime.factory) as session:
                ids = judging.requeue_orphans(session, runtime.identity, gone, runtime.settings.max_attempts)
        except Exception as exc:  # noqa: BLE001 - the reaper will find them later
            log.warning("re-queuing the jobs of this worker's previous run failed (%s: %s); the reaper "
                        "re-queues them after %g s", type(exc).__name__, exc, runtime.settings.stale_after_s)
            return []
        for submission_id in ids:
            self.enqueue(submission_id)
        if ids:
            log.warning("re-queued submissions %s that a previous run of this worker was judging", ids)
        return ids

    def stop(self) -> None:
        self.reaper.stop()
        self.consumer.stop(graceful=True)
        self.runtime.close()
        with Worker._running_lock:
            Worker._running_here -= 1
