"""Server CPU per request of the signed-in lesson page and the submission poll (issue #13).

Drives the ASGI app in this process (no HTTP, no client to share the cores with):
a fresh SQLite database, the fixture lessons, one learner signed up through the
real JSON API with one queued submission; then N requests to each path, timing
process CPU (all threads: the threadpool's work counts) and wall time. Prints the
SQL statements one request makes. `--profile` adds a cProfile of the first path
with the threadpool hop made inline (so the profile sees the route's work).

    .venv/bin/python bench/web_request_cost.py                    # page and poll, 500 each
    .venv/bin/python bench/web_request_cost.py --profile /lessons/add-one
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="paths to time (SID: the learner's submission id)")
    parser.add_argument("-n", type=int, default=500)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    from fastapi.testclient import TestClient
    from sqlalchemy import event

    from app.main import create_app
    from app.migrate import upgrade
    from app.settings import Settings

    tmp = Path(tempfile.mkdtemp())
    settings = Settings(environment="test", database_url=f"sqlite:///{tmp / 'k.sqlite3'}",
                        queue_path=tmp / "q.sqlite3", lessons_dir=REPO_ROOT / "tests" / "fixtures" / "lessons",
                        judge_backend="emu", embedded_worker=False, secret_key="request-cost-" + "x" * 32)
    upgrade(settings.database_url)
    app = create_app(settings)
    with TestClient(app) as c:
        c.get("/api/me/progress")
        c.post("/auth/signup", json={"email": "cost@example.com", "password": "request-cost-secret"},
               headers={"X-CSRF-Token": c.cookies.get("kdojo_csrf") or ""}).raise_for_status()
        sent = c.post("/api/submissions", json={"exercise_id": "fixture.add_one", "source": "__global__ void k() {}\n"},
                      headers={"X-CSRF-Token": c.cookies.get("kdojo_csrf") or ""})
        sent.raise_for_status()
        cookie = "; ".join(f"{k}={v}" for k, v in c.cookies.items())
    paths = [p.replace("SID", str(sent.json()["id"])) for p in args.paths] or [
        "/lessons/add-one", f"/api/submissions/{sent.json()['id']}"]
    statements: list[str] = []
    event.listen(app.state.engine, "before_cursor_execute", lambda _c, _cur, st, *_: statements.append(st))

    async def one(path: str) -> None:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"127.0.0.1"), (b"cookie", cookie.encode())],
                 "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80), "state": {}}
        sent_messages = []

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            sent_messages.append(message)

        await app(scope, receive, send)
        if sent_messages[0]["status"] != 200:
            raise SystemExit(f"{path}: HTTP {sent_messages[0]['status']}")

    async def run() -> None:
        for path in paths:
            for _ in range(50):
                await one(path)
            statements.clear()
            await one(path)
            made = [s for s in statements if s != "BEGIN"]
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(args.n):
                await one(path)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(f"{path}: {cpu / args.n * 1000:.2f} ms CPU, {wall / args.n * 1000:.2f} ms wall per request; "
                  f"{len(made)} SQL statements (+ BEGIN)")
        if args.profile:
            import anyio.to_thread

            async def inline(func, *a, **_):  # noqa: ANN001, ANN202
                return func(*a)

            anyio.to_thread.run_sync = inline
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(300):
                await one(paths[0])
            profile.disable()
            pstats.Stats(profile).sort_stats("cumulative").print_stats(50)

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
