"""Triton: the learner's `.triton.py` is compiled in a sandbox (kernels/triton/compile.py:
the GPU's cubins, or Triton's front end only for the CPU target) and its launches come
from the learner's `launch_<kernel>` functions, evaluated there per case
(kernels/triton/launches.py). The pieces are imported when first used: where they
are not installed, an attempt ends `rejected` (`language_unavailable`)."""

from __future__ import annotations

from typing import Any

from kernels.compile import CompileResult
from kernels.languages import part
from kernels.spec import Exercise
from kernels.targets.base import Launch

name = "triton"
title = "Triton"
suffix = ".triton.py"
editor_mode = "python"
# The CPU target runs the learner's Python in Triton's interpreter, one program after
# another: a correct RoPE or top-k takes 3-4x a CUDA kernel's emulated time there
# (tests/lessons/test_corpus.py on a 2-core machine), so its cases may run 4x as long.
cpu_time_scale = 4.0
# On a GPU ncu reads a Triton attempt's cubins as it reads CUDA C's (kernels/profile/gpu.py);
# on the CPU, Triton's interpreter runs the learner's Python, which the emulator's counter
# (CUDA C only) never sees: no profile there.
profiled_on = ("cuda",)
profiled = False  # not on every target (the CPU's): ask kernels.languages.profiled(name, target)


def compile(source: str, exercise: Exercise, target_name: str, arch: str | None) -> CompileResult:
    """Compile for every case the judge may run (the tests and the benchmark's sizes):
    the learner's launch functions are called there, in the sandbox, once per case."""
    compiler = part("kernels.triton.compile")
    return compiler.compile_triton(source, exercise, target_name, arch, judged_cases(exercise))


def launches(exercise: Exercise, compiled: CompileResult, env: dict[str, Any]) -> list[Launch]:
    return part("kernels.triton.launches").triton_launches(exercise, compiled, env)


def tolerance(exercise: Exercise) -> tuple[float, float]:
    """[triton] rtol/atol where given, else the exercise's [check]."""
    spec = exercise.triton
    rtol = spec.rtol if spec is not None and spec.rtol is not None else exercise.rtol
    atol = spec.atol if spec is not None and spec.atol is not None else exercise.atol
    return rtol, atol


def judged_cases(exercise: Exercise) -> list[dict[str, Any]]:
    """Each case's values (dims and params) the judge may run, tests first, each once."""
    cases = list(exercise.tests) + list(exercise.benchmark.cases if exercise.benchmark else ())
    unique = {case.values: dict(case.values) for case in cases}
    return list(unique.values())
