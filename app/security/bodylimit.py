"""Request bodies are limited while they are read, not after (issue #13).

A body announced larger than the limit (`Content-Length`) is refused before a
byte is read; any other body (chunked, or a lying length) is counted as it
arrives and refused as soon as it passes the limit. Either way the client gets
413 with `{"detail": "The request body is larger than N bytes."}`, and nothing
downstream has parsed the body. The limit is `KDOJO_MAX_REQUEST_BYTES`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class BodyTooLarge(HTTPException):
    """Raised from `receive`; an HTTPException so that a route reading the body
    answers 413 by itself, and caught here when something else swallowed it."""

    def __init__(self, limit: int) -> None:
        super().__init__(status_code=413, detail=too_large_detail(limit))


def too_large_detail(limit: int) -> str:
    return f"The request body is larger than {limit} bytes."


class BodyLimitMiddleware:
    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _refuse(send, self.max_bytes)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def watching_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except BodyTooLarge:
            if started:
                raise
            await _refuse(send, self.max_bytes)


def _content_length(scope: Message) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Send, limit: int) -> None:
    body = json.dumps({"detail": too_large_detail(limit)}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
