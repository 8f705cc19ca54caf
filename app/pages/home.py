"""The home page `/`: the catalog's tracks and lessons in order, with per-lesson progress."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from app.deps import CatalogDep, CurrentUser, SessionDep
from app.pages.context import base_context, render
from app.routing import SessionRoute
from app.services.catalog_view import visible

router = APIRouter(route_class=SessionRoute)


def lesson_state(lesson, done_exercises: set[str], done_lessons: set[str]) -> str:
    if lesson.id in done_lessons:
        return "done"
    if any(ex_id in done_exercises for ex_id in lesson.exercise_ids):
        return "in_progress"
    return "not_started"


@router.get("/", response_class=HTMLResponse, name="home")
def home_page(request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep) -> HTMLResponse:
    context = base_context(request, session, user, catalog)
    summary = context["summary"]
    done_exercises = set(summary.completed_exercise_ids)
    done_lessons = set(summary.completed_lesson_ids)
    context["tracks"] = [
        track_view(track.id, [
            {"lesson": lesson, "state": lesson_state(lesson, done_exercises, done_lessons)}
            for lesson in track.lessons
            if visible(lesson, user)
        ])
        for track in catalog.tracks
        if any(visible(lesson, user) for lesson in track.lessons)
    ]
    return render(request, "home.html", context)


def track_view(track_id: str, items: list[dict]) -> dict:
    """A track on the home page: its lessons with their states, and how many are done
    (of those this reader sees; progress.js recounts them from local progress)."""
    done = sum(1 for item in items if item["state"] == "done")
    return {"id": track_id, "lessons": items, "done": done, "total": len(items),
            "pct": int(100 * done / len(items)) if items else 0}
