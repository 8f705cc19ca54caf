"""Put the checks together for one lesson folder or a whole lessons folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.authoring import content
from app.authoring.judging import judge_exercise
from app.authoring.outputs import check_outputs
from app.authoring.report import LessonReport, Report, display


class NoLessons(ValueError):
    """PATH holds no lesson.toml, neither itself nor one level down."""


def lesson_dirs(path: Path) -> list[Path]:
    """PATH is one lesson folder (has lesson.toml) or a folder of lesson folders."""
    if (path / "lesson.toml").is_file():
        return [path]
    found = sorted(p.parent for p in path.glob("*/lesson.toml"))
    if not found:
        raise NoLessons(f"{path}: no lesson.toml here or in its sub-folders")
    return found


def validate(path: Path, backend: str = "auto", judge: bool = True) -> Report:
    """Validate every lesson under `path`. `judge=False` skips the judged checks."""
    dirs = lesson_dirs(path)
    judge_obj = _open_judge(dirs[0].parent, backend) if judge else None
    report = Report(backend=getattr(judge_obj, "backend", None))
    try:
        for lesson_dir in dirs:
            report.lessons.append(validate_lesson(lesson_dir, judge_obj))
    finally:
        if judge_obj is not None:
            judge_obj.close()
    _duplicate_ids(report)
    _glossary(report, dirs[0].parent)
    return report


def _glossary(report: Report, lessons_root: Path) -> None:
    """A malformed glossary, or one naming a lesson that is not there, is the first lesson's error."""
    from app.content import LessonError
    from app.content.glossary import GLOSSARY_FILE, load_glossary

    if not report.lessons:
        return
    try:
        terms = load_glossary(lessons_root)
    except LessonError as exc:
        report.lessons[0].error(exc.path, exc.field, exc.message)
        return
    known = {lesson.id for lesson in report.lessons}
    for i, term in enumerate(terms):
        if len(report.lessons) > 1 and term.lesson not in known:
            report.lessons[0].error(lessons_root / GLOSSARY_FILE, f"terms[{i}].lesson", f"no lesson {term.lesson!r}")


def _open_judge(lessons_root: Path, backend: str) -> Any:
    from kernels.judge import Judge

    return Judge(lessons_root, backend=backend)


def validate_lesson(lesson_dir: Path, judge: Any | None) -> LessonReport:
    from kernels.spec import SpecError
    from kernels.spec_parse import load_spec

    report = LessonReport(path=display(lesson_dir))
    meta = content.check_meta(lesson_dir, report)
    content.check_texts(lesson_dir, report)
    content.check_figures(lesson_dir, report)
    if meta is None:
        return report
    content.unlisted_exercises(lesson_dir, meta["exercises"], report)
    for i, name in enumerate(meta["exercises"]):
        folder = lesson_dir / "exercises" / name
        if not folder.is_dir():
            report.error(lesson_dir / "lesson.toml", f"exercises[{i}]", f"no exercise folder {folder}")
            continue
        if not content.check_exercise_files(folder, report):
            continue
        try:
            exercise = load_spec(folder / "exercise.toml", lesson_dir)
        except SpecError as exc:
            report.error(exc.path, exc.field, exc.message)
            continue
        content.check_drift(folder, report)
        check_outputs(exercise, report)
        if judge is not None:
            judge_exercise(judge, exercise, report)
    return report


def _duplicate_ids(report: Report) -> None:
    seen: dict[str, str] = {}
    for lesson in report.lessons:
        if lesson.id is None:
            continue
        if lesson.id in seen:
            lesson.error(Path(lesson.path) / "lesson.toml", "id", f"{lesson.id!r} is also used by {seen[lesson.id]}")
        seen[lesson.id] = lesson.path
