"""POST /api/bug-reports: “report a problem” from a lesson page."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.deps import CatalogDep, DbId, OwnerDep, SessionDep
from app.routing import SessionRoute
from app.services import awards, catalog_view
from app.services import bugreports as service
from app.services.submissions import latest_submission_id
from app.services.text import SAYS_SOMETHING_SCHEMA, TEXT_SCHEMA

router = APIRouter(route_class=SessionRoute, prefix="/api/bug-reports", tags=["bug reports"])


class BugReportIn(BaseModel):
    lesson_id: str
    anchor: str = Field(default="", json_schema_extra=TEXT_SCHEMA)
    submission_id: DbId | None = None
    message: str = Field(json_schema_extra=SAYS_SOMETHING_SCHEMA,
                         description="not blank; no control characters (422 text_control)")
    gpu: str = ""  # the server's GPU, as the result panel last showed it


@router.post("", status_code=201)
def create_bug_report(body: BugReportIn, session: SessionDep, owner: OwnerDep, catalog: CatalogDep) -> dict:
    known = {lesson.id for lesson in catalog_view.lessons(catalog)}
    submission_id = body.submission_id
    if submission_id is None:
        submission_id = latest_submission_id(session, owner.user, owner.anon_id)
    gpu = body.gpu or service.server_gpu(session)
    report = service.create(session, owner.user, lesson_id=body.lesson_id, anchor=body.anchor,
                            submission_id=submission_id, message=body.message, gpu=gpu,
                            anon_id=owner.anon_id, known_lessons=known)
    if owner.user is not None:
        awards.check_achievements(session, owner.user.id, catalog)
    session.commit()
    return service.view(report)


@router.get("/draft")
def draft(lesson_id: str, session: SessionDep, owner: OwnerDep, anchor: str = "") -> dict:
    """The pre-filled report: lesson, section anchor, latest submission, GPU, toolchain."""
    return service.draft(session, owner.user, owner.anon_id, lesson_id, anchor)
