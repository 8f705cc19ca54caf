"""Server-side sessions in the database, found by the SHA-256 of the cookie token.

Revoking a session (sign-out, an admin disabling a user) is one UPDATE. The
token and its digest are made in app.security.sessions.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from app.models import User, UserSession, utcnow
from app.security.sessions import new_token, token_digest


def create_session(session: Session, user: User, days: int, user_agent: str = "") -> str:
    """Store a new session for `user`; returns the cookie token."""
    token = new_token()
    session.add(
        UserSession(
            token_hash=token_digest(token),
            user_id=user.id,
            expires_at=utcnow() + dt.timedelta(days=days),
            user_agent=user_agent[:255],
        )
    )
    session.flush()
    return token


# Built once: every signed-in request runs it, and building a statement costs more
# than SQLAlchemy's compiled-statement cache saves (the web load bench, issue #13).
_USER_FOR_TOKEN = (
    select(UserSession.revoked_at, UserSession.expires_at, User)
    .join(User, User.id == UserSession.user_id)
    .where(UserSession.token_hash == bindparam("token_hash"))
)


def user_for_token(session: Session, token: str | None) -> User | None:
    """The live, enabled user behind a cookie token, or None (one query)."""
    if not token:
        return None
    row = session.execute(_USER_FOR_TOKEN, {"token_hash": token_digest(token)}).first()
    if row is None:
        return None
    revoked_at, expires_at, user = row
    if revoked_at is not None or expires_at <= utcnow():
        return None
    if user.disabled:
        return None
    return user


def revoke_session(session: Session, token: str | None) -> None:
    if token:
        session.execute(
            update(UserSession)
            .where(UserSession.token_hash == token_digest(token), UserSession.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )


def revoke_all_sessions(session: Session, user_id: int) -> int:
    """Revoke every live session of a user (password change, account disabled)."""
    result = session.execute(
        update(UserSession)
        .where(UserSession.user_id == user_id, UserSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    return result.rowcount


def revoke_other_sessions(session: Session, user_id: int, keep_token: str | None) -> int:
    """Revoke every live session of a user but the one behind `keep_token` (a password change)."""
    result = session.execute(
        update(UserSession)
        .where(UserSession.user_id == user_id, UserSession.revoked_at.is_(None),
               UserSession.token_hash != token_digest(keep_token or ""))
        .values(revoked_at=utcnow())
    )
    return result.rowcount
