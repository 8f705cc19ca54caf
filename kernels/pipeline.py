"""compile → tests → benchmark, in one process, for any language on any target.

The language (kernels/languages/) compiles the submission once; the target
(kernels/targets/) builds that compile result and runs the cases.

This is the judge proper; `kernels.worker` runs it inside a fresh sandboxed
process and `kernels.judge` supervises that process. Events go to `emit`:
public ones (`compiling`, `testing` with the test's result, `tested` with the
verdict and message as soon as the tests end, `benchmarking`) and private ones starting with "_" that let the supervisor set per-stage
deadlines (`_test_start`, `_bench_start`). With `bench_options["baselines"]` (the
supervisor's known baseline times, kernels/judge.py) the baselines missing there are
timed before the tests, while no learner code has run in the process
(`_baselines_start`, `_baselines`).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

from kernels import contract, languages
from kernels.cases import run_tests
from kernels.compile import CompileResult
from kernels.contract import Event
from kernels.languages import LanguageUnavailable
from kernels.messages import Message
from kernels.spec import Exercise
from kernels.targets.base import BuildError, Diagnostic, Program, RuntimeFault, Target, unique_diagnostics

Emit = Callable[[dict[str, Any]], None]
EMU_TIMINGS_NOTE = ("timings are not representative: the emulator runs on the CPU "
                    "and only checks correctness")


def run_pipeline(exercise: Exercise, source: str, target: Target, *, bench: bool, seed: int,
                 emit: Emit, bench_options: dict[str, Any] | None = None,
                 profile: bool = True, language: str = "cuda") -> dict[str, Any]:
    """Judge `source`, written in `language`, and return the v1 result document.
    `profile=False`: no GPU (ncu) profile here — the caller asks for it later
    (`run_profile`, #26); the emulator's profile, counted beside the tests, is always made."""
    profile = profile or not target.timed
    started = time.perf_counter()
    target.start_submission(time.monotonic())  # the emulator's wall budget starts now (#11)
    timings: dict[str, float] = {}
    emit({"stage": Event.COMPILING})
    compiled, program, refusal = _compile_and_build(exercise, source, target, language)
    timings["compile_s"] = time.perf_counter() - started
    profile = profile and program is not None and languages.profiled(language, target.name)
    if profile:
        from kernels.profile import run as profile_run

        if profile_run.enabled(exercise, target.name):  # the emulator's profiler program, beside the tests (#16)
            target.prepare_profile(program)
    emit({"stage": Event.COMPILED, "compile": compiled.to_dict()})
    finish = _finisher(exercise, target, compiled, started, timings, language)
    if program is None:
        return finish(compiled.status, refusal or _compile_message(compiled), [], [], None)
    bench_options = dict(bench_options or {})
    if bench and target.timed and exercise.benchmark is not None and bench_options.get("baselines") is not None:
        from kernels.bench_run import baselines_first  # imports cupy: only on timed targets

        try:
            bench_options["baselines"] = baselines_first(exercise, target, compiled, seed, emit,
                                                         bench_options["baselines"], bench_options.get("max_sizes"))
        except Exception as exc:  # noqa: BLE001 — a CUDA error is the loaded module's doing, else ours
            target.learner_fault(exc)  # re-raises what is not CUDA's
            # its module left no memory for them (a huge __device__ array): the benchmark, if
            # the tests pass, meets the same fault and says so
            bench_options["baselines"] = None
    test_started = time.perf_counter()
    outcome = run_tests(exercise, target, program, compiled, seed, emit)
    timings["test_s"] = time.perf_counter() - test_started
    tests = [t.to_dict() for t in outcome.tests]
    diags = unique_diagnostics(outcome.diagnostics)[:50]
    will_bench = outcome.verdict == "accepted" and bench and exercise.benchmark is not None and target.timed
    # the verdict as soon as the tests end; the benchmark streams in after it (#13)
    emit({"stage": Event.TESTED, "verdict": outcome.verdict, "message": str(outcome.message),
          **contract.code_fields(outcome.message), "benchmark_follows": bool(will_bench)})
    if not will_bench:
        found = _profile(exercise, source, target, program, compiled, seed, emit) \
            if outcome.verdict == "accepted" and profile else None
        return finish(outcome.verdict, outcome.message, tests, diags, None, found)
    bench_started = time.perf_counter()
    emit({"stage": Event.BENCH_START})
    from kernels.bench_run import run_benchmark  # imports cupy: only on timed targets

    pending = _start_profile(exercise, source, target, compiled, seed) if profile else None
    try:
        try:
            benchmark, problem = run_benchmark(exercise, target, program, compiled, seed, emit,
                                               **bench_options)
        except Exception as exc:  # noqa: BLE001 — the learner's CUDA error, else re-raised (ours)
            # A kernel that traps (or reads an illegal address) only in the timed calls (#27):
            # its verdict, as in a test case, never internal_error.
            fault = target.learner_fault(exc)
            if fault is None:
                raise
            return finish(fault.kind, _bench_fault_message(fault), tests, diags, None)
        timings["bench_s"] = time.perf_counter() - bench_started
        if problem:
            return finish("wrong_answer", problem if isinstance(problem, Message) else
                          Message(problem, "bench_wrong", case="", detail=problem),
                          tests, diags, None)
        found = _profile(exercise, source, target, program, compiled, seed, emit, benchmark, pending) \
            if profile else None
    finally:
        if pending is not None:
            pending.cancel()
    return finish("accepted", outcome.message, tests, diags, benchmark, found)


def _compile_and_build(exercise: Exercise, source: str, target: Target,
                       language: str) -> tuple[CompileResult, Program | None, Message | None]:
    """The language's compile, once, then the target's build of that result. Returns the
    compile result, the program (None when there is none) and, for a refusal that is no
    compile error (a language the exercise or this judge does not offer, a feature the
    target does not run), its message."""
    started = time.perf_counter()
    lang = languages.get(language)
    if language not in exercise.languages:
        return _refused(started, Message(f"this exercise is not offered in {lang.title}", "language_not_offered",
                                         language=lang.title, exercise=exercise.id))
    try:
        compiled = lang.compile(source, exercise, target.name, target.arch)
        if not compiled.ok:
            return compiled, None, None
        return compiled, target.build(exercise, source, compiled), None
    except LanguageUnavailable as exc:
        logging.getLogger(__name__).warning("language %s unavailable: %s", language, exc)
        message = Message(f"this judge cannot judge {lang.title} here: its toolchain is not installed",
                          "language_unavailable", language=lang.title)
        return _refused(started, message)
    except BuildError as exc:
        failed = CompileResult(exc.status, time.perf_counter() - started, exc.log, exc.diagnostics,
                               language=language)
        return failed, None, _needs_gpu_message(failed, exc.needs_gpu) if exc.needs_gpu else None


def _refused(started: float, message: Message) -> tuple[CompileResult, None, Message]:
    compiled = CompileResult("rejected", time.perf_counter() - started, str(message),
                             [Diagnostic(0, 0, "error", str(message))])
    return compiled, None, message


def run_profile(exercise: Exercise, source: str, target: Target, seed: int, emit: Emit,
                benchmark: dict[str, Any] | None = None, language: str = "cuda") -> dict[str, Any] | None:
    """The profile of an attempt already judged accepted, on its own (#26: on a GPU the
    ncu profile runs after the result was delivered, as lower-priority work)."""
    if language not in exercise.languages or not languages.profiled(language, target.name):
        return None
    compiled, program, _ = _compile_and_build(exercise, source, target, language)
    if program is None:
        return None  # judged accepted before: nothing to profile now is no one's error
    return _profile(exercise, source, target, program, compiled, seed, emit, benchmark)


def _finisher(exercise: Exercise, target: Target, compiled: CompileResult, started: float,
              timings: dict[str, float], language: str) -> Callable[..., dict[str, Any]]:
    def finish(verdict: str, message: str, tests: list, diags: list, benchmark: Any,
               profile: dict[str, Any] | None = None) -> dict[str, Any]:
        timings["total_s"] = time.perf_counter() - started
        return contract.build(
            exercise=exercise.id, backend=target.name, device=target.device_info(),
            verdict=verdict, message=message, compile_=compiled.to_dict(), tests=tests,
            diagnostics=[d.to_dict() for d in diags], benchmark=benchmark, timings=timings,
            timings_note=None if target.timed else EMU_TIMINGS_NOTE, profile=profile, language=language)
    return finish


def _start_profile(exercise: Exercise, source: str, target: Target, compiled: CompileResult,
                   seed: int) -> Any:
    """On a GPU with ncu, the profiler's child started ahead of the benchmark (it waits there,
    off the GPU, until released), or None."""
    from kernels.profile import run as profile_run

    if not target.timed or not profile_run.enabled(exercise, target.name):
        return None
    try:
        return profile_run.start_gpu_profile(exercise, source, target, compiled.constants, seed, compiled)
    except Exception:  # noqa: BLE001 — no early start: the profile step starts its own child
        logging.getLogger(__name__).exception("early profile start for %s failed", exercise.id)
        return None


def _profile(exercise: Exercise, source: str, target: Target, program: Any, compiled: CompileResult,
             seed: int, emit: Emit, benchmark: dict[str, Any] | None = None,
             pending: Any = None) -> dict[str, Any] | None:
    """The profiler's view of an accepted attempt (#16); it never changes the verdict."""
    from kernels.profile import run as profile_run

    if not profile_run.enabled(exercise, target.name):
        return None
    emit({"stage": Event.PROFILE_START})
    emit({"stage": Event.PROFILING})
    try:
        return profile_run.profile_attempt(exercise, source, target, program, compiled.constants, seed,
                                           benchmark,  # the GPU's roofline point: the benchmark's time
                                           pending, compiled)
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


