"""What every page's template gets: language, learner, learner bar, page data for scripts."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from starlette.responses import HTMLResponse

from app import xp as xp_rules
from app.achievements import ACHIEVEMENTS
from app.content import Catalog
from app.i18n import js_strings, remember_lang, request_lang
from app.services.progress import LearnerState, learner_state, learner_summary
from app.templating import PageData, html_json, templates
from kernels import targets
from kernels.contract import page_events


def levels_table() -> list[dict[str, Any]]:
    """Levels for the browser, which recomputes the bar from local progress."""
    return [
        {"number": lv.number, "min_xp": lv.min_xp, "title_ko": lv.title_ko, "title_en": lv.title_en}
        for lv in xp_rules.LEVELS
    ]


def lessons_table(catalog: Catalog) -> dict[str, dict[str, Any]]:
    """Published lesson id → its exercise ids and XP (what "lesson done" means in the browser)."""
    return {
        lesson.id: {"exercises": list(lesson.exercise_ids), "xp": lesson.xp}
        for lesson in catalog.lessons.values()
        if lesson.status == "published"
    }


_SHARED_MAX = 16
_shared: dict[tuple[str, int], tuple[Catalog, dict[str, tuple[Any, str]]]] = {}


def shared_page_data(lang: str, catalog: Catalog) -> dict[str, tuple[Any, str]]:
    """The page data every page of a language shares (strings, tables), each with its
    JSON text, built once per (language, catalog): a reload builds a new catalog."""
    key = (lang, id(catalog))
    hit = _shared.get(key)
    if hit is not None and hit[0] is catalog:
        return hit[1]
    values = {
        "strings": js_strings(lang),
        "levels": levels_table(),
        "xpShare": xp_rules.FURTHER_LANGUAGE_SHARE,  # what a further kernel language earns (#29)
        "lessons": lessons_table(catalog),
        "achievementTitles": {a.id: a.title_ko if lang == "ko" else a.title_en for a in ACHIEVEMENTS},
        "events": page_events(),  # the submission stream's event names (kernels.contract.Event)
    }
    known = {name: (value, html_json(value)) for name, value in values.items()}
    if len(_shared) >= _SHARED_MAX:  # old catalogs (lessons reloaded in development)
        _shared.clear()
    _shared[key] = (catalog, known)  # the catalog is held, so its id is not reused meanwhile
    return known


def base_context(request: Request, session: Any, user: Any, catalog: Catalog) -> dict[str, Any]:
    lang = request_lang(request)
    # one query for the learner bar and the unread count (issue #13: it was five)
    state = learner_state(session, user.id) if user is not None else LearnerState()
    summary = learner_summary(session, user, catalog, state)
    backend = getattr(request.app.state, "judge_backend", (None, ""))[0]
    kept = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    shared = shared_page_data(lang, catalog)
    return {
        # the footer says where kernels are judged, truthfully (#13)
        "judge_on": "gpu" if targets.timed(backend) else "emu" if backend else "none",
        # the language switch keeps the rest of the query (next=, …); urlencoded (#13)
        "lang_switch_query": urlencode(kept),
        "unread_notifications": state.unread_notifications,
        "request": request,
        "lang": lang,
        "user": user,
        "summary": summary,
        "level_title": summary.level_title_ko if lang == "ko" else summary.level_title,
        "page_data": PageData({
            "lang": lang,
            "signedIn": user is not None,
            **{name: value for name, (value, _) in shared.items()},
            "achievementsTotal": summary.achievements_total,
            "summary": summary.as_dict() if user is not None else None,
        }, shared),
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
