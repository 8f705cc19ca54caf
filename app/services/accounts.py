"""Sign-up and sign-in."""

from __future__ import annotations

import re

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.models import User
from app.security import passwords, ratelimit
from app.services.errors import Conflict, Invalid, Unauthorized

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def normalize_email(email: str) -> str:
    return email.strip().lower()


def signup(session: Session, email: str, password: str, display_name: str) -> User:
    email = normalize_email(email)
    display_name = display_name.strip() or email.split("@", 1)[0]
    if not EMAIL_RE.match(email) or len(email) > 320:
        raise Invalid("Please enter a valid e-mail address.", "invalid_email")
    passwords.check_strength(password, email)
    if len(display_name) > 64:
        raise Invalid("The display name can be at most 64 characters.", "display_name_long", max=64)
    if session.scalar(select(func.count()).select_from(User).where(User.email == email)):
        raise Conflict("An account with this e-mail already exists; sign in instead.", "email_taken")
    user = User(email=email, display_name=display_name,
                password_hash=passwords.hash_password(password), role="learner", disabled=False)
    session.add(user)
    session.flush()
    return user


def authenticate(session: Session, email: str, password: str, client_ip: str, per_15min: int,
                 per_account: int = 0) -> User:
    email = normalize_email(email)[:320]
    ratelimit.check_signin_limit(session, client_ip, email, per_15min, per_account)
    user = session.scalar(select(User).where(User.email == email))
    if user is None:
        passwords.dummy_verify(password)
    if user is None or not passwords.verify_password(password, user.password_hash) or user.disabled:
        ratelimit.record_failed_signin(session, client_ip, email)
        raise Unauthorized("The e-mail or password is wrong.", "signin_failed")
    return user
