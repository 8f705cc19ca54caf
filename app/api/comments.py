"""Lesson comments and reply notifications."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from app.content import Catalog
from app.deps import CatalogDep, DbId, RequireUser, SessionDep, SettingsDep
from app.routing import SessionRoute
from app.services import awards, catalog_view
from app.services import comments as service
from app.services.text import SAYS_SOMETHING_SCHEMA

router = APIRouter(route_class=SessionRoute, prefix="/api", tags=["comments"])


class CommentIn(BaseModel):
    body: str = Field(json_schema_extra=SAYS_SOMETHING_SCHEMA,
                      description="Markdown, not blank; no control characters (422 text_control)")
    parent_id: DbId | None = None


class ReadIn(BaseModel):
    ids: list[DbId] | None = Field(default=None, max_length=1000)  # None: all; strict: no `false`, no "1"


def _known_lessons(catalog: Catalog) -> set[str]:
    return {lesson.id for lesson in catalog_view.lessons(catalog)}


def forget_anonymous_page(app: Any, lesson_id: str) -> None:
    """Anonymous readers' cached lesson page (app.pages.anon_cache) shows the change next."""
    pages = getattr(app.state, "anon_pages", None)
    if pages is not None:
        pages.drop_lesson(lesson_id)


@router.get("/lessons/{lesson_id}/comments")
def list_comments(lesson_id: str, session: SessionDep) -> dict:
    threads = service.list_for_lesson(session, lesson_id)
    total = sum(1 + len(t["replies"]) for t in threads)
    return {"lesson_id": lesson_id, "count": total, "comments": threads}


@router.post("/lessons/{lesson_id}/comments", status_code=201)
def post_comment(
    lesson_id: str, body: CommentIn, request: Request, session: SessionDep, user: RequireUser,
    settings: SettingsDep, catalog: CatalogDep,
) -> dict:
    view = service.create(session, user, lesson_id, body.body, body.parent_id,
                          settings.comments_per_hour, _known_lessons(catalog))
    # A reply can unlock the parent author's "Conversation starter".
    if view["parent_id"] is not None:
        for notified in service.notified_user_ids(session, view["id"]):
            awards.check_achievements(session, notified, catalog)
    session.commit()
    forget_anonymous_page(request.app, lesson_id)
    return view


@router.get("/notifications")
def list_notifications(session: SessionDep, user: RequireUser, unread: bool = False) -> dict:
    items = service.notifications(session, user, unread_only=unread)
    return {"unread": service.unread_count(session, user), "notifications": items}


@router.post("/notifications/read")
def read_notifications(body: ReadIn, session: SessionDep, user: RequireUser) -> dict:
    marked = service.mark_read(session, user, body.ids)
    session.commit()
    return {"marked": marked, "unread": service.unread_count(session, user)}
