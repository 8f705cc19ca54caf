"""Every lesson shipped in lessons/ passes `kdojo lessons validate --no-judge`.

The judged half, the same rule (kernels/corpus.py), runs in tests/lessons/test_corpus.py
(emulator, and GPU where one is visible) and with `--backend cuda` on a
GPU; this is the fast half: specs, texts, stamps, and starters that have not
drifted from their references (a reference tuned without its starter failed
here first).
"""

from __future__ import annotations

from pathlib import Path

from app.authoring.run import validate

LESSONS = Path(__file__).resolve().parents[2] / "lessons"


def test_every_shipped_lesson_is_valid_without_judging():
    report = validate(LESSONS, judge=False)
    problems = [f"{lesson.path}: {problem}" for lesson in report.lessons for problem in lesson.problems]
    assert len(report.lessons) == len([p for p in LESSONS.iterdir() if (p / "lesson.toml").exists()])
    assert problems == []
