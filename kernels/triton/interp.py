"""The CPU target for Triton (trusted side): a Triton attempt run by Triton's interpreter.

`build_program()` writes the attempt to a private folder and returns a Program whose handle
runs itself (`handle.run(launches, buffers, timeout_s) -> RunOutcome`, which the emu target
calls): one sandboxed server per attempt (kernels/triton/interp_server.py) serves every case
over the emulator's wire format. The server shares a process with the learner's code, so its
answer is data: the buffers must come back at their sizes, findings are known kinds whose
parameters are checked and worded here, a crash, a hang, garbage on stdout or a huge answer is
the case's verdict (kernels/emu/process.py's limits), never internal_error.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kernels.targets.base import (TargetUnavailable, BuildError, Diagnostic, GuardedArray, Launch, Program, RunOutcome,
                             RuntimeFault, unique_diagnostics)
from kernels.emu.process import OURS, Crash, ProgramProcess
from kernels.emu.protocol import (ARG_BUFFER, ARG_FLOAT, ARG_INT, WireBuffer, WireLaunch, WireResponse,
                                  encode_request, float_bits, int_bits)
from kernels.emu import jail as emu_jail
from kernels.triton import interp_messages, jail

SERVER = Path(__file__).with_name("interp_server.py")
# What the server imports of ours, each by its file name (the sandbox shows these files only)
SERVER_MODULES = (Path(__file__).parents[1] / "emu" / "protocol.py", Path(__file__).with_name("interp_checks.py"),
                  Path(__file__).with_name("interp_fixes.py"), Path(__file__).with_name("tensors.py"))
LEARNER_FILE = "submission.triton.py"
SERVER_MEMORY_MB = 2048  # the server's address space: Triton's libraries take ~300 MB of it
MAX_DIAGNOSTICS = 32
MAX_OUTPUT_CHARS = 16 * 1024 + 64
# Constructs Triton 3.6's interpreter cannot run (it raises NotImplementedError): valid Triton,
# `rejected` with `needs_gpu` on this target. The server refuses them too when they run.
_NEEDS_GPU = ((re.compile(r"\binline_asm_elementwise\b"), "tl.inline_asm_elementwise"),
              (re.compile(r"\blibdevice\b|\bextern_elementwise\b"), "extern_elementwise (libdevice)"))
_SCRATCH_PARAMS = ("global_scratch", "profile_scratch")


def build_program(exercise: Any, source: str, compiled: Any = None, target: Any = None) -> Program:
    """The attempt as a Program for the CPU target. Raises BuildError (`needs_gpu`) for what the
    interpreter cannot run. `compiled` (the sandboxed compile's result) is not re-derived here:
    the launches the judge passes already carry grids and meta-parameters."""
    for pattern, feature in _NEEDS_GPU:
        found = pattern.search(source)
        if found:
            line = source.count("\n", 0, found.start()) + 1
            message = interp_messages.needs_gpu(feature, line)
            raise BuildError([Diagnostic(line, 0, "error", message)], message, needs_gpu=feature)
    refused = jail.refusal()
    if refused:
        raise TargetUnavailable(refused)
    work_dir = jail.work_dir()
    path = work_dir / LEARNER_FILE
    path.write_text(source, encoding="utf-8")
    path.chmod(0o644)
    handle = InterpHandle(exercise, path, kernels_by_key=_kernels_by_key(compiled))
    weakref.finalize(handle, _close, handle.processes, work_dir)
    handle.start()  # Python and Triton import (1-3 s) while the judge prepares the first case
    names = tuple(launch.kernel for launch in exercise.triton.launches) if getattr(exercise, "triton", None) else ()
    return Program(kernels=names, handle=handle)


def _kernels_by_key(compiled: Any) -> dict[str, str]:
    """Binary key → @triton.jit function name, from the compile step's build (a TritonBuild)."""
    binaries = getattr(getattr(compiled, "artifact", None), "binaries", ())
    return {str(b.key): str(b.kernel) for b in binaries}


def _close(processes: dict, work_dir: Path) -> None:
    for proc in processes.values():
        proc.kill()
    processes.clear()
    shutil.rmtree(work_dir, ignore_errors=True)


class ServerProcess(ProgramProcess):
    """The interpreter's server: ProgramProcess's bounded exchange, our own start."""

    def __init__(self, learner: Path, cpu_s: int) -> None:  # noqa: super().__init__ starts a C++ program
        self.program = learner
        self.memory_bytes = SERVER_MEMORY_MB << 20
        self._status_fd = None
        self._status = b""
        self.proc = _start_server(learner, cpu_s, self.memory_bytes)
        self.stderr = bytearray()
        self._pid: int | None = None
        self._cpu_s, self._sampled_at = 0.0, 0.0
        self._cpu_limit_s = None
        self._killed = False
        self.vm_peak = 0
        self._released = False
        self._stderr_tail = b""

    def _crashed(self, deadline: float, started: float) -> Crash:
        crash = super()._crashed(deadline, started)
        bwrap_failed = crash.stderr.startswith("bwrap: ") and "exited unexpectedly" in crash.message
        if crash.kind == "runtime_error" and bwrap_failed:
            # bubblewrap itself failed before the server ran (a clone refused while other sandboxes
            # start): the machine's, run again once (a server that forges this gains nothing: twice is
            # the learner's runtime_error)
            return Crash(OURS, "sandbox failed", "the sandbox could not start the server", crash.stderr)
        return crash

    def _program_pid(self) -> int | None:
        if self._pid is None:
            self._pid = emu_jail.program_pid(self.proc.pid)
        return self._pid


def _start_server(learner: Path, cpu_s: int, memory_bytes: int) -> subprocess.Popen:
    """Start the server for `learner` in the Triton sandbox (kernels/triton/jail.py: bubblewrap,
    seccomp with no exec and no fork, rlimits, an empty environment). The server's own modules
    are shown beside it and imported by their file names."""
    return jail.start_server(SERVER, [learner.name], learner.parent, cpu_s=cpu_s, memory_bytes=memory_bytes,
                             read_only=SERVER_MODULES)


@dataclass
class InterpHandle:
    exercise: Any
    learner: Path
    # the compile step's binaries: a Launch's kernel is a binary's key ("b0"), run by its function
    kernels_by_key: dict[str, str] = field(default_factory=dict)
    processes: dict[str, ServerProcess] = field(default_factory=dict)
    adversarial: bool = True  # programs in reverse order: order-dependent code shows

    def run(self, launches: list[Launch], buffers: dict[str, GuardedArray], timeout_s: float) -> RunOutcome:
        """One case: every launch in order, the buffers updated in place. A learner's fault is in
        the outcome (a Crash of the server included); this never raises for the learner's code."""
        order = list(buffers)
        wire = [WireBuffer(name, _bytes_view(buffers[name].full), buffers[name].payload_offset_bytes,
                           buffers[name].size * buffers[name].full.dtype.itemsize, buffers[name].full.dtype.itemsize)
                for name in order]
        extra = json.dumps({"buffers": [self._describe(name, buffers[name]) for name in order],
                            "launches": [{"kernel": self._kernel(l), "meta": _meta(l)} for l in launches],
                            "timeout_s": timeout_s})
        request = encode_request(wire, [_wire_launch(l, order) for l in launches], self.adversarial, extra)
        got = self._call(request, timeout_s)
        if isinstance(got, Crash):
            return RunOutcome(buffers, "", RuntimeFault(got.kind, got.name, got.message, poisoned=True), [])
        problem = _mismatch(got, wire)
        if problem:
            return RunOutcome(buffers, "", RuntimeFault("runtime_error", "output corrupted", problem, poisoned=True))
        _copy_back(got, order, buffers)
        diagnostics = interp_messages.diagnostics(got.diagnostics, set(order))[:MAX_DIAGNOSTICS]
        fault = interp_messages.fault(got, set(order), timeout_s)
        races = [d for d in diagnostics if d.kind == "race"]
        if races and fault is None:
            fault = RuntimeFault("wrong_answer", "data race", races[0].message)
        output = got.output
        if len(output) > MAX_OUTPUT_CHARS:
            output = output[:MAX_OUTPUT_CHARS] + "\n[output truncated]\n"
        return RunOutcome(buffers, output, fault, unique_diagnostics(diagnostics))

    def start(self) -> None:
        """Start the server now (it imports Triton before the first request arrives)."""
        if "server" not in self.processes:
            try:
                self.processes["server"] = ServerProcess(self.learner, self.cpu_s(_run_s(self.exercise)))
            except OSError:
                pass  # a busy machine (EAGAIN from the task limit): the first case starts it

    @staticmethod
    def cpu_s(timeout_s: float) -> int:
        """The server's CPU seconds at its start (each case then gets its own, ProgramProcess)."""
        return int(timeout_s * 4) + 5

    def _call(self, request: bytes, timeout_s: float) -> WireResponse | Crash:
        """The request on a live server; a crash that is not plainly the learner's (a SIGKILL we
        did not send) is run once more in a fresh server, and a second one is theirs."""
        got: WireResponse | Crash | None = None
        for fresh in (False, True):
            proc = self.processes.get("server")
            if fresh or proc is None or not proc.alive:
                if proc is not None:
                    proc.kill()
                proc = self.processes["server"] = ServerProcess(self.learner, self.cpu_s(timeout_s))
            got = proc.call(request, timeout_s + 1.0, timeout_s + 1.0)
            if not (isinstance(got, Crash) and got.kind == OURS):
                return got
        return Crash("runtime_error", "crashed", f"the server ended twice without answering: {got.message}", got.stderr)

    def _describe(self, name: str, buf: GuardedArray) -> dict[str, str]:
        spec = self.exercise.buffer(name) if hasattr(self.exercise, "buffer") else None
        return {"dtype": spec.dtype if spec else str(buf.full.dtype), "role": buf.role,
                "init": getattr(spec, "init", "sentinel")}

    def _kernel(self, launch: Launch) -> str:
        """The @triton.jit function a launch runs: its binary's (kernels/triton/launches.py), else
        the launch's kernel itself names it."""
        return self.kernels_by_key.get(launch.kernel, launch.kernel)

    def close(self) -> None:
        for proc in self.processes.values():
            proc.kill()
        self.processes.clear()


def _run_s(exercise: Any) -> float:
    limits = getattr(exercise, "limits", None)
    return float(getattr(limits, "run_s", 10.0))


def _meta(launch: Launch) -> dict[str, Any]:
    return {str(k): v for k, v in launch.meta if isinstance(v, (int, float, bool))}


def _wire_launch(launch: Launch, order: list[str]) -> WireLaunch:
    args = []
    for arg in launch.args:
        if arg.param in _SCRATCH_PARAMS:
            continue  # Triton's trailing scratch pointers: the interpreter has none
        if arg.buffer is not None:
            args.append((ARG_BUFFER, order.index(arg.buffer)))
        elif isinstance(arg.value, float) or "float" in arg.ctype or "double" in arg.ctype:
            args.append((ARG_FLOAT, float_bits(float(arg.value or 0))))
        else:
            args.append((ARG_INT, int_bits(int(arg.value or 0))))
    return WireLaunch(launch.kernel, tuple(launch.grid), tuple(launch.block), int(launch.shared_bytes), tuple(args))


def _mismatch(response: WireResponse, wire: list[WireBuffer]) -> str | None:
    if len(response.buffers) != len(wire):
        return f"the server's answer has {len(response.buffers)} buffers, not {len(wire)}"
    for got, sent in zip(response.buffers, wire):
        if memoryview(got).nbytes != memoryview(sent.data).nbytes:
            return f"the server's answer changed the size of buffer '{sent.name}'"
    return None


def _bytes_view(array: np.ndarray) -> memoryview:
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return memoryview(array.reshape(-1).view(np.uint8))


def _copy_back(response: WireResponse, order: list[str], buffers: dict[str, GuardedArray]) -> None:
    for name, data in zip(order, response.buffers):
        full = buffers[name].full
        full.view(np.uint8).reshape(-1)[:] = np.frombuffer(data, dtype=np.uint8, count=full.nbytes)
