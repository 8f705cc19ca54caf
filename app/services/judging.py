"""The worker's side of a submission: claim, heartbeat, store the verdict, reap.

Huey delivers a job at most once and a worker can die mid-job, so the row is
the truth. A worker *claims* a queued row (status queued → running, attempts
+1) with one conditional UPDATE; only the holder of that attempt can store the
verdict (another conditional UPDATE), so a late, presumed-dead worker cannot
overwrite a newer attempt, and a verdict is stored once.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.content import Catalog
from app.models import Submission, SubmissionAttempt, utcnow
from app.services import awards, fairqueue
from app.services.events import add_event
from kernels import contract
from kernels.contract import Event


def claim_next(session: Session, queue_name: str, worker_id: str) -> tuple[int, int] | None:
    """Take the queued submission of `queue_name` that the fair queue puts first
    (app/services/fairqueue.py); returns (submission id, attempt), or None when
    nothing waits. What a worker does for every job it gets: the job does not
    say which row, so a lost or duplicate job changes no one's turn."""
    for _ in range(CLAIM_TRIES):
        submission_id = fairqueue.next_queued(session, queue_name)
        if submission_id is None:
            return None
        attempt = claim(session, submission_id, worker_id)
        if attempt is not None:
            return submission_id, attempt
    return None


# next_queued locks (PostgreSQL) or write-locks (SQLite) the row it returns, so the
# first claim wins; the retries are a belt for a database that does neither.
CLAIM_TRIES = 3


def claim(session: Session, submission_id: int, worker_id: str) -> int | None:
    """Take a queued submission; returns the attempt number, or None if it is
    not queued (already taken, done, or unknown)."""
    taken = session.execute(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status == "queued")
        .values(status="running", attempts=Submission.attempts + 1,
                worker_id=worker_id, heartbeat_at=utcnow())
    )
    if taken.rowcount != 1:
        return None
    attempt = int(session.scalar(select(Submission.attempts).where(Submission.id == submission_id)))
    session.add(SubmissionAttempt(submission_id=submission_id, attempt=attempt, worker_id=worker_id))
    session.flush()
    return attempt


def heartbeat(session: Session, submission_id: int, attempt: int) -> bool:
    """Refresh the heartbeat; False when this attempt no longer holds the row."""
    beat = session.execute(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status == "running",
               Submission.attempts == attempt)
        .values(heartbeat_at=utcnow())
    )
    return beat.rowcount == 1


def finish(
    session: Session, submission_id: int, attempt: int, result: dict[str, Any], catalog: Catalog | None,
    profile_follows: bool = False,
) -> bool:
    """Store the judge's result for this attempt, award XP and achievements, emit
    `done` (with `profile_follows` when a deferred GPU profile is to come, #26).
    Returns False (and changes nothing) when the attempt lost the row."""
    values: dict[str, Any] = {"status": "done", "verdict": str(result.get("verdict", "internal_error")),
                              "result": result, "finished_at": utcnow()}
    if ((result.get("benchmark") or {}).get("refused")):
        values["flagged"] = True  # a time below the GPU's physical floor: off the leaderboard, for review (#26)
    stored = session.execute(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status == "running",
               Submission.attempts == attempt)
        .values(**values)
    )
    if stored.rowcount != 1:
        return False
    _close_attempt(session, submission_id, attempt, "done")
    submission = session.get(Submission, submission_id)
    assert submission is not None
    session.refresh(submission)
    xp_gained, unlocked = awards.apply_verdict(session, submission, catalog)
    submission.xp_awarded = xp_gained
    submission.achievements = unlocked
    done = {"verdict": submission.verdict, "xp_awarded": xp_gained, "achievements": unlocked}
    add_event(session, submission_id, Event.DONE, {**done, "profile_follows": True} if profile_follows else done)
    return True


def store_profile(session: Session, submission_id: int, attempt: int, profile: dict[str, Any]) -> bool:
    """Add a profile made after the result (#26) to that result, and emit `profiled`.
    False (nothing changed) when the row was judged again or is gone meanwhile."""
    row = session.get(Submission, submission_id)
    if row is None or row.status != "done" or row.attempts != attempt or not row.result:
        return False
    row.result = {**row.result, "profile": profile}  # a new object: the JSON column sees the change
    add_event(session, submission_id, Event.PROFILED, {"source": profile.get("source")})
    return True


def profile_missed(session: Session, submission_id: int, attempt: int) -> bool:
    """The deferred profile will not come (the profiler gave nothing, or every try was
    stopped by judging): emit `profiled` without a source, so an open page stops
    waiting. False when the row was judged again, is gone, or has its profile."""
    row = session.get(Submission, submission_id)
    if row is None or row.status != "done" or row.attempts != attempt or not row.result or "profile" in row.result:
        return False
    add_event(session, submission_id, Event.PROFILED, {"source": None})
    return True


def _close_attempt(session: Session, submission_id: int, attempt: int, outcome: str) -> None:
    session.execute(
        update(SubmissionAttempt)
        .where(SubmissionAttempt.submission_id == submission_id, SubmissionAttempt.attempt == attempt)
        .values(outcome=outcome, finished_at=utcnow())
    )


def internal_error_result(exercise_id: str, message: str, backend: str | None = None,
                          language: str = "cuda") -> dict[str, Any]:
    """A valid v1 result for when judging itself failed (never the learner's fault);
    `backend` is the judge's target where one was reached (kernels.contract)."""
    return contract.internal_error_document(exercise_id, message, backend=backend, language=language)


def reap(
    session: Session, *, stale_after_s: float, max_attempts: int, requeue_queued_after_s: float,
    queue_name: str | None = None,
) -> list[int]:
    """Recover from dead workers and lost jobs; returns submission ids to enqueue
    (one job each: a job judges the next fair row of the queue, see claim_next).

    A `running` row whose heartbeat is older than `stale_after_s` goes back to
    `queued` (or, after `max_attempts`, is finished as internal_error). A
    `queued` row nobody took for `requeue_queued_after_s` is enqueued again (a
    duplicate job is harmless: a job that finds nothing queued does nothing).
    With `queue_name`, only that queue's rows: a process enqueues to its own queue."""
    now = utcnow()
    to_enqueue: list[int] = []
    in_queue = (Submission.queue_name == queue_name,) if queue_name is not None else ()
    stale = session.execute(
        select(Submission.id, Submission.attempts, Submission.exercise_id)
        .where(Submission.status == "running", *in_queue,
               Submission.heartbeat_at < now - dt.timedelta(seconds=stale_after_s))
    ).all()
    for sub_id, attempt, exercise_id in stale:
        if _requeue_stale(session, sub_id, attempt, exercise_id, max_attempts, now):
            to_enqueue.append(sub_id)
    forgotten = session.scalars(
        select(Submission.id)
        .where(Submission.status == "queued", *in_queue,
               Submission.heartbeat_at < now - dt.timedelta(seconds=requeue_queued_after_s))
    ).all()
    for sub_id in forgotten:
        session.execute(update(Submission).where(Submission.id == sub_id).values(heartbeat_at=now))
        to_enqueue.append(sub_id)
    return to_enqueue


def requeue_orphans(session: Session, identity: str, gone: Callable[[str], bool], max_attempts: int) -> list[int]:
    """At a worker's start: `running` rows claimed under `identity` (worker ids
    read `identity:pid:thread`) whose claiming process `gone(pid)` says is dead
    go back to `queued` now, as the reaper would after the stale timeout (attempt
    marked `stale`); returns the ids to enqueue."""
    pattern = identity.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ":%"
    rows = session.execute(
        select(Submission.id, Submission.attempts, Submission.exercise_id, Submission.worker_id)
        .where(Submission.status == "running", Submission.worker_id.like(pattern, escape="\\"))
    ).all()
    now = utcnow()
    to_enqueue = []
    for sub_id, attempt, exercise_id, worker_id in rows:
        pid = worker_id[len(identity) + 1:].split(":", 1)[0]
        if gone(pid) and _requeue_stale(session, sub_id, attempt, exercise_id, max_attempts, now):
            to_enqueue.append(sub_id)
    return to_enqueue


def _requeue_stale(
    session: Session, sub_id: int, attempt: int, exercise_id: str, max_attempts: int, now: dt.datetime
) -> bool:
    if attempt >= max_attempts:
        result = internal_error_result(
            exercise_id, f"The judge stopped responding {attempt} times; this is our fault, not yours."
        )
        values: dict[str, Any] = {"status": "done", "verdict": "internal_error", "result": result,
                                  "finished_at": now}
    else:
        values = {"status": "queued", "heartbeat_at": now, "worker_id": ""}
    moved = session.execute(
        update(Submission)
        .where(Submission.id == sub_id, Submission.status == "running", Submission.attempts == attempt)
        .values(**values)
    )
    if moved.rowcount != 1:
        return False
    _close_attempt(session, sub_id, attempt, "stale")
    if values["status"] == "done":
        add_event(session, sub_id, Event.DONE, {"verdict": "internal_error", "xp_awarded": 0, "achievements": []})
        return False
    add_event(session, sub_id, Event.QUEUED, {"position": 0, "requeued": True})
    return True


def mark_enqueued(session: Session, submission_id: int) -> None:
    session.execute(update(Submission).where(Submission.id == submission_id).values(heartbeat_at=utcnow()))
