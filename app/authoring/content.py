"""The checks that need no judge: lesson.toml, the two texts and their translation
stamp, each exercise folder's files and spec, starter drift, trivial expected outputs."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from app.content.catalog import LANGS, _lesson_meta, split_front_matter  # the loader's own rules
from app.content.errors import LessonError
from app.content.figures import FIGURE_NAME_RE, FIGURES_DIR, figure_name, figure_path, figure_problem
from app.content.markdown import images
from app.content.translation import check as translation_check
from app.authoring import drift
from app.authoring.report import LessonReport


def marked_missing(lesson_dir: Path) -> set[str]:
    """Languages lesson.toml declares not written yet: `[translation] missing = ["en"]`."""
    try:
        data = tomllib.loads((lesson_dir / "lesson.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return set()
    section = data.get("translation")
    value = section.get("missing", []) if isinstance(section, dict) else []
    return {lang for lang in value if lang in LANGS} if isinstance(value, list) else set()


def check_meta(lesson_dir: Path, report: LessonReport) -> dict[str, Any] | None:
    """lesson.toml: every field present and typed (the app loader's rules)."""
    try:
        meta = _lesson_meta(lesson_dir / "lesson.toml")
    except LessonError as exc:
        report.error(exc.path, exc.field, exc.message)
        return None
    report.id = meta["id"]
    missing = marked_missing(lesson_dir)
    if missing >= set(LANGS):
        report.error(lesson_dir / "lesson.toml", "translation.missing", "at least one language must be written")
    return meta


def check_texts(lesson_dir: Path, report: LessonReport) -> None:
    """ko.md and en.md: present (or marked missing), front matter typed, translations in step."""
    missing = marked_missing(lesson_dir)
    for lang in LANGS:
        path = lesson_dir / f"{lang}.md"
        if not path.is_file():
            if lang in missing:
                report.warn(path, "(file)", "marked missing in lesson.toml: readers of this language "
                                            "see the other language's text")
            else:
                report.error(path, "(file)", f"missing; write it, or mark it `[translation] missing = [\"{lang}\"]` "
                                             "in lesson.toml")
            continue
        if lang in missing:
            report.warn(lesson_dir / "lesson.toml", "translation.missing",
                        f"{lang}.md exists but is marked missing: remove {lang!r} from the list and re-stamp")
        _check_front_matter(path, report)
    if not missing and all((lesson_dir / f"{lang}.md").is_file() for lang in LANGS):
        for message in translation_check(lesson_dir):
            path, _, rest = message.partition(": ")
            field, _, text = rest.partition(": ") if rest.startswith("translation") else ("translation", "", rest)
            report.error(path, field, text or rest)


def _check_front_matter(path: Path, report: LessonReport) -> None:
    try:
        meta, body = split_front_matter(path, path.read_text(encoding="utf-8"))
    except LessonError as exc:
        report.error(exc.path, exc.field, exc.message)
        return
    except UnicodeDecodeError:
        report.error(path, "(file)", "not UTF-8 text")
        return
    for name in ("title", "summary"):
        value = meta.get(name)
        if not isinstance(value, str) or not value.strip():
            report.error(path, f"front matter.{name}", "required: a non-empty string")
    if not body.strip():
        report.error(path, "(body)", "the lesson text is empty")


def check_exercise_files(folder: Path, report: LessonReport) -> bool:
    """The files every exercise folder needs; False when judging it makes no sense."""
    ok = True
    for name in ("exercise.toml", "reference.py", "starter.cu", "reference.cu"):
        if not (folder / name).is_file():
            report.error(folder / name, "(file)", "missing")
            ok = False
    for lang in LANGS:
        path = folder / f"instructions.{lang}.md"
        if not path.is_file() or not path.read_text(encoding="utf-8").strip():
            report.error(path, "(file)", "missing or empty")
    if not sorted((folder / "solutions" / "wrong").glob("*.cu")):
        report.error(folder / "solutions" / "wrong", "(folder)",
                     "no wrong solutions: add at least one (file name = the bug) that the tests must catch")
    return ok


def check_drift(folder: Path, report: LessonReport) -> None:
    starter, reference = folder / "starter.cu", folder / "reference.cu"
    if not (starter.is_file() and reference.is_file()):
        return
    text = starter.read_text(encoding="utf-8")
    if not any(marker in text for marker in ("BEGIN FILL-IN", "END FILL-IN", "// FILL-IN")):
        report.warn(starter, "fill-in", "no `// BEGIN FILL-IN` … `// END FILL-IN` region: drift from "
                                        "reference.cu is not checked (docs/authoring.md)")
        return
    try:
        problem = drift.drift(text, reference.read_text(encoding="utf-8"))
    except drift.MarkerError as exc:
        report.error(starter, "fill-in", str(exc))
        return
    if problem:
        report.error(starter, "fill-in", problem)


def unlisted_exercises(lesson_dir: Path, listed: tuple[str, ...], report: LessonReport) -> None:
    for spec in sorted((lesson_dir / "exercises").glob("*/exercise.toml")):
        if spec.parent.name not in listed:
            report.warn(lesson_dir / "lesson.toml", "exercises",
                        f"folder {spec.parent.name!r} is not listed: learners never see it")


def check_figures(lesson_dir: Path, report: LessonReport) -> None:
    """Every file in figures/ is one the server will serve (named, typed, no script),
    and every image a text places is one of them, with an alt text (issue #28)."""
    folder = lesson_dir / FIGURES_DIR
    files = sorted(p for p in folder.iterdir()) if folder.is_dir() else []
    for path in files:
        if not FIGURE_NAME_RE.fullmatch(path.name) or not path.is_file():
            report.error(path, "(file)", "not served: a figure is a .svg or .png file named in "
                                         "lower-case letters, digits, '-' and '_'")
        elif (problem := figure_problem(path.name, path.read_bytes())) is not None:
            report.error(path, "(file)", f"refused: {problem}")
    placed: set[str] = set()
    for lang in LANGS:
        text = lesson_dir / f"{lang}.md"
        if not text.is_file():
            continue
        for src, alt in images(text.read_text(encoding="utf-8")):
            name = figure_name(src)
            if name is None or figure_path(lesson_dir, name) is None:
                report.error(text, "image", f"{src!r}: an image must be a file of this lesson's figures/ "
                                            "folder, written `figures/name.svg`")
                continue
            placed.add(name)
            if not alt.strip():
                report.error(text, "image", f"{src!r} has no alt text: write what it shows in {lang}")
    for path in files:
        if path.name not in placed and FIGURE_NAME_RE.fullmatch(path.name):
            report.warn(path, "(file)", "no text places this figure: learners never see it")
