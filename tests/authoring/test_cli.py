"""`kdojo lessons …` from the command line: exit codes, the JSON report, the scaffold,
and one-line usage errors (never a traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main as kdojo
from app.content import load_catalog
from app.settings import REPO_ROOT
from app.authoring import validate
from app.authoring.scaffold import create

BROKEN = REPO_ROOT / "tests" / "fixtures" / "broken_lessons"


def test_json_report_and_exit_1_on_a_broken_lesson(capsys):
    assert kdojo(["lessons", "validate", str(BROKEN / "spec_invalid"), "--json", "--no-judge"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["errors"] == 1
    (problem,) = report["lessons"][0]["problems"]
    assert problem["path"].endswith("spec_invalid/exercises/affine/exercise.toml")
    assert problem["field"] == "launch[0].grid" and problem["severity"] == "error"


def test_text_report_names_file_and_field(capsys):
    assert kdojo(["lessons", "validate", str(BROKEN / "lesson_toml_field_type"), "--no-judge"]) == 1
    out = capsys.readouterr().out
    assert "lesson_toml_field_type/lesson.toml: minutes: expected int, got str" in out
    assert "1 problem(s)" in out


@pytest.mark.parametrize(("argv", "words"), [
    (["lessons"], "choose a sub-command"),
    (["lessons", "validate", "/no/such/folder"], "no such folder"),
    (["lessons", "validate", "--backend", "gpu"], "invalid choice"),
    (["lessons", "new", "Not An Id"], "use lower-case letters"),
    (["lessons", "frobnicate"], "invalid choice"),
    (["users", "create-admin"], "--email"),
    (["tokens", "create", "--user", "a@example.com", "--scopes", "everything"], "unknown scope"),
    (["tokens", "revoke", "abc"], "invalid int value"),
])
def test_misuse_is_one_line_and_exit_2(capsys, argv, words):
    assert kdojo(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_validate_an_empty_folder_is_a_usage_error(capsys, tmp_path):
    assert kdojo(["lessons", "validate", str(tmp_path)]) == 2
    assert "no lesson.toml" in capsys.readouterr().err


def test_new_lesson_scaffold_loads_and_validates_as_it_is(tmp_path, capsys):
    assert kdojo(["lessons", "new", "tiny-kernels", "--dir", str(tmp_path)]) == 0
    folder = tmp_path / "01-tiny-kernels"
    assert str(folder) in capsys.readouterr().out
    for name in ("lesson.toml", "ko.md", "en.md", "exercises/affine/exercise.toml", "exercises/affine/reference.py",
                 "exercises/affine/starter.cu", "exercises/affine/reference.cu",
                 "exercises/affine/instructions.ko.md", "exercises/affine/instructions.en.md"):
        assert (folder / name).is_file(), name
    assert list((folder / "exercises/affine/solutions/correct").glob("*.cu"))
    assert list((folder / "exercises/affine/solutions/wrong").glob("*.cu"))
    lesson = load_catalog(tmp_path).lesson("tiny-kernels")  # the app's own loader accepts it
    assert lesson is not None and lesson.status == "draft" and lesson.exercise_ids == ("tiny-kernels.affine",)
    report = validate(folder, backend="auto")  # judged: starter, reference, correct, wrong
    assert report.ok, report.render()
    assert [p for p in report.lessons[0].problems] == []
    assert {c.status for c in report.lessons[0].checks} == {"pass"} and len(report.lessons[0].checks) == 5
    assert kdojo(["lessons", "new", "tiny-kernels", "--dir", str(tmp_path)]) == 2  # exists already


def test_a_second_scaffold_takes_the_next_order(tmp_path):
    first = create(tmp_path, "one")
    second = create(tmp_path, "two")
    assert (first.name, second.name) == ("01-one", "02-two")
    assert validate(tmp_path, judge=False).ok


def test_the_picked_order_skips_orders_another_track_holds(tmp_path, capsys):
    create(tmp_path, "first")                       # foundations 1
    create(tmp_path, "second", "memory", None)      # memory 2
    create(tmp_path, "third", "memory", None)       # memory 3
    assert kdojo(["lessons", "new", "fourth", "--dir", str(tmp_path)]) == 0  # foundations: 2 is taken
    assert str(tmp_path / "04-fourth") in capsys.readouterr().out
    assert 'order = 4' in (tmp_path / "04-fourth" / "lesson.toml").read_text()
    catalog = load_catalog(tmp_path)
    assert [lesson.id for lesson in catalog.tracks[0].lessons] == ["first", "fourth"]
    assert validate(tmp_path, judge=False).ok


def test_an_explicit_order_is_taken_or_refused_in_one_line(tmp_path, capsys):
    create(tmp_path, "first")
    assert kdojo(["lessons", "new", "later", "--dir", str(tmp_path), "--order", "10"]) == 0
    assert (tmp_path / "10-later").is_dir()
    capsys.readouterr()
    assert kdojo(["lessons", "new", "clash", "--dir", str(tmp_path), "--order", "1", "--track", "other"]) == 2
    err = capsys.readouterr().err
    assert "order 1 is taken by 01-first" in err and err.count("\n") == 1
    assert not list(tmp_path.glob("*-clash"))
    assert kdojo(["lessons", "new", "zero", "--dir", str(tmp_path), "--order", "0"]) == 2
    assert "must be 1 or more" in capsys.readouterr().err


def test_a_language_marked_missing_is_a_warning_and_the_app_shows_the_other(tmp_path):
    folder = create(tmp_path, "half")
    (folder / "en.md").unlink()
    toml = folder / "lesson.toml"
    toml.write_text(toml.read_text().replace("[translation]\n", '[translation]\nmissing = ["en"]\n'))
    report = validate(folder, judge=False)
    assert report.ok
    (warning,) = report.lessons[0].problems
    assert warning.severity == "warning" and warning.path.endswith("en.md")
    lesson = load_catalog(tmp_path).lesson("half")
    assert lesson.texts["en"] == lesson.texts["ko"]


def test_stamp_then_validate_passes_after_revising_both_texts(tmp_path):
    folder = create(tmp_path, "stamped")
    for lang in ("ko", "en"):
        (folder / f"{lang}.md").write_text((folder / f"{lang}.md").read_text() + "\nMore.\n")
    assert not validate(folder, judge=False).ok
    assert kdojo(["lessons", "stamp", str(folder)]) == 0
    assert validate(folder, judge=False).ok


def test_the_console_script_runs_without_the_web_stack_traceback(tmp_path):
    out = subprocess.run([sys.executable, "-m", "app.cli", "lessons", "validate", str(tmp_path)],
                         capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_real_lessons_content_is_valid():
    """Every real lesson, without the judge (fast): front matter, texts, stamps, specs,
    non-trivial expected outputs, drift where the starter marks fill-in regions."""
    report = validate(REPO_ROOT / "lessons", judge=False)
    assert report.ok, report.render()


def test_a_real_lesson_validates_on_the_judge():
    """One real lesson end to end on the judge (the whole folder takes minutes on the emulator)."""
    report = validate(REPO_ROOT / "lessons" / "01-elementwise", backend="auto")
    assert report.ok, report.render()
    checks = report.lessons[0].checks
    saxpy = REPO_ROOT / "lessons/01-elementwise/exercises/saxpy"
    # a reference and a starter per language, and every solution in either (#29: CUDA and Triton)
    assert len(checks) == 2 * 2 + len(list((saxpy / "solutions").glob("*/*.cu"))) \
        + len(list((saxpy / "solutions").glob("*/*.triton.py")))
    assert all(c.status == "pass" for c in checks)
