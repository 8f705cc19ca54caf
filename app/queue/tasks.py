"""The judging task and the runtime it runs in.

A job means "judge the next fair submission of this queue": the worker claims
whichever queued row the fair queue puts first (app/services/fairqueue.py),
reads everything else from the database (the source of truth), judges it with
one `kernels.judge.Judge` per worker thread, and stores the result through
app.services.judging. The job still carries the id of the submission that
caused it, for the log only: one job is enqueued per queued row, so every row
is claimed by some job, in the fair order rather than the order of the jobs.

On a GPU the ncu profile is not part of that (#26): the result is stored
first, then a `profile_submission` task makes the profile when no judging
task waits, and stores it into the same row (`judging.store_profile`, event
`profiled`). A judging task stops a profile in flight; the profile is tried
again later (PROFILE_TRIES in all).
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import threading
import time
from typing import Any

from huey import Huey
from huey.api import TaskWrapper
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.content import Catalog
from app.db import DatabaseBusy, transaction
from app.metrics import Metrics
from app.models import Submission, utcnow
from app.queue.event_writer import EventWriter
from app.services import judging
from app.services.events import add_event, judge_event_to_stage
from app.settings import Settings
from kernels import languages
from kernels.contract import Event

log = logging.getLogger("kdojo.worker")
TASK_NAME = "judge_submission"
PROFILE_TASK_NAME = "profile_submission"
PROFILE_TRIES = 150  # a profile put off by waiting or arriving submissions: 5 minutes of tries
PROFILE_RETRY_S = 2.0
FINISH_TRIES = 3  # each waits up to the write lock's timeout (app.db)


class JudgeRuntime:
    """What a worker needs: settings, the database, the catalog, judges per thread."""

    def __init__(self, settings: Settings, factory: sessionmaker[Session], catalog: Catalog | None,
                 name: str | None = None, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.factory = factory
        self.catalog = catalog  # None: verdicts are stored but award no XP (no lessons known)
        # Rows claimed read `identity:pid:thread`. The identity is the host, or the
        # name an operator gave this worker (`kdojo worker --name`), unique among
        # the running workers: it finds its own interrupted jobs again at start.
        self.identity = name or socket.gethostname()
        self.named = bool(name)
        self.worker_id = f"{self.identity}:{os.getpid()}"
        # Idle judges. A job borrows one and gives it back, so there are never more
        # judges than judging threads, each with its pre-warmed spare process.
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._judges: list[Any] = []
        self._lock = threading.Lock()
        self._warming: threading.Thread | None = None
        self.judging = 0  # judging tasks in flight here: a profile waits for none
        # progress events go through here, so storing one never holds up the judge (#25)
        self.events = EventWriter(factory)
        self.events.start()

    def _new_judge(self) -> Any:
        from kernels.judge import Judge  # the web may import kernels, never the reverse

        judge = Judge(self.settings.lessons_dir, backend=self.settings.judge_backend, defer_profile=True)
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

    def _borrow(self, wait_s: float = 0.0) -> Any:
        if self._warming is not None and self._warming.is_alive():
            self._warming.join(timeout=120)  # the judge being warmed is the one to use
        try:
            return self._idle.get(timeout=wait_s) if wait_s else self._idle.get_nowait()
        except queue.Empty:
            return self._new_judge()

    def _preempt_profiles(self) -> bool:
        """Stop every deferred profile in flight here; True if one was."""
        with self._lock:
            judges = list(self._judges)
        stopped = [judge.cancel_profile() for judge in judges]  # every one, not the first
        return any(stopped)

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

    def judge_next(self, profile_later: Any = None) -> int | None:
        """Claim and judge the next fair submission of our queue; its id, or None
        when nothing waits (a duplicate job, or its row was taken by an earlier one).
        `profile_later(submission_id, attempt)` is called when the result left its
        profile for later."""
        with self._lock:
            self.judging += 1
        try:
            return self._judge_next(profile_later)
        finally:
            with self._lock:
                self.judging -= 1

    def _judge_next(self, profile_later: Any) -> int | None:
        worker_id = f"{self.worker_id}:{threading.get_ident()}"
        with transaction(self.factory) as session:
            claimed = judging.claim_next(session, self.settings.queue_name, worker_id)
            if claimed is None:
                return None
            submission_id, attempt = claimed
            submission = session.get(Submission, submission_id)
            assert submission is not None
            source, exercise_id, mode = submission.source, submission.exercise_id, submission.mode
            language = submission.language
            created_at = submission.created_at
        beat = _Heartbeat(self.factory, submission_id, attempt, self.settings.heartbeat_s)
        beat.start()
        started = time.monotonic()
        self.events.begin(submission_id)
        try:
            result, wants_profile = self._run_judge(submission_id, source, exercise_id, mode, language)
        finally:
            beat.stop()
            self.events.end(submission_id)  # its progress is stored (or dropped) before `done`
        judge_s = time.monotonic() - started
        if not self._store_verdict(submission_id, attempt, result,
                                   profile_follows=wants_profile and profile_later is not None):
            return submission_id
        turnaround_s = (utcnow() - created_at).total_seconds() if created_at else None
        self.metrics.judged(str(result.get("verdict")), judge_s, turnaround_s)
        if wants_profile and profile_later is not None:
            profile_later(submission_id, attempt)
        return submission_id

    def _store_verdict(self, submission_id: int, attempt: int, result: dict[str, Any],
                       profile_follows: bool = False) -> bool:
        """Store the verdict, retrying while the database is busy: the kernel was judged,
        and judging it again (the reaper's way) would cost its learner the wait. False
        when the attempt lost its row (the reaper gave it to another attempt)."""
        for left in range(FINISH_TRIES - 1, -1, -1):
            try:
                with transaction(self.factory) as session:
                    if not judging.finish(session, submission_id, attempt, result, self.catalog,
                                          profile_follows=profile_follows):
                        log.warning("submission %s attempt %s lost its row; result dropped",
                                    submission_id, attempt)
                        return False
                return True
            except (DatabaseBusy, OperationalError):
                if left == 0:
                    raise  # the row stays `running`; the reaper has it judged again
                log.warning("storing the verdict of submission %s failed (database busy); retrying",
                            submission_id)
        return False

    def profile_submission(self, submission_id: int, attempt: int) -> str:
        """Make and store a deferred profile: "stored", "gone" (the row moved on or the
        profiler gave nothing) or "preempted" (a judging task stopped it: try later)."""
        with transaction(self.factory) as session:
            row = session.get(Submission, submission_id)
            if row is None or row.status != "done" or row.attempts != attempt or not row.result:
                return "gone"
            source, exercise_id, language = row.source, row.exercise_id, row.language
            benchmark = row.result.get("benchmark")
            add_event(session, submission_id, Event.PROFILING, {})
        judge = self._borrow()
        try:
            found = judge.profile(source, exercise_id, benchmark, language=language)
        finally:
            self._idle.put(judge)
        if found is None:
            if self.judging:
                return "preempted"
            self.profile_given_up(submission_id, attempt)
            return "gone"
        with transaction(self.factory) as session:
            return "stored" if judging.store_profile(session, submission_id, attempt, found) else "gone"

    def profile_given_up(self, submission_id: int, attempt: int) -> None:
        """Tell an open page that the deferred profile will not come (`profiled`, no source)."""
        with transaction(self.factory) as session:
            judging.profile_missed(session, submission_id, attempt)

    def _run_judge(self, submission_id: int, source: str, exercise_id: str,
                   mode: str, language: str = "cuda") -> tuple[dict[str, Any], bool]:
        def on_event(event: dict[str, Any]) -> None:
            mapped = judge_event_to_stage(event)
            if mapped is not None:
                self.events.put(submission_id, mapped[0], mapped[1])

        judge = None
        try:
            # a profile in flight stops; its judge comes back to the idle ones at once
            judge = self._borrow(wait_s=5.0 if self._preempt_profiles() else 0.0)
            try:
                result = judge.run(source, exercise_id, bench=(mode == "submit"), on_event=on_event,
                                   language=language)
                return result, judge.wants_profile(result)
            finally:
                self._idle.put(judge)
        except Exception as exc:  # noqa: BLE001 - any judge failure is ours, reported as such
            log.exception("judging submission %s failed", submission_id)
            return judging.internal_error_result(
                exercise_id, f"The judge failed ({type(exc).__name__}); this is our fault, not yours.",
                backend=judge.backend if judge is not None else None,
                language=language if language in languages.NAMES else "cuda",
            ), False


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

    def runtime_of() -> JudgeRuntime:
        runtime: JudgeRuntime | None = getattr(huey, "kdojo_runtime", None)
        if runtime is None:
            raise RuntimeError("this process runs no judge worker")
        return runtime

    @huey.task(name=PROFILE_TASK_NAME)
    def profile_submission(submission_id: int, attempt: int, tries: int = 1) -> None:
        runtime = runtime_of()
        waiting = runtime.judging > 0 or any(t.name == TASK_NAME for t in huey.pending())
        outcome = "preempted" if waiting else runtime.profile_submission(submission_id, attempt)
        if outcome == "preempted" and tries < PROFILE_TRIES:
            profile_submission.schedule((submission_id, attempt, tries + 1), delay=PROFILE_RETRY_S)
        elif outcome == "preempted":
            runtime.profile_given_up(submission_id, attempt)

    @huey.task(name=TASK_NAME)
    def judge_submission(submission_id: int) -> None:
        # `submission_id` only says which row's arrival caused this job (see the module's doc).
        judged = runtime_of().judge_next(profile_later=profile_submission)
        if judged is not None and judged != submission_id:
            log.debug("job for submission %s judged submission %s (the fair queue's next)", submission_id, judged)

    return judge_submission
