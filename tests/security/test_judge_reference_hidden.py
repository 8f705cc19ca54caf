"""Expected outputs do not exist while the learner's kernel runs (#11).

A kernel that scans memory (the device's, or the host's through unified
memory) must find no expected output to copy, in the tests and in the timed
benchmark calls. The exercise's trusted reference.py is instrumented (a copy
in a scratch lessons folder) to log when it generates inputs and when it
computes a reference; the kernel spends a known time in its first thread. A
reference computed before the kernel ran would follow its inputs' generation
by milliseconds; after the run, by at least the kernel's time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernels.targets import emu_available

from .judge_support import CORRECT_SOURCE, lessons  # noqa: F401 (fixture)

INSTRUMENT = '''

import time as _time
from pathlib import Path as _Path

_LOG = _Path(__file__).with_name("calls.log")
_generate, _reference = generate, reference


def _note(kind, inputs):
    first = inputs["in"][:1]
    first = first.get() if hasattr(first, "get") else first
    with _LOG.open("a") as log:
        log.write(f"{kind} {_time.monotonic()!r} {float(first[0])!r}\\n")


def generate(case, rng):
    inputs = _generate(case, rng)
    _note("generate", inputs)
    return inputs


def reference(inputs, case):
    _note("reference", inputs)
    return _reference(inputs, case)
'''
SPIN_S = 0.3
# (kept by its use, not by a `volatile` variable: a source with volatile data gets the
# emulator's lockstep hook in every basic block, and 3e8 of them pass the tests' budget)
EMU_SPIN = ("        unsigned long long sink = 1;\n"
            "        for (unsigned long long k = 0; k < 300000000ull; ++k) sink = sink * 6364136223846793005ull + k;\n"
            "        if (sink == 42ull) out[0] = 0.0f;  // never: it only keeps the loop\n")
GPU_SPIN = ("        long long start = clock64();\n"
            "        while (clock64() - start < 1000000000LL) { }\n")  # ≥ 0.5 s below 2 GHz


def _slow(spin: str) -> str:
    return CORRECT_SOURCE.replace(
        "    extern __shared__ float warp_sums[];",
        "    extern __shared__ float warp_sums[];\n    if (blockIdx.x == 0 && threadIdx.x == 0) {\n"
        + spin + "    }", 1)


def _instrument(lessons: Path) -> Path:
    folder = lessons / "02-reduction" / "exercises" / "block_sum"
    (folder / "reference.py").write_text((folder / "reference.py").read_text() + INSTRUMENT)
    return folder / "calls.log"


def _gaps(log: Path) -> list[float]:
    """For each reference computed: the time since its inputs were first generated.
    A timed benchmark call's inputs are its base set's scaled by 2^e per element,
    e in {-1, 0, 1} (kernels/bench_integrity.py): the first element names the set
    divided by 1, 2 or 1/2."""
    first_generated: dict[float, float] = {}
    gaps = []
    for line in log.read_text().splitlines():
        kind, at, first = line.split()
        if kind == "generate":
            first_generated.setdefault(float(first), float(at))
        else:
            base = next(float(first) * f for f in (1.0, 0.5, 2.0) if float(first) * f in first_generated)
            gaps.append(float(at) - first_generated[base])
    return gaps


@pytest.mark.skipif(not emu_available()[0], reason="emulator backend not available")
def test_references_are_computed_after_each_tests_kernel_ran_on_the_emulator(lessons):
    from kernels.judge import Judge

    log = _instrument(lessons)
    with Judge(lessons, backend="emu", keep_spare=False) as judge:
        doc = judge.run(_slow(EMU_SPIN), "reduction.block_sum", bench=False)
    assert doc["verdict"] == "accepted", doc["message"]
    gaps = _gaps(log)
    assert len(gaps) == 13
    # the spin is 3e8 multiply-adds of one thread (0.09–0.3 s on the machines
    # seen); a reference computed before the run followed its inputs by a
    # millisecond or two
    assert min(gaps) >= SPIN_S / 10, gaps


@pytest.mark.gpu
def test_references_are_computed_after_the_kernel_ran_in_tests_and_timed_calls_on_a_gpu(lessons):
    from kernels.judge import Judge

    log = _instrument(lessons)
    with Judge(lessons, backend="cuda", keep_spare=False) as judge:
        doc = judge.run(_slow(GPU_SPIN), "reduction.block_sum", bench=True, max_bench_sizes=1)
    assert doc["verdict"] == "accepted", doc["message"]
    assert doc["benchmark"] is not None  # the timed calls were re-checked against references
    gaps = _gaps(log)
    assert len(gaps) > 13  # the tests' and the benchmark's input sets
    assert min(gaps) >= 0.4, gaps


def _exercise_ids() -> list[str]:
    from kernels.exercises import load_catalog

    return sorted(load_catalog()[0])


@pytest.mark.parametrize("exercise_id", _exercise_ids())
def test_every_exercise_generates_the_same_inputs_again_from_the_same_seed(exercise_id):
    # a judged attempt can be judged again with the same seed and see the same inputs
    import numpy as np

    from kernels.exercises import find_exercise
    from kernels.plan import case_dict, load_reference

    exercise = find_exercise(exercise_id)
    reference = load_reference(exercise)
    for case in exercise.tests[:4]:
        cased = case_dict(case, {c.name: c.default for c in exercise.constants})
        first = reference.generate(cased, np.random.default_rng(1234))
        again = reference.generate(cased, np.random.default_rng(1234))
        assert all(np.array_equal(first[name], again[name]) for name in first), case.label
