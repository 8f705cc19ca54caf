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


def test_an_emulator_server_says_which_achievements_need_a_gpu(client: TestClient) -> None:
    from app.achievements import ACHIEVEMENTS
    from tests.pages.conftest import sign_up

    gpu_only = [a.id for a in ACHIEVEMENTS if a.gpu_only]
    assert sorted(gpu_only) == ["beat_framework", "roofline_80"]
    sign_up(client)
    assert client.app.state.judge_backend[0] == "emu"
    for lang, note, tag in (("ko", "업적 2개는 GPU에서 잰 시간이 있어야", "GPU 서버에서만"),
                            ("en", "2 achievements need GPU timings", "GPU server only")):
        html = client.get(f"/me?lang={lang}").text
        assert note in html
        for item in re.findall(r'<li class="achievement [a-z]+" data-achievement="([a-z_0-9]+)">(.*?)</li>', html, re.S):
            assert (tag in item[1]) == (item[0] in gpu_only), item
    client.app.state.judge_backend = ("cuda", "NVIDIA H200")  # a GPU server: nothing to say
    html = client.get("/me?lang=en").text
    assert "need GPU timings" not in html and "GPU server only" not in html


def test_me_shows_each_submissions_code_and_what_changed(client: TestClient) -> None:
    from sqlalchemy import select

    from app.db import transaction
    from app.models import Submission, User
    from tests.pages.conftest import sign_up
    from tests.web.conftest import store_verdict, v1_result

    sign_up(client)
    app = client.app
    with app.state.sessionmaker() as session:
        user_id = session.scalar(select(User.id).where(User.email == "learner@example.com"))
    first = store_verdict(app, user_id, v1_result("wrong_answer"))
    second = store_verdict(app, user_id, v1_result("accepted"))
    with transaction(app.state.sessionmaker) as session:
        session.get(Submission, first).source = "out[i] = in[i] + 2.0f; // <b>"
        session.get(Submission, second).source = "out[i] = in[i] + 1.0f; // <b>"
    html = client.get("/me?lang=ko").text
    assert "<th>코드</th>" in html
    boxes = dict(re.findall(r'<details class="attempt-code" data-submission="(\d+)">(.*?)</details>', html, re.S))
    assert set(boxes) == {str(first), str(second)}
    assert "+ 1.0f; // &lt;b&gt;" in boxes[str(second)] and "<b>" not in boxes[str(second)]  # escaped
    assert '<span class="diff-del">-out[i] = in[i] + 2.0f; // &lt;b&gt;</span>' in boxes[str(second)]
    assert '<span class="diff-add">+out[i] = in[i] + 1.0f; // &lt;b&gt;</span>' in boxes[str(second)]
    assert "이전 제출과 달라진 점" in boxes[str(second)] and "이전 제출과 달라진 점" not in boxes[str(first)]


def test_korean_lessons_name_their_code_tabs_in_korean() -> None:
    """A tab's label is the learner's to read (#28): in a Korean text, Korean words or
    names of languages, libraries and types (CUDA, PyTorch, float4, …), no English."""
    from pathlib import Path

    names = {"CUDA", "PyTorch", "CuPy", "float", "float4", "WMMA", "FP32", "tanh", "erf", "Mojo", "Metal", "Triton"}
    labels = []
    for path in sorted((Path(__file__).resolve().parents[2] / "lessons").glob("*/ko.md")):
        for match in re.finditer(r'^```\S*[^\n]*?\btab=("[^"\n]*"|[^\n]*)$', path.read_text(), re.M):
            labels.append((path.parent.name, match.group(1).strip('"')))
    assert len(labels) > 20
    english = [(lesson, label) for lesson, label in labels
               if any(word not in names for word in re.findall(r"[A-Za-z][A-Za-z0-9]{3,}", label))]
    assert english == []
