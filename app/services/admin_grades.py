"""The grades export: learners × exercises of a track, a lesson or a list of exercises,
with the best verdict, the best time, the number of attempts and the XP earned."""

from __future__ import annotations

import csv
import io
import math
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content import Catalog
from app.models import Submission, User, XpAward
from app.services import catalog_view
from app.services.errors import Invalid, NotFound

# best first: a learner's best verdict on an exercise is the lowest rank they reached
VERDICT_RANK = {v: i for i, v in enumerate(
    ("accepted", "wrong_answer", "runtime_error", "time_limit_exceeded", "memory_limit_exceeded",
     "compile_error", "rejected", "internal_error"))}
CSV_COLUMNS = ("email", "display_name", "exercise_id", "best_verdict", "best_ms", "attempts", "xp", "languages")


def exercise_set(catalog: Catalog, track: str | None, lesson: str | None, exercises: str | None) -> list[str]:
    """The exercise ids of a track, a lesson, or a comma-separated list, in catalog order."""
    lessons = catalog_view.lessons(catalog)
    if sum(x is not None for x in (track, lesson, exercises)) != 1:
        raise Invalid("Give exactly one of track, lesson or exercises.")
    if track is not None:
        ids = [e for info in lessons if info.track == track for e in info.exercise_ids]
        if not any(info.track == track for info in lessons):
            raise NotFound(f"There is no track {track!r}.")
        return ids
    if lesson is not None:
        found = next((info for info in lessons if info.id == lesson), None)
        if found is None:
            raise NotFound(f"There is no lesson {lesson!r}.")
        return list(found.exercise_ids)
    ids = [e.strip() for e in (exercises or "").split(",") if e.strip()]
    if not ids:
        raise Invalid("exercises is empty.")
    return ids


def grades(session: Session, exercise_ids: list[str], language: str | None = None) -> dict[str, Any]:
    """{"exercises": [...], "language": …, "learners": [{email, display_name, grades: {exercise: cell}}]}.

    Only signed-in learners' `submit` submissions count; learners with none on
    these exercises are left out. A cell covers every kernel language (#29) and has
    each one's own cell under `by_language`; `language` keeps that language's alone."""
    query = select(Submission.user_id, Submission.exercise_id, Submission.language, Submission.verdict,
                   Submission.result).where(
        Submission.exercise_id.in_(exercise_ids), Submission.user_id.is_not(None),
        Submission.mode == "submit", Submission.status == "done")
    if language is not None:
        query = query.where(Submission.language == language)
    cells: dict[tuple[int, str], dict[str, Any]] = {}
    for user_id, exercise_id, row_language, verdict, result in session.execute(query).all():
        cell = cells.setdefault((user_id, exercise_id), {**_empty(), "by_language": {}})
        _count(cell, verdict, result)
        _count(cell["by_language"].setdefault(row_language, _empty()), verdict, result)
    user_ids = sorted({user_id for user_id, _ in cells})
    _add_xp(session, cells, user_ids, exercise_ids, language)
    users = {u.id: u for u in session.scalars(select(User).where(User.id.in_(user_ids)))}
    learners = [
        {"email": users[uid].email, "display_name": users[uid].display_name,
         "grades": {ex: cells.get((uid, ex)) or {**_empty(), "by_language": {}} for ex in exercise_ids}}
        for uid in sorted(user_ids, key=lambda uid: users[uid].email)
    ]
    return {"exercises": exercise_ids, "language": language, "learners": learners}


def _count(cell: dict[str, Any], verdict: str | None, result: dict[str, Any] | None) -> None:
    cell["attempts"] += 1
    if _rank(verdict) < _rank(cell["best_verdict"]):
        cell["best_verdict"] = verdict
    ms = _time_ms(result) if verdict == "accepted" else None
    if ms is not None and (cell["best_ms"] is None or ms < cell["best_ms"]):
        cell["best_ms"] = ms


def to_csv(report: dict[str, Any]) -> str:
    """One row per learner and exercise (long format: easy to pivot in a spreadsheet)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for learner in report["learners"]:
        for exercise_id in report["exercises"]:
            cell = learner["grades"][exercise_id]
            writer.writerow([learner["email"], learner["display_name"], exercise_id,
                             cell["best_verdict"] or "", "" if cell["best_ms"] is None else cell["best_ms"],
                             cell["attempts"], cell["xp"], " ".join(sorted(cell.get("by_language", {})))])
    return out.getvalue()


def _add_xp(session: Session, cells: dict[tuple[int, str], dict[str, Any]], user_ids: list[int],
            exercise_ids: list[str], language: str | None = None) -> None:
    # award keys: exercise:<id>, tier:<id>:<tier>, override:<id>:<submission>, each of a
    # further kernel language with @<language> (app/services/awards.py, app/xp.py)
    known = set(exercise_ids)
    query = select(XpAward.user_id, XpAward.key, XpAward.xp, XpAward.language).where(XpAward.user_id.in_(user_ids))
    if language is not None:
        query = query.where(XpAward.language == language)
    for user_id, key, xp, award_language in session.execute(query).all():
        kind, _, rest = key.partition(":")
        rest = rest.partition("@")[0]
        exercise_id = rest if kind == "exercise" else rest.rsplit(":", 1)[0]
        cell = cells.get((user_id, exercise_id))
        if kind in ("exercise", "tier", "override") and exercise_id in known and cell is not None:
            cell["xp"] += xp
            cell["by_language"].setdefault(award_language, _empty())["xp"] += xp


def _empty() -> dict[str, Any]:
    return {"best_verdict": None, "best_ms": None, "attempts": 0, "xp": 0}


def _rank(verdict: str | None) -> int:
    return VERDICT_RANK.get(verdict or "", len(VERDICT_RANK) + 1)


def _time_ms(result: dict[str, Any] | None) -> float | None:
    """The benchmark's geometric-mean time (GPU); None on the emulator (no timings)."""
    value = ((result or {}).get("benchmark") or {}).get("geomean_ms")
    return float(value) if value and math.isfinite(float(value)) else None
