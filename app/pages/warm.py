"""Every lesson page rendered once before the server takes requests (issue #25).

A server's first lesson page costs ~120 ms of CPU where the next costs ~1.5 ms:
Jinja compiles the templates, Pygments loads its lexers to highlight the lesson's
code, the routes build their matching tables, SQLAlchemy compiles the learner's
queries, the exercise panels and the page data are rendered and kept. When a class
opens the lesson at once on a fresh server, every request thread did all of that
at the same moment (nothing is shared until it is made), and the first pages cost
the burst seconds.

`warm(app)` asks the app itself for each published lesson in each page language,
in process and one at a time, as a reader with a session cookie that signs no one
in (so the route looks the learner up), then reads an unknown learner's state once.
What it makes is what any reader's request would make: kept texts, compiled
templates and statements; no learner's data (and no count in `/metrics`). `kdojo serve` calls it before
`gc.freeze()`, so what it made is also out of the cyclic collector's way.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from app.i18n import LANG_COOKIE, LANGS
from app.security.sessions import SESSION_COOKIE

WARM_SESSION = "warm-up-signs-no-one-in"  # no session's token (a token is 43 random characters)


def warm(app: Any) -> dict[str, Any]:
    """Render every published lesson page of `app` once per language; returns what it did
    ({"pages": n, "failed": [path, …], "seconds": s}). Runs its own event loop: call it
    before the server's loop starts."""
    started = time.monotonic()
    failed: list[str] = []
    paths = [f"/lessons/{lesson.id}" for lesson in app.state.catalog.lessons.values()
             if lesson.status == "published"]

    async def every_page() -> None:
        for path in paths:
            for lang in LANGS:
                try:
                    status: int | str = await _get(app, path, f"{SESSION_COOKIE}={WARM_SESSION}; {LANG_COOKIE}={lang}")
                except Exception as exc:  # noqa: BLE001 - said, and the page is served (and fails) as before
                    status = type(exc).__name__
                if status != 200:
                    failed.append(f"{path} ({lang}): {status if isinstance(status, str) else f'HTTP {status}'}")

    metrics = getattr(app.state, "metrics", None)
    counted = dict(metrics.http) if metrics is not None else {}
    asyncio.run(every_page())
    if metrics is not None:  # /metrics counts the server's requests, not its warming
        metrics.http.clear()
        metrics.http.update(counted)
    _learner_queries(app)
    return {"pages": len(paths) * len(LANGS), "failed": failed, "seconds": round(time.monotonic() - started, 2)}


def _learner_queries(app: Any) -> None:
    """A signed-in page's own query, compiled once (a learner with no id has no rows)."""
    from app.services.progress import learner_state

    with app.state.sessionmaker() as session:
        learner_state(session, 0)
        session.rollback()


async def _get(app: Any, path: str, cookie: str) -> int:
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
             "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
             "root_path": "", "headers": [(b"host", b"127.0.0.1"), (b"cookie", cookie.encode())],
             "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 80), "state": {}}
    statuses: list[int] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app(scope, receive, send)
    return statuses[0] if statuses else 0
