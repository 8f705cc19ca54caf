"""The language registry: "cuda" (CUDA C, NVRTC) and "triton" (Triton's Python DSL).

A language is one module here exposing

    name          "cuda" | "triton"
    title         what the learner reads ("CUDA C++", "Triton")
    suffix        a submission file's suffix (".cu", ".triton.py")
    editor_mode   the editor's mode on the lesson page ("cuda", "python")
    compile(source, exercise, target_name, arch) -> kernels.compile.CompileResult
                  the source policy and the compile, once per submission; the result
                  goes to the target's build as is (never compiled again)
    launches(exercise, compiled, env) -> list[Launch]
                  one case's launches (`env`: the case's dims, params and constants)
    tolerance(exercise) -> (rtol, atol)
                  the checks' tolerances for this language
    profiled_on   the targets (kernels.targets.CONCRETE names) whose profiler (#16) reads
                  this language's attempts: ask `profiled(name, target)`
    profiled      True when every target's does (the answer for callers that name no
                  target; `profiled(name, target)` is the one to ask)
    cpu_time_scale
                  how much longer than a CUDA attempt its cases may run on a target that
                  does not time (the CPU): Triton's interpreter runs the learner's Python

Adding a language: one module here, a section in exercise.toml (kernels/spec.py), an
editor mode on the page, and — where its binary is not a CUBIN the `cuda` target loads
or a program the `emu` target builds — a loader on each target (docs/architecture.md,
"Adding a language").
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType
from typing import Any

NAMES = ("cuda", "triton")
_SUFFIXES = {".triton.py": "triton", ".cu": "cuda"}  # the longest suffix first


class UnknownLanguage(ValueError):
    """No language has this name (one-line message)."""


class LanguageUnavailable(RuntimeError):
    """The language is known but cannot judge here (its compiler or runner is not
    installed): the verdict is `rejected` with message code `language_unavailable`."""


def get(name: str) -> ModuleType:
    """The language module `name`. Raises UnknownLanguage."""
    if name not in NAMES:
        raise UnknownLanguage(f"unknown language {name!r} (choose {', '.join(NAMES)})")
    return importlib.import_module(f"kernels.languages.{name}")


def time_scale(language: str, timed: bool) -> float:
    """How much longer than the exercise's limits an attempt in `language` may run: its
    `cpu_time_scale` on a target that does not time (the CPU), else 1."""
    return 1.0 if timed else float(get(language).cpu_time_scale)


def judged_exercise(exercise: Any, language: str, timed: bool) -> Any:
    """`exercise` as judged in `language` on a target that times (`timed`) or not: on
    the CPU its run limits scaled by `time_scale`."""
    scale = time_scale(language, timed)
    if scale == 1.0:
        return exercise
    limits = dataclasses.replace(exercise.limits, run_s=exercise.limits.run_s * scale)
    return dataclasses.replace(exercise, limits=limits)


def profiled(language: str, target: str | None) -> bool:
    """Whether an accepted attempt in `language` on the target `target` gets a profile:
    the language declares the targets (`profiled_on`). Raises UnknownLanguage."""
    return target in get(language).profiled_on


def from_filename(filename: str, default: str = "cuda") -> str:
    """The language a file's name says (`saxpy.triton.py` → "triton"), else `default`."""
    for suffix, name in _SUFFIXES.items():
        if filename.endswith(suffix):
            return name
    return default


def part(module: str) -> ModuleType:
    """Import `module`, a piece of a language's toolchain in kernels/ that may not be
    installed (Triton's compile and runners; the `triton` package itself). Its absence
    is LanguageUnavailable; any other import error is ours and propagates."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing == "triton" or missing.startswith("triton.") or module.startswith(missing + ".") \
                or missing == module:
            raise LanguageUnavailable(f"{module} is not installed here ({missing})") from None
        raise
