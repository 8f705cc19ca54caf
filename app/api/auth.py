"""POST /auth/signup, /auth/signin, /auth/signout — HTML forms or JSON.

A form post is answered with a 303 redirect to `next` (or, on failure, to the
form page with `?error=…`); a JSON post with JSON. The GET pages are the
frontend's (app.pages).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.deps import ANON_COOKIE, CatalogDep, SessionDep, SettingsDep, client_ip
from app.models import User
from app.security.sessions import SESSION_COOKIE, create_session, revoke_session
from app.services import accounts, progress
from app.services.errors import ServiceError, Unauthorized

router = APIRouter(prefix="/auth", tags=["auth"])


async def _payload(request: Request) -> tuple[dict[str, Any], bool]:
    """The posted fields and whether the client speaks JSON."""
    if request.headers.get("content-type", "").startswith("application/json"):
        data = await request.json()
        return (data if isinstance(data, dict) else {}), True
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str)}, False


def safe_next(value: Any) -> str:
    """Only same-site paths: `//evil.example` and `https://…` would be open redirects."""
    text = str(value or "/")
    if not text.startswith("/") or text.startswith("//") or "\\" in text:
        return "/"
    return text


def _user_view(user: User) -> dict[str, Any]:
    return {"id": user.id, "email": user.email, "display_name": user.display_name, "role": user.role}


def _signed_in(request: Request, session: SessionDep, settings: SettingsDep, user: User,
               as_json: bool, next_url: str) -> Response:
    # A fresh token on every sign-in; the browser's previous session (if any) ends.
    revoke_session(session, request.cookies.get(SESSION_COOKIE))
    token = create_session(session, user, settings.session_days, request.headers.get("user-agent", ""))
    session.commit()
    response: Response = (
        JSONResponse({"user": _user_view(user), "next": next_url}) if as_json
        else RedirectResponse(next_url, status_code=303)
    )
    response.set_cookie(SESSION_COOKIE, token, max_age=settings.session_days * 86400, httponly=True,
                        samesite="lax", secure=settings.cookie_secure or request.url.scheme == "https",
                        path="/")
    return response


def _failed(exc: ServiceError, as_json: bool, page: str, fields: dict[str, Any]) -> Response:
    """JSON clients get the error; a form goes back to its page (the frontend's),
    which shows `error` and keeps the e-mail typed so far."""
    if as_json:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)
    # only a code: the page shows its own translated text, never text from the link (#13)
    query = urlencode({"error": exc.code or "unknown", "email": str(fields.get("email", ""))[:320],
                       "next": safe_next(fields.get("next"))})
    return RedirectResponse(f"{page}?{query}", status_code=303)


# The routes are async only to read a form or JSON body; the work (argon2 and
# the database) runs in the thread pool so it never stalls the event loop.


@router.post("/signup")
async def signup(request: Request, session: SessionDep, settings: SettingsDep, catalog: CatalogDep) -> Response:
    fields, as_json = await _payload(request)
    return await run_in_threadpool(_signup, request, session, settings, catalog, fields, as_json)


def _signup(request: Request, session: SessionDep, settings: SettingsDep, catalog: CatalogDep,
            fields: dict[str, Any], as_json: bool) -> Response:
    try:
        user = accounts.signup(session, str(fields.get("email", "")), str(fields.get("password", "")),
                               str(fields.get("display_name", "")))
    except ServiceError as exc:
        session.rollback()
        return _failed(exc, as_json, "/signup", fields)
    progress.merge_local_progress(session, user, catalog, [], [], request.cookies.get(ANON_COOKIE))
    return _signed_in(request, session, settings, user, as_json, safe_next(fields.get("next")))


@router.post("/signin")
async def signin(request: Request, session: SessionDep, settings: SettingsDep, catalog: CatalogDep) -> Response:
    fields, as_json = await _payload(request)
    return await run_in_threadpool(_signin, request, session, settings, catalog, fields, as_json)


def _signin(request: Request, session: SessionDep, settings: SettingsDep, catalog: CatalogDep,
            fields: dict[str, Any], as_json: bool) -> Response:
    try:
        user = accounts.authenticate(session, str(fields.get("email", "")), str(fields.get("password", "")),
                                     client_ip(request), settings.signin_attempts_per_15min)
    except Unauthorized as exc:
        session.commit()  # keep the failed attempt: it feeds the sign-in rate limit
        return _failed(exc, as_json, "/signin", fields)
    except ServiceError as exc:
        session.rollback()
        return _failed(exc, as_json, "/signin", fields)
    # Submissions this browser made before signing in now belong to the account.
    progress.merge_local_progress(session, user, catalog, [], [], request.cookies.get(ANON_COOKIE))
    return _signed_in(request, session, settings, user, as_json, safe_next(fields.get("next")))


@router.post("/signout")
async def signout(request: Request, session: SessionDep) -> Response:
    fields, as_json = await _payload(request)
    revoke_session(session, request.cookies.get(SESSION_COOKIE))
    session.commit()
    response: Response = (
        JSONResponse({"signed_out": True}) if as_json
        else RedirectResponse(safe_next(fields.get("next")), status_code=303)
    )
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
