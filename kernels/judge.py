"""The judge entry point: `Judge(lessons_dir, backend="auto").run(source, exercise_id, …,
language="cuda")`.

Every run happens in a fresh job process (`kernels.worker`); spares are
kept warm (cupy imported, CUDA context created; kernels/job_pool.py) so
isolation costs no latency. With `defer_profile`, a GPU run leaves the ncu
profile out and `Judge.profile()` makes it later, as work a verdict preempts.
The supervisor forwards public events, enforces per-stage wall-clock limits
by killing the job's process group, and assembles the v1 result even when
the process was killed or died.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable

from kernels import contract, languages, settings, targets
from kernels.baseline_cache import BaselineCache
from kernels.exercises import default_lessons_dir, find_exercise
from kernels.contract import Event
from kernels.job_pool import SparePool
from kernels.nvrtc_child import WALL_CAP_FACTOR
from kernels.pipeline import EMU_TIMINGS_NOTE
from kernels.printable import printable
from kernels.messages import Message, code_fields
from kernels.sandbox import JobLimits, JobProcess
from kernels.spec import Exercise

log = logging.getLogger("kernels.judge")

SLACK_S = 3.0  # process overhead on top of the spec's limits (imports, copies)
# The emulator builds with g++ against its runtime header: 1-2 s alone, several
# times that on a loaded 2-core CI machine; the spec's compile_s is for NVRTC.
EMU_COMPILE_GRACE_S = 30.0
READY_TIMEOUT_S = 120.0
INTERNAL_MESSAGE = "the judge failed on our side (not your fault); the operators have a log line"
# A job process that dies of something the judge did not do (the OOM killer, an
# operator, a crash in our Python) is our fault: the submission is judged again.
MAX_ATTEMPTS = 2
# Wall time for all of a submission's test cases together, beside each case's run_s.
# A GPU runs every lesson's reference tests in well under a second; on the
# emulator the slowest (flash-attention.forward) took 8.5 s of tests on a
# loaded 2-core machine. A kernel that stalls in every case stops here, under
# 20 s of wall time with its compile (docs/security.md, "Time").
TESTS_BUDGET_ENV = "KDOJO_TESTS_BUDGET_S"
DEFAULT_TESTS_BUDGET_S = {"cuda": 10.0, "emu": 15.0}
GPU_SPARES = 3  # job processes kept on a GPU: a back-to-back burst takes one a job (kernels/job_pool.py)
# A deferred profile job: its compile, one checked run and ncu's own budget (kernels/profile/gpu.py).
PROFILE_JOB_S = 60.0


class _JobLost(Exception):
    """The job process ended without a result and not by our hand."""


def tests_budget_from_env(backend: str = "emu") -> float:
    """$KDOJO_TESTS_BUDGET_S, else the backend's default (seconds)."""
    value = settings.value(TESTS_BUDGET_ENV)
    return value if value is not None else DEFAULT_TESTS_BUDGET_S.get(backend, DEFAULT_TESTS_BUDGET_S["emu"])


class UnknownExercise(KeyError):
    """No exercise has this id."""


class _State:
    """What the supervisor has learnt about a job so far (to assemble a result if it dies)."""

    def __init__(self, language: str = "cuda") -> None:
        self.language = language
        self.stage = "starting"
        self.compile: dict[str, Any] | None = None
        self.tests: list[dict[str, Any]] = []
        self.current: tuple[int, str] | None = None
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self.tests_started: float | None = None  # monotonic, at the first case
        self.case_started = 0.0
        self.compile_started = 0.0
        self.budget_binds = False  # the tests' budget, not run_s, set the current deadline
        self.tested: dict[str, Any] | None = None  # the "tested" event: the verdict before bench and profile
        self.released = False  # the job has passed its gate (it times from now on)


class Judge:
    def __init__(self, lessons_dir: Path | str | None = None, backend: str = "auto",
                 keep_spare: bool = True, tests_budget_s: float | None = None,
                 max_attempts: int = MAX_ATTEMPTS, spares: int = GPU_SPARES,
                 defer_profile: bool = False) -> None:
        """Raises targets.TargetUnavailable when `backend` (a target) cannot run here, ValueError
        for a bad $KDOJO_TESTS_BUDGET_S / $KDOJO_EMU_BUDGET_S / $KDOJO_PROFILE_GPU /
        $KDOJO_JOB_MEMORY_MB / $KDOJO_JOB_PIDS."""
        self.lessons_dir = Path(lessons_dir) if lessons_dir is not None else default_lessons_dir()
        self.backend = targets.resolve(backend)
        self.tests_budget_s = tests_budget_s or tests_budget_from_env(self.backend)
        targets.target_class(self.backend).check_settings()  # refused now, not in the first job
        self.timed = targets.timed(self.backend)  # a GPU: the benchmark, a deferred profile, gated timings
        self.job_limits = JobLimits.from_env()
        self.max_attempts = max(1, max_attempts)
        self.current_job: JobProcess | None = None  # the job process judging now (tests kill it)
        self.peak_gbps: float | None = None
        self.defer_profile = defer_profile and self.timed
        self._lock = threading.Lock()
        self._pool = SparePool(self._start, (spares if self.timed else 1) if keep_spare else 0,
                               warm_beside_jobs=self.timed)
        self._profiling: JobProcess | None = None  # a deferred profile's job (cancel_profile)
        self._baselines = BaselineCache()  # baseline times measured before learner code, reused a while
        self._pool.fill(warm=True)  # nothing runs yet: warm fully now

    def _start(self) -> JobProcess:
        return JobProcess(self.backend, self.lessons_dir, self.job_limits)

    @property
    def spares(self) -> list[JobProcess]:
        """The spare job processes now (oldest first)."""
        return self._pool.spares

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> "Judge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_ready(self, timeout_s: float = READY_TIMEOUT_S) -> bool:
        """Block until the spare job process is warm (e.g. at worker start-up, or
        to measure latency with a warm judge). False when there is no spare or it
        did not come up."""
        with self._lock:
            return self._pool.wait_ready(timeout_s)

    def exercise(self, exercise_id: str) -> Exercise:
        try:
            return find_exercise(exercise_id, self.lessons_dir)
        except KeyError:
            raise UnknownExercise(exercise_id) from None

    def run(self, source: str, exercise_id: str, bench: bool = True,
            on_event: Callable[[dict[str, Any]], None] | None = None,
            max_bench_sizes: int | None = None, language: str = "cuda") -> dict[str, Any]:
        """Judge `source`, written in `language` (kernels.languages.NAMES); returns the v1
        result document. Raises UnknownExercise, and languages.UnknownLanguage (a ValueError)
        for a name no language has. A language the exercise does not offer is the learner's
        `rejected` (`language_not_offered`). A deferred profile running on this judge is
        stopped first: no profile goes ahead of a verdict."""
        exercise = self.exercise(exercise_id)
        emit = on_event or (lambda event: None)
        languages.get(language)  # an unknown name is the caller's error, said now
        if language not in exercise.languages:
            return self._not_offered(exercise, language, emit)
        exercise = languages.judged_exercise(exercise, language, self.timed)  # its deadlines (#29)
        self.cancel_profile()
        with self._lock:
            started = time.monotonic()
            job_doc = {"source": source, "exercise": exercise.id, "language": language, "bench": bench,
                       "seed": secrets.randbits(62), "peak_gbps": self.peak_gbps,
                       "max_bench_sizes": max_bench_sizes, "profile": not self.defer_profile,
                       "gate": self.timed and self._pool.size > 0,
                       "baselines": self._baselines.known(exercise)
                       if self.timed and bench and exercise.benchmark is not None else None}
            doc = self._attempts(exercise, job_doc, emit)
            bench_doc = doc.get("benchmark") or {}
            if bench_doc.get("peak_gbps"):
                self.peak_gbps = bench_doc["peak_gbps"]
            doc["timings"]["total_s"] = round(time.monotonic() - started, 4)
        emit({"stage": Event.DONE, "verdict": doc["verdict"]})
        return doc

    def _not_offered(self, exercise: Exercise, language: str,
                     emit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """The `rejected` result for a language the exercise does not offer (no job runs)."""
        message = Message(f"this exercise is not offered in {languages.get(language).title}",
                          "language_not_offered", language=languages.get(language).title, exercise=exercise.id)
        doc = contract.build(exercise=exercise.id, backend=self.backend, verdict="rejected",
                               message=message, language=language,
                               timings_note=None if self.timed else EMU_TIMINGS_NOTE)
        emit({"stage": Event.DONE, "verdict": doc["verdict"]})
        return doc

    def wants_profile(self, doc: dict[str, Any]) -> bool:
        """True when `doc`, a result of this judge, left its GPU profile for `profile()`."""
        if not self.defer_profile or doc.get("verdict") != "accepted" or "profile" in doc:
            return False
        language = doc.get("language", "cuda")
        if language not in languages.NAMES or not languages.profiled(language, self.backend):
            return False
        from kernels.profile import run as profile_run

        return profile_run.enabled(self.exercise(doc["exercise"]), self.backend)

    def profile(self, source: str, exercise_id: str,
                benchmark: dict[str, Any] | None = None, language: str = "cuda") -> dict[str, Any] | None:
        """The profile of an attempt already judged accepted, made now in its own job
        process (`benchmark`: its result's, for the roofline point). None when there
        is none, it failed, or `cancel_profile()` stopped it (a verdict came first)."""
        exercise = self.exercise(exercise_id)
        with self._lock:
            job = self._profiling = self._take()
            try:
                return self._profile_job(job, {"mode": "profile", "source": source, "exercise": exercise.id,
                                               "language": language, "seed": secrets.randbits(62),
                                               "benchmark": benchmark})
            finally:
                self._profiling = None
                # stopped for a verdict: that verdict need not wait for this exit (an
                # accepted kernel under ncu, not a runaway one)
                job.kill(reap_in_background=job.sent_result or job.killed_by_us)
                self._pool.job_ended()

    def cancel_profile(self) -> bool:
        """Stop a deferred profile in flight (from any thread); True if one was."""
        job = self._profiling
        if job is None:
            return False
        job.kill(reap_in_background=True)
        return True

    def _profile_job(self, job: JobProcess, job_doc: dict[str, Any]) -> dict[str, Any] | None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        pending: list[Any] = list(job.early_events)
        job.send(job_doc)
        while True:
            try:
                event = pending.pop(0) if pending else job.read_event(deadline)
            except (RuntimeError, ValueError):
                return None
            if not isinstance(event, dict):  # the deadline, or killed by cancel_profile()
                return None
            stage = event.get("stage")
            if stage == Event.COMPILING:
                deadline = time.monotonic() + PROFILE_JOB_S
            elif stage == Event.RESULT:
                job.sent_result = True
                return (event.get("result") or {}).get("profile")
            elif stage == Event.INTERNAL_ERROR:
                log.error("deferred profile of %s failed: %s", job_doc["exercise"], event.get("error", ""))
                return None

    def _take(self) -> JobProcess:
        return self._pool.take()

    def _attempts(self, exercise: Exercise, job_doc: dict[str, Any],
                  emit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Judge in a job process; one lost to a signal we did not send is replaced."""
        lost: list[str] = []
        for attempt in range(1, self.max_attempts + 1):
            job = self.current_job = self._take()
            try:
                return self._supervise(job, exercise, job_doc, emit)
            except _JobLost as exc:
                lost.append(str(exc).split(":", 1)[0])
                log.error("job process lost (attempt %d of %d, %s, %s): %s", attempt,
                          self.max_attempts, exercise.id, self.backend, printable(str(exc)))
            finally:
                # the job sent its result: its process only has to exit
                job.kill(reap_in_background=job.sent_result)
                self._pool.job_ended()  # spares warm now (the emulator's starts now)
        message = Message(f"the judge lost its job process {len(lost)} times (last: {lost[-1]}); "
                          "not your fault: submit again, the operators have a log line", "internal")
        return contract.build(exercise=exercise.id, backend=self.backend, verdict="internal_error",
                                message=message, timings_note=None if self.timed else EMU_TIMINGS_NOTE,
                                language=job_doc.get("language", "cuda"))

    def _tests_budget(self, state: _State) -> float:
        """The tests' wall budget for the attempt's language: on the CPU scaled by the
        language's `cpu_time_scale` (Triton's interpreter, #29)."""
        return self.tests_budget_s * languages.time_scale(state.language, self.timed)

    def _case_deadline(self, state: _State, exercise: Exercise) -> float:
        """The earlier of this case's run_s (+ slack) and the end of the tests' budget."""
        now = time.monotonic()
        state.case_started = now
        if state.tests_started is None:
            state.tests_started = now
        case_end = now + exercise.limits.run_s + SLACK_S
        budget_end = state.tests_started + self._tests_budget(state)
        state.budget_binds = budget_end < case_end
        return min(case_end, budget_end)

    def _supervise(self, job: JobProcess, exercise: Exercise, job_doc: dict[str, Any],
                   emit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        state = _State(job_doc.get("language", "cuda"))
        deadline = time.monotonic() + READY_TIMEOUT_S  # the job may still have to warm up
        pending: list[Any] = list(job.early_events)
        job.send(job_doc, close=not job_doc.get("gate"))
        while True:
            try:
                event = pending.pop(0) if pending else job.read_event(deadline)
            except (RuntimeError, ValueError) as exc:  # an over-long or malformed line: ours
                job.kill()
                state.error = f"bad event from the job process: {exc}"
                return self._abnormal(exercise, state, job, timed_out=False)
            if event == "timeout" or event is None:
                if event == "timeout":
                    job.kill()
                return self._abnormal(exercise, state, job, timed_out=event == "timeout")
            stage = event.get("stage")
            if stage == Event.COMPILING:
                grace = 0.0 if self.timed else EMU_COMPILE_GRACE_S
                state.compile_started = time.monotonic()
                # NVRTC's helper may wait up to WALL_CAP_FACTOR × compile_s when starved of CPU
                nvrtc_s = WALL_CAP_FACTOR * exercise.limits.compile_s
                deadline = state.compile_started + nvrtc_s + SLACK_S + grace
                state.stage = "compiling"
            elif stage == Event.COMPILED:
                state.compile = event["compile"]
            elif stage == Event.CASE_START:
                state.stage, state.current = "testing", (event["index"], event["name"])
                deadline = self._case_deadline(state, exercise)
                # public too: the page shows "testing i/n" as the case starts (#13)
                deadline += _emit_untimed(emit, {"stage": Event.TEST_START, "index": event["index"],
                                                 "total": event["total"]}, state)
            elif stage == Event.TESTING:
                state.tests.append(event["test"])
                state.current = None
            elif stage in (Event.BASELINES_START, Event.BENCH_START):
                state.stage = "benchmarking" if stage == Event.BENCH_START else "baselines"
                if job_doc.get("gate") and not state.released:  # no spare's GPU phase beside timed calls
                    self._pool.settle()
                    job.release()
                    state.released = True
                # + peak-bandwidth measurement (first job only) and input generation
                deadline = time.monotonic() + exercise.limits.bench_s + 2 * SLACK_S + 5
            elif stage == Event.BASELINES:
                self._baselines.store(exercise, event)
            elif stage == Event.TESTED:
                state.tested = event
            elif stage == Event.PROFILE_START:  # #16: one more checked run and one NVRTC compile
                state.stage = "profiling"
                deadline = time.monotonic() + exercise.limits.run_s + exercise.limits.compile_s + 2 * SLACK_S
            elif stage == Event.RESULT:
                job.sent_result = True
                return event["result"]
            elif stage == Event.INTERNAL_ERROR:
                state.error = event.get("error", "")
                job.wait(5)
                return self._abnormal(exercise, state, job, timed_out=False)
            if not str(stage).startswith("_"):
                deadline += _emit_untimed(emit, event, state)

    def _abnormal(self, exercise: Exercise, state: _State, job: JobProcess,
                  timed_out: bool) -> dict[str, Any]:
        """A result for a job that was killed, died, or failed on our side. Raises
        _JobLost when it died of something we did not do (to be judged again)."""
        code = job.wait(10)
        if not timed_out and state.error is None and not job.killed_by_us and not job.oom_kills:
            raise _JobLost(f"{_describe_exit(code)}: in {state.stage}; {job.stderr_tail[-800:].strip()}")
        tests = list(state.tests)
        limits = exercise.limits
        if state.error is not None or state.stage == "starting":
            detail = state.error or f"job process ended during start-up (exit {code}): {job.stderr_tail}"
            log.error("judge internal error (%s, %s): %s", exercise.id, self.backend, printable(detail.strip()))
            verdict, message = "internal_error", Message(_internal_sentence(state.error), "internal")
        elif state.stage == "compiling":
            verdict, message = self._compile_abnormal(exercise, state, job, timed_out, code)
        elif state.stage == "testing" and state.current is not None:
            name = state.current[1]
            verdict, why = self._case_abnormal(exercise, state, job, timed_out)
            tests.append({"name": name, "status": "error", "message": str(why), **code_fields(why),
                          "output": ""})
            message = Message(f"{name}: {why}", "case_failed", case=name)
        elif state.stage == "profiling" and state.error is None and (state.tested or {}).get("verdict") == "accepted":
            # the profile is extra (#16, #26): its run dying, killed or late leaves the verdict as it
            # was, without a profile (and, on a GPU, without the benchmark that came before it)
            log.warning("profile of %s ended abnormally (%s, %s, %d OOM kill(s)): no profile; %s", exercise.id,
                        "timed out" if timed_out else "died", _describe_exit(code), job.oom_kills,
                        job.stderr_tail[-400:].strip())
            verdict, message = "accepted", _tested_message(state.tested)
        elif state.stage == "benchmarking" and timed_out:
            verdict = "time_limit_exceeded"
            message = Message(f"the benchmark did not finish within {limits.bench_s:g} s",
                              "bench_timeout", seconds=limits.bench_s)
        else:
            log.error("job process ended unexpectedly in %s (exit %s, %d OOM kill(s)): %s", state.stage,
                      code, job.oom_kills, printable(job.stderr_tail))
            verdict, message = "internal_error", Message(INTERNAL_MESSAGE, "internal")
        compile_doc = state.compile or contract.empty_compile()
        return contract.build(
            exercise=exercise.id, backend=self.backend, verdict=verdict, message=message,
            compile_=compile_doc, tests=tests,
            timings={"compile_s": compile_doc.get("seconds", 0.0)},
            timings_note=None if self.timed else EMU_TIMINGS_NOTE, language=state.language)

    def _compile_abnormal(self, exercise: Exercise, state: _State, job: JobProcess, timed_out: bool,
                          code: int | None) -> tuple[str, Message]:
        seconds = exercise.limits.compile_s
        if timed_out:  # the NVRTC helper stops at compile_s: this is g++ or worse
            elapsed = time.monotonic() - state.compile_started
            return "compile_error", Message(f"compilation did not finish within {seconds:g} s (stopped "
                                            f"after {elapsed:.1f} s)", "compile_timeout", seconds=seconds)
        if job.oom_kills:
            text = f"the compiler ran past the job's memory limit ({job.limits.memory_mb} MB)"
            return "compile_error", Message(text, "compile_memory", megabytes=job.limits.memory_mb)
        log.error("job process died while compiling (exit %s): %s", code, printable(job.stderr_tail))
        return "internal_error", Message(INTERNAL_MESSAGE, "internal")

    def _case_abnormal(self, exercise: Exercise, state: _State, job: JobProcess,
                       timed_out: bool) -> tuple[str, Message]:
        """The verdict and the case's message when the job ended during a case."""
        now = time.monotonic()
        elapsed, total = now - state.case_started, now - (state.tests_started or now)
        if job.oom_kills:
            megabytes = job.limits.memory_mb
            return "memory_limit_exceeded", Message(
                f"memory limit exceeded: the job ran past its {megabytes} MB", "memory_limit", megabytes=megabytes)
        if state.budget_binds:
            budget = self._tests_budget(state)
            return "time_limit_exceeded", Message(
                f"time limit exceeded: the tests ran past their {budget:g} s budget (stopped after "
                f"{total:.1f} s of tests, {elapsed:.1f} s into this case)", "time_limit", seconds=budget)
        run_s = exercise.limits.run_s
        return "time_limit_exceeded", Message(
            f"time limit exceeded: did not finish within {run_s:g} s (stopped after {elapsed:.1f} s)",
            "time_limit", seconds=run_s)


def _emit_untimed(emit: Callable[[dict[str, Any]], None], event: dict[str, Any], state: _State) -> float:
    """Call the caller's `emit`; returns the seconds it took, by which the stage's
    clocks move on. A slow callback (a busy database storing progress, issue #25)
    is not the kernel's time and must never turn into a time limit."""
    began = time.monotonic()
    emit(event)
    spent = time.monotonic() - began
    state.compile_started += spent
    state.case_started += spent
    if state.tests_started is not None:
        state.tests_started += spent
    return spent


def _internal_sentence(error: str | None) -> str:
    """INTERNAL_MESSAGE, with the backend's own sentence when it raised one for the
    learner (`RuntimeError("emulator: …")`, e.g. a program killed by the OOM killer twice)."""
    last = (error or "").strip().splitlines()[-1:] or [""]
    prefix = "RuntimeError: emulator: "
    if last[0].startswith(prefix):
        return f"the judge failed on our side (not your fault): {last[0][len(prefix):]}; " \
               "the operators have a log line"
    return INTERNAL_MESSAGE


def _tested_message(tested: dict[str, Any]) -> str:
    """The "tested" event's message, with its code where it had one."""
    text, code = str(tested.get("message", "")), tested.get("message_code")
    params = tested.get("message_params") or {}
    try:
        return Message(text, code, **params) if code else text
    except ValueError:  # a code this version does not know: the English text stands
        return text


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "did not exit"
    if code < 0:
        import signal

        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"
