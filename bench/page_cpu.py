"""CPU of one signed-in lesson page, in process (issue #25: a class loading it at once).

A fresh SQLite database (migrated by Alembic), the real lessons, a learner signed up
through the real API (FastAPI's TestClient) who has passed the lesson's first
exercise (stored through the worker's own claim → finish path, so XP, completion
and badges are real). Then the page is asked for N times straight through the ASGI
app (no HTTP client sharing the CPU), each request timed by the process's CPU
clock (all threads); prints the median and p90 CPU ms per request, the SQL
statements one request makes, and a cProfile top-25 by cumulative time (the
threadpool hop made inline so the profile sees the route's work).

    PYTHONPATH=. .venv/bin/python bench/page_cpu.py                       # elementwise, 300 requests, ko
    PYTHONPATH=. .venv/bin/python bench/page_cpu.py --lesson reduction -n 500 --lang en
    PYTHONPATH=. .venv/bin/python bench/page_cpu.py --no-profile
    PYTHONPATH=. .venv/bin/python bench/page_cpu.py --class 200        # and 200 learners at once
    PYTHONPATH=. .venv/bin/python bench/page_cpu.py --class 200 --cold # they are the server's first pages
    PYTHONPATH=. .venv/bin/python bench/page_cpu.py --class 200 --cold --warm   # ... of a server warmed as `kdojo serve` is

`--class N` then has N more signed-in learners (no progress) ask for the page all at
once through the real request threadpool while `/healthz` is asked every 10 ms, and
prints the pages' and /healthz's wall p50/p99 and the CPU per page: the GIL's share
of `bench/class_load.py`'s burst without HTTP or a client process.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))


def accept_first_exercise(app, user_id: int, exercise_id: str) -> None:  # noqa: ANN001
    """An accepted submission of `exercise_id` for the learner, stored as the worker stores one."""
    from app.db import transaction
    from app.models import Submission
    from app.services import judging

    with transaction(app.state.sessionmaker) as session:
        row = Submission(user_id=user_id, exercise_id=exercise_id, mode="submit", source="// page_cpu",
                         status="queued", achievements=[])
        session.add(row)
        session.flush()
        submission_id = row.id
    result = {"version": 1, "exercise": exercise_id, "backend": "emu", "device": None, "verdict": "accepted",
              "message": "accepted", "compile": {"ok": True, "seconds": 0.01, "log": "", "diagnostics": []},
              "tests": [], "diagnostics": [], "benchmark": None, "timings": {}}
    with transaction(app.state.sessionmaker) as session:
        attempt = judging.claim(session, submission_id, "page-cpu")
        if attempt is None or not judging.finish(session, submission_id, attempt, result, app.state.catalog):
            raise SystemExit("could not store the learner's accepted submission")


def make_class(app, count: int) -> list[str]:  # noqa: ANN001
    """`count` learner accounts with a live session each (one password hash for all)."""
    from app.db import transaction
    from app.security.passwords import hash_password
    from app.services.accounts import NewAccount, create_account
    from app.services.sessions import create_session

    password_hash = hash_password("page-cpu-secret")
    with transaction(app.state.sessionmaker) as session:
        return [create_session(session, create_account(session, NewAccount(
            f"class-{i}@example.com", f"learner {i}", password_hash)), days=1) for i in range(count)]


async def at_once(one, tokens: list[str], lang: str) -> None:  # noqa: ANN001
    """Every learner's page at once, /healthz every 10 ms meanwhile; wall times and CPU."""
    from app.security.sessions import SESSION_COOKIE

    async def timed(coro) -> float:  # noqa: ANN001
        t0 = time.perf_counter()
        await coro
        return (time.perf_counter() - t0) * 1000

    done = asyncio.Event()
    health: list[float] = []

    async def probe() -> None:
        while not done.is_set():
            health.append(await timed(one("", "/healthz")))
            await asyncio.sleep(0.01)

    prober = asyncio.create_task(probe())
    await asyncio.sleep(0.1)
    cpu, wall = time.process_time(), time.perf_counter()
    pages = sorted(await asyncio.gather(*(
        timed(one(f"{SESSION_COOKIE}={token}; kdojo_lang={lang}")) for token in tokens)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    done.set()
    await prober
    health.sort()

    def p(values: list[float], q: float) -> float:
        return values[min(len(values) - 1, int(q * len(values)))]

    print(f"{len(tokens)} learners at once: all pages in {wall * 1000:.0f} ms wall, {cpu / len(tokens) * 1000:.2f} ms CPU "
          f"a page; page p50 {p(pages, 0.5):.0f} ms, p99 {p(pages, 0.99):.0f} ms; "
          f"/healthz ({len(health)}) p50 {p(health, 0.5):.1f} ms, p99 {p(health, 0.99):.1f} ms, max {health[-1]:.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lesson", default="elementwise")
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("-n", type=int, default=300)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--class", dest="class_size", type=int, default=0,
                        help="then N learners at once (with /healthz probed meanwhile)")
    parser.add_argument("--cold", action="store_true",
                        help="the class's burst first, before any page was rendered (as on a fresh server)")
    parser.add_argument("--warm", action="store_true",
                        help="render every lesson page once first, as `kdojo serve` does (app.pages.warm)")
    parser.add_argument("--sort", default="cumulative", help="the profile's order (cumulative, tottime)")
    args = parser.parse_args()

    from fastapi.testclient import TestClient
    from sqlalchemy import event

    from app.main import create_app
    from app.migrate import upgrade
    from app.settings import Settings

    tmp = Path(tempfile.mkdtemp())
    settings = Settings(environment="test", database_url=f"sqlite:///{tmp / 'k.sqlite3'}",
                        queue_path=tmp / "q.sqlite3", lessons_dir=REPO_ROOT / "lessons",
                        judge_backend="emu", embedded_worker=False, secret_key="page-cpu-" + "x" * 32)
    upgrade(settings.database_url)
    app = create_app(settings)
    if args.warm:
        from app.pages.warm import warm

        print(f"warmed: {warm(app)}")
    lesson = app.state.catalog.lesson(args.lesson)
    if lesson is None:
        raise SystemExit(f"no lesson {args.lesson!r}")
    path = f"/lessons/{args.lesson}"
    with TestClient(app) as client:
        client.get("/api/me/progress")
        signed = client.post("/auth/signup", json={"email": "page-cpu@example.com", "password": "page-cpu-secret",
                                                   "display_name": "Page CPU"},
                             headers={"X-CSRF-Token": client.cookies.get("kdojo_csrf") or ""})
        signed.raise_for_status()
        if lesson.exercise_ids:
            accept_first_exercise(app, signed.json()["user"]["id"], lesson.exercise_ids[0])
        client.cookies.set("kdojo_lang", args.lang)
        if not args.cold:
            page = client.get(path)
            if page.status_code != 200 or "nav-me" not in page.text:
                raise SystemExit(f"{path}: HTTP {page.status_code}, or not signed in")
        cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    statements: list[str] = []
    event.listen(app.state.engine, "before_cursor_execute", lambda _c, _cur, st, *_: statements.append(st))

    tokens = make_class(app, args.class_size) if args.class_size else []

    async def one(cookie: str = cookie, path: str = path) -> None:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"127.0.0.1"), (b"cookie", cookie.encode())],
                 "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80), "state": {}}
        sent: list[dict] = []

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        await app(scope, receive, send)
        if sent[0]["status"] != 200:
            raise SystemExit(f"{path}: HTTP {sent[0]['status']}")

    async def run() -> None:
        if tokens and args.cold:  # as bench/class_load.py: the burst is the server's first pages
            await at_once(one, tokens, args.lang)
        for _ in range(30):  # warm: templates compiled, statements cached, kept parts made
            await one()
        statements.clear()
        await one()
        made = [s for s in statements if s != "BEGIN"]
        cpu_ms = []
        for _ in range(args.n):
            cpu = time.process_time()
            await one()
            cpu_ms.append((time.process_time() - cpu) * 1000)
        cpu_ms.sort()
        print(f"{path} ({args.lang}, signed in, first exercise passed): median {statistics.median(cpu_ms):.2f} ms CPU, "
              f"p90 {cpu_ms[int(0.9 * len(cpu_ms))]:.2f} ms, mean {statistics.fmean(cpu_ms):.2f} ms "
              f"over {args.n} requests; {len(made)} SQL statements (+ BEGIN)")
        if tokens and not args.cold:
            await at_once(one, tokens, args.lang)
        if args.no_profile:
            return
        import anyio.to_thread

        async def inline(func, *a, **_):  # noqa: ANN001, ANN202
            return func(*a)

        anyio.to_thread.run_sync = inline
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(min(args.n, 200)):
            await one()
        profile.disable()
        pstats.Stats(profile).sort_stats(args.sort).print_stats(25)

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
