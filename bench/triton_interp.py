"""How long a Triton verdict takes on the CPU target (#29): every test case of saxpy and of
softmax through Triton's interpreter in its sandbox, from the server's start to the last
case checked. Run from the repository root (a Python with triton: the judge's, or
KDOJO_TRITON_PYTHON):

    python bench/triton_interp.py [--repeat 5]

Prints per exercise the p50 and max of the attempt's wall time, and the slowest case.
The figures are in docs/benchmarks.md, "Triton on the CPU".
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from kernels.targets.base import Launch, LaunchArg
from kernels.buffers import make_guarded
from kernels.check import check_case
from kernels.plan import buffer_shapes, case_dict, env_for, load_reference
from kernels.spec_parse import load_spec
from kernels.triton import interp

LESSONS = Path(__file__).resolve().parents[1] / "lessons"
HEAD = "import triton\nimport triton.language as tl\n\n\n"
KERNELS = {
    "01-elementwise/exercises/saxpy": ("saxpy", HEAD + """@triton.jit
def saxpy(n, a, x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)
""", lambda env: ((-(-env["N"] // 4096), 1, 1), {"BLOCK": 4096})),
    "04-row-reductions/exercises/softmax": ("softmax", HEAD + """@triton.jit
def softmax(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)
""", lambda env: ((env["rows"], 1, 1), {"BLOCK": max(16, 1 << (env["cols"] - 1).bit_length())})),
}


class _Spec:
    """The exercise with the [triton] launch this bench runs (lessons gain theirs in #29)."""

    def __init__(self, exercise, kernel: str) -> None:
        self.exercise, self.triton = exercise, type("T", (), {"launches": [type("L", (), {"kernel": kernel})]})

    def __getattr__(self, name):
        return getattr(self.exercise, name)


def attempt(folder: str, seed: int) -> tuple[float, float, str]:
    kernel, source, plan = KERNELS[folder]
    exercise = load_spec(LESSONS / folder / "exercise.toml")
    reference = load_reference(exercise)
    started = time.perf_counter()
    program = interp.build_program(_Spec(exercise, kernel), source)
    slowest, slowest_case = 0.0, ""
    try:
        for index, case in enumerate(exercise.tests):
            case_started = time.perf_counter()
            env, cased = env_for(case, {}), case_dict(case, {})
            inputs = reference.generate(cased, np.random.default_rng([seed, index]))
            shapes = buffer_shapes(exercise, env)
            buffers = {b.name: make_guarded(b.name, b.role, b.dtype, shapes[b.name], b.init,
                                            inputs.get(b.name) if b.role in ("in", "inout") else None)
                       for b in exercise.buffers}
            spec = exercise.launches[0]
            args = tuple(LaunchArg(a.param.name, a.param.ctype, a.buffer, None if a.buffer else a.expr.evaluate(env))
                         for a in spec.args)
            grid, meta = plan(env)
            ran = program.handle.run([Launch(kernel, grid, (128, 1, 1), 0, args, tuple(meta.items()))], buffers,
                                     float(exercise.limits.run_s))
            want = {k: np.asarray(v) for k, v in reference.reference(inputs, cased).items()}
            test = check_case(case.label, ran.buffers, {}, want, {b.name: b.dtype for b in exercise.buffers},
                              exercise.rtol, exercise.atol)
            if ran.fault is not None or test.status != "pass":
                raise SystemExit(f"{folder} {case.label}: {ran.fault or test.message}")
            took = time.perf_counter() - case_started
            if took > slowest:
                slowest, slowest_case = took, case.label
    finally:
        program.handle.close()
    return time.perf_counter() - started, slowest, slowest_case


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    for folder in KERNELS:
        runs = [attempt(folder, seed) for seed in range(options.repeat)]
        walls = [r[0] for r in runs]
        worst = max(runs, key=lambda r: r[1])
        print(f"{folder}: p50 {statistics.median(walls):.2f} s, max {max(walls):.2f} s over {len(walls)} attempts; "
              f"slowest case {worst[2]} {worst[1]:.2f} s")


if __name__ == "__main__":
    main()
