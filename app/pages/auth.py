"""The sign-in, sign-up and password pages (GET); the backend's `/auth/*` handles the POSTs."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.deps import CatalogDep, CurrentUser, SessionDep, SettingsDep
from app.i18n import translate
from app.services.account_recovery import live_reset
from app.pages.context import base_context, render
from app.routing import SessionRoute

router = APIRouter(route_class=SessionRoute)


def safe_next(value: str | None) -> str:
    """Only same-site paths: `next` must not send the learner to another site."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


# `?error=` carries a code only (app/api/auth.py); the page shows its own
# translated text, so a crafted link cannot put words on the page (#13).
AUTH_ERRORS = ("invalid_email", "password_short", "password_long", "password_blank", "password_common", "display_name_long",
               "display_name_invalid", "email_taken", "signin_failed", "signin_limit", "signin_account_limit", "unknown",
               "signup_closed", "invite_invalid", "password_mismatch", "password_wrong", "reset_invalid",
               "signin_needed")
# `?notice=` likewise names one of these (auth.notice.<code>)
AUTH_NOTICES = ("password_reset",)


def error_text(lang: str, code: str | None) -> str:
    """The translated message for an error code; an unknown code gets the generic one."""
    if not code:
        return ""
    from app.security.passwords import MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH

    params = {"password_short": {"min": MIN_PASSWORD_LENGTH}, "password_long": {"max": MAX_PASSWORD_LENGTH},
              "display_name_long": {"max": 64}}
    code = code if code in AUTH_ERRORS else "unknown"
    return translate(lang, f"error.{code}", **params.get(code, {}))


def _auth_page(template: str, request: Request, session, user, catalog, next_path: str | None,
               **extra: object) -> HTMLResponse:
    context = base_context(request, session, user, catalog)
    notice = request.query_params.get("notice")
    context.update(next_path=safe_next(next_path),
                   error=error_text(context["lang"], request.query_params.get("error")),
                   notice=translate(context["lang"], f"auth.notice.{notice}") if notice in AUTH_NOTICES else "",
                   email=request.query_params.get("email", ""),
                   display_name=request.query_params.get("display_name", "")[:64], **extra)
    return render(request, template, context)


@router.get("/signin", response_class=HTMLResponse, name="signin")
def signin_page(request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep,
                next: str | None = None) -> HTMLResponse:
    return _auth_page("signin.html", request, session, user, catalog, next)


@router.get("/signup", response_class=HTMLResponse, name="signup")
def signup_page(request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep,
                settings: SettingsDep, next: str | None = None) -> HTMLResponse:
    return _auth_page("signup.html", request, session, user, catalog, next, signup_mode=settings.signup)


@router.get("/account/password", response_class=HTMLResponse, name="change_password")
def change_password_page(request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep,
                         changed: bool = False) -> Response:
    """The signed-in learner's password form (POST /auth/password)."""
    if user is None:
        return RedirectResponse("/signin?next=/account/password", status_code=303)
    return _auth_page("password.html", request, session, user, catalog, "/account/password", changed=changed)


@router.get("/reset-password", response_class=HTMLResponse, name="reset_password")
def reset_password_page(request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep,
                        token: str = "") -> HTMLResponse:
    """The form behind an admin's one-time link (POST /auth/reset-password); a
    link that cannot be used any more says so instead."""
    live = live_reset(session, token) is not None
    response = _auth_page("reset_password.html", request, session, user, catalog, "/", token=token, live=live)
    response.headers["Referrer-Policy"] = "no-referrer"  # the token is in this page's address
    response.headers["Cache-Control"] = "no-store"
    return response
