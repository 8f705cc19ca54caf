"""Lesson comments, replies and reply notifications.

Comment Markdown is rendered with raw HTML disabled, then the HTML is cleaned
by nh3 (an allow-list sanitizer) so no script, handler or `javascript:` URL
survives, whatever markdown-it does with odd input.
"""

from __future__ import annotations

import functools
from typing import Any

import nh3
from markdown_it import MarkdownIt
from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from app.models import Comment, Notification, User, utcnow
from app.services import ratelimit
from app.services.errors import Invalid, NotFound
from app.services.text import check_text

MAX_COMMENT_CHARS = 5000
ALLOWED_TAGS = {"p", "br", "strong", "em", "code", "pre", "blockquote", "ul", "ol", "li",
                "a", "h3", "h4", "h5", "h6", "hr", "del", "table", "thead", "tbody", "tr", "th", "td"}


@functools.lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(["table", "strikethrough"])


def render_comment(body_md: str) -> str:
    html = _markdown().render(body_md)
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={"a": {"href", "title"}, "code": {"class"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="nofollow noopener noreferrer",
    )


def comment_view(comment: Any, author: str) -> dict[str, Any]:
    return {
        "id": comment.id, "lesson_id": comment.lesson_id, "parent_id": comment.parent_id,
        "author": author, "body_html": comment.body_html, "body_md": comment.body_md,
        "created_at": comment.created_at.isoformat() + "Z",
    }


# Built once, columns only (no ORM objects): every lesson page reads it (issue #13).
_LESSON_COMMENTS = (
    select(Comment.id, Comment.lesson_id, Comment.parent_id, User.display_name.label("author"),
           Comment.body_html, Comment.body_md, Comment.created_at)
    .join(User, User.id == Comment.user_id)
    .where(Comment.lesson_id == bindparam("lesson_id"), Comment.hidden.is_(False))
    .order_by(Comment.id)
)


def list_for_lesson(session: Session, lesson_id: str) -> list[dict[str, Any]]:
    """Top-level comments oldest first, each with `replies` (oldest first)."""
    rows = session.execute(_LESSON_COMMENTS, {"lesson_id": lesson_id}).all()
    views = {row.id: {**comment_view(row, row.author), "replies": []} for row in rows}
    top: list[dict[str, Any]] = []
    for row in rows:
        view = views[row.id]
        parent = views.get(row.parent_id) if row.parent_id else None
        (parent["replies"] if parent is not None else top).append(view)
    return top


def create(
    session: Session, user: User, lesson_id: str, body: str, parent_id: int | None,
    per_hour: int, known_lessons: set[str] | None = None,
) -> dict[str, Any]:
    body = body.strip()
    if not body:
        raise Invalid("The comment is empty.")
    if len(body) > MAX_COMMENT_CHARS:
        raise Invalid(f"A comment can be at most {MAX_COMMENT_CHARS} characters.")
    check_text(body, "comment")
    if known_lessons is not None and lesson_id not in known_lessons:
        raise NotFound(f"There is no lesson {lesson_id!r}.")
    ratelimit.check_comment_limit(session, user.id, per_hour)
    thread_id, replied_to_user = _thread(session, lesson_id, parent_id)
    comment = Comment(lesson_id=lesson_id, user_id=user.id, parent_id=thread_id,
                      body_md=body, body_html=render_comment(body))
    session.add(comment)
    session.flush()
    if replied_to_user is not None and replied_to_user != user.id:
        session.add(Notification(user_id=replied_to_user, kind="reply", lesson_id=lesson_id,
                                 comment_id=comment.id, actor_name=user.display_name))
        session.flush()
    return comment_view(comment, user.display_name)


def _thread(session: Session, lesson_id: str, parent_id: int | None) -> tuple[int | None, int | None]:
    """(the thread root a reply attaches to, the author being replied to).

    Threads are one level deep: a reply to a reply joins the root's thread, but
    it is the reply's author who gets notified."""
    if parent_id is None:
        return None, None
    parent = session.get(Comment, parent_id)
    if parent is None or parent.lesson_id != lesson_id or parent.hidden:
        raise NotFound(f"There is no comment {parent_id} on this lesson to reply to.")
    return (parent.parent_id or parent.id), parent.user_id


def notified_user_ids(session: Session, comment_id: int) -> list[int]:
    return list(session.scalars(select(Notification.user_id).where(Notification.comment_id == comment_id)))


def notifications(session: Session, user: User, unread_only: bool = False, limit: int = 50) -> list[dict[str, Any]]:
    query = select(Notification).where(Notification.user_id == user.id)
    if unread_only:
        query = query.where(Notification.read_at.is_(None))
    rows = session.scalars(query.order_by(Notification.id.desc()).limit(limit))
    return [
        {"id": n.id, "kind": n.kind, "lesson_id": n.lesson_id, "comment_id": n.comment_id,
         "actor": n.actor_name, "created_at": n.created_at.isoformat() + "Z", "read": n.read_at is not None}
        for n in rows
    ]


def unread_count(session: Session, user: User) -> int:
    return len(notifications(session, user, unread_only=True, limit=1000))


def mark_read(session: Session, user: User, ids: list[int] | None = None) -> int:
    """Mark the given notifications (or all) read; only the user's own."""
    query = update(Notification).where(Notification.user_id == user.id, Notification.read_at.is_(None))
    if ids is not None:
        query = query.where(Notification.id.in_(ids))
    return session.execute(query.values(read_at=utcnow())).rowcount
