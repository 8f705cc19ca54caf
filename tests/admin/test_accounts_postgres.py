"""Invite codes and reset links on PostgreSQL under parallel requests (issue
#25): a code for N sign-ups makes exactly N accounts, a reset link is used
once. Uses the scale-out fixtures (tests/web/test_scaleout.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import httpx
import pytest
from sqlalchemy import func, select

from app.db import transaction
from app.main import create_app
from app.models import User
from app.services import account_recovery, admin_audit, invites
from tests.web.live_server import browser, csrf_header, live_server
from tests.web.test_scaleout import pg_url, scaleout_settings  # noqa: F401 - fixtures

pytestmark = pytest.mark.scaleout

PARALLEL = 12


def _all_at_once(base: str, post: Callable[[int, httpx.Client], httpx.Response]) -> list[int]:
    clients = [browser(base) for _ in range(PARALLEL)]
    barrier = threading.Barrier(PARALLEL)
    statuses: list[int] = []

    def run(index: int, client: httpx.Client) -> None:
        barrier.wait(timeout=60)
        statuses.append(post(index, client).status_code)

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for c in clients:
        c.close()
    return statuses


def test_a_code_for_three_makes_three_accounts_under_parallel_sign_ups(scaleout_settings):  # noqa: F811
    settings = scaleout_settings.model_copy(update={"signup": "invite", "signin_attempts_per_15min": 100})
    app = create_app(settings)
    try:
        with transaction(app.state.sessionmaker) as session:
            code, _ = invites.create(session, admin_audit.CLI, uses=3)
        with live_server(app) as base:
            statuses = _all_at_once(base, lambda i, c: c.post("/auth/signup", headers=csrf_header(c), json={
                "email": f"racer{i}@example.com", "password": "correct horse", "invite_code": code}))
        assert sorted(statuses) == [200] * 3 + [403] * (PARALLEL - 3)
        with transaction(app.state.sessionmaker, write=False) as session:
            assert session.scalar(select(func.count()).select_from(User)) == 3
    finally:
        app.state.engine.dispose()


def test_a_reset_link_is_used_once_under_parallel_posts(scaleout_settings):  # noqa: F811
    app = create_app(scaleout_settings.model_copy(update={"signin_attempts_per_15min": 100}))
    try:
        with transaction(app.state.sessionmaker) as session:
            user = User(email="ada@example.com", display_name="Ada", password_hash="x", role="learner")
            session.add(user)
            session.flush()
            token, _ = account_recovery.create_reset(session, admin_audit.CLI, user)
        with live_server(app) as base:
            statuses = _all_at_once(base, lambda i, c: c.post("/auth/reset-password", headers=csrf_header(c), json={
                "token": token, "new_password": f"new passphrase {i}", "new_password_again": f"new passphrase {i}"}))
        assert sorted(statuses) == [200] + [422] * (PARALLEL - 1)
    finally:
        app.state.engine.dispose()
