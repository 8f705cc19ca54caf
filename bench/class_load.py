"""A class at once (issue #25): N signed-in learners load a lesson, post, submit a
correct kernel and wait for its verdict, all at the same moment.

Starts its own `kdojo serve` (SQLite, embedded queue and worker, emulator
judge) on 127.0.0.1, or with `--scaleout` PostgreSQL + Redis with
`kdojo serve --no-worker` and two `kdojo worker`s. Accounts and their sessions
are stored up front (`make_accounts`). Then, while /healthz and /api/status are polled:

1. every learner loads the lesson page at once;
2. every learner posts /api/notifications/read and /api/progress/merge at once;
3. every learner submits the exercise's correct solution at once and follows
   its verdict over SSE (`/api/submissions/{id}/events` until `done`).

Reports 5xx count, lost and duplicated submissions (each learner's attempts
are counted afterwards), verdict counts, p99 of the lesson page, /healthz and
/api/status, and the time to the last verdict. /healthz is polled twice: from the class's
own event loop (its times include that loop's queue of 200 learners' requests) and from a
prober process of its own, as a load balancer's health check is ("/healthz (own prober)").

`--streams M` instead opens M signed-in event streams on queued submissions
(no worker runs, so they stay open), measures /api/status while they are
open, closes them all, and measures how soon and how fast the site answers.

    .venv/bin/python bench/class_load.py --learners 200
    .venv/bin/python bench/class_load.py --learners 200 --scaleout
    .venv/bin/python bench/class_load.py --learners 100 --streams 1000
    .venv/bin/python bench/class_load.py --learners 200 --pages-only   # phases 1-2 only

Bounded in count and time; loopback only; it stops every process it starts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from web_load import commit, first_lesson, free_port, percentile, stop  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
KDOJO = [sys.executable, "-m", "app.cli"]
EXERCISE = "elementwise.saxpy"  # the cheapest correct kernel on the emulator (~1.6 CPU-s judged)
SOLUTION = REPO_ROOT / "lessons/01-elementwise/exercises/saxpy/solutions/correct/fma_intrinsic.cu"
PG_SERVER = os.environ.get("KDOJO_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/kd_class_db")
REDIS_URL = os.environ.get("KDOJO_BENCH_REDIS_URL", "redis://127.0.0.1:6379/1")
VERDICT_WAIT_S = 1500.0  # the whole class's verdicts, at most
REQUEST_TIMEOUT_S = 120.0
# A connection per request: reusing a kept-alive one just as uvicorn closes it
# (5 s idle; later when its event loop is starved) fails on the client's side
# (ReadError), which a browser retries but httpx does not.
CLIENT_LIMITS = httpx.Limits(max_keepalive_connections=0)
HEALTHZ_PROBE = "/healthz (own prober)"  # beside "/healthz", polled from the class's own event loop


@dataclass
class Server:
    base: str
    database_url: str
    procs: list[subprocess.Popen]
    log: Path


@contextmanager
def class_server(tmp: Path, lessons_dir: Path, port: int, scaleout: bool = False, worker: bool = True,
                 pg_server: str = PG_SERVER, redis_url: str = REDIS_URL) -> Iterator[Server]:
    """`kdojo serve` (and with `scaleout`, two `kdojo worker`s) on 127.0.0.1:`port`."""
    env = {**os.environ, "KDOJO_ENVIRONMENT": "test", "KDOJO_LESSONS_DIR": str(lessons_dir),
           "KDOJO_JUDGE_BACKEND": "emu", "KDOJO_SECRET_KEY": "class-load-" + secrets.token_hex(24),
           "KDOJO_QUEUE_PATH": str(tmp / "q.sqlite3"), "KDOJO_DATABASE_URL": f"sqlite:///{tmp / 'kdojo.sqlite3'}"}
    if scaleout:
        schema = f"class_load_{secrets.token_hex(4)}"
        _pg(pg_server, f'CREATE SCHEMA "{schema}"')
        env.update({"KDOJO_DATABASE_URL": f"{pg_server}?options=-csearch_path%3D{schema}", "KDOJO_QUEUE": "redis",
                    "KDOJO_REDIS_URL": redis_url, "KDOJO_QUEUE_NAME": schema})
    log = tmp / "server.log"
    procs: list[subprocess.Popen] = []
    try:
        with log.open("w") as out:
            serve = KDOJO + ["serve", "--host", "127.0.0.1", "--port", str(port)]
            if scaleout or not worker:
                serve.append("--no-worker")
            procs.append(subprocess.Popen(serve, cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT))
            base = f"http://127.0.0.1:{port}"
            _wait_ready(base, procs[0], log)
            if scaleout and worker:  # after serve has migrated the schema
                for _ in range(2):
                    procs.append(subprocess.Popen(KDOJO + ["worker"], cwd=REPO_ROOT, env=env, stdout=out,
                                                  stderr=subprocess.STDOUT))
        yield Server(base, env["KDOJO_DATABASE_URL"], procs, log)
    finally:
        for proc in reversed(procs):
            stop(proc)
        if scaleout:
            _pg(pg_server, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            import redis

            client = redis.Redis.from_url(redis_url)
            for key in client.scan_iter(f"*{schema}*"):
                client.delete(key)


def _pg(server: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql)


def _wait_ready(base: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"kdojo serve exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError("kdojo serve did not become ready in 90 s")


@dataclass
class Learner:
    index: int
    client: httpx.AsyncClient
    submission_id: int | None = None
    verdict: str | None = None
    message: str = ""

    def csrf(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.client.cookies.get("kdojo_csrf") or ""}


@dataclass
class Tally:
    """What the run saw: statuses by phase, latencies by kind."""

    statuses: dict[str, Counter] = field(default_factory=dict)
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def add(self, kind: str, status: int | str, ms: float | None = None) -> None:
        self.statuses.setdefault(kind, Counter())[status] += 1
        if ms is not None:
            self.latencies_ms.setdefault(kind, []).append(ms)

    def count_5xx(self) -> int:
        return sum(n for c in self.statuses.values() for s, n in c.items() if isinstance(s, int) and s >= 500)

    def p99(self, kind: str) -> float | None:
        values = sorted(self.latencies_ms.get(kind, []))
        return percentile(values, 0.99) if values else None


def make_accounts(database_url: str, count: int) -> list[str]:
    """`count` learner accounts with a live session each, stored before the class
    arrives; returns their session tokens. One argon2 hash serves them all: hashing
    is sign-up's cost (~1 CPU-s each here), not what a class at once measures."""
    from app.db import make_engine, make_sessionmaker, transaction
    from app.security.passwords import hash_password
    from app.services.accounts import NewAccount, create_account
    from app.services.sessions import create_session

    password_hash, tag = hash_password("class-load-secret"), secrets.token_hex(3)
    engine = make_engine(database_url)
    try:
        with transaction(make_sessionmaker(engine)) as session:
            return [create_session(session, create_account(session, NewAccount(
                f"class{tag}-{i}@example.com", f"learner {i}", password_hash)), days=1) for i in range(count)]
    finally:
        engine.dispose()


async def sign_up(server: Server, count: int, at_once: int = 16) -> list[Learner]:
    """`count` signed-in learners, each with its session and CSRF cookies."""
    from app.security.sessions import SESSION_COOKIE

    tokens = await asyncio.to_thread(make_accounts, server.database_url, count)
    gate = asyncio.Semaphore(at_once)

    async def one(i: int) -> Learner:
        client = httpx.AsyncClient(base_url=server.base, timeout=REQUEST_TIMEOUT_S, limits=CLIENT_LIMITS,
                                   cookies={SESSION_COOKIE: tokens[i]})
        async with gate:
            response = await client.get("/api/me/progress")  # and the CSRF cookie
        if response.status_code != 200 or not response.json()["signed_in"]:
            raise RuntimeError(f"learner {i} is not signed in: {response.status_code} {response.text[:200]}")
        return Learner(i, client)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def _timed(tally: Tally, kind: str, request: Any) -> httpx.Response | None:
    t0 = time.perf_counter()
    try:
        response = await request
    except httpx.HTTPError as exc:
        tally.add(kind, type(exc).__name__)
        tally.errors.append(f"{kind}: {type(exc).__name__}")
        return None
    tally.add(kind, response.status_code, (time.perf_counter() - t0) * 1000)
    return response


# A prober of its own, as a load balancer's health check is: in the class's client process the
# /healthz poller shared one event loop with 200 learners' requests and streams, so its times
# included that loop's queue, not only the server's answer.
PROBE = r"""
import json, sys, threading, time
import httpx
url, every = sys.argv[1], float(sys.argv[2])
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
seen = []
with httpx.Client(timeout=30, limits=httpx.Limits(max_keepalive_connections=0)) as client:
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            status = client.get(url).status_code
        except httpx.HTTPError as exc:
            status = type(exc).__name__
        seen.append([status, (time.perf_counter() - t0) * 1000])
        stop.wait(every)
print(json.dumps(seen))
"""


@contextmanager
def prober(base: str, path: str, every_s: float, tally: Tally, kind: str) -> Iterator[None]:
    """GET `path` every `every_s` from a process of its own while the block runs; its answers
    go into `tally` under `kind` afterwards."""
    proc = subprocess.Popen([sys.executable, "-c", PROBE, base + path, str(every_s)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        yield
    finally:
        out, _ = proc.communicate("", timeout=60)
        for status, ms in json.loads(out or "[]"):
            tally.add(kind, status, ms)
            if not isinstance(status, int):
                tally.errors.append(f"{kind}: {status}")


async def poll(base: str, path: str, every_s: float, tally: Tally, stop_event: asyncio.Event) -> None:
    """GET `path` every `every_s` until told to stop (a fresh client: no learner's cookie)."""
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=CLIENT_LIMITS) as client:
        while not stop_event.is_set():
            await _timed(tally, path, client.get(path))
            try:
                await asyncio.wait_for(stop_event.wait(), every_s)
            except TimeoutError:
                pass


async def follow_verdict(learner: Learner, tally: Tally) -> None:
    """Read the submission's SSE stream until `done`; its verdict is the learner's. A stream
    the server ends (after SSE_MAX_S) is resumed with Last-Event-ID, as a browser's
    EventSource does."""
    import json

    path = f"/api/submissions/{learner.submission_id}/events"
    deadline = time.monotonic() + VERDICT_WAIT_S
    last_id = ""
    while time.monotonic() < deadline:
        headers = {"Last-Event-ID": last_id} if last_id else {}
        async with learner.client.stream("GET", path, headers=headers,
                                         timeout=max(1.0, deadline - time.monotonic())) as response:
            tally.add("events", response.status_code)
            if response.status_code != 200:
                return
            event = None
            async for line in response.aiter_lines():
                if line.startswith("id: "):
                    last_id = line[4:]
                elif line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "done":
                    done = json.loads(line[6:])
                    learner.verdict, learner.message = done.get("verdict"), str(done.get("message", ""))
                    return
        await asyncio.sleep(1.0)  # the stream's `retry: 1000`


async def class_at_once(base: str, learners: list[Learner], lesson: str, sources: list[str], exercise: str,
                        tally: Tally, submit_too: bool = True) -> dict[str, Any]:
    """Pages, posts, submissions and verdicts, each phase by every learner at once."""
    await asyncio.gather(*(_timed(tally, "page", l.client.get(f"/lessons/{lesson}")) for l in learners))
    await asyncio.gather(*(
        _timed(tally, "post", l.client.post(path, headers=l.csrf(), json=body))
        for l in learners for path, body in (("/api/notifications/read", {}),
                                             ("/api/progress/merge", {"exercise_ids": [], "lesson_ids": [lesson]}))))
    if not submit_too:
        return {}
    started = time.monotonic()

    async def submit(learner: Learner) -> None:
        response = await _timed(tally, "submit", learner.client.post(
            "/api/submissions", headers=learner.csrf(), json={"exercise_id": exercise, "mode": "run",
                                                              "source": sources[learner.index]}))
        if response is not None and response.status_code == 202:
            learner.submission_id = response.json()["id"]
            await follow_verdict(learner, tally)

    await asyncio.wait_for(asyncio.gather(*(submit(l) for l in learners)), VERDICT_WAIT_S)
    last_verdict_s = time.monotonic() - started
    stored = await asyncio.gather(*(l.client.get(f"/api/exercises/{exercise}/attempts") for l in learners))
    attempts = [len(r.json().get("attempts", [])) if r.status_code == 200 else -1 for r in stored]
    # lost: accepted (202) but not stored, or never judged; duplicated: stored more than once
    return {"last_verdict_s": round(last_verdict_s, 1),
            "verdicts": Counter(l.verdict or "none" for l in learners),
            "not_accepted": Counter(f"{l.verdict}: {l.message}" for l in learners if l.verdict != "accepted"),
            "lost": sum(1 for l, n in zip(learners, attempts) if l.submission_id is not None
                        and (n < 1 or l.verdict is None)),
            "duplicated": sum(max(0, n - 1) for n in attempts),
            "submitted": sum(1 for l in learners if l.submission_id is not None)}


async def run_class(server: Server, count: int, lesson: str, sources: list[str], exercise: str,
                    submit_too: bool = True) -> tuple[Tally, dict, list[Learner]]:
    """`count` signed-in learners, then the class at once (learner i submits `sources[i]`)."""
    learners = await sign_up(server, count)
    base = server.base
    tally, stop_event = Tally(), asyncio.Event()
    pollers = [asyncio.create_task(poll(base, "/healthz", 0.05, tally, stop_event)),
               asyncio.create_task(poll(base, "/api/status", 0.2, tally, stop_event))]
    try:
        with prober(base, "/healthz", 0.05, tally, HEALTHZ_PROBE):
            outcome = await class_at_once(base, learners, lesson, sources, exercise, tally, submit_too)
    finally:
        stop_event.set()
        await asyncio.gather(*pollers)
        await asyncio.gather(*(l.client.aclose() for l in learners))
    return tally, outcome, learners


async def open_stream(host: str, port: int, path: str, cookie: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw SSE request (cheap: a thousand of them share the cores with the server)."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nCookie: {cookie}\r\nAccept: text/event-stream\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        raise RuntimeError(f"stream refused: {head[:100]!r}")
    return reader, writer


async def run_streams(server: Server, count: int, streams: int, source: str, exercise: str,
                      hold_s: float = 10.0) -> tuple[Tally, dict]:
    learners = await sign_up(server, count)
    base = server.base
    for learner in learners:  # one queued submission each (no worker: they stay queued)
        response = await learner.client.post("/api/submissions", headers=learner.csrf(),
                                             json={"exercise_id": exercise, "source": source, "mode": "run"})
        learner.submission_id = response.json()["id"]
    host, port = base.split("//")[1].split(":")
    tally, stop_event = Tally(), asyncio.Event()
    opened = []
    for i in range(streams):
        learner = learners[i % len(learners)]
        cookie = "; ".join(f"{k}={v}" for k, v in learner.client.cookies.items())
        opened.append(await open_stream(host, int(port), f"/api/submissions/{learner.submission_id}/events", cookie))
    open_tally = Tally()
    poller = asyncio.create_task(poll(base, "/api/status", 0.1, open_tally, stop_event))
    healthz = asyncio.create_task(poll(base, "/healthz", 0.05, open_tally, stop_event))
    await asyncio.sleep(hold_s)
    stop_event.set()
    await asyncio.gather(poller, healthz)
    for _, writer in opened:
        writer.close()
    closed_at = time.monotonic()
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        first = await client.get("/api/status")
        first_answer_s = time.monotonic() - closed_at
    after, stop_event = Tally(), asyncio.Event()
    poller = asyncio.create_task(poll(base, "/api/status", 0.1, after, stop_event))
    await asyncio.sleep(5)
    stop_event.set()
    await poller
    await asyncio.gather(*(l.client.aclose() for l in learners))
    tally.statuses = {**open_tally.statuses, "after /api/status": after.statuses.get("/api/status", Counter())}
    tally.latencies_ms = {**open_tally.latencies_ms, "after /api/status": after.latencies_ms.get("/api/status", [])}
    return tally, {"streams": streams, "first_status_after_close_s": first_answer_s,
                   "first_status": first.status_code}


def report(tally: Tally, outcome: dict) -> str:
    lines = [f"5xx: {tally.count_5xx()}"]
    for kind, statuses in sorted(tally.statuses.items()):
        p99 = tally.p99(kind)
        lines.append(f"  {kind}: {dict(statuses)}" + (f"  p99 {p99:.0f} ms  max {max(tally.latencies_ms[kind]):.0f} ms"
                                                     if p99 is not None else ""))
    for key, value in outcome.items():
        lines.append(f"{key}: {dict(value) if isinstance(value, Counter) else value}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--streams", type=int, default=0, help="open this many event streams instead")
    parser.add_argument("--scaleout", action="store_true", help="PostgreSQL + Redis, two `kdojo worker`s")
    parser.add_argument("--pages-only", action="store_true",
                        help="the page loads and posts only, no submissions (minutes faster)")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    args = parser.parse_args()
    if args.learners < 1 or args.learners > 2000 or args.streams < 0 or args.streams > 5000:
        parser.error("--learners 1..2000, --streams 0..5000")
    lessons_dir = REPO_ROOT / "lessons"
    lesson, source = first_lesson(lessons_dir), SOLUTION.read_text()
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, class_server(
            Path(tmp), lessons_dir, args.port or free_port(), args.scaleout, worker=not args.streams) as server:
        if args.streams:
            tally, outcome = asyncio.run(run_streams(server, args.learners, args.streams, source, EXERCISE))
        else:
            tally, outcome, _ = asyncio.run(run_class(server, args.learners, lesson, [source] * args.learners,
                                                      EXERCISE, not args.pages_only))
        # the server's own account of anything that went wrong (the folder goes with the run)
        errors = [line for line in server.log.read_text(errors="replace").splitlines()
                  if line.startswith(("ERROR", "CRITICAL")) or "Traceback" in line]
    print(f"learners {args.learners}  streams {args.streams}  {'scale-out' if args.scaleout else 'one process'}  "
          f"exercise {EXERCISE}  cpus {os.cpu_count()}  commit {commit()}")
    print(report(tally, outcome))
    if errors:
        print(f"server log: {len(errors)} error line(s); the first ones:")
        print("\n".join("  " + line[:400] for line in errors[:10]))
    return 0 if tally.count_5xx() == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
