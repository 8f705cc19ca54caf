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
from kernels.emu.protocol import FORBIDDEN_SYSCALL_EXIT, RESPONSE_HEADER, RESPONSE_MAGIC, WireResponse, decode_body

STDERR_CAP_BYTES = 64 * 1024
PIPE_BYTES = 1 << 20  # the default /proc/sys/fs/pipe-max-size
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
_SYSCALL_NAMES = {0: "read", 2: "open", 41: "socket", 42: "connect", 49: "bind", 56: "clone", 57: "fork",
                  58: "vfork", 59: "execve", 62: "kill", 87: "unlink", 257: "openat", 263: "unlinkat",
                  322: "execveat", 435: "clone3", 13: "rt_sigaction", 101: "ptrace", 165: "mount",
                  83: "mkdir", 82: "rename", 90: "chmod", 105: "setuid"}


@dataclass
class Crash:
    """The program ended without answering. `kind` is the verdict it maps to."""

    kind: str  # runtime_error | time_limit_exceeded | memory_limit_exceeded | rejected
    name: str
    message: str
    stderr: str
    # A segmentation fault's report (runtime's on_memory_fault): pc, addr, write
    # (1, 0, -1 unknown), kernel, stack (1: a thread's stack overflowed), buffer
    # (index in the request) and element, when the address is near one.
    memory: dict[str, int] | None = None


_MEMORY_FAULT = re.compile(r"KDOJO-MEMORY-FAULT ((?:\w+=-?(?:0x[0-9a-f]+|\d+) ?)+)")


def _memory_report(stderr: str) -> dict[str, int] | None:
    found = _MEMORY_FAULT.findall(stderr)
    if not found:
        return None
    fields = {}
    for item in found[-1].split():
        key, _, value = item.partition("=")
        fields[key] = int(value, 16) if value.startswith("0x") else int(value)
    return fields


def _describe_exit(returncode: int, stderr: str) -> Crash:
    forbidden = re.search(r"KDOJO-FORBIDDEN-SYSCALL (-?\d+)", stderr)
    if returncode == FORBIDDEN_SYSCALL_EXIT or forbidden:
        number = int(forbidden.group(1)) if forbidden else -1
        name = _SYSCALL_NAMES.get(number, f"#{number}")
        return Crash("rejected", "forbidden system call",
                     f"the program made a system call kernels may not make ({name}): "
                     "no files, processes, sockets or signals", stderr)
    if returncode > 128 and returncode <= 128 + 64:
        returncode = 128 - returncode  # bubblewrap reports a child killed by signal N as 128+N
    if returncode < 0:
        sig = -returncode
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            return Crash("time_limit_exceeded", "time limit exceeded", "the CPU time limit was reached", stderr)
        if sig == signal.SIGSEGV or sig == signal.SIGBUS:
            return Crash("runtime_error", "invalid memory access",
                         "segmentation fault: a kernel read or wrote memory it does not own "
                         "(far out of bounds, a null pointer, or a thread's stack overflowing)", stderr,
                         _memory_report(stderr))
        if sig == signal.SIGFPE:
            return Crash("runtime_error", "arithmetic exception", "integer division by zero", stderr)
        if sig == signal.SIGABRT:
            return Crash("runtime_error", "aborted", "the program aborted", stderr)
        return Crash("runtime_error", "crashed", f"the program was killed by signal {signal.Signals(sig).name}", stderr)
    if "std::bad_alloc" in stderr or "Cannot allocate memory" in stderr:
        return Crash("memory_limit_exceeded", "out of memory", "the program ran out of memory", stderr)
    return Crash("runtime_error", "crashed", f"the program exited unexpectedly (status {returncode})", stderr)


class ProgramProcess:
    """A started program. `call()` sends one request and returns its response or a Crash."""

    def __init__(self, program: Path, cpu_s: int) -> None:
        self.program = program
        self.proc = subprocess.Popen(jail.run_command(program, cpu_s), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=jail.program_env(cpu_s), start_new_session=True, close_fds=True)
        self.stderr = bytearray()
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

    def kill(self) -> None:
        if self.proc.poll() is None:
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

    def call(self, request: bytes, timeout_s: float) -> WireResponse | Crash:
        deadline = time.monotonic() + timeout_s
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
                                 f"the launches did not finish within {timeout_s:g} s", self._stderr())
                events = sel.select(timeout=left)
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
                            elif len(self.stderr) < STDERR_CAP_BYTES:
                                self.stderr += chunk[:STDERR_CAP_BYTES - len(self.stderr)]
                            continue
                        if not chunk:
                            return self._crashed(deadline)
                        out += chunk
                if need is None and len(out) >= RESPONSE_HEADER.size:
                    magic, body = RESPONSE_HEADER.unpack_from(out)
                    if magic != RESPONSE_MAGIC:
                        self.kill()
                        return Crash("runtime_error", "output corrupted",
                                     "the program wrote to its standard output; kernels may only use printf",
                                     self._stderr())
                    need = RESPONSE_HEADER.size + body
        try:
            # No copy: the response's buffers are views of `out`.
            return decode_body(memoryview(out)[RESPONSE_HEADER.size:need])
        except (ValueError, struct.error):
            self.kill()
            return Crash("runtime_error", "output corrupted", "the program's answer could not be read", self._stderr())

    def _crashed(self, deadline: float) -> Crash:
        try:
            self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
        # Drain what is left of stderr (the forbidden-syscall note arrives last).
        try:
            rest = self.proc.stderr.read(STDERR_CAP_BYTES) if self.proc.stderr else b""
        except (OSError, ValueError):
            rest = b""
        self.stderr += rest[:max(0, STDERR_CAP_BYTES - len(self.stderr))]
        code = self.proc.returncode if self.proc.returncode is not None else -signal.SIGKILL
        self.kill()
        return _describe_exit(code, self._stderr())

    def _stderr(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")
