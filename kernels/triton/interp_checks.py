"""What Triton's interpreter hides, found at every load, store and atomic (runs in the sandbox).

The interpreter reads and writes raw addresses (`_interpreter.load/store` in C++): a missing
mask reads whatever lies past a buffer, or crashes the process. Every access of a program
is checked here before it happens:

* an address in a buffer's guard band (the judge's `GuardedArray`) is performed, so the
  judge's guard check sees the write as on a GPU, and reported (`out_of_bounds`, with the
  program id, the element, the buffer and the learner's line);
* an address outside every buffer is never performed: the run stops with a fault;
* within one launch, an element one program writes and another program reads or writes
  without an atomic is a `race` (programs of a launch are never ordered on a GPU);
* a read of a sentinel-filled output element no program has written yet is an
  `uninitialised_read`.

Findings travel as JSON parameters (the trusted side, kernels/triton/interp.py, checks them
and words the message); the learner's line is read from the call stack's frame of their file.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

import numpy as np

MAX_PER_KIND = 4  # findings of one kind per request: the first ones explain the rest
RACE_MAX_ELEMS = 1 << 22  # buffers larger than this (4M elements) are not race-tracked
_NONE, _MANY = -1, -2


class StopRun(BaseException):
    """An access outside every buffer: the launch ends here (a GPU faults; memory is untouched).
    A BaseException so that a kernel's own `except Exception` does not swallow it."""


@dataclass
class Region:
    """One request buffer in the server's memory."""

    name: str
    base: int  # address of the whole guarded array
    end: int
    lo: int  # the payload's first byte
    hi: int  # one past the payload's last byte
    elem: int
    sentinel_out: bool  # an output the judge filled with its sentinel
    read_only: bool = False  # an input: a write shows in the judge's check, reads need no tracking
    writer: np.ndarray | None = None  # per element of the whole array, this launch: the writing program
    reader: np.ndarray | None = None
    atomic: np.ndarray | None = None
    written: np.ndarray | None = None  # per element, this request (sentinel outputs only)

    @property
    def last(self) -> int:
        return (self.hi - self.lo) // self.elem - 1


@dataclass
class Findings:
    diagnostics: list[tuple[str, int, str]] = field(default_factory=list)  # kind, line, JSON params
    fault: tuple[str, int, str] | None = None  # name, line, JSON params
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, line: int, params: dict) -> None:
        if self.counts.get(kind, 0) < MAX_PER_KIND:
            self.diagnostics.append((kind, line, json.dumps(params)))
        self.counts[kind] = self.counts.get(kind, 0) + 1


class AccessChecker:
    """Checks the accesses of the programs of one request, launch by launch."""

    def __init__(self, regions: list[Region], learner_file: str, tracking: bool = True) -> None:
        # tracking: races and uninitialised reads (bounds are always checked: they keep memory safe)
        self.tracking = tracking
        self.regions = sorted(regions, key=lambda r: r.base)
        self.starts = np.array([r.base for r in self.regions], dtype=np.uint64)
        self.ends = np.array([r.end for r in self.regions], dtype=np.uint64)
        self.learner_file = learner_file
        self.findings = Findings()
        self.program: tuple[int, int, int] = (0, 0, 0)
        self.linear = 0
        self.grid = (1, 1, 1)
        for r in self.regions:
            if r.sentinel_out:
                r.written = np.zeros((r.end - r.base) // r.elem, dtype=bool)

    def begin_launch(self, grid: tuple[int, int, int]) -> None:
        self.grid = grid
        for r in self.regions:
            r.writer = r.reader = r.atomic = None

    def set_program(self, program: tuple[int, int, int]) -> None:
        self.program = program
        nx, ny, _ = self.grid
        self.linear = program[0] + nx * (program[1] + ny * program[2])

    def line(self) -> int:
        """The learner's line now: the innermost frame of their file on the call stack."""
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.learner_file:
                return frame.f_lineno
            frame = frame.f_back
        return 0

    def check(self, access: str, pointers: np.ndarray, mask: np.ndarray | None, width: int) -> None:
        """`access` read | write | atomic of `width` bytes at each address of `pointers` where
        `mask` holds. Raises StopRun (after recording the fault) for an address in no buffer."""
        addrs = np.asarray(pointers, dtype=np.uint64).reshape(-1)
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if not mask.all():
                addrs = addrs[np.broadcast_to(mask, np.shape(pointers)).reshape(-1)]
        if addrs.size == 0:
            return
        low, high = int(addrs.min()), int(addrs.max()) + width
        which = int(np.searchsorted(self.starts, np.uint64(low), side="right")) - 1
        if which >= 0 and high <= self.regions[which].end:  # the usual case: one buffer
            region = self.regions[which]
            self._in_region(access, region, addrs, width, low >= region.lo and high <= region.hi)
            return
        which_all = np.searchsorted(self.starts, addrs, side="right").astype(np.int64) - 1
        inside = (which_all >= 0) & (addrs + np.uint64(width) <= self.ends[np.maximum(which_all, 0)])
        if not inside.all():
            self._far(access, int(addrs[~inside][0]))
        for index in np.unique(which_all):
            self._in_region(access, self.regions[int(index)], addrs[which_all == index], width, False)

    def _far(self, access: str, address: int) -> None:
        region = min(self.regions, key=lambda r: min(abs(address - r.lo), abs(address - r.hi)), default=None)
        params = {"access": _verb(access), "program": list(self.program), "line": self.line(), "name": "",
                  "index": 0, "last": -1}
        if region is not None:
            params.update(name=region.name, index=(address - region.lo) // region.elem, last=region.last)
        if self.findings.fault is None:
            self.findings.fault = (f"out-of-bounds {_verb(access)}", params["line"], json.dumps(params))
        raise StopRun

    def _in_region(self, access: str, r: Region, addrs: np.ndarray, width: int, in_payload: bool) -> None:
        outside = None
        if not in_payload:
            outside = (addrs < np.uint64(r.lo)) | (addrs + np.uint64(width) > np.uint64(r.hi))
        if outside is not None and outside.any():
            bad = int(addrs[outside][0])
            self.findings.add("out_of_bounds", line := self.line(), {
                "access": _verb(access), "name": r.name, "index": (bad - r.lo) // r.elem, "last": r.last,
                "program": list(self.program), "line": line})
        if not self.tracking or (r.read_only and access == "read"):
            return
        elems = ((addrs - np.uint64(r.base)) // np.uint64(r.elem)).astype(np.int64)
        if r.written is not None:
            if access == "write":
                r.written[elems] = True
            else:
                fresh = ~r.written[elems] if outside is None else ~r.written[elems] & ~outside
                if fresh.any():
                    first = int(elems[fresh][0])
                    self.findings.add("uninitialised_read", line := self.line(), {
                        "name": r.name, "index": first - (r.lo - r.base) // r.elem, "program": list(self.program),
                        "line": line})
                if access == "atomic":
                    r.written[elems] = True
        if r.end - r.base <= RACE_MAX_ELEMS * r.elem:
            self._race(access, r, elems)

    def _race(self, access: str, r: Region, elems: np.ndarray) -> None:
        if r.writer is None:
            size = (r.end - r.base) // r.elem
            r.writer, r.reader, r.atomic = (np.full(size, _NONE, dtype=np.int32) for _ in range(3))
        me = self.linear
        writer = r.writer[elems]
        clash = (writer >= 0) & (writer != me)
        other, other_access = writer, "write"
        if access == "write":
            for table, name in ((r.reader, "read"), (r.atomic, "atomic")):
                seen = table[elems]
                extra = (seen == _MANY) | ((seen >= 0) & (seen != me))
                if extra.any() and not clash.any():
                    other, other_access = seen, name
                clash |= extra
            r.writer[elems] = me
        else:
            table = r.atomic if access == "atomic" else r.reader
            seen = table[elems]
            table[elems] = np.where((seen == _NONE) | (seen == me), me, _MANY)
        if clash.any():
            at = int(np.argmax(clash))
            self.findings.add("race", line := self.line(), {
                "name": r.name, "index": int(elems[at]) - (r.lo - r.base) // r.elem, "program": list(self.program),
                "access": _verb(access), "other_program": self._program_of(int(other[at])),
                "other_access": other_access, "line": line})

    def _program_of(self, linear: int) -> list[int] | None:
        """A program id from its linear number (None: several programs, not one)."""
        if linear < 0:
            return None
        nx, ny, _ = self.grid
        return [linear % nx, (linear // nx) % ny, linear // (nx * ny)]


def _verb(access: str) -> str:
    return "write" if access == "write" else "read" if access == "read" else "atomic"
