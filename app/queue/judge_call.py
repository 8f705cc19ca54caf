"""The one place the web hands a submission's kernel language to the judge (#29).

`kernels.judge.Judge.run(source, exercise_id, …, language="cuda")` and
`Judge.profile(…, language=…)` take the language once the judge has its language seam
(`kernels/languages/`). A judge without it judges CUDA only: asked for another
language it is not called, and the submission gets `internal_error` (the server
offered a language its judge cannot judge: our fault, never the learner's).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from app.content import DEFAULT_LANGUAGE


class LanguageNotJudged(RuntimeError):
    """This server's judge cannot judge the submission's language."""


def _takes_language(method: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return "language" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _call(method: Callable[..., Any], language: str, *args: Any, **kwargs: Any) -> Any:
    if _takes_language(method):
        return method(*args, language=language, **kwargs)
    if language != DEFAULT_LANGUAGE:
        raise LanguageNotJudged(f"this judge judges CUDA only, not {language!r}")
    return method(*args, **kwargs)


def run(judge: Any, source: str, exercise_id: str, language: str, **kwargs: Any) -> dict[str, Any]:
    """`judge.run(source, exercise_id, **kwargs)` in `language`: the v1 result document."""
    return _call(judge.run, language, source, exercise_id, **kwargs)


def profile(judge: Any, source: str, exercise_id: str, benchmark: Any, language: str) -> Any:
    """`judge.profile(source, exercise_id, benchmark)` in `language`: a profile or None."""
    return _call(judge.profile, language, source, exercise_id, benchmark)
