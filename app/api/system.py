"""GET /api/status: which judge backend runs submissions and how busy the queue is.

The UI uses `timings_available` to say that emulator results carry no GPU timings.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from app.deps import SessionDep
from app.services.submissions import queue_counts

router = APIRouter(prefix="/api", tags=["system"])


def resolve_backend(name: str) -> tuple[str | None, str]:
    """(concrete backend, problem) without starting a judge: cheap, no CUDA context."""
    from kernels.backends import BackendUnavailable, resolve

    try:
        return resolve(name), ""
    except BackendUnavailable as exc:
        return None, str(exc)


@router.get("/status")
def status(request: Request, session: SessionDep) -> dict:
    backend, problem = request.app.state.judge_backend
    return {
        "backend": backend,
        "backend_problem": problem,
        "timings_available": backend == "cuda",
        **queue_counts(session),
    }
