"""The backend interface: what `cuda` and `emu` implement, and what the judge hands them.

A backend turns NVRTC-accepted source into a `Program` and runs one case's
launch plan on host buffers the judge prepared (`GuardedArray`: guard |
payload | guard). The judge (`kernels.pipeline`) then checks guards,
sentinels, unchanged inputs and outputs with `kernels.check` — the same code
for every backend, so both give the same verdicts.

Kept deliberately small; see docs/architecture.md ("The backend interface").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

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
    """Something a backend noticed while running (emulator: a race, a divergent
    barrier, lanes missing from a shuffle mask). `line` is 0 when unknown."""

    kind: str
    line: int
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "line": self.line, "message": str(self.message), **code_fields(self.message)}


def unique_diagnostics(diagnostics: list[RunDiagnostic]) -> list[RunDiagnostic]:
    """Each (kind, line, message) once, in the order first seen."""
    return list(dict.fromkeys(diagnostics))


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run on this machine (one-line message)."""


class BuildError(Exception):
    """The source did not build. `diagnostics` point at learner lines; `log` is the
    raw (already sanitised) compiler log."""

    def __init__(self, diagnostics: list[Diagnostic], log: str = "", *, needs_gpu: str = "") -> None:
        first = diagnostics[0].message if diagnostics else (log.strip().splitlines() or ["build failed"])[0]
        super().__init__(first)
        self.diagnostics = list(diagnostics)
        self.log = log
        # The feature (e.g. "CUB") a backend cannot run though the source is valid
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

    `full` is the whole 1-D host array the backend copies in and back;
    `payload` is a view of the middle reshaped to `shape`. The backend passes a
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
    the run faulted; `diagnostics`: backend findings (emulator checks).
    """

    buffers: dict[str, GuardedArray]
    output: str = ""
    fault: RuntimeFault | None = None
    diagnostics: list[RunDiagnostic] = field(default_factory=list)


@dataclass
class Program:
    """A built submission. Backends subclass or wrap it; the judge only passes it back."""

    kernels: tuple[str, ...]
    handle: Any = None


@runtime_checkable
class Backend(Protocol):
    """What the judge needs from a backend.

    name            "cuda" | "emu"
    arch            NVRTC target ("sm_90") or None: compile-check for the default arch
    supports_timing True when `kernels.timing` can time this backend's launches
    """

    name: str
    arch: str | None
    supports_timing: bool

    def available(self) -> bool:
        """True when this backend can run here (a GPU is visible, g++ exists …)."""

    def device_info(self) -> dict[str, Any]:
        """{"name": ..., "sm_clock_mhz": ..., "temp_c": ...}; values may be None."""

    def build(self, exercise: Any, source: str, constants: dict[str, int]) -> Program:
        """Build `source` (already accepted by NVRTC). Raises BuildError."""

    def run(self, program: Program, launches: list[Launch],
            buffers: dict[str, GuardedArray], timeout_s: float) -> RunOutcome:
        """Copy every buffer's `full` array in, run every launch in order on one
        stream, copy every `full` array back. A fault is returned in `fault`
        (or raised as RuntimeFault); it never raises for a learner's bug."""
