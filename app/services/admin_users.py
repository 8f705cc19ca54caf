"""Users and moderation for admins: list, change role, disable; hide comments,
resolve bug reports. Every change is written to the audit log."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.models import ROLES, BugReport, Comment, User
from app.services.sessions import revoke_all_sessions
from app.services import accounts, admin_audit
from app.services.admin_audit import Actor
from app.services.bugreports import view as bug_view
from app.services.errors import Conflict, Invalid, NotFound


def user_view(user: User) -> dict[str, Any]:
    return {"id": user.id, "email": user.email, "display_name": user.display_name, "role": user.role,
            "disabled": user.disabled, "created_at": user.created_at.isoformat() + "Z"}


def list_users(session: Session, role: str | None, q: str | None, page: int, per_page: int) -> dict[str, Any]:
    query = select(User)
    if role:
        query = query.where(User.role == role)
    if q:
        like = f"%{q.strip().lower()}%"
        query = query.where(func.lower(User.email).like(like) | func.lower(User.display_name).like(like))
    total = int(session.scalar(select(func.count()).select_from(query.subquery())) or 0)
    rows = session.scalars(query.order_by(User.id).offset((page - 1) * per_page).limit(per_page))
    return {"total": total, "page": page, "per_page": per_page, "items": [user_view(u) for u in rows]}


def by_email(session: Session, email: str) -> User:
    user = session.scalar(select(User).where(User.email == accounts.normalize_email(email)))
    if user is None:
        raise NotFound(f"There is no user {email!r}.")
    return user


def get_user(session: Session, user_id: int) -> User:
    user = session.get(User, user_id)
    if user is None:
        raise NotFound(f"There is no user {user_id}.")
    return user


def _other_active_admins(session: Session, user_id: int) -> int:
    return int(session.scalar(select(func.count()).select_from(User).where(
        User.role == "admin", User.disabled.is_(False), User.id != user_id)) or 0)


def set_role(session: Session, actor: Actor, user_id: int, role: str, reason: str = "") -> User:
    if role not in ROLES:
        raise Invalid(f"role must be one of {', '.join(ROLES)}")
    user = get_user(session, user_id)
    if user.role == "admin" and role != "admin" and not _other_active_admins(session, user.id):
        raise Conflict("This is the last admin; make someone else admin first.")
    previous, user.role = user.role, role
    admin_audit.record(session, actor, "user.role", "user", user.id, reason, previous=previous, role=role)
    session.flush()
    return user


def set_disabled(session: Session, actor: Actor, user_id: int, disabled: bool, reason: str = "") -> User:
    """Disable (sign-in refused, every session and token stops working) or enable a user."""
    user = get_user(session, user_id)
    if disabled and user.role == "admin" and not _other_active_admins(session, user.id):
        raise Conflict("This is the last admin; it cannot be disabled.")
    user.disabled = disabled
    revoked = revoke_all_sessions(session, user.id) if disabled else 0
    admin_audit.record(session, actor, "user.disable" if disabled else "user.enable", "user", user.id,
                       reason, sessions_revoked=revoked)
    session.flush()
    return user


def create_admin(session: Session, actor: Actor, email: str, password: str, display_name: str = "") -> User:
    """A new admin account, or an existing account promoted to admin (password unchanged)."""
    email = accounts.normalize_email(email)
    user = session.scalar(select(User).where(User.email == email))
    if user is None:
        user = accounts.signup(session, email, password, display_name)
        created = True
    else:
        created = False
    user.role, user.disabled = "admin", False
    admin_audit.record(session, actor, "user.create_admin" if created else "user.promote_admin",
                       "user", user.id)
    session.flush()
    return user


def hide_comment(session: Session, actor: Actor, comment_id: int, hidden: bool, reason: str) -> Comment:
    if not reason.strip():
        raise Invalid("Hiding a comment needs a reason.")
    comment = session.get(Comment, comment_id)
    if comment is None:
        raise NotFound(f"There is no comment {comment_id}.")
    comment.hidden = hidden
    admin_audit.record(session, actor, "comment.hide" if hidden else "comment.unhide", "comment",
                       comment.id, reason, lesson_id=comment.lesson_id)
    session.flush()
    return comment


def list_bug_reports(session: Session, status: str | None, page: int, per_page: int) -> dict[str, Any]:
    query = select(BugReport)
    if status:
        query = query.where(BugReport.status == status)
    total = int(session.scalar(select(func.count()).select_from(query.subquery())) or 0)
    rows = session.scalars(query.order_by(BugReport.id.desc()).offset((page - 1) * per_page).limit(per_page))
    return {"total": total, "page": page, "per_page": per_page, "items": [bug_view(r) for r in rows]}


def resolve_bug_report(session: Session, actor: Actor, report_id: int, reason: str) -> BugReport:
    report = session.get(BugReport, report_id)
    if report is None:
        raise NotFound(f"There is no bug report {report_id}.")
    report.status = "closed"
    admin_audit.record(session, actor, "bug_report.resolve", "bug_report", report.id, reason)
    session.flush()
    return report
