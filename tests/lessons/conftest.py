"""Helpers for the lesson content checks (tests/lessons/).

Lessons are read straight from `lessons/` with the standard library (tomllib,
hashlib) so these checks judge the files themselves, independently of the
web app's loader; `reference.py` files are imported the way the judge does,
from their own path.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

@pytest.fixture(autouse=True)
def roomy_emulator_budget(monkeypatch):
    """The emulator's two budgets — 16 s for a whole submission (KDOJO_EMU_BUDGET_S) and 15 s
    for its test cases together (KDOJO_TESTS_BUDGET_S) — are the judge's to enforce and are
    tested in tests/security; these tests judge what the lesson files do. The flash-attention
    reference's five cases took 3 s of tests (8 s with the compile and the profile) on an idle
    2-core machine, and CI machines busier than that ran past each budget in turn (2026-11-27:
    `time_limit_exceeded` at 16 s, then at 15.1 s of tests), as tests/emu's and
    tests/realworld's GPU agreement tests had under 14 workers. (WMMA on the emulator is
    faster since: 0.2 s of tests, 2.7 s in all; a slow machine's margin stays.)"""
    from kernels.emu.target import BUDGET_ENV
    from kernels.judge import TESTS_BUDGET_ENV

    monkeypatch.setenv(BUDGET_ENV, "60")
    monkeypatch.setenv(TESTS_BUDGET_ENV, "60")


REPO_ROOT = Path(__file__).resolve().parents[2]
LESSONS_DIR = REPO_ROOT / "lessons"
LANGS = ("ko", "en")

_FRONT = re.compile(r"\A\+\+\+\n(?P<meta>.*?)\n\+\+\+\n(?P<body>.*)\Z", re.S)
_FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)


@dataclass(frozen=True)
class LessonText:
    path: Path
    meta: dict
    body: str

    @property
    def headings(self) -> list[int]:
        """Heading levels in order, outside code blocks (## → 2)."""
        body = _FENCE.sub("", self.body)
        return [len(m.group(1)) for m in re.finditer(r"^(#{1,6}) \S", body, re.M)]

    @property
    def code_blocks(self) -> list[tuple[str, str]]:
        """(info string, code) for every fenced block, in order."""
        return [(m.group(1).strip(), m.group(2)) for m in _FENCE.finditer(self.body)]

    @property
    def words(self) -> int:
        prose = _FENCE.sub("", self.body)
        return len(prose.split())


def lesson_dir(folder: str) -> Path:
    return LESSONS_DIR / folder


def read_lesson_toml(folder: str) -> dict:
    return tomllib.loads((lesson_dir(folder) / "lesson.toml").read_text(encoding="utf-8"))


def read_text(folder: str, lang: str) -> LessonText:
    path = lesson_dir(folder) / f"{lang}.md"
    match = _FRONT.match(path.read_text(encoding="utf-8"))
    if match is None:
        pytest.fail(f"{path}: expected +++ TOML front matter +++ at the top")
    return LessonText(path, tomllib.loads(match.group("meta")), match.group("body"))


def file_stamp(path: Path) -> str:
    """The translation stamp of a file: first 12 hex digits of sha256 of its bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def exercise_dir(folder: str, name: str) -> Path:
    return lesson_dir(folder) / "exercises" / name


def read_exercise_toml(folder: str, name: str) -> dict:
    return tomllib.loads((exercise_dir(folder, name) / "exercise.toml").read_text(encoding="utf-8"))


def read_cases(folder: str, name: str, section: str = "tests") -> list[dict]:
    """An exercise's cases of one section (`tests` or `benchmark`), as fresh dicts; a
    `sizes` list is one case per size of the spec's first dimension."""
    spec = read_exercise_toml(folder, name)
    table = spec[section]
    if "cases" in table:
        return [dict(case) for case in table["cases"]]
    return [{spec["dims"]["names"][0]: size} for size in table["sizes"]]


def load_reference(folder: str, name: str) -> ModuleType:
    """Import an exercise's reference.py from its path, as the judge does."""
    path = exercise_dir(folder, name) / "reference.py"
    spec = importlib.util.spec_from_file_location(f"lesson_ref_{folder}_{name}".replace("-", "_"), path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def kit():
    """The helpers above, for test modules (conftest modules are not importable
    by name: tests/conftest.py shares the name)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        LESSONS_DIR=LESSONS_DIR, LANGS=LANGS, lesson_dir=lesson_dir,
        read_lesson_toml=read_lesson_toml, read_text=read_text, file_stamp=file_stamp,
        exercise_dir=exercise_dir, read_exercise_toml=read_exercise_toml,
        cases=read_cases, load_reference=load_reference)
