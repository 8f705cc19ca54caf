"""NVRTC in a child process, bounded in memory, CPU and wall time.

A learner's source can make a compiler take gigabytes and minutes (deep
template recursion, macros that double at each level, huge constant arrays),
so it is never compiled in the job process. A helper, `python -m
kernels.nvrtc_child`, is started while the job process warms up (it pays
NVRTC's slow first compile then), with `RLIMIT_AS` = the compile memory
(`KDOJO_COMPILE_MEMORY_MB`, default 2048) and no core dumps; it answers one
JSON line per request. Per request it sets `RLIMIT_CPU` to the CPU it has used
plus the limit: CPU time is what a source controls. The caller kills it at the
wall limit when it has burnt that CPU; a compile merely starved by a loaded
machine gets more wall time, up to WALL_CAP_FACTOR × the limit. NVRTC that runs out
of address space says "out of memory" (or the helper dies); either way the
caller raises `CompilerLimit` with the real limits and the real elapsed time,
and the next compile starts a fresh helper.

    out = compile_bounded(source, "submission.cu", options, timeout_s=15.0)  # NvrtcOutput
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import resource
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from kernels import settings
from kernels.cgroup import rlimit_hook
from kernels.messages import Message
from kernels.nvrtc import NvrtcOutput

MEMORY_ENV = "KDOJO_COMPILE_MEMORY_MB"
MAX_RESPONSE_BYTES = 256 * 2**20
WALL_CAP_FACTOR = 4  # a starved (not a busy) compile may take this many times its limit
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
WARM_SOURCE = 'extern "C" __global__ void kdojo_warm(int* p) { if (p) p[0] = 1; }'


class CompilerLimit(Exception):
    """The compiler ran past a limit; str() is the learner-facing sentence."""


def memory_limit_mb() -> int:
    return settings.value(MEMORY_ENV)


def _limits_text(memory_mb: int, timeout_s: float) -> str:
    size = f"{memory_mb / 1024:g} GB" if memory_mb % 512 == 0 else f"{memory_mb} MB"
    return f"{size} / {timeout_s:g} s"


class CompilerHelper:
    """One helper process; `compile` may be called until it raises CompilerLimit."""

    def __init__(self, memory_mb: int | None = None) -> None:
        self.memory_mb = memory_mb or memory_limit_mb()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kernels.nvrtc_child"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, close_fds=True,  # stderr: the job's, for the operator's log
            preexec_fn=rlimit_hook(self.memory_mb << 20, None))
        self._buffer = b""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def compile(self, source: str, name: str, options: list[str], timeout_s: float) -> NvrtcOutput:
        started = time.monotonic()
        request = {"source": source, "name": name, "options": options, "cpu_s": timeout_s}
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # it died; the read below says how
        reply = self._await_reply(started, timeout_s)
        elapsed = time.monotonic() - started
        limits = _limits_text(self.memory_mb, timeout_s)
        if reply is None:  # the wall limit
            self.close()
            raise CompilerLimit(Message(f"the compiler ran past its {limits}: still running after {elapsed:.1f} s",
                                        "compiler_limit", limits=limits, how="running", seconds=f"{elapsed:.1f}"))
        if reply == b"":
            code = self.close()
            if code is None or code >= 0:  # a Python error in our helper: its traceback is on stderr
                raise RuntimeError(f"the NVRTC helper exited ({code}) without an answer")
            why = "CPU time" if code == -signal.SIGXCPU else _signal_name(-code)
            raise CompilerLimit(Message(f"the compiler ran past its {limits}: it stopped ({why}) after "
                                        f"{elapsed:.1f} s", "compiler_limit", limits=limits, how="stopped",
                                        seconds=f"{elapsed:.1f}"))
        answer = json.loads(reply)
        if "error" in answer:
            raise RuntimeError(f"the NVRTC helper failed: {answer['error']}")
        if answer.get("out_of_memory"):
            self.close()
            raise CompilerLimit(Message(f"the compiler ran past its {limits}: out of memory after {elapsed:.1f} s",
                                        "compiler_limit", limits=limits, how="memory", seconds=f"{elapsed:.1f}"))
        return NvrtcOutput(bool(answer["ok"]), answer["log"], base64.b64decode(answer["ptx"]),
                           base64.b64decode(answer["cubin"]))

    def _await_reply(self, started: float, timeout_s: float) -> bytes | None:
        """The reply (b"" if the helper died); None once it has used `timeout_s` of CPU
        by the wall deadline, or at WALL_CAP_FACTOR × `timeout_s` whatever it used."""
        cpu_before = self._cpu_s()
        deadline, cap = started + timeout_s, started + WALL_CAP_FACTOR * timeout_s
        while True:
            reply = self._read_line(deadline)
            now = time.monotonic()
            if reply is not None or now >= cap:
                return reply
            used = self._cpu_s() - cpu_before
            if used >= timeout_s - 0.5:
                return None
            deadline = min(cap, now + (timeout_s - used) + 1.0)

    def _cpu_s(self) -> float:
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("inf")  # gone: stop waiting
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS  # utime, stime

    def _read_line(self, deadline: float) -> bytes | None:
        """One line; b"" when the helper died, None at the deadline."""
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    return None
                chunk = os.read(fd, 1 << 20)
                if not chunk or len(self._buffer) > MAX_RESPONSE_BYTES:
                    return b""
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def close(self) -> int | None:
        """Kill and reap; the exit status (negative: the signal)."""
        if self.proc.poll() is None:
            self.proc.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            return self.proc.wait(10)
        except subprocess.TimeoutExpired:
            return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


_helper: CompilerHelper | None = None
_atexit_registered = False


def start() -> CompilerHelper:
    """The process's helper, started now if there is none (a job process calls this while
    warming, so the first learner compile finds NVRTC loaded and warm)."""
    global _helper, _atexit_registered
    if _helper is None or not _helper.alive():
        if not _atexit_registered:  # a long-lived caller (tests, the CLI) leaves none behind
            atexit.register(_close_helper)
            _atexit_registered = True
        _helper = CompilerHelper()
    return _helper


def _close_helper() -> None:
    if _helper is not None:
        _helper.close()


def compile_bounded(source: str, name: str, options: list[str], timeout_s: float) -> NvrtcOutput:
    """Compile in the helper. Raises CompilerLimit past a limit (the helper is then replaced
    on the next call); NvrtcUnavailable surfaces as RuntimeError from the helper's reply."""
    global _helper
    helper = start()
    try:
        return helper.compile(source, name, options, timeout_s)
    except CompilerLimit:
        _helper = None
        raise


# -- the child side -----------------------------------------------------------

def _serve() -> int:
    from kernels.nvrtc import compile_program

    compile_program(WARM_SOURCE, "warm.cu", ["--gpu-architecture=compute_90"])
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        request = json.loads(line)
        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu_now = int(used.ru_utime + used.ru_stime)
        resource.setrlimit(resource.RLIMIT_CPU,
                           (cpu_now + max(1, int(request["cpu_s"]) + 1), resource.RLIM_INFINITY))
        try:
            result = compile_program(request["source"], request["name"], request["options"])
        except MemoryError:
            answer = {"out_of_memory": True}
        except Exception as exc:  # noqa: BLE001 — NVRTC's own failure: ours, reported as such
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        else:
            oom = not result.ok and "catastrophic error: out of memory" in result.log
            answer = {"out_of_memory": oom, "ok": result.ok, "log": result.log,
                      "ptx": base64.b64encode(result.ptx).decode(),
                      "cubin": base64.b64encode(result.cubin).decode()}
        out.write(json.dumps(answer).encode() + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_serve())
