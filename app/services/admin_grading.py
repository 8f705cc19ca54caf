"""Grading for admins: list and read submissions, regrade, override, flag.

A regrade archives the current verdict in `submission_grades` and puts the row
back to `queued`: the worker claims it as a new attempt (app/services/judging.py),
so the attempt history and the earlier verdicts are both kept. A regrade never
takes XP back (awards are once-only); an override can.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.models import (
    GradeOverride,
    Submission,
    SubmissionAttempt,
    SubmissionGrade,
    User,
    XpAward,
    utcnow,
)
from app.services import admin_audit, fairqueue
from app.services.admin_audit import Actor
from app.services.errors import Conflict, Invalid, NotFound
from app.services.events import add_event
from kernels.contract import Event

VERDICTS = ("accepted", "wrong_answer", "compile_error", "runtime_error", "time_limit_exceeded",
            "memory_limit_exceeded", "rejected", "internal_error")
MAX_PAGE = 200


@dataclass(frozen=True)
class SubmissionFilter:
    learner: str | None = None  # e-mail, or a user id
    exercise: str | None = None
    verdict: str | None = None
    backend: str | None = None
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    flagged: bool | None = None
    language: str | None = None  # a kernel language (#29)


def _filtered(f: SubmissionFilter) -> Any:
    query = select(Submission, User.email).outerjoin(User, User.id == Submission.user_id)
    if f.learner:
        query = query.where(User.id == int(f.learner)) if f.learner.isdigit() \
            else query.where(User.email == f.learner.strip().lower())
    if f.exercise:
        query = query.where(Submission.exercise_id == f.exercise)
    if f.verdict:
        query = query.where(Submission.verdict == f.verdict)
    if f.language:
        query = query.where(Submission.language == f.language)
    if f.backend:
        query = query.where(Submission.result["backend"].as_string() == f.backend)
    if f.since:
        query = query.where(Submission.created_at >= f.since)
    if f.until:
        query = query.where(Submission.created_at < f.until)
    if f.flagged is not None:
        query = query.where(Submission.flagged.is_(f.flagged))
    return query


def list_submissions(session: Session, f: SubmissionFilter, page: int, per_page: int) -> dict[str, Any]:
    if page < 1 or not 1 <= per_page <= MAX_PAGE:
        raise Invalid(f"page must be >= 1 and per_page between 1 and {MAX_PAGE}")
    query = _filtered(f)
    total = int(session.scalar(select(func.count()).select_from(query.subquery())) or 0)
    rows = session.execute(query.order_by(Submission.id.desc()).offset((page - 1) * per_page).limit(per_page))
    return {"total": total, "page": page, "per_page": per_page,
            "items": [summary(row, email) for row, email in rows]}


def summary(row: Submission, email: str | None) -> dict[str, Any]:
    result = row.result or {}
    return {
        "id": row.id, "learner": email, "user_id": row.user_id, "exercise_id": row.exercise_id,
        "language": row.language, "mode": row.mode, "status": row.status, "verdict": row.verdict,
        "backend": result.get("backend") or None, "xp_awarded": row.xp_awarded,
        "attempts": row.attempts, "flagged": row.flagged,
        "created_at": _iso(row.created_at), "finished_at": _iso(row.finished_at),
    }


def detail(session: Session, submission_id: int) -> dict[str, Any]:
    row = _get(session, submission_id)
    email = session.scalar(select(User.email).where(User.id == row.user_id)) if row.user_id else None
    attempts = session.scalars(select(SubmissionAttempt).where(SubmissionAttempt.submission_id == row.id)
                               .order_by(SubmissionAttempt.attempt))
    grades = session.scalars(select(SubmissionGrade).where(SubmissionGrade.submission_id == row.id)
                             .order_by(SubmissionGrade.id))
    overrides = session.scalars(select(GradeOverride).where(GradeOverride.submission_id == row.id)
                                .order_by(GradeOverride.id))
    return {
        **summary(row, email), "source": row.source, "result": row.result,
        "attempt_history": [{"attempt": a.attempt, "worker_id": a.worker_id, "outcome": a.outcome,
                             "started_at": _iso(a.started_at), "finished_at": _iso(a.finished_at)}
                            for a in attempts],
        "previous_grades": [{"attempt": g.attempt, "verdict": g.verdict, "xp_awarded": g.xp_awarded,
                             "replaced_by": g.replaced_by, "reason": g.reason, "result": g.result,
                             "at": _iso(g.created_at)} for g in grades],
        "overrides": [{"verdict": o.verdict, "xp": o.xp, "reason": o.reason, "at": _iso(o.created_at)}
                      for o in overrides],
    }


def regrade(session: Session, actor: Actor, submission_id: int, reason: str = "",
            queue_name: str | None = None) -> Submission:
    """Archive the current verdict and queue the submission again (a new attempt), in
    the staff lane of the fair queue (app/services/fairqueue.py) and, when given, in
    `queue_name` (the queue the asking process enqueues to)."""
    row = _get(session, submission_id)
    if row.status != "done":
        raise Conflict(f"Submission {submission_id} is {row.status}; regrade it once it is done.")
    previous_verdict = row.verdict
    queue = queue_name or row.queue_name
    _archive(session, row, "regrade", reason)
    session.execute(
        update(Submission).where(Submission.id == row.id)
        .values(status="queued", verdict=None, result=None, finished_at=None, worker_id="",
                heartbeat_at=utcnow(), xp_awarded=0, achievements=[], queue_name=queue,
                fair_key=fairqueue.STAFF_KEY, fair_tag=fairqueue.next_tag(session, queue, fairqueue.STAFF_KEY))
    )
    add_event(session, row.id, Event.QUEUED, {"position": 0, "regrade": True})
    admin_audit.record(session, actor, "submission.regrade", "submission", row.id, reason,
                       previous_verdict=previous_verdict)
    return row


def regrade_exercise(session: Session, actor: Actor, exercise_id: str, reason: str = "",
                     queue_name: str | None = None) -> list[int]:
    """Queue every finished submission of an exercise again; returns their ids."""
    ids = list(session.scalars(select(Submission.id).where(
        Submission.exercise_id == exercise_id, Submission.status == "done").order_by(Submission.id)))
    if not ids:
        raise NotFound(f"There are no finished submissions of {exercise_id!r}.")
    for submission_id in ids:
        regrade(session, actor, submission_id, reason, queue_name)
    admin_audit.record(session, actor, "exercise.regrade", "exercise", exercise_id, reason, count=len(ids))
    return ids


def override(session: Session, actor: Actor, submission_id: int, verdict: str | None, xp: int | None,
             reason: str) -> Submission:
    """Set a verdict and/or the XP this submission earned; `reason` is required."""
    if not reason.strip():
        raise Invalid("An override needs a reason.")
    if verdict is None and xp is None:
        raise Invalid("Give a verdict, an XP value, or both.")
    if verdict is not None and verdict not in VERDICTS:
        raise Invalid(f"verdict must be one of {', '.join(VERDICTS)}")
    if xp is not None and not 0 <= xp <= 100_000:
        raise Invalid("xp must be between 0 and 100000")
    row = _get(session, submission_id)
    if row.status != "done":
        raise Conflict(f"Submission {submission_id} is {row.status}; override it once it is done.")
    _archive(session, row, "override", reason)
    previous = {"verdict": row.verdict, "xp_awarded": row.xp_awarded}
    if verdict is not None:
        row.verdict = verdict
    if xp is not None:
        _adjust_xp(session, row, xp)
    session.add(GradeOverride(submission_id=row.id, verdict=verdict, xp=xp, reason=reason,
                              actor_id=actor.user_id))
    admin_audit.record(session, actor, "submission.override", "submission", row.id, reason,
                       previous=previous, verdict=verdict, xp=xp)
    session.flush()
    return row


def _adjust_xp(session: Session, row: Submission, xp: int) -> None:
    # XP is the sum of xp_awards rows; an override is one more row per submission
    # (its key names the exercise, so the grades export counts it there).
    if row.user_id is None:
        raise Invalid("An anonymous submission has no XP to override.")
    key = f"override:{row.exercise_id}:{row.id}"
    earlier = session.scalar(select(XpAward).where(XpAward.user_id == row.user_id, XpAward.key == key))
    base = row.xp_awarded - (earlier.xp if earlier else 0)
    if earlier is None:
        session.add(XpAward(user_id=row.user_id, key=key, xp=xp - base, submission_id=row.id,
                            language=row.language))
    else:
        earlier.xp = xp - base
    row.xp_awarded = xp


def flag(session: Session, actor: Actor, submission_id: int, suspicious: bool, reason: str) -> Submission:
    """Mark a submission suspicious (kept, but off the leaderboards) or clear the mark."""
    if not reason.strip():
        raise Invalid("Flagging needs a reason.")
    row = _get(session, submission_id)
    row.flagged = suspicious
    admin_audit.record(session, actor, "submission.flag" if suspicious else "submission.unflag",
                       "submission", row.id, reason)
    session.flush()
    return row


def _archive(session: Session, row: Submission, replaced_by: str, reason: str) -> None:
    session.add(SubmissionGrade(submission_id=row.id, attempt=row.attempts, verdict=row.verdict,
                                result=row.result, xp_awarded=row.xp_awarded,
                                replaced_by=replaced_by, reason=reason))


def _get(session: Session, submission_id: int) -> Submission:
    row = session.get(Submission, submission_id)
    if row is None:
        raise NotFound(f"There is no submission {submission_id}.")
    return row


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() + "Z" if value else None
