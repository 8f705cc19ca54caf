"""Learner friction of #28 on the server-rendered pages: the sign-up page states the
password rule in the page's language; a lesson's status badge is for staff only."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.security.passwords import MIN_PASSWORD_LENGTH
from tests.pages.test_pages import _sign_in_as_instructor


def test_sign_up_states_the_password_rule_in_both_languages(client: TestClient) -> None:
    for lang, words in (("ko", f"비밀번호는 {MIN_PASSWORD_LENGTH}자 이상이어야 합니다"),
                        ("en", f"At least {MIN_PASSWORD_LENGTH} characters")):
        html = client.get(f"/signup?lang={lang}").text
        rule = re.search(r'<p class="note password-rule" id="password-rule">([^<]+)</p>', html)
        assert rule and words in rule.group(1), html
        field = re.search(r'<input type="password" name="password"[^>]*>', html).group(0)
        assert f'minlength="{MIN_PASSWORD_LENGTH}"' in field and 'aria-describedby="password-rule"' in field


def test_a_lessons_status_badge_is_shown_to_staff_only(client: TestClient, settings) -> None:  # noqa: ANN001
    html = client.get("/lessons/add-one").text
    assert "badge status-published" not in html and "badge status-" not in html.split('class="lesson-kicker"')[1][:600]
    _sign_in_as_instructor(client, settings)
    html = client.get("/lessons/add-one").text
    assert 'class="badge status-published"' in html
