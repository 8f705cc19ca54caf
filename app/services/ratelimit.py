"""Per-learner limits, counted from the database so every process agrees.

Pending submissions are capped (a learner cannot flood the GPU queue), and
submissions, comments and failed sign-ins are capped per hour / 15 minutes.
Anonymous learners are counted by their browser id and their address.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.models import AuthAttempt, Comment, Submission, utcnow
from app.services.errors import LimitReached


def check_submission_limits(
    session: Session,
    *,
    user_id: int | None,
    anon_id: str | None,
    client_ip: str,
    max_pending: int,
    per_hour: int,
    anonymous_per_address_per_hour: int = 0,
) -> None:
    """Raise LimitReached with a sentence for the learner when a cap is hit.

    Signed-in learners are counted per account. Anonymous learners per browser
    (`kdojo_anon`), and also per address, with a larger cap, since a classroom
    behind one NAT shares an address while a script can drop its cookie."""
    since = utcnow() - dt.timedelta(hours=1)
    if user_id is not None:
        owner = Submission.user_id == user_id
    elif anon_id:
        owner = (Submission.user_id.is_(None)) & (Submission.anon_id == anon_id)
    else:
        owner = None
    if owner is not None:
        pending = _count(session, owner, Submission.status.in_(("queued", "running")))
        if pending >= max_pending:
            raise LimitReached(
                f"You already have {pending} submissions waiting to be judged "
                f"(limit {max_pending}); wait for one to finish.", "pending_limit", limit=max_pending
            )
        if _count(session, owner, Submission.created_at >= since) >= per_hour:
            hint = "" if user_id is not None else " Sign in for a higher limit."
            raise LimitReached(
                f"You have reached the limit of {per_hour} submissions per hour; try again later.{hint}",
                "submit_hourly_limit" if user_id is not None else "submit_hourly_limit_anon", limit=per_hour
            )
    if user_id is None and anonymous_per_address_per_hour > 0:
        from_address = (Submission.user_id.is_(None)) & (Submission.client_ip == client_ip)
        if _count(session, from_address, Submission.created_at >= since) >= anonymous_per_address_per_hour:
            raise LimitReached(
                "Too many anonymous submissions from your network this hour; sign in to keep going.",
                "anon_network_limit"
            )


def _count(session: Session, *where: Any) -> int:
    return int(session.scalar(select(func.count()).select_from(Submission).where(*where)) or 0)


def check_comment_limit(session: Session, user_id: int, per_hour: int) -> None:
    since = utcnow() - dt.timedelta(hours=1)
    recent = session.scalar(
        select(func.count()).select_from(Comment)
        .where(Comment.user_id == user_id, Comment.created_at >= since)
    ) or 0
    if recent >= per_hour:
        raise LimitReached(f"You can post {per_hour} comments per hour; try again later.", "comment_limit",
                           limit=per_hour)


def check_signin_limit(session: Session, client_ip: str, email: str, per_15min: int,
                       per_account: int = 0) -> None:
    """Refuse a sign-in before the password is checked, when either limit is hit.

    - the address: `per_15min` failures from it in 15 minutes (the address is
      the connection's, or the one a trusted proxy forwarded: app.main);
    - the account: after `per_account` failures for this e-mail in 15 minutes
      (from any addresses), each further attempt waits a back-off that doubles
      from 15 s up to 15 minutes after the latest failure. It holds for the
      right password too, or a guesser spreading over many addresses would
      only have to wait for the right guess.

    A learner behind a blocked address signs in from another one; a learner
    whose account is under attack waits the back-off (at most 15 minutes)."""
    since = utcnow() - dt.timedelta(minutes=15)
    failures = session.scalar(
        select(func.count()).select_from(AuthAttempt)
        .where(AuthAttempt.client_ip == client_ip, AuthAttempt.created_at >= since)
    ) or 0
    if failures >= per_15min:
        raise LimitReached("Too many failed sign-ins from your address; wait 15 minutes.", "signin_limit")
    if per_account <= 0:
        return
    count, latest = session.execute(
        select(func.count(), func.max(AuthAttempt.created_at))
        .where(AuthAttempt.email == email, AuthAttempt.created_at >= since)
    ).one()
    if count < per_account or latest is None:
        return
    wait = account_backoff(count - per_account)
    left = (latest + wait - utcnow()).total_seconds()
    if left > 0:
        seconds = int(left) + 1
        raise LimitReached(f"Too many failed sign-ins for this account; try again in {seconds} seconds.",
                           "signin_account_limit", seconds=seconds)


def account_backoff(excess: int) -> dt.timedelta:
    """15 s after the first failure over the limit, doubling, at most 15 minutes."""
    return dt.timedelta(seconds=min(15 * 2 ** min(excess, 10), 900))


def record_failed_signin(session: Session, client_ip: str, email: str) -> int:
    attempt = AuthAttempt(client_ip=client_ip[:64], email=email[:320])
    session.add(attempt)
    session.flush()
    return attempt.id
