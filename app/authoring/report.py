"""What `kdojo lessons validate` found: problems (file, field, message) and judged checks."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


def display(path: Path | str) -> str:
    """Relative to the working directory when under it (as the author typed it)."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Problem:
    path: str
    field: str
    message: str
    severity: str = "error"  # error (exit 1) | warning (reported, exit 0)

    def __str__(self) -> str:
        where = f"{self.path}: {self.field}" if self.field else self.path
        label = "warning: " if self.severity == "warning" else ""
        return f"{label}{where}: {self.message}"


@dataclass(frozen=True)
class Check:
    """One source judged: what it must get, what it got."""

    path: str
    expect: str  # the verdict the source must get (kernels/corpus.py)
    status: str  # pass | fail | skipped
    verdict: str | None
    message: str


@dataclass
class LessonReport:
    path: str
    id: str | None = None
    problems: list[Problem] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)

    def error(self, path: Path | str, field_: str, message: str) -> None:
        self.problems.append(Problem(display(path), field_, message))

    def warn(self, path: Path | str, field_: str, message: str) -> None:
        self.problems.append(Problem(display(path), field_, message, "warning"))

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "id": self.id, "ok": self.ok,
                "problems": [asdict(p) for p in self.problems],
                "checks": [asdict(c) for c in self.checks]}


@dataclass
class Report:
    backend: str | None
    lessons: list[LessonReport] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.lessons) and all(lesson.ok for lesson in self.lessons)

    @property
    def errors(self) -> int:
        return sum(p.severity == "error" for lesson in self.lessons for p in lesson.problems)

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "ok": self.ok, "backend": self.backend, "errors": self.errors,
                "lessons": [lesson.to_dict() for lesson in self.lessons]}

    def render(self) -> str:
        lines = []
        for lesson in self.lessons:
            passed = sum(c.status == "pass" for c in lesson.checks)
            skipped = sum(c.status == "skipped" for c in lesson.checks)
            state = "ok" if lesson.ok else "FAILED"
            extra = f", {skipped} skipped" if skipped else ""
            judged = f"{passed}/{len(lesson.checks)} judged checks passed{extra}" if lesson.checks else "nothing judged"
            lines.append(f"{lesson.path}: {state} ({judged})")
            lines += [f"  {p}" for p in lesson.problems]
            lines += [f"  skipped: {c.path}: {c.message}" for c in lesson.checks if c.status == "skipped"]
        how = f"checked on {self.backend}" if self.backend else "checked without judging (--no-judge)"
        summary = "all lessons valid" if self.ok else f"{self.errors} problem(s)"
        lines.append(f"{len(self.lessons)} lesson(s) {how}: {summary}")
        return "\n".join(lines)
