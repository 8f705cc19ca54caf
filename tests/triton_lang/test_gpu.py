"""Triton cubins compiled in the sandbox, loaded with CuPy and run by CudaBackend (#29).
Marked `gpu`: they skip where no GPU is visible."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.targets.base import GUARD_ELEMS, GuardedArray
from kernels.plan import env_for
from kernels.triton.compile import compile_triton
from kernels.triton.gpu import load_program
from kernels.triton.launches import triton_launches
from tests.triton_lang.conftest import SOFTMAX_DIR, scratch_triton_exercise
from tests.triton_lang.sources import SAXPY, SAXPY_DESCRIPTORS, SOFTMAX, TRITON_SOFTMAX

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("sandbox")]
SENTINEL = np.float32(-7.25)


def guarded(name: str, role: str, payload: np.ndarray) -> GuardedArray:
    full = np.full(payload.size + 2 * GUARD_ELEMS, SENTINEL, dtype=payload.dtype)
    full[GUARD_ELEMS:GUARD_ELEMS + payload.size] = payload.ravel()
    return GuardedArray(name, role, payload.shape, full)


def guards_intact(buf: GuardedArray) -> bool:
    return bool((buf.full[:GUARD_ELEMS] == SENTINEL).all() and (buf.full[GUARD_ELEMS + buf.size:] == SENTINEL).all())


@pytest.fixture(scope="module")
def backend():
    from kernels.targets.cuda import CudaTarget as Gpu

    cuda = Gpu()
    cuda.warm()
    return cuda


# On an H200 (2026-11-29) the descriptor saxpy computed every element right but wrote past
# `n` into y's guard band, though its descriptor's shape is n: not yet understood (a
# learner's kernel that does the same gets wrong_answer from the guards, never a pass).
DESCRIPTORS_PAST_N = pytest.mark.xfail(reason="device-side tensor descriptors wrote past n into the guard band "
                                              "on an H200; under investigation", strict=False)


@pytest.mark.parametrize("source", [SAXPY, pytest.param(SAXPY_DESCRIPTORS, marks=DESCRIPTORS_PAST_N)],
                         ids=["saxpy", "tensor-descriptors"])
def test_saxpy_runs_with_cuda_backend(backend, saxpy_exercise, source) -> None:
    compiled = compile_triton(source, saxpy_exercise, "gpu", backend.arch)
    assert compiled.ok, compiled.log
    if source is SAXPY_DESCRIPTORS:
        assert all(b.global_scratch_size > 0 for b in compiled.artifact.binaries)
    program = load_program(backend, compiled)
    assert "load_fault" not in program.handle
    rng = np.random.default_rng(0)
    for case in saxpy_exercise.tests:
        env = env_for(case, {})
        n = env["N"]
        x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        buffers = {"x": guarded("x", "in", x), "y": guarded("y", "inout", y)}
        outcome = backend.run(program, triton_launches(saxpy_exercise, compiled, env), buffers, 10.0)
        assert outcome.fault is None, (case.label, outcome.fault)
        np.testing.assert_allclose(buffers["y"].payload, np.float32(env["a"]) * x + y, rtol=1e-5, atol=1e-6)
        assert guards_intact(buffers["x"]) and guards_intact(buffers["y"])


def test_softmax_runs_with_cuda_backend(backend, tmp_path) -> None:
    exercise = scratch_triton_exercise(tmp_path, TRITON_SOFTMAX, SOFTMAX_DIR)
    compiled = compile_triton(SOFTMAX, exercise, "gpu", backend.arch)
    assert compiled.ok, compiled.log
    program = load_program(backend, compiled)
    rng = np.random.default_rng(1)
    for case in exercise.tests:
        env = env_for(case, {})
        x = (rng.standard_normal((env["rows"], env["cols"])) * 4).astype(np.float32)
        buffers = {"x": guarded("x", "in", x), "y": guarded("y", "out", np.zeros_like(x))}
        outcome = backend.run(program, triton_launches(exercise, compiled, env), buffers, 10.0)
        assert outcome.fault is None, (case.label, outcome.fault)
        e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(buffers["y"].payload, e / e.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-7)
        assert guards_intact(buffers["y"])

