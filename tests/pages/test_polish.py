"""Learner polish of issue #13 on the server side: error pages for browsers and
JSON for API clients, the truthful footer, the language switch keeping the
query, times labelled, plural forms, signed-in comment notes."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.templating import utc_time

from .conftest import page_settings, sign_up

BROWSER = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.mark.parametrize("path", ["/nonexistent", "/lessons/no-such-lesson", "/exercises/x/leaderboard"])
def test_a_browser_gets_an_html_404_in_its_language(client: TestClient, path: str) -> None:
    ko = client.get(path, headers=BROWSER)
    assert ko.status_code == 404 and ko.headers["content-type"].startswith("text/html")
    assert "<h1>페이지를 찾을 수 없습니다.</h1>" in ko.text
    en = client.get(path + "?lang=en", headers=BROWSER)
    assert "<h1>Page not found.</h1>" in en.text


def test_api_clients_keep_getting_json_errors(client: TestClient) -> None:
    for path in ("/nonexistent", "/api/nonexistent", "/api/submissions/999999"):
        response = client.get(path, headers={"accept": "application/json"})
        assert response.status_code in (401, 404) and response.headers["content-type"] == "application/json"
        assert "detail" in response.json()
    # a browser navigating into the API still gets JSON: it is the API
    assert client.get("/api/nonexistent", headers=BROWSER).headers["content-type"] == "application/json"


def test_admin_tokens_page_for_a_learner_is_an_html_403(client: TestClient) -> None:
    sign_up(client)
    page = client.get("/admin/tokens?lang=en", headers=BROWSER)
    assert page.status_code == 403 and page.headers["content-type"].startswith("text/html")
    assert "<h1>Access denied</h1>" in page.text and "You do not have access to this page." in page.text
    signed_out = TestClient(client.app).get("/admin/tokens", headers=BROWSER)
    assert signed_out.status_code == 401 and "로그인해야 볼 수 있습니다" in signed_out.text


def test_reference_before_a_pass_is_an_html_page_for_a_browser(client: TestClient) -> None:
    page = client.get("/exercises/fixture.add_one/reference?submission=1&lang=en", headers=BROWSER)
    assert page.status_code == 404 and "<h1>Page not found.</h1>" in page.text
    bare = client.get("/exercises/fixture.add_one/reference", headers=BROWSER)
    assert bare.headers["content-type"].startswith("text/html")


def test_the_footer_says_where_kernels_are_judged(tmp_path, settings) -> None:  # noqa: ANN001
    with TestClient(create_app(settings)) as emu_client:
        footer = emu_client.get("/?lang=en").text
    backend = create_app(settings).state.judge_backend[0]
    if backend == "emu":
        assert "judged on the CPU emulator" in footer and "real GPU" not in footer
    else:
        assert 'data-judge="none"' in footer and "real GPU" not in footer


def test_the_language_switch_keeps_the_query_string(client: TestClient) -> None:
    html = client.get("/signin?next=/lessons/add-one&lang=ko").text
    assert 'href="?lang=en&amp;next=%2Flessons%2Fadd-one"' in html
    assert 'href="?lang=ko&amp;next=%2Flessons%2Fadd-one"' in html
    plain = client.get("/").text
    assert 'href="?lang=en"' in plain


def test_times_are_labelled_utc_until_the_browser_localises_them() -> None:
    html = str(utc_time(dt.datetime(2026, 11, 24, 8, 30, 5)))
    assert html == '<time datetime="2026-11-24T08:30:05Z">2026-11-24 08:30 UTC</time>'
    aware = dt.datetime(2026, 11, 24, 17, 30, tzinfo=dt.timezone(dt.timedelta(hours=9)))
    assert str(utc_time(aware)).startswith('<time datetime="2026-11-24T08:30:00Z">')
    assert str(utc_time("2026-11-24T08:30:00")) .endswith("08:30 UTC</time>")


def test_catalog_counts_exercises_with_plural_forms(client: TestClient) -> None:
    english = client.get("/?lang=en").text
    counts = re.findall(r"<span>(\d+) (exercises?)</span>", english)
    assert counts and all((n == "1") == (word == "exercise") for n, word in counts)


def test_signed_in_readers_do_not_see_login_needed(client: TestClient) -> None:
    anonymous = client.get("/lessons/add-one?lang=en").text
    assert "Reply notifications (sign-in required)" in anonymous
    sign_up(client)
    signed_in = client.get("/lessons/add-one?lang=en").text
    assert "sign-in required" not in signed_in
    assert "You get a notification when someone replies to your comment." in signed_in
    assert 'data-count="0">0 comments</h2>' in signed_in


def test_api_docs_are_served_from_our_own_static_files(client: TestClient) -> None:
    html = client.get("/api/docs").text
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in html
    assert "/static/vendor/swagger-ui/swagger-ui.css" in html
    assert "cdn.jsdelivr.net" not in html and "unpkg.com" not in html
    assert not re.search(r"""(?:src|href)=["']https?://""", html)  # nothing from another site
    bundle = client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and "SwaggerUIBundle" in bundle.text[:2_000_000]


def test_a_stored_anonymous_page_keeps_no_readers_query(client: TestClient) -> None:
    """The anonymous lesson page is served to everyone: a query in one reader's link
    must not end up in the language switch of the others' (#13)."""
    first = client.get("/lessons/add-one?next=//evil.example&lang=en").text
    assert "evil.example" not in first
    other = TestClient(client.app).get("/lessons/add-one?lang=en").text
    assert "evil.example" not in other and 'href="?lang=ko"' in other
