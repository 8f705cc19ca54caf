"""What our processes print: secrets masked, and repeated faults told once (issue #25).

- `mask_url(url)` is the one way a database or Redis URL is shown; `redact(text)`
  masks every URL's password (and `password=`/`token=` query values) in any text,
  plus the secrets `register_secret` was given (exact strings: a password that
  travelled into a driver's message without its URL).
- `configure_logging()` (the commands) formats every log line, traceback
  included, through `redact`, and tells uvicorn's "Exception in ASGI
  application" traceback once per (exception type, location) and period.
- `FaultLog` is a loop's memory of a fault that repeats (Redis or the database
  gone): one line at the first failure, its traceback once, then at most one
  line per back-off period (doubling to a cap), and one line on recovery.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import traceback
from typing import Any

LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
MASK = "***"

# scheme://user:PASSWORD@host (the user may be empty: redis://:PASSWORD@host)
_USERINFO = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@'\"]*:)(?P<secret>[^\s@'\"]+)(?P<tail>@)")
# ?password=… &token=… in a URL's query (libpq and redis-py accept them)
_QUERY = re.compile(r"(?P<head>[?&](?:password|passwd|pwd|token|secret|api_key)=)(?P<secret>[^&\s'\"]+)", re.IGNORECASE)

_secrets: set[str] = set()
_secrets_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Mask `value` wherever it appears from now on (short values are ignored:
    masking every "a" would make messages unreadable and hide nothing)."""
    if value and len(value) >= 4:
        with _secrets_lock:
            _secrets.add(value)


def register_url(url: str | None) -> None:
    """Register the password (and query secrets) a URL carries."""
    if not url:
        return
    for pattern in (_USERINFO, _QUERY):
        for match in pattern.finditer(url):
            register_secret(match.group("secret"))


def redact(text: str) -> str:
    text = _USERINFO.sub(lambda m: m.group("head") + MASK + m.group("tail"), text)
    text = _QUERY.sub(lambda m: m.group("head") + MASK, text)
    with _secrets_lock:
        secrets = sorted(_secrets, key=len, reverse=True)  # a longer secret may contain a shorter
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text


def mask_url(url: str) -> str:
    """A database or queue URL as we show it: everything but its secrets."""
    return redact(url)


class RedactingFormatter(logging.Formatter):
    """Formats a record (message, traceback, stack) and masks secrets in the result."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class RepeatedTracebackFilter(logging.Filter):
    """A traceback is logged once per (exception type, where it was raised) and
    `period_s`; within the period the same fault is one line naming both."""

    def __init__(self, period_s: float = 60.0, clock: Any = time.monotonic) -> None:
        super().__init__()
        self.period_s = period_s
        self.clock = clock
        self._told: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        exc_info = record.exc_info
        if not exc_info or exc_info[1] is None:
            return True
        key = (exc_info[0].__name__ if exc_info[0] else "?", _location(exc_info[1]))
        now = self.clock()
        with self._lock:
            told_at = self._told.get(key)
            if told_at is None or now - told_at >= self.period_s:
                self._told[key] = now
                return True
        # uvicorn's message ends in a line break: one line means stripping it
        record.msg = f"{record.getMessage().strip()}: {key[0]} at {key[1]}: {_one_line(exc_info[1])} " \
                     f"(traceback shown at most once per {self.period_s:g} s)"
        record.args = None
        record.exc_info = None
        record.exc_text = None
        return True


def _location(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    if not frames:
        return "?"
    return f"{frames[-1].filename}:{frames[-1].lineno}"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def configure_logging(period_s: float = 60.0) -> None:
    """The commands' logging: one format, secrets masked, a repeated traceback told once per period."""
    handler = logging.StreamHandler()
    handler.setFormatter(RedactingFormatter(LOG_FORMAT))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)  # start-up noise
    # uvicorn's "Exception in ASGI application" (a 500), huey's failed task, our
    # worker's failed heartbeat or stage event: each may repeat once per request or job
    for name in ("uvicorn.error", "huey", "kdojo.worker"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RepeatedTracebackFilter) for f in logger.filters):
            logger.addFilter(RepeatedTracebackFilter(period_s))


class FaultLog:
    """The log of one loop's repeated fault; `failed(exc)` each time it fails,
    `ok()` each time it works. Thread-safe (a consumer's threads share one)."""

    def __init__(self, logger: logging.Logger, what: str, first_s: float = 5.0, cap_s: float = 300.0,
                 clock: Any = time.monotonic) -> None:
        self.log, self.what, self.first_s, self.cap_s, self.clock = logger, what, first_s, cap_s, clock
        self._lock = threading.Lock()
        self._traced: set[type] = set()
        self._reset()

    def _reset(self) -> None:
        self.failures = 0
        self.since = 0.0
        self.period_s = self.first_s
        self.next_at = 0.0
        self.unreported = 0

    @property
    def failing(self) -> bool:
        return self.failures > 0

    def failed(self, exc: BaseException) -> None:
        now = self.clock()
        with self._lock:
            self.failures += 1
            first = self.failures == 1
            if first:
                self.since = now
            elif now < self.next_at:
                self.unreported += 1
                return
            trace = type(exc) not in self._traced
            self._traced.add(type(exc))
            skipped, self.unreported = self.unreported, 0
            self.next_at = now + self.period_s
            if not first:
                self.period_s = min(self.period_s * 2, self.cap_s)
        if first:
            self.log.error("%s failed: %s: %s (retrying; next report in %g s at most)", self.what,
                           type(exc).__name__, _one_line(exc), self.first_s, exc_info=exc if trace else None)
        else:
            self.log.error("%s still failing after %.0f s (%d failures, %d since the last line): %s: %s",
                           self.what, now - self.since, self.failures, skipped + 1, type(exc).__name__,
                           _one_line(exc), exc_info=exc if trace else None)

    def ok(self) -> None:
        if not self.failures:  # the common case: no lock, nothing to say
            return
        with self._lock:
            failures, since = self.failures, self.since
            if not failures:
                return
            self._reset()
        self.log.warning("%s works again after %.0f s (%d failures)", self.what, self.clock() - since, failures)

    def backoff_s(self, base_s: float, cap_s: float) -> float:
        """How long a loop should wait before its next try: `base_s` doubled per
        consecutive failure, at most `cap_s`."""
        return min(base_s * (2 ** min(self.failures, 30)), cap_s) if self.failures else base_s
