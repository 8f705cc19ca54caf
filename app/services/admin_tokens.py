"""API tokens: created by an admin, shown once, stored as SHA-256, scoped, expiring, revocable.

A token reads `kd_<public>_<secret>`: `<public>` (8 characters) finds the row,
the SHA-256 of the whole token is compared in constant time with the stored one.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.models import TOKEN_SCOPES, ApiToken, User, utcnow
from app.services.errors import Invalid, NotFound

TOKEN_PREFIX = "kd_"
MAX_DAYS = 3650


@dataclass(frozen=True)
class NewToken:
    row: ApiToken
    token: str  # shown once; never stored


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_scopes(text: str | list[str]) -> list[str]:
    """`"grading:read,grading:write"` (or a list) → checked, ordered, de-duplicated scopes."""
    items = text.split(",") if isinstance(text, str) else list(text)
    scopes = [s.strip() for s in items if s.strip()]
    unknown = [s for s in scopes if s not in TOKEN_SCOPES]
    if unknown:
        raise Invalid(f"unknown scope {unknown[0]!r}; scopes are {', '.join(TOKEN_SCOPES)}")
    if not scopes:
        raise Invalid(f"give at least one scope: {', '.join(TOKEN_SCOPES)}")
    return [s for s in TOKEN_SCOPES if s in scopes]


def create(session: Session, user: User, scopes: list[str], days: int, name: str = "") -> NewToken:
    if not 1 <= days <= MAX_DAYS:
        raise Invalid(f"days must be between 1 and {MAX_DAYS}")
    if user.disabled:
        raise Invalid(f"{user.email} is disabled")
    public = secrets.token_hex(4)
    token = f"{TOKEN_PREFIX}{public}_{secrets.token_urlsafe(32)}"
    row = ApiToken(user_id=user.id, name=name[:100], token_hash=digest(token), prefix=public,
                   scopes=parse_scopes(scopes), expires_at=utcnow() + dt.timedelta(days=days))
    session.add(row)
    session.flush()
    return NewToken(row, token)


def authenticate(session: Session, token: str) -> tuple[ApiToken, User] | None:
    """The live token and its enabled user, or None (unknown, expired, revoked, disabled)."""
    if not token.startswith(TOKEN_PREFIX) or token.count("_") < 2:
        return None
    public = token[len(TOKEN_PREFIX):].split("_", 1)[0]
    want = digest(token)
    rows = session.execute(
        select(ApiToken, User).join(User, User.id == ApiToken.user_id).where(ApiToken.prefix == public)
    ).all()
    for row, user in rows:
        if not hmac.compare_digest(row.token_hash, want):
            continue
        if row.revoked_at is not None or row.expires_at <= utcnow() or user.disabled:
            return None
        return row, user
    return None


def touch(session: Session, token_id: int) -> None:
    session.execute(update(ApiToken).where(ApiToken.id == token_id).values(last_used_at=utcnow()))


def revoke(session: Session, token_id: int) -> ApiToken:
    row = session.get(ApiToken, token_id)
    if row is None:
        raise NotFound(f"There is no token {token_id}.")
    if row.revoked_at is None:
        row.revoked_at = utcnow()
    session.flush()
    return row


def list_tokens(session: Session, include_revoked: bool = True) -> list[tuple[ApiToken, str]]:
    query = select(ApiToken, User.email).join(User, User.id == ApiToken.user_id).order_by(ApiToken.id)
    if not include_revoked:
        query = query.where(ApiToken.revoked_at.is_(None))
    return [(row, email) for row, email in session.execute(query).all()]


def view(row: ApiToken, email: str) -> dict[str, Any]:
    now = utcnow()
    state = "revoked" if row.revoked_at else "expired" if row.expires_at <= now else "active"
    return {
        "id": row.id, "user": email, "name": row.name, "prefix": f"{TOKEN_PREFIX}{row.prefix}_…",
        "scopes": list(row.scopes), "state": state,
        "created_at": _iso(row.created_at), "expires_at": _iso(row.expires_at),
        "revoked_at": _iso(row.revoked_at), "last_used_at": _iso(row.last_used_at),
    }


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() + "Z" if value else None
