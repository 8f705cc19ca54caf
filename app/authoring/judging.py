"""Judge an exercise's own sources against the verdict each must get — the one rule of
kernels/corpus.py, which the lesson tests apply too: the reference and every
solutions/correct file accepted, the starter compiled and wrong_answer, every
solutions/wrong file wrong_answer (or the verdict its `// VERDICT:` line promises).
Through the judge's public entry point (kernels.judge.Judge), on the backend `auto`
picks (the CPU emulator where there is no GPU)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.authoring.report import Check, LessonReport, display
from kernels import corpus
from kernels.spec import Exercise


def judge_exercise(judge: Any, exercise: Exercise, report: LessonReport) -> None:
    try:
        expected = corpus.expectations(Path(exercise.folder), exercise.languages)
    except corpus.CorpusError as exc:
        report.error(exc.path, "// VERDICT", exc.message)
        return
    for expectation in expected:
        path = expectation.path
        try:
            got = corpus.judge_source(judge, exercise.id, expectation)
        except Exception as exc:  # noqa: BLE001 - e.g. another lesson's malformed spec of the same name
            report.error(path, "verdict", f"could not be judged: {type(exc).__name__}: {exc}")
            continue
        if got.status == "gpu_only":
            report.checks.append(Check(display(path), expectation.verdict, "skipped", got.verdict,
                                       "GPU-only source (the emulator refuses it): validate on a GPU"))
            continue
        report.checks.append(Check(display(path), expectation.verdict, got.status, got.verdict, got.message))
        if got.status == "fail":
            report.error(path, "verdict", got.why)
