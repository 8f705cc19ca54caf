"""XP, completions and achievements: awarded once, whatever the retries.

Every award is an INSERT … ON CONFLICT DO NOTHING against a unique index
(see app/models.py), so two workers storing the same completion at the same
moment, or a retried task, award nothing twice.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app import xp as xp_rules
from app.achievements import ACHIEVEMENTS, LearnerStats
from app.content import Catalog
from app.db import insert_ignore
from app.models import (
    BugReport,
    Comment,
    Completion,
    Notification,
    Submission,
    UserAchievement,
    XpAward,
)
from app.services import catalog_view
from app.services.progress import total_xp
from kernels import targets


def award_xp(session: Session, user_id: int, key: str, xp: int, submission_id: int | None,
             language: str = "") -> int:
    """Award `xp` under `key` once; returns the XP actually added (0 on a repeat)."""
    if xp <= 0:
        return 0
    values = {"user_id": user_id, "key": key, "xp": xp, "submission_id": submission_id, "language": language}
    return xp if insert_ignore(session, XpAward, values) else 0


def award_in_language(session: Session, user_id: int, key: str, xp: int, submission_id: int | None,
                      language: str) -> int:
    """An exercise's award (`exercise:<id>`, `tier:<id>:<tier>`) once per kernel language
    (app/xp.py): the first language to earn it holds `key` with the full XP, a further one
    `key@<language>` with its share. The unique index on `key` decides which is first, so
    two languages accepted at the same moment cannot both take the full XP: the second
    insert waits for the first and then reads who holds the key."""
    gained = award_xp(session, user_id, key, xp, submission_id, language)
    if gained or xp <= 0:
        return gained
    holder = session.scalar(select(XpAward.language).where(XpAward.user_id == user_id, XpAward.key == key))
    if holder is None or holder == language:
        return 0
    return award_xp(session, user_id, xp_rules.language_key(key, language),
                    xp_rules.further_language_xp(xp), submission_id, language)


def record_completion(
    session: Session,
    user_id: int,
    kind: str,
    item_id: str,
    verified: bool,
    submission_id: int | None = None,
    language: str = "",
) -> bool:
    """Mark an exercise (in a kernel `language`) or a lesson (language "") complete;
    True when newly completed or newly verified."""
    values = {"user_id": user_id, "kind": kind, "item_id": item_id, "language": language,
              "verified": verified, "submission_id": submission_id}
    if insert_ignore(session, Completion, values):
        return True
    if not verified:
        return False
    upgraded = session.execute(
        update(Completion)
        .where(Completion.user_id == user_id, Completion.kind == kind, Completion.item_id == item_id,
               Completion.language == language, Completion.verified.is_(False))
        .values(verified=True, submission_id=submission_id)
    )
    return upgraded.rowcount == 1


def apply_verdict(session: Session, submission: Submission, catalog: Catalog | None) -> tuple[int, list[str]]:
    """Awards for a stored verdict: (XP added now, achievements unlocked now)."""
    if submission.user_id is None:
        return 0, []
    user_id = submission.user_id
    gained = 0
    result = submission.result or {}
    if submission.mode == "submit" and submission.verdict == "accepted":
        info = catalog_view.exercises(catalog).get(submission.exercise_id)
        language = submission.language or "cuda"
        record_completion(session, user_id, "exercise", submission.exercise_id, True, submission.id, language)
        if info is not None:
            gained += award_in_language(session, user_id, f"exercise:{info.id}",
                                        xp_rules.exercise_xp(info.difficulty, info.xp), submission.id, language)
            for tier in xp_rules.tiers_reached(result):
                gained += award_in_language(session, user_id, f"tier:{info.id}:{tier.id}", tier.xp,
                                            submission.id, language)
        gained += update_lessons(session, user_id, catalog, submission.id)
    unlocked = check_achievements(session, user_id, catalog, submission.id)
    return gained, unlocked


def update_lessons(session: Session, user_id: int, catalog: Catalog | None, submission_id: int | None = None) -> int:
    """Complete every lesson whose exercises are all complete (each in some kernel
    language); lesson XP needs them verified."""
    rows = session.execute(
        select(Completion.item_id, Completion.verified)
        .where(Completion.user_id == user_id, Completion.kind == "exercise")
    ).all()
    done: dict[str, bool] = {}
    for item_id, verified in rows:  # one row per language: verified in one is verified
        done[item_id] = done.get(item_id, False) or bool(verified)
    gained = 0
    for lesson in catalog_view.lessons(catalog):
        if not lesson.exercise_ids or not all(e in done for e in lesson.exercise_ids):
            continue
        verified = all(done[e] for e in lesson.exercise_ids)
        record_completion(session, user_id, "lesson", lesson.id, verified, submission_id)
        if verified:
            gained += award_xp(session, user_id, f"lesson:{lesson.id}", lesson.xp, submission_id)
    return gained


def complete_reading_lesson(session: Session, user_id: int, lesson: catalog_view.LessonInfo) -> int:
    """A lesson without exercises is complete once read."""
    record_completion(session, user_id, "lesson", lesson.id, True)
    return award_xp(session, user_id, f"lesson:{lesson.id}", lesson.xp, None)


def check_achievements(
    session: Session, user_id: int, catalog: Catalog | None, submission_id: int | None = None
) -> list[str]:
    """Unlock what the learner now qualifies for; returns the ids unlocked by this call."""
    stats = learner_stats(session, user_id, catalog)
    unlocked: list[str] = []
    for achievement in ACHIEVEMENTS:
        if achievement.unlocked(stats) and insert_ignore(
            session, UserAchievement,
            {"user_id": user_id, "achievement_id": achievement.id, "submission_id": submission_id},
        ):
            unlocked.append(achievement.id)
    return unlocked


def learner_stats(session: Session, user_id: int, catalog: Catalog | None) -> LearnerStats:
    exercises = catalog_view.exercises(catalog)
    verified = set(session.scalars(
        select(Completion.item_id).where(Completion.user_id == user_id,
                                         Completion.kind == "exercise", Completion.verified)
    ))
    # Only what the server verified counts (issue #13): a lesson with exercises
    # once every exercise was accepted here (a browser's claim completes it
    # unverified); a reading lesson once read, which only the reader can attest,
    # so it counts towards a track but never alone unlocks "Lesson complete".
    lessons_done = set(session.scalars(
        select(Completion.item_id).where(Completion.user_id == user_id, Completion.kind == "lesson",
                                         Completion.verified)
    ))
    with_exercises = {lesson.id for lesson in catalog_view.lessons(catalog) if lesson.exercise_ids}
    history = _submit_history(session, user_id)
    return LearnerStats(
        accepted_exercises=len(verified),
        lessons_done=len(lessons_done & with_exercises),
        tracks_done=_tracks_done(catalog, lessons_done),
        hard_accepted=sum(1 for e in verified if e in exercises and exercises[e].difficulty == "hard"),
        first_try_accepts=history["first_try"],
        max_failures_before_accept=history["max_failures"],
        compile_error_then_accepted=history["compile_error_then_accepted"] > 0,
        beat_framework=history["beat_framework"] > 0,
        best_pct_of_peak=float(history["best_pct"]),
        comments=_count(session, Comment, Comment.user_id == user_id),
        replies_received=_count(session, Notification, Notification.user_id == user_id,
                                Notification.kind == "reply"),
        bug_reports=_count(session, BugReport, BugReport.user_id == user_id),
        xp=total_xp(session, user_id),
    )


def _count(session: Session, model: type, *where: Any) -> int:
    return int(session.scalar(select(func.count()).select_from(model).where(*where)) or 0)


def _tracks_done(catalog: Catalog | None, lessons_done: set[str]) -> int:
    by_track: dict[str, list[str]] = {}
    for lesson in catalog_view.lessons(catalog):
        by_track.setdefault(lesson.track, []).append(lesson.id)
    return sum(1 for ids in by_track.values() if ids and all(i in lessons_done for i in ids))


def _submit_history(session: Session, user_id: int) -> dict[str, float]:
    """Per exercise and kernel language, what happened before the first acceptance
    (submit mode only): a first try in Triton after CUDA is a first try too."""
    rows = session.execute(
        select(Submission.exercise_id + "@" + Submission.language, Submission.verdict, Submission.result)
        .where(Submission.user_id == user_id, Submission.mode == "submit",
               Submission.status == "done")
        .order_by(Submission.id)
    ).all()
    out = {"first_try": 0, "max_failures": 0, "compile_error_then_accepted": 0,
           "beat_framework": 0, "best_pct": 0.0}
    failures: dict[str, int] = {}
    compile_errors: dict[str, int] = {}
    passed: set[str] = set()
    for exercise_id, verdict, result in rows:
        if verdict == "accepted":
            tiers = {t.id for t in xp_rules.tiers_reached(result or {})}
            out["beat_framework"] += "beat_framework" in tiers
            out["best_pct"] = max(out["best_pct"], _largest_pct(result or {}))
            if exercise_id in passed:
                continue
            passed.add(exercise_id)
            count = failures.get(exercise_id, 0)
            out["first_try"] += count == 0
            out["max_failures"] = max(out["max_failures"], count)
            out["compile_error_then_accepted"] += compile_errors.get(exercise_id, 0) > 0
        elif verdict != "internal_error" and exercise_id not in passed:
            failures[exercise_id] = failures.get(exercise_id, 0) + 1
            if verdict == "compile_error":
                compile_errors[exercise_id] = compile_errors.get(exercise_id, 0) + 1
    return out


def _largest_pct(result: dict[str, Any]) -> float:
    if not targets.timed(result.get("backend")):
        return 0.0
    sizes = (result.get("benchmark") or {}).get("sizes") or []
    return float(sizes[-1].get("pct_of_peak") or 0.0) if sizes else 0.0
