"""Who may use the admin API: a bearer token with the right scope, or a staff browser session.

- `Authorization: Bearer kd_…`: the token's scopes (unknown, expired, revoked, or
  a disabled owner → 401). Bearer requests are exempt from CSRF (app/security/csrf.py).
- A signed-in browser session: an admin holds every scope; an instructor holds
  `grading:read` and `content:admin`; a learner none (403). Cookie sessions go
  through the CSRF check like every other state-changing request.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from app.db import transaction
from app.deps import SessionDep, load_user
from app.models import TOKEN_SCOPES, utcnow
from app.routing import end_transaction
from app.security.csrf import SAFE_METHODS
from app.services import admin_tokens
from app.services.admin_audit import Actor

log = logging.getLogger("kdojo.admin")

SESSION_SCOPES: dict[str, frozenset[str]] = {
    "admin": frozenset(TOKEN_SCOPES),
    "instructor": frozenset({"grading:read", "content:admin"}),
    "learner": frozenset(),
}


def _unauthorized(detail: str) -> HTTPException:
    return HTTPException(status_code=401, detail=detail, headers={"WWW-Authenticate": "Bearer"})


def _bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def _mark_used(request: Request, session: Session, token_id: int, last_used_at: dt.datetime | None) -> None:
    """Record when a token was last used (at most once a minute; best effort).

    A state-changing request's session already holds SQLite's write lock: the
    update rides on it and is committed with the request's own change. A read
    request writes in its own short transaction (a second writer inside a
    writing request would wait on itself)."""
    if last_used_at is not None and utcnow() - last_used_at < dt.timedelta(seconds=60):
        return
    if request.method not in SAFE_METHODS:
        admin_tokens.touch(session, token_id)
        return
    try:
        with transaction(request.app.state.sessionmaker) as own:
            admin_tokens.touch(own, token_id)
    except SQLAlchemyError:  # a busy database must not fail a read
        log.warning("could not record the use of token %s", token_id, exc_info=True)


def current_actor(request: Request, session: SessionDep) -> Actor:
    """The caller of an admin endpoint, with the scopes it holds. Its transaction (a
    token's last use included) ends here, in this dependency's thread (issue #25)."""
    try:
        actor = _actor(request, session)
    except BaseException:
        end_transaction(session, failed=True)
        raise
    session.commit()
    return actor


def _actor(request: Request, session: Session) -> Actor:
    token = _bearer_token(request)
    if token is not None:
        found = admin_tokens.authenticate(session, token)
        if found is None:
            raise _unauthorized("The API token is unknown, expired or revoked.")
        row, user = found
        _mark_used(request, session, row.id, row.last_used_at)
        return Actor(user_id=user.id, email=user.email, via=f"token:{row.id}", scopes=frozenset(row.scopes))
    user = load_user(request, session)
    if user is None:
        raise _unauthorized("Sign in as an admin, or send `Authorization: Bearer <token>`.")
    return Actor(user_id=user.id, email=user.email, via="session",
                 scopes=SESSION_SCOPES.get(user.role, frozenset()))


def require(scope: str) -> Callable[..., Actor]:
    """A dependency that answers 403 unless the caller holds `scope`."""
    assert scope in TOKEN_SCOPES, scope

    def dependency(actor: Annotated[Actor, Depends(current_actor)]) -> Actor:
        if scope not in actor.scopes:
            raise HTTPException(status_code=403, detail=f"This needs the {scope!r} scope.")
        return actor

    return dependency


GradingRead = Annotated[Actor, Depends(require("grading:read"))]
GradingWrite = Annotated[Actor, Depends(require("grading:write"))]
UsersAdmin = Annotated[Actor, Depends(require("users:admin"))]
ContentAdmin = Annotated[Actor, Depends(require("content:admin"))]
