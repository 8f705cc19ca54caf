"""The test stage: every test case of an exercise, in order, on a built program.

A case gets fresh inputs from the exercise's `reference.generate`, guarded
buffers, the language's launches for the case run by the target, then the fp64 reference and the
checks (kernels/check.py). `kernels.pipeline` runs this stage between compile
and benchmark; the GPU profiler's child runs one case with `run_case`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from kernels import languages
from kernels.buffers import make_guarded
from kernels.check import TestResult, check_case, reference_is_trivial
from kernels.compile import CompileResult
from kernels.contract import Event
from kernels.messages import Message
from kernels.plan import buffer_shapes, case_dict, env_for, load_reference
from kernels.spec import Case, Exercise
from kernels.targets.base import RunDiagnostic, RuntimeFault, Target

Emit = Callable[[dict[str, Any]], None]


class ReferenceProblem(Exception):
    """The exercise's own reference is unusable for a case (our fault, not the learner's)."""


@dataclass
class TestsOutcome:
    tests: list[TestResult] = field(default_factory=list)
    verdict: str = "accepted"
    message: str = ""
    diagnostics: list[RunDiagnostic] = field(default_factory=list)


def run_tests(exercise: Exercise, target: Target, program: Any, compiled: CompileResult,
              seed: int, emit: Emit) -> TestsOutcome:
    """Every test case in order. A fault stops the run when the process is poisoned."""
    outcome = TestsOutcome()
    total = len(exercise.tests)
    for index, case in enumerate(exercise.tests):
        emit({"stage": Event.CASE_START, "index": index, "total": total, "name": case.label})
        try:
            test, fault, diags = run_case(exercise, target, program, compiled, case,
                                          np.random.default_rng([seed, index]))
        except ReferenceProblem as exc:
            raise RuntimeError(f"{exercise.id} {case.label}: {exc}") from None
        outcome.tests.append(test)
        outcome.diagnostics += diags
        emit({"stage": Event.TESTING, "index": index, "total": total, "test": test.to_dict()})
        # the first failing test decides the verdict: it is the one to fix first, and
        # a later case cannot turn it into something else (on the emulator a kernel
        # that is wrong at n = 1000 may also be too slow at n = 2^20)
        if fault is not None:
            if outcome.verdict == "accepted":
                outcome.verdict = fault.kind
                outcome.message = Message(f"{case.label}: {test.message}", "case_failed", case=case.label)
            if fault.poisoned:
                break
        elif test.status != "pass" and outcome.verdict == "accepted":
            outcome.verdict = "wrong_answer"
            outcome.message = Message(f"{case.label}: {test.message}", "case_failed", case=case.label)
    failed = sum(t.status != "pass" for t in outcome.tests)
    if outcome.verdict == "accepted":
        outcome.message = Message(f"all {total} tests passed", "all_passed", total=total)
    elif outcome.verdict == "wrong_answer":
        first = outcome.message.params.get("case", "") if isinstance(outcome.message, Message) else ""
        outcome.message = Message(f"{failed} of {total} tests failed; first: {outcome.message}",
                                  "tests_failed", failed=failed, total=total, case=first)
    return outcome


def run_case(exercise: Exercise, target: Target, program: Any, compiled: CompileResult,
             case: Case, rng: np.random.Generator) -> tuple[TestResult, RuntimeFault | None, list]:
    """One case: fresh inputs, guarded buffers, run, then the reference, then check.

    The expected outputs are computed only after the learner's kernel has run
    (from the generated inputs, which its buffers are copies of): while it runs
    they exist nowhere in this process, so a kernel scanning memory finds nothing
    to copy (#11)."""
    reference = load_reference(exercise)
    language = languages.get(compiled.language)
    cased = case_dict(case, compiled.constants)
    env = env_for(case, compiled.constants)
    inputs = reference.generate(cased, rng)
    shapes = buffer_shapes(exercise, env)
    buffers = {b.name: make_guarded(b.name, b.role, b.dtype, shapes[b.name], b.init,
                                    inputs.get(b.name) if b.role in ("in", "inout") else None)
               for b in exercise.buffers}
    before = {b.name: buffers[b.name].payload.copy() for b in exercise.buffers if b.role == "in"}
    launches = language.launches(exercise, compiled, env)
    try:
        ran = target.run(program, launches, buffers, exercise.limits.run_s)
    except RuntimeFault as fault:
        return TestResult(case.label, "error", _fault_message(fault)), fault, []
    if ran.fault is not None:
        return TestResult(case.label, "error", _fault_message(ran.fault), ran.output), ran.fault, \
            ran.diagnostics
    want, scales = _expected(exercise, reference, inputs, cased)
    dtypes = {b.name: b.dtype for b in exercise.buffers}
    outputs = {k: v for k, v in want.items() if exercise.buffer(k).role in ("out", "inout")}
    rtol, atol = language.tolerance(exercise)
    test = check_case(case.label, ran.buffers, before, outputs, dtypes, rtol, atol, scales, ran.output)
    return test, None, ran.diagnostics


def _expected(exercise: Exercise, reference: Any, inputs: dict[str, Any],
              cased: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The reference outputs and error scales; one that zeros would match is our bug."""
    want = {k: np.asarray(v) for k, v in reference.reference(inputs, cased).items()}
    scales = reference.error_scale(inputs, cased) if hasattr(reference, "error_scale") else {}
    for name, expected in want.items():
        if reference_is_trivial(expected, exercise.atol, scales.get(name, 1.0)):
            raise ReferenceProblem(f"expected '{name}' is ~0: a kernel writing zeros would pass")
    return want, scales


def _fault_message(fault: RuntimeFault) -> str:
    """The fault's name and sentence, the name once ("data race on …", not "data race: data race
    on …"); a sentence with a code of its own (#28) keeps it, the web says it in the reader's language."""
    doubled = not fault.name or fault.message.startswith(fault.name)
    text = fault.message if doubled else f"{fault.name}: {fault.message}"
    if isinstance(fault.message, Message):
        return Message(text, fault.message.code, **fault.message.params)
    return Message(text, "fault", name=fault.name or "", detail=fault.message)
