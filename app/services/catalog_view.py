"""What the backend needs from the lesson catalog (app.content), in one place.

The catalog is the frontend's `app.content.load_catalog(lessons_dir)`; lessons
are in order and each holds `kernels.catalog` Exercise objects.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ExerciseInfo:
    id: str
    lesson_id: str
    difficulty: str
    xp: int | None


@dataclass(frozen=True)
class LessonInfo:
    id: str
    track: str
    xp: int
    exercise_ids: tuple[str, ...]


def lessons(catalog: Any) -> list[LessonInfo]:
    if catalog is None:
        return []
    return [
        LessonInfo(
            id=lesson.id,
            track=getattr(lesson, "track", ""),
            xp=int(getattr(lesson, "xp", 0) or 0),
            exercise_ids=tuple(ex.id for ex in getattr(lesson, "exercises", ()) or ()),
        )
        for lesson in _published(catalog)
    ]


def exercises(catalog: Any, include_drafts: bool = False) -> dict[str, ExerciseInfo]:
    """Exercises of published lessons (what XP and progress count); with
    `include_drafts`, also those of drafts (staff trying a draft before it ships)."""
    found: dict[str, ExerciseInfo] = {}
    for lesson in _published(catalog, include_drafts):
        for ex in getattr(lesson, "exercises", ()) or ():
            found[ex.id] = ExerciseInfo(
                id=ex.id,
                lesson_id=lesson.id,
                difficulty=str(getattr(ex, "difficulty", "easy")),
                xp=getattr(ex, "xp", None),
            )
    return found


def _published(catalog: Any, include_drafts: bool = False) -> Iterable[Any]:
    items = getattr(catalog, "lessons", ())
    if isinstance(items, dict):
        items = items.values()
    return [lesson for lesson in items
            if include_drafts or getattr(lesson, "status", "published") == "published"]


# Drafts (issue #6): a lesson with `status = "draft"` is shown to instructors and
# admins only; learners and anonymous readers neither see it listed nor can open it.
DRAFT_READERS = ("instructor", "admin")


def sees_drafts(user: Any) -> bool:
    return user is not None and getattr(user, "role", "learner") in DRAFT_READERS


def visible(lesson: Any, user: Any) -> bool:
    return getattr(lesson, "status", "published") == "published" or sees_drafts(user)
