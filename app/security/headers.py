"""Headers every response carries: no MIME sniffing, no framing by other sites,
no full URLs leaked to other sites in Referer, and a Content-Security-Policy.

The policy allows scripts from our own origin only (plus, for a page that needs
one, an inline script carrying this response's nonce: `csp_nonce(request)`), so
an injected `<script>` or `onclick=` does not run even if escaping ever failed.
Styles allow 'unsafe-inline': the vendored editor, KaTeX, htmx and uPlot write
style elements and attributes at run time; CSS cannot run script, and
everything else (images, fonts, fetches, forms, frames) is same-origin only.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]

HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]
CSP_HEADER = b"content-security-policy"


def content_security_policy(nonce: str) -> str:
    return "; ".join([
        "default-src 'self'",
        f"script-src 'self' 'nonce-{nonce}'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])


def csp_nonce(request: Any) -> str:
    """This response's script nonce (`<script nonce="…">`); one per request."""
    state = request.scope.setdefault("state", {})
    if "csp_nonce" not in state:
        state["csp_nonce"] = secrets.token_urlsafe(16)
    return state["csp_nonce"]


class SecurityHeadersMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Message, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state.setdefault("csp_nonce", secrets.token_urlsafe(16))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                headers = message.setdefault("headers", [])
                headers += [(k, v) for k, v in HEADERS if k not in present]
                if CSP_HEADER not in present:
                    headers.append((CSP_HEADER, content_security_policy(state["csp_nonce"]).encode()))
            await send(message)

        await self.app(scope, receive, send_with_headers)
