"""Judge an exercise's own sources: the starter compiles and is not accepted, the
reference and every solutions/correct file are accepted, every solutions/wrong
file is not. Through the judge's public entry point (kernels.judge.Judge), on
the backend `auto` picks (the CPU emulator where there is no GPU)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.validate.report import Check, LessonReport, display

NOT_BUILT = ("compile_error", "rejected", "internal_error")
GPU_ONLY = "not supported by the emulator"


def _expectations(folder: Path) -> list[tuple[Path, str]]:
    found = [(folder / "starter.cu", "compiles_not_accepted"), (folder / "reference.cu", "accepted")]
    found += [(p, "accepted") for p in sorted((folder / "solutions" / "correct").glob("*.cu"))]
    found += [(p, "not_accepted") for p in sorted((folder / "solutions" / "wrong").glob("*.cu"))]
    return [(path, expect) for path, expect in found if path.is_file()]


def _status(expect: str, verdict: str) -> str:
    if expect == "accepted":
        return "pass" if verdict == "accepted" else "fail"
    if expect == "not_accepted":
        return "pass" if verdict not in ("accepted", "internal_error") else "fail"
    return "pass" if verdict != "accepted" and verdict not in NOT_BUILT else "fail"


def _why(path: Path, expect: str, verdict: str, message: str) -> str:
    if verdict == "internal_error":
        return f"the judge failed: {message}"
    if expect == "accepted":
        return f"must be accepted, got {verdict}: {message}"
    if expect == "not_accepted":
        return f"must not be accepted (the tests do not catch the bug {path.stem!r}): {message}"
    if verdict == "accepted":
        return "the starter is accepted as it is: the learner has nothing to do"
    return f"the starter must compile, got {verdict}: {message}"


def judge_exercise(judge: Any, exercise: Any, report: LessonReport) -> None:
    for path, expect in _expectations(Path(exercise.folder)):
        try:
            result = judge.run(path.read_text(encoding="utf-8"), exercise.id, bench=False)
        except Exception as exc:  # noqa: BLE001 - e.g. another lesson's malformed spec of the same name
            report.error(path, "verdict", f"could not be judged: {type(exc).__name__}: {exc}")
            continue
        verdict, message = str(result.get("verdict")), str(result.get("message", ""))
        if result.get("backend") == "emu" and verdict == "compile_error" and GPU_ONLY in message:
            report.checks.append(Check(display(path), expect, "skipped", verdict,
                                       "GPU-only source (the emulator refuses it): validate on a GPU"))
            continue
        status = _status(expect, verdict)
        report.checks.append(Check(display(path), expect, status, verdict, message))
        if status == "fail":
            report.error(path, "verdict", _why(path, expect, verdict, message))
