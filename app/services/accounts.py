"""Sign-up and sign-in."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import delete, func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.models import AuthAttempt, User
from app.security import passwords
from app.services import ratelimit
from app.services.errors import Conflict, Invalid, Unauthorized
from app.services.text import check_name

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def normalize_email(email: str) -> str:
    return email.strip().lower()


@dataclass(frozen=True)
class NewAccount:
    email: str
    display_name: str
    password_hash: str


def prepare_signup(email: str, password: str, display_name: str) -> NewAccount:
    """Check the fields and hash the password, touching no database: argon2's
    tenth of a second must not be spent holding SQLite's write lock (issue #13:
    50 concurrent sign-ups waited on each other's hashing until "database is locked")."""
    email = normalize_email(email)
    display_name = display_name.strip() or email.split("@", 1)[0]
    if not EMAIL_RE.match(email) or len(email) > 320:
        raise Invalid("Please enter a valid e-mail address.", "invalid_email")
    passwords.check_strength(password, email)
    if len(display_name) > 64:
        raise Invalid("The display name can be at most 64 characters.", "display_name_long", max=64)
    check_name(display_name)
    return NewAccount(email, display_name, passwords.hash_password(password))


def create_account(session: Session, new: NewAccount) -> User:
    if session.scalar(select(func.count()).select_from(User).where(User.email == new.email)):
        raise _taken()
    user = User(email=new.email, display_name=new.display_name, password_hash=new.password_hash,
                role="learner", disabled=False)
    session.add(user)
    try:
        session.flush()
    except IntegrityError:  # PostgreSQL: the same e-mail signed up at the same moment
        raise _taken() from None
    return user


def _taken() -> Conflict:
    return Conflict("An account with this e-mail already exists; sign in instead.", "email_taken")


def signup(session: Session, email: str, password: str, display_name: str) -> User:
    return create_account(session, prepare_signup(email, password, display_name))


def begin_signin(session: Session, email: str, client_ip: str, per_15min: int,
                 per_account: int = 0) -> tuple[User | None, int]:
    """Check the limits and count this attempt as failed until the password is
    proven (`finish_signin` removes it), in one short write transaction, so
    parallel guesses cannot all pass the limit at once. Returns the account (or
    None) and the attempt's id."""
    if session.get_bind().dialect.name == "postgresql":  # SQLite: the write lock already serializes
        session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"),
                        {"key": f"kdojo-signin:{email}"})
    ratelimit.check_signin_limit(session, client_ip, email, per_15min, per_account)
    attempt = ratelimit.record_failed_signin(session, client_ip, email)
    user = session.scalar(select(User).where(User.email == email))
    return user, attempt


def password_matches(user: User | None, password: str) -> bool:
    """argon2, outside any transaction; an unknown e-mail takes as long as a known one."""
    if user is None:
        passwords.dummy_verify(password)
        return False
    return passwords.verify_password(password, user.password_hash) and not user.disabled


def finish_signin(session: Session, attempt: int) -> None:
    session.execute(delete(AuthAttempt).where(AuthAttempt.id == attempt))


def authenticate(session: Session, email: str, password: str, client_ip: str, per_15min: int,
                 per_account: int = 0) -> User:
    """All of a sign-in in one session (commands, tests); the web route splits it."""
    email = normalize_email(email)[:320]
    user, attempt = begin_signin(session, email, client_ip, per_15min, per_account)
    if not password_matches(user, password):
        raise signin_failed()
    finish_signin(session, attempt)
    assert user is not None
    return user


def signin_failed() -> Unauthorized:
    return Unauthorized("The e-mail or password is wrong.", "signin_failed")
