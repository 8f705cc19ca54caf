"""FastAPI dependency aliases: `SessionDep`, `CurrentUser`, `RequireUser`, `SettingsDep`,
`CatalogDep`, `OwnerDep`.

Routes that write call `session.commit()` themselves before answering, so a
failed commit is never reported as success; a transaction a sync route leaves
open is ended in its own thread (app.routing.SessionRoute), the dependency only
closes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from anyio import from_thread
from fastapi import Depends, HTTPException, Path, Query, Request
from pydantic import BeforeValidator, Field
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.content import Catalog
from app.db import lazy_session
from app.models import User
from app.security.csrf import SAFE_METHODS
from app.security.sessions import SESSION_COOKIE
from app.services.sessions import user_for_token
from app.services.submissions import Owner
from app.settings import Settings

ANON_COOKIE = "kdojo_anon"

# Every id and counter a client sends fits PostgreSQL's `integer` (SQLite's is
# wider): a larger one is a 422 from validation, not a 500 from the database
# driver (issue #13).
MAX_DB_INT = 2**31 - 1
IdPath = Annotated[int, Path(ge=1, le=MAX_DB_INT)]
PageQuery = Annotated[int, Query(ge=1, le=MAX_DB_INT // 1000)]


def _json_integer(value: object) -> object:
    """A JSON number that is an integer (`3`, `3.0`), not `false` or `"3"`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be an integer")
    return value


# (Field before the validator, or the bounds leave the JSON schema)
DbId = Annotated[int, Field(ge=1, le=MAX_DB_INT), BeforeValidator(_json_integer)]
DbInt = Annotated[int, Field(ge=-MAX_DB_INT, le=MAX_DB_INT), BeforeValidator(_json_integer)]


async def get_session(request: Request) -> AsyncIterator[Session]:
    """The request's session. Nothing is opened here: its transaction begins at its
    first statement, in the thread that runs it, and ends there (`end_transaction`,
    app.routing), so no connection or write lock is held across a thread hop or an
    await (issue #25). State-changing requests get a write session."""
    session = lazy_session(request.app.state.sessionmaker, write=request.method not in SAFE_METHODS)
    try:
        yield session
    finally:
        if session.in_transaction():  # an async route left one open: close it off the event loop
            await run_in_threadpool(session.close)
        else:
            session.close()


SessionDep = Annotated[Session, Depends(get_session)]


async def get_settings_dep(request: Request) -> Settings:
    return request.app.state.settings


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]


async def get_catalog(request: Request) -> Catalog:
    return request.app.state.catalog


CatalogDep = Annotated[Catalog, Depends(get_catalog)]


async def get_current_user(request: Request) -> User | None:
    """The signed-in user (live session, enabled account) or None; cached per request.
    Without a session cookie no thread and no database are needed."""
    state = request.scope.setdefault("state", {})
    if "user" not in state:
        token = request.cookies.get(SESSION_COOKIE)
        state["user"] = await run_in_threadpool(_read_user, request, token) if token else None
    return state["user"]


def _read_user(request: Request, token: str) -> User | None:
    # its own short read transaction, ended in this thread
    with request.app.state.sessionmaker() as session:
        return _detached_user(session, token)


def _detached_user(session: Session, token: str | None) -> User | None:
    user = user_for_token(session, token)
    if user is not None:
        session.expunge(user)
    return user


def load_user(request: Request, session: Session) -> User | None:
    """`get_current_user` for code already running in a thread with a session."""
    state = request.scope.setdefault("state", {})
    if "user" not in state:
        state["user"] = _detached_user(session, request.cookies.get(SESSION_COOKIE))
    return state["user"]


def current_owner(request: Request, session: Session) -> Owner:
    """`OwnerDep` for code that opened its own session (a route that makes one thread hop)."""
    return Owner(user=load_user(request, session), anon_id=request.cookies.get(ANON_COOKIE),
                 client_ip=client_ip(request))


CurrentUser = Annotated[User | None, Depends(get_current_user)]


async def require_user(user: CurrentUser) -> User:
    if user is None:
        raise HTTPException(status_code=401, detail="Sign in to do this.")
    return user


RequireUser = Annotated[User, Depends(require_user)]


def client_gone(request: Request) -> bool:
    """From a pool thread: has the client disconnected (while its request waited)?
    Asked before a state-changing request's work, so requests nobody waits for any
    more are not carried out late (issue #25)."""
    try:
        return from_thread.run(request.is_disconnected)
    except RuntimeError:  # not in an anyio worker thread (a direct call): nobody left
        return False


def client_ip(request: Request) -> str:
    return request.client.host if request.client else ""


async def get_owner(request: Request, user: CurrentUser) -> Owner:
    return Owner(user=user, anon_id=request.cookies.get(ANON_COOKIE), client_ip=client_ip(request))


OwnerDep = Annotated[Owner, Depends(get_owner)]


# A query filter's text: PostgreSQL's text cannot hold a NUL byte, so a filter with one is
# not valid (422), said in the schema rather than found by the database.
NoNulText = Annotated[str, Query(pattern=r"^[^\x00]*$")]
