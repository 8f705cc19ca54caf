"""Changing and resetting passwords (issue #25).

- A signed-in learner changes their password with the current one; their other
  sessions end.
- An admin sets a password (`kdojo users reset-password --set`), or makes a
  one-time reset link (`kdojo users reset-password`, `POST
  /api/admin/users/{id}/password-reset`) and hands it to the learner: there is
  no e-mail. The link's token is random (256 bits); only its SHA-256 is stored;
  it works once, before it expires, for an enabled account, and a newer link
  for the same account replaces it. Redeeming ends every session of the account.

argon2 runs outside these functions (the callers hash first): SQLite's write
lock is never held while a password is hashed (issue #13).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.models import PasswordReset, User, utcnow
from app.services.sessions import revoke_all_sessions, revoke_other_sessions
from app.services import admin_audit
from app.services.admin_audit import Actor
from app.services.errors import Invalid

RESET_HOURS = 24
MAX_RESET_HOURS = 24 * 7
RESET_PATH = "/reset-password"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def reset_invalid() -> Invalid:
    return Invalid("This password-reset link is not valid any more (used, expired or replaced); "
                   "ask an admin for a new one.", "reset_invalid")


def passwords_differ() -> Invalid:
    return Invalid("The two new passwords differ.", "password_mismatch")


def create_reset(session: Session, actor: Actor, user: User, hours: int = RESET_HOURS) -> tuple[str, PasswordReset]:
    """A new one-time link for `user`; returns (token, row). The token is shown once."""
    if not 1 <= hours <= MAX_RESET_HOURS:
        raise Invalid(f"A reset link lives 1 to {MAX_RESET_HOURS} hours.")
    now = utcnow()
    # only the newest link works: one handed out by mistake is cancelled by making another
    session.execute(update(PasswordReset).where(PasswordReset.user_id == user.id, PasswordReset.used_at.is_(None))
                    .values(used_at=now))
    token = secrets.token_urlsafe(32)
    row = PasswordReset(user_id=user.id, token_hash=digest(token), created_at=now,
                        expires_at=now + dt.timedelta(hours=hours))
    session.add(row)
    admin_audit.record(session, actor, "user.password_reset_link", "user", user.id, hours=hours)
    session.flush()
    return token, row


def reset_link(token: str) -> str:
    return f"{RESET_PATH}?token={token}"


def live_reset(session: Session, token: str) -> PasswordReset | None:
    """The unused, unexpired link for `token` whose account is enabled, or None."""
    if not token or len(token) > 128:
        return None
    row = session.scalar(select(PasswordReset).join(User, User.id == PasswordReset.user_id).where(
        PasswordReset.token_hash == digest(token), PasswordReset.used_at.is_(None),
        PasswordReset.expires_at > utcnow(), User.disabled.is_(False)))
    return row


def redeem_reset(session: Session, token: str, password_hash: str) -> int:
    """Use the link once: set the password, end every session (returns how many).
    Raises Invalid (`reset_invalid`)."""
    row = live_reset(session, token)
    if row is None:
        raise reset_invalid()
    # the conditional UPDATE is the single use: of two requests racing with one link, one wins
    won = session.execute(update(PasswordReset).where(PasswordReset.id == row.id, PasswordReset.used_at.is_(None))
                          .values(used_at=utcnow())).rowcount
    if won != 1:
        raise reset_invalid()
    user = session.get(User, row.user_id)
    assert user is not None  # the row's foreign key cascades
    user.password_hash = password_hash
    revoked = revoke_all_sessions(session, user.id)
    admin_audit.record(session, Actor(user.id, user.email, "reset_link"), "user.password_reset", "user", user.id,
                       sessions_revoked=revoked)
    session.flush()
    return revoked


def set_password(session: Session, actor: Actor, user: User, password_hash: str) -> int:
    """An admin sets the password (already checked and hashed); every session ends.
    Returns how many sessions were revoked."""
    user.password_hash = password_hash
    revoked = revoke_all_sessions(session, user.id)
    session.execute(update(PasswordReset).where(PasswordReset.user_id == user.id, PasswordReset.used_at.is_(None))
                    .values(used_at=utcnow()))
    admin_audit.record(session, actor, "user.set_password", "user", user.id, sessions_revoked=revoked)
    session.flush()
    return revoked


def change_password(session: Session, user_id: int, password_hash: str, keep_token: str | None) -> int:
    """The learner's own change (current password already proven): the other
    sessions end, this browser's (`keep_token`, its cookie) stays. Returns how many ended."""
    user = session.get(User, user_id)
    if user is None or user.disabled:
        raise reset_invalid()
    user.password_hash = password_hash
    ended = revoke_other_sessions(session, user_id, keep_token)
    session.flush()
    return ended
