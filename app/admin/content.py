"""/api/admin/lessons (drafts included) and /api/admin/lessons/reload (no restart needed)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app.admin.auth import ContentAdmin
from app.deps import SessionDep
from app.routing import SessionRoute
from app.services import admin_audit, admin_content

router = APIRouter(route_class=SessionRoute, prefix="/api/admin", tags=["admin"])


@router.get("/lessons")
def list_lessons(request: Request, _actor: ContentAdmin) -> dict[str, Any]:
    """Every loaded lesson, drafts included, in track and lesson order."""
    return {"items": admin_content.lesson_list(request.app.state.catalog)}


@router.post("/lessons/reload")
def reload_lessons(request: Request, session: SessionDep, actor: ContentAdmin) -> dict[str, Any]:
    """Reload every lesson folder; a malformed lesson answers 422 and the old lessons stay."""
    catalog = admin_content.reload_catalog(request.app)
    result = admin_content.summary(catalog)
    admin_audit.record(session, actor, "lessons.reload", "lessons", "", "", **result)
    session.commit()
    return result
