"""Lesson authoring: `kdojo lessons validate` (everything an instructor can get wrong in a
lesson folder, reported as `file: field: message`, with the verdicts of the exercise's own
sources) and `kdojo lessons new` (`scaffold.py`: a new lesson folder that validates as it is).

    report = validate(Path("lessons/02-reduction"), backend="auto")
    report.ok, report.to_dict(), report.render()
"""

from __future__ import annotations

from app.authoring.report import Check, LessonReport, Problem, Report
from app.authoring.run import lesson_dirs, validate

__all__ = ["Check", "LessonReport", "Problem", "Report", "lesson_dirs", "validate"]
