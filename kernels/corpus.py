"""The lesson-corpus check: an exercise's own sources against the verdict each must get.

One rule, used by the tests (tests/lessons/test_corpus.py) and by `kdojo lessons
validate` (app/authoring/judging.py):

- `reference.cu` and every `solutions/correct/*.cu`: `accepted`;
- `starter.cu`: compiles, runs and gets `wrong_answer` (the learner has work to do,
  and the tools to see it);
- every `solutions/wrong/*.cu`: `wrong_answer`, unless the file promises another
  verdict in a line of its leading comment, `// VERDICT: runtime_error` (a fault, a
  race the emulator diagnoses, a time limit: what the judge must say for that bug).

The same for each further language the exercise offers, by the language's file suffix
(#29: Triton's `reference.triton.py`, `starter.triton.py`, `solutions/*/*.triton.py`,
whose promise is a `# VERDICT: …` comment line).

Whatever the file, `internal_error` is a failure (the judge's fault, never the
file's). On the emulator a file it refuses as needing a GPU (verdict `rejected`,
message code `needs_gpu`) is GPU-only: neither pass nor fail here, judged on a GPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernels import targets
from kernels.contract import VERDICTS

NOT_BUILT = ("compile_error", "rejected", "internal_error")
_PROMISE = re.compile(r"^(?://|#)\s*VERDICT:\s*([a-z_]+)\s*$")
# each language's file suffix and comment mark (kernels/languages/<name>.py `suffix`)
SUFFIXES = {"cuda": ".cu", "triton": ".triton.py"}
_COMMENT = {".cu": "//", ".triton.py": "#"}


class CorpusError(ValueError):
    """A wrong solution's `// VERDICT:` line names a verdict it may not promise."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path, self.message = path, message


@dataclass(frozen=True)
class Expectation:
    path: Path
    kind: str  # reference | starter | correct | wrong
    verdict: str  # the verdict it must get
    language: str = "cuda"


@dataclass(frozen=True)
class Outcome:
    status: str  # pass | fail | gpu_only
    verdict: str
    message: str
    why: str = ""  # for a failure: what is wrong, for the author


def promised_verdict(path: Path) -> str:
    """The verdict a wrong solution must get: `wrong_answer`, or what its leading
    comment's `// VERDICT: <verdict>` line says. Raises CorpusError for an unknown one."""
    mark = "#" if path.name.endswith(".py") else "//"
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith(mark):
            break
        match = _PROMISE.match(line.strip())
        if match:
            verdict = match.group(1)
            if verdict not in VERDICTS or verdict in ("accepted", "internal_error"):
                allowed = ", ".join(v for v in VERDICTS if v not in ("accepted", "internal_error"))
                raise CorpusError(path, f"`VERDICT: {verdict}`: a wrong solution promises one of {allowed}")
            return verdict
    return "wrong_answer"


def expectations(folder: Path, languages: tuple[str, ...] = ("cuda",)) -> list[Expectation]:
    """The sources of one exercise folder in each of `languages` (an exercise's
    `languages`), in the order they are judged. Raises CorpusError."""
    folder = Path(folder)
    found: list[Expectation] = []
    for language in languages:
        suffix = SUFFIXES[language]
        found += [Expectation(folder / f"reference{suffix}", "reference", "accepted", language),
                  Expectation(folder / f"starter{suffix}", "starter", "wrong_answer", language)]
        found += [Expectation(p, "correct", "accepted", language)
                  for p in sorted((folder / "solutions" / "correct").glob(f"*{suffix}"))
                  if _language_of(p) == language]
        found += [Expectation(p, "wrong", promised_verdict(p), language)
                  for p in sorted((folder / "solutions" / "wrong").glob(f"*{suffix}"))
                  if _language_of(p) == language]
    return [e for e in found if e.path.is_file()]


def _language_of(path: Path) -> str:
    """The language whose suffix the file name ends with (the longest that matches)."""
    return max((lang for lang, suffix in SUFFIXES.items() if path.name.endswith(suffix)),
               key=lambda lang: len(SUFFIXES[lang]))


def outcome(expectation: Expectation, result: dict[str, Any]) -> Outcome:
    """Whether the judge's result document is what `expectation` promises."""
    verdict, message = str(result.get("verdict")), str(result.get("message", ""))
    if verdict == "internal_error":
        return Outcome("fail", verdict, message, f"the judge failed: {message}")
    if not targets.timed(result.get("backend")) and verdict == "rejected" and result.get("message_code") == "needs_gpu":
        return Outcome("gpu_only", verdict, message)
    compiled = bool((result.get("compile") or {}).get("ok"))
    if verdict == expectation.verdict and (expectation.kind != "starter" or compiled):
        return Outcome("pass", verdict, message)
    return Outcome("fail", verdict, message, _why(expectation, verdict, message))


def _why(expectation: Expectation, verdict: str, message: str) -> str:
    kind, want = expectation.kind, expectation.verdict
    if kind in ("reference", "correct"):
        return f"must be accepted, got {verdict}: {message}"
    if kind == "starter":
        if verdict == "accepted":
            return "the starter is accepted as it is: the learner has nothing to do"
        if verdict in NOT_BUILT:
            return f"the starter must compile, got {verdict}: {message}"
        return f"the starter must run and get wrong_answer, got {verdict}: {message}"
    if verdict == "accepted":
        return f"must not be accepted (the tests do not catch the bug {expectation.path.stem!r}): {message}"
    mark = _COMMENT[SUFFIXES[expectation.language]]
    return (f"must get {want}, got {verdict}: {message} (a wrong solution gets wrong_answer unless "
            f"a `{mark} VERDICT: <verdict>` line of its leading comment promises another)")


def judge_source(judge: Any, exercise_id: str, expectation: Expectation) -> Outcome:
    """Judge one source through `judge` (a kernels.judge.Judge), without the benchmark."""
    result = judge.run(expectation.path.read_text(encoding="utf-8"), exercise_id, bench=False,
                       language=expectation.language)
    return outcome(expectation, result)
