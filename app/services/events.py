"""Stage events of a submission, stored in the database.

Any process can serve a submission's SSE stream from this table, and a client
that reconnects with `Last-Event-ID: n` resumes after event n (ids are the
per-submission `seq`, 1, 2, 3, …).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.models import SubmissionEvent

STAGES = ("queued", "compiling", "testing", "benchmarking", "done")


def add_event(session: Session, submission_id: int, event: str, data: dict[str, Any] | None = None) -> int:
    """Append an event; returns its seq. Writers of one submission are serialized
    (one worker holds it), and (submission_id, seq) is unique besides."""
    last = session.scalar(
        select(func.coalesce(func.max(SubmissionEvent.seq), 0))
        .where(SubmissionEvent.submission_id == submission_id)
    ) or 0
    seq = int(last) + 1
    session.add(SubmissionEvent(submission_id=submission_id, seq=seq, event=event, data=data or {}))
    session.flush()
    return seq


def events_after(session: Session, submission_id: int, after_seq: int) -> list[SubmissionEvent]:
    return list(
        session.scalars(
            select(SubmissionEvent)
            .where(SubmissionEvent.submission_id == submission_id, SubmissionEvent.seq > after_seq)
            .order_by(SubmissionEvent.seq)
        )
    )


def judge_event_to_stage(event: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """Map a judge callback event to a stored stage event; the judge's own `done`
    is dropped because the worker emits `done` after storing XP."""
    stage = event.get("stage")
    if stage not in ("compiling", "test_start", "testing", "tested", "benchmarking", "profiling"):
        return None
    data = {k: v for k, v in event.items() if k != "stage"}
    return stage, data
