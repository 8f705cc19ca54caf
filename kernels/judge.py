"""The judge entry point: `Judge(lessons_dir, backend="auto").run(source, exercise_id, …)`.

Every run happens in a fresh job process (`kernels.worker`); one spare is
kept warm (cupy imported, CUDA context created) so isolation costs no
latency. The supervisor forwards public events, enforces per-stage wall-clock
limits by killing the job's process group, and assembles the v1 result even
when the process was killed or died.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable

from kernels import backends, result as result_doc
from kernels.catalog import default_lessons_dir, find_exercise
from kernels.nvrtc_child import WALL_CAP_FACTOR
from kernels.pipeline import EMU_TIMINGS_NOTE
from kernels.result import Message, code_fields
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


class _JobLost(Exception):
    """The job process ended without a result and not by our hand."""


def tests_budget_from_env(backend: str = "emu") -> float:
    """$KDOJO_TESTS_BUDGET_S, else the backend's default (seconds)."""
    raw = os.environ.get(TESTS_BUDGET_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_TESTS_BUDGET_S.get(backend, DEFAULT_TESTS_BUDGET_S["emu"])
    except ValueError:
        raise ValueError(f"{TESTS_BUDGET_ENV}: expected seconds, got {raw!r}") from None
    if not value > 0:
        raise ValueError(f"{TESTS_BUDGET_ENV}: expected seconds > 0, got {raw!r}")
    return value


class UnknownExercise(KeyError):
    """No exercise has this id."""


class _State:
    """What the supervisor has learnt about a job so far (to assemble a result if it dies)."""

    def __init__(self) -> None:
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


class Judge:
    def __init__(self, lessons_dir: Path | str | None = None, backend: str = "auto",
                 keep_spare: bool = True, tests_budget_s: float | None = None,
                 max_attempts: int = MAX_ATTEMPTS) -> None:
        """Raises backends.BackendUnavailable when `backend` cannot run here, ValueError
        for a bad $KDOJO_TESTS_BUDGET_S / $KDOJO_EMU_BUDGET_S / $KDOJO_PROFILE_GPU /
        $KDOJO_JOB_MEMORY_MB / $KDOJO_JOB_PIDS."""
        self.lessons_dir = Path(lessons_dir) if lessons_dir is not None else default_lessons_dir()
        self.backend = backends.resolve(backend)
        self.keep_spare = keep_spare
        self.tests_budget_s = tests_budget_s or tests_budget_from_env(self.backend)
        if self.backend == "emu":
            from kernels.emu.backend import budget_s

            budget_s()  # a bad $KDOJO_EMU_BUDGET_S is refused now, not in the first job
            from kernels.profile_model import gpu_name

            gpu_name()  # and a bad $KDOJO_PROFILE_GPU (#26)
        self.job_limits = JobLimits.from_env()
        self.max_attempts = max(1, max_attempts)
        self.current_job: JobProcess | None = None  # the job process judging now (tests kill it)
        self.peak_gbps: float | None = None
        self._lock = threading.Lock()
        self._spare: JobProcess | None = None
        if keep_spare:
            self._spare = self._start()
            self._spare.request_warm()  # nothing runs yet: warm fully now

    def _start(self) -> JobProcess:
        return JobProcess(self.backend, self.lessons_dir, self.job_limits)

    def close(self) -> None:
        if self._spare is not None:
            self._spare.close()
            self._spare = None

    def __enter__(self) -> "Judge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_ready(self, timeout_s: float = READY_TIMEOUT_S) -> bool:
        """Block until the spare job process is warm (e.g. at worker start-up, or
        to measure latency with a warm judge). False when there is no spare or it
        did not come up."""
        with self._lock:
            return self._spare is not None and self._spare.wait_ready(timeout_s)

    def exercise(self, exercise_id: str) -> Exercise:
        try:
            return find_exercise(exercise_id, self.lessons_dir)
        except KeyError:
            raise UnknownExercise(exercise_id) from None

    def run(self, source: str, exercise_id: str, bench: bool = True,
            on_event: Callable[[dict[str, Any]], None] | None = None,
            max_bench_sizes: int | None = None) -> dict[str, Any]:
        """Judge `source`; returns the v1 result document. Raises UnknownExercise."""
        exercise = self.exercise(exercise_id)
        emit = on_event or (lambda event: None)
        with self._lock:
            started = time.monotonic()
            job_doc = {"source": source, "exercise": exercise.id, "bench": bench,
                       "seed": secrets.randbits(62), "peak_gbps": self.peak_gbps,
                       "max_bench_sizes": max_bench_sizes}
            doc = self._attempts(exercise, job_doc, emit)
            bench_doc = doc.get("benchmark") or {}
            if bench_doc.get("peak_gbps"):
                self.peak_gbps = bench_doc["peak_gbps"]
            doc["timings"]["total_s"] = round(time.monotonic() - started, 4)
        emit({"stage": "done", "verdict": doc["verdict"]})
        return doc

    def _take(self) -> JobProcess:
        job, self._spare = (self._spare or self._start()), None
        if self.keep_spare and self.backend != "emu":
            # imports only while this job runs: its GPU warm-up (context,
            # kernels, a 100 MB L2 flush) would disturb this job's timings.
            # An emulator job is CPU-bound on every core (two compilers at
            # once, then the tests beside the profiler's compile): a spare
            # importing beside it took 0.3 CPU-s from it (block_sum's judge run
            # 0.70 -> 0.58 s on 2 cores), so its spare starts when it ends.
            self._spare = self._start()
        return job

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
                          self.max_attempts, exercise.id, self.backend, exc)
            finally:
                # the job sent its result: its process only has to exit
                job.kill(reap_in_background=job.sent_result)
                if self.keep_spare and self._spare is None:  # the emulator's (_take)
                    self._spare = self._start()
                if self._spare is not None:
                    self._spare.request_warm()
        message = Message(f"the judge lost its job process {len(lost)} times (last: {lost[-1]}); "
                          "not your fault: submit again, the operators have a log line", "internal")
        return result_doc.build(exercise=exercise.id, backend=self.backend, verdict="internal_error",
                                message=message, timings_note=EMU_TIMINGS_NOTE if self.backend == "emu"
                                else None)

    def _case_deadline(self, state: _State, exercise: Exercise) -> float:
        """The earlier of this case's run_s (+ slack) and the end of the tests' budget."""
        now = time.monotonic()
        state.case_started = now
        if state.tests_started is None:
            state.tests_started = now
        case_end = now + exercise.limits.run_s + SLACK_S
        budget_end = state.tests_started + self.tests_budget_s
        state.budget_binds = budget_end < case_end
        return min(case_end, budget_end)

    def _supervise(self, job: JobProcess, exercise: Exercise, job_doc: dict[str, Any],
                   emit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        state = _State()
        deadline = time.monotonic() + READY_TIMEOUT_S  # the job may still have to warm up
        pending: list[Any] = list(job.early_events)
        job.send(job_doc)
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
            if stage == "compiling":
                grace = EMU_COMPILE_GRACE_S if self.backend == "emu" else 0.0
                state.compile_started = time.monotonic()
                # NVRTC's helper may wait up to WALL_CAP_FACTOR × compile_s when starved of CPU
                nvrtc_s = WALL_CAP_FACTOR * exercise.limits.compile_s
                deadline = state.compile_started + nvrtc_s + SLACK_S + grace
                state.stage = "compiling"
            elif stage == "_compiled":
                state.compile = event["compile"]
            elif stage == "_test_start":
                state.stage, state.current = "testing", (event["index"], event["name"])
                deadline = self._case_deadline(state, exercise)
                # public too: the page shows "testing i/n" as the case starts (#13)
                emit({"stage": "test_start", "index": event["index"], "total": event["total"]})
            elif stage == "testing":
                state.tests.append(event["test"])
                state.current = None
            elif stage == "_bench_start":
                state.stage = "benchmarking"
                # + peak-bandwidth measurement (first job only) and input generation
                deadline = time.monotonic() + exercise.limits.bench_s + 2 * SLACK_S + 5
            elif stage == "tested":
                state.tested = event
            elif stage == "_profile_start":  # #16: one more checked run and one NVRTC compile
                state.stage = "profiling"
                deadline = time.monotonic() + exercise.limits.run_s + exercise.limits.compile_s + 2 * SLACK_S
            elif stage == "_result":
                job.sent_result = True
                return event["result"]
            elif stage == "_internal_error":
                state.error = event.get("error", "")
                job.wait(5)
                return self._abnormal(exercise, state, job, timed_out=False)
            if not str(stage).startswith("_"):
                emit(event)

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
            log.error("judge internal error (%s, %s): %s", exercise.id, self.backend, detail.strip())
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
                      code, job.oom_kills, job.stderr_tail)
            verdict, message = "internal_error", Message(INTERNAL_MESSAGE, "internal")
        compile_doc = state.compile or result_doc.empty_compile()
        return result_doc.build(
            exercise=exercise.id, backend=self.backend, verdict=verdict, message=message,
            compile_=compile_doc, tests=tests,
            timings={"compile_s": compile_doc.get("seconds", 0.0)},
            timings_note=EMU_TIMINGS_NOTE if self.backend == "emu" else None)

    def _compile_abnormal(self, exercise: Exercise, state: _State, job: JobProcess, timed_out: bool,
                          code: int | None) -> tuple[str, Message]:
        seconds = exercise.limits.compile_s
        if timed_out:  # the NVRTC helper stops at compile_s: this is g++ or worse
            elapsed = time.monotonic() - state.compile_started
            return "compile_error", Message(f"compilation did not finish within {seconds:g} s (stopped "
                                            f"after {elapsed:.1f} s)", "compile_timeout", seconds=seconds)
        if job.oom_kills:
            text = f"the compiler ran past the job's memory limit ({job.limits.memory_mb} MB)"
            return "compile_error", Message(text, "compile_failed", line=0, detail=text)
        log.error("job process died while compiling (exit %s): %s", code, job.stderr_tail)
        return "internal_error", Message(INTERNAL_MESSAGE, "internal")

    def _case_abnormal(self, exercise: Exercise, state: _State, job: JobProcess,
                       timed_out: bool) -> tuple[str, Message]:
        """The verdict and the case's message when the job ended during a case."""
        now = time.monotonic()
        elapsed, total = now - state.case_started, now - (state.tests_started or now)
        if job.oom_kills:
            megabytes = job.limits.memory_mb
            return "memory_limit_exceeded", Message(
                f"memory limit exceeded: the job ran past its {megabytes} MB", "fault",
                name="memory limit exceeded", detail=f"the job ran past its {megabytes} MB")
        if state.budget_binds:
            budget = self.tests_budget_s
            return "time_limit_exceeded", Message(
                f"time limit exceeded: the tests ran past their {budget:g} s budget (stopped after "
                f"{total:.1f} s of tests, {elapsed:.1f} s into this case)", "time_limit", seconds=budget)
        run_s = exercise.limits.run_s
        return "time_limit_exceeded", Message(
            f"time limit exceeded: did not finish within {run_s:g} s (stopped after {elapsed:.1f} s)",
            "time_limit", seconds=run_s)


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
