"""The fair queue (issue #25): which queued submission is judged next, and every
queued submission's true position.

Learners take turns. A learner is a `fair_key`: a signed-in user ("user:ID"),
or an anonymous browser's network address ("addr:IP"), so many anonymous
cookies from one address are one learner. Staff regrades are one more learner,
the staff lane ("staff"): a bulk regrade waits like one learner's backlog,
and takes its turn in every round, so it neither starves learners nor starves.

The rule is start-time fair queuing with one job as the unit. When a row is
queued it gets a `fair_tag`, its round:

    fair_tag = max(head, 1 + the learner's highest tag still queued or running)

where `head` is the current round of that queue: the highest tag being judged
(claims go in tag order, so that is the round being served) or, if lower, the
lowest tag still queued (0 when the queue is empty). Rows are judged in (fair_tag, id) order. A learner's
rows take consecutive rounds, so a flooder's backlog spreads over many rounds,
while a newcomer's row joins the current one: it waits behind, at most, one
queued row of each other active learner (and the jobs already running). Tags
never change while a row waits (a re-queued row keeps its own and goes back
near the front), so a position only grows when a newcomer's round comes
before the row's own.

Each queue (KDOJO_QUEUE_NAME, one per GPU kind) has its own order. The
database is the truth: a Huey job means "judge the next fair submission of
this queue" (app/services/judging.py claim_next).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import and_, bindparam, case, func, or_, select, text
from sqlalchemy.orm import Session, aliased

from app.models import Submission

STAFF_KEY = "staff"
_Ahead = aliased(Submission)


def fair_key(user_id: int | None, anon_id: str | None, client_ip: str) -> str:
    """Whose turn a learner's submission takes."""
    if user_id is not None:
        return f"user:{user_id}"
    if client_ip:
        return f"addr:{client_ip}"
    return f"anon:{anon_id or ''}"


def next_tag(session: Session, queue_name: str, key: str) -> int:
    """The round a new row of learner `key` joins in `queue_name` (see the module's doc).

    One learner's new rows are serialized (a signed-in user's row is locked by
    submissions.serialize_owner; for other keys see `_serialize_key`), so two of
    them never share a round; two learners may, and then the older row goes first."""
    if not key.startswith("user:"):
        _serialize_key(session, key)
    in_queue = Submission.queue_name == queue_name
    lowest_queued = select(func.min(Submission.fair_tag)).where(in_queue, Submission.status == "queued")
    highest_running = select(func.max(Submission.fair_tag)).where(in_queue, Submission.status == "running")
    learners_last = select(func.max(Submission.fair_tag)).where(
        in_queue, Submission.fair_key == key, Submission.status.in_(("queued", "running")))
    queued, running, last = session.execute(select(
        lowest_queued.scalar_subquery(), highest_running.scalar_subquery(), learners_last.scalar_subquery(),
    )).one()
    current = [int(tag) for tag in (queued, running) if tag is not None]
    head = min(current) if current else 0
    return max(head, int(last) + 1 if last is not None else 0)


def _serialize_key(session: Session, key: str) -> None:
    # SQLite: the writer holds the database's write lock already. PostgreSQL: the
    # anonymous browsers of one address, or two staff regrades, take turns on a
    # transaction-level advisory lock until they commit.
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"),
                        {"key": f"kdojo-fair:{key}"})


# 1 = next to be judged in its queue; 0 once it is running or done. One expression, so
# a poll is one query (issue #13's load bench polls it); (queue_name, status,
# fair_tag, id) is indexed.
POSITION = case(
    (Submission.status == "queued",
     select(func.count()).select_from(_Ahead)
     .where(_Ahead.queue_name == Submission.queue_name, _Ahead.status == "queued",
            or_(_Ahead.fair_tag < Submission.fair_tag,
                and_(_Ahead.fair_tag == Submission.fair_tag, _Ahead.id < Submission.id)))
     .scalar_subquery() + 1),
    else_=0,
)


# Built once: the GET poll runs them for every waiting learner (issue #13).
_POSITIONS = select(Submission.id, POSITION).where(Submission.id.in_(bindparam("ids", expanding=True)))
WITH_POSITION = select(Submission, POSITION).where(Submission.id == bindparam("submission_id"))


def positions(session: Session, submission_ids: Iterable[int]) -> dict[int, int]:
    """{id: position} for the given ids: 1 = next to be judged in its queue, 0 once
    running or done (or unknown). Positions within a queue are 1, 2, 3… without gaps."""
    wanted = sorted({int(i) for i in submission_ids})
    if not wanted:
        return {}
    found = {row_id: position for row_id, position in session.execute(_POSITIONS, {"ids": wanted})}
    return {i: int(found.get(i, 0)) for i in wanted}


def next_queued(session: Session, queue_name: str) -> int | None:
    """The id of the queued row of `queue_name` to judge next, locked for this
    transaction where the database can (PostgreSQL: FOR UPDATE SKIP LOCKED, so
    concurrent workers each take a different row and none waits on another;
    SQLite: the writer already holds the database's write lock)."""
    query = (select(Submission.id).where(Submission.queue_name == queue_name, Submission.status == "queued")
             .order_by(Submission.fair_tag, Submission.id).limit(1))
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    return session.scalar(query)
