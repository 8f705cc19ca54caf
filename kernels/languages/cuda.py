"""CUDA C: NVRTC compiles the learner's `.cu` (kernels/compile.py) against the exercise's
C signatures; the launches are the exercise's own plan (kernels/plan.py)."""

from __future__ import annotations

from typing import Any

from kernels.compile import CompileResult, compile_submission
from kernels.plan import resolve_launches
from kernels.spec import Exercise
from kernels.targets.base import Launch

name = "cuda"
title = "CUDA C++"
suffix = ".cu"
editor_mode = "cuda"
cpu_time_scale = 1.0  # the emulator's limits are set for CUDA attempts
# the profiler (kernels/profile/) reads this language on both targets: ncu on a GPU, the
# emulator's counts on the CPU
profiled_on = ("cuda", "emu")
profiled = True  # on every target


def compile(source: str, exercise: Exercise, target_name: str, arch: str | None) -> CompileResult:
    """The policy checks, then NVRTC: a CUBIN for `arch` ("sm_90a"), or a PTX-only check
    where the target names none (the emulator builds the source itself)."""
    del target_name  # NVRTC's check is the same for every target; the arch says what to build
    return compile_submission(source, exercise, arch)


def launches(exercise: Exercise, compiled: CompileResult, env: dict[str, Any]) -> list[Launch]:
    del compiled  # the plan is the exercise's; the constants are already in `env`
    return resolve_launches(exercise.launches, env)


def tolerance(exercise: Exercise) -> tuple[float, float]:
    return exercise.rtol, exercise.atol
