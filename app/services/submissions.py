"""Submissions: create (the `queued` row is written before anything is enqueued),
read with ownership checks, attempt history, leaderboards."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from app.content import DEFAULT_LANGUAGE, LANGUAGES, Catalog
from app.models import Submission, SubmissionKey, User, utcnow
from app.services import catalog_view, fairqueue, ratelimit
from app.services.errors import Conflict, Invalid, NotFound
from app.services.events import add_event
from app.services.source_diff import source_diff
from kernels import targets
from kernels.contract import Event

MODES = ("run", "submit")
STAFF_ROLES = ("instructor", "admin")


@dataclass(frozen=True)
class Owner:
    """Who is asking: a signed-in user, or an anonymous browser (anon_id) at an address."""

    user: User | None
    anon_id: str | None
    client_ip: str = ""


@dataclass(frozen=True)
class Limits:
    max_pending: int
    per_hour: int
    anonymous_per_hour: int
    max_source_bytes: int
    anonymous_per_address_per_hour: int = 0


def create(
    session: Session, owner: Owner, catalog: Catalog, exercise_id: str, source: str, mode: str,
    limits: Limits, queue_name: str = "kdojo", idempotency_key: str | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> tuple[Submission, bool]:
    """Validate, enforce limits, store the `queued` row and its first event.

    Returns (submission, created). With an `idempotency_key` the owner used before
    for the same request, the earlier submission comes back and nothing is created
    (created False); for a different request, Conflict."""
    if mode not in MODES:
        raise Invalid(f"mode must be 'run' or 'submit', not {mode!r}")
    check_language_name(language)
    user_id = owner.user.id if owner.user else None
    serialize_owner(session, user_id, owner.anon_id)
    request_sha256 = _request_sha256(exercise_id, source, mode, language)
    if idempotency_key is not None:
        earlier = _replay(session, owner, idempotency_key, request_sha256)
        if earlier is not None:
            return earlier, False
    # staff may judge a draft's exercises (no XP: awards count published lessons only)
    if exercise_id not in catalog_view.exercises(catalog, catalog_view.sees_drafts(owner.user)):
        raise NotFound(f"There is no exercise {exercise_id!r}.")
    check_language_offered(catalog, exercise_id, language)
    if not source.strip():
        raise Invalid("The source is empty.")
    if len(source.encode()) > limits.max_source_bytes:
        raise Invalid(f"The source is larger than {limits.max_source_bytes} bytes.")
    ratelimit.check_submission_limits(
        session, user_id=user_id, anon_id=owner.anon_id, client_ip=owner.client_ip,
        max_pending=limits.max_pending,
        per_hour=limits.per_hour if user_id is not None else limits.anonymous_per_hour,
        anonymous_per_address_per_hour=limits.anonymous_per_address_per_hour,
    )
    key = fairqueue.fair_key(user_id, owner.anon_id, owner.client_ip)
    submission = Submission(
        user_id=user_id, anon_id=owner.anon_id if user_id is None else None,
        client_ip=owner.client_ip, exercise_id=exercise_id, mode=mode, language=language, source=source,
        status="queued", achievements=[], heartbeat_at=utcnow(), queue_name=queue_name,
        fair_key=key, fair_tag=fairqueue.next_tag(session, queue_name, key),
    )
    session.add(submission)
    session.flush()
    if idempotency_key is not None:
        session.add(SubmissionKey(owner=_key_owner(owner), key=idempotency_key,
                                  request_sha256=request_sha256, submission_id=submission.id))
    add_event(session, submission.id, Event.QUEUED, {"position": queue_position(session, submission.id)})
    return submission, True


def check_language_name(language: str) -> None:
    """Invalid (`language_unknown`) unless `language` is a kernel language of the site."""
    if language not in LANGUAGES:
        raise Invalid(f"Unknown language {language!r}; choose one of {', '.join(LANGUAGES)}.",
                      "language_unknown", language=language[:32], choices=", ".join(LANGUAGES))


def check_language_offered(catalog: Catalog, exercise_id: str, language: str) -> None:
    """Invalid (`language_not_offered`) unless the exercise is judged in `language`
    (`Exercise.languages`: CUDA always, Triton where its spec has a `[triton]` section)."""
    exercise = catalog.exercises.get(exercise_id)
    offered = exercise.languages if exercise is not None else (DEFAULT_LANGUAGE,)
    if language not in offered:
        raise Invalid(f"The exercise {exercise_id!r} is not offered in {language}; it is in "
                      f"{', '.join(offered)}.", "language_not_offered", language=language,
                      choices=", ".join(offered))


def _key_owner(owner: Owner) -> str:
    # Keys belong to whoever posted: the user, or the anonymous browser (its cookie).
    return f"user:{owner.user.id}" if owner.user is not None else f"anon:{owner.anon_id or ''}"


def _request_sha256(exercise_id: str, source: str, mode: str, language: str = DEFAULT_LANGUAGE) -> str:
    # CUDA's hash is the one from before #29, so a key stored then still matches its retry
    fields = [exercise_id, mode, source] if language == DEFAULT_LANGUAGE else [exercise_id, mode, source, language]
    body = json.dumps(fields, ensure_ascii=False)
    return hashlib.sha256(body.encode()).hexdigest()


def _replay(session: Session, owner: Owner, key: str, request_sha256: str) -> Submission | None:
    """The submission an earlier request with this key created, if any. The owner is
    serialized (serialize_owner), so a racing twin waits here until the first commits."""
    row = session.execute(
        select(SubmissionKey.request_sha256, Submission)
        .join(Submission, Submission.id == SubmissionKey.submission_id)
        .where(SubmissionKey.owner == _key_owner(owner), SubmissionKey.key == key)
    ).first()
    if row is None:
        return None
    if row[0] != request_sha256:
        raise Conflict("This Idempotency-Key was already used for a different submission; "
                       "send a new key with each new submission.", "idempotency_key_reused")
    return row[1]


def serialize_owner(session: Session, user_id: int | None, anon_id: str | None) -> None:
    """Make one owner's concurrent submissions take turns until they commit, so the
    pending cap is counted and then kept (issue #13: 20 parallel posts got 16 in).

    SQLite needs nothing: a writing request holds the database's write lock from
    its first statement (app.db, BEGIN IMMEDIATE). PostgreSQL: the user's row is
    locked (FOR UPDATE), or for an anonymous browser a transaction-level advisory
    lock on its id; both are released at commit or rollback."""
    if session.get_bind().dialect.name != "postgresql":
        return
    if user_id is not None:
        session.execute(select(User.id).where(User.id == user_id).with_for_update())
    elif anon_id:
        session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"),
                        {"key": f"kdojo-anon-submit:{anon_id}"})


def queue_position(session: Session, submission_id: int) -> int:
    """1 = next to be judged in its queue under the fair queue's rule
    (app/services/fairqueue.py); 0 once it is running or done (or not there)."""
    return fairqueue.positions(session, [submission_id])[int(submission_id)]


def queue_positions(session: Session, submission_ids: Iterable[int]) -> dict[int, int]:
    """`queue_position` of many submissions in one query: {id: position}."""
    return fairqueue.positions(session, submission_ids)


def get_with_position(session: Session, owner: Owner, submission_id: int) -> tuple[Submission, int]:
    """`get` and `queue_position` in one query (issue #13: every waiting learner polls it)."""
    row = session.execute(fairqueue.WITH_POSITION, {"submission_id": submission_id}).first()
    if row is None or not can_read(owner, row[0]):
        raise NotFound(f"There is no submission {submission_id} of yours.")
    return row[0], int(row[1] or 0)


def can_read(owner: Owner, submission: Submission) -> bool:
    if owner.user is not None:
        return submission.user_id == owner.user.id or owner.user.role in STAFF_ROLES
    return submission.user_id is None and bool(owner.anon_id) and submission.anon_id == owner.anon_id


def get(session: Session, owner: Owner, submission_id: int) -> Submission:
    """The submission if `owner` may read it (its author, or staff). A stranger
    gets 404, not 403, so ids reveal nothing."""
    submission = session.get(Submission, submission_id)
    if submission is None or not can_read(owner, submission):
        raise NotFound(f"There is no submission {submission_id} of yours.")
    return submission


def public_view(submission: Submission, include_source: bool = True) -> dict[str, Any]:
    view = {
        "id": submission.id,
        "exercise_id": submission.exercise_id,
        "language": submission.language,
        "mode": submission.mode,
        "status": submission.status,
        "verdict": submission.verdict,
        "result": submission.result,
        "xp_awarded": submission.xp_awarded,
        "achievements": submission.achievements or [],
        "attempts": submission.attempts,
        "flagged": submission.flagged,
        "created_at": submission.created_at.isoformat() + "Z",
        "finished_at": submission.finished_at.isoformat() + "Z" if submission.finished_at else None,
    }
    if include_source:
        view["source"] = submission.source
    return view


# How many of the learner's earlier accepted attempts are looked through for one
# with a profile (each is a JSON document read from the database).
PREVIOUS_PROFILE_SCAN = 20


def previous_profile(session: Session, submission: Submission) -> dict[str, Any] | None:
    """The profile of the same learner's latest earlier accepted attempt at the same
    exercise that has one measured the same way and for the same GPU (emulator
    counts are not set beside Nsight Compute's, nor an H100's beside an L4's), for
    the Performance panel's "previous attempt" column (#16), in the same kernel language
    (a Triton kernel's counts are not set beside a CUDA one's, #29).

    Only the submission's own author's attempts: the user's, or for an anonymous
    browser those of its `anon_id` that no account has claimed. None when this
    attempt has no profile or no earlier one has."""
    profile = (submission.result or {}).get("profile")
    if not isinstance(profile, dict):
        return None
    query = select(Submission.id, Submission.mode, Submission.finished_at, Submission.result).where(
        Submission.exercise_id == submission.exercise_id, Submission.language == submission.language,
        Submission.id < submission.id, Submission.verdict == "accepted")
    if submission.user_id is not None:
        query = query.where(Submission.user_id == submission.user_id)
    elif submission.anon_id:
        query = query.where(Submission.user_id.is_(None), Submission.anon_id == submission.anon_id)
    else:
        return None
    rows = session.execute(query.order_by(Submission.id.desc()).limit(PREVIOUS_PROFILE_SCAN))
    for sub_id, mode, finished_at, result in rows:
        earlier = (result or {}).get("profile")
        if isinstance(earlier, dict) and (earlier.get("source"), earlier.get("gpu")) == \
                (profile.get("source"), profile.get("gpu")):
            return {"submission_id": sub_id, "mode": mode,
                    "finished_at": finished_at.isoformat() + "Z" if finished_at else None,
                    "profile": earlier}
    return None


def list_attempts(
    session: Session, user: User | None, exercise_id: str, anon_id: str | None = None, limit: int = 50,
    language: str | None = None,
) -> list[dict[str, Any]]:
    """The asker's own submissions on one exercise (in one kernel `language`, or all),
    newest first, each with its source and `diff`, what changed since the attempt before
    it in the same language (app/services/source_diff.py; None for the first, or the
    oldest of the `limit` listed)."""
    query = select(Submission).where(Submission.exercise_id == exercise_id)
    if language is not None:
        query = query.where(Submission.language == language)
    if user is not None:
        query = query.where(Submission.user_id == user.id)
    elif anon_id:
        query = query.where(Submission.user_id.is_(None), Submission.anon_id == anon_id)
    else:
        return []
    rows = list(session.scalars(query.order_by(Submission.id.desc()).limit(limit + 1)))
    return [
        {**public_view(row), "result": None, "geomean_ms": _geomean_ms(row.result),
         "diff": source_diff(_before(rows, i), row.source)}
        for i, row in enumerate(rows[:limit])
    ]


def _before(rows: list[Submission], i: int) -> str | None:
    """The source of the attempt before rows[i] (newest first) in the same language."""
    earlier = next((row for row in rows[i + 1:] if row.language == rows[i].language), None)
    return earlier.source if earlier is not None else None


def leaderboard(session: Session, exercise_id: str, limit: int = 50,
                language: str = DEFAULT_LANGUAGE) -> list[dict[str, Any]]:
    """Signed-in learners' best accepted submission on one exercise in one kernel
    language (#29: a Triton time is ranked with Triton times), per GPU.

    Times on different GPUs do not compare, so each GPU name has its own ranking
    (rank 1 in each); a learner appears once per GPU. Results without GPU timings
    (the emulator, `gpu` None) form the last group, ranked by who got there first.
    Groups come in order of GPU name."""
    rows = session.execute(
        select(Submission.id, Submission.user_id, Submission.result, Submission.finished_at,
               User.display_name)
        .join(User, User.id == Submission.user_id)
        .where(Submission.exercise_id == exercise_id, Submission.language == language,
               Submission.mode == "submit", Submission.verdict == "accepted", Submission.flagged.is_(False),
               User.disabled.is_(False))
        .order_by(Submission.id)
    ).all()
    best: dict[tuple[str | None, int], dict[str, Any]] = {}
    for sub_id, user_id, result, finished_at, name in rows:
        gpu = _gpu_name(result)
        entry = {"submission_id": sub_id, "display_name": name, "gpu": gpu, "geomean_ms": _geomean_ms(result),
                 "pct_of_peak": _largest_pct(result), "accepted_at": finished_at.isoformat() + "Z"
                 if finished_at else None}
        current = best.get((gpu, user_id))
        if current is None or _rank_key(entry) < _rank_key(current):
            best[(gpu, user_id)] = entry
    groups: dict[str | None, list[dict[str, Any]]] = {}
    for (gpu, _), entry in best.items():
        groups.setdefault(gpu, []).append(entry)
    ranked: list[dict[str, Any]] = []
    for gpu in sorted(groups, key=lambda g: (g is None, g or "")):
        entries = sorted(groups[gpu], key=_rank_key)[:limit]
        ranked += [{"rank": i + 1, **entry} for i, entry in enumerate(entries)]
    return ranked


def _gpu_name(result: dict[str, Any] | None) -> str | None:
    if not result or not targets.timed(result.get("backend")):
        return None
    return (result.get("device") or {}).get("name") or "unknown GPU"


def _rank_key(entry: dict[str, Any]) -> tuple[float, str, int]:
    ms = entry["geomean_ms"]
    return (ms if ms is not None else math.inf, entry["accepted_at"] or "", entry["submission_id"])


def _geomean_ms(result: dict[str, Any] | None) -> float | None:
    if not result or not targets.timed(result.get("backend")):
        return None
    value = (result.get("benchmark") or {}).get("geomean_ms")
    return float(value) if value else None


def _largest_pct(result: dict[str, Any] | None) -> float | None:
    if not result or not targets.timed(result.get("backend")):
        return None
    sizes = (result.get("benchmark") or {}).get("sizes") or []
    return sizes[-1].get("pct_of_peak") if sizes else None


def latest_submission_id(session: Session, user: User | None, anon_id: str | None) -> int | None:
    query = select(Submission.id)
    if user is not None:
        query = query.where(Submission.user_id == user.id)
    elif anon_id:
        query = query.where(Submission.user_id.is_(None), Submission.anon_id == anon_id)
    else:
        return None
    return session.scalar(query.order_by(Submission.id.desc()).limit(1))



def queue_counts(session: Session) -> dict[str, int]:
    """How many submissions wait and how many are being judged, across all workers."""
    counts = dict(session.execute(
        select(Submission.status, func.count()).where(Submission.status.in_(("queued", "running")))
        .group_by(Submission.status)
    ).all())
    return {"queued": int(counts.get("queued", 0)), "running": int(counts.get("running", 0))}
