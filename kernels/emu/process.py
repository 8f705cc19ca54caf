"""One running emulator program, answering case after case over pipes.

Every exchange is bounded by a wall-clock deadline: the request is written
and the response read in one `selectors` loop, so a program that never reads
(an endless loop in a learner's static constructor) or never answers (an
endless loop in a kernel) is killed with its whole process group.
"""

from __future__ import annotations

import fcntl
import os
import re
import selectors
import signal
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from kernels.emu import jail
from kernels.emu.protocol import (MAX_WIRE_BUFFERS, RESPONSE_HEADER, RESPONSE_MAGIC, WireResponse,
                                  decode_body)
from kernels.messages import Message

STDERR_CAP_BYTES = 64 * 1024
PIPE_BYTES = 1 << 20  # the default /proc/sys/fs/pipe-max-size
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
# A Crash of this kind is the judge's or the machine's fault, not the learner's:
# the backend runs the case again in a fresh program, once, then gives up.
OURS = "ours"
# A response is never larger than its request (the same buffers) plus this.
RESPONSE_SLACK_BYTES = 4 << 20
SAMPLE_S = 0.2  # how often a running case's CPU time and memory are read from /proc
OOM_FRACTION = 0.9  # a peak address space this close to RLIMIT_AS: our limit ended the program


@dataclass
class Crash:
    """The program ended without answering. `kind` is the verdict it maps to."""

    kind: str  # runtime_error | time_limit_exceeded | memory_limit_exceeded | rejected | OURS
    name: str
    message: str
    stderr: str
    # A segmentation fault's report (runtime's on_memory_fault): pc, addr, write
    # (1, 0, -1 unknown), kernel, stack (1: a thread's stack overflowed), buffer
    # (index in the request) and element, when the address is near one.
    memory: dict[str, int] | None = None


MEMORY_FAULT_MARK = b"KDOJO-MEMORY-FAULT"
# The runtime's report (kdojo_rt.cpp: on_memory_fault) is one short line of known
# fields. Learner code can write any line to stderr (a replaced `write` or
# `sigaction` bypasses the runtime's reporter), so the line is read as untrusted
# data: a bounded length, known keys once each, short numerals in range. Anything
# else — a 5,000-digit number, `x=-0x5`, an unknown key — and the report is
# ignored: the crash is still the learner's, only its line is not named.
_MEMORY_FAULT = re.compile(r"KDOJO-MEMORY-FAULT ([^\n]{1,320})(?:\n|$)")
_NUMERAL = re.compile(r"-?(?:0x[0-9a-f]{1,16}|[0-9]{1,20})")
_U64 = (0, (1 << 64) - 1)
_REPORT_FIELDS: dict[str, tuple[int, int]] = {
    "pc": _U64, "addr": _U64, "write": (-1, 1), "gp": (0, 1), "kernel": (0, 1), "stack": (0, 1),
    "buffer": (0, MAX_WIRE_BUFFERS - 1), "element": (-(1 << 63), (1 << 63) - 1),
}
_REPORT_REQUIRED = ("pc", "addr", "write", "kernel")


def memory_report(stderr: str) -> dict[str, int] | None:
    """The last fault report on stderr as checked fields, or None when there is none
    or it is not exactly what the runtime writes."""
    found = _MEMORY_FAULT.findall(stderr[-STDERR_CAP_BYTES:])
    if not found:
        return None
    fields: dict[str, int] = {}
    for item in found[-1].split(" "):
        key, sep, text = item.partition("=")
        if not sep or key not in _REPORT_FIELDS or key in fields or not _NUMERAL.fullmatch(text):
            return None
        negative, digits = text.startswith("-"), text.lstrip("-")
        value = int(digits, 16) if digits.startswith("0x") else int(digits)
        value = -value if negative else value
        low, high = _REPORT_FIELDS[key]
        if not low <= value <= high:
            return None
        fields[key] = value
    if any(key not in fields for key in _REPORT_REQUIRED) or ("buffer" in fields) != ("element" in fields):
        return None
    return fields


def _describe_exit(returncode: int, stderr: str) -> Crash:
    """The verdict of a program that ended without answering, from its exit status
    only: what it wrote to stderr never decides it (it could say anything). The
    segmentation fault's report only places the fault (kernels/emu/target.py)."""
    if returncode > 128 and returncode <= 128 + 64:
        returncode = 128 - returncode  # bubblewrap reports a child killed by signal N as 128+N
    # Only the kernel's own SIGSYS (a seccomp kill) is a refused call: any exit status
    # is the program's to choose (`_exit(97)` once read as one), so it is never a verdict.
    if returncode == -signal.SIGSYS:
        return Crash("rejected", "forbidden system call",
                     Message("the program made a system call kernels may not make: "
                             "no files, processes, sockets or signals, no exit status above 127",
                             "forbidden_syscall"), stderr)
    if returncode < 0:
        sig = -returncode
        if sig == signal.SIGXCPU:
            return Crash("time_limit_exceeded", "time limit exceeded",
                         Message("the CPU time limit was reached", "cpu_limit"), stderr)
        if sig == signal.SIGSEGV or sig == signal.SIGBUS:
            return Crash("runtime_error", "invalid memory access",
                         Message("segmentation fault: a kernel read or wrote memory it does not own (far out of "
                                 "bounds, a null pointer, or a thread's stack overflowing)", "segfault_unplaced"),
                         stderr, memory_report(stderr))
        if sig == signal.SIGFPE:
            return Crash("runtime_error", "arithmetic exception",
                         Message("integer division by zero", "division_by_zero"), stderr)
        if sig == signal.SIGABRT:
            return Crash("runtime_error", "aborted", Message("the program aborted", "aborted"), stderr)
        if sig == signal.SIGKILL:
            # The program cannot send itself SIGKILL (seccomp): the judge's CPU
            # limit did (ProgramProcess decides which), or someone else did.
            return Crash(OURS, "killed", "the emulated program was killed by a signal the judge did not send "
                                         "(the machine's out-of-memory killer, or an operator)", stderr)
        try:
            name = signal.Signals(sig).name
        except ValueError:  # a real-time signal has no name here
            name = str(sig)
        return Crash("runtime_error", "crashed",
                     Message(f"the program was killed by signal {name}", "killed_by_signal", signal=name), stderr)
    return Crash("runtime_error", "crashed", Message(f"the program exited unexpectedly (status {returncode})",
                                                     "exited", status=returncode), stderr)


class ProgramProcess:
    """A started program. `call()` sends one request and returns its response or a Crash.

    Between cases the judge — not the program — gives it a fresh CPU budget
    (RLIMIT_CPU moved by prlimit from outside), so CPU time is limited per case,
    never summed over cases; the program itself cannot change its limits."""

    def __init__(self, program: Path, cpu_s: int) -> None:
        self.program = program
        self.memory_bytes = jail.program_memory_bytes("check" if program.name.endswith("check") else "fast")
        launch = jail.program_launch(program, cpu_s, self.memory_bytes)
        self._status_fd = launch.status_fd  # bubblewrap's JSON status (sandboxed only)
        self._status = b""
        try:
            self.proc = jail.spawn(launch, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=jail.program_env(cpu_s), start_new_session=True, close_fds=True)
        except BaseException:
            self._close_status()
            raise
        self.stderr = bytearray()
        self._pid: int | None = None
        self._cpu_s = 0.0  # CPU time used, as last read
        self._sampled_at = time.monotonic()  # when _cpu_s was read
        self._cpu_limit_s: float | None = None  # the soft RLIMIT_CPU we set for this case
        self._killed = False  # we sent SIGKILL
        self.vm_peak = 0  # the program's highest address space seen (bytes)
        self._released = False  # a dying program's wait ended by us (SIGUSR2)
        self._stderr_tail = b""  # the last bytes of stderr (a report split across reads)
        # Bigger pipes: a 4 MiB case crosses in a few writes instead of 64 KiB
        # hand-offs between the two processes (each a wake-up on a busy machine).
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                fcntl.fcntl(stream.fileno(), _F_SETPIPE_SZ, PIPE_BYTES)
            except OSError:
                pass

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def _read_status(self) -> bytes:
        """What bubblewrap has written to its status fd so far (never blocks)."""
        while self._status_fd is not None and len(self._status) < 1 << 16:
            try:
                chunk = os.read(self._status_fd, 4096)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self._close_status()
                break
            if not chunk:
                break
            self._status += chunk
        return self._status

    def _close_status(self) -> None:
        if self._status_fd is not None:
            try:
                os.close(self._status_fd)
            except OSError:
                pass
            self._status_fd = None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self._killed = True
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - the kernel reaps it
            pass
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
        self._close_status()

    def _program_pid(self) -> int | None:
        if self._pid is None:
            self._pid = jail.program_pid(self.proc.pid)
        return self._pid

    def _sample(self) -> None:
        pid = self._program_pid()
        if not pid:
            return
        used = jail.cpu_seconds(pid)
        if used is not None:
            self._cpu_s, self._sampled_at = used, time.monotonic()
        self.vm_peak = max(self.vm_peak, jail.vm_peak_bytes(pid) or 0)

    def _on_stderr(self, chunk: bytes) -> None:
        """A dying program reports its fault on stderr and then waits (bounded, in the
        runtime's handler) with its memory intact: read its peak now, then release it
        with SIGUSR2. The reading is ours; the program's report only says when to look."""
        self._sample()
        seen, self._stderr_tail = self._stderr_tail + chunk, (self._stderr_tail + chunk)[-len(MEMORY_FAULT_MARK):]
        if self._released or MEMORY_FAULT_MARK not in seen:
            return
        self._released = True
        pid = self._program_pid()
        if pid:
            try:
                os.kill(pid, signal.SIGUSR2)
            except OSError:
                pass  # the program's bounded wait ends on its own

    def out_of_memory(self) -> bool:
        """Whether the program has come within 10% of its RLIMIT_AS: read by the judge
        from /proc (never taken from what the program says)."""
        self._sample()
        return self.vm_peak >= OOM_FRACTION * self.memory_bytes

    def _start_case(self, cpu_s: float) -> None:
        """A fresh CPU budget for this case (best effort before the program's pid is known:
        the start-up limit from jail.program_launch holds meanwhile)."""
        pid = self._program_pid()
        if pid and jail.limit_cpu(pid, cpu_s):
            self._sample()
            self._cpu_limit_s = self._cpu_s + cpu_s

    def call(self, request: bytes, timeout_s: float, cpu_s: float | None = None) -> WireResponse | Crash:
        """One case: `timeout_s` of wall-clock time, `cpu_s` of CPU time (default: the same)."""
        started = time.monotonic()
        deadline = started + timeout_s
        self._start_case(cpu_s if cpu_s is not None else timeout_s)
        limit = len(request) + RESPONSE_SLACK_BYTES
        out = bytearray()
        pending = memoryview(request)
        need: int | None = None
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdin, selectors.EVENT_WRITE)
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            sel.register(self.proc.stderr, selectors.EVENT_READ)
            os.set_blocking(self.proc.stdin.fileno(), False)
            while need is None or len(out) < need:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.kill()
                    return Crash("time_limit_exceeded", "time limit exceeded",
                                 Message(f"the launches did not finish within {timeout_s:g} s "
                                         f"({time.monotonic() - started:.1f} s elapsed)", "launch_timeout",
                                         seconds=f"{timeout_s:g}"), self._stderr())
                events = sel.select(timeout=min(left, SAMPLE_S))
                if not events:
                    self._sample()
                for key, _ in events:
                    if key.fileobj is self.proc.stdin:
                        try:
                            sent = os.write(self.proc.stdin.fileno(), pending[:1 << 20])
                        except (BrokenPipeError, BlockingIOError) as exc:
                            if isinstance(exc, BlockingIOError):
                                continue
                            sel.unregister(self.proc.stdin)
                            continue
                        pending = pending[sent:]
                        if not pending:
                            sel.unregister(self.proc.stdin)
                    else:
                        chunk = os.read(key.fileobj.fileno(), 1 << 20)
                        if key.fileobj is self.proc.stderr:
                            if not chunk:
                                sel.unregister(self.proc.stderr)
                                continue
                            if len(self.stderr) < STDERR_CAP_BYTES:
                                self.stderr += chunk[:STDERR_CAP_BYTES - len(self.stderr)]
                            self._on_stderr(chunk)
                            continue
                        if not chunk:
                            return self._crashed(deadline, started)
                        out += chunk
                if need is None and len(out) >= RESPONSE_HEADER.size:
                    magic, body = RESPONSE_HEADER.unpack_from(out)
                    if magic != RESPONSE_MAGIC:
                        return self._corrupted("the program wrote to its standard output; kernels may only use printf")
                    if body > limit:
                        return self._corrupted(f"the program announced a {body}-byte answer, more than its "
                                               f"buffers ({limit} bytes)")
                    need = RESPONSE_HEADER.size + body
                elif need is not None and len(out) > need + RESPONSE_SLACK_BYTES:
                    return self._corrupted("the program wrote more than its answer to its standard output")
        try:
            # No copy: the response's buffers are views of `out`.
            return decode_body(memoryview(out)[RESPONSE_HEADER.size:need])
        except (ValueError, struct.error, UnicodeError) as exc:
            return self._corrupted(f"the program's answer could not be read ({exc})")

    def _corrupted(self, message: str) -> Crash:
        self.kill()
        return Crash("runtime_error", "output corrupted", Message(message, "output_corrupted"), self._stderr())

    def _crashed(self, deadline: float, started: float) -> Crash:
        ended_at = time.monotonic()  # its stdout closed: it has just died (or closed it)
        try:
            self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
        # Drain what is left of stderr (the memory fault's report arrives last).
        try:
            rest = self.proc.stderr.read(STDERR_CAP_BYTES) if self.proc.stderr else b""
        except (OSError, ValueError):
            rest = b""
        self.stderr += rest[:max(0, STDERR_CAP_BYTES - len(self.stderr))]
        code = self.proc.returncode if self.proc.returncode is not None else -signal.SIGKILL
        killed_by_us = self._killed
        sandboxed = self._status_fd is not None
        status = self._read_status()
        self.kill()
        if sandboxed and code == 1 and not killed_by_us and not jail.sandbox_ran_program(status):
            # bubblewrap's own failure before the program ran (its status has no exit code):
            # nothing the learner wrote has run yet. The judge starts it afresh once.
            return Crash(OURS, "sandbox failed", "the sandbox could not start the program", self._stderr())
        crash = _describe_exit(code, self._stderr())
        if crash.kind == "runtime_error" and self.vm_peak >= OOM_FRACTION * self.memory_bytes:
            # Our RLIMIT_AS made an allocation fail and the program died of it.
            limit_mb = self.memory_bytes >> 20
            return Crash("memory_limit_exceeded", "out of memory",
                         Message(f"the program used its {limit_mb} MB of memory and then {crash.message}",
                                 "memory_limit", megabytes=limit_mb), crash.stderr)
        if crash.kind == OURS and (killed_by_us or self._cpu_limit_reached(ended_at)):
            # SIGKILL from the hard RLIMIT_CPU we set for this case.
            return Crash("time_limit_exceeded", "time limit exceeded",
                         Message(f"the case used its CPU time ({time.monotonic() - started:.1f} s elapsed)",
                                 "cpu_limit"), crash.stderr)
        return crash

    def _cpu_limit_reached(self, ended_at: float) -> bool:
        """Whether the hard RLIMIT_CPU we set (a second past the soft one) can explain a
        SIGKILL. The last sample is up to SAMPLE_S old, and since then every thread may
        have run on every CPU we have: 24 spinning threads on a 24-core host use 4.8 CPU
        seconds between two samples, and their SIGKILL was read as the machine's (re-run,
        then internal_error)."""
        if self._cpu_limit_s is None:
            return False
        try:
            cpus = len(os.sched_getaffinity(0))
        except OSError:
            cpus = os.cpu_count() or 1
        reachable = self._cpu_s + max(0.0, ended_at - self._sampled_at) * cpus
        return reachable >= self._cpu_limit_s - 2 * SAMPLE_S

    def _stderr(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")
