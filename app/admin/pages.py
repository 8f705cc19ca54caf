"""The admin's token page `/admin/tokens`: list, create (the token is shown once), revoke.

Admin browser sessions only; the forms carry the CSRF token like every other form.
"""

from __future__ import annotations

from fastapi import APIRouter, Form, HTTPException, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.content import Catalog
from app.deps import CatalogDep, CurrentUser, IdPath, SessionDep
from app.models import TOKEN_SCOPES, User
from app.pages.context import base_context, render
from app.routing import SessionRoute
from app.services import admin_audit, admin_tokens, admin_users
from app.services.errors import ServiceError

router = APIRouter(route_class=SessionRoute, include_in_schema=False)


def _admin(user: User | None) -> User:
    if user is None:
        raise HTTPException(status_code=401, detail="Sign in as an admin.")
    if user.role != "admin":
        raise HTTPException(status_code=403, detail="Only admins manage API tokens.")
    return user


def _page(request: Request, session: SessionDep, user: User, catalog: Catalog, **extra: object) -> HTMLResponse:
    context = base_context(request, session, user, catalog)
    context.update(
        title="API tokens", scopes=TOKEN_SCOPES, new_token=None, error=None,
        tokens=[admin_tokens.view(row, email) for row, email in admin_tokens.list_tokens(session)],
    )
    context.update(extra)
    return render(request, "admin/tokens.html", context, status_code=422 if extra.get("error") else 200)


@router.get("/admin/tokens", response_class=HTMLResponse)
def tokens_page(request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep) -> HTMLResponse:
    return _page(request, session, _admin(user), catalog)


@router.post("/admin/tokens", response_class=HTMLResponse)
def create_token(
    request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep,
    email: str = Form(...), days: int = Form(90), name: str = Form(""),
    scopes: list[str] = Form(default=[]),
) -> HTMLResponse:
    admin = _admin(user)
    actor = admin_audit.actor_for_user(admin, "session", frozenset(TOKEN_SCOPES))
    try:
        owner = admin_users.by_email(session, email)
        new = admin_tokens.create(session, owner, scopes, days, name)
    except ServiceError as exc:
        session.rollback()
        return _page(request, session, admin, catalog, error=exc.detail)
    admin_audit.record(session, actor, "token.create", "token", new.row.id, "", user=owner.email,
                       scopes=list(new.row.scopes), days=days)
    session.commit()
    return _page(request, session, admin, catalog, new_token=new.token)


@router.post("/admin/tokens/{token_id}/revoke")
def revoke_token(token_id: IdPath, session: SessionDep, user: CurrentUser) -> Response:
    admin = _admin(user)
    actor = admin_audit.actor_for_user(admin, "session", frozenset(TOKEN_SCOPES))
    admin_tokens.revoke(session, token_id)
    admin_audit.record(session, actor, "token.revoke", "token", token_id)
    session.commit()
    return RedirectResponse("/admin/tokens", status_code=303)
