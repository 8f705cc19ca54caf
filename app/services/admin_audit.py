"""The audit log: every admin action, who did it (and with which credential), when and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.models import AuditEntry, User


@dataclass(frozen=True)
class Actor:
    """Who acts: a user through a session or a token, or the operator's CLI."""

    user_id: int | None
    email: str
    via: str  # session | token:<id> | cli
    scopes: frozenset[str] = field(default_factory=frozenset)


CLI = Actor(user_id=None, email="cli", via="cli")


def record(session: Session, actor: Actor, action: str, target_type: str = "", target_id: object = "",
           reason: str = "", **details: Any) -> AuditEntry:
    entry = AuditEntry(actor_id=actor.user_id, actor=actor.email, via=actor.via, action=action,
                       target_type=target_type, target_id=str(target_id), reason=reason,
                       details=details)
    session.add(entry)
    session.flush()
    return entry


def view(entry: AuditEntry) -> dict[str, Any]:
    return {
        "id": entry.id, "actor": entry.actor, "actor_id": entry.actor_id, "via": entry.via,
        "action": entry.action, "target_type": entry.target_type, "target_id": entry.target_id,
        "reason": entry.reason, "details": entry.details or {},
        "created_at": entry.created_at.isoformat() + "Z",
    }


def page(session: Session, *, action: str | None = None, actor: str | None = None,
         target_type: str | None = None, target_id: str | None = None,
         offset: int = 0, limit: int = 50) -> tuple[int, list[dict[str, Any]]]:
    """(total, entries newest first) matching the filters."""
    query = select(AuditEntry)
    if action:
        query = query.where(AuditEntry.action == action)
    if actor:
        query = query.where(AuditEntry.actor == actor)
    if target_type:
        query = query.where(AuditEntry.target_type == target_type)
    if target_id:
        query = query.where(AuditEntry.target_id == target_id)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.scalars(query.order_by(AuditEntry.id.desc()).offset(offset).limit(limit))
    return int(total), [view(row) for row in rows]


def actor_for_user(user: User, via: str, scopes: frozenset[str]) -> Actor:
    return Actor(user_id=user.id, email=user.email, via=via, scopes=scopes)
