"""HTML fragments the lesson page fetches: the reference solution after a pass, the comment list."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from starlette.responses import HTMLResponse

from app.content.markdown import highlight_code
from app.deps import CatalogDep, CurrentUser, OwnerDep, SessionDep
from app.i18n import request_lang
from app.pages.lesson import comments_for
from app.routing import SessionRoute
from app.services import submissions
from app.services.errors import ServiceError
from app.templating import templates

router = APIRouter(route_class=SessionRoute)


@router.get("/exercises/{exercise_id}/reference", response_class=HTMLResponse)
def reference_fragment(
    exercise_id: str, submission: int, session: SessionDep, owner: OwnerDep, catalog: CatalogDep
) -> HTMLResponse:
    """The reference solution in the submission's kernel language, only against the
    asker's own accepted submission of this exercise."""
    try:
        row = submissions.get(session, owner, submission)
    except ServiceError:
        raise HTTPException(status_code=404, detail="No such submission of yours.") from None
    if row.exercise_id != exercise_id or row.verdict != "accepted":
        raise HTTPException(status_code=403, detail="The reference is shown after you pass this exercise.")
    lesson = catalog.lesson_for_exercise(exercise_id)
    if lesson is None:  # the lesson was taken out (a reload) after the learner passed it
        raise HTTPException(status_code=404, detail="This exercise is no longer in the lessons.")
    index = lesson.exercise_ids.index(exercise_id)
    code = lesson.exercise_files[index].reference_for(row.language)
    lexer = "python" if row.language == "triton" else "cuda"
    return HTMLResponse(f'<pre class="highlight" data-lang="{lexer}" data-language="{row.language}">'
                        f'<code>{highlight_code(code, lexer)}</code></pre>')


@router.get("/lessons/{lesson_id}/comments", response_class=HTMLResponse)
def comments_fragment(
    lesson_id: str, request: Request, session: SessionDep, user: CurrentUser, catalog: CatalogDep
) -> HTMLResponse:
    if catalog.lesson(lesson_id) is None:
        raise HTTPException(status_code=404, detail=f"There is no lesson {lesson_id!r}.")
    context = {"request": request, "lang": request_lang(request), "user": user,
               "comments": comments_for(session, lesson_id)}
    return templates.TemplateResponse(request, "partials/_comment_list.html", context)
