"""`kdojo serve [--host H] [--port P]`: migrate, load lessons, start the embedded
worker and serve the app (one process by default)."""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path
from typing import IO

from app.commands.common import CommandParser, UsageError, load_settings


def main(argv: list[str]) -> int:
    parser = CommandParser(prog="kdojo serve", description=__doc__)
    parser.add_argument("--host", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default 8000)")
    parser.add_argument("--no-worker", action="store_true",
                        help="do not run the embedded judging worker (scale-out: run `kdojo worker`)")
    args = parser.parse_args(argv)
    from app.logs import configure_logging

    configure_logging()

    try:
        settings = load_settings()
    except UsageError as exc:
        print(f"kdojo serve: {exc}", file=sys.stderr)
        return 2
    updates = {k: v for k, v in {"host": args.host, "port": args.port}.items() if v is not None}
    if args.no_worker:
        updates["embedded_worker"] = False
    settings = settings.model_copy(update=updates)
    return serve(settings)


def port_taken(host: str, port: int) -> str | None:
    """Why `host:port` cannot be bound now (None when it can). Asked before
    anything starts: otherwise the embedded worker starts judging from the
    same queue as the server already there, and uvicorn's bind error ends
    the process only after it."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        return f"cannot resolve {host}: {exc.strerror or exc}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            sock.bind(address)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def hold_data_folder(database_url: str, create: bool) -> tuple[IO[bytes] | None, str | None]:
    """Take the one-server lock of a SQLite database: (the open lock file, to keep
    for the process's life, or None for a server database or, without `create`,
    a folder not made yet; why not, or None).

    An OS lock (flock) on a file beside the database, so a killed server leaves
    none behind. Two servers on one SQLite database would each run a worker
    taking the other's jobs and re-queue each other's running ones."""
    if not database_url.startswith("sqlite"):
        return None, None  # PostgreSQL: as many web nodes as you like
    path = database_url.split("///", 1)[-1].split("?", 1)[0]
    if not path or path == ":memory:":
        return None, None
    database = Path(path).resolve()
    if not create and not database.parent.is_dir():
        return None, None
    database.parent.mkdir(parents=True, exist_ok=True)
    handle = open(database.with_name(database.name + ".server-lock"), "a+b")  # noqa: SIM115 - held until exit
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        pid = handle.read().decode(errors="replace").strip() or "unknown"
        handle.close()
        return None, (f"another server (pid {pid}) is running on the data folder {database.parent} "
                      f"(database {database.name}); stop it first")
    handle.truncate(0)
    handle.write(str(os.getpid()).encode())
    handle.flush()
    return handle, None


def serve(settings) -> int:  # noqa: ANN001
    import gc

    import uvicorn

    from app.commands.migrate import migrate
    from app.main import create_app

    # Who holds the data folder is said first (a second server on the default port finds
    # both taken); a folder not made yet is made only once the port is known to be free.
    held, busy = hold_data_folder(settings.database_url, create=False)  # locked until serve() returns
    taken = None if busy is not None else port_taken(settings.host, settings.port)
    if taken is not None:
        print(f"kdojo serve: cannot listen on {settings.host}:{settings.port}: {taken} "
              f"(another server there? choose another with --port)", file=sys.stderr)
        return 1
    if busy is None and held is None:
        held, busy = hold_data_folder(settings.database_url, create=True)
    if busy is not None:
        print(f"kdojo serve: {busy}", file=sys.stderr)
        return 1
    if migrate(settings.database_url, "kdojo serve") != 0:
        return 1
    try:
        app = create_app(settings, lenient=True)
    except Exception as exc:  # noqa: BLE001 - e.g. a malformed lesson names its file and field
        print(f"kdojo serve: {exc}", file=sys.stderr)
        return 1
    if settings.embedded_worker:  # a web node with --no-worker may start before its Redis
        from app.commands.worker import queue_unreachable

        unreachable = queue_unreachable(app.state.queue, settings)
        if unreachable is not None:
            print(f"kdojo serve: {unreachable} (or run with --no-worker)", file=sys.stderr)
            return 1
    warm_pages(app)
    print(f"kdojo: serving http://{settings.host}:{settings.port}", file=sys.stderr)
    # What start-up made (the catalog, rendered lessons, templates, compiled statements) lives as
    # long as the server: frozen out of the cyclic collector's sight, a full collection under load
    # walks only the requests' garbage instead of pausing every request behind it.
    gc.collect()
    gc.freeze()
    # The event loop (and with it /healthz) takes the GIL back from the request threads after
    # at most 1 ms instead of Python's 5: under a class's burst of posts it waited its turn
    # behind dozens of threads holding it 5 ms each (docs/benchmarks.md, "A class at once").
    sys.setswitchinterval(0.001)
    # proxy_headers off: the app trusts X-Forwarded-For only from KDOJO_FORWARDED_ALLOW_IPS (app.main)
    # log_config=None: uvicorn's lines go through our logging (secrets masked, a 500's traceback once)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info", access_log=settings.access_log,
                proxy_headers=False, log_config=None)
    return 0


def warm_pages(app) -> None:  # noqa: ANN001
    """Every lesson page rendered once before the first request (app.pages.warm, #25): a class
    opening a lesson on a fresh server no longer makes each request thread compile and render
    the same things at once. A page that fails here is said and served (and fails) as before."""
    try:
        from app.pages.warm import warm
    except ModuleNotFoundError as exc:  # a server without the pages (app.main says so)
        if exc.name != "app.pages":
            raise
        return
    done = warm(app)
    for failure in done["failed"]:
        print(f"kdojo serve: warming {failure}", file=sys.stderr)
    print(f"kdojo: {done['pages']} lesson pages rendered in {done['seconds']} s", file=sys.stderr)
