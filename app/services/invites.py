"""Sign-up invite codes (`KDOJO_SIGNUP=invite`, issue #25).

An admin makes a code (`kdojo users invite`, `POST /api/admin/invites`) for
one or many sign-ups until it expires; it is shown once, and only its SHA-256
is stored. A sign-up spends one use with a conditional UPDATE in the same
transaction that creates the account, so a code for N accounts makes N even
when sign-ups race, and a sign-up that fails spends nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.models import InviteCode, utcnow
from app.services import admin_audit
from app.services.admin_audit import Actor
from app.services.errors import Forbidden, Invalid, NotFound

DEFAULT_DAYS = 14
MAX_DAYS = 365
MAX_USES = 10_000
MAX_CODE_LENGTH = 64


def _digest(code: str) -> str:
    # codes are typed by people: surrounding spaces are not part of them
    return hashlib.sha256(code.strip().encode()).hexdigest()


def create(session: Session, actor: Actor, uses: int = 1, days: int = DEFAULT_DAYS,
           note: str = "") -> tuple[str, InviteCode]:
    """A new code for `uses` sign-ups within `days`; returns (code, row). The code is shown once."""
    if not 1 <= uses <= MAX_USES:
        raise Invalid(f"An invite code is good for 1 to {MAX_USES} sign-ups.")
    if not 1 <= days <= MAX_DAYS:
        raise Invalid(f"An invite code lives 1 to {MAX_DAYS} days.")
    code = secrets.token_urlsafe(12)
    now = utcnow()
    row = InviteCode(code_hash=_digest(code), prefix=code[:6], note=note.strip()[:100], max_uses=uses, uses=0,
                     created_at=now, expires_at=now + dt.timedelta(days=days))
    session.add(row)
    session.flush()
    admin_audit.record(session, actor, "invite.create", "invite", row.id, uses=uses, days=days)
    return code, row


def view(row: InviteCode) -> dict[str, Any]:
    live = row.revoked_at is None and row.expires_at > utcnow() and row.uses < row.max_uses
    return {"id": row.id, "prefix": row.prefix, "note": row.note, "max_uses": row.max_uses, "uses": row.uses,
            "created_at": row.created_at.isoformat() + "Z", "expires_at": row.expires_at.isoformat() + "Z",
            "revoked": row.revoked_at is not None, "live": live}


def list_invites(session: Session) -> list[InviteCode]:
    return list(session.scalars(select(InviteCode).order_by(InviteCode.id.desc())))


def revoke(session: Session, actor: Actor, invite_id: int) -> InviteCode:
    row = session.get(InviteCode, invite_id)
    if row is None:
        raise NotFound(f"There is no invite code {invite_id}.")
    if row.revoked_at is None:
        row.revoked_at = utcnow()
        admin_audit.record(session, actor, "invite.revoke", "invite", row.id)
    session.flush()
    return row


def invite_invalid() -> Forbidden:
    return Forbidden("This invite code is not valid (mistyped, used up, expired or revoked).", "invite_invalid")


def spend(session: Session, code: str) -> int:
    """Spend one use of `code` in the caller's transaction; returns the invite's id.
    Raises Forbidden (`invite_invalid`) for a code that cannot be used."""
    if not code.strip() or len(code) > MAX_CODE_LENGTH:
        raise invite_invalid()
    now = utcnow()
    invite_id = session.execute(
        update(InviteCode)
        .where(InviteCode.code_hash == _digest(code), InviteCode.revoked_at.is_(None),
               InviteCode.expires_at > now, InviteCode.uses < InviteCode.max_uses)
        .values(uses=InviteCode.uses + 1)
        .returning(InviteCode.id)
    ).scalar()
    if invite_id is None:
        raise invite_invalid()
    return int(invite_id)
