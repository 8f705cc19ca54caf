"""Stage events of a submission, stored in the database.

Any process can serve a submission's SSE stream from this table, and a client
that reconnects with `Last-Event-ID: n` resumes after event n (ids are the
per-submission `seq`, 1, 2, 3, …).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Integer, String, column, func, select, text
from sqlalchemy.orm import Session

from app.models import Submission, SubmissionEvent
from kernels.contract import STORED_FROM_JUDGE, STREAMED, Event

def add_event(session: Session, submission_id: int, event: Event, data: dict[str, Any] | None = None) -> int:
    """Append an event; returns its seq. Writers of one submission are serialized
    (one worker holds it), and (submission_id, seq) is unique besides. Raises ValueError
    for a name that is not an event of the stream (kernels.contract.STREAMED)."""
    if event not in STREAMED:
        raise ValueError(f"{event!r} is not an event of the stream (kernels.contract.Event)")
    last = session.scalar(
        select(func.coalesce(func.max(SubmissionEvent.seq), 0))
        .where(SubmissionEvent.submission_id == submission_id)
    ) or 0
    seq = int(last) + 1
    session.add(SubmissionEvent(submission_id=submission_id, seq=seq, event=str(event), data=data or {}))
    session.flush()
    return seq


def judge_event_to_stage(event: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """Map a judge callback event to a stored stage event; the judge's own `done`
    is dropped because the worker emits `done` after storing XP."""
    stage = event.get("stage")
    if stage not in STORED_FROM_JUDGE:
        return None
    data = {k: v for k, v in event.items() if k != "stage"}
    return str(stage), data


def events_after_many(session: Session, cursors: dict[int, int]) -> list[tuple[int, int, str, dict[str, Any]]]:
    """(submission_id, seq, event, data) of the events after each submission's cursor,
    for many submissions in one query (the stream poller's, issue #25)."""
    if not cursors:
        return []
    params: dict[str, int] = {}
    rows = []
    for i, (submission_id, after) in enumerate(cursors.items()):
        params[f"s{i}"], params[f"a{i}"] = submission_id, after
        rows.append(f"(:s{i}, :a{i})")
    # A VALUES list of cursors joined on the (submission_id, seq) unique index:
    # both SQLite and PostgreSQL read only the rows after each cursor.
    stmt = text(
        f"WITH cursors(sid, after_seq) AS (VALUES {', '.join(rows)}) "
        "SELECT e.submission_id, e.seq, e.event, e.data FROM submission_events e "
        "JOIN cursors c ON e.submission_id = c.sid AND e.seq > c.after_seq "
        "ORDER BY e.submission_id, e.seq"
    ).columns(column("submission_id", Integer), column("seq", Integer), column("event", String),
              column("data", JSON))
    return [(int(r[0]), int(r[1]), r[2], r[3] or {}) for r in session.execute(stmt, params)]


def queue_fingerprint(session: Session) -> tuple[int, int, int]:
    """(count, lowest id, highest id) of the queued submissions: when it has not
    changed, no queue position has (the stream poller reads positions only then)."""
    row = session.execute(
        select(func.count(), func.coalesce(func.min(Submission.id), 0), func.coalesce(func.max(Submission.id), 0))
        .where(Submission.status == "queued")
    ).one()
    return int(row[0]), int(row[1]), int(row[2])
