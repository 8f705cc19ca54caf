"""What every page's template gets: language, learner, learner bar, page data for scripts."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from starlette.responses import HTMLResponse

from app import xp as xp_rules
from app.achievements import ACHIEVEMENTS
from app.i18n import js_strings, remember_lang, request_lang
from app.services.comments import unread_count
from app.services.progress import learner_summary
from app.templating import templates


def levels_table() -> list[dict[str, Any]]:
    """Levels for the browser, which recomputes the bar from local progress."""
    return [
        {"number": lv.number, "min_xp": lv.min_xp, "title_ko": lv.title_ko, "title_en": lv.title_en}
        for lv in xp_rules.LEVELS
    ]


def lessons_table(catalog: Any) -> dict[str, dict[str, Any]]:
    """Published lesson id → its exercise ids and XP (what "lesson done" means in the browser)."""
    return {
        lesson.id: {"exercises": list(lesson.exercise_ids), "xp": lesson.xp}
        for lesson in catalog.lessons.values()
        if lesson.status == "published"
    }


def base_context(request: Request, session: Any, user: Any, catalog: Any) -> dict[str, Any]:
    lang = request_lang(request)
    summary = learner_summary(session, user, catalog)
    backend = getattr(request.app.state, "judge_backend", (None, ""))[0]
    kept = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    return {
        # the footer says where kernels are judged, truthfully (#13)
        "judge_on": {"cuda": "gpu", "emu": "emu"}.get(backend or "", "none"),
        # the language switch keeps the rest of the query (next=, …); urlencoded (#13)
        "lang_switch_query": urlencode(kept),
        "unread_notifications": unread_count(session, user) if user is not None else 0,
        "request": request,
        "lang": lang,
        "user": user,
        "summary": summary,
        "level_title": summary.level_title_ko if lang == "ko" else summary.level_title,
        "page_data": {
            "lang": lang,
            "signedIn": user is not None,
            "strings": js_strings(lang),
            "levels": levels_table(),
            "lessons": lessons_table(catalog),
            "achievementsTotal": summary.achievements_total,
            "achievementTitles": {a.id: a.title_ko if lang == "ko" else a.title_en for a in ACHIEVEMENTS},
            "summary": summary.as_dict() if user is not None else None,
        },
    }


def not_found(request: Request, context: dict[str, Any], message: str = "") -> HTMLResponse:
    """A 404 as a page in the learner's language (the JSON API answers its own 404s).
    `message` is shown under the title: only text in the reader's language."""
    return render(request, "error.html", context | {"message": message, "status": 404,
                                                      "error_title_key": "error.not_found"},
                  status_code=404)


def render(request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    response = templates.TemplateResponse(request, name, context, status_code=status_code)
    remember_lang(request, response)
    return response
