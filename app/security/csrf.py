"""CSRF protection by signed double-submit.

Every response carries a `kdojo_csrf` cookie (set once, signed with the secret
key); every state-changing request must echo it as the `X-CSRF-Token` header
(JavaScript) or the `csrf_token` form field (HTML forms). A cross-site page can
make the browser send the cookie but cannot read it, so it cannot echo it.
Requests authenticated by an `Authorization: Bearer` header carry no ambient
credential and are exempt.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any

from starlette.requests import Request

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


def _sign(secret: str, nonce: str) -> str:
    return hmac.new(secret.encode(), nonce.encode(), hashlib.sha256).hexdigest()[:32]


def new_token(secret: str) -> str:
    nonce = secrets.token_urlsafe(24)
    return f"{nonce}.{_sign(secret, nonce)}"


def valid_token(secret: str, token: str | None) -> bool:
    if not token or "." not in token:
        return False
    nonce, mac = token.rsplit(".", 1)
    return hmac.compare_digest(mac, _sign(secret, nonce))


class CSRFMiddleware:
    def __init__(self, app: Any, secret: str, secure: bool = False) -> None:
        self.app = app
        self.secret = secret
        self.secure = secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        cookie = request.cookies.get(CSRF_COOKIE)
        fresh = not valid_token(self.secret, cookie)
        token = new_token(self.secret) if fresh else cookie
        scope.setdefault("state", {})["csrf_token"] = token
        if scope["method"] not in SAFE_METHODS and not _bearer(request):
            sent, receive = await _echoed_token(request, receive)
            if fresh or not sent or not hmac.compare_digest(sent, cookie or ""):
                await _reject(scope, receive, send)
                return
        if not fresh:
            await self.app(scope, receive, send)
            return

        secure = self.secure or scope.get("scheme") == "https"

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                morsel = SimpleCookie()
                morsel[CSRF_COOKIE] = token
                morsel[CSRF_COOKIE].update({"path": "/", "samesite": "Lax"})
                if secure:
                    morsel[CSRF_COOKIE]["secure"] = True
                header = morsel.output(header="").strip().encode("latin-1")
                message.setdefault("headers", []).append((b"set-cookie", header))
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _bearer(request: Request) -> bool:
    return request.headers.get("authorization", "").lower().startswith("bearer ")


async def _echoed_token(request: Request, receive: Receive) -> tuple[str | None, Receive]:
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
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_FORM_BYTES or not message.get("more_body", False):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    form_request = Request(request.scope, _once(body))
    form = await form_request.form()
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


async def _reject(scope: Scope, receive: Receive, send: Send) -> None:
    body = json.dumps(
        {"detail": "CSRF check failed: reload the page and try again."}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
