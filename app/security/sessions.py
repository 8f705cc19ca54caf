"""Session tokens: the cookie carries a random token, the database only its SHA-256.

A stolen database does not hand out usable cookies. The rows themselves
(create, look up, revoke) live in app.services.sessions.
"""

from __future__ import annotations

import hashlib
import secrets

SESSION_COOKIE = "kdojo_session"


def new_token() -> str:
    """A fresh cookie token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What the database stores for a token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()
