"""/glossary (#28): the lessons' terms in the reader's language, each linked to the
lesson that teaches it; the repository's own glossary and lessons, a real SQLite
database (Alembic), and a malformed glossary named by file and field."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content import LessonError
from app.content.glossary import load_glossary
from app.main import create_app
from tests.web.database import migrate

from .conftest import page_settings

REPO_LESSONS = Path(__file__).resolve().parents[2] / "lessons"
HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp_path = tmp_path_factory.mktemp("glossary")
    settings = page_settings(tmp_path, lessons_dir=REPO_LESSONS)
    migrate(settings.database_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _main(html: str) -> str:
    return html.split('<main', 1)[1].split("</main>", 1)[0]


def test_the_korean_glossary_gives_each_term_its_meaning_and_lesson(client) -> None:
    html = _main(client.get("/glossary?lang=ko").text)
    terms = load_glossary(REPO_LESSONS)
    assert "용어집" in html
    for term in terms:
        assert f'id="{term.id}"' in html and term.ko in html
    assert 'href="/lessons/shared-tiling"' in html and "뱅크 충돌" in html
    # the meanings are Korean: English only in code (a lesson's own title may hold an English word)
    meanings = " ".join(dd.split("<a ", 1)[0] for dd in re.findall(r"<dd>(.*?)</dd>", html, flags=re.S))
    prose = re.sub(r"<code>.*?</code>|<[^>]+>", " ", meanings, flags=re.S)
    english = re.findall(r"[A-Za-z]{4,}", prose)
    assert not english, english


def test_the_english_glossary_has_no_korean_but_the_bracketed_names(client) -> None:
    html = _main(client.get("/glossary?lang=en").text)
    assert "Glossary" in html and "bank conflict" in html
    outside = re.sub(r'<span class="glossary-other"[^>]*>.*?</span>', " ", html, flags=re.S)
    assert not HANGUL.search(outside)
    assert 'href="/glossary"' in client.get("/?lang=en").text  # reachable from every page's navigation


def test_a_malformed_glossary_names_its_file_and_field(tmp_path: Path) -> None:
    (tmp_path / "glossary.toml").write_text('[[terms]]\nid = "kernel"\nko = "커널"\nen = "kernel"\nlesson = "x"\n',
                                            encoding="utf-8")
    with pytest.raises(LessonError) as caught:
        load_glossary(tmp_path)
    assert str(caught.value).endswith("glossary.toml: terms[0].meaning: expected { ko = \"…\", en = \"…\" }")
    assert load_glossary(tmp_path / "nowhere") == []


def test_validate_reports_a_glossary_term_whose_lesson_is_missing(tmp_path: Path) -> None:
    import shutil

    from app.authoring.run import validate

    root = tmp_path / "lessons"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "lessons", root)
    (root / "glossary.toml").write_text(
        '[[terms]]\nid = "kernel"\nko = "커널"\nen = "kernel"\nlesson = "no-such-lesson"\n'
        'meaning = { ko = "함수", en = "a function" }\n', encoding="utf-8")
    report = validate(root, judge=False)
    problems = [(p.path, p.field) for lesson in report.lessons for p in lesson.problems if p.severity == "error"]
    assert any(path.endswith("glossary.toml") and field == "terms[0].lesson" for path, field in problems), problems
