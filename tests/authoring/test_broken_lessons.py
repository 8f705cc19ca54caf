"""`kdojo lessons validate` catches each defect, one deliberately broken lesson per defect
(tests/fixtures/broken_lessons/), and names the file and the field.

Content defects are checked without the judge; the judged ones (under `judged/`)
run the real judge on the backend `auto` picks (the emulator without a GPU)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings import REPO_ROOT
from app.authoring import Report, validate

BROKEN = REPO_ROOT / "tests" / "fixtures" / "broken_lessons"

# defect folder -> (file the problem names, field, words the message must contain)
CONTENT_DEFECTS = {
    "lesson_toml_field_type": ("lesson.toml", "minutes", "expected int, got str"),
    "text_front_matter_missing": ("en.md", "front matter.summary", "required"),
    "translation_missing": ("en.md", "(file)", "missing"),
    "translation_stale": ("ko.md", "translation", "changed since the translation stamp"),
    "spec_invalid": ("exercises/affine/exercise.toml", "launch[0].grid", "unknown name 'M'"),
    "expected_output_zero": ("exercises/affine/exercise.toml", "tests[0] (n=1)", "is ~0"),
    "starter_drift": ("exercises/affine/starter.cu", "fill-in", "line 3: `n`"),
    "fill_in_unbalanced": ("exercises/affine/starter.cu", "fill-in", "never closed"),
    "no_wrong_solutions": ("exercises/affine/solutions/wrong", "(folder)", "no wrong solutions"),
}
JUDGED_DEFECTS = {
    "starter_accepted": ("exercises/affine/starter.cu", "verdict", "accepted as it is"),
    "starter_compile_error": ("exercises/affine/starter.cu", "verdict", "must compile, got compile_error"),
    "reference_not_accepted": ("exercises/affine/reference.cu", "verdict", "must be accepted, got wrong_answer"),
    "correct_not_accepted": ("exercises/affine/solutions/correct/off_by_one.cu", "verdict",
                             "must be accepted, got wrong_answer"),
    "wrong_accepted": ("exercises/affine/solutions/wrong/uses_fma.cu", "verdict", "do not catch the bug 'uses_fma'"),
}


@pytest.fixture(scope="module")
def content_report() -> Report:
    return validate(BROKEN, judge=False)


@pytest.fixture(scope="module")
def judged_report() -> Report:
    targets = pytest.importorskip("kernels.targets")
    if not targets.gpu_visible() and not targets.emu_available()[0]:
        pytest.skip("no judge backend can run here")
    return validate(BROKEN / "judged", backend="auto")


def _only_error(report: Report, folder: Path):  # noqa: ANN202
    lesson = next(lesson for lesson in report.lessons if Path(lesson.path).resolve() == folder.resolve())
    errors = [p for p in lesson.problems if p.severity == "error"]
    assert not lesson.ok
    assert len(errors) == 1, [str(p) for p in errors]  # each fixture breaks one thing only
    return errors[0]


def test_every_defect_folder_is_covered():
    folders = {p.name for p in BROKEN.iterdir() if p.is_dir() and p.name != "judged"}
    assert folders == set(CONTENT_DEFECTS)
    assert {p.name for p in (BROKEN / "judged").iterdir()} == set(JUDGED_DEFECTS)


@pytest.mark.parametrize("defect", sorted(CONTENT_DEFECTS))
def test_content_defect_is_reported_with_file_and_field(content_report: Report, defect: str):
    problem = _only_error(content_report, BROKEN / defect)
    file, field, words = CONTENT_DEFECTS[defect]
    assert Path(problem.path).resolve() == (BROKEN / defect / file).resolve()
    assert problem.field == field
    assert words in problem.message


@pytest.mark.parametrize("defect", sorted(JUDGED_DEFECTS))
def test_judged_defect_is_reported(judged_report: Report, defect: str):
    problem = _only_error(judged_report, BROKEN / "judged" / defect)
    file, field, words = JUDGED_DEFECTS[defect]
    assert Path(problem.path).resolve() == (BROKEN / "judged" / defect / file).resolve()
    assert problem.field == field
    assert words in problem.message


def test_judged_checks_record_every_source_and_its_verdict(judged_report: Report):
    lesson = next(l for l in judged_report.lessons if l.path.endswith("wrong_accepted"))
    by_file = {Path(c.path).name: c for c in lesson.checks}
    assert set(by_file) == {"starter.cu", "reference.cu", "forgets_the_offset.cu", "uses_fma.cu"}
    assert by_file["reference.cu"].verdict == "accepted" and by_file["reference.cu"].status == "pass"
    assert by_file["forgets_the_offset.cu"].verdict == "wrong_answer"
    assert by_file["uses_fma.cu"].status == "fail"
    assert judged_report.backend in ("emu", "cuda")
