"""`SessionRoute`: the route class of every router that hands a route the request's
database session (issue #25).

A sync route runs in a pool thread; its transaction (and with it the pooled
connection and, on SQLite, the write lock) must end in that thread, before the
answer goes back to the event loop. Routes that write commit themselves; what
is still open when the route returns is ended here: a read is committed (the
objects it loaded stay usable for the response), anything else is rolled back.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from fastapi.routing import APIRoute
from sqlalchemy.orm import Session


def end_transaction(session: Session, failed: bool) -> None:
    """End `session`'s transaction in this thread and give its connection back."""
    if not session.in_transaction():
        return
    if failed or session.info.get("write"):
        session.rollback()
    else:
        session.commit()


def _ending_transactions(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(endpoint)
    def run(*args: Any, **kwargs: Any) -> Any:
        sessions = [value for value in kwargs.values() if isinstance(value, Session)]
        try:
            result = endpoint(*args, **kwargs)
        except BaseException:
            for session in sessions:
                end_transaction(session, failed=True)
            raise
        for session in sessions:
            end_transaction(session, failed=False)
        return result

    return run


class SessionRoute(APIRoute):
    """An APIRoute whose sync endpoint ends its session's transaction in its own thread."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if not inspect.iscoroutinefunction(endpoint) and inspect.isfunction(endpoint):
            endpoint = _ending_transactions(endpoint)
        super().__init__(path, endpoint, **kwargs)
