"""`/glossary`: the terms the lessons use, in the reader's language, each with the
lesson that teaches it (lessons/glossary.toml, app/content/glossary.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from app.content.glossary import load_glossary
from app.content.markdown import render_inline
from app.deps import CatalogDep, CurrentUser, SessionDep
from app.pages.context import base_context, render
from app.routing import SessionRoute
from app.services.catalog_view import visible

router = APIRouter(route_class=SessionRoute)


@router.get("/glossary", response_class=HTMLResponse, name="glossary")
def glossary_page(request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep) -> HTMLResponse:
    context = base_context(request, session, user, catalog)
    lang = context["lang"]
    rows = []
    for term in load_glossary(catalog.lessons_dir):
        lesson = catalog.lesson(term.lesson)
        rows.append({"id": term.id, "term": term.term(lang), "other": term.en if lang == "ko" else term.ko,
                     "meaning": render_inline(term.meaning[lang]),
                     "lesson": lesson if lesson is not None and visible(lesson, user) else None})
    context["terms"] = rows
    return render(request, "glossary.html", context)
