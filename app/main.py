"""The FastAPI application: `create_app(settings) -> FastAPI`.

It wires the database, the lesson catalog, the queue (and, unless told not to,
the embedded judging worker), CSRF protection, the JSON API and the pages.
Migrations are run by `kdojo serve` / the tests before the app is created.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DataError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.api.errors import (busy_handler, data_error_handler, document_errors, overflow_handler,
                            service_error_handler)
from app.content import Catalog
from app.content import load_catalog as load_lessons
from app.db import DatabaseBusy, make_engine, make_sessionmaker
from app.metrics import Metrics, MetricsMiddleware, QueueGauge, metrics_endpoint
from app.security.bodylimit import BodyLimitMiddleware
from app.security.csrf import CSRFMiddleware
from app.security.head import HeadAsGetMiddleware
from app.security.headers import SecurityHeadersMiddleware, csp_nonce
from app.services.errors import ServiceError
from app.settings import REPO_ROOT, Settings, get_settings
from app.streams import StreamHub
from app.templating import templates

log = logging.getLogger("kdojo")


def load_catalog(settings: Settings, lenient: bool = False) -> Catalog:
    """The lesson catalog; `lenient` (start-up): a malformed lesson is left out with one
    error line naming its file and field (app.content.load_catalog)."""
    catalog = load_lessons(settings.lessons_dir, lenient=lenient)
    for error in catalog.skipped:
        log.error("lesson left out: %s (`kdojo lessons validate` checks them all)", error)
    return catalog


class Queue:
    """Enqueue judging jobs; the web process needs nothing more from Huey."""

    def __init__(self, settings: Settings) -> None:
        from app.queue.huey_app import build_huey
        from app.queue.tasks import register

        self.huey = build_huey(settings)
        self.task = register(self.huey)

    def enqueue(self, submission_id: int) -> None:
        self.task(submission_id)


def web_threads(settings: Settings) -> int:
    """The request threads (sync routes): `KDOJO_WEB_THREADS`, else 6 per CPU core, at least 8.
    The event loop, and /healthz with it, takes the GIL back from whichever of them runs;
    past a few per core more threads add waiting for it, not throughput: a class of 200 on
    2 cores (PostgreSQL + Redis) had /healthz p99 93 / 98 ms with 12 and 108 / 105 ms with
    anyio's 40, the lesson page 536 / 542 ms and 694 / 728 ms (docs/benchmarks.md)."""
    return settings.web_threads or max(8, 6 * (os.cpu_count() or 1))


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    import anyio.to_thread

    anyio.to_thread.current_default_thread_limiter().total_tokens = web_threads(settings)
    worker = None
    if settings.embedded_worker:
        from app.queue.tasks import JudgeRuntime
        from app.queue.worker import Worker

        runtime = JudgeRuntime(settings, app.state.sessionmaker, app.state.catalog, metrics=app.state.metrics)
        worker = Worker(app.state.queue.huey, runtime, app.state.queue.enqueue, settings.worker_threads)
        worker.start()
    app.state.worker = worker
    gauge = QueueGauge(app.state.metrics, app.state.sessionmaker)
    gauge.start()
    watcher = None
    if settings.reload_lessons:  # development: reload lessons when their files change (issue #6)
        from app.services.admin_content import LessonWatcher

        watcher = LessonWatcher(app, settings.reload_lessons_interval_s)
        watcher.start()
    app.state.lesson_watcher = watcher
    try:
        yield
    finally:
        if watcher is not None:
            watcher.stop()
        await app.state.streams.close()
        if worker is not None:
            worker.stop()
        gauge.stop()
        app.state.engine.dispose()


def create_app(settings: Settings | None = None, catalog: Catalog | None = None, lenient: bool = False) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(title="Kernel Dojo", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.settings = settings
    app.state.engine = make_engine(settings.database_url)
    app.state.sessionmaker = make_sessionmaker(app.state.engine)
    app.state.catalog = catalog if catalog is not None else load_catalog(settings, lenient)
    app.state.queue = Queue(settings)
    app.state.streams = StreamHub(app.state.sessionmaker, settings.sse_poll_s)
    from app.api.system import resolve_backend

    # (backend name or None, why not): pages say "timings not available" off the GPU.
    app.state.judge_backend = resolve_backend(settings.judge_backend)
    # Jinja's auto_reload stats every template and partial on every render: under
    # load on a 2-core machine that was ~30% of the server's busy time. Templates
    # are re-read only where files are being edited (the development watcher).
    templates.env.auto_reload = settings.reload_lessons

    # Anonymous lesson pages from memory (issue #4); inside CSRFMiddleware, which
    # gives each reader the token the cached page is served with.
    try:
        from app.pages.anon_cache import AnonPageCache, AnonPageMiddleware
    except ModuleNotFoundError as exc:  # no pages (below)
        if exc.name != "app.pages":
            raise
    else:
        app.state.anon_pages = AnonPageCache(str(app.state.engine.url))
        app.add_middleware(AnonPageMiddleware)
    # Outermost last: forwarded address → HEAD as GET → security headers → body limit → CSRF → pages.
    app.add_middleware(CSRFMiddleware, secret=settings.secret_key, secure=settings.cookie_secure)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_request_bytes)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(HeadAsGetMiddleware)  # curl -I and uptime checks: GET's answer, no body
    if settings.forwarded_allow_ips:  # only these peers may say who the client is (issue #13)
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.forwarded_allow_ips)
    app.state.metrics = Metrics()
    app.add_middleware(MetricsMiddleware, metrics=app.state.metrics)  # outermost: every response counts
    app.add_exception_handler(ServiceError, service_error_handler)
    app.add_exception_handler(DataError, data_error_handler)
    app.add_exception_handler(OverflowError, overflow_handler)
    app.add_route("/metrics", metrics_endpoint, methods=["GET"], include_in_schema=False)
    app.add_exception_handler(DatabaseBusy, busy_handler)
    app.add_exception_handler(PoolTimeout, busy_handler)
    app.add_api_route("/api/docs", _swagger, include_in_schema=False, response_class=HTMLResponse)
    app.mount("/static", StaticFiles(directory=REPO_ROOT / "static", check_dir=False), name="static")

    from app.api import router as api_router

    app.include_router(api_router)
    from app.admin import router as admin_router

    app.include_router(admin_router)
    try:
        from app.pages import router as pages_router
    except ModuleNotFoundError as exc:  # the pages are the frontend's; the API works without them
        if exc.name != "app.pages":
            raise
        log.warning("pages not available: %s", exc)
    else:
        app.include_router(pages_router)
        from app.pages.errors import install as install_error_pages

        install_error_pages(app)  # browsers get HTML error pages, API clients JSON (#13)
    document_errors(app)
    return app


SWAGGER = REPO_ROOT / "static" / "vendor" / "swagger-ui"


async def _swagger(request: Request) -> HTMLResponse:
    """Swagger UI; its one inline script carries the response's CSP nonce."""
    assets = {}
    if (SWAGGER / "swagger-ui-bundle.js").exists():  # the offline bundle, where it is built
        assets = {"swagger_js_url": "/static/vendor/swagger-ui/swagger-ui-bundle.js",
                  "swagger_css_url": "/static/vendor/swagger-ui/swagger-ui.css"}
    page = get_swagger_ui_html(openapi_url="/api/openapi.json", title="Kernel Dojo API",
                               swagger_favicon_url="/static/favicon.svg", **assets)  # nothing off-site (#13)
    html = bytes(page.body).decode().replace("<script>", f'<script nonce="{csp_nonce(request)}">')
    return HTMLResponse(html)
