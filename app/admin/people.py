"""/api/admin/users…, /api/admin/tokens…, moderation (comments, bug reports), /api/admin/audit."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from app.admin.auth import ContentAdmin, UsersAdmin
from app.api.comments import forget_anonymous_page
from app.deps import IdPath, NoNulText, PageQuery, SessionDep
from app.routing import SessionRoute
from app.services import account_recovery, admin_audit, admin_tokens, admin_users, invites

router = APIRouter(route_class=SessionRoute, prefix="/api/admin", tags=["admin"])
Page = PageQuery
PerPage = Annotated[int, Query(ge=1, le=200)]


class RoleIn(BaseModel):
    role: Literal["learner", "instructor", "admin"]
    reason: str = ""


class DisableIn(BaseModel):
    disabled: bool = True
    reason: str = ""


class HideIn(BaseModel):
    hidden: bool = True
    reason: str = Field(min_length=1)


class ResolveIn(BaseModel):
    reason: str = ""


class ResetIn(BaseModel):
    hours: int = Field(default=account_recovery.RESET_HOURS, ge=1, le=account_recovery.MAX_RESET_HOURS)


class InviteIn(BaseModel):
    uses: int = Field(default=1, ge=1, le=invites.MAX_USES, description="how many accounts it may create")
    days: int = Field(default=invites.DEFAULT_DAYS, ge=1, le=invites.MAX_DAYS)
    note: str = Field(default="", max_length=100)


class TokenIn(BaseModel):
    user: str  # e-mail
    scopes: list[str]
    days: int = Field(default=90, ge=1, le=admin_tokens.MAX_DAYS)
    name: str = ""


@router.get("/users")
def list_users(session: SessionDep, _actor: UsersAdmin, role: NoNulText | None = None, q: NoNulText | None = None,
               page: Page = 1, per_page: PerPage = 50) -> dict[str, Any]:
    return admin_users.list_users(session, role, q, page, per_page)


@router.post("/users/{user_id}/role")
def set_role(user_id: IdPath, body: RoleIn, session: SessionDep, actor: UsersAdmin) -> dict[str, Any]:
    user = admin_users.set_role(session, actor, user_id, body.role, body.reason)
    session.commit()
    return admin_users.user_view(user)


@router.post("/users/{user_id}/disable")
def disable(user_id: IdPath, body: DisableIn, session: SessionDep, actor: UsersAdmin) -> dict[str, Any]:
    """Disable (or, with `disabled: false`, enable) a user: sign-in refused, sessions revoked."""
    user = admin_users.set_disabled(session, actor, user_id, body.disabled, body.reason)
    session.commit()
    return admin_users.user_view(user)


@router.post("/users/{user_id}/password-reset", status_code=201)
def password_reset(user_id: IdPath, body: ResetIn, session: SessionDep, actor: UsersAdmin) -> dict[str, Any]:
    """A one-time password-reset link for the user, to hand over yourself (nothing is
    e-mailed). `link` is a path on this site; `token` is shown this once. Earlier
    links of the user stop working."""
    user = admin_users.get_user(session, user_id)
    token, row = account_recovery.create_reset(session, actor, user, body.hours)
    session.commit()
    return {"user_id": user.id, "email": user.email, "link": account_recovery.reset_link(token), "token": token,
            "expires_at": row.expires_at.isoformat() + "Z"}


@router.get("/invites")
def list_invites(session: SessionDep, _actor: UsersAdmin) -> dict[str, Any]:
    """Sign-up invite codes, newest first (their first characters only)."""
    return {"items": [invites.view(row) for row in invites.list_invites(session)]}


@router.post("/invites", status_code=201)
def create_invite(body: InviteIn, session: SessionDep, actor: UsersAdmin) -> dict[str, Any]:
    """A sign-up invite code for `KDOJO_SIGNUP=invite`; `code` is shown this once."""
    code, row = invites.create(session, actor, body.uses, body.days, body.note)
    session.commit()
    return {**invites.view(row), "code": code}


@router.delete("/invites/{invite_id}")
def revoke_invite(invite_id: IdPath, session: SessionDep, actor: UsersAdmin) -> dict[str, Any]:
    row = invites.revoke(session, actor, invite_id)
    session.commit()
    return invites.view(row)


@router.get("/tokens")
def list_tokens(session: SessionDep, _actor: UsersAdmin) -> dict[str, Any]:
    return {"items": [admin_tokens.view(row, email) for row, email in admin_tokens.list_tokens(session)]}


@router.post("/tokens", status_code=201)
def create_token(body: TokenIn, session: SessionDep, actor: UsersAdmin) -> dict[str, Any]:
    """A new token; the `token` field is shown this once and never again."""
    owner = admin_users.by_email(session, body.user)
    new = admin_tokens.create(session, owner, body.scopes, body.days, body.name)
    admin_audit.record(session, actor, "token.create", "token", new.row.id, "",
                       user=owner.email, scopes=list(new.row.scopes), days=body.days)
    session.commit()
    return {**admin_tokens.view(new.row, owner.email), "token": new.token}


@router.delete("/tokens/{token_id}")
def revoke_token(token_id: IdPath, session: SessionDep, actor: UsersAdmin) -> dict[str, Any]:
    row = admin_tokens.revoke(session, token_id)
    admin_audit.record(session, actor, "token.revoke", "token", row.id)
    session.commit()
    email = admin_users.get_user(session, row.user_id).email
    return admin_tokens.view(row, email)


@router.post("/comments/{comment_id}/hide")
def hide_comment(comment_id: IdPath, body: HideIn, request: Request, session: SessionDep,
                 actor: ContentAdmin) -> dict[str, Any]:
    comment = admin_users.hide_comment(session, actor, comment_id, body.hidden, body.reason)
    session.commit()
    forget_anonymous_page(request.app, comment.lesson_id)
    return {"id": comment.id, "hidden": comment.hidden}


@router.get("/bug-reports")
def list_bug_reports(session: SessionDep, _actor: ContentAdmin,
                     status: Literal["open", "closed"] | None = None,
                     page: Page = 1, per_page: PerPage = 50) -> dict[str, Any]:
    return admin_users.list_bug_reports(session, status, page, per_page)


@router.post("/bug-reports/{report_id}/resolve")
def resolve_bug_report(report_id: IdPath, body: ResolveIn, session: SessionDep,
                       actor: ContentAdmin) -> dict[str, Any]:
    report = admin_users.resolve_bug_report(session, actor, report_id, body.reason)
    session.commit()
    return {"id": report.id, "status": report.status}


@router.get("/audit")
def audit(session: SessionDep, _actor: UsersAdmin, action: NoNulText | None = None, actor: NoNulText | None = None,
          target_type: NoNulText | None = None, target_id: NoNulText | None = None,
          page: Page = 1, per_page: PerPage = 50) -> dict[str, Any]:
    """Every admin action, newest first: who, through which credential, what, when, why."""
    total, items = admin_audit.page(session, action=action, actor=actor, target_type=target_type,
                                    target_id=target_id, offset=(page - 1) * per_page, limit=per_page)
    return {"total": total, "page": page, "per_page": per_page, "items": items}

