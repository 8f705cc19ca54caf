"""What the backend needs from the lesson catalog (app.content), in one place.

The catalog is `app.content.Catalog` (`app.content.load_catalog(lessons_dir)`);
lessons are in order and each holds the judge's `kernels.spec.Exercise` objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.content import Catalog, Lesson


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


def lessons(catalog: Catalog | None) -> list[LessonInfo]:
    """Published lessons in catalog order; none without a catalog (a worker started bare)."""
    return [
        LessonInfo(id=lesson.id, track=lesson.track, xp=lesson.xp, exercise_ids=lesson.exercise_ids)
        for lesson in _published(catalog)
    ]


def exercises(catalog: Catalog | None, include_drafts: bool = False) -> dict[str, ExerciseInfo]:
    """Exercises of published lessons (what XP and progress count); with
    `include_drafts`, also those of drafts (staff trying a draft before it ships)."""
    found: dict[str, ExerciseInfo] = {}
    for lesson in _published(catalog, include_drafts):
        for ex in lesson.exercises:
            found[ex.id] = ExerciseInfo(id=ex.id, lesson_id=lesson.id, difficulty=ex.difficulty, xp=ex.xp)
    return found


def _published(catalog: Catalog | None, include_drafts: bool = False) -> list[Lesson]:
    if catalog is None:
        return []
    return [lesson for lesson in catalog.lessons.values()
            if include_drafts or lesson.status == "published"]


# Drafts (issue #6): a lesson with `status = "draft"` is shown to instructors and
# admins only; learners and anonymous readers neither see it listed nor can open it.
DRAFT_READERS = ("instructor", "admin")


def sees_drafts(user: Any) -> bool:
    return user is not None and getattr(user, "role", "learner") in DRAFT_READERS


def visible(lesson: Lesson, user: Any) -> bool:
    return lesson.status == "published" or sees_drafts(user)
