"""Stage events of submissions being judged, stored by one thread (issue #25).

The judge reports progress (compiling, testing i/n, …) through a callback
while it supervises the kernel. Storing an event is a database write, and a
write can wait: on a busy SQLite database, for the write lock. The callback
therefore only hands the event over (`put`, never blocking); this writer
stores what it is given in small batches. Progress is a courtesy: an event
that cannot be handed over (the hand-off is full) or stored (the database
failed) is dropped and logged once per submission, and the verdict, stored
afterwards by the worker, is the kernel's whatever happened here.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.db import transaction
from app.services.events import add_event

log = logging.getLogger("kdojo.worker")

CAPACITY = 1000  # events waiting at most (a few per test case and submission)
BATCH = 100  # events stored per transaction at most
FLUSH_TIMEOUT_S = 5.0  # how long a finished job waits for its events before `done`


class EventWriter:
    """A bounded hand-off and the thread that stores what is handed over."""

    def __init__(self, factory: sessionmaker[Session], capacity: int = CAPACITY) -> None:
        self.factory = factory
        self._queue: queue.Queue[tuple[int, str, Any]] = queue.Queue(maxsize=capacity)
        self._lock = threading.Lock()
        self._open: set[int] = set()  # submissions whose events are still wanted
        self._dropped: set[int] = set()  # submissions with a drop already logged
        self._thread = threading.Thread(target=self._run, name="kdojo-event-writer", daemon=True)
        self._stop = threading.Event()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def begin(self, submission_id: int) -> None:
        """Events of `submission_id` are wanted from now on (a new attempt)."""
        with self._lock:
            self._open.add(submission_id)
            self._dropped.discard(submission_id)

    def put(self, submission_id: int, event: str, data: dict[str, Any]) -> None:
        """Hand an event over; never blocks."""
        try:
            self._queue.put_nowait((submission_id, event, data))
        except queue.Full:
            self._drop(submission_id, "the hand-off to the event writer is full")

    def end(self, submission_id: int, timeout_s: float = FLUSH_TIMEOUT_S) -> None:
        """Wait (at most `timeout_s`) until the events handed over so far are stored;
        later ones are dropped, so no progress event follows the stored `done`."""
        stored = threading.Event()
        try:
            self._queue.put((submission_id, "", stored), timeout=timeout_s)
            if not stored.wait(timeout_s):
                log.warning("progress events of submission %s still unstored after %.0f s; dropped",
                            submission_id, timeout_s)
        except queue.Full:
            log.warning("the event writer is full; progress events of submission %s dropped", submission_id)
        with self._lock:
            self._open.discard(submission_id)
            self._dropped.discard(submission_id)

    def _drop(self, submission_id: int, why: str) -> None:
        with self._lock:
            first = submission_id not in self._dropped
            self._dropped.add(submission_id)
        if first:  # once per submission: a stalled database must not flood the log
            log.warning("progress events of submission %s dropped (%s); its verdict is unaffected",
                        submission_id, why)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                batch = [self._queue.get(timeout=0.5)]
            except queue.Empty:
                continue
            while len(batch) < BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._store(batch)

    def _store(self, batch: list[tuple[int, str, Any]]) -> None:
        with self._lock:
            wanted = [(sid, event, data) for sid, event, data in batch if event and sid in self._open]
        if wanted:
            try:
                with transaction(self.factory) as session:
                    for submission_id, event, data in wanted:
                        add_event(session, submission_id, event, data)
            except Exception as exc:  # noqa: BLE001 - progress is a courtesy; the verdict is stored apart
                for submission_id in {sid for sid, _, _ in wanted}:
                    self._drop(submission_id, f"storing failed: {type(exc).__name__}: {exc}")
        for _, event, marker in batch:
            if not event:  # an `end` waits for this
                marker.set()
