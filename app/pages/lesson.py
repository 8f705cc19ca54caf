"""The lesson page `/lessons/<id>` and its fragments (reference solution, comments)."""

from __future__ import annotations

import time
from typing import Any

import anyio
from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from app import xp as xp_rules
from app.content import DEFAULT_LANGUAGE, LANGUAGES, Catalog, Lesson, render_inline, render_markdown
from app.db import open_session
from app.deps import load_user
from app.i18n import track_title
from app.pages import anon_cache
from app.pages.context import base_context, not_found, render
from app.pages.partials import render_partial
from app.routing import SessionRoute
from app.services.catalog_view import visible

router = APIRouter(route_class=SessionRoute)


# Lesson pages rendered at once, at most (issue #25). A render is ~1.5 ms of Python
# holding the GIL; 200 of them in anyio's 40 threads made 40 threads ask for the GIL
# at every switch, and the event loop (/healthz, the streams, accepting connections)
# waited behind them. A few threads keep both cores busy (a render also waits for
# SQLite) while the rest wait in line, first come first served, holding nothing.
PAGE_THREADS = 4
PROFILING_TTL_S = 60.0  # looking for ncu searches PATH (~0.2 ms): once a minute, not per page
_profiling: dict[str | None, tuple[float, str]] = {}


def profiling_here(backend: str | None) -> str:
    """Whether a passing attempt gets a profile on this server (#16): "on", "off"
    (the staff's KDOJO_PROFILE=0) or "unavailable" (no judge, or a GPU worker
    without Nsight Compute). The page says why a passing attempt shows none."""
    from kernels.profile.run import status, switched_on

    if not switched_on():
        return "off"
    cached = _profiling.get(backend)
    if cached is None or time.monotonic() - cached[0] > PROFILING_TTL_S:
        cached = _profiling[backend] = (time.monotonic(), "on" if status(backend)["enabled"] else "unavailable")
    return cached[1]


def exercise_view(lesson: Lesson, index: int, lang: str, solved: set[str], profiling: str = "on",
                  solved_in: dict[str, list[str]] | None = None,
                  earned: dict[str, dict[str, int]] | None = None) -> dict[str, Any]:
    """One exercise panel's inputs. `solved`: exercise ids passed in any kernel language;
    `solved_in`: {exercise id: languages passed in} (#29; None: every solved one in CUDA);
    `earned`: {exercise id: {language: XP earned in it}} (the learner summary's `exercise_xp`)."""
    exercise = lesson.exercises[index]
    files = lesson.exercise_files[index]
    passed = (solved_in or {}).get(exercise.id, []) if solved_in is not None else \
        ([DEFAULT_LANGUAGE] if exercise.id in solved else [])
    languages = [language_view(exercise, files, name, lang, name in passed)
                 for name in exercise.languages if name in LANGUAGES]
    cuda = languages[0]
    earned_here = (earned or {}).get(exercise.id, {})
    return {
        "id": exercise.id,
        "title": exercise.title.get(lang) or exercise.title.get("ko", exercise.id),
        "difficulty": exercise.difficulty,
        "xp": exercise.xp,
        # the XP badge, for the language the page opens with (lesson.js follows the selector)
        "xp_badge": xp_badge(exercise.xp, earned_here, cuda["name"]),
        "instructions_html": cuda["instructions_html"],
        "starter": cuda["starter"],
        "hints_html": cuda["hints_html"],
        "solved": exercise.id in solved,
        # The reference is in the page only once the learner has passed.
        "reference": cuda["reference"],
        # `[profile] enabled = false` in its exercise.toml: off for this exercise only
        "profiling": "off_exercise" if profiling != "off" and not exercise.profile_enabled else profiling,
        # #29: each kernel language the exercise offers, CUDA first; a selector when more than one
        "languages": languages,
    }


def xp_badge(full_xp: int, earned: dict[str, int], language: str) -> dict[str, Any]:
    """What the exercise brings in `language` now (app/xp.py language_award), with the
    titles of the languages that earned it already (named by a half share)."""
    state, xp = xp_rules.language_award(full_xp, earned, language)
    titles = [LANGUAGES[name].title if name in LANGUAGES else name for name, got in earned.items() if got > 0]
    return {"state": state, "xp": xp, "language": LANGUAGES[language].title, "earned_in": ", ".join(titles)}


def language_view(exercise: Any, files: Any, name: str, lang: str, passed: bool) -> dict[str, Any]:
    """What the panel shows of one kernel language: its starter, instructions, hints and,
    once passed in it, its reference."""
    info = LANGUAGES[name]
    hints_by_lang = exercise.triton.hints if name == "triton" and exercise.triton is not None else exercise.hints
    hints = hints_by_lang.get(lang) or hints_by_lang.get("ko") or ()
    return {
        "name": name, "title": info.title, "editor_mode": info.editor_mode,
        "starter": files.starter_for(name),
        "instructions_html": render_markdown(files.instructions_for(name, lang), lang),
        "hints_html": [render_inline(h) for h in hints],
        "solved": passed,
        "reference": files.reference_for(name) if passed else None,
    }


def neighbours(catalog: Catalog, lesson: Lesson, user: Any = None) -> tuple[Lesson | None, Lesson | None, int, int]:
    """The previous and next lessons of the track, the lesson's number and the last
    number this reader can open. Lessons are numbered across tracks (`order`: the
    second track starts at 6), as the catalogue cards and the texts ("lesson 2",
    "6강") number them; a hidden draft leaves a gap, never "lesson 3 of 2"."""
    track = catalog.track_of(lesson)
    lessons = [other for other in track.lessons if other is lesson or visible(other, user)]
    i = lessons.index(lesson)
    prev_lesson = lessons[i - 1] if i > 0 else None
    next_lesson = lessons[i + 1] if i + 1 < len(lessons) else None
    last = max(other.order for other in catalog.lessons.values() if other is lesson or visible(other, user))
    return prev_lesson, next_lesson, lesson.order, last


def prerequisite_views(catalog: Catalog, lesson: Lesson, lang: str, user: Any = None) -> list[dict[str, str]]:
    """The lessons to read first, by title; one in another track also names that
    track (the memory-patterns track starts from the foundations track's reduction)."""
    views = []
    for lesson_id in lesson.prerequisites:
        other = catalog.lesson(lesson_id)
        if other is None or not visible(other, user):
            continue
        views.append({"id": other.id, "title": other.title(lang),
                      "track": track_title(lang, other.track) if other.track != lesson.track else ""})
    return views


def comments_for(session: Any, lesson_id: str, cached: bool = False) -> list[Any]:
    return _comments_until(session, lesson_id, cached)[1]


def _comments_until(session: Any, lesson_id: str, cached: bool) -> tuple[float, list[Any]]:
    """(until when they count as fresh, time.monotonic(); the comments)."""
    from app.services import comments as comment_service

    database_url = str(session.get_bind().url)  # one database's comments never leak to another's
    if cached:
        hit = anon_cache.fresh_comments(database_url, lesson_id)
        if hit is not None:
            return hit
    comments = list(comment_service.list_for_lesson(session, lesson_id))
    return anon_cache.remember_comments(database_url, lesson_id, comments)


@router.get("/lessons/{lesson_id}", response_class=HTMLResponse, name="lesson")
async def lesson_page(lesson_id: str, request: Request) -> HTMLResponse:
    # One thread hop for the whole page (issue #13): as a sync route with sync
    # dependencies it made four (session in and out, user, page), each a wait for
    # the threadpool and the GIL under load. At most PAGE_THREADS at once (#25).
    return await anyio.to_thread.run_sync(_lesson_page_in_thread, lesson_id, request,
                                          limiter=page_limiter(request.app))


def page_limiter(app: Any) -> anyio.CapacityLimiter:
    """The app's own limit on lesson-page renders in threads (PAGE_THREADS)."""
    limiter = getattr(app.state, "page_limiter", None)
    if limiter is None:
        limiter = app.state.page_limiter = anyio.CapacityLimiter(PAGE_THREADS)
    return limiter


def _lesson_page_in_thread(lesson_id: str, request: Request) -> HTMLResponse:
    with open_session(request.app.state.sessionmaker) as session:
        user = load_user(request, session)
        return render_lesson_page(lesson_id, request, session, user, request.app.state.catalog)


def render_lesson_page(lesson_id: str, request: Request, session: Any, user: Any, catalog: Catalog) -> HTMLResponse:
    lesson = catalog.lesson(lesson_id)
    since = anon_cache.generation(request.app)  # before anything that goes into the page is read
    context = base_context(request, session, user, catalog)
    if lesson is None or not visible(lesson, user):  # a draft is not there for learners
        return not_found(request, context)
    lang = context["lang"]
    solved = set(context["summary"].completed_exercise_ids)
    solved_in = context["summary"].exercise_languages
    earned = context["summary"].exercise_xp
    prev_lesson, next_lesson, position, total = neighbours(catalog, lesson, user)
    profiling = profiling_here(getattr(request.app.state, "judge_backend", (None, ""))[0])
    exercises = [exercise_view(lesson, i, lang, solved, profiling, solved_in, earned)
                 for i in range(len(lesson.exercises))]
    fresh_until, comments = _comments_until(session, lesson.id, cached=user is None)
    context.update(
        lesson=lesson,
        title=lesson.title(lang),
        body_html=lesson.body_html(lang),
        position=position,
        total=total,
        prev_lesson=prev_lesson,
        next_lesson=next_lesson,
        prerequisites=prerequisite_views(catalog, lesson, lang, user),
        exercises=exercises,
        # each panel from its inputs alone, kept (issue #13): app.pages.partials
        exercise_panels=[render_partial("partials/_exercise.html", lang, ex=ex) for ex in exercises],
        comments=comments,
        comments_total=sum(1 + len(c.get("replies", ())) for c in comments),
    )
    context["page_data"].update(
        lessonId=lesson.id,
        languageTitles={name: info.title for name, info in LANGUAGES.items()},
        exercises=[{"id": e["id"], "xp": e["xp"], "starter": e["starter"],
                    "languages": [{"name": v["name"], "title": v["title"], "editor_mode": v["editor_mode"],
                                   "starter": v["starter"], "solved": v["solved"]} for v in e["languages"]]}
                   for e in exercises],
    )
    if user is None:  # the same page for every anonymous reader: kept and served from memory
        return anon_cache.render_and_store(request, "lesson.html", context, lesson.id, catalog, fresh_until, since)
    return render(request, "lesson.html", context)
