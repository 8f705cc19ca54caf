"""The target interface: what `cuda` (a GPU) and `emu` (the CPU) implement, and what
the judge hands them.

A target turns a language's accepted compile result into a `Program` and runs
one case's launch plan on host buffers the judge prepared (`GuardedArray`:
guard | payload | guard). The judge (`kernels.pipeline`) then checks guards,
sentinels, unchanged inputs and outputs with `kernels.check` — the same code
for every target, so both give the same verdicts. (The result document, the
CLI flag and the database keep the operators' word for a target: "backend".)

Kept deliberately small; see docs/architecture.md ("The target interface").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernels.messages import code_fields

# Elements of guard band on each side of every buffer. 1024 covers a whole
# block (up to 1024 threads) reading or writing past either end, which is the
# usual shape of a missing bounds check.
GUARD_ELEMS = 1024


@dataclass(frozen=True)
class Diagnostic:
    """One compiler message, pointing at the learner's own source (1-based line/column;
    0 when the compiler gave none)."""

    line: int
    column: int
    severity: str  # "error" | "warning" | "remark"
    message: str

    def to_dict(self) -> dict[str, Any]:
        # a coded message (the Triton compile step's, #29) carries its code for the web
        return {"line": self.line, "column": self.column, "severity": self.severity,
                "message": str(self.message), **code_fields(self.message)}


@dataclass(frozen=True)
class RunDiagnostic:
    """Something a target noticed while running (emulator: a race, a divergent
    barrier, lanes missing from a shuffle mask). `line` is 0 when unknown."""

    kind: str
    line: int
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "line": self.line, "message": str(self.message), **code_fields(self.message)}


def unique_diagnostics(diagnostics: list[RunDiagnostic]) -> list[RunDiagnostic]:
    """Each (kind, line, message) once, in the order first seen."""
    return list(dict.fromkeys(diagnostics))


class TargetUnavailable(RuntimeError):
    """The requested target cannot run on this machine (one-line message)."""


class BuildError(Exception):
    """The source did not build. `diagnostics` point at learner lines; `log` is the
    raw (already sanitised) compiler log."""

    def __init__(self, diagnostics: list[Diagnostic], log: str = "", *, needs_gpu: str = "") -> None:
        first = diagnostics[0].message if diagnostics else (log.strip().splitlines() or ["build failed"])[0]
        super().__init__(first)
        self.diagnostics = list(diagnostics)
        self.log = log
        # The feature (e.g. "CUB") a target cannot run though the source is valid
        # CUDA: the verdict is `rejected` with message code `needs_gpu`, not a compile error.
        self.needs_gpu = needs_gpu
        self.status = "rejected" if needs_gpu else "compile_error"


class RuntimeFault(Exception):
    """A fault that ends the run of a case. `kind` is the verdict it maps to:
    "runtime_error" (with `name`, e.g. CUDA_ERROR_ILLEGAL_ADDRESS),
    "time_limit_exceeded", "memory_limit_exceeded", and from the emulator also
    "wrong_answer" (a race or divergent barrier it detected) and "rejected" (a
    construct it refuses to run). `poisoned` says the process can run nothing
    more (CUDA sticky errors)."""

    def __init__(self, kind: str, name: str, message: str, poisoned: bool = False) -> None:
        super().__init__(f"{name}: {message}")
        self.kind = kind
        self.name = name
        self.message = message
        self.poisoned = poisoned


@dataclass(frozen=True)
class LaunchArg:
    """One kernel argument: a buffer (`buffer` names it; pass the payload pointer) or a
    scalar (`value` with the C type `ctype` from the signature, e.g. "int", "float")."""

    param: str
    ctype: str
    buffer: str | None = None
    value: int | float | None = None


@dataclass(frozen=True)
class Launch:
    """One resolved launch: every expression already evaluated for the case."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    args: tuple[LaunchArg, ...]
    # A Triton launch's constexpr meta-parameters and num_warps/num_stages, by name (#29);
    # () for CUDA, whose compile-time constants are in the binary
    meta: tuple[tuple[str, Any], ...] = ()


@dataclass
class GuardedArray:
    """A host buffer laid out as guard | payload | guard (`GUARD_ELEMS` each side).

    `full` is the whole 1-D host array the target copies in and back;
    `payload` is a view of the middle reshaped to `shape`. The target passes a
    device pointer to the first payload element and must copy the *whole*
    array back so the judge can check the guards.
    """

    name: str
    role: str  # in | out | inout | scratch
    shape: tuple[int, ...]
    full: np.ndarray
    guard_elems: int = GUARD_ELEMS

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    @property
    def payload(self) -> np.ndarray:
        flat = self.full[self.guard_elems:self.guard_elems + self.size]
        return flat.reshape(self.shape)

    @property
    def payload_offset_bytes(self) -> int:
        return self.guard_elems * self.full.dtype.itemsize


@dataclass
class RunOutcome:
    """What one run of a launch plan left behind.

    `buffers`: the arrays after the run (may be the same objects, updated in
    place); `output`: captured printf text, already capped; `fault`: set when
    the run faulted; `diagnostics`: the target's findings (emulator checks).
    """

    buffers: dict[str, GuardedArray]
    output: str = ""
    fault: RuntimeFault | None = None
    diagnostics: list[RunDiagnostic] = field(default_factory=list)


@dataclass
class Program:
    """A built submission. Targets subclass or wrap it; the judge only passes it back.
    A `handle` with a `run(launches, buffers, timeout_s) -> RunOutcome` method runs
    itself (a language's own runner on a target, e.g. Triton's interpreter)."""

    kernels: tuple[str, ...]
    handle: Any = None


class Target:
    """What the judge needs from a target (a device that runs a built program): the
    protocol, with a default for every member the pipeline uses, so a target
    overrides only what it does. `kernels.targets` finds a target by name.

    name     "cuda" | "emu"
    arch     the GPU's binary target ("sm_90a") or None: the compile checks for the default arch
    timed    True when `kernels.timing` can time this target's launches (the benchmark,
             the GPU's achievements); False: `benchmark` is null and `timings_note` says why
    flusher  the L2 flush the benchmark uses (kernels.timing.L2Flusher) or None: one is made
    """

    name: str = ""
    arch: str | None = None
    timed: bool = False
    flusher: Any = None

    def __init__(self, capture: Any = None) -> None:
        self.capture = capture  # kernels.capture.OutputCapture (a GPU's printf) or None

    @classmethod
    def check_settings(cls) -> None:
        """Refuse a bad setting of this target now (ValueError), in the supervisor, rather
        than in the first job."""

    def available(self) -> bool:
        """True when this target can run here (a GPU is visible, g++ exists …)."""
        return self.unavailable_reason() is None

    def unavailable_reason(self) -> str | None:
        """One line for the operator when the target cannot run here, else None."""
        return None

    def device_info(self) -> dict[str, Any]:
        """{"name": ..., "sm_clock_mhz": ..., "temp_c": ...}; values may be None."""
        return {"name": self.name, "sm_clock_mhz": None, "temp_c": None}

    def preload(self) -> None:
        """The job process's warm-up that may run beside another job's timed calls (imports,
        caches; on a GPU its context, which launches nothing), before a job."""

    def warm(self) -> None:
        """The device phase of the warm-up (first kernels and module load): never while
        another job is timed (kernels/job_pool.py)."""

    def start_submission(self, started: float | None = None) -> None:
        """A submission starts now (time.monotonic() `started`): a target with a wall
        budget per submission (the emulator, #11) starts its clock."""

    def prepare_profile(self, program: Program) -> None:
        """The judge will profile `program` if it is accepted (#16): start any slow
        preparation beside the tests."""

    def learner_fault(self, exc: BaseException) -> RuntimeFault | None:
        """A fault raised outside run() (the benchmark's timed calls, #27) as the learner's
        RuntimeFault, or None: the exception is ours (the caller re-raises it)."""
        return None

    def build(self, exercise: Any, source: str, compiled: Any) -> Program:
        """Build the accepted compile result `compiled` (kernels.compile.CompileResult, made
        once by the language: never compiled again here) of `source`. Raises BuildError."""
        raise NotImplementedError

    def run(self, program: Program, launches: list[Launch],
            buffers: dict[str, GuardedArray], timeout_s: float) -> RunOutcome:
        """Copy every buffer's `full` array in, run every launch in order on one
        stream, copy every `full` array back. A fault is returned in `fault`
        (or raised as RuntimeFault); it never raises for a learner's bug."""
        raise NotImplementedError
