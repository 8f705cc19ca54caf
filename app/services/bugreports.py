"""“Report a problem”: a bug report pre-filled with where the learner was and
what the server runs (GPU and toolchain), so an instructor can reproduce it."""

from __future__ import annotations

import functools
import platform
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import BugReport, Submission, User
from app.services.errors import Invalid, NotFound
from app.services.text import check_text
from kernels import targets

MAX_MESSAGE_CHARS = 5000


@functools.lru_cache(maxsize=1)
def toolchain() -> str:
    parts = [f"python {platform.python_version()}"]
    try:
        from importlib.metadata import version

        parts.append(f"nvrtc {version('nvidia-cuda-nvrtc')}")
    except Exception:  # noqa: BLE001 - a missing wheel just leaves it out
        pass
    return ", ".join(parts)


def create(
    session: Session, user: User | None, *, lesson_id: str, anchor: str, submission_id: int | None,
    message: str, gpu: str, anon_id: str | None = None, known_lessons: set[str] | None = None,
) -> BugReport:
    message = message.strip()
    if not message:
        raise Invalid("Please describe the problem.")
    if len(message) > MAX_MESSAGE_CHARS:
        raise Invalid(f"The description can be at most {MAX_MESSAGE_CHARS} characters.")
    check_text(message + anchor, "report")
    if known_lessons is not None and lesson_id not in known_lessons:
        raise NotFound(f"There is no lesson {lesson_id!r}.")
    if submission_id is not None and not _owns(session, user, anon_id, submission_id):
        raise NotFound(f"There is no submission {submission_id} of yours.")
    report = BugReport(user_id=user.id if user else None, lesson_id=lesson_id, anchor=anchor[:200],
                       submission_id=submission_id, message=message, gpu=gpu[:200],
                       toolchain=toolchain()[:200])
    session.add(report)
    session.flush()
    return report


def _owns(session: Session, user: User | None, anon_id: str | None, submission_id: int) -> bool:
    row = session.execute(
        select(Submission.user_id, Submission.anon_id).where(Submission.id == submission_id)
    ).first()
    if row is None:
        return False
    if user is not None:
        return row.user_id == user.id
    return row.user_id is None and anon_id is not None and row.anon_id == anon_id


def server_gpu(session: Session) -> str:
    """The GPU the latest judged submission ran on ("" before the first one)."""
    result = session.scalar(
        select(Submission.result).where(Submission.status == "done", Submission.result.is_not(None))
        .order_by(Submission.id.desc()).limit(1)
    )
    if not result:
        return ""
    if not targets.timed(result.get("backend")):
        return "none (CPU emulator)"
    return str((result.get("device") or {}).get("name") or "")


def draft(session: Session, user: User | None, anon_id: str | None, lesson_id: str, anchor: str) -> dict[str, Any]:
    """What the “report a problem” form starts with."""
    from app.services.submissions import latest_submission_id

    return {"lesson_id": lesson_id, "anchor": anchor[:200],
            "submission_id": latest_submission_id(session, user, anon_id),
            "gpu": server_gpu(session), "toolchain": toolchain()}


def view(report: BugReport) -> dict[str, Any]:
    return {
        "id": report.id, "lesson_id": report.lesson_id, "anchor": report.anchor,
        "submission_id": report.submission_id, "message": report.message, "gpu": report.gpu,
        "toolchain": report.toolchain, "status": report.status,
        "created_at": report.created_at.isoformat() + "Z",
    }
