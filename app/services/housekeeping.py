"""Deleting what has stopped mattering: old failed sign-ins and dead sessions."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import delete, or_
from sqlalchemy.orm import Session

from app.models import AuthAttempt, UserSession, utcnow

AUTH_ATTEMPTS_KEPT = dt.timedelta(days=1)  # the sign-in limit looks back 15 minutes
DEAD_SESSIONS_KEPT = dt.timedelta(days=30)  # revoked/expired rows kept a while for audits


def purge(session: Session) -> int:
    """Delete stale rows; returns how many."""
    now = utcnow()
    attempts = session.execute(delete(AuthAttempt).where(AuthAttempt.created_at < now - AUTH_ATTEMPTS_KEPT))
    dead_before = now - DEAD_SESSIONS_KEPT
    sessions = session.execute(
        delete(UserSession).where(or_(UserSession.expires_at < dead_before, UserSession.revoked_at < dead_before))
    )
    return attempts.rowcount + sessions.rowcount
