"""`kdojo worker [--gpu N] [--threads T]`: a stand-alone judging worker for a
scale-out deployment (PostgreSQL + RedisHuey); one per GPU."""

from __future__ import annotations

import os
import signal
import sys
import threading

from app.commands.common import CommandParser, UsageError, load_settings


def main(argv: list[str]) -> int:
    parser = CommandParser(prog="kdojo worker", description=__doc__)
    parser.add_argument("--gpu", type=int, help="the GPU index this worker owns (sets CUDA_VISIBLE_DEVICES)")
    parser.add_argument("--threads", type=int, default=0,
                        help="judging threads (default 0: sized to the machine — one on a GPU, "
                             "one per CPU core on the emulator)")
    parser.add_argument("--name", help="this worker's identity in the database, unique among running workers "
                                       "(default: the host name); a restarted worker re-queues at once the "
                                       "jobs it was judging under it")
    args = parser.parse_args(argv)
    if args.name is not None and (not args.name or ":" in args.name or len(args.name) > 64):
        print("kdojo worker: --name must be 1 to 64 characters without ':'", file=sys.stderr)
        return 2
    if args.gpu is not None:
        if args.gpu < 0:
            print("kdojo worker: --gpu must be 0 or more", file=sys.stderr)
            return 2
        os.environ["CUDA_VISIBLE_DEVICES"] = str(args.gpu)
    from app.logs import configure_logging

    configure_logging()

    try:
        settings = load_settings()
    except UsageError as exc:
        print(f"kdojo worker: {exc}", file=sys.stderr)
        return 2
    return run_worker(settings, args.threads, name=args.name)


def queue_unreachable(queue, settings) -> str | None:  # noqa: ANN001
    """Why the Redis queue cannot be read (None when it can, or for SQLite). Asked
    once at start: otherwise Huey logs a traceback on every poll, hundreds a
    minute, and the worker never says it cannot work."""
    if settings.queue != "redis":
        return None
    from app.datadir import describe_database
    from app.logs import redact

    try:
        queue.huey.storage.conn.ping()
    except Exception as exc:  # noqa: BLE001 - redis raises its own ConnectionError, TimeoutError, …
        return redact(f"cannot reach Redis at {describe_database(settings.redis_url)}: {exc}")
    return None


def run_worker(settings, threads: int, stop: threading.Event | None = None, name: str | None = None) -> int:  # noqa: ANN001
    from app.commands.migrate import migrate
    from app.db import make_engine, make_sessionmaker
    from app.logs import redact
    from app.main import Queue, load_catalog
    from app.queue.tasks import JudgeRuntime
    from app.queue.worker import Worker

    if migrate(settings.database_url, "kdojo worker") != 0:
        return 1
    try:
        catalog = load_catalog(settings, lenient=True)
    except Exception as exc:  # noqa: BLE001 - one line for the operator
        print(redact(f"kdojo worker: {exc}"), file=sys.stderr)
        return 1
    queue = Queue(settings)
    unreachable = queue_unreachable(queue, settings)
    if unreachable is not None:
        print(f"kdojo worker: {unreachable}", file=sys.stderr)
        return 1
    engine = make_engine(settings.database_url)
    runtime = JudgeRuntime(settings, make_sessionmaker(engine), catalog, name)
    worker = Worker(queue.huey, runtime, queue.enqueue, threads)
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
    worker.start()
    print(f"kdojo worker: judging from {settings.queue} queue {settings.queue_name!r}", file=sys.stderr)
    try:
        stop.wait()
    finally:
        worker.stop()
        engine.dispose()
    return 0
