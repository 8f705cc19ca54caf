"""GET /api/status: which judge backend runs submissions and how busy the queue is.

The UI uses `timings_available` to say that emulator results carry no GPU timings,
and `profiler` ({enabled, source: "ncu" | "emulator" | null, ncu}) to say whether a
passing attempt gets a profile (#16; on a GPU worker only where `ncu` is found).
Admins also get `sandbox`: the `kdojo sandbox check` layers (kernels/doctor.py),
probed at most every SANDBOX_TTL_S (the probe starts an NVRTC helper).
"""

from __future__ import annotations

import threading
import time

from fastapi import APIRouter, Request
from app.deps import CurrentUser, SessionDep
from app.services.submissions import queue_counts

router = APIRouter(prefix="/api", tags=["system"])
SANDBOX_TTL_S = 600.0
_sandbox_lock = threading.Lock()


def resolve_backend(name: str) -> tuple[str | None, str]:
    """(concrete backend, problem) without starting a judge: cheap, no CUDA context."""
    from kernels.backends import BackendUnavailable, resolve

    try:
        return resolve(name), ""
    except BackendUnavailable as exc:
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
    from kernels.profile_run import status as profiler_status

    return profiler_status(backend)


@router.get("/status")
def status(request: Request, session: SessionDep, user: CurrentUser) -> dict:
    backend, problem = request.app.state.judge_backend
    body = {
        "backend": backend,
        "backend_problem": problem,
        "timings_available": backend == "cuda",
        "profiler": _profiler(backend),  # #16: does a passing attempt get a profile, from ncu or the emulator
        **queue_counts(session),
    }
    if user is not None and user.role == "admin":
        body["sandbox"] = sandbox_summary(request.app.state, backend)
    return body
