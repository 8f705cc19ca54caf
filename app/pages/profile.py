"""The profile page `/me` and the leaderboard `/exercises/<id>/leaderboard`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from app.achievements import ACHIEVEMENTS
from app.content import DEFAULT_LANGUAGE, LANGUAGES, Catalog
from app.deps import CatalogDep, CurrentUser, SessionDep
from app.pages.context import base_context, not_found, render
from app.routing import SessionRoute
from app.services import progress, submissions
from app.services.source_diff import source_diff

router = APIRouter(route_class=SessionRoute)


@router.get("/me", response_class=HTMLResponse, name="profile")
def profile_page(request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep) -> HTMLResponse:
    context = base_context(request, session, user, catalog)
    if user is None:
        return render(request, "me.html", context | {"signed_out": True})
    unlocked = set(context["summary"].achievement_ids)
    lang = context["lang"]
    recent = progress.recent_submissions(session, user.id)
    no_gpu = context["judge_on"] == "emu"  # judged on the emulator: the GPU's achievements cannot be earned (#28)
    context.update(
        signed_out=False,
        achievements=[
            {"id": a.id, "unlocked": a.id in unlocked,
             "title": a.title_ko if lang == "ko" else a.title_en,
             "description": a.description_ko if lang == "ko" else a.description_en,
             "gpu_only": a.gpu_only and no_gpu}
            for a in ACHIEVEMENTS
        ],
        gpu_only_here=sum(a.gpu_only for a in ACHIEVEMENTS) if no_gpu else 0,
        submissions=recent,
        diffs=_diffs(recent),
        language_titles={name: info.title for name, info in LANGUAGES.items()},
        exercises=_exercise_links(catalog, lang, {s.exercise_id for s in recent}),
    )
    context["page_data"]["xpHistory"] = progress.xp_history(session, user.id)
    return render(request, "me.html", context)


def _diffs(recent: list[Any]) -> dict[int, str | None]:
    """Each listed submission's diff against the learner's previous one on the same
    exercise in the same kernel language among those listed (#28, #29); None for the first listed."""
    diffs: dict[int, str | None] = {}
    for i, row in enumerate(recent):  # newest first
        before = next((older for older in recent[i + 1:] if older.exercise_id == row.exercise_id
                       and older.language == row.language), None)
        diffs[row.id] = source_diff(before.source if before is not None else None, row.source)
    return diffs


def _exercise_links(catalog: Catalog, lang: str, exercise_ids: set[str]) -> dict[str, dict[str, str | None]]:
    """Each exercise's title in `lang` and its lesson, for the submissions table
    (a learner knows "SAXPY", not `elementwise.saxpy`)."""
    links: dict[str, dict[str, str | None]] = {}
    for exercise_id in exercise_ids:
        exercise = catalog.exercises.get(exercise_id)
        if exercise is None:  # a lesson removed since: its id is all there is
            continue
        lesson = catalog.lesson_for_exercise(exercise_id)
        links[exercise_id] = {"title": exercise.title.get(lang) or exercise_id,
                              "lesson_id": lesson.id if lesson is not None else None}
    return links


@router.get("/exercises/{exercise_id}/leaderboard", response_class=HTMLResponse, name="leaderboard")
def leaderboard_page(
    exercise_id: str, request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep,
    language: str = DEFAULT_LANGUAGE,
) -> HTMLResponse:
    """One kernel language's ranking (`?language=triton`; CUDA's by default), with links
    to the others the exercise offers (#29)."""
    exercise = catalog.exercises.get(exercise_id)
    context = base_context(request, session, user, catalog)
    if exercise is None or language not in exercise.languages or language not in LANGUAGES:
        return not_found(request, context)
    lang = context["lang"]
    rows = submissions.leaderboard(session, exercise_id, language=language)
    groups: dict[str | None, list[dict[str, Any]]] = {}
    for row in rows:  # one table per GPU (ranked apart by the service); None: the emulator
        groups.setdefault(row["gpu"], []).append(row)
    context.update(
        exercise_title=(exercise.title.get(lang) or exercise.id)
        + (f" ({LANGUAGES[language].title})" if len(exercise.languages) > 1 else ""),
        exercise_id=exercise_id,
        lesson=catalog.lesson_for_exercise(exercise_id),
        groups=groups,
        language=language,
        languages=[LANGUAGES[name] for name in exercise.languages if name in LANGUAGES],
    )
    return render(request, "leaderboard.html", context)
