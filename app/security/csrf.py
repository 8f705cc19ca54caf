"""CSRF protection by signed double-submit, tied to the session.

Every response carries a `kdojo_csrf` cookie (set once, signed with the secret
key); every state-changing request must echo it as the `X-CSRF-Token` header
(JavaScript) or the `csrf_token` form field (HTML forms). A cross-site page can
make the browser send the cookie but cannot read it, so it cannot echo it.

The signature covers the session cookie too (its SHA-256, or nothing when
signed out): a token planted or read before sign-in is worthless after it.
When a response sets or clears the session cookie, it also sets a fresh token
bound to the new session.

A request with an `Authorization: Bearer` header is authenticated by it alone:
its cookies are removed before anything else sees them, so it carries no
ambient credential and is exempt from the check, and its response sets no
cookies (issue #13: a Bearer header plus the session cookie used to skip the
check for the cookie's session).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import CookieError, SimpleCookie
from typing import Any

from starlette.requests import Request

from app.security.sessions import SESSION_COOKIE

CSRF_COOKIE = "kdojo_csrf"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE"}
MAX_FORM_BYTES = 1 << 20

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def csrf_token(request: Request) -> str:
    """The token for this request's templates (`<meta name="csrf-token">`, form fields)."""
    return request.scope.setdefault("state", {}).get("csrf_token", "")


def _binding(session_token: str | None) -> str:
    return hashlib.sha256(session_token.encode()).hexdigest() if session_token else ""


def _sign(secret: str, nonce: str, session_token: str | None) -> str:
    message = f"{nonce}|{_binding(session_token)}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:32]


def new_token(secret: str, session_token: str | None = None) -> str:
    nonce = secrets.token_urlsafe(24)
    return f"{nonce}.{_sign(secret, nonce, session_token)}"


def valid_token(secret: str, token: str | None, session_token: str | None = None) -> bool:
    """A token we signed for this session (None or "": signed out)."""
    if not token or "." not in token:
        return False
    nonce, mac = token.rsplit(".", 1)
    return hmac.compare_digest(mac, _sign(secret, nonce, session_token))


def has_bearer(scope: Scope) -> bool:
    """`Authorization: Bearer …` (only Bearer: a proxy's Basic auth is sent by browsers on their own)."""
    return any(name == b"authorization" and value[:7].lower() == b"bearer "
               for name, value in scope.get("headers", []))


def strip_cookies(scope: Scope) -> None:
    """A request authenticated by its Authorization header carries no cookies further."""
    scope["headers"] = [(k, v) for k, v in scope.get("headers", []) if k != b"cookie"]


def _without_set_cookie(send: Send) -> Send:
    """Nor does its answer change the browser's cookies (a sign-out, a new anonymous id)."""

    async def send_cookieless(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"set-cookie"]
        await send(message)

    return send_cookieless


class CSRFMiddleware:
    def __init__(self, app: Any, secret: str, secure: bool = False) -> None:
        self.app = app
        self.secret = secret
        self.secure = secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if has_bearer(scope):
            strip_cookies(scope)
            await self.app(scope, receive, _without_set_cookie(send))
            return
        request = Request(scope)
        cookie = request.cookies.get(CSRF_COOKIE)
        session_token = request.cookies.get(SESSION_COOKIE)
        fresh = not valid_token(self.secret, cookie, session_token)
        token = new_token(self.secret, session_token) if fresh else cookie
        scope.setdefault("state", {})["csrf_token"] = token
        if scope["method"] not in SAFE_METHODS:
            sent, receive = await _echoed_token(request, receive)
            if isinstance(sent, _Refusal):
                await _send_json(send, sent.status, sent.detail)
                return
            if fresh or not sent or not hmac.compare_digest(sent, cookie or ""):
                await _send_json(send, 403, "CSRF check failed: reload the page and try again.")
                return
        secure = self.secure or scope.get("scheme") == "https"

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.setdefault("headers", [])
                new_session = _session_set_by(headers)
                if new_session is not None:  # signed in or out: a token for the new session
                    headers.append(_cookie_header(new_token(self.secret, new_session), secure))
                elif fresh:
                    headers.append(_cookie_header(token, secure))
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _cookie_header(token: str, secure: bool) -> tuple[bytes, bytes]:
    morsel = SimpleCookie()
    morsel[CSRF_COOKIE] = token
    morsel[CSRF_COOKIE].update({"path": "/", "samesite": "Lax"})
    if secure:
        morsel[CSRF_COOKIE]["secure"] = True
    return b"set-cookie", morsel.output(header="").strip().encode("latin-1")


def _session_set_by(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The session cookie's new value when the response sets it ("" when it clears it)."""
    for name, value in headers:
        if name.lower() != b"set-cookie" or not value.startswith(SESSION_COOKIE.encode() + b"="):
            continue
        try:
            parsed = SimpleCookie(value.decode("latin-1"))
        except CookieError:
            return ""
        morsel = parsed.get(SESSION_COOKIE)
        if morsel is None or morsel["max-age"] in ("0", 0) or morsel.value in ("", '""'):
            return ""
        return morsel.value
    return None


class _Refusal:
    def __init__(self, status: int, detail: str) -> None:
        self.status, self.detail = status, detail


async def _echoed_token(request: Request, receive: Receive) -> tuple[str | _Refusal | None, Receive]:
    """The token from the header, or from the form body (which is then replayed)."""
    header = request.headers.get(CSRF_HEADER)
    if header:
        return header, receive
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        return None, receive
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return _Refusal(400, "The client went away before the form was sent."), receive
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_FORM_BYTES:  # never parse a part of a form
            return _Refusal(413, f"The form is larger than {MAX_FORM_BYTES} bytes."), receive
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    try:
        form = await Request(request.scope, _once(body)).form()
    except Exception:  # noqa: BLE001 - starlette raises several kinds for a malformed form
        return _Refusal(400, "The form could not be read."), receive
    value = form.get(CSRF_FIELD)
    await form.close()
    return (value if isinstance(value, str) else None), replay


def _once(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _send_json(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
