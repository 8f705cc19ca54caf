"""The exercise finder: every `lessons/*/exercises/*/exercise.toml` under a lessons folder.

The default lessons folder is `$KDOJO_LESSONS_DIR`, else `<repo>/lessons`.
"""

from __future__ import annotations

from pathlib import Path

from kernels import settings
from kernels.spec import Exercise, SpecError
from kernels.spec_parse import load_spec

REPO_ROOT = Path(__file__).resolve().parent.parent


def default_lessons_dir() -> Path:
    env = settings.value("KDOJO_LESSONS_DIR")
    return Path(env) if env else REPO_ROOT / "lessons"


def spec_paths(lessons_dir: Path | str | None = None) -> list[Path]:
    """Every exercise spec under `lessons_dir`, in a stable order."""
    root = Path(lessons_dir) if lessons_dir is not None else default_lessons_dir()
    return sorted(root.glob("*/exercises/*/exercise.toml"))


def load_exercises(lessons_dir: Path | str | None = None) -> dict[str, Exercise]:
    """id → Exercise for every spec. Raises SpecError on the first malformed one
    (or on an id used twice)."""
    exercises: dict[str, Exercise] = {}
    for path in spec_paths(lessons_dir):
        lesson_dir = path.parent.parent.parent
        exercise = load_spec(path, lesson_dir)
        if exercise.id in exercises:
            other = exercises[exercise.id].spec_path
            raise SpecError(path, "id", f"{exercise.id!r} is already used by {other}")
        exercises[exercise.id] = exercise
    return exercises


def load_catalog(lessons_dir: Path | str | None = None) -> tuple[dict[str, Exercise], list[SpecError]]:
    """Like `load_exercises`, but keeps going: the valid exercises, and one
    SpecError per malformed spec (for listings that must not go dark)."""
    exercises: dict[str, Exercise] = {}
    errors: list[SpecError] = []
    for path in spec_paths(lessons_dir):
        try:
            exercise = load_spec(path, path.parent.parent.parent)
        except SpecError as exc:
            errors.append(exc)
            continue
        if exercise.id in exercises:
            errors.append(SpecError(path, "id", f"{exercise.id!r} is already used by "
                                                f"{exercises[exercise.id].spec_path}"))
            continue
        exercises[exercise.id] = exercise
    return exercises, errors


def find_exercise(exercise_id: str, lessons_dir: Path | str | None = None) -> Exercise:
    """The exercise with this id. Raises KeyError when there is none.

    Only specs whose folder name matches the id's last part are loaded, so one
    malformed exercise elsewhere does not stop judging this one.
    """
    name = exercise_id.rsplit(".", 1)[-1]
    for path in spec_paths(lessons_dir):
        if path.parent.name != name:
            continue
        exercise = load_spec(path, path.parent.parent.parent)
        if exercise.id == exercise_id:
            return exercise
    raise KeyError(exercise_id)
