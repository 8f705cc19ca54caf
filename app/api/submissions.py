"""POST /api/submissions, GET /api/submissions/{id}, GET /api/submissions/{id}/events (SSE)."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app.content import DEFAULT_LANGUAGE, LANGUAGES, Catalog
from app.db import open_session, transaction
from app.deps import ANON_COOKIE, MAX_DB_INT, CatalogDep, IdPath, OwnerDep, SettingsDep, client_gone, current_owner
from app.routing import SessionRoute
from app.services import submissions as service
from app.settings import Settings
from app.streams import StreamHub
from kernels.contract import Event

router = APIRouter(route_class=SessionRoute, prefix="/api/submissions", tags=["submissions"])
log = logging.getLogger("kdojo.api")
SSE_KEEPALIVE_S = 15.0
SSE_MAX_S = 15 * 60.0
CLIENT_GONE = 499  # nginx's "client closed request": nobody reads it


class PreviousProfileOut(BaseModel):
    """The author's latest earlier accepted attempt at the exercise with a profile
    measured the same way (#16): the Performance panel sets it beside this one."""

    submission_id: int
    mode: Literal["run", "submit"]
    finished_at: str | None
    profile: dict[str, Any] = Field(description="that attempt's `profile` object (docs/judge.md, \"Profile\")")


LanguageName = Annotated[str, Field(
    max_length=32, json_schema_extra={"enum": list(LANGUAGES)},
    description="the kernel language of `source`: \"cuda\" (CUDA C++) or \"triton\" (Triton); "
                "one the exercise offers (`GET /api/exercises/{id}`: `languages`)")]


class SubmissionOut(BaseModel):
    id: int
    exercise_id: str
    language: LanguageName
    mode: Literal["run", "submit"]
    status: Literal["queued", "running", "done"]
    verdict: str | None
    result: dict[str, Any] | None = Field(description="the judge's v1 result document once judged (docs/judge.md)")
    xp_awarded: int
    achievements: list[str]
    attempts: int
    flagged: bool
    created_at: str
    finished_at: str | None
    source: str
    position: int = Field(description="1 = next to be judged; 0 once running or done")
    previous_profile: PreviousProfileOut | None = Field(
        description="null unless this attempt has a profile and an earlier one of the same author has too")


class SubmissionIn(BaseModel):
    exercise_id: str
    source: str
    mode: Literal["run", "submit"] = "submit"
    language: LanguageName = DEFAULT_LANGUAGE


class CreatedOut(BaseModel):
    id: int
    status: Literal["queued", "running", "done"]
    position: int = Field(description="1 = next to be judged (the fair queue's order); 0 once running or done")


IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:-]+$",
    description="A fresh random key per submission (a UUID), sent again unchanged on retries: a retry "
                "answers 200 with the submission the first request created and creates nothing. "
                "The same key with a different body is a 409. Keys are kept per user (or anonymous "
                "browser) as long as the submission.")]


@router.post("", status_code=202, response_model=CreatedOut, responses={
    200: {"model": CreatedOut, "description": "a retry with an Idempotency-Key already used for this "
                                              "body: the submission it created (nothing new)"},
    422: {"description": "Validation error; among others `language_unknown` (a language the site does not "
                         "judge) and `language_not_offered` (the exercise is not offered in it): `detail[0].type` "
                         "and `code` name it, `params` has `language` and `choices`"},
    499: {"description": "The client left before its turn came (nothing stored)"}})
async def create_submission(
    body: SubmissionIn, request: Request, owner: OwnerDep, settings: SettingsDep, catalog: CatalogDep,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    # One thread hop; its write transaction begins and commits in that thread (#25).
    return await run_in_threadpool(_create_in_thread, body, request, owner, settings, catalog, idempotency_key)


def _create_in_thread(body: SubmissionIn, request: Request, owner: service.Owner, settings: Settings,
                      catalog: Catalog, idempotency_key: str | None) -> Response:
    if client_gone(request):
        # It waited for a thread while its client gave up: nobody is there to follow
        # the verdict, and judging it would only delay everyone else (issue #25).
        log.info("submission request dropped: the client left while it waited")
        return Response(status_code=CLIENT_GONE)
    new_anon = None
    if owner.user is None and not owner.anon_id:
        # An anonymous browser gets an id so it alone can read its submissions.
        new_anon = secrets.token_urlsafe(18)
        owner = service.Owner(user=None, anon_id=new_anon, client_ip=owner.client_ip)
    limits = service.Limits(settings.max_pending_submissions, settings.submissions_per_hour,
                            settings.anonymous_submissions_per_hour, settings.max_source_bytes,
                            settings.anonymous_submissions_per_address_per_hour)
    with transaction(request.app.state.sessionmaker) as session:
        submission, created = service.create(session, owner, catalog, body.exercise_id, body.source, body.mode,
                                             limits, settings.queue_name, idempotency_key, body.language)
        position = service.queue_position(session, submission.id)
    if created:
        try:
            request.app.state.queue.enqueue(submission.id)
        except Exception:  # noqa: BLE001 - the row is queued; the reaper enqueues it again later
            log.exception("enqueueing submission %s failed", submission.id)
    response = JSONResponse(
        {"id": submission.id, "status": submission.status, "position": position},
        status_code=202 if created else 200,
    )
    if new_anon is not None:
        response.set_cookie(ANON_COOKIE, new_anon, max_age=365 * 86400, httponly=True, samesite="lax",
                            secure=settings.cookie_secure or request.url.scheme == "https")
    return response


@router.get("/{submission_id}", response_model=SubmissionOut)
async def get_submission(submission_id: IdPath, request: Request) -> dict:
    # Polled by every waiting learner (issue #13): one thread hop (a sync route with
    # sync dependencies made four) and one query for the row and its place in the queue.
    return await run_in_threadpool(_submission_view, request, submission_id)


def _submission_view(request: Request, submission_id: int) -> dict:
    with open_session(request.app.state.sessionmaker) as session:
        owner = current_owner(request, session)
        submission, position = service.get_with_position(session, owner, submission_id)
        view = service.public_view(submission)
        view["position"] = position
        # #16: the author's previous profiled attempt, for the Performance panel's comparison
        view["previous_profile"] = service.previous_profile(session, submission)
        return view


@router.get("/{submission_id}/events")
async def submission_events(submission_id: IdPath, request: Request, owner: OwnerDep) -> StreamingResponse:
    factory = request.app.state.sessionmaker

    def check() -> None:
        with factory() as session:
            service.get(session, owner, submission_id)

    await run_in_threadpool(check)
    last_id = _last_event_id(request)
    return StreamingResponse(
        _stream(request, request.app.state.streams, submission_id, last_id),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _last_event_id(request: Request) -> int:
    raw = request.headers.get("last-event-id") or request.query_params.get("last_event_id") or "0"
    try:  # bounded: the database compares it with `integer` sequence numbers
        return min(max(0, int(raw)), MAX_DB_INT)
    except ValueError:
        return 0


async def _stream(request: Request, hub: StreamHub, submission_id: int, last_id: int) -> AsyncIterator[str]:
    """Events after `last_id`, as they are stored, until `done`.

    The stream holds no connection and no thread: the process's StreamHub reads
    new events for all open streams and hands them over (issue #25). While the
    submission waits, a changed queue position is sent as a `queued` event
    without an id (it is not stored, so resuming never replays it)."""
    yield "retry: 1000\n\n"
    sub = hub.subscribe(submission_id, last_id)
    try:
        started = last_sent = time.monotonic()
        position: int | None = None
        while time.monotonic() - started < SSE_MAX_S:
            try:
                kind, item = await asyncio.wait_for(
                    sub.items.get(), timeout=max(0.0, SSE_KEEPALIVE_S - (time.monotonic() - last_sent)))
            except TimeoutError:
                if await request.is_disconnected():
                    return
                yield ": keep-alive\n\n"
                last_sent = time.monotonic()
                continue
            if kind == "position":
                if position is not None and item != position:
                    position, last_sent = item, time.monotonic()
                    yield f"event: {Event.QUEUED}\ndata: {json.dumps({'position': item})}\n\n"
                continue
            seq, event, data = item
            yield f"id: {seq}\nevent: {event}\ndata: {json.dumps(data)}\n\n"
            last_sent = time.monotonic()
            if event == Event.DONE:
                return
            if event == Event.QUEUED:
                position = data.get("position")
    finally:
        hub.unsubscribe(sub)
