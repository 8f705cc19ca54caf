"""Folder-level checks: duplicate lesson ids, listed exercises that are missing, and
exercise folders nobody lists."""

from __future__ import annotations

import shutil

from app.authoring import validate
from app.authoring.scaffold import create


def test_two_lessons_with_one_id(tmp_path):
    first = create(tmp_path, "twin")
    shutil.copytree(first, tmp_path / "02-twin-copy")
    report = validate(tmp_path, judge=False)
    assert not report.ok
    problems = [str(p) for lesson in report.lessons for p in lesson.problems]
    assert any("02-twin-copy/lesson.toml: id: 'twin' is also used by" in p for p in problems), problems


def test_a_listed_exercise_folder_that_is_missing(tmp_path):
    folder = create(tmp_path, "gone")
    shutil.rmtree(folder / "exercises" / "affine")
    (problem,) = [p for p in validate(folder, judge=False).lessons[0].problems if p.severity == "error"]
    assert problem.path.endswith("lesson.toml") and problem.field == "exercises[0]"


def test_an_unlisted_exercise_folder_is_a_warning(tmp_path):
    folder = create(tmp_path, "extra")
    shutil.copytree(folder / "exercises" / "affine", folder / "exercises" / "spare")
    report = validate(folder, judge=False)
    assert report.ok
    (warning,) = report.lessons[0].problems
    assert warning.severity == "warning" and "'spare' is not listed" in warning.message


def test_missing_exercise_files_are_named(tmp_path):
    folder = create(tmp_path, "bare")
    exercise = folder / "exercises" / "affine"
    (exercise / "reference.py").unlink()
    (exercise / "instructions.en.md").write_text("  \n")
    problems = {(p.path.rsplit("/", 1)[-1], p.field) for p in validate(folder, judge=False).lessons[0].problems}
    assert problems == {("reference.py", "(file)"), ("instructions.en.md", "(file)")}
