"""`StreamHub`: one poller per process feeds every open event stream (issue #25).

An open `GET /api/submissions/{id}/events` holds no connection and no thread:
it waits on an asyncio queue. One task per process reads the new
`submission_events` rows of all open streams in one query per interval
(`events_after_many`), in a thread of its own (so it never queues behind
requests for anyio's pool), and hands each stream its rows. While a stream's
submission waits in the queue, its position is read again whenever the queue
has changed (`queue_fingerprint`, one more query) and handed over too. 1,000 open streams cost one query per
interval instead of 1,000 threads polling.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.services import submissions as service
from app.services.events import events_after_many, queue_fingerprint
from kernels.contract import Event

log = logging.getLogger("kdojo.streams")
MAX_CURSORS_PER_QUERY = 2000  # SQLite takes up to 32,766 bound values: 2 a cursor


@dataclass(eq=False)
class Subscription:
    """One open stream: what it has been sent, and what waits for it."""

    submission_id: int
    after_seq: int
    items: asyncio.Queue[tuple[str, Any]] = field(default_factory=asyncio.Queue)
    waiting: bool = False  # its last event was `queued`: positions are wanted


class StreamHub:
    def __init__(self, factory: sessionmaker[Session], poll_s: float) -> None:
        self.factory = factory
        self.poll_s = poll_s
        self._subs: dict[int, set[Subscription]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._queue_seen: tuple[int, int, int] | None = None
        self.polls = 0  # queries made, for tests and the benchmark

    def subscribe(self, submission_id: int, after_seq: int) -> Subscription:
        self._ensure_running()
        sub = Subscription(submission_id, after_seq)
        self._subs.setdefault(submission_id, set()).add(sub)
        self._wake.set()
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.submission_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.submission_id]

    @property
    def open_streams(self) -> int:
        return sum(len(subs) for subs in self._subs.values())

    def _ensure_running(self) -> None:
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done() and self._loop is loop:
            return
        # first stream, or a new event loop (a test client's): start afresh on this one
        self._subs, self._wake, self._loop = {}, asyncio.Event(), loop
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kdojo-streams")
        self._task = loop.create_task(self._run(), name="kdojo-stream-hub")

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        executor = self._executor
        while True:
            if not self._subs:
                self._wake.clear()
                await self._wake.wait()
            cursors = {sid: min(sub.after_seq for sub in subs) for sid, subs in self._subs.items()}
            waiting = [sid for sid, subs in self._subs.items() if any(sub.waiting for sub in subs)]
            try:
                rows, positions = await loop.run_in_executor(executor, self._fetch, cursors, waiting)
            except Exception:  # noqa: BLE001 - the streams wait for the next round
                log.exception("reading stream events failed")
                rows, positions = [], {}
            self._dispatch(rows, positions, cursors)
            await asyncio.sleep(self.poll_s)

    def _fetch(self, cursors: dict[int, int], waiting: list[int]) -> tuple[list[Any], dict[int, int]]:
        # one short read transaction, begun and ended in the hub's own thread
        items = list(cursors.items())
        rows: list[Any] = []
        with self.factory() as session:
            for start in range(0, len(items), MAX_CURSORS_PER_QUERY):
                rows += events_after_many(session, dict(items[start:start + MAX_CURSORS_PER_QUERY]))
                self.polls += 1
            positions: dict[int, int] = {}
            if waiting:
                seen = queue_fingerprint(session)
                if seen != self._queue_seen:
                    self._queue_seen = seen
                    # one query a waiting submission: positions follow app.services.submissions' rule
                    positions = {sid: service.queue_position(session, sid) for sid in waiting}
        return rows, positions

    def _dispatch(self, rows: list[tuple[int, int, str, dict[str, Any]]], positions: dict[int, int],
                  cursors: dict[int, int]) -> None:
        for submission_id, seq, event, data in rows:
            for sub in self._subs.get(submission_id, ()):
                # a stream that joined during the query, behind its cursor, waits for the next round
                if cursors[submission_id] <= sub.after_seq < seq:
                    sub.after_seq = seq
                    sub.waiting = event == Event.QUEUED
                    if sub.waiting:  # its stored position may be stale already: read positions anew
                        self._queue_seen = None
                    sub.items.put_nowait(("event", (seq, event, data)))
        for submission_id, position in positions.items():
            for sub in self._subs.get(submission_id, ()):
                if sub.waiting and position:
                    sub.items.put_nowait(("position", position))
