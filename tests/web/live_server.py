"""A real uvicorn server on a free port in a thread, for tests that need real
concurrency (threads of HTTP clients against one server process)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           access_log=False, proxy_headers=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def browser(base: str) -> httpx.Client:
    """A client holding the CSRF cookie, as a browser would after its first page."""
    client = httpx.Client(base_url=base, timeout=60)
    client.get("/api/me/progress")
    return client


def csrf_header(client: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": client.cookies.get("kdojo_csrf") or ""}
