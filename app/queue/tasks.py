"""The judging task and the runtime it runs in.

The task carries only a submission id; the worker reads everything else from
the database (the source of truth), judges it with one `kernels.judge.Judge`
per worker thread, and stores the result through app.services.judging.
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import threading
from typing import Any

from huey import Huey
from huey.api import TaskWrapper
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.db import DatabaseBusy, transaction
from app.models import Submission
from app.queue.event_writer import EventWriter
from app.services import judging
from app.services.events import judge_event_to_stage
from app.settings import Settings

log = logging.getLogger("kdojo.worker")
TASK_NAME = "judge_submission"
FINISH_TRIES = 3  # each waits up to the write lock's timeout (app.db)


class JudgeRuntime:
    """What a worker needs: settings, the database, the catalog, judges per thread."""

    def __init__(self, settings: Settings, factory: sessionmaker[Session], catalog: Any) -> None:
        self.settings = settings
        self.factory = factory
        self.catalog = catalog
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}"
        # Idle judges. A job borrows one and gives it back, so there are never more
        # judges than judging threads, each with its pre-warmed spare process.
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._judges: list[Any] = []
        self._lock = threading.Lock()
        self._warming: threading.Thread | None = None
        # progress events go through here, so storing one never holds up the judge (#25)
        self.events = EventWriter(factory)
        self.events.start()

    def _new_judge(self) -> Any:
        from kernels.judge import Judge  # the web may import kernels, never the reverse

        judge = Judge(self.settings.lessons_dir, backend=self.settings.judge_backend)
        with self._lock:
            self._judges.append(judge)
        return judge

    def warm(self) -> None:
        """Start one judge (and its spare process) in the background, so the first
        submission does not wait for imports and a CUDA context."""

        def start() -> None:
            try:
                self._idle.put(self._new_judge())
            except Exception as exc:  # noqa: BLE001 - each job will report it as internal_error
                log.warning("the judge cannot start: %s", exc)

        self._warming = threading.Thread(target=start, name="kdojo-judge-warm", daemon=True)
        self._warming.start()

    def _borrow(self) -> Any:
        if self._warming is not None and self._warming.is_alive():
            self._warming.join(timeout=120)  # the judge being warmed is the one to use
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            return self._new_judge()

    def close(self) -> None:
        self.events.stop()
        if self._warming is not None:
            self._warming.join(timeout=120)  # a judge still starting would leak its spare
        with self._lock:
            judges, self._judges = self._judges, []
        for judge in judges:
            try:
                judge.close()
            except Exception:  # noqa: BLE001 - closing must not stop shutdown
                log.exception("closing a judge failed")

    def judge_submission(self, submission_id: int) -> None:
        worker_id = f"{self.worker_id}:{threading.get_ident()}"
        with transaction(self.factory) as session:
            attempt = judging.claim(session, submission_id, worker_id)
            if attempt is None:
                return  # taken by another worker, finished, or unknown: nothing to do
            submission = session.get(Submission, submission_id)
            assert submission is not None
            source, exercise_id, mode = submission.source, submission.exercise_id, submission.mode
        beat = _Heartbeat(self.factory, submission_id, attempt, self.settings.heartbeat_s)
        beat.start()
        self.events.begin(submission_id)
        try:
            result = self._run_judge(submission_id, source, exercise_id, mode)
        finally:
            beat.stop()
            self.events.end(submission_id)  # its progress is stored (or dropped) before `done`
        self._store_verdict(submission_id, attempt, result)

    def _store_verdict(self, submission_id: int, attempt: int, result: dict[str, Any]) -> None:
        """Store the verdict, retrying while the database is busy: the kernel was judged,
        and judging it again (the reaper's way) would cost its learner the wait."""
        for left in range(FINISH_TRIES - 1, -1, -1):
            try:
                with transaction(self.factory) as session:
                    if not judging.finish(session, submission_id, attempt, result, self.catalog):
                        log.warning("submission %s attempt %s lost its row; result dropped",
                                    submission_id, attempt)
                return
            except (DatabaseBusy, OperationalError):
                if left == 0:
                    raise  # the row stays `running`; the reaper has it judged again
                log.warning("storing the verdict of submission %s failed (database busy); retrying",
                            submission_id)

    def _run_judge(self, submission_id: int, source: str, exercise_id: str, mode: str) -> dict[str, Any]:
        def on_event(event: dict[str, Any]) -> None:
            mapped = judge_event_to_stage(event)
            if mapped is not None:
                self.events.put(submission_id, mapped[0], mapped[1])

        try:
            judge = self._borrow()
            try:
                return judge.run(source, exercise_id, bench=(mode == "submit"), on_event=on_event)
            finally:
                self._idle.put(judge)
        except Exception as exc:  # noqa: BLE001 - any judge failure is ours, reported as such
            log.exception("judging submission %s failed", submission_id)
            return judging.internal_error_result(
                exercise_id, f"The judge failed ({type(exc).__name__}); this is our fault, not yours."
            )


class _Heartbeat:
    """Refreshes the row's heartbeat while the judge runs, so the reaper knows we live."""

    def __init__(self, factory: sessionmaker[Session], submission_id: int, attempt: int, every_s: float) -> None:
        self.factory, self.submission_id, self.attempt, self.every_s = factory, submission_id, attempt, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{submission_id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                with transaction(self.factory) as session:
                    if not judging.heartbeat(session, self.submission_id, self.attempt):
                        return
            except Exception:  # noqa: BLE001 - a missed beat is retried next interval
                log.exception("heartbeat of submission %s failed", self.submission_id)


def register(huey: Huey) -> TaskWrapper:
    """Register the judging task on `huey`. Enqueuing needs only this; running it
    needs `huey.kdojo_runtime` (set by the embedded or stand-alone worker)."""

    @huey.task(name=TASK_NAME)
    def judge_submission(submission_id: int) -> None:
        runtime: JudgeRuntime | None = getattr(huey, "kdojo_runtime", None)
        if runtime is None:
            raise RuntimeError("this process runs no judge worker")
        runtime.judge_submission(submission_id)

    return judge_submission
