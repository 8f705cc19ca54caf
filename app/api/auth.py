"""POST /auth/signup, /auth/signin, /auth/signout — HTML forms or JSON.

A form post is answered with a 303 redirect to `next` (or, on failure, to the
form page with `?error=…`); a JSON post with JSON. The GET pages are the
frontend's (app.pages).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from app.api.errors import ERRORS, service_error_response

from app.content import Catalog
from app.db import transaction
from app.deps import ANON_COOKIE, CatalogDep, SessionDep, SettingsDep, client_ip
from app.models import User
from app.routing import SessionRoute
from app.security import passwords
from app.security.sessions import SESSION_COOKIE
from app.services import accounts, invites, progress_merge, ratelimit
from app.services.account_recovery import change_password as store_password
from app.services.account_recovery import live_reset, passwords_differ, redeem_reset, reset_invalid
from app.services.errors import Forbidden, ServiceError, Unauthorized
from app.services.sessions import create_session, revoke_session, user_for_token
from app.services.text import NAME_SCHEMA
from app.settings import Settings

router = APIRouter(route_class=SessionRoute, prefix="/auth", tags=["auth"])


class SignupIn(BaseModel):
    email: str = Field(max_length=320, description="an e-mail address (checked by the server: 422 invalid_email)")
    # the strength rule answers with a message code (a form goes back to its page), so not in the schema
    password: str = Field(max_length=1024,
                          description="not blank, 8+ characters, not among the 1,000 most common passwords")
    display_name: str = Field(default="", max_length=64, json_schema_extra=NAME_SCHEMA,
                              description="no control or text-direction characters (422 display_name_invalid)")
    next: str = Field(default="/", max_length=2048, description="where a form post is redirected")
    invite_code: str = Field(default="", max_length=64,
                             description="needed when sign-up is by invitation (KDOJO_SIGNUP=invite)")


class SigninIn(BaseModel):
    email: str = Field(max_length=320)
    password: str = Field(max_length=1024)
    next: str = Field(default="/", max_length=2048)


class SignoutIn(BaseModel):
    next: str = Field(default="/", max_length=2048)


class UserOut(BaseModel):
    id: int
    email: str
    display_name: str
    role: str


class SignedIn(BaseModel):
    user: UserOut
    next: str


class SignedOut(BaseModel):
    signed_out: bool


def _openapi(model: type[BaseModel], ok: type[BaseModel], *statuses: int) -> dict[str, Any]:
    """The body (JSON or a form) and answers of an /auth route, which reads its body itself."""
    schema = model.model_json_schema()
    form = {**schema, "properties": {**schema["properties"], "csrf_token": {"type": "string"}}}
    return {
        "openapi_extra": {"requestBody": {"required": True, "content": {
            "application/json": {"schema": schema},
            "application/x-www-form-urlencoded": {"schema": form},
        }}},
        "responses": {
            200: {"model": ok, "description": "JSON clients"},
            303: {"description": "form posts: redirected to `next` (or back to the form with `?error=<code>`)"},
            **{status: ERRORS[status] for status in statuses},
        },
    }


async def _payload(request: Request, model: type[BaseModel]) -> tuple[dict[str, Any], bool]:
    """The posted fields and whether the client speaks JSON.

    JSON and forms are validated against `model` (422 with FastAPI's list of
    errors); a body that is not JSON, or nested too deep to parse, is a 422
    too, never a 500."""
    if request.headers.get("content-type", "").startswith("application/json"):
        raw = await request.body()
        try:
            data = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError) as exc:
            raise RequestValidationError([{"type": "json_invalid", "loc": ["body"], "input": None,
                                           "msg": f"The body is not valid JSON ({exc.__class__.__name__})."}])
        return _validated(model, data), True
    form = await request.form()
    return _validated(model, {k: v for k, v in form.items() if isinstance(v, str)}), False


def _validated(model: type[BaseModel], data: Any) -> dict[str, Any]:
    try:
        return model.model_validate(data).model_dump()
    except ValidationError as exc:
        raise RequestValidationError([{**error, "loc": ("body", *error["loc"])}  # as FastAPI's own
                                      for error in exc.errors(include_url=False, include_context=False)])


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


def _failed(exc: ServiceError, as_json: bool, page: str, fields: dict[str, Any], **keep: str) -> Response:
    """JSON clients get the error; a form goes back to its page (the frontend's),
    which shows `error` and keeps the e-mail (and display name) typed so far."""
    if as_json:
        return service_error_response(exc)
    # only a code: the page shows its own translated text, never text from the link (#13)
    kept = {"error": exc.code or "unknown", "email": str(fields.get("email", ""))[:320]}
    if fields.get("display_name") and exc.code != "display_name_invalid":  # sign-up: not typed again
        kept["display_name"] = str(fields["display_name"])[:64]
    query = urlencode(kept | keep | {"next": safe_next(fields.get("next"))})
    return RedirectResponse(f"{page}?{query}", status_code=303)


# The routes are async only to read a form or JSON body; the work runs in the
# thread pool so it never stalls the event loop. Sign-up and sign-in open their
# own short transactions around argon2 rather than the request's write session:
# SQLite's write lock is never held while a password is hashed (issue #13).


@router.post("/signup", **_openapi(SignupIn, SignedIn, 400, 403, 409, 413, 422, 429))
async def signup(request: Request, settings: SettingsDep, catalog: CatalogDep) -> Response:
    """Create a learner account and sign it in (the browser's anonymous progress moves to it).

    `KDOJO_SIGNUP=closed`: 403 with code `signup_closed`. `invite`: a valid
    `invite_code` is needed, else 403 with code `invite_invalid` (wrong codes
    count toward the per-address sign-in limit, then 429 `signin_limit`)."""
    fields, as_json = await _payload(request, SignupIn)
    return await run_in_threadpool(_signup, request, settings, catalog, fields, as_json)


def _signup(request: Request, settings: Settings, catalog: Catalog, fields: dict[str, Any], as_json: bool) -> Response:
    factory = request.app.state.sessionmaker
    try:
        if settings.signup == "closed":
            raise signup_closed()
        if settings.signup == "invite":
            _check_invite_limit(factory, client_ip(request), settings)
        new = accounts.prepare_signup(str(fields.get("email", "")), str(fields.get("password", "")),
                                      str(fields.get("display_name", "")))
        try:
            with transaction(factory) as session:
                if settings.signup == "invite":  # spent with the account, or not at all
                    invites.spend(session, str(fields.get("invite_code", "")))
                user = accounts.create_account(session, new)
                progress_merge.merge_local_progress(session, user, catalog, [], [], request.cookies.get(ANON_COOKIE))
                return _signed_in(request, session, settings, user, as_json, safe_next(fields.get("next")))
        except ServiceError as exc:
            if exc.code == "invite_invalid":  # a guess: counted like a failed sign-in from this address
                with transaction(factory) as session:
                    ratelimit.record_failed_signin(session, client_ip(request), "")
            raise
    except ServiceError as exc:
        return _failed(exc, as_json, "/signup", fields)


def signup_closed() -> Forbidden:
    return Forbidden("Sign-up is closed on this site; ask its admin for an account.", "signup_closed")


def _check_invite_limit(factory: Any, address: str, settings: Settings) -> None:
    """Invite codes are guessed no faster than passwords: the sign-in limit per address."""
    with transaction(factory, write=False) as session:
        ratelimit.check_signin_limit(session, address, "", settings.signin_attempts_per_15min)


@router.post("/signin", **_openapi(SigninIn, SignedIn, 400, 401, 403, 413, 422, 429))
async def signin(request: Request, settings: SettingsDep, catalog: CatalogDep) -> Response:
    """Sign in; limited per address and, with a back-off, per account (docs/web.md)."""
    fields, as_json = await _payload(request, SigninIn)
    return await run_in_threadpool(_signin, request, settings, catalog, fields, as_json)


def _signin(request: Request, settings: Settings, catalog: Catalog, fields: dict[str, Any], as_json: bool) -> Response:
    factory = request.app.state.sessionmaker
    email = accounts.normalize_email(str(fields.get("email", "")))[:320]
    try:
        with transaction(factory) as session:  # the limits, and this attempt counted as failed
            user, attempt = accounts.begin_signin(session, email, client_ip(request),
                                                  settings.signin_attempts_per_15min,
                                                  settings.signin_failures_per_account)
    except ServiceError as exc:
        return _failed(exc, as_json, "/signin", fields)
    if not accounts.password_matches(user, str(fields.get("password", ""))):
        return _failed(accounts.signin_failed(), as_json, "/signin", fields)
    assert user is not None
    with transaction(factory) as session:
        accounts.finish_signin(session, attempt)
        user = session.get(User, user.id)
        # Submissions this browser made before signing in now belong to the account.
        progress_merge.merge_local_progress(session, user, catalog, [], [], request.cookies.get(ANON_COOKIE))
        return _signed_in(request, session, settings, user, as_json, safe_next(fields.get("next")))


def _revoke(factory: Any, token: str | None) -> None:
    with transaction(factory) as session:  # begun and committed in this one thread (issue #25)
        revoke_session(session, token)


@router.post("/signout", **_openapi(SignoutIn, SignedOut, 400, 403, 413, 422))
async def signout(request: Request) -> Response:
    """End this browser's session."""
    fields, as_json = await _payload(request, SignoutIn)
    await run_in_threadpool(_revoke, request.app.state.sessionmaker, request.cookies.get(SESSION_COOKIE))
    response: Response = (
        JSONResponse({"signed_out": True}) if as_json
        else RedirectResponse(safe_next(fields.get("next")), status_code=303)
    )
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


class PasswordChangeIn(BaseModel):
    current_password: str = Field(max_length=1024)
    new_password: str = Field(max_length=1024, description="the rules of sign-up (422 with a message code)")
    new_password_again: str = Field(max_length=1024, description="the same again (422 password_mismatch)")
    next: str = Field(default="/account/password?changed=1", max_length=2048)


class PasswordResetIn(BaseModel):
    token: str = Field(max_length=128, description="from the one-time link an admin made")
    new_password: str = Field(max_length=1024)
    new_password_again: str = Field(max_length=1024)
    next: str = Field(default="/signin?notice=password_reset", max_length=2048)


class PasswordChanged(BaseModel):
    changed: bool
    sessions_ended: int


def _new_password(fields: dict[str, Any], email: str) -> str:
    """The new password, checked (both typed the same, the sign-up rules), hashed."""
    new = str(fields.get("new_password", ""))
    if new != str(fields.get("new_password_again", "")):
        raise passwords_differ()
    passwords.check_strength(new, email)
    return passwords.hash_password(new)


def _done(as_json: bool, body: dict[str, Any], next_url: str) -> Response:
    return JSONResponse(body) if as_json else RedirectResponse(next_url, status_code=303)


@router.post("/password", **_openapi(PasswordChangeIn, PasswordChanged, 400, 401, 403, 413, 422, 429))
async def change_password(request: Request, settings: SettingsDep) -> Response:
    """A signed-in browser changes its account's password with the current one;
    the account's other sessions end (this one stays). A wrong current password
    counts as a failed sign-in (401 `password_wrong`, then 429)."""
    fields, as_json = await _payload(request, PasswordChangeIn)
    return await run_in_threadpool(_change_password, request, settings, fields, as_json)


def _change_password(request: Request, settings: Settings, fields: dict[str, Any], as_json: bool) -> Response:
    factory = request.app.state.sessionmaker
    cookie = request.cookies.get(SESSION_COOKIE)
    try:
        with transaction(factory) as session:  # the limits; this attempt counted until the password is proven
            user = user_for_token(session, cookie)
            if user is None:
                raise Unauthorized("Sign in to change your password.", "signin_needed")
            _, attempt = accounts.begin_signin(session, user.email, client_ip(request),
                                               settings.signin_attempts_per_15min,
                                               settings.signin_failures_per_account)
        if not accounts.password_matches(user, str(fields.get("current_password", ""))):
            raise Unauthorized("The current password is wrong.", "password_wrong")
        password_hash = _new_password(fields, user.email)
        with transaction(factory) as session:
            accounts.finish_signin(session, attempt)
            ended = store_password(session, user.id, password_hash, cookie)
    except ServiceError as exc:
        return _failed(exc, as_json, "/account/password", {"next": "/account/password"})
    return _done(as_json, {"changed": True, "sessions_ended": ended}, safe_next(fields.get("next")))


@router.post("/reset-password", **_openapi(PasswordResetIn, PasswordChanged, 400, 403, 413, 422, 429))
async def reset_password(request: Request, settings: SettingsDep) -> Response:
    """Set a new password with a one-time reset link's token; every session of
    the account ends. A token that is unknown, used, expired or replaced is a
    422 `reset_invalid` and counts toward the per-address sign-in limit (429)."""
    fields, as_json = await _payload(request, PasswordResetIn)
    return await run_in_threadpool(_reset_password, request, settings, fields, as_json)


def _reset_password(request: Request, settings: Settings, fields: dict[str, Any], as_json: bool) -> Response:
    factory = request.app.state.sessionmaker
    token = str(fields.get("token", ""))
    try:
        with transaction(factory) as session:
            ratelimit.check_signin_limit(session, client_ip(request), "", settings.signin_attempts_per_15min)
            row = live_reset(session, token)
            email = session.get(User, row.user_id).email if row is not None else None
            if email is None:  # recorded in this transaction, which commits
                ratelimit.record_failed_signin(session, client_ip(request), "")
        if email is None:
            raise reset_invalid()
        password_hash = _new_password(fields, email)
        with transaction(factory) as session:
            ended = redeem_reset(session, token, password_hash)
    except ServiceError as exc:
        keep = {"token": token} if exc.code != "reset_invalid" else {}
        return _failed(exc, as_json, "/reset-password", {"next": "/signin?notice=password_reset"}, **keep)
    return _done(as_json, {"changed": True, "sessions_ended": ended}, safe_next(fields.get("next")))
