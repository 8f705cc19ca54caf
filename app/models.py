"""The database schema. Idempotency lives here, in unique indexes:

- one XP award per (user, reason key): an exercise, a lesson, a tier bonus (the first
  language to earn an exercise's award holds its key; a further language its own
  `<key>@<language>`, app/xp.py);
- one achievement per (user, achievement id);
- one completion per (user, kind, item, language): an exercise per kernel language,
  a lesson once (language "");
- one attempt row per (submission, attempt number); the verdict is written only
  by the attempt that holds the row (see app/services/judging.py);
- one event per (submission, seq);
- one submission per (owner, Idempotency-Key) of POST /api/submissions.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


ROLES = ("learner", "instructor", "admin")


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    display_name: Mapped[str] = mapped_column(String(64))
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default="learner")  # learner|instructor|admin
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class UserSession(Base):
    """A server-side session; the cookie holds a random token, the row its SHA-256."""

    __tablename__ = "user_sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    user_agent: Mapped[str] = mapped_column(String(255), default="")


class Submission(Base):
    __tablename__ = "submissions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True, index=True
    )
    anon_id: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    client_ip: Mapped[str] = mapped_column(String(64), default="")
    exercise_id: Mapped[str] = mapped_column(String(128), index=True)
    mode: Mapped[str] = mapped_column(String(8))  # run | submit
    # the kernel language of `source` (#29): "cuda" | "triton" (app/content/languages.py)
    language: Mapped[str] = mapped_column(String(16), default="cuda", server_default="cuda")
    source: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(8), default="queued")  # queued|running|done
    verdict: Mapped[str | None] = mapped_column(String(32), nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    xp_awarded: Mapped[int] = mapped_column(Integer, default=0)
    achievements: Mapped[list[str]] = mapped_column(JSON, default=list)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker_id: Mapped[str] = mapped_column(String(128), default="")
    heartbeat_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    # The fair queue (app/services/fairqueue.py): which queue (KDOJO_QUEUE_NAME, one per
    # GPU kind) judges the row, whose turn it takes ("user:ID", "addr:IP", "anon:ID", or
    # "staff" for regrades) and its round: rows are judged in (fair_tag, id) order.
    queue_name: Mapped[str] = mapped_column(String(64), default="kdojo", server_default="kdojo")
    fair_key: Mapped[str] = mapped_column(String(96), default="", server_default="")
    fair_tag: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    __table_args__ = (
        Index("ix_submissions_status_heartbeat", "status", "heartbeat_at"),
        Index("ix_submissions_fair_order", "queue_name", "status", "fair_tag", "id"),
        Index("ix_submissions_fair_key", "fair_key", "status"),
    )


class SubmissionKey(Base):
    """An `Idempotency-Key` of POST /api/submissions: a retry with the same key by the
    same owner ("user:ID" or "anon:ID") gets the same submission back."""

    __tablename__ = "submission_keys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String(96))
    key: Mapped[str] = mapped_column(String(128))
    request_sha256: Mapped[str] = mapped_column(String(64))
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("owner", "key"),)


class SubmissionAttempt(Base):
    """One judging attempt of a submission (a re-queue after a dead worker adds one)."""

    __tablename__ = "submission_attempts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    attempt: Mapped[int] = mapped_column(Integer)
    worker_id: Mapped[str] = mapped_column(String(128), default="")
    started_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    outcome: Mapped[str] = mapped_column(String(32), default="running")  # running|done|stale
    __table_args__ = (UniqueConstraint("submission_id", "attempt"),)


class SubmissionEvent(Base):
    """Stage events, stored so that any process can serve the SSE stream."""

    __tablename__ = "submission_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    seq: Mapped[int] = mapped_column(Integer)
    event: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("submission_id", "seq"),)


class Completion(Base):
    """An exercise or lesson a user has completed.

    `verified` is False for progress merged from a browser that no stored
    accepted submission backs; such rows count as progress but earn no XP.
    An exercise is completed per kernel language (`language`, #29: solved in CUDA is
    not solved in Triton); a lesson once, whatever the languages (`language` "").
    """

    __tablename__ = "completions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(8))  # exercise | lesson
    item_id: Mapped[str] = mapped_column(String(128))
    verified: Mapped[bool] = mapped_column(Boolean, default=True)
    language: Mapped[str] = mapped_column(String(16), default="", server_default="")
    submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("submissions.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("user_id", "kind", "item_id", "language",
                                       name="uq_completions_user_kind_item_language"),)


class XpAward(Base):
    __tablename__ = "xp_awards"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(200))  # exercise:<id> | lesson:<id> | tier:<id>:<tier>, [@<language>]
    xp: Mapped[int] = mapped_column(Integer)
    # the kernel language whose accept earned it (#29); "" for a lesson's XP
    language: Mapped[str] = mapped_column(String(16), default="", server_default="")
    submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("submissions.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("user_id", "key"),)


class UserAchievement(Base):
    __tablename__ = "user_achievements"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    achievement_id: Mapped[str] = mapped_column(String(64))
    submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("submissions.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (UniqueConstraint("user_id", "achievement_id"),)


class Comment(Base):
    __tablename__ = "comments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    lesson_id: Mapped[str] = mapped_column(String(128), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("comments.id", ondelete="CASCADE"), nullable=True, index=True
    )
    body_md: Mapped[str] = mapped_column(Text)
    body_html: Mapped[str] = mapped_column(Text)
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Notification(Base):
    __tablename__ = "notifications"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # reply
    lesson_id: Mapped[str] = mapped_column(String(128))
    comment_id: Mapped[int] = mapped_column(ForeignKey("comments.id", ondelete="CASCADE"))
    actor_name: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    read_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class BugReport(Base):
    __tablename__ = "bug_reports"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    lesson_id: Mapped[str] = mapped_column(String(128), index=True)
    anchor: Mapped[str] = mapped_column(String(200), default="")
    submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("submissions.id", ondelete="SET NULL"), nullable=True
    )
    message: Mapped[str] = mapped_column(Text)
    gpu: Mapped[str] = mapped_column(String(200), default="")
    toolchain: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(16), default="open")  # open | closed
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class AuthAttempt(Base):
    """Failed sign-ins, counted per client address for the sign-in rate limit."""

    __tablename__ = "auth_attempts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    client_ip: Mapped[str] = mapped_column(String(64), index=True)
    email: Mapped[str] = mapped_column(String(320), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)


# --- Admin (issue #6): API tokens, audit log, grading history and overrides ---------------
# Owned by the admin API (app/admin/, app/services/admin_*.py); migration 0002.

TOKEN_SCOPES = ("grading:read", "grading:write", "users:admin", "content:admin")


class ApiToken(Base):
    """A bearer token for scripts. Only the SHA-256 of the token is stored; the
    token itself is shown once, when it is created."""

    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))  # the first characters, to recognise it in lists
    scopes: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    last_used_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class AuditEntry(Base):
    """One admin action: who (user, and through which credential), what, when, why."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    actor_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True, index=True
    )
    actor: Mapped[str] = mapped_column(String(320), default="")  # e-mail, or "cli"
    via: Mapped[str] = mapped_column(String(32), default="")  # session | token:<id> | cli
    action: Mapped[str] = mapped_column(String(64), index=True)
    target_type: Mapped[str] = mapped_column(String(32), default="")
    target_id: Mapped[str] = mapped_column(String(128), default="")
    reason: Mapped[str] = mapped_column(Text, default="")
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)


class SubmissionGrade(Base):
    """A verdict a submission held before a regrade or an override replaced it:
    the grading history (the current verdict stays on the submission row)."""

    __tablename__ = "submission_grades"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    attempt: Mapped[int] = mapped_column(Integer)
    verdict: Mapped[str | None] = mapped_column(String(32), nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    xp_awarded: Mapped[int] = mapped_column(Integer, default=0)
    replaced_by: Mapped[str] = mapped_column(String(16))  # regrade | override
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class GradeOverride(Base):
    """An admin's override of a submission's verdict and/or XP (the latest wins)."""

    __tablename__ = "grade_overrides"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    verdict: Mapped[str | None] = mapped_column(String(32), nullable=True)
    xp: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reason: Mapped[str] = mapped_column(Text)
    actor_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


# --- Accounts (issue #25): password-reset links and sign-up invite codes -------------------
# Owned by app/services/account_recovery.py and app/services/invites.py; migration 0004.
# Only the SHA-256 of a reset token or an invite code is stored.


class PasswordReset(Base):
    """A one-time password-reset link an admin made for a user: single use, expires."""

    __tablename__ = "password_resets"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class InviteCode(Base):
    """A sign-up invite code (`KDOJO_SIGNUP=invite`): `max_uses` accounts until `expires_at`."""

    __tablename__ = "invite_codes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))  # the first characters, to recognise it in lists
    note: Mapped[str] = mapped_column(String(100), default="")
    max_uses: Mapped[int] = mapped_column(Integer, default=1)
    uses: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
