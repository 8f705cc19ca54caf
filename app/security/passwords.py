"""Password hashing with argon2 (pwdlib's recommended parameters)."""

from __future__ import annotations

import functools

from pwdlib import PasswordHash

MIN_PASSWORD_LENGTH = 8


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
