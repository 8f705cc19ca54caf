"""Web load benchmark: lesson page latency under concurrent clients (issue #4).

Starts `kdojo serve --no-worker` (uvicorn, one process) on 127.0.0.1 with a
fresh SQLite database, then, from this second process, runs N asyncio clients
(a minimal keep-alive HTTP/1.1 client, one connection each) against one lesson page. Each client is a learner:
it loads the page, then "reads" for a think time drawn uniformly from
[0, 2 * think_s], so the offered load is about clients / think_s requests per
second. `--think-s 0` turns it into a closed loop that measures saturation.
Bounded in count and time; loopback only.

    .venv/bin/python bench/web_load.py                       # 200 clients, think 1 s, 60 s
    .venv/bin/python bench/web_load.py --think-s 0 --duration-s 20
    .venv/bin/python bench/web_load.py --signed-in           # 200 signed-in learners (issue #13)

`--signed-in`: each client is a learner with an account (signed up before the
run, through the real CSRF-checked JSON API, with one submission waiting in
the queue: no worker runs). It loads the lesson page with its session cookie
(never the anonymous page cache) and polls its submission
(`GET /api/submissions/<id>`), alternately, with the same think time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO_ROOT = Path(__file__).resolve().parent.parent
MAX_REQUESTS = 200_000  # hard bound whatever the duration


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_command(port: int) -> list[str]:
    """What an operator runs (`kdojo serve`, the console script's `app.cli`), with its
    defaults (one uvicorn process, access log off), minus the embedded judging worker:
    the learners' submissions must stay queued, and judging them would take the cores."""
    return [sys.executable, "-m", "app.cli", "serve", "--no-worker", "--host", "127.0.0.1", "--port", str(port)]


def start_server(lessons_dir: Path, tmp: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "KDOJO_ENVIRONMENT": "test", "KDOJO_LESSONS_DIR": str(lessons_dir),
           "KDOJO_DATABASE_URL": f"sqlite:///{tmp / 'kdojo.sqlite3'}", "KDOJO_QUEUE_PATH": str(tmp / "q.sqlite3"),
           "KDOJO_SECRET_KEY": "web-load-bench-" + "z" * 32}
    proc = subprocess.Popen(server_command(port), cwd=REPO_ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=(tmp / "server.log").open("w"))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {(tmp / 'server.log').read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start in 60 s")


class Connection:
    """A minimal HTTP/1.1 keep-alive GET client on asyncio streams: the load
    generator shares the 2 cores with the server, so it must cost little."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str, cookie: str = "") -> int:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        cookie_line = f"Cookie: {cookie}\r\n" if cookie else ""
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n{cookie_line}\r\n".encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        body = await self.reader.readexactly(length)
        if not body.rstrip().endswith(b"</html>") and path.startswith("/lessons/"):
            raise ValueError("truncated page")
        return status

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            await self.writer.wait_closed()
            self.writer = None


@dataclass(frozen=True)
class Learner:
    """What one client sends: its paths in turn, and its cookies ("" for an anonymous reader)."""

    paths: tuple[str, ...]
    cookie: str = ""


async def client(host: str, port: int, learner: Learner, stop_at: float, think_s: float,
                 latencies_ms: list[float], errors: list[str], by_kind: dict[str, list[float]]) -> None:
    conn = Connection(host, port)
    await asyncio.sleep(random.uniform(0, max(think_s, 0.05)))  # do not all start in one instant
    turn = 0
    while time.monotonic() < stop_at and len(latencies_ms) + len(errors) < MAX_REQUESTS:
        path = learner.paths[turn % len(learner.paths)]
        turn += 1
        t0 = time.perf_counter()
        try:
            status = await asyncio.wait_for(conn.get(path, learner.cookie), timeout=10.0)
            if status != 200:
                errors.append(f"HTTP {status}")
            else:
                ms = (time.perf_counter() - t0) * 1000
                latencies_ms.append(ms)
                by_kind.setdefault("page" if path.startswith("/lessons/") else "poll", []).append(ms)
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.TimeoutError) as exc:
            errors.append(type(exc).__name__)
            await conn.close()
        if think_s > 0:
            await asyncio.sleep(random.uniform(0, 2 * think_s))
    await conn.close()


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


async def run(base: str, learners: list[Learner], duration_s: float, think_s: float
              ) -> tuple[list[float], list[str], float, dict[str, list[float]]]:
    url = httpx.URL(base)
    latencies_ms: list[float] = []
    errors: list[str] = []
    by_kind: dict[str, list[float]] = {}
    t0 = time.monotonic()
    lag = asyncio.ensure_future(loop_lag(t0 + duration_s))
    await asyncio.gather(*(client(url.host, url.port or 80, learner, t0 + duration_s, think_s, latencies_ms,
                                  errors, by_kind) for learner in learners))
    by_kind["client loop lag"] = await lag
    return latencies_ms, errors, time.monotonic() - t0, by_kind


async def loop_lag(stop_at: float, tick_s: float = 0.05) -> list[float]:
    """How late this (the load generator's) event loop wakes up, in ms, every 50 ms: a
    latency that the client itself caused (its process not scheduled) shows here too."""
    lags = []
    while time.monotonic() < stop_at:
        t = time.monotonic()
        await asyncio.sleep(tick_s)
        lags.append(max(0.0, (time.monotonic() - t - tick_s) * 1000))
    return lags


def cpu_times() -> list[int]:
    """/proc/stat's machine-wide cpu line (user nice system idle iowait irq softirq steal), then
    /proc/pressure/cpu's `some` total (µs that runnable tasks waited for a CPU), or []."""
    try:
        with open("/proc/stat") as f:
            times = [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return []
    try:
        with open("/proc/pressure/cpu") as f:
            times.append(int(f.readline().rsplit("total=", 1)[1]))
    except (OSError, ValueError, IndexError):
        pass
    return times


def cpu_report(before: list[int], after: list[int], elapsed_s: float) -> str:
    if len(before) < 8 or len(after) < 8:
        return "machine CPU: not available"
    d = [b - a for a, b in zip(before, after)]
    total = sum(d[:8]) or 1
    busy = total - d[3] - d[4]
    waited = (f"  some task waiting for a CPU {100 * d[8] / 1e6 / elapsed_s:.0f}% of the time (PSI)"
              if len(d) > 8 and elapsed_s > 0 else "")
    return (f"machine CPU during the run (all processes, /proc/stat): busy {100 * busy / total:.0f}%  "
            f"iowait {100 * d[4] / total:.0f}%  steal {100 * d[7] / total:.0f}%{waited}")


def sign_up_learners(base: str, count: int, path: str, exercise: str, source: str) -> list[Learner]:
    """`count` accounts, each signed in with one queued submission (8 at a time: argon2 is the cost)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(i: int) -> Learner:
        with httpx.Client(base_url=base, timeout=60) as c:
            c.get("/api/me/progress")  # the CSRF cookie
            for step, (url, body) in enumerate([
                ("/auth/signup", {"email": f"load{i}@example.com", "password": f"load-bench-{i}-secret"}),
                ("/api/submissions", {"exercise_id": exercise, "source": source, "mode": "submit"}),
            ]):
                response = c.post(url, json=body, headers={"X-CSRF-Token": c.cookies.get("kdojo_csrf") or ""})
                if response.status_code not in (200, 202):
                    raise SystemExit(f"setting up learner {i} failed at {url}: {response.status_code} {response.text}")
            cookie = "; ".join(f"{k}={v}" for k, v in c.cookies.items())
            return Learner((path, f"/api/submissions/{response.json()['id']}"), cookie)

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(count)))


def main() -> int:
    try:  # the load generator shares the cores with the server: use the cheaper loop if present
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--duration-s", type=float, default=60.0)
    parser.add_argument("--think-s", type=float, default=1.0, help="mean think time per client (0: closed loop)")
    parser.add_argument("--path", default=None, help="page to load (default: the first lesson)")
    parser.add_argument("--lessons-dir", type=Path, default=REPO_ROOT / "tests" / "fixtures" / "lessons")
    parser.add_argument("--url", help="benchmark an already running server at this base URL instead")
    parser.add_argument("--signed-in", action="store_true",
                        help="signed-in learners: their lesson page and their submission, in turn")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        proc = None
        base = args.url
        if base is None:
            port = free_port()
            proc = start_server(args.lessons_dir, Path(tmp), port)
            base = f"http://127.0.0.1:{port}"
        try:
            path = args.path or "/lessons/" + first_lesson(args.lessons_dir)
            for _ in range(20):  # warm caches (templates, rendered Markdown)
                httpx.get(base + path, timeout=10).raise_for_status()
            if args.signed_in:
                exercise, source = first_exercise(args.lessons_dir)
                learners = sign_up_learners(base, args.clients, path, exercise, source)
            else:
                learners = [Learner((path,))] * args.clients
            load_before, cpu_before = os.getloadavg()[0], cpu_times()
            lat, errors, elapsed_s, by_kind = asyncio.run(run(base, learners, args.duration_s, args.think_s))
            load_after, cpu_after = os.getloadavg()[0], cpu_times()
        finally:
            if proc is not None:
                stop(proc)
    report(path, args, lat, errors, elapsed_s)
    lags = sorted(by_kind.pop("client loop lag", []))
    if len(by_kind) > 1:  # the signed-in run: its pages and its polls apart
        for kind, values in sorted(by_kind.items()):
            values.sort()
            print(f"  {kind}: {len(values)} requests, p50 {percentile(values, 0.50):.1f}  "
                  f"p95 {percentile(values, 0.95):.1f}  p99 {percentile(values, 0.99):.1f}  "
                  f"max {values[-1]:.1f} ms")
    if lags:
        print(f"load generator's loop lag (every 50 ms): p99 {percentile(lags, 0.99):.1f}  max {lags[-1]:.1f} ms, "
              f"{sum(1 for v in lags if v > 100)} ticks over 100 ms (its own delays are in the latencies too)")
    print(cpu_report(cpu_before, cpu_after, elapsed_s))
    print(f"1-minute load average before the run {load_before:.2f}, after {load_after:.2f} "
          f"(other work on this machine shares its cores)")
    command = "python " + " ".join(server_command(0)[1:-1]) + " <port>  (= kdojo serve --no-worker …)"
    print(f"server: {command if args.url is None else args.url}  commit {commit()}  python {sys.version.split()[0]}")
    return 0 if not errors else 1


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                              text=True, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:  # keep-alive connections can hold a graceful shutdown
        proc.kill()
        proc.wait()


def first_lesson(lessons_dir: Path) -> str:
    from app.content import load_catalog

    return next(iter(load_catalog(lessons_dir).lessons))


def first_exercise(lessons_dir: Path) -> tuple[str, str]:
    """An exercise of the lessons and its starter source (what a learner submits first)."""
    from app.content import load_catalog

    catalog = load_catalog(lessons_dir)
    for lesson in catalog.lessons.values():
        for exercise_id in lesson.exercise_ids:
            return exercise_id, "__global__ void k() {}\n"
    raise SystemExit(f"no exercise in {lessons_dir}")


def report(path: str, args: argparse.Namespace, lat: list[float], errors: list[str], elapsed_s: float) -> None:
    lat.sort()
    who = "signed-in learners (page + their submission)" if args.signed_in else "anonymous readers"
    print(f"{who}: page {path}  clients {args.clients}  think {args.think_s} s  duration {elapsed_s:.1f} s  cpus {os.cpu_count()}")
    print(f"requests {len(lat)}  errors {len(errors)}  throughput {len(lat) / elapsed_s:.1f} req/s")
    if lat:
        print(f"latency ms: p50 {percentile(lat, 0.50):.1f}  p90 {percentile(lat, 0.90):.1f}  "
              f"p95 {percentile(lat, 0.95):.1f}  p99 {percentile(lat, 0.99):.1f}  max {lat[-1]:.1f}  "
              f"mean {statistics.fmean(lat):.1f}")
    if errors:
        print("errors:", ", ".join(sorted(set(errors))[:5]))


if __name__ == "__main__":
    raise SystemExit(main())
