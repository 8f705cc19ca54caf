"""GET /api/status: which judge backend runs submissions and how busy the queue is;
GET /healthz (liveness) and GET /readyz (database and queue reachable), issue #25.

The UI uses `timings_available` to say that emulator results carry no GPU timings,
and `profiler` ({enabled, source: "ncu" | "emulator" | null, ncu}) to say whether a
passing attempt gets a profile (#16; on a GPU worker only where `ncu` is found).
Admins also get `sandbox`: the `kdojo sandbox check` layers (kernels/doctor.py),
probed at most every SANDBOX_TTL_S (the probe starts an NVRTC helper).
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from app.db import ping
from app.deps import CurrentUser
from app.routing import SessionRoute
from app.services.submissions import queue_counts
from kernels import targets

router = APIRouter(route_class=SessionRoute, prefix="/api", tags=["system"])
router_root = APIRouter(route_class=SessionRoute, tags=["system"])  # /healthz, /readyz
STATUS_TTL_S = 1.0  # queue counts are shared this long by every /api/status caller
READY_TIMEOUT_S = 2.0
SANDBOX_TTL_S = 600.0
_sandbox_lock = threading.Lock()


def resolve_backend(name: str) -> tuple[str | None, str]:
    """(concrete backend, problem) without starting a judge: cheap, no CUDA context."""
    from kernels.targets import TargetUnavailable, resolve

    try:
        return resolve(name), ""
    except TargetUnavailable as exc:
        return None, str(exc)


def sandbox_summary(state, backend: str | None) -> list[dict]:
    """The sandbox layers (cached on the app's state for SANDBOX_TTL_S)."""
    from dataclasses import asdict

    from kernels.doctor import summary

    with _sandbox_lock:
        cached = getattr(state, "sandbox_summary", None)
        if cached is None or time.monotonic() - cached[0] > SANDBOX_TTL_S:
            layers = [{**asdict(layer), "ok": layer.ok} for layer in summary(backend or "emu")]
            cached = state.sandbox_summary = (time.monotonic(), layers)
        return cached[1]


def _profiler(backend: str | None) -> dict:
    from kernels.profile.run import status as profiler_status

    return profiler_status(backend)


@router.get("/status")
async def status(request: Request, user: CurrentUser) -> dict:
    """Answers from the event loop; what it reads from the database is shared by all
    callers for STATUS_TTL_S (issue #25: it must answer while a class submits)."""
    backend, problem = request.app.state.judge_backend
    body = {"backend": backend, "backend_problem": problem, "timings_available": targets.timed(backend),
            **await _shared_status(request.app.state)}
    if user is not None and user.role == "admin":
        body["sandbox"] = await run_in_threadpool(sandbox_summary, request.app.state, backend)
    return body


async def _shared_status(state: Any) -> dict:
    cached = getattr(state, "status_cache", None)
    if cached is not None and time.monotonic() - cached[0] < STATUS_TTL_S:
        return cached[1]
    pending = getattr(state, "status_pending", None)
    if pending is None or pending.done():  # one computation at a time, whoever asks
        pending = state.status_pending = probes(state).submit(_compute_status, state)
    return await asyncio.wrap_future(pending)


def _compute_status(state: Any) -> dict:
    backend, _ = state.judge_backend
    with state.sessionmaker() as session:
        counts = queue_counts(session)
    body = {"profiler": _profiler(backend), **counts}  # #16: does a passing attempt get a profile
    state.status_cache = (time.monotonic(), body)
    return body


def probes(state: Any) -> ThreadPoolExecutor:
    """Threads of their own for /api/status and /readyz, so they never queue behind
    requests waiting for anyio's pool."""
    executor = getattr(state, "probes", None)
    if executor is None:
        executor = state.probes = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kdojo-probe")
    return executor


@router_root.get("/healthz")
async def healthz() -> dict:
    """Liveness: the event loop answers. No database, no thread."""
    return {"status": "ok"}


@router_root.get("/readyz", responses={503: {"description": "Not ready: `reasons` says why"}})
async def readyz(request: Request) -> JSONResponse:
    """Readiness: the database and the queue answer within READY_TIMEOUT_S each."""
    state = request.app.state
    reasons = []
    for name, check in (("database", _check_database), ("queue", _check_queue)):
        try:
            await asyncio.wait_for(asyncio.wrap_future(probes(state).submit(check, state)), READY_TIMEOUT_S)
        except TimeoutError:
            reasons.append(f"{name}: no answer within {READY_TIMEOUT_S:g} s")
        except Exception as exc:  # noqa: BLE001 - the reason is the answer
            reasons.append(f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}")
    if reasons:
        return JSONResponse({"ready": False, "reasons": reasons}, status_code=503)
    return JSONResponse({"ready": True})


def _check_database(state: Any) -> None:
    ping(state.sessionmaker)


def _check_queue(state: Any) -> None:
    state.queue.huey.storage.queue_size()
