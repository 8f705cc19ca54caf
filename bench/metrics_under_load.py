"""/metrics under load (issue #25): does the scrape answer while the server is saturated?

Starts `kdojo serve --no-worker` on 127.0.0.1 (bench/web_load.py's server), then
runs N closed-loop clients (no think time) on `GET /api/me/progress`, a route
that runs in the request thread pool and reads the database, to saturate the
server. Meanwhile two probes, one request every `--probe-s` each, time
`GET /metrics` and `GET /api/me/progress`. The ratio of their latencies shows
what the scrape avoids: the thread pool's queue and the database. Bounded in
count (web_load's MAX_REQUESTS) and time; loopback only.

    .venv/bin/python bench/metrics_under_load.py                  # 100 clients, 20 s
    .venv/bin/python bench/metrics_under_load.py --clients 200 --duration-s 30
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from web_load import (
    Connection,
    Learner,
    client,
    commit,
    free_port,
    percentile,
    start_server,
    stop,
)

LOAD_PATH = "/api/me/progress"


async def probe(port: int, path: str, stop_at: float, every_s: float, latencies_ms: list[float],
                errors: list[str]) -> None:
    conn = Connection("127.0.0.1", port)
    while time.monotonic() < stop_at:
        t0 = time.perf_counter()
        try:
            status = await asyncio.wait_for(conn.get(path), timeout=30.0)
            if status == 200:
                latencies_ms.append((time.perf_counter() - t0) * 1000)
            else:
                errors.append(f"HTTP {status}")
        except (TimeoutError, OSError, ValueError, asyncio.IncompleteReadError) as exc:
            errors.append(type(exc).__name__)
            await conn.close()
        await asyncio.sleep(every_s)
    await conn.close()


async def run(port: int, clients: int, duration_s: float, probe_s: float) -> dict[str, tuple[list[float], list[str]]]:
    stop_at = time.monotonic() + duration_s
    found: dict[str, tuple[list[float], list[str]]] = {name: ([], []) for name in ("load", "/metrics", LOAD_PATH)}
    by_kind: dict[str, list[float]] = {}
    await asyncio.gather(
        *(client("127.0.0.1", port, Learner((LOAD_PATH,)), stop_at, 0.0, *found["load"], by_kind)
          for _ in range(clients)),
        probe(port, "/metrics", stop_at, probe_s, *found["/metrics"]),
        probe(port, LOAD_PATH, stop_at, probe_s, *found[LOAD_PATH]),
    )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--duration-s", type=float, default=20.0)
    parser.add_argument("--probe-s", type=float, default=0.25, help="seconds between two requests of a probe")
    args = parser.parse_args()
    if not 1 <= args.clients <= 1000 or not 1 <= args.duration_s <= 300:
        print("metrics_under_load: --clients 1..1000, --duration-s 1..300", file=sys.stderr)
        return 2
    from tests.web.conftest import build_lessons

    with tempfile.TemporaryDirectory(prefix="kdojo-metrics-bench-") as folder:
        tmp = Path(folder)
        port = free_port()
        server = start_server(build_lessons(tmp / "lessons"), tmp, port)
        try:
            found = asyncio.run(run(port, args.clients, args.duration_s, args.probe_s))
        finally:
            stop(server)
    print(f"commit {commit()}, {platform.node()} ({platform.processor() or platform.machine()}), "
          f"{args.clients} clients on {LOAD_PATH}, {args.duration_s:g} s, probes every {args.probe_s:g} s")
    print(f"load: {len(found['load'][0]) / args.duration_s:.0f} requests/s, {len(found['load'][1])} errors")
    medians = {}
    for name in ("/metrics", LOAD_PATH):
        latencies, errors = found[name]
        ordered = sorted(latencies)
        medians[name] = percentile(ordered, 0.5)
        print(f"probe {name}: {len(latencies)} answers, {len(errors)} errors, p50 {medians[name]:.1f} ms, "
              f"p95 {percentile(ordered, 0.95):.1f} ms, max {ordered[-1] if ordered else float('nan'):.1f} ms")
    print(f"ratio of p50s ({LOAD_PATH} / /metrics): {medians[LOAD_PATH] / medians['/metrics']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
