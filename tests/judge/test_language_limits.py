"""A language's time on the CPU (#29): Triton's interpreter runs the learner's Python, so
its cases may run `cpu_time_scale` times as long there; on a GPU every language has the
exercise's own limits."""

from __future__ import annotations

from kernels import languages
from kernels.exercises import find_exercise
from kernels.judge import Judge, _State

SAXPY = "elementwise.saxpy"


def test_triton_cases_run_longer_on_the_cpu_only():
    exercise = find_exercise(SAXPY)
    scale = languages.get("triton").cpu_time_scale
    assert scale > 1 and languages.get("cuda").cpu_time_scale == 1
    on_cpu = languages.judged_exercise(exercise, "triton", timed=False)
    assert on_cpu.limits.run_s == exercise.limits.run_s * scale
    assert on_cpu.limits.compile_s == exercise.limits.compile_s and on_cpu.tests == exercise.tests
    assert languages.judged_exercise(exercise, "triton", timed=True) is exercise
    assert languages.judged_exercise(exercise, "cuda", timed=False) is exercise


def test_the_tests_budget_scales_with_the_language_on_the_cpu():
    with Judge(backend="emu", keep_spare=False, tests_budget_s=15.0) as judge:
        assert judge._tests_budget(_State("cuda")) == 15.0
        assert judge._tests_budget(_State("triton")) == 15.0 * languages.get("triton").cpu_time_scale
