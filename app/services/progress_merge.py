"""Merging what a browser kept into an account: the progress it claims and the
submissions it made anonymously (at sign-in, sign-up and `POST /api/progress/merge`).

Above both `progress` (what a learner has) and `awards` (what a verdict earns)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content import DEFAULT_LANGUAGE, Catalog
from app.models import Submission, User
from app.services import awards, catalog_view
from app.services.progress import total_xp


def merge_local_progress(
    session: Session,
    user: User,
    catalog: Catalog,
    exercise_ids: list[str],
    lesson_ids: list[str],
    anon_id: str | None,
) -> dict[str, Any]:
    """Merge progress kept in the browser into the account.

    Accepted submissions this browser made anonymously (same `kdojo_anon`
    cookie) are claimed by the account and earn XP as if made signed in.
    Other claimed exercises count as progress without XP: the browser's word
    alone is not proof. Lessons without exercises are completed by reading.
    """
    claimed = _claim_anonymous_submissions(session, user, anon_id)
    known_exercises = catalog_view.exercises(catalog)
    known_lessons = {lesson.id: lesson for lesson in catalog_view.lessons(catalog)}
    xp_before = total_xp(session, user.id)
    for submission in claimed:
        gained, unlocked = awards.apply_verdict(session, submission, catalog)
        submission.xp_awarded, submission.achievements = gained, unlocked
    for claim in exercise_ids:
        # "<id>" is a CUDA pass, "<id>@<language>" one in another kernel language (#29)
        exercise_id, _, language = claim.partition("@")
        language = language or DEFAULT_LANGUAGE
        info = catalog.exercises.get(exercise_id)
        if exercise_id in known_exercises and info is not None and language in info.languages:
            awards.record_completion(session, user.id, "exercise", exercise_id, verified=False,
                                     language=language)
    for lesson_id in lesson_ids:
        lesson = known_lessons.get(lesson_id)
        if lesson is not None and not lesson.exercise_ids:
            awards.complete_reading_lesson(session, user.id, lesson)
    awards.update_lessons(session, user.id, catalog)
    new_achievements = awards.check_achievements(session, user.id, catalog)
    return {
        "claimed_submissions": [s.id for s in claimed],
        "xp_gained": total_xp(session, user.id) - xp_before,
        "achievements": new_achievements,
    }


def _claim_anonymous_submissions(
    session: Session, user: User, anon_id: str | None
) -> list[Submission]:
    if not anon_id:
        return []
    rows = list(
        session.scalars(
            select(Submission)
            .where(Submission.anon_id == anon_id, Submission.user_id.is_(None))
            .order_by(Submission.id)
        )
    )
    for row in rows:
        row.user_id = user.id
    session.flush()
    return [row for row in rows if row.status == "done" and row.verdict == "accepted" and row.mode == "submit"]
