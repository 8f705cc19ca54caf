"""`HEAD` answered like `GET`, without the body (issue #13).

FastAPI's `@router.get` routes answer `HEAD` with 405, so `curl -I` and uptime
checks saw every page as broken. This middleware hands the app a `GET` (in a
copy of the scope: the server still knows it was a `HEAD`) and sends the
client the status and headers, `content-length` included, and an empty body.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGetMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        finished = False

        async def send_without_body(message: Message) -> None:
            nonlocal finished
            if message["type"] == "http.response.start":
                await send(message)
            elif message["type"] == "http.response.body" and not finished:
                finished = True  # the rest of the body (a stream's too) goes nowhere
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        await self.app(dict(scope, method="GET"), receive, send_without_body)
