"""Error pages for browsers, JSON for API clients (issue #13).

`wants_html(request)` is the one negotiation rule: a request outside `/api/`
whose `Accept` prefers `text/html` (what a browser sends when it navigates) gets
`error.html` in the reader's language; everything else (the JSON API, scripts,
htmx fragments, curl) gets FastAPI's usual `{"detail": …}` JSON. `install(app)`
registers the handlers; `app.main.create_app` calls it once.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response

from app.i18n import request_lang

# status → (title key, message key) of the page
_PAGES = {
    401: ("error.signin_needed", "error.signin_needed"),
    403: ("error.forbidden_title", "error.forbidden"),
    404: ("error.not_found", "error.not_found"),
    500: ("error.server_title", "error.server"),
}
_SERVER_ERROR_DETAIL = "Something went wrong on our side (not your fault); it has been logged. Try again in a moment."
_JSON_PREFIXES = ("/api/", "/auth/", "/static/")


def wants_html(request: Request) -> bool:
    """A browser navigating to a page (not the API, not a script's fetch, not htmx)."""
    if request.url.path.startswith(_JSON_PREFIXES) or request.headers.get("hx-request"):
        return False
    accept = request.headers.get("accept", "")
    html_at = accept.find("text/html")
    json_at = accept.find("application/json")
    return html_at >= 0 and (json_at < 0 or html_at < json_at)


def error_page(request: Request, status: int, message_key: str | None = None) -> Response:
    """`error.html` with `status`, rendered with the reader's language and account."""
    from app.pages.context import base_context, render

    title_key, default_key = _PAGES.get(status, ("error.title", "error.unknown"))
    context = _context(request, base_context)
    context.update(error_title_key=title_key, message_key=message_key or default_key, status=status,
                   message="")
    return render(request, "error.html", context, status_code=status)


def _context(request: Request, base_context: Any) -> dict[str, Any]:
    from app.db import open_session
    from app.deps import load_user

    session = open_session(request.app.state.sessionmaker, write=False)
    try:
        user = load_user(request, session)
        return base_context(request, session, user, request.app.state.catalog)
    finally:
        session.close()


# The detail texts of our own page routes that have a translated message.
_KNOWN_DETAILS = {
    "The reference is shown after you pass this exercise.": "error.reference_locked",
    "Only admins manage API tokens.": "error.forbidden",
    "Sign in as an admin.": "error.signin_needed",
}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if wants_html(request) and exc.status_code in _PAGES:
        request_lang(request)
        return error_page(request, exc.status_code, _KNOWN_DETAILS.get(str(exc.detail)))
    return await http_exception_handler(request, exc)


def validation_detail(exc: RequestValidationError) -> list[dict[str, Any]]:
    """The 422's items as `{type, loc, msg}`: FastAPI's shape without the
    offending `input` (a body of `1e999` parses to infinity, which JSON cannot
    carry back; and a 1 MiB field need not come back either) or `ctx`."""
    return [{"type": str(e.get("type", "")), "loc": [str(p) if not isinstance(p, int) else p for p in e.get("loc", ())],
             "msg": str(e.get("msg", ""))} for e in exc.errors()]


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if wants_html(request):
        return error_page(request, 404)  # a page address with a malformed part names no page
    return JSONResponse({"detail": validation_detail(exc)}, status_code=422)


async def _server_error(request: Request, exc: Exception) -> Response:
    """An unexpected exception: the page in the reader's language for a browser,
    JSON for everyone else. Starlette logs the traceback after this answers.
    If even the page cannot be rendered (the database is down), plain text."""
    if wants_html(request):
        try:
            request_lang(request)
            return error_page(request, 500)
        except Exception:  # noqa: BLE001 - the original error is what gets logged
            return Response(_SERVER_ERROR_DETAIL, status_code=500, media_type="text/plain; charset=utf-8")
    return JSONResponse({"detail": _SERVER_ERROR_DETAIL}, status_code=500)


def install(app: FastAPI) -> None:
    app.add_exception_handler(Exception, _server_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
