"""The `emu` target: kernels on the CPU, with checks a GPU cannot make. CUDA C is
built and run here; another language's compile result is handed to that language's
own CPU runner (Triton: its interpreter, kernels/triton/interp.py), whose program
runs itself (`Program.handle.run`).

build()  checks and rewrites the source (kernels/emu/source.py), adds the
         kernel table (launcher.py) and compiles two programs with g++
         (build.py): `fast` and the instrumented `check`.
run()    sends the case to the `fast` program (one long-lived, sandboxed
         process per submission, see process.py) and, for small cases, to the
         `check` program in adversarial order (threads and blocks reversed).
         The verdict comes from the fast run's buffers, checked by the judge
         like any target's; the check run adds diagnostics (out-of-bounds
         accesses, data races, with the learner's lines). A data race — found
         by the checker or by a result that changes with the order — fails
         the case as a wrong answer: on a GPU its result is luck.

Timings are not representative here; `timed` is False and the
result says so.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kernels import settings
from kernels.targets.base import (BuildError, Diagnostic, GuardedArray, Launch, Program, RunDiagnostic, RunOutcome,
                                  RuntimeFault, Target, TargetUnavailable, unique_diagnostics)
from kernels.emu import build as toolchain
from kernels.emu import launcher
from kernels.emu import jail, objcheck, preprocessed
from kernels.emu.objcheck import ObjectRefused
from kernels.emu.process import OURS, Crash, ProgramProcess
from kernels.emu.protocol import (ARG_BUFFER, ARG_FLOAT, ARG_INT, WireBuffer, WireLaunch, WireResponse,
                                  encode_request, float_bits, int_bits)
from kernels.emu.messages import coded
from kernels.emu.source import SourceError, library_headers, prepare
from kernels.messages import Message

# The check run is several times slower than the fast one: only cases this small
# get it (races and overruns show at small sizes; 16384 threads = 64 blocks of 256).
CHECK_MAX_THREADS = 1 << 14
CHECK_MAX_BYTES = 16 << 20
_FLOAT_CTYPES = ("float", "double", "__half", "half", "__nv_bfloat16")
# Scheduler faults and the verdict each maps to (anything else: runtime_error).
_FAULT_KINDS = {"deadlock": "time_limit_exceeded"}
# What an answer may carry. The program runs the learner's code, so its answer is
# data to check, never trusted: unknown diagnostic kinds are dropped, text is capped.
DIAGNOSTIC_KINDS = frozenset({"divergent_barrier", "warp_mask", "warp_mask_mismatch", "shuffle_source", "deadlock",
                              "out_of_bounds", "race", "stack_overflow", "invalid_memory_access", "trap",
                              "check_crash", "assert", "invalid_launch", "printf", "misaligned_address",
                              "grid_sync_without_a_cooperative_launch", "invalid_tile_size", "uninitialised_read",
                              "benign_race", "atomic_read_race"})
# Wall time for everything a submission's own code makes the emulator do: g++ on it,
# every case (fast and checked runs), the symbolizer, the profile. Counted from the
# pipeline's start (start_submission), so NVRTC's check of the source is in it too.
# No lesson's reference needs half of it (the slowest, flash-attention.forward: 8.5 s
# of tests on a loaded 2-core machine, plus 1-3 s of compile); a kernel that sleeps
# just under its case limit in every case ends here, under 20 s with the job's start.
BUDGET_ENV = "KDOJO_EMU_BUDGET_S"
DEFAULT_BUDGET_S = settings.BY_ENV[BUDGET_ENV].default
_NO_DEADLINE = float("inf")


def budget_s() -> float:
    """$KDOJO_EMU_BUDGET_S, else DEFAULT_BUDGET_S. ValueError names a bad value (the
    judge checks it when it starts)."""
    return settings.value(BUDGET_ENV)


MAX_DIAGNOSTICS = 32
MAX_TEXT_CHARS = 2000
MAX_LINE = 1 << 20  # no line of a 256 KB source is past this: a larger one is forged
MAX_OUTPUT_CHARS = 16 * 1024 + 64
_PC_TAG = re.compile(r"@@PC:0x([0-9a-f]+)@@")
# Programs that never run at once (#27): with the checked one they would hold more than the
# submission's KDOJO_EMU_MEMORY_MB (the profiler's program was started beside both: 3 GB of 2).
_EXCLUSIVE = {toolchain.PROFILE_VARIANT: ("fast",), "fast": (toolchain.PROFILE_VARIANT,)}


@dataclass
class EmuHandle:
    built: toolchain.Built
    exercise: Any
    processes: dict[str, ProgramProcess] = field(default_factory=dict)
    _profile_build: threading.Thread | None = None
    _profile_errors: list = field(default_factory=list)  # the background compile's exception
    deadline: float = _NO_DEADLINE  # time.monotonic() at which the submission's budget ends
    budget_s: float = DEFAULT_BUDGET_S
    # the background compile's processes: stopped with the handle, never left after a verdict
    _compiles: list = field(default_factory=list)

    def start_profile_build(self) -> None:
        """Compile the profiler's program (#16: the check program with basic-block coverage) in
        the background, e.g. while the tests run, so the profile step does not wait for it."""
        if self._profile_build is None:
            # Within the submission's budget (#11), and the thread holds no reference to
            # the handle: the handle's finalizer (and close()) stop the compile with it,
            # rather than the compile keeping the handle, and itself, alive past the verdict.
            timeout_s = min(float(self.exercise.limits.compile_s), max(0.5, self.remaining_s()))
            self._profile_build = threading.Thread(
                target=_build_profile, args=(self.built, timeout_s, self._compiles, self._profile_errors),
                name="kdojo-profile-build", daemon=True)
            self._profile_build.start()

    def profile_process(self, cpu_s: int, wait_s: float | None = None) -> ProgramProcess:
        """The profiler's program's process; raises toolchain.CompilerLimit / ToolchainError
        if it could not be built (or was still compiling after `wait_s`)."""
        self.start_profile_build()
        self._profile_build.join(wait_s)
        if self._profile_build.is_alive():
            raise toolchain.CompilerLimit("the profiler's program was still compiling")
        if self._profile_errors:
            raise self._profile_errors[0]
        return self.process(toolchain.PROFILE_VARIANT, cpu_s)

    def remaining_s(self) -> float:
        return self.deadline - time.monotonic()

    def time_left(self, limit_s: float) -> float:
        """A run's wall limit: `limit_s`, cut to what is left of the budget; _BudgetSpent
        (run() makes it the submission's time_limit_exceeded) when nothing is left."""
        timeout_s = min(limit_s, self.remaining_s())
        if timeout_s <= 0:
            raise _BudgetSpent
        return timeout_s

    def spent(self) -> bool:
        """The budget is over (a run's time-out at this moment was the budget's, not the case's)."""
        return self.remaining_s() <= 0.05

    def call(self, variant: str, request: bytes, limit_s: float) -> tuple[WireResponse | Crash, float]:
        """One request on `variant`'s program within `limit_s` cut to the budget (time_left),
        and the wall limit it ran under. A crash that is the machine's, not the program's
        (OURS: a signal we did not send, a sandbox that could not start it), is run once more
        in a fresh program; a second one is ours (RuntimeError: internal_error)."""
        for fresh in (False, True):
            timeout_s = self.time_left(limit_s)
            cpu_s = _cpu_budget(timeout_s)
            got = self.process(variant, cpu_s, fresh).call(request, timeout_s, cpu_s)
            if not (isinstance(got, Crash) and got.kind == OURS):
                return got, timeout_s
        raise RuntimeError(f"emulator: {got.message} (twice)")

    def process(self, variant: str, cpu_s: int, fresh: bool = False) -> ProgramProcess:
        proc = self.processes.get(variant)
        if fresh and proc is not None:
            proc.kill()
        if fresh or proc is None or not proc.alive:
            # The programs alive at once share the submission's memory (jail.program_memory_bytes):
            # the profiler's program takes the fast one's two thirds, so that one ends first.
            for other in _EXCLUSIVE.get(variant, ()):
                if other in self.processes:
                    self.processes.pop(other).kill()
            proc = ProgramProcess(self.built.programs[variant], cpu_s)
            self.processes[variant] = proc
        return proc

    def close(self) -> None:
        _close(self.processes, self.built.work_dir, self._compiles)
        self.processes.clear()


def _build_profile(built: toolchain.Built, timeout_s: float, compiles: list, errors: list) -> None:
    try:
        toolchain.compile_profile_program(built, timeout_s, compiles)
    except BaseException as exc:  # noqa: BLE001 — handed to profile_process's caller
        errors.append(exc)


def _close(processes: dict[str, ProgramProcess], work_dir: Path, compiles: list | None = None) -> None:
    for proc in processes.values():
        proc.kill()
    for proc in compiles or []:  # the profiler's program, still compiling in the background (#11)
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, 9)
            except ProcessLookupError:
                pass
    shutil.rmtree(work_dir, ignore_errors=True)


class EmuTarget(Target):
    name = "emu"
    arch: str | None = None
    timed = False
    _started: float | None = None  # start_submission's clock, for the next build

    @classmethod
    def check_settings(cls) -> None:
        """A bad $KDOJO_EMU_BUDGET_S or $KDOJO_PROFILE_GPU (#26) is refused now (ValueError)."""
        from kernels.profile.model import gpu_name

        budget_s()
        gpu_name()

    def submission_budget_s(self) -> float:
        """A submission's wall budget (budget_s()); a trusted tool judging the lessons' own
        files (kernels/coverage.py) gives itself more."""
        return budget_s()

    def start_submission(self, started: float | None = None) -> None:
        """Start the clock of the next submission's budget (budget_s()) at `started`
        (time.monotonic(); default now). The pipeline calls it first thing, so
        NVRTC's check counts. A build without it (our own tools: the speed and
        profile benches, tests that run one program for minutes) has no budget."""
        self._started = time.monotonic() if started is None else started

    def unavailable_reason(self) -> str | None:
        """One line for the operator when the emulator cannot judge here: no toolchain,
        or no sandbox (fail closed: see kernels/emu/jail.py)."""
        if not toolchain.toolchain_ok():
            return "the emulator needs g++ and Boost.Context (apt-get install g++ libboost-context-dev)"
        return jail.refusal()

    def preload(self) -> None:
        """Called by the judge's spare job process before a job arrives: the runtime's
        objects (cached across jobs), the libraries' symbols for the object check and the
        bubblewrap probe are paid for here."""
        for variant in toolchain.VARIANTS:
            toolchain.runtime_objects(variant)
        try:
            objcheck.library_symbols(toolchain.gxx() or "g++")
        except objcheck.LibrariesUnreadable:
            pass  # the build reports it (ToolchainError): a spare must still start
        jail.mode()

    def prepare_profile(self, program: Program) -> None:
        """The judge will profile this program if it is accepted (#16): start compiling the
        profiler's program now, beside the tests."""
        program.handle.start_profile_build()

    def device_info(self) -> dict[str, Any]:
        return {"name": f"CPU emulator ({platform.machine()}, {os.cpu_count()} cores)",
                "sm_clock_mhz": None, "temp_c": None}

    def build(self, exercise: Any, source: str, compiled: Any) -> Program:
        """Build the accepted compile result `compiled` of `source` (kernels.compile.CompileResult:
        CUDA's #define constants, or another language's artifact). Raises BuildError."""
        if compiled.language == "triton":
            from kernels.triton.interp import build_program  # the Triton interpreter (#29), imported lazily

            self._started = None
            return build_program(exercise, source, compiled, self)
        if not compiled.ok:
            raise BuildError(compiled.diagnostics, compiled.log)
        started, self._started = self._started, None  # this submission's clock, used once
        constants = compiled.constants
        refused = jail.refusal()
        if refused:  # the judge refuses at start-up; this is the second line of that defence
            raise TargetUnavailable(refused)
        try:
            learner = prepare(source)
            # Inside the handler too: it reads the raw source's #includes, and what it
            # refuses (should prepare() have let the source through) is the learner's
            # error, not an exception from the judge (internal_error).
            headers = library_headers(source)
        except SourceError as exc:
            raise BuildError([Diagnostic(exc.line, 0, "error", exc.message)], exc.message,
                             needs_gpu=exc.feature if exc.kind == "unsupported" else "") from None
        names = _kernel_names(exercise)
        tu = _defines(source, exercise, constants) + launcher.translation_unit(learner, names, headers)
        budget = self.submission_budget_s()
        deadline = started + budget if started is not None else _NO_DEADLINE
        compile_s = min(float(exercise.limits.compile_s), deadline - time.monotonic())
        if compile_s <= 0.5:
            message = Message(f"the compile did not start: the submission's {budget:g} s budget was spent",
                              "compile_budget", seconds=f"{budget:g}")
            raise BuildError([Diagnostic(0, 0, "error", message)], message)
        try:
            built, messages, log = toolchain.compile_programs(
                tu, compile_s, check=lambda text: preprocessed.check(text, toolchain.RUNTIME_DIR),
                kernels=tuple(names))
        except (toolchain.CompilerLimit, ObjectRefused) as exc:
            message = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
            raise BuildError([Diagnostic(0, 0, "error", message)], str(exc)) from None
        except SourceError as exc:  # the checks on what g++'s preprocessor made of the source
            raise BuildError([Diagnostic(exc.line, 0, "error", exc.message)], exc.message,
                             needs_gpu=exc.feature if exc.kind == "unsupported" else "") from None
        if built is None:
            diags = _compile_diagnostics(messages, exercise)
            raise BuildError(diags, "\n".join(f"{launcher.LEARNER_FILE}:{d.line}: {d.message}" for d in diags))
        handle = EmuHandle(built, exercise, deadline=deadline, budget_s=budget)
        weakref.finalize(handle, _close, handle.processes, built.work_dir, handle._compiles)
        return Program(kernels=tuple(names), handle=handle)

    def run(self, program: Program, launches: list[Launch], buffers: dict[str, GuardedArray],
            timeout_s: float) -> RunOutcome:
        if hasattr(program.handle, "run"):  # a language's own runner (Triton's interpreter)
            return program.handle.run(launches, buffers, timeout_s)
        try:
            return self._run(program, launches, buffers, timeout_s)
        except _BudgetSpent:
            return RunOutcome(buffers, "", _over_budget(program.handle), [])

    def _run(self, program: Program, launches: list[Launch], buffers: dict[str, GuardedArray],
             timeout_s: float) -> RunOutcome:
        handle: EmuHandle = program.handle
        order = list(buffers)
        wire = [WireBuffer(name, _bytes_view(buffers[name].full), buffers[name].payload_offset_bytes,
                           buffers[name].size * buffers[name].full.dtype.itemsize, buffers[name].full.dtype.itemsize)
                for name in order]
        request = encode_request(wire, [_wire_launch(launch, order) for launch in launches], adversarial=False)
        limit_s = timeout_s
        fast, timeout_s = handle.call("fast", request, limit_s)
        if isinstance(fast, Crash) and fast.kind == "time_limit_exceeded" and timeout_s < limit_s and handle.spent():
            raise _BudgetSpent
        if not isinstance(fast, Crash):
            fast = _checked(fast, wire)
        diagnostics: list[RunDiagnostic] = []
        if isinstance(fast, Crash):
            # A crash or a hang ends the run like a sticky CUDA error; a crash of a
            # small case is re-run checked to find the line (a hang is not re-run).
            if fast.kind != "time_limit_exceeded":
                try:
                    diagnostics += self._check_run(handle, request, launches, wire, order, buffers, timeout_s, None)
                except _BudgetSpent:
                    pass  # the crash stands; only its line is not looked for
            fault = RuntimeFault(fast.kind, fast.name, fast.message, poisoned=True)
            if fast.memory is not None:
                # Any size: the fault names its instruction (the learner's line) and address.
                name, message, diag = _memory_fault(fast.memory, handle.built.programs["fast"], order, buffers,
                                                    handle.deadline)
                fault = RuntimeFault(fast.kind, name, message, poisoned=True)
                diagnostics.append(diag)
            # the checked re-run names a misaligned access exactly (address and line): say that
            exact = next((d for d in diagnostics if d.kind == "misaligned_address" and d.line), None)
            if exact is not None:
                fault = RuntimeFault("runtime_error", "misaligned address", exact.message, poisoned=True)
            return RunOutcome(buffers, "", fault, unique_diagnostics(diagnostics))
        diagnostics += _run_diagnostics(fast, handle.built.programs["fast"], handle.deadline)
        _copy_back(fast, order, buffers)
        if fast.fault_name is not None:
            fault = _scheduler_fault(fast, handle.built.programs["fast"], handle.deadline)
            if fast.fault_name == "out of memory" and handle.processes["fast"].out_of_memory():
                megabytes = handle.processes["fast"].memory_bytes >> 20
                fault = RuntimeFault("memory_limit_exceeded", "out of memory",
                                     Message(f"{fast.fault_message}: the program reached its {megabytes} MB memory "
                                             "limit", "memory_limit", megabytes=megabytes))
            return RunOutcome(buffers, fast.output, fault, diagnostics)
        diagnostics += self._check_run(handle, request, launches, wire, order, buffers, timeout_s, fast)
        races = [d for d in diagnostics if d.kind == "race"]
        fault = _gpu_error(diagnostics)
        if races and fault is None:
            fault = RuntimeFault("wrong_answer", "data race", races[0].message)
        return RunOutcome(buffers, fast.output, fault, unique_diagnostics(diagnostics))

    def _check_run(self, handle: EmuHandle, request: bytes, launches: list[Launch], wire: list[WireBuffer],
                   order: list[str], buffers: dict[str, GuardedArray], timeout_s: float,
                   fast: WireResponse | None) -> list[RunDiagnostic]:
        """The instrumented, adversarial-order run of a small case: its findings as diagnostics."""
        threads = sum(np.prod(l.grid) * np.prod(l.block) for l in launches)
        if threads > CHECK_MAX_THREADS or sum(memoryview(b.data).nbytes for b in wire) > CHECK_MAX_BYTES:
            return []
        adversarial = request[:4] + (1).to_bytes(4, "little") + request[8:]
        program = handle.built.programs["check"]
        checked, _ = handle.call("check", adversarial, timeout_s)
        if isinstance(checked, Crash) and checked.kind == "time_limit_exceeded" and handle.spent():
            raise _BudgetSpent
        if not isinstance(checked, Crash):
            checked = _checked(checked, wire)
        if isinstance(checked, Crash):
            if fast is None:
                return []
            name, message, line = checked.name, checked.message, 0
            if checked.memory is not None:
                name, message, diag = _memory_fault(checked.memory, program, order, buffers, handle.deadline)
                line = diag.line
            return [RunDiagnostic("check_crash", line, Message(f"the checked re-run in reverse thread order crashed: "
                                                               f"{name}: {message}", "check_crash", name=name))]
        diags = _run_diagnostics(checked, program, handle.deadline)
        if checked.fault_name is not None:
            diags.append(_fault_diagnostic(checked, program, handle.deadline))
        elif fast is not None:
            diags += _order_dependence(handle.exercise, fast, checked, order, buffers)
        return diags


class _BudgetSpent(Exception):
    """The submission's budget ended before or during the checked run."""


def _cpu_budget(timeout_s: float) -> int:
    """A case's CPU seconds: its wall-clock limit on every worker thread (the program
    runs blocks on up to 8), so the wall clock stays the limit that ends a hang."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except OSError:
        cpus = os.cpu_count() or 1
    return max(1, int(timeout_s * min(8, cpus)) + 1)


def _checked(response: WireResponse, wire: list[WireBuffer]) -> WireResponse | Crash:
    """The program's answer as data: the same buffers, of the same sizes, known
    diagnostic kinds, bounded text. Anything else is the learner's runtime_error."""
    if len(response.buffers) != len(wire):
        return Crash("runtime_error", "output corrupted",
                     Message(f"the program's answer has {len(response.buffers)} buffers, not {len(wire)}",
                             "output_corrupted"), "")
    for got, sent in zip(response.buffers, wire):
        if memoryview(got).nbytes != memoryview(sent.data).nbytes:
            return Crash("runtime_error", "output corrupted",
                         Message(f"the program's answer changed the size of buffer '{sent.name}'",
                                 "output_corrupted"), "")
    if response.fault_name == "internal":
        # Only a forged answer (or a bug) names this fault: never an internal_error here.
        response.fault_name = "corrupted"
        response.fault_message = "the program's answer named a fault the runtime does not give"
    if response.fault_name is not None:
        response.fault_name = response.fault_name[:80]
        response.fault_message = response.fault_message[:MAX_TEXT_CHARS]
    response.diagnostics = [d for d in response.diagnostics if d.kind in DIAGNOSTIC_KINDS][:MAX_DIAGNOSTICS]
    for d in response.diagnostics:
        d.message = d.message[:MAX_TEXT_CHARS]
        d.line = d.line if 0 <= d.line <= MAX_LINE else 0  # a line of the learner's 256 KB file, or none
    response.fault_line = response.fault_line if 0 <= response.fault_line <= MAX_LINE else 0
    if len(response.output) > MAX_OUTPUT_CHARS:
        response.output = response.output[:MAX_OUTPUT_CHARS] + "\n[output truncated]\n"
    return response


def _gpu_error(diagnostics: list[RunDiagnostic]) -> RuntimeFault | None:
    """What the checked run found that a GPU reports as an error of its own (#12):
    an access past a block's shared memory, a misaligned access."""
    for d in diagnostics:
        if d.kind == "out_of_bounds" and "shared memory" in d.message.split("(", 1)[0]:
            return RuntimeFault("runtime_error", "out-of-bounds shared memory access", d.message)
        if d.kind == "misaligned_address":
            return RuntimeFault("runtime_error", "misaligned address", d.message)
    return None


def _kernel_names(exercise: Any) -> list[str]:
    names = [k.name for k in exercise.kernels]
    for launch in exercise.launches:
        if launch.kernel not in names:
            names.append(launch.kernel)
    return names


def _defines(source: str, exercise: Any, constants: dict[str, int]) -> str:
    """Constants the learner did not define come from the spec, as NVRTC got them (-D)."""
    from kernels.constants import read_constants

    _, defined, _ = read_constants(source, exercise)
    return "".join(f"#define {name} {int(value)}\n" for name, value in constants.items() if name not in defined)


def _wire_launch(launch: Launch, order: list[str]) -> WireLaunch:
    args = []
    for arg in launch.args:
        if arg.buffer is not None:
            args.append((ARG_BUFFER, order.index(arg.buffer)))
        elif arg.ctype.replace("const", "").strip() in _FLOAT_CTYPES:
            args.append((ARG_FLOAT, float_bits(float(arg.value or 0))))
        else:
            args.append((ARG_INT, int_bits(int(arg.value or 0))))
    return WireLaunch(launch.kernel, tuple(launch.grid), tuple(launch.block), int(launch.shared_bytes), tuple(args))


def _bytes_view(array: np.ndarray) -> memoryview:
    """The array's bytes without a copy (encode_request joins them once)."""
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return memoryview(array.reshape(-1).view(np.uint8))


def _copy_back(response: WireResponse, order: list[str], buffers: dict[str, GuardedArray]) -> None:
    for name, data in zip(order, response.buffers):
        full = buffers[name].full
        full.view(np.uint8)[:] = np.frombuffer(data, dtype=np.uint8, count=full.nbytes)


def _memory_fault(report: dict[str, int], program: Path, order: list[str],
                  buffers: dict[str, GuardedArray], deadline: float = _NO_DEADLINE) -> tuple[str, str, RunDiagnostic]:
    """A segmentation fault's report → (fault name, message, diagnostic), naming the
    learner's line (the faulting instruction; 0 when it is not in their code)."""
    pc = report.get("pc", 0)
    # The faulting instruction itself, not a return address: symbolize() looks up pc - 1.
    line = _symbolize(program, [pc + 1], deadline).get(pc + 1, 0) if pc else 0
    at = f" (line {line})" if line else ""
    access = {1: "write", 0: "read"}.get(report.get("write", -1), "access")
    if report.get("stack"):
        message = Message(f"a thread overflowed its stack{at}: deep recursion or large local arrays "
                          f"(each emulated thread has {toolchain.STACK_KIB} KiB)", "stack_overflow", line=line,
                          stack_kib=toolchain.STACK_KIB)
        return "stack overflow", message, RunDiagnostic("stack_overflow", line, message)
    index = report.get("buffer", -1)
    if 0 <= index < len(order):
        name = order[index]
        params = {"access": access, "name": name, "index": report.get("element", 0),
                  "last": buffers[name].size - 1, "line": line}
        message = (f"buffer '{name}' at element {params['index']}, valid elements are 0..{params['last']}{at}: far "
                   "past the buffer, in memory the kernel does not own (segmentation fault)")
        return f"out-of-bounds {access}", Message(message, "out_of_bounds_far", **params), RunDiagnostic(
            "out_of_bounds", line, Message(f"out-of-bounds {access} of {message}", "out_of_bounds_far", **params))
    if report.get("gp"):
        # x86 reports a general-protection fault without its address: a vector access
        # the compiler assumed aligned (movaps), or a non-canonical pointer
        message = Message(f"misaligned or invalid {access}{at}: a vector load or store at an address that is not "
                          "a multiple of its size (e.g. a float4 at an index not a multiple of 4), or a wild "
                          "pointer", "misaligned_wild", line=line, access=access)
        return "misaligned address", message, RunDiagnostic("misaligned_address", line, message)
    address = f"{report.get('addr', 0):#x}"
    message = Message(f"segmentation fault{at}: a {access} of address {address}, which is no buffer's memory (a "
                      "null or uninitialised pointer, or far out of bounds)", "segfault", line=line, access=access,
                      address=address)
    return "invalid memory access", message, RunDiagnostic("invalid_memory_access", line, message)


def _symbolize(program: Path, pcs: list[int], deadline: float = _NO_DEADLINE) -> dict[int, int]:
    """Lines for `pcs`, within what is left of the submission's budget (`deadline`)."""
    left = deadline - time.monotonic()
    return toolchain.symbolize(program, pcs, min(toolchain.SYMBOLIZE_S, left)) if pcs else {}


def _over_budget(handle: EmuHandle) -> RuntimeFault:
    return RuntimeFault("time_limit_exceeded", "time limit exceeded",
                        Message(f"the submission's runs passed the emulator's {handle.budget_s:g} s budget for "
                                "compiling and running all its cases", "emu_budget", seconds=f"{handle.budget_s:g}"),
                        poisoned=True)


def _with_lines(message: str, lines: dict[int, int]) -> str:
    def sub(m: re.Match[str]) -> str:
        line = lines.get(int(m.group(1), 16), 0)
        return f"line {line}" if line else "an unknown line"
    return _PC_TAG.sub(sub, message)


def _run_diagnostics(response: WireResponse, program: Path, deadline: float = _NO_DEADLINE) -> list[RunDiagnostic]:
    pcs = [d.pc for d in response.diagnostics] + [int(m, 16) for d in response.diagnostics
                                                   for m in _PC_TAG.findall(d.message)]
    lines = _symbolize(program, pcs, deadline)
    return [RunDiagnostic(d.kind, d.line or lines.get(d.pc, 0), coded(_with_lines(d.message, lines)))
            for d in response.diagnostics]


def _fault_diagnostic(response: WireResponse, program: Path, deadline: float = _NO_DEADLINE) -> RunDiagnostic:
    pcs = [response.fault_pc] + [int(m, 16) for m in _PC_TAG.findall(response.fault_message)]
    lines = _symbolize(program, pcs, deadline)
    name = response.fault_name or "fault"
    kind = "out_of_bounds" if name.startswith("out-of-bounds") else name.replace(" ", "_").replace("-", "_")
    line = response.fault_line or lines.get(response.fault_pc, 0)
    return RunDiagnostic(kind, line, _placed(coded(_with_lines(response.fault_message, lines)), line))


def _placed(message: str, line: int) -> str:
    """A coded sentence that leaves its line to the fault (a trap, a warp collective) names it."""
    if isinstance(message, Message) and message.params.get("line") == 0 and line:
        return Message(message, message.code, **(message.params | {"line": line}))
    return message


def _scheduler_fault(response: WireResponse, program: Path, deadline: float = _NO_DEADLINE) -> RuntimeFault:
    name = response.fault_name or "fault"
    diag = _fault_diagnostic(response, program, deadline)
    where = f" (line {diag.line})" if diag.line and f"line {diag.line}" not in diag.message else ""
    kind = _FAULT_KINDS.get(name, "runtime_error")
    message = diag.message  # str + str is a plain str: only a sentence that gains a line is rebuilt
    if where:
        message = diag.message + where
        if isinstance(diag.message, Message):  # the sentence's code still says it (its line is a parameter)
            message = Message(message, diag.message.code, **diag.message.params)
    return RuntimeFault(kind, name, message, poisoned=kind == "time_limit_exceeded")


def _order_dependence(exercise: Any, fast: WireResponse, checked: WireResponse, order: list[str],
                      buffers: dict[str, GuardedArray]) -> list[RunDiagnostic]:
    """Outputs that change when threads and blocks run in reverse order: a probable missing barrier."""
    from kernels.check import compare

    for index, name in enumerate(order):
        buf = buffers[name]
        if buf.role not in ("out", "inout") or index >= len(checked.buffers):
            continue
        dtype = exercise.buffer(name).dtype
        other = np.frombuffer(checked.buffers[index], dtype=buf.full.dtype)
        payload = other[buf.guard_elems:buf.guard_elems + buf.size].reshape(buf.shape)
        want = np.asarray(buf.payload)
        if dtype == "bfloat16":
            want = (want.astype(np.uint32) << 16).view(np.float32)
        problem = compare(name, payload, want.astype(np.float64), dtype, exercise.rtol, exercise.atol, 1.0)
        if problem:
            text = ("the result changes when the threads run in reverse order, a probable missing __syncthreads() "
                    f"or __syncwarp(): {problem}")
            mismatch = isinstance(problem, Message) and problem.code == "mismatch"
            return [RunDiagnostic("race", 0, Message(text, "race_order", **problem.params) if mismatch else text)]
    return []


def _compile_diagnostics(messages: list[toolchain.CompileMessage], exercise: Any) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    for m in messages:
        if m.severity != "error":
            continue
        text = m.message
        undeclared = re.search(r"'([A-Za-z_]\w*)' (?:was not declared in this scope|is not a member of 'kdojo_user')", text)
        if m.file == launcher.LEARNER_FILE:
            if undeclared and undeclared.group(1).startswith("__"):
                text = Message(f"{undeclared.group(1)} is not supported by the emulator", "emu_unsupported",
                               what=undeclared.group(1))
            diags.append(Diagnostic(m.line, m.column, "error", text))
        elif m.file == launcher.LAUNCHER_FILE:
            kernel = next((k for k in exercise.kernels if f"'{k.name}'" in text), None)
            declaration = kernel.declaration()[:-1] if kernel else ""
            text = (Message(f"kernel '{kernel.name}' is not defined; write {declaration} {{ … }}", "kernel_missing",
                            kernel=kernel.name, declaration=declaration) if kernel else
                    Message(f"the exercise's kernels could not be launched: {text}", "launcher_error", detail=text))
            diags.append(Diagnostic(0, 0, "error", text))
        else:
            diags.append(Diagnostic(0, 0, "error", Message(f"not supported by the emulator: {text}",
                                                           "emu_compile_detail", detail=text)))
        if len(diags) >= 20:
            break
    return diags or [Diagnostic(0, 0, "error", Message("the emulator could not compile this kernel",
                                                       "compile_failed_plain"))]
