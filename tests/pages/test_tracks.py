"""Tracks on the home page (issue #14): each track with its reader's progress, the
learner bar counting the catalogue's lessons, prerequisites that link across
tracks, and "track complete" awarded once. A real SQLite database (Alembic), a
small two-track lessons folder built per test, and the repository's own lessons."""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content import load_catalog
from app.main import create_app
from tests.web.database import migrate

from .conftest import FIXTURE_LESSONS, page_settings, sign_up

REPO_LESSONS = Path(__file__).resolve().parents[2] / "lessons"

TEXT = """+++
title = "{title}"
summary = "{summary}"
+++

## {heading}

{body}
"""


def _reading_lesson(root: Path) -> None:
    """A published lesson of a second track, without exercises (complete once read),
    whose prerequisite is in the first track."""
    folder = root / "03-memory-reading"
    folder.mkdir()
    (folder / "ko.md").write_text(TEXT.format(title="메모리 읽기", summary="메모리를 읽는 방법입니다.",
                                              heading="읽기", body="warp가 메모리를 읽는 방식을 다룹니다."),
                                  encoding="utf-8")
    (folder / "en.md").write_text(TEXT.format(title="Reading memory", summary="How memory is read.",
                                              heading="Reading", body="How a warp reads memory."),
                                  encoding="utf-8")
    stamps = {lang: hashlib.sha256((folder / f"{lang}.md").read_bytes()).hexdigest()[:12] for lang in ("ko", "en")}
    (folder / "lesson.toml").write_text(
        'id = "memory-reading"\ntrack = "memory-patterns"\norder = 3\nminutes = 4\ntags = ["memory"]\n'
        'difficulty = "easy"\nxp = 10\nprerequisites = ["add-one"]\nstatus = "published"\nexercises = []\n\n'
        f'[translation]\nko = "{stamps["ko"]}"\nen = "{stamps["en"]}"\n', encoding="utf-8")


@pytest.fixture
def two_tracks(tmp_path: Path) -> Path:
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS, root)
    _reading_lesson(root)
    return root


def _client(tmp_path: Path, lessons_dir: Path) -> Iterator[TestClient]:
    settings = page_settings(tmp_path, lessons_dir=lessons_dir)
    migrate(settings.database_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def client(tmp_path: Path, two_tracks: Path) -> Iterator[TestClient]:
    yield from _client(tmp_path, two_tracks)


def _tracks(html: str) -> list[tuple[str, str, str]]:
    """(track id, its title, its progress line) in page order."""
    return re.findall(r'<h2 id="track-([\w-]+)">([^<]+)</h2>\s*<p class="track-progress" data-track-id="\1">\s*'
                      r'<span class="track-progress-text">([^<]+)</span>', html)


def _bar_lessons(html: str) -> str:
    return re.search(r'<span id="bar-lessons">([^<]+)</span>', html).group(1)


def _merge_read(client: TestClient, lesson_id: str) -> dict:
    token = client.cookies.get("kdojo_csrf")
    response = client.post("/api/progress/merge", json={"lesson_ids": [lesson_id]}, headers={"X-CSRF-Token": token})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(("lang", "titles", "progress", "bar"), [
    ("ko", ["기초: 스레드에서 텐서 코어까지", "메모리와 병렬 패턴"], "완료한 레슨: 0 / 1", "0/2 레슨"),
    ("en", ["Foundations: from threads to tensor cores", "Memory and parallel patterns"],
     "Lessons done: 0 / 1", "0/2 lessons"),
])
def test_home_page_shows_each_track_with_its_progress(client, lang, titles, progress, bar) -> None:
    html = client.get(f"/?lang={lang}").text
    tracks = _tracks(html)
    assert [t[0] for t in tracks] == ["foundations", "memory-patterns"]  # in lesson order
    assert [t[1] for t in tracks] == titles
    assert [t[2] for t in tracks] == [progress, progress]  # the draft is not counted for learners
    assert html.count('<progress class="track-meter" max="1" value="0"') == 2
    assert _bar_lessons(html) == bar


def test_a_finished_track_shows_as_done_and_is_awarded_once(client) -> None:
    sign_up(client)
    first = _merge_read(client, "memory-reading")
    assert "track_complete" in first["achievements"]  # the track's one lesson, read
    html = client.get("/?lang=en").text
    assert [t[2] for t in _tracks(html)] == ["Lessons done: 0 / 1", "Lessons done: 1 / 1"]
    assert '<progress class="track-meter" max="1" value="1"' in html
    assert _bar_lessons(html) == "1/2 lessons"
    again = _merge_read(client, "memory-reading")  # idempotent: nothing new the second time
    assert again["achievements"] == [] and again["xp_gained"] == 0
    ids = client.get("/api/me/progress").json()["achievement_ids"]
    assert ids.count("track_complete") == 1


def test_the_learner_bar_counts_the_catalogues_published_lessons(tmp_path, two_tracks) -> None:
    extra = two_tracks / "04-more-memory"
    shutil.copytree(two_tracks / "03-memory-reading", extra)
    toml = (extra / "lesson.toml").read_text(encoding="utf-8")
    (extra / "lesson.toml").write_text(toml.replace('"memory-reading"', '"more-memory"').replace("order = 3", "order = 4"),
                                       encoding="utf-8")
    published = [lesson for lesson in load_catalog(two_tracks).lessons.values() if lesson.status == "published"]
    assert len(published) == 3
    for test_client in _client(tmp_path, two_tracks):
        html = test_client.get("/?lang=en").text
        assert _bar_lessons(html) == "0/3 lessons"
        assert [t[2] for t in _tracks(html)] == ["Lessons done: 0 / 1", "Lessons done: 0 / 2"]


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", '<a href="/lessons/add-one" data-lesson-id="add-one">Add one — one element per thread</a> '
           '<span class="prereq-track">(Foundations: from threads to tensor cores)</span>'),
    ("ko", '<a href="/lessons/add-one" data-lesson-id="add-one">하나 더하기 — 스레드 하나에 원소 하나</a> '
           '<span class="prereq-track">(기초: 스레드에서 텐서 코어까지)</span>'),
])
def test_a_prerequisite_in_another_track_links_there_by_title_and_names_its_track(client, lang, expected) -> None:
    html = client.get(f"/lessons/memory-reading?lang={lang}").text
    assert expected in html
    # numbered across tracks like its catalogue card; the hidden draft (lesson 2) leaves a gap
    assert {"en": "Lesson 03 of 03", "ko": "레슨 03 / 03"}[lang] in html
    add_one = client.get(f"/lessons/add-one?lang={lang}").text
    assert 'class="prereq"' not in add_one  # no prerequisites, no line


def test_the_repositorys_second_track_follows_the_first_and_starts_from_elementwise(tmp_path) -> None:
    for test_client in _client(tmp_path, REPO_LESSONS):
        html = test_client.get("/?lang=en").text
        ids = [t[0] for t in _tracks(html)]
        assert ids[:2] == ["foundations", "memory-patterns"]
        memory = html[html.index('id="track-memory-patterns"'):]
        cards = re.findall(r'data-lesson-id="([\w-]+)"', memory)
        assert cards[:2] == ["coalescing", "shared-tiling"]
        lesson = test_client.get("/lessons/coalescing?lang=en").text
        assert '<span class="lesson-position">Lesson 06 of ' in lesson and "Lesson 06</span>" in html
        # 06 builds on lesson 1's grid-stride loop (#28: prerequisites are what a text builds on)
        assert ('<a href="/lessons/elementwise" data-lesson-id="elementwise">Threads, blocks and elementwise kernels</a> '
                '<span class="prereq-track">(Foundations: from threads to tensor cores)</span>') in lesson
        tiling = test_client.get("/lessons/shared-tiling?lang=ko").text
        assert 'data-lesson-id="coalescing">Coalescing과 벡터 load — 워프가 메모리에 닿는 방식</a>' in tiling
        assert "prereq-track" not in tiling  # same track: no track name
