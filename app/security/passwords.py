"""Password hashing with argon2 (pwdlib's recommended parameters), and the
strength rule for new passwords (issue #13): not blank, 8 to 1024 characters
(whitespace at the ends not counted), not one of the 1,000 most common
passwords (common_passwords.txt, case-insensitive), not the e-mail address."""

from __future__ import annotations

import functools
from pathlib import Path

from pwdlib import PasswordHash

from app.services.errors import Invalid

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024  # argon2 hashes anything; a megabyte "password" is only a cost
COMMON_PASSWORDS = Path(__file__).with_name("common_passwords.txt")


@functools.lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    lines = COMMON_PASSWORDS.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().lower() for line in lines if line.strip() and not line.startswith("# "))


def check_strength(password: str, email: str = "") -> None:
    """Raise Invalid (with a message code) for a password a new account may not use."""
    core = password.strip()
    if not core:
        raise Invalid("The password cannot be blank.", "password_blank")
    if len(core) < MIN_PASSWORD_LENGTH:
        raise Invalid(f"The password must be at least {MIN_PASSWORD_LENGTH} characters.",
                      "password_short", min=MIN_PASSWORD_LENGTH)
    if len(password) > MAX_PASSWORD_LENGTH:
        raise Invalid(f"The password can be at most {MAX_PASSWORD_LENGTH} characters.",
                      "password_long", max=MAX_PASSWORD_LENGTH)
    lowered = core.lower()
    if lowered in common_passwords() or (email and lowered in {email.lower(), email.split("@", 1)[0].lower()}):
        raise Invalid("This password is too common; choose another.", "password_common")


@functools.lru_cache(maxsize=1)
def _hasher() -> PasswordHash:
    return PasswordHash.recommended()


def hash_password(password: str) -> str:
    return _hasher().hash(password)


def verify_password(password: str, password_hash: str) -> bool:
    return _hasher().verify(password, password_hash)


# Verifying against this keeps a sign-in for an unknown e-mail as slow as a real one.
def dummy_verify(password: str) -> None:
    _hasher().verify(password, _dummy_hash())


@functools.lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return _hasher().hash("not-a-real-password")
