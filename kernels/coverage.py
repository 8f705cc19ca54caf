"""Which lines of an exercise's reference kernels its test cases run (#28, docs/authoring.md).

Every path the instructions describe and the reference takes must be exercised by some test
case: a case list where no block gets a second tile, or no row is longer than a warp, passes
solutions that break there. The reference is judged on the emulator as usual, but every case
runs a coverage program instead of the fast one: the same preprocessed source compiled at -O1
with -fsanitize-coverage=trace-pc and linked with a runtime that reports the code addresses of
the basic blocks that ran (`kernels/emu/build.py: compile_coverage_program`). Each basic block
of the learner's file is named by its line; a line with a block that no case ran is
unreached, unless the reference says why on that line: a `//` comment holding
`unreached: <why>`. An excuse on a line that does run is reported too (it is stale).

The reference is trusted (it is ours): its coverage program is built without the object
check, and only an author runs this (`kdojo lessons coverage`), never the judge.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernels.targets.base import Program
from kernels.emu import build as toolchain
from kernels.emu.target import EmuTarget
from kernels.emu.protocol import WireResponse
from kernels.pipeline import run_pipeline
from kernels.spec import Exercise

# A reference's `//` comment excusing its line: `// unreached: only a GPU with … takes it`.
EXCUSE = re.compile(r"//.*?\bunreached:\s*(\S.*)$")
COMPILE_S = 120.0
RUN_S = 120.0
COVERAGE_BUDGET_S = 3600.0  # the whole check of one exercise (every case through the -O1 coverage program)
_PC = re.compile(r"0x([0-9a-f]+)")
_TRACE_CALL = re.compile(r"^\s*([0-9a-f]+):\s+call\s+[0-9a-f]+ <__sanitizer_cov_trace_pc>", re.M)
_SYMBOLIZE_BATCH = 4000  # build.symbolize looks up at most 4096 addresses a run


@dataclass
class Coverage:
    exercise: str
    reference: Path
    verdict: str
    blocks: dict[int, int] = field(default_factory=dict)   # line -> basic blocks on it
    reached: set[int] = field(default_factory=set)          # lines with a block that some case ran
    excused: dict[int, str] = field(default_factory=dict)   # line -> why no case reaches it

    @property
    def unreached(self) -> list[int]:
        return sorted(line for line in self.blocks if line not in self.reached and line not in self.excused)

    @property
    def stale_excuses(self) -> list[int]:
        return sorted(line for line in self.excused if line in self.reached)

    @property
    def ok(self) -> bool:
        return self.verdict == "accepted" and not self.unreached and not self.stale_excuses

    def render(self) -> str:
        source = self.reference.read_text().splitlines()
        head = (f"{self.exercise}: {len(self.reached)} of {len(self.blocks)} lines with code reached"
                f"{f', {len(self.excused)} excused' if self.excused else ''}")
        if self.verdict != "accepted":
            return f"{head}\n  the reference is not accepted on the emulator: {self.verdict}"
        out = [head]
        out += [f"  {self.reference.name}:{n}: unreached: {source[n - 1].strip()}" for n in self.unreached]
        out += [f"  {self.reference.name}:{n}: marked unreached, but a case runs it" for n in self.stale_excuses]
        return "\n".join(out)


class _CoverageTarget(EmuTarget):
    """The emulator with every case run by the coverage program; collects the blocks that ran."""

    def __init__(self) -> None:
        super().__init__()
        self.sites: dict[int, int] | None = None  # each block's code address -> its line (0: not the learner's)
        self.ran: set[int] = set()                 # code addresses of the blocks that ran

    def submission_budget_s(self) -> float:
        return COVERAGE_BUDGET_S  # the judge's 16 s is for submissions, not for this check

    def build(self, exercise: Any, source: str, compiled: Any) -> Program:
        program = super().build(exercise, source, compiled)
        handle = program.handle
        handle.built.programs["fast"] = toolchain.compile_coverage_program(handle.built, COMPILE_S)
        self.sites = block_sites(handle.built.programs["fast"])  # now: the folder goes with the handle
        call = handle.call

        def call_and_collect(variant: str, request: bytes, limit_s: float):
            # Read before the backend checks the answer, which keeps only the judge's kinds.
            got, left = call(variant, request, limit_s)
            if variant == "fast" and isinstance(got, WireResponse):
                for diag in got.diagnostics:
                    if diag.kind == "coverage":
                        self.ran.update(int(pc, 16) for pc in _PC.findall(diag.message))
                got.diagnostics = [d for d in got.diagnostics if d.kind != "coverage"]
            return got, left

        handle.call = call_and_collect
        return program


def block_sites(program: Path) -> dict[int, int]:
    """Every basic block of `program` (its trace-pc call's return address) -> its line in the
    learner's file (0: elsewhere, a runtime header's code)."""
    objdump = shutil.which("objdump")
    if objdump is None:
        raise toolchain.ToolchainError("the coverage check needs objdump (binutils)")
    text = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(program)], capture_output=True, text=True,
                          check=True).stdout
    sites = [int(a, 16) + 5 for a in _TRACE_CALL.findall(text)]  # the hook's return address
    lines: dict[int, int] = {}
    for start in range(0, len(sites), _SYMBOLIZE_BATCH):
        lines.update(toolchain.symbolize(program, sites[start:start + _SYMBOLIZE_BATCH], timeout_s=60))
    return lines


def excuses(reference: Path) -> dict[int, str]:
    found = {}
    for n, text in enumerate(reference.read_text().splitlines(), 1):
        m = EXCUSE.search(text)
        if m:
            found[n] = m.group(1).strip()
    return found


def cover(exercise: Exercise) -> Coverage:
    """Judge the exercise's reference.cu on the emulator, every case, and read what ran."""
    reference = exercise.reference_cu_path
    backend = _CoverageTarget()
    # The -O1 coverage program runs slower than the fast one: this check is not the judge's time limit.
    limits = dataclasses.replace(exercise.limits, compile_s=COMPILE_S, run_s=max(exercise.limits.run_s, RUN_S))
    roomy = dataclasses.replace(exercise, limits=limits)
    doc = run_pipeline(roomy, reference.read_text(), backend, bench=False, seed=5, emit=lambda e: None)
    result = Coverage(exercise.id, reference, doc["verdict"], excused=excuses(reference))
    if backend.sites is None:
        return result
    n_lines = len(reference.read_text().splitlines())
    for pc, line in backend.sites.items():
        if 0 < line <= n_lines:
            result.blocks[line] = result.blocks.get(line, 0) + 1
            if pc in backend.ran:
                result.reached.add(line)
    return result
