"""Triton on the CPU end to end (#29): the sandboxed compile's build (TTIR only), its launches
for every test case of the exercise, the interpreter's server, and the judge's checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernels.buffers import make_guarded
from kernels.check import check_case
from kernels.plan import buffer_shapes, case_dict, env_for, load_reference
from kernels.triton import interp
from kernels.triton.compile import compile_triton
from kernels.triton.launches import triton_launches
from tests.triton_lang.conftest import SOFTMAX_DIR, scratch_triton_exercise
from tests.triton_lang.sources import SAXPY, SAXPY_AUTOTUNED, SOFTMAX, TRITON_SOFTMAX, line_of

pytestmark = pytest.mark.usefixtures("sandbox")


def judge(exercise, source: str) -> tuple[list, list]:
    """Every test case in order, as the judge runs them: (test results, diagnostics)."""
    compiled = compile_triton(source, exercise, "emu", None)
    assert compiled.ok, compiled.log
    program = interp.build_program(exercise, source, compiled, "emu")
    reference = load_reference(exercise)
    tests, diagnostics = [], []
    try:
        for index, case in enumerate(exercise.tests):
            env, cased = env_for(case, {}), case_dict(case, {})
            inputs = reference.generate(cased, np.random.default_rng([3, index]))
            shapes = buffer_shapes(exercise, env)
            buffers = {b.name: make_guarded(b.name, b.role, b.dtype, shapes[b.name], b.init,
                                            inputs.get(b.name) if b.role in ("in", "inout") else None)
                       for b in exercise.buffers}
            before = {b.name: buffers[b.name].payload.copy() for b in exercise.buffers if b.role == "in"}
            # correctness, not speed: a generous limit (a shared 2-core machine ran a case 5× slower)
            ran = program.handle.run(triton_launches(exercise, compiled, env), buffers, 120.0)
            assert ran.fault is None, ran.fault
            want = {k: np.asarray(v) for k, v in reference.reference(inputs, cased).items()
                    if exercise.buffer(k).role in ("out", "inout")}
            tests.append(check_case(case.label, ran.buffers, before, want, {b.name: b.dtype for b in exercise.buffers},
                                    exercise.rtol, exercise.atol))
            diagnostics += ran.diagnostics
    finally:
        program.handle.close()
    return tests, diagnostics


def test_saxpy_is_accepted_in_every_test_case(saxpy_exercise):
    tests, diagnostics = judge(saxpy_exercise, SAXPY)
    assert [t.status for t in tests] == ["pass"] * len(saxpy_exercise.tests) and diagnostics == []


def test_an_autotuned_saxpy_runs_its_first_config(saxpy_exercise):
    # the interpreter would time each config on the CPU; the server runs the first one's binary plan
    tests, diagnostics = judge(saxpy_exercise, SAXPY_AUTOTUNED)
    assert [t.status for t in tests] == ["pass"] * len(saxpy_exercise.tests) and diagnostics == []


def test_a_softmax_with_loops_and_reductions_is_accepted(tmp_path: Path):
    exercise = scratch_triton_exercise(tmp_path, TRITON_SOFTMAX, SOFTMAX_DIR)
    tests, diagnostics = judge(exercise, SOFTMAX)
    assert [t.status for t in tests] == ["pass"] * len(exercise.tests) and diagnostics == []


def test_saxpy_without_its_mask_fails_with_its_line(saxpy_exercise):
    source = SAXPY.replace(", mask=mask)", ")")
    tests, diagnostics = judge(saxpy_exercise, source)
    assert tests[0].status == "fail" and "wrote outside buffer 'y'" in tests[0].message
    found = next(d for d in diagnostics if d.kind == "out_of_bounds")
    assert found.line == line_of(source, "x = tl.load") and found.message.params["name"] == "x"
