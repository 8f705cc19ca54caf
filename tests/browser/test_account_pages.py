"""Issue #25 in a real Chromium, in Korean and English: changing a password,
redeeming an admin's one-time reset link, and sign-up by invitation or closed.
The Korean pages hold no English words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import main as kdojo

from .conftest import FIXTURE_LESSONS, serving

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"
NEW = "a brand new passphrase"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A server taking sign-ups by invitation; its database is reachable by `kdojo users …` here."""
    tmp = tmp_path_factory.mktemp("accounts")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KDOJO_SIGNUP", "invite")
        with serving(FIXTURE_LESSONS, tmp, "--no-worker") as base_url:
            env.setenv("KDOJO_DATABASE_URL", f"sqlite:///{tmp / 'kdojo.sqlite3'}")
            env.setenv("KDOJO_LESSONS_DIR", str(FIXTURE_LESSONS))
            yield base_url, tmp


@pytest.fixture
def page(browser, site):  # noqa: ANN001, ANN201 - this module's server, not the shared one
    context = browser.new_context(base_url=site[0], viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    yield pg
    context.close()


def _cli(capsys: pytest.CaptureFixture, *argv: str) -> list[str]:
    capsys.readouterr()
    assert kdojo(list(argv)) == 0
    return capsys.readouterr().out.splitlines()


def _no_english(text: str) -> None:
    words = re.findall(r"[A-Za-z]{3,}", text.replace("Kernel Dojo", ""))
    assert words == [], words


def _sign_up_with_invite(page, capsys, lang: str, email: str) -> None:  # noqa: ANN001
    code = _cli(capsys, "users", "invite")[1]
    page.goto(f"/signup?lang={lang}")
    card = page.locator(".auth-card")
    if lang == "ko":
        assert "초대 코드" in card.inner_text()
        _no_english(card.inner_text())
    else:
        assert "by invitation" in card.inner_text()
    page.fill("input[name=invite_code]", "wrong-code")
    page.fill("input[name=display_name]", "Ada")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.click(".auth-form button[type=submit]")
    error = page.locator(".form-error").inner_text()
    assert ("초대 코드가 맞지 않습니다" if lang == "ko" else "invite code is not valid") in error
    page.fill("input[name=invite_code]", code)
    page.fill("input[name=display_name]", "Ada")
    page.fill("input[name=password]", PASSWORD)
    page.click(".auth-form button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_sign_up_by_invitation_then_change_the_password(page, capsys, lang: str) -> None:
    email = f"change-{lang}@example.com"
    _sign_up_with_invite(page, capsys, lang, email)
    page.goto(f"/me?lang={lang}")
    page.click("a[href='/account/password']")
    card = page.locator(".auth-card")
    assert ("비밀번호 바꾸기" if lang == "ko" else "Change your password") in card.inner_text()
    if lang == "ko":
        _no_english(card.inner_text())
    page.fill("input[name=current_password]", PASSWORD)
    page.fill("input[name=new_password]", NEW)
    page.fill("input[name=new_password_again]", NEW + "!")
    page.click(".auth-form button[type=submit]")
    assert ("두 칸이 서로 다릅니다" if lang == "ko" else "two new passwords differ") in page.locator(".form-error").inner_text()
    page.fill("input[name=current_password]", PASSWORD)
    page.fill("input[name=new_password]", NEW)
    page.fill("input[name=new_password_again]", NEW)
    page.click(".auth-form button[type=submit]")
    notice = page.locator(".form-notice").inner_text()
    assert ("비밀번호를 바꿨습니다" if lang == "ko" else "Your password is changed") in notice
    page.goto("/me")
    assert page.locator("a[href='/account/password']").count() == 1  # still signed in here


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_reset_link_from_an_admin_sets_a_new_password(page, capsys, site, lang: str) -> None:
    email = f"reset-{lang}@example.com"
    _sign_up_with_invite(page, capsys, lang, email)
    page.context.clear_cookies()
    link = _cli(capsys, "users", "reset-password", "--email", email, "--base-url", site[0])[1]
    page.goto(f"{link}&lang={lang}")
    card = page.locator(".auth-card")
    assert ("새 비밀번호 정하기" if lang == "ko" else "Choose a new password") in card.inner_text()
    if lang == "ko":
        _no_english(card.inner_text())
    page.fill("input[name=new_password]", NEW)
    page.fill("input[name=new_password_again]", NEW)
    page.click(".auth-form button[type=submit]")
    page.wait_for_url(re.compile(r"/signin\?notice=password_reset"))
    notice = page.locator(".form-notice").inner_text()
    assert ("새 비밀번호를 저장했습니다" if lang == "ko" else "Your new password is saved") in notice
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", NEW)
    page.click(".auth-form button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))
    page.goto(f"{link}&lang={lang}")  # used once: the page says so, with no form
    dead = page.locator(".reset-dead").inner_text()
    assert ("더 쓸 수 없습니다" if lang == "ko" else "cannot be used any more") in dead
    assert page.locator("input[name=new_password]").count() == 0
    if lang == "ko":
        _no_english(page.locator(".auth-card").inner_text())


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_closed_sign_up_says_so_in_the_readers_language(browser, tmp_path, monkeypatch, lang: str) -> None:
    monkeypatch.setenv("KDOJO_SIGNUP", "closed")
    with serving(FIXTURE_LESSONS, tmp_path, "--no-worker") as base_url:
        context = browser.new_context(base_url=base_url)
        page = context.new_page()
        page.goto(f"/signup?lang={lang}")
        text = page.locator(".signup-closed").inner_text()
        assert ("새 가입을 받지 않습니다" if lang == "ko" else "not taking new sign-ups") in text
        assert page.locator("form[action='/auth/signup']").count() == 0
        if lang == "ko":
            _no_english(page.locator(".auth-card").inner_text())
        context.close()
