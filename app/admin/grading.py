"""/api/admin/submissions…, /api/admin/exercises/{id}/regrade, /api/admin/grades."""

from __future__ import annotations

import datetime as dt
import logging
import re
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, BeforeValidator, Field

from app.admin.auth import GradingRead, GradingWrite
from app.deps import CatalogDep, DbInt, IdPath, NoNulText, PageQuery, SessionDep
from app.routing import SessionRoute
from app.content import LANGUAGES
from app.services import admin_grades, admin_grading
from app.services.submissions import check_language_name
from app.services.admin_grading import SubmissionFilter

router = APIRouter(route_class=SessionRoute, prefix="/api/admin", tags=["admin"])
log = logging.getLogger("kdojo.admin")


def _iso_only(value: object) -> object:
    """`2026-11-24T08:00:00Z`, not `5` (which pydantic would read as seconds since 1970)."""
    if isinstance(value, str) and not re.match(r"^\d{4}-\d{2}-\d{2}", value):
        raise ValueError("must be an ISO 8601 date-time")
    return value


IsoDatetime = Annotated[dt.datetime, BeforeValidator(_iso_only)]


class RegradeIn(BaseModel):
    reason: str = ""


class OverrideIn(BaseModel):
    verdict: str | None = None
    xp: DbInt | None = None
    reason: str = Field(min_length=1)


class FlagIn(BaseModel):
    suspicious: bool = True
    reason: str = Field(min_length=1)


def _enqueue(request: Request, ids: list[int]) -> None:
    for submission_id in ids:
        try:
            request.app.state.queue.enqueue(submission_id)
        except Exception:  # noqa: BLE001 - the row is queued; the reaper enqueues it again later
            log.exception("enqueueing submission %s failed", submission_id)


@router.get("/submissions")
def list_submissions(
    session: SessionDep, _actor: GradingRead,
    learner: NoNulText | None = None, exercise: NoNulText | None = None, verdict: NoNulText | None = None,
    backend: NoNulText | None = None, since: IsoDatetime | None = None, until: IsoDatetime | None = None,
    flagged: bool | None = None, page: PageQuery = 1,
    per_page: Annotated[int, Query(ge=1, le=admin_grading.MAX_PAGE)] = 50,
    language: Annotated[str | None, Query(max_length=32, json_schema_extra={"enum": list(LANGUAGES)},
                                          description="a kernel language: \"cuda\" or \"triton\"")] = None,
) -> dict[str, Any]:
    """Submissions, newest first, with `total` for paging. Dates are UTC."""
    if language is not None:
        check_language_name(language)  # the schema's enum, held (422 language_unknown)
    f = SubmissionFilter(learner, exercise, verdict, backend, _naive(since), _naive(until), flagged, language)
    return admin_grading.list_submissions(session, f, page, per_page)


@router.get("/submissions/{submission_id}")
def get_submission(submission_id: IdPath, session: SessionDep, _actor: GradingRead) -> dict[str, Any]:
    """One submission with its source, full result, attempts, earlier verdicts and overrides."""
    return admin_grading.detail(session, submission_id)


@router.post("/submissions/{submission_id}/regrade", status_code=202)
def regrade(submission_id: IdPath, body: RegradeIn, request: Request, session: SessionDep,
            actor: GradingWrite) -> dict[str, Any]:
    """Judge the submission again through the queue: a new attempt; the old verdict is kept."""
    admin_grading.regrade(session, actor, submission_id, body.reason, request.app.state.settings.queue_name)
    session.commit()
    _enqueue(request, [submission_id])
    return {"id": submission_id, "status": "queued"}


@router.post("/exercises/{exercise_id}/regrade", status_code=202)
def regrade_exercise(exercise_id: str, body: RegradeIn, request: Request, session: SessionDep,
                     actor: GradingWrite) -> dict[str, Any]:
    """Every finished submission of an exercise, queued again (after a test was fixed)."""
    ids = admin_grading.regrade_exercise(session, actor, exercise_id, body.reason,
                                         request.app.state.settings.queue_name)
    session.commit()
    _enqueue(request, ids)
    return {"exercise_id": exercise_id, "queued": ids, "count": len(ids)}


@router.post("/submissions/{submission_id}/override")
def override(submission_id: IdPath, body: OverrideIn, session: SessionDep, actor: GradingWrite) -> dict[str, Any]:
    """Set the verdict and/or XP of a submission; `reason` is required."""
    admin_grading.override(session, actor, submission_id, body.verdict, body.xp, body.reason)
    session.commit()
    return admin_grading.detail(session, submission_id)


@router.post("/submissions/{submission_id}/flag")
def flag(submission_id: IdPath, body: FlagIn, session: SessionDep, actor: GradingWrite) -> dict[str, Any]:
    """Mark suspicious (kept, hidden from leaderboards) or clear the mark."""
    row = admin_grading.flag(session, actor, submission_id, body.suspicious, body.reason)
    session.commit()
    return {"id": row.id, "flagged": row.flagged}


@router.get("/grades", response_model=None, responses={
    200: {"description": "the grades as JSON, or with `format=csv` as a spreadsheet",
          "content": {"application/json": {"schema": {"type": "object"}},
                      "text/csv": {"schema": {"type": "string"}}}}})
def grades(
    session: SessionDep, catalog: CatalogDep, _actor: GradingRead,
    track: NoNulText | None = None, lesson: NoNulText | None = None, exercises: NoNulText | None = None,
    format: Literal["json", "csv"] = "json",
    language: Annotated[str | None, Query(max_length=32, json_schema_extra={"enum": list(LANGUAGES)},
                                          description="one kernel language's grades only: \"cuda\" or "
                                          "\"triton\" (default: all, each also under `by_language`)")] = None,
) -> Response | dict[str, Any]:
    """Learners × exercises (best verdict, best time in ms, attempts, XP) of one track,
    one lesson, or a comma-separated exercise list; `format=csv` for a spreadsheet."""
    ids = admin_grades.exercise_set(catalog, track, lesson, exercises)
    if language is not None:
        check_language_name(language)
    report = admin_grades.grades(session, ids, language)
    if format == "csv":
        name = (track or lesson or "exercises").replace('"', "")
        return Response(admin_grades.to_csv(report), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="grades-{name}.csv"'})
    return JSONResponse(report)


def _naive(value: dt.datetime | None) -> dt.datetime | None:
    # the database stores naive UTC
    if value is None or value.tzinfo is None:
        return value
    return value.astimezone(dt.UTC).replace(tzinfo=None)
