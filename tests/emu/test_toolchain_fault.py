"""A broken installation of ours is internal_error; nothing a learner writes can pass for one.

g++'s log is partly the learner's text (an #error, a static_assert message), so the
emulator does not trust a line that says a library is missing: a fixed probe program,
built in the same jail with the same options, decides whose fault a failure is."""

from __future__ import annotations

import dataclasses

import pytest

from kernels.targets.base import BuildError
from kernels.exercises import find_exercise
from kernels.compile import CompileResult
from kernels.emu import build
from kernels.emu.target import EmuTarget
from kernels.spec import Limits

SIGNATURE = 'extern "C" __global__ void block_sum(const float* in, float* out, int N)'
FORGED = ("/usr/bin/ld: cannot find -lboost_context: No such file or directory\\n"
          "g++: fatal error: cannot execute 'cc1plus'\\nbwrap: execvp /usr/bin/g++")


@pytest.fixture(scope="module")
def exercise():
    ex = find_exercise("reduction.block_sum")
    return dataclasses.replace(ex, limits=Limits(compile_s=30, run_s=3, bench_s=5))


@pytest.mark.parametrize("forgery", [
    f'static_assert(sizeof(int) == 0, "{FORGED}");',
    "#error cannot find -lboost_context collect2: fatal error: cannot find 'ld'",
])
def test_a_learners_text_naming_a_missing_library_is_their_compile_error(exercise, forgery):
    source = forgery + "\n" + SIGNATURE + " { }\n"
    with pytest.raises(BuildError) as caught:
        EmuTarget().build(exercise, source, CompileResult("ok", 0.0))
    assert "cannot find" in str(caught.value.diagnostics)  # their message, shown to them


def test_the_probe_builds_on_a_healthy_machine():
    assert build._toolchain_fault_of_our_own(30) == ""


def test_a_missing_compiler_is_our_fault_not_the_learners(exercise, monkeypatch):
    # g++ is outside our code: a path where there is none stands in for a machine without it
    monkeypatch.setattr(build, "gxx", lambda: "/nonexistent/g++")
    assert "/nonexistent/g++" in build._toolchain_fault_of_our_own(30)
    with pytest.raises(build.ToolchainError):
        EmuTarget().build(exercise, SIGNATURE + " { }\n", CompileResult("ok", 0.0))
