"""Prometheus metrics at `/metrics` (text exposition format 0.0.4, written here).

In-process: HTTP requests by status class (counted by a pure ASGI middleware,
outermost, so refusals by CSRF or the body limit count too), and, for the
judging this process does (the embedded worker), verdicts and two latency
histograms. Queue depth comes from the database (so it covers every process's
jobs): a background thread counts `queued` and `running` rows every
`GAUGE_REFRESH_S` from the first scrape on, and the endpoint serves what it
counted last. The endpoint
is `async` and touches neither the database nor the thread pool, so it answers
while both are saturated.

Access: with `KDOJO_METRICS_TOKEN` set, `Authorization: Bearer <token>` from
anywhere; without it, only a direct request from this machine (a loopback peer
and no `X-Forwarded-For`/`Forwarded` header: a reverse proxy on the same host
must not make the metrics public).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from app.logs import FaultLog
from app.models import Submission

log = logging.getLogger("kdojo.metrics")
GAUGE_REFRESH_S = 2.0
# seconds; from a warm GPU judge (~0.05 s) to the emulator's slowest benchmarks
JUDGE_BUCKETS_S = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Histogram:
    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts = [0] * len(buckets)  # per bucket, not cumulative
        self.total = 0
        self.sum = 0.0

    def observe(self, value: float) -> None:
        for i, bound in enumerate(self.buckets):
            if value <= bound:
                self.counts[i] += 1
                break
        self.total += 1
        self.sum += value

    def lines(self, name: str) -> list[str]:
        out, cumulative = [], 0
        for bound, count in zip(self.buckets, self.counts, strict=True):
            cumulative += count
            out.append(f'{name}_bucket{{le="{bound:g}"}} {cumulative}')
        out += [f'{name}_bucket{{le="+Inf"}} {self.total}', f"{name}_sum {self.sum:.6f}", f"{name}_count {self.total}"]
        return out


class Metrics:
    """One process's metrics. HTTP counts are updated on the event loop thread
    only; judging metrics from worker threads, under a lock."""

    def __init__(self) -> None:
        self.http: dict[str, int] = {}
        self._lock = threading.Lock()
        self.verdicts: dict[str, int] = {}
        self.judge_s = Histogram(JUDGE_BUCKETS_S)
        self.turnaround_s = Histogram(JUDGE_BUCKETS_S)
        self.queue_counts: dict[str, int] = {"queued": 0, "running": 0}
        self.queue_counted_at: float | None = None  # time.time() of the last count
        # Set by the first scrape: the queue is counted only for a process that is scraped.
        self.scraped = threading.Event()

    def request_done(self, status: int) -> None:
        status_class = f"{status // 100}xx"
        self.http[status_class] = self.http.get(status_class, 0) + 1

    def judged(self, verdict: str, judge_s: float, turnaround_s: float | None) -> None:
        with self._lock:
            self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1
            self.judge_s.observe(judge_s)
            if turnaround_s is not None:
                self.turnaround_s.observe(max(turnaround_s, 0.0))

    def render(self) -> str:
        with self._lock:
            verdicts = dict(self.verdicts)
            judge_lines = self.judge_s.lines("kdojo_judge_seconds")
            turnaround_lines = self.turnaround_s.lines("kdojo_submission_turnaround_seconds")
        lines = ["# HELP kdojo_http_requests_total HTTP responses of this process by status class.",
                 "# TYPE kdojo_http_requests_total counter"]
        lines += [f'kdojo_http_requests_total{{class="{c}"}} {n}' for c, n in sorted(self.http.items())]
        if self.queue_counted_at is not None:  # not counted yet: the first scrape starts the counting
            lines += ["# HELP kdojo_submissions Submissions waiting or being judged, all processes (database).",
                      "# TYPE kdojo_submissions gauge"]
            lines += [f'kdojo_submissions{{status="{s}"}} {n}' for s, n in sorted(self.queue_counts.items())]
            lines += ["# HELP kdojo_submissions_counted_timestamp_seconds When kdojo_submissions was counted.",
                      "# TYPE kdojo_submissions_counted_timestamp_seconds gauge",
                      f"kdojo_submissions_counted_timestamp_seconds {self.queue_counted_at:.3f}"]
        lines += ["# HELP kdojo_verdicts_total Verdicts stored by this process's judging worker.",
                  "# TYPE kdojo_verdicts_total counter"]
        lines += [f'kdojo_verdicts_total{{verdict="{v}"}} {n}' for v, n in sorted(verdicts.items())]
        lines += ["# HELP kdojo_judge_seconds Time judging one job (compile, tests, benchmark), this process.",
                  "# TYPE kdojo_judge_seconds histogram", *judge_lines,
                  ("# HELP kdojo_submission_turnaround_seconds From submitted (queued) to verdict stored, "
                   "jobs this process judged."),
                  "# TYPE kdojo_submission_turnaround_seconds histogram", *turnaround_lines]
        return "\n".join(lines) + "\n"


class QueueGauge:
    """Counts queued and running submissions every `interval_s` into `metrics`,
    from the first scrape on (a server nobody scrapes sends no extra queries)."""

    def __init__(self, metrics: Metrics, factory: Any, interval_s: float = GAUGE_REFRESH_S) -> None:
        self.metrics, self.factory, self.interval_s = metrics, factory, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kdojo-metrics", daemon=True)
        self.faults = FaultLog(log, "counting submissions for /metrics")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.metrics.scraped.set()  # wakes a thread still waiting for its first scrape
        self._thread.join(timeout=10)

    def count_once(self) -> None:
        with self.factory() as session:  # one short read; the connection goes back at once
            rows = session.execute(select(Submission.status, func.count()).where(
                Submission.status.in_(("queued", "running"))).group_by(Submission.status)).all()
        self.metrics.queue_counts = {"queued": 0, "running": 0} | {status: n for status, n in rows}
        self.metrics.queue_counted_at = time.time()

    def _run(self) -> None:
        self.metrics.scraped.wait()
        while not self._stop.is_set():
            try:
                self.count_once()
                self.faults.ok()
            except Exception as exc:  # noqa: BLE001 - the database may be away; the gauge keeps its last count
                self.faults.failed(exc)
            if self._stop.wait(self.interval_s):
                return


class MetricsMiddleware:
    """Counts every response by status class (an exception that escapes is a 5xx)."""

    def __init__(self, app: Any, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[Any]],
                       send: Callable[[Any], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status: list[int] = []

        async def send_counted(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_counted)
        except BaseException:
            self.metrics.request_done(status[0] if status else 500)
            raise
        self.metrics.request_done(status[0] if status else 500)


def _loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def metrics_endpoint(request: Request) -> Response:
    """`GET /metrics` (see the module's docstring for who may read it)."""
    token = request.app.state.settings.metrics_token
    if token:
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return JSONResponse({"detail": "The metrics need Authorization: Bearer KDOJO_METRICS_TOKEN."},
                                status_code=401, headers={"WWW-Authenticate": "Bearer"})
    elif not _loopback(request.client.host if request.client else None) or \
            "x-forwarded-for" in request.headers or "forwarded" in request.headers:
        return JSONResponse({"detail": "The metrics are served only to this machine unless "
                                       "KDOJO_METRICS_TOKEN is set."}, status_code=403)
    metrics: Metrics = request.app.state.metrics
    metrics.scraped.set()
    return PlainTextResponse(metrics.render(), media_type=CONTENT_TYPE)
