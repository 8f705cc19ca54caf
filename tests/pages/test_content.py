"""The lesson catalog loader and the translation stamps, on real lesson folders in tmp dirs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.content import LessonError, load_catalog
from app.content import translation

from .conftest import FIXTURE_LESSONS


@pytest.fixture
def lessons(tmp_path: Path) -> Path:
    root = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS, root)
    return root


def test_fixture_catalog_loads_in_order(lessons: Path) -> None:
    catalog = load_catalog(lessons)
    assert [t.id for t in catalog.tracks] == ["foundations"]
    assert list(catalog.lessons) == ["add-one", "next-steps"]
    lesson = catalog.lesson("add-one")
    assert (lesson.track, lesson.order, lesson.minutes, lesson.xp) == ("foundations", 1, 5, 40)
    assert lesson.tags == ("elementwise", "indexing") and lesson.difficulty == "easy"
    assert lesson.title("ko").startswith("하나 더하기") and lesson.title("en").startswith("Add one")
    assert lesson.exercise_ids == ("fixture.add_one",)
    assert lesson.exercises[0].xp == 50  # the judge's Exercise object
    assert "TODO" in lesson.exercise_files[0].starter
    assert catalog.lesson_for_exercise("fixture.add_one") is lesson
    assert catalog.lesson("next-steps").prerequisites == ("add-one",)
    assert catalog.lesson("nope") is None


def test_rendered_body_is_cached(lessons: Path) -> None:
    lesson = load_catalog(lessons).lesson("add-one")
    assert lesson.body_html("en") is lesson.body_html("en")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('minutes = 5', 'minutes = "five"', "minutes"),
        ('difficulty = "easy"', 'difficulty = "trivial"', "difficulty"),
        ('status = "published"', 'status = "live"', "status"),
        ('order = 1\n', '', "order"),
        ('tags = ["elementwise", "indexing"]', 'tags = ["elementwise", 3]', "tags[1]"),
        ('exercises = ["add_one"]', 'exercises = ["add_two"]', "exercises[0]"),
    ],
)
def test_malformed_lesson_toml_names_file_and_field(lessons: Path, old: str, new: str, field: str) -> None:
    toml = lessons / "01-add-one" / "lesson.toml"
    _edit(toml, old, new)
    with pytest.raises(LessonError) as err:
        load_catalog(lessons)
    assert err.value.path == toml and err.value.field == field
    assert str(err.value).startswith(f"{toml}: {field}: ")


def test_broken_toml_syntax_names_the_file(lessons: Path) -> None:
    toml = lessons / "01-add-one" / "lesson.toml"
    toml.write_text(toml.read_text() + "\nthis is = = not toml\n")
    with pytest.raises(LessonError, match=r"01-add-one/lesson.toml: \(syntax\)"):
        load_catalog(lessons)


def test_missing_front_matter_title_names_the_file(lessons: Path) -> None:
    md = lessons / "01-add-one" / "en.md"
    _edit(md, 'title = "Add one — one element per thread"\n', "")
    with pytest.raises(LessonError) as err:
        load_catalog(lessons)
    assert (err.value.path, err.value.field) == (md, "title")


def test_text_without_front_matter_is_refused(lessons: Path) -> None:
    md = lessons / "01-add-one" / "ko.md"
    md.write_text("# no front matter\n")
    with pytest.raises(LessonError, match="front matter: the file must start with a \\+\\+\\+ line"):
        load_catalog(lessons)


def test_missing_language_file_and_instructions_are_named(lessons: Path) -> None:
    (lessons / "01-add-one" / "exercises" / "add_one" / "instructions.en.md").unlink()
    with pytest.raises(LessonError, match="instructions.en.md: \\(file\\): missing"):
        load_catalog(lessons)
    shutil.rmtree(lessons / "01-add-one")
    (lessons / "02-next-steps" / "en.md").unlink()
    with pytest.raises(LessonError, match="02-next-steps/en.md: \\(file\\): missing"):
        load_catalog(lessons)


def test_unknown_prerequisite_and_duplicate_id(lessons: Path) -> None:
    _edit(lessons / "02-next-steps" / "lesson.toml", 'prerequisites = ["add-one"]', 'prerequisites = ["nothing"]')
    with pytest.raises(LessonError, match=r"prerequisites\[0\]: no lesson with id 'nothing'"):
        load_catalog(lessons)
    _edit(lessons / "02-next-steps" / "lesson.toml", 'id = "next-steps"', 'id = "add-one"')
    with pytest.raises(LessonError, match="id: 'add-one' is also used by"):
        load_catalog(lessons)


def test_translation_stamp_current_after_stamp(lessons: Path) -> None:
    lesson = lessons / "01-add-one"
    assert translation.check(lesson) == []
    hashes = translation.stamp(lesson)
    assert set(hashes) == {"ko", "en"} and all(len(h) == 12 for h in hashes.values())
    assert translation.check(lesson) == []
    load_catalog(lessons)  # stamping kept lesson.toml valid


def test_one_language_changed_is_reported(lessons: Path) -> None:
    lesson = lessons / "01-add-one"
    (lesson / "ko.md").write_text((lesson / "ko.md").read_text() + "\n새 문단.\n")
    problems = translation.check(lesson)
    assert len(problems) == 1
    assert "ko.md: changed since the translation stamp but en.md did not" in problems[0]
    (lesson / "en.md").write_text((lesson / "en.md").read_text() + "\nNew paragraph.\n")
    assert "both texts changed" in translation.check(lesson)[0]
    translation.stamp(lesson)
    assert translation.check(lesson) == []


def test_missing_stamp_is_reported_and_stamp_adds_it(lessons: Path) -> None:
    lesson = lessons / "01-add-one"
    toml = lesson / "lesson.toml"
    text = toml.read_text()
    toml.write_text(text[: text.index("[translation]")])
    assert "no [translation] stamp" in translation.check(lesson)[0]
    translation.stamp(lesson)
    assert translation.check(lesson) == []
    assert toml.read_text().count("[translation]") == 1


def test_stamp_replaces_only_its_section(lessons: Path) -> None:
    lesson = lessons / "01-add-one"
    toml = lesson / "lesson.toml"
    toml.write_text(toml.read_text() + '\n[extra]\nnote = "kept"\n')
    translation.stamp(lesson)
    text = toml.read_text()
    assert 'note = "kept"' in text and text.count("[translation]") == 1
