"""GET /api/exercises/{id} (what it offers, per kernel language), GET
/api/exercises/{id}/attempts (the asker's own), GET /api/exercises/{id}/leaderboard."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from app import xp as xp_rules
from app.content import DEFAULT_LANGUAGE, LANGUAGES, Catalog
from app.deps import CatalogDep, OwnerDep, SessionDep
from app.routing import SessionRoute
from app.services import catalog_view
from app.services import submissions as service
from app.services.errors import NotFound

router = APIRouter(route_class=SessionRoute, prefix="/api/exercises", tags=["exercises"])

LanguageQuery = Annotated[str, Query(max_length=32, json_schema_extra={"enum": list(LANGUAGES)},
                                     description="a kernel language: \"cuda\" or \"triton\"")]


class LanguageOut(BaseModel):
    name: str = Field(description="\"cuda\" | \"triton\": what `POST /api/submissions` takes as `language`")
    title: str = Field(description="what the learner reads: \"CUDA C++\", \"Triton\"")
    suffix: str = Field(description="the file suffix of this language's sources: \".cu\", \".triton.py\"")
    editor_mode: str = Field(description="the lesson page editor's mode: \"cuda\" or \"python\"")
    starter: str = Field(description="the starter source the learner completes")
    hints: dict[str, list[str]] = Field(description="this language's hints, {\"ko\": [...], \"en\": [...]} (Markdown)")


class ExerciseOut(BaseModel):
    id: str
    lesson_id: str
    title: dict[str, str]
    difficulty: str
    xp: int = Field(description="XP of the first accept in the first language; a further language earns half "
                                "(docs/web.md, \"Kernel languages\")")
    languages: list[LanguageOut] = Field(description="the kernel languages the exercise is judged in, CUDA first")


def _known(catalog: Catalog, exercise_id: str, user: object = None) -> None:
    if exercise_id not in catalog_view.exercises(catalog, catalog_view.sees_drafts(user)):
        raise NotFound(f"There is no exercise {exercise_id!r}.")


@router.get("/{exercise_id}", response_model=ExerciseOut)
def exercise(exercise_id: str, owner: OwnerDep, catalog: CatalogDep) -> dict[str, Any]:
    """The exercise and, per kernel language it offers, that language's starter and hints."""
    _known(catalog, exercise_id, owner.user)
    spec = catalog.exercises[exercise_id]
    lesson = catalog.lesson_for_exercise(exercise_id)
    assert lesson is not None  # _known found it in a lesson
    files = lesson.exercise_files[lesson.exercise_ids.index(exercise_id)]
    return {
        "id": spec.id, "lesson_id": lesson.id, "title": dict(spec.title), "difficulty": spec.difficulty,
        "xp": xp_rules.exercise_xp(spec.difficulty, spec.xp),
        "languages": [_language_out(spec, files, name) for name in spec.languages if name in LANGUAGES],
    }


def _language_out(spec: Any, files: Any, name: str) -> dict[str, Any]:
    info = LANGUAGES[name]
    hints = spec.triton.hints if name == "triton" and spec.triton is not None else spec.hints
    return {"name": name, "title": info.title, "suffix": info.suffix, "editor_mode": info.editor_mode,
            "starter": files.starter_for(name), "hints": {lang: list(items) for lang, items in hints.items()}}


@router.get("/{exercise_id}/attempts")
def attempts(exercise_id: str, session: SessionDep, owner: OwnerDep, catalog: CatalogDep,
             language: LanguageQuery | None = None) -> dict:
    """The asker's own attempts, newest first; `language` keeps one kernel language's."""
    _known(catalog, exercise_id, owner.user)
    if language is not None:
        service.check_language_name(language)
    rows = service.list_attempts(session, owner.user, exercise_id, anon_id=owner.anon_id, language=language)
    return {"exercise_id": exercise_id, "language": language, "attempts": rows}


@router.get("/{exercise_id}/leaderboard")
def leaderboard(exercise_id: str, session: SessionDep, catalog: CatalogDep,
                language: LanguageQuery = DEFAULT_LANGUAGE) -> dict:
    """Best accepted submission per learner in one kernel language (default CUDA), per GPU."""
    _known(catalog, exercise_id)
    service.check_language_name(language)
    service.check_language_offered(catalog, exercise_id, language)
    return {"exercise_id": exercise_id, "language": language,
            "languages": list(catalog.exercises[exercise_id].languages),
            "entries": service.leaderboard(session, exercise_id, language=language)}
