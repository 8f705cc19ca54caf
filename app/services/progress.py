"""A learner's level, XP and progress; merging browser-local progress at sign-in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import String, bindparam, cast, func, literal_column, null, or_, select, union_all
from sqlalchemy.orm import Session

from app import xp as xp_rules
from app.achievements import ACHIEVEMENTS
from app.content import Catalog
from app.models import Completion, Notification, Submission, User, UserAchievement, XpAward
from app.services import catalog_view


@dataclass(frozen=True)
class LearnerSummary:
    xp: int
    level: int
    level_title: str  # English name ("Beginner"), as the seed's learner bar shows it
    level_title_ko: str
    level_min_xp: int
    next_level_xp: int | None  # XP total at which the next level starts; None at the top
    xp_to_next: int  # XP still to earn for the next level (0 at the top)
    xp_in_level: int  # earned since this level started ("0/100 XP to next level")
    level_span_xp: int  # width of this level in XP
    lessons_done: int
    lessons_total: int
    achievements_done: int
    achievements_total: int
    pct_complete: int
    completed_exercise_ids: list[str] = field(default_factory=list)  # solved in any kernel language
    completed_lesson_ids: list[str] = field(default_factory=list)
    achievement_ids: list[str] = field(default_factory=list)
    # #29: {exercise id: [kernel languages it is solved in]}, and per language
    # {"cuda": {"xp": n, "exercises_done": m}, ...} (XP of lessons is no language's)
    exercise_languages: dict[str, list[str]] = field(default_factory=dict)
    languages: dict[str, dict[str, int]] = field(default_factory=dict)
    # {exercise id: {language: XP its acceptance and speed tiers earned in it}}: what the
    # lesson page's XP badge reads (app/xp.py language_award)
    exercise_xp: dict[str, dict[str, int]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def total_xp(session: Session, user_id: int) -> int:
    return int(
        session.scalar(select(func.coalesce(func.sum(XpAward.xp), 0)).where(XpAward.user_id == user_id))
        or 0
    )


def completed_ids(session: Session, user_id: int, kind: str) -> list[str]:
    """Completed items of `kind`, oldest first; an exercise once whatever its languages."""
    rows = session.scalars(
        select(Completion.item_id).where(Completion.user_id == user_id, Completion.kind == kind)
        .order_by(Completion.id)
    )
    return list(dict.fromkeys(rows))


@dataclass(frozen=True)
class LearnerState:
    """What the database knows of one learner that every page shows (the learner bar, the
    unread count): read with one query."""

    xp: int = 0
    exercise_ids: tuple[str, ...] = ()  # solved in any kernel language, oldest first
    lesson_ids: tuple[str, ...] = ()
    achievement_ids: tuple[str, ...] = ()
    unread_notifications: int = 0
    solved: tuple[tuple[str, str], ...] = ()  # (exercise id, kernel language), oldest first (#29)
    xp_by_language: tuple[tuple[str, int], ...] = ()  # XP of each kernel language's awards
    awards: tuple[tuple[str, str, int], ...] = ()  # (key, language, xp) of each exercise's and tier's award


# Built once: every signed-in page runs it (issue #13: a signed-in lesson page made
# 8 SQL statements, each built anew). One row per fact: (part, item, n).
_USER = bindparam("user_id")
_LEARNER_STATE = union_all(
    select(literal_column("'xp'").label("part"), cast(null(), String).label("item"),
           func.coalesce(func.sum(XpAward.xp), 0).label("n")).where(XpAward.user_id == _USER),
    # "<item>@<language>": an exercise is completed per kernel language, a lesson with ""
    select(Completion.kind, Completion.item_id + "@" + Completion.language, Completion.id)
    .where(Completion.user_id == _USER),
    select(literal_column("'achievement'"), UserAchievement.achievement_id, UserAchievement.id)
    .where(UserAchievement.user_id == _USER),
    select(literal_column("'xp_language'"), XpAward.language, func.coalesce(func.sum(XpAward.xp), 0))
    .where(XpAward.user_id == _USER, XpAward.language != "").group_by(XpAward.language),
    # "<language> <key>": who earned each exercise's and speed tier's XP, and how much
    select(literal_column("'award'"), XpAward.language + " " + XpAward.key, XpAward.xp)
    .where(XpAward.user_id == _USER, or_(XpAward.key.like("exercise:%"), XpAward.key.like("tier:%"))),
    select(literal_column("'unread'"), cast(null(), String), func.count()).select_from(Notification)
    .where(Notification.user_id == _USER, Notification.read_at.is_(None)),
)


def learner_state(session: Session, user_id: int) -> LearnerState:
    xp = unread = 0
    parts: dict[str, list[tuple[int, str]]] = {"exercise": [], "lesson": [], "achievement": []}
    by_language: list[tuple[str, int]] = []
    awards: list[tuple[str, str, int]] = []
    for part, item, n in session.execute(_LEARNER_STATE, {"user_id": user_id}):
        if part == "xp":
            xp = int(n or 0)
        elif part == "unread":
            unread = int(n or 0)
        elif part == "xp_language":
            by_language.append((item, int(n or 0)))
        elif part == "award":
            language, _, key = item.partition(" ")
            awards.append((key, language, int(n or 0)))
        elif part in parts:
            parts[part].append((n, item))
    ordered = {part: [item for _, item in sorted(rows)] for part, rows in parts.items()}  # oldest first
    solved = tuple(tuple(item.rpartition("@")[::2]) for item in ordered["exercise"])
    exercise_ids = tuple(dict.fromkeys(exercise_id for exercise_id, _ in solved))
    lesson_ids = tuple(item.rpartition("@")[0] for item in ordered["lesson"])
    return LearnerState(xp, exercise_ids, lesson_ids, tuple(ordered["achievement"]), unread,
                        solved, tuple(sorted(by_language)), tuple(sorted(awards)))


def learner_summary(session: Session, user: User | None, catalog: Catalog,
                    state: LearnerState | None = None) -> LearnerSummary:
    """The learner bar. Anonymous learners (user=None) start from zero: their
    progress lives in the browser. `state`: already read for this user."""
    if user is None:
        state = LearnerState()
    elif state is None:
        state = learner_state(session, user.id)
    return _summary(state, catalog)


def _summary(state: LearnerState, catalog: Catalog) -> LearnerSummary:
    lessons = catalog_view.lessons(catalog)
    lessons_total = len(lessons)
    xp = state.xp
    level = xp_rules.level_for(xp)
    upcoming = xp_rules.next_level(xp)
    span = (upcoming.min_xp - level.min_xp) if upcoming else 0
    known = {lesson.id for lesson in lessons}
    lesson_ids = list(state.lesson_ids)
    lessons_done = len([lid for lid in lesson_ids if lid in known]) if known else len(lesson_ids)
    return LearnerSummary(
        xp=xp,
        level=level.number,
        level_title=level.title_en,
        level_title_ko=level.title_ko,
        level_min_xp=level.min_xp,
        next_level_xp=upcoming.min_xp if upcoming else None,
        xp_to_next=(upcoming.min_xp - xp) if upcoming else 0,
        xp_in_level=xp - level.min_xp,
        level_span_xp=span,
        lessons_done=lessons_done,
        lessons_total=lessons_total,
        achievements_done=len(state.achievement_ids),
        achievements_total=len(ACHIEVEMENTS),
        pct_complete=int(100 * lessons_done / lessons_total) if lessons_total else 0,
        completed_exercise_ids=list(state.exercise_ids),
        completed_lesson_ids=lesson_ids,
        achievement_ids=list(state.achievement_ids),
        exercise_languages=exercise_languages(state),
        languages=language_totals(state),
        exercise_xp=exercise_xp(state),
    )


def exercise_languages(state: LearnerState) -> dict[str, list[str]]:
    """{exercise id: the kernel languages it is solved in, in the order solved}."""
    found: dict[str, list[str]] = {}
    for exercise_id, language in state.solved:
        found.setdefault(exercise_id, []).append(language)
    return found


def exercise_xp(state: LearnerState) -> dict[str, dict[str, int]]:
    """{exercise id: {kernel language: the XP its acceptance and speed tiers earned}}."""
    found: dict[str, dict[str, int]] = {}
    for key, language, xp in state.awards:
        exercise_id = xp_rules.awarded_exercise(key)
        if exercise_id is not None and language:
            per_language = found.setdefault(exercise_id, {})
            per_language[language] = per_language.get(language, 0) + xp
    return found


def language_totals(state: LearnerState) -> dict[str, dict[str, int]]:
    """Per kernel language: the XP its accepts earned and the exercises solved in it."""
    totals: dict[str, dict[str, int]] = {}
    for language, xp in state.xp_by_language:
        totals.setdefault(language, {"xp": 0, "exercises_done": 0})["xp"] = xp
    for _, language in state.solved:
        totals.setdefault(language, {"xp": 0, "exercises_done": 0})["exercises_done"] += 1
    return dict(sorted(totals.items()))


RECENT_SUBMISSIONS = 50


def xp_history(session: Session, user_id: int) -> list[dict[str, Any]]:
    """Cumulative XP after each award, oldest first."""
    rows = session.execute(
        select(XpAward.created_at, XpAward.xp).where(XpAward.user_id == user_id).order_by(XpAward.id)
    ).all()
    total, points = 0, []
    for created_at, xp in rows:
        total += xp
        points.append({"t": created_at.isoformat() + "Z", "xp": total})
    return points


def recent_submissions(session: Session, user_id: int) -> list[Submission]:
    query = select(Submission).where(Submission.user_id == user_id).order_by(Submission.id.desc())
    return list(session.scalars(query.limit(RECENT_SUBMISSIONS)))
