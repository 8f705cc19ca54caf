"""Load the lesson folders (docs/architecture.md, "A lesson folder") into a Catalog.

The catalog is loaded once at start-up (`app.state.catalog`) and is read-only
afterwards; rendered HTML is cached per text and language, so a page render is
a dictionary lookup plus a template.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.content.errors import LessonError
from app.content.languages import DEFAULT_LANGUAGE, LANGUAGES
from app.content.markdown import render_markdown
from kernels.spec import Exercise

LANGS = ("ko", "en")
DIFFICULTIES = ("easy", "medium", "hard")
STATUSES = ("draft", "published")


@dataclass(frozen=True)
class LessonText:
    title: str
    summary: str
    body_md: str


@dataclass(frozen=True)
class LanguageFiles:
    """One kernel language's files of an exercise: `starter<suffix>`, `reference<suffix>`
    and, where the language has its own, `instructions.<language>.<ko|en>.md` (empty:
    the exercise's shared instructions)."""

    starter: str
    reference: str
    instructions_md: dict[str, str]


@dataclass(frozen=True)
class ExerciseFiles:
    """What the lesson page shows of one exercise, read from its folder. `starter`,
    `reference` and `instructions_md` are CUDA's; `languages` has every language the
    exercise offers (`Exercise.languages`), CUDA included (#29)."""

    name: str
    instructions_md: dict[str, str]
    starter: str
    reference: str
    languages: dict[str, LanguageFiles] = field(default_factory=dict)

    def starter_for(self, language: str) -> str:
        return self.languages[language].starter if language in self.languages else self.starter

    def reference_for(self, language: str) -> str:
        return self.languages[language].reference if language in self.languages else self.reference

    def instructions_for(self, language: str, lang: str) -> str:
        """The language's own instructions in `lang` when it has them, else the shared ones."""
        own = self.languages[language].instructions_md.get(lang, "") if language in self.languages else ""
        return own or self.instructions_md[lang]


@dataclass(frozen=True)
class Lesson:
    id: str
    track: str
    order: int
    minutes: int
    tags: tuple[str, ...]
    difficulty: str
    xp: int
    prerequisites: tuple[str, ...]
    status: str
    dir: Path
    texts: dict[str, LessonText]
    exercises: tuple[Exercise, ...]  # the judge's exercises, in lesson.toml order
    exercise_files: tuple[ExerciseFiles, ...]

    def title(self, lang: str) -> str:
        return self.texts[lang].title

    def summary(self, lang: str) -> str:
        return self.texts[lang].summary

    def body_html(self, lang: str) -> str:
        return render_markdown(self.texts[lang].body_md, lang, f"/lessons/{self.id}/figures/", str(self.dir))

    @property
    def exercise_ids(self) -> tuple[str, ...]:
        return tuple(ex.id for ex in self.exercises)


@dataclass(frozen=True)
class Track:
    id: str
    lessons: tuple[Lesson, ...]


@dataclass
class Catalog:
    lessons_dir: Path
    tracks: list[Track] = field(default_factory=list)
    lessons: dict[str, Lesson] = field(default_factory=dict)  # in track, then lesson order
    skipped: list[Exception] = field(default_factory=list)  # lenient loading: what was left out, and why

    def lesson(self, lesson_id: str) -> Lesson | None:
        return self.lessons.get(lesson_id)

    @property
    def lessons_total(self) -> int:
        return len(self.lessons)

    @property
    def exercises(self) -> dict[str, Exercise]:
        return {ex.id: ex for lesson in self.lessons.values() for ex in lesson.exercises}

    def lesson_for_exercise(self, exercise_id: str) -> Lesson | None:
        for lesson in self.lessons.values():
            if exercise_id in lesson.exercise_ids:
                return lesson
        return None

    def track_of(self, lesson: Lesson) -> Track:
        return next(t for t in self.tracks if t.id == lesson.track)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LessonError(path, "(file)", "missing") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LessonError(path, "(syntax)", str(exc)) from None


def _field(path: Path, data: dict[str, Any], name: str, kind: type, default: Any = ...) -> Any:
    if name not in data:
        if default is ...:
            raise LessonError(path, name, "required field is missing")
        return default
    value = data[name]
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        raise LessonError(path, name, f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _str_list(path: Path, data: dict[str, Any], name: str) -> tuple[str, ...]:
    value = _field(path, data, name, list, [])
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise LessonError(path, f"{name}[{i}]", "expected a string")
    return tuple(value)


def split_front_matter(path: Path, text: str) -> tuple[dict[str, Any], str]:
    """`+++ toml +++ body` → (front matter, body)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "+++":
        raise LessonError(path, "front matter", "the file must start with a +++ line")
    for end in range(1, len(lines)):
        if lines[end].strip() == "+++":
            try:
                meta = tomllib.loads("".join(lines[1:end]))
            except tomllib.TOMLDecodeError as exc:
                raise LessonError(path, "front matter", str(exc)) from None
            return meta, "".join(lines[end + 1 :])
    raise LessonError(path, "front matter", "no closing +++ line")


def _load_text(path: Path) -> LessonText:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LessonError(path, "(file)", "missing") from None
    meta, body = split_front_matter(path, text)
    return LessonText(
        title=_field(path, meta, "title", str),
        summary=_field(path, meta, "summary", str, ""),
        body_md=body,
    )


def _read_optional(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _language_files(folder: Path, language: str) -> LanguageFiles:
    info = LANGUAGES[language]
    starter = folder / f"starter{info.suffix}"
    if not starter.is_file():
        raise LessonError(starter, "(file)", "missing")
    instructions = {lang: _read_optional(folder / f"{info.instructions_stem}.{lang}.md") for lang in LANGS}
    if language != DEFAULT_LANGUAGE and any(instructions.values()) and not all(instructions.values()):
        missing = next(lang for lang, text in instructions.items() if not text)
        raise LessonError(folder / f"{info.instructions_stem}.{missing}.md", "(file)",
                          "missing or empty while the other language has one")
    return LanguageFiles(starter.read_text(encoding="utf-8"), _read_optional(folder / f"reference{info.suffix}"),
                         instructions)


def _exercise_files(lesson_dir: Path, name: str, languages: tuple[str, ...] = (DEFAULT_LANGUAGE,)) -> ExerciseFiles:
    folder = lesson_dir / "exercises" / name
    instructions = {lang: _read_optional(folder / f"instructions.{lang}.md") for lang in LANGS}
    for lang, text in instructions.items():
        if not text:
            raise LessonError(folder / f"instructions.{lang}.md", "(file)", "missing or empty")
    by_language = {language: _language_files(folder, language) for language in languages if language in LANGUAGES}
    cuda = by_language[DEFAULT_LANGUAGE]
    return ExerciseFiles(name, instructions, cuda.starter, cuda.reference, by_language)


def _lesson_meta(toml_path: Path) -> dict[str, Any]:
    data = _read_toml(toml_path)
    meta = {
        "id": _field(toml_path, data, "id", str),
        "track": _field(toml_path, data, "track", str),
        "order": _field(toml_path, data, "order", int),
        "minutes": _field(toml_path, data, "minutes", int),
        "tags": _str_list(toml_path, data, "tags"),
        "difficulty": _field(toml_path, data, "difficulty", str),
        "xp": _field(toml_path, data, "xp", int),
        "prerequisites": _str_list(toml_path, data, "prerequisites"),
        "status": _field(toml_path, data, "status", str, "published"),
        "exercises": _str_list(toml_path, data, "exercises"),
    }
    if meta["difficulty"] not in DIFFICULTIES:
        raise LessonError(toml_path, "difficulty", f"must be one of {', '.join(DIFFICULTIES)}")
    if meta["status"] not in STATUSES:
        raise LessonError(toml_path, "status", f"must be one of {', '.join(STATUSES)}")
    if meta["order"] < 1 or meta["minutes"] < 1 or meta["xp"] < 0:
        field_name = "order" if meta["order"] < 1 else "minutes" if meta["minutes"] < 1 else "xp"
        raise LessonError(toml_path, field_name, "must be positive")
    return meta


def _exercise_objects(lesson_dir: Path, names: tuple[str, ...], judged: dict[str, Exercise]) -> tuple[Exercise, ...]:
    """The judge's Exercise objects for the folders lesson.toml lists, in its order."""
    found: list[Exercise] = []
    for i, name in enumerate(names):
        spec_path = lesson_dir / "exercises" / name / "exercise.toml"
        if not spec_path.is_file():
            raise LessonError(lesson_dir / "lesson.toml", f"exercises[{i}]", f"no exercise folder {name!r} ({spec_path} missing)")
        exercise_id = _read_toml(spec_path).get("id")
        if exercise_id not in judged:
            raise LessonError(spec_path, "id", f"exercise {exercise_id!r} was not loaded by the judge's catalog")
        found.append(judged[exercise_id])
    return tuple(found)


def _load_texts(lesson_dir: Path) -> dict[str, LessonText]:
    """ko and en; a language lesson.toml marks `[translation] missing = [...]` (and
    whose file is absent) shows the other language's text until it is written."""
    section = _read_toml(lesson_dir / "lesson.toml").get("translation")
    marked = section.get("missing", []) if isinstance(section, dict) else []
    present = [lang for lang in LANGS if not (lang in marked and not (lesson_dir / f"{lang}.md").is_file())]
    texts = {lang: _load_text(lesson_dir / f"{lang}.md") for lang in present or LANGS}
    return {lang: texts.get(lang) or texts[present[0]] for lang in LANGS}


def load_lesson(lesson_dir: Path, judged: dict[str, Exercise]) -> Lesson:
    """One lesson folder; `judged` is `kernels.exercises.load_exercises(...)`'s result."""
    meta = _lesson_meta(lesson_dir / "lesson.toml")
    texts = _load_texts(lesson_dir)
    exercises = _exercise_objects(lesson_dir, meta["exercises"], judged)
    return Lesson(
        id=meta["id"],
        track=meta["track"],
        order=meta["order"],
        minutes=meta["minutes"],
        tags=meta["tags"],
        difficulty=meta["difficulty"],
        xp=meta["xp"],
        prerequisites=meta["prerequisites"],
        status=meta["status"],
        dir=lesson_dir,
        texts=texts,
        exercises=exercises,
        exercise_files=tuple(_exercise_files(lesson_dir, name, ex.languages)
                             for name, ex in zip(meta["exercises"], exercises, strict=True)),
    )


def _check_links(lessons: list[Lesson]) -> None:
    ids: dict[str, Lesson] = {}
    for lesson in lessons:
        if lesson.id in ids:
            raise LessonError(lesson.dir / "lesson.toml", "id", f"{lesson.id!r} is also used by {ids[lesson.id].dir}")
        ids[lesson.id] = lesson
    for lesson in lessons:
        for i, prereq in enumerate(lesson.prerequisites):
            if prereq not in ids:
                raise LessonError(lesson.dir / "lesson.toml", f"prerequisites[{i}]", f"no lesson with id {prereq!r}")


def _without_broken_links(lessons: list[Lesson], skipped: list[Exception]) -> list[Lesson]:
    """Drop, one by one, a lesson whose id is taken or whose prerequisite is missing
    (a prerequisite may be missing because its own lesson was dropped)."""
    while True:
        try:
            _check_links(lessons)
        except LessonError as exc:
            skipped.append(exc)
            lessons = [lesson for lesson in lessons if lesson.dir / "lesson.toml" != exc.path]
            continue
        return lessons


def _lenient_lessons(root: Path) -> tuple[list[Lesson], list[Exception]]:
    from kernels.exercises import load_catalog as load_judged

    judged, spec_errors = load_judged(root)
    skipped: list[Exception] = list(spec_errors)
    lessons = []
    for path in sorted(root.glob("*/lesson.toml")):
        try:
            lessons.append(load_lesson(path.parent, judged))
        except LessonError as exc:
            skipped.append(exc)
    return _without_broken_links(lessons, skipped), skipped


def load_catalog(lessons_dir: Path | str, lenient: bool = False) -> Catalog:
    """Every `<lessons_dir>/*/lesson.toml`, grouped by track, ordered by `order`.

    Raises LessonError (file and field) for a malformed lesson (SpecError for a
    malformed exercise); `lenient` leaves such a lesson out instead and lists the
    error in `catalog.skipped` (a server starts with the rest, issue #25).
    """
    from kernels.exercises import load_exercises  # the judge owns the exercise spec

    root = Path(lessons_dir)
    if lenient:
        lessons, skipped = _lenient_lessons(root)
    else:
        judged = dict(load_exercises(root))
        lessons, skipped = [load_lesson(p.parent, judged) for p in sorted(root.glob("*/lesson.toml"))], []
        _check_links(lessons)
    catalog = Catalog(lessons_dir=root, skipped=skipped)
    track_ids = sorted({lesson.track for lesson in lessons}, key=lambda t: min(l.order for l in lessons if l.track == t))
    for track_id in track_ids:
        in_track = sorted((l for l in lessons if l.track == track_id), key=lambda l: (l.order, l.id))
        catalog.tracks.append(Track(track_id, tuple(in_track)))
        catalog.lessons.update((l.id, l) for l in in_track)
    return catalog
