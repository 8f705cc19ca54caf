"""compile → tests → benchmark, in one process, for any backend.

This is the judge proper; `kernels.worker` runs it inside a fresh sandboxed
process and `kernels.judge` supervises that process. Events go to `emit`:
public ones (`compiling`, `testing` with the test's result, `tested` with the
verdict and message as soon as the tests end, `benchmarking`) and private ones starting with "_" that let the supervisor set per-stage
deadlines (`_test_start`, `_bench_start`).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

from kernels import result as result_doc
from kernels.messages import Message
from kernels.backend import Backend, BuildError, RuntimeFault, unique_diagnostics
from kernels.cases import run_tests
from kernels.compile import CompileResult, compile_submission
from kernels.spec import Exercise

Emit = Callable[[dict[str, Any]], None]
EMU_TIMINGS_NOTE = ("timings are not representative: the emulator runs on the CPU "
                    "and only checks correctness")


def run_pipeline(exercise: Exercise, source: str, backend: Backend, *, bench: bool, seed: int,
                 emit: Emit, bench_options: dict[str, Any] | None = None,
                 profile: bool = True) -> dict[str, Any]:
    """Judge `source` and return the v1 result document. `profile=False`: no GPU
    (ncu) profile here — the caller asks for it later (`run_profile`, #26); the
    emulator's profile, counted beside the tests, is always made."""
    profile = profile or backend.name != "cuda"
    started = time.perf_counter()
    if hasattr(backend, "start_submission"):  # the emulator's wall budget starts now (#11)
        backend.start_submission(time.monotonic())
    timings: dict[str, float] = {}
    emit({"stage": "compiling"})
    compiled = compile_submission(source, exercise, backend.arch)
    program, needs_gpu = None, ""
    if compiled.ok:
        try:
            program = backend.build(exercise, source, compiled.constants)
        except BuildError as exc:
            compiled = CompileResult(exc.status, compiled.seconds, exc.log, exc.diagnostics)
            needs_gpu = exc.needs_gpu
    timings["compile_s"] = time.perf_counter() - started
    if program is not None and profile and hasattr(backend, "prepare_profile"):
        from kernels import profile_run

        if profile_run.enabled(exercise, backend.name):  # the emulator's profiler program, beside the tests (#16)
            backend.prepare_profile(program)
    emit({"stage": "_compiled", "compile": compiled.to_dict()})
    finish = _finisher(exercise, backend, compiled, started, timings)
    if program is None:
        return finish(compiled.status, _needs_gpu_message(compiled, needs_gpu) if needs_gpu
                      else _compile_message(compiled), [], [], None)
    test_started = time.perf_counter()
    outcome = run_tests(exercise, backend, program, compiled.constants, seed, emit)
    timings["test_s"] = time.perf_counter() - test_started
    tests = [t.to_dict() for t in outcome.tests]
    diags = unique_diagnostics(outcome.diagnostics)[:50]
    will_bench = outcome.verdict == "accepted" and bench and exercise.benchmark is not None \
        and backend.supports_timing
    # the verdict as soon as the tests end; the benchmark streams in after it (#13)
    emit({"stage": "tested", "verdict": outcome.verdict, "message": str(outcome.message),
          **result_doc.code_fields(outcome.message), "benchmark_follows": bool(will_bench)})
    if not will_bench:
        found = _profile(exercise, source, backend, program, compiled, seed, emit) \
            if outcome.verdict == "accepted" and profile else None
        return finish(outcome.verdict, outcome.message, tests, diags, None, found)
    bench_started = time.perf_counter()
    emit({"stage": "_bench_start"})
    from kernels.bench_run import run_benchmark  # imports cupy: only on timing backends

    pending = _start_profile(exercise, source, backend, compiled, seed) if profile else None
    try:
        try:
            benchmark, problem = run_benchmark(exercise, backend, program, compiled.constants, seed, emit,
                                               **(bench_options or {}))
        except Exception as exc:  # noqa: BLE001 — the learner's CUDA error, else re-raised (ours)
            # A kernel that traps (or reads an illegal address) only in the timed calls (#27):
            # its verdict, as in a test case, never internal_error.
            fault = backend.learner_fault(exc) if hasattr(backend, "learner_fault") else None
            if fault is None:
                raise
            return finish(fault.kind, _bench_fault_message(fault), tests, diags, None)
        timings["bench_s"] = time.perf_counter() - bench_started
        if problem:
            return finish("wrong_answer", problem if isinstance(problem, Message) else
                          Message(problem, "bench_wrong", case="", detail=problem),
                          tests, diags, None)
        found = _profile(exercise, source, backend, program, compiled, seed, emit, benchmark, pending) \
            if profile else None
    finally:
        if pending is not None:
            pending.cancel()
    return finish("accepted", outcome.message, tests, diags, benchmark, found)


def run_profile(exercise: Exercise, source: str, backend: Backend, seed: int, emit: Emit,
                benchmark: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The profile of an attempt already judged accepted, on its own (#26: on a GPU the
    ncu profile runs after the result was delivered, as lower-priority work)."""
    compiled = compile_submission(source, exercise, backend.arch)
    try:
        program = backend.build(exercise, source, compiled.constants) if compiled.ok else None
    except BuildError:
        program = None  # judged accepted before: nothing to profile now is no one's error
    if program is None:
        return None
    return _profile(exercise, source, backend, program, compiled, seed, emit, benchmark)


def _finisher(exercise: Exercise, backend: Backend, compiled: CompileResult, started: float,
              timings: dict[str, float]) -> Callable[..., dict[str, Any]]:
    def finish(verdict: str, message: str, tests: list, diags: list, benchmark: Any,
               profile: dict[str, Any] | None = None) -> dict[str, Any]:
        timings["total_s"] = time.perf_counter() - started
        return result_doc.build(
            exercise=exercise.id, backend=backend.name, device=backend.device_info(),
            verdict=verdict, message=message, compile_=compiled.to_dict(), tests=tests,
            diagnostics=[d.to_dict() for d in diags], benchmark=benchmark, timings=timings,
            timings_note=None if backend.supports_timing else EMU_TIMINGS_NOTE, profile=profile)
    return finish


def _start_profile(exercise: Exercise, source: str, backend: Backend, compiled: CompileResult,
                   seed: int) -> Any:
    """On a GPU with ncu, the profiler's child started ahead of the benchmark (it waits there,
    off the GPU, until released), or None."""
    from kernels import profile_run

    if backend.name != "cuda" or not profile_run.enabled(exercise, backend.name):
        return None
    try:
        return profile_run.start_gpu_profile(exercise, source, backend, compiled.constants, seed)
    except Exception:  # noqa: BLE001 — no early start: the profile step starts its own child
        logging.getLogger(__name__).exception("early profile start for %s failed", exercise.id)
        return None


def _profile(exercise: Exercise, source: str, backend: Backend, program: Any, compiled: CompileResult,
             seed: int, emit: Emit, benchmark: dict[str, Any] | None = None,
             pending: Any = None) -> dict[str, Any] | None:
    """The profiler's view of an accepted attempt (#16); it never changes the verdict."""
    from kernels import profile_run

    if not profile_run.enabled(exercise, backend.name):
        return None
    emit({"stage": "_profile_start"})
    emit({"stage": "profiling"})
    try:
        return profile_run.profile_attempt(exercise, source, backend, program, compiled.constants, seed,
                                           benchmark,  # the GPU's roofline point: the benchmark's time
                                           pending)
    except Exception:  # noqa: BLE001 — our bug must not cost a learner the verdict they earned
        logging.getLogger(__name__).exception("profile of %s failed", exercise.id)
        return None


def _compile_message(compiled: CompileResult) -> str:
    first = next((d for d in compiled.diagnostics if d.severity == "error"), None)
    if first is None:
        return Message("compilation failed", "compile_failed_plain")
    where = f"line {first.line}: " if first.line else ""
    rejected = compiled.status == "rejected"
    prefix = "rejected: " if rejected else "compilation failed: "
    return Message(prefix + where + first.message, "rejected" if rejected else "compile_failed",
                   line=first.line or 0, detail=first.message)


def _needs_gpu_message(compiled: CompileResult, feature: str) -> str:
    line = compiled.diagnostics[0].line if compiled.diagnostics else 0
    return Message(f"this kernel needs a GPU: {feature} is not emulated", "needs_gpu", line=line, feature=feature)


def _bench_fault_message(fault: RuntimeFault) -> str:
    detail = f"{fault.name}: {fault.message}" if fault.name else fault.message
    return Message(f"the benchmark: {detail}", "fault", name=fault.name or "", detail=fault.message)


