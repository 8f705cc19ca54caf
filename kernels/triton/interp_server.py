"""The CPU target's server for a Triton attempt: Triton 3.6's interpreter over the judge's buffers.

Runs in the sandbox, one process per attempt, serving every case over stdin/stdout in the
emulator's wire format (kernels/emu/protocol.py; requests carry MODE_JSON: the buffers'
dtypes and roles, the launches' kernel names and meta-parameters, the case's wall limit).

    interp_server.py LEARNER_FILE     (started by kernels/triton/jail.py's start_server)

Startup: TRITON_INTERPRET=1 before triton is imported, the protocol's pipes moved to private
descriptors (fd 1 becomes stderr: a kernel's `print` or a write to fd 1 cannot corrupt an
answer), the learner's file imported once. Per request: the guarded arrays as sent, a
`BufferTensor` per payload, each launch's programs run one by one (in reverse order under
MODE_ADVERSARIAL) with every access checked (kernels/triton/interp_checks.py), and the answer:
the arrays, the captured output, a fault and the findings. Everything here shares a process
with the learner's code, so nothing here is trusted: the judge checks the answer as data and
the sandbox holds the process.
"""

from __future__ import annotations

import importlib.util
import inspect
import io
import json
import os
import sys
import time
import traceback
from pathlib import Path

OUTPUT_CAP_CHARS = 16 * 1024
DETAIL_CAP_CHARS = 600
_ADVERSARIAL, _JSON = 1, 2
_LEAVE_S = 0.3  # the server answers "time limit" this long before the judge's wall limit


class _NeedsGpu(Exception):
    """A construct Triton's interpreter cannot run (the judge says `needs_gpu`)."""


class _Timeout(Exception):
    pass


class _CappedOutput(io.TextIOBase):
    """sys.stdout for a request: a kernel's `print` and `tl.device_print`, capped."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.size < OUTPUT_CAP_CHARS:
            self.parts.append(str(text)[:OUTPUT_CAP_CHARS - self.size])
            self.size += len(self.parts[-1])
        return len(text)

    def text(self) -> str:
        return "".join(self.parts)


def _private_pipes() -> tuple[io.BufferedReader, io.BufferedWriter]:
    """The protocol on descriptors of our own; fd 1 → stderr, fd 0 → an empty pipe."""
    proto_in = os.fdopen(os.dup(0), "rb", buffering=1 << 20)
    proto_out = os.fdopen(os.dup(1), "wb", buffering=1 << 20)
    os.dup2(2, 1)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    os.close(write_end)
    return proto_in, proto_out


def _learner_line(tb, learner_file: str) -> int:
    line = 0
    for frame, lineno in traceback.walk_tb(tb):
        if frame.f_code.co_filename == learner_file:
            line = lineno
    return line


class Server:
    def __init__(self, learner_file: str) -> None:
        from triton.runtime import interpreter

        import interp_fixes

        self.interpreter = interpreter
        self.builder = interpreter.interpreter_builder
        interp_fixes.apply(interpreter)
        self._patched: set[int] | None = None  # the language modules patched in this launch
        interpreter._patch_lang = self._patch_lang_once(interpreter._patch_lang)
        self.learner_file = learner_file
        self.checker = None
        self.module, self.import_error = self._import(learner_file)
        self._instrument()

    def _import(self, path: str):
        try:
            spec = importlib.util.spec_from_file_location("submission", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module, None
        except BaseException as exc:  # noqa: BLE001 — the learner's error, answered per request
            return None, (_learner_line(exc.__traceback__, path), f"{type(exc).__name__}: {exc}"[:DETAIL_CAP_CHARS])

    def _instrument(self) -> None:
        """Every memory access of the interpreter goes through the checker first."""
        b = self.builder
        load, store = b.create_masked_load, b.create_masked_store
        rmw, cas = b.create_atomic_rmw, b.create_atomic_cas

        def width(ptrs) -> int:
            return max(1, ptrs.get_element_ty().primitive_bitwidth // 8)

        def masked_load(ptrs, mask, other, *rest):
            self.checker.check("read", ptrs.data, mask.data, width(ptrs))
            return load(ptrs, mask, other, *rest)

        def masked_store(ptrs, value, mask, *rest):
            self.checker.check("write", ptrs.data, mask.data, width(ptrs))
            return store(ptrs, value, mask, *rest)

        def atomic_rmw(op, ptr, val, mask, *rest):
            self.checker.check("atomic", ptr.data, mask.data, width(ptr))
            return rmw(op, ptr, val, mask, *rest)

        def atomic_cas(ptr, cmp, val, *rest):
            self.checker.check("atomic", ptr.data, None, width(ptr))
            return cas(ptr, cmp, val, *rest)

        def needs(feature: str):
            def refuse(*_args, **_kwargs):
                raise _NeedsGpu(feature)
            return refuse

        b.create_masked_load, b.create_masked_store = masked_load, masked_store
        b.create_atomic_rmw, b.create_atomic_cas = atomic_rmw, atomic_cas
        b.create_inline_asm = needs("tl.inline_asm_elementwise")
        b.create_extern_elementwise = needs("extern_elementwise (libdevice)")

    def _patch_lang_once(self, patch_lang):
        """Triton's interpreter patches the whole language (hundreds of attributes, found with
        inspect.getmembers) at every call of a @triton.jit helper such as tl.sum, with the same
        values each time and never undone: within a launch, once per module is enough (a
        rope kernel spent most of its time there)."""
        tl = self.interpreter.tl

        def patch(fn):
            langs = {id(v) for v in fn.__globals__.values() if isinstance(v, type(tl)) and v in (tl, tl.core)}
            if self._patched is not None and langs and langs <= self._patched:
                return _NO_SCOPE
            scope = patch_lang(fn)
            if self._patched is not None:
                self._patched |= langs
            return scope

        return patch

    def serve(self, request) -> bytes:
        import interp_checks
        import protocol

        extra = json.loads(request.extra_json or "{}")
        arrays, regions = self._arrays(request, extra.get("buffers", []))
        self.checker = interp_checks.AccessChecker(regions, self.learner_file, bool(extra.get("track", True)))
        deadline = time.monotonic() + max(0.1, float(extra.get("timeout_s", 10.0)) - _LEAVE_S)
        output = _CappedOutput()
        saved, sys.stdout = sys.stdout, output
        fault = None
        try:
            if self.import_error is not None:
                fault = ("import error", self.import_error[0], {"line": self.import_error[0],
                                                                 "detail": self.import_error[1]})
            else:
                fault = self._run_all(request, extra.get("launches", []), arrays, deadline)
        finally:
            sys.stdout = saved
        findings = self.checker.findings
        if fault is None and findings.fault is not None:
            fault = (findings.fault[0], findings.fault[1], json.loads(findings.fault[2]))
        response = protocol.WireResponse(
            fault_name=fault[0] if fault else None, fault_message=json.dumps(fault[2]) if fault else "",
            fault_line=fault[1] if fault else 0, fault_pc=0,
            diagnostics=[protocol.WireDiag(kind, line, 0, params) for kind, line, params in findings.diagnostics],
            output=output.text(), buffers=[data for _, data, *_ in request.buffers])
        return protocol.encode_response(response)

    def _arrays(self, request, described: list) -> tuple[list, list]:
        import numpy as np

        import interp_checks
        import tensors

        arrays, regions = [], []
        for i, (name, data, offset, size, elem) in enumerate(request.buffers):
            info = described[i] if i < len(described) else {}
            dtype = info.get("dtype", "uint8")
            whole = np.frombuffer(data, dtype=np.uint8)
            payload = whole[offset:offset + size].view(tensors.NUMPY.get(dtype, np.uint8))
            arrays.append(tensors.BufferTensor(name, payload, dtype))
            base = int(whole.ctypes.data)
            regions.append(interp_checks.Region(
                name, base, base + len(data), base + offset, base + offset + size, elem,
                sentinel_out=info.get("role") == "out" and info.get("init", "sentinel") == "sentinel",
                read_only=info.get("role") == "in"))
        return arrays, regions

    def _run_all(self, request, described: list, arrays: list, deadline: float):
        import protocol
        from interp_checks import StopRun
        from triton.runtime.autotuner import Autotuner

        for index, launch in enumerate(request.launches):
            info = described[index] if index < len(described) else {}
            name = info.get("kernel", launch.kernel)
            kernel = getattr(self.module, name, None)
            if type(kernel) is Autotuner:
                # an autotuned kernel runs its first config, whose meta-parameters the judge sends
                # (the compile step chose them): the interpreter times nothing
                kernel = getattr(kernel, "fn", None)
            if not isinstance(kernel, self.interpreter.InterpretedFunction):
                return ("missing kernel", 0, {"line": 0, "detail": f"no @triton.jit function '{name}'"})
            args = []
            for kind, bits in launch.args:
                if kind == protocol.ARG_BUFFER:
                    args.append(arrays[bits] if bits < len(arrays) else 0)
                elif kind == protocol.ARG_FLOAT:
                    args.append(_float(bits))
                else:
                    args.append(bits - (1 << 64) if bits >= 1 << 63 else bits)
            try:
                self._launch(kernel, tuple(int(g) for g in launch.grid), args, info.get("meta", {}),
                             bool(request.mode & _ADVERSARIAL), deadline)
            except StopRun:
                return None  # the checker holds the fault
            except _Timeout as exc:
                return ("time limit exceeded", 0, {"detail": str(exc)})
            except Exception as exc:  # noqa: BLE001 — the learner's error: its line and its text
                line = _learner_line(exc.__traceback__, self.learner_file)
                cause = exc.__cause__ or exc  # Triton's InterpreterError wraps what a kernel raised
                if isinstance(cause, MemoryError):
                    return ("out of memory", line, {"detail": "MemoryError"})
                if isinstance(cause, _NeedsGpu):
                    return ("needs_gpu", line, {"feature": str(cause)})
                name = "device-side assert" if isinstance(cause, AssertionError) else "python error"
                return (name, line, {"line": line, "detail": f"{type(cause).__name__}: {cause}"[:DETAIL_CAP_CHARS]})
        return None

    def _launch(self, kernel, grid: tuple[int, int, int], args: list, meta: dict, reverse: bool,
                deadline: float) -> None:
        interp, builder = self.interpreter, self.builder
        fn = kernel.rewrite()
        names = list(inspect.signature(kernel.fn).parameters)
        constexprs = {n for n, p in inspect.signature(kernel.fn).parameters.items()
                      if "constexpr" in str(p.annotation)}
        plain = [n for n in names if n not in constexprs]
        call = dict(zip(plain, args))
        call.update({k: v for k, v in meta.items() if k in constexprs})
        self._patched = set()
        scope = interp._patch_lang(fn)
        try:
            bound = inspect.getcallargs(fn, **call)
            bound = {n: v if n in constexprs else interp._implicit_cvt(v) for n, v in bound.items()}
            builder.set_grid_dim(*grid)
            self.checker.begin_launch(grid)
            done, total = 0, grid[0] * grid[1] * grid[2]
            for program in _programs(grid, reverse):
                if time.monotonic() > deadline:
                    raise _Timeout(f"{done} of {total} programs ran")
                self.checker.set_program(program)
                builder.set_grid_idx(*program)
                fn(**bound)
                done += 1
        finally:
            scope.restore()
            self._patched = None


class _NoScope:
    def restore(self) -> None:
        pass


_NO_SCOPE = _NoScope()


def _programs(grid: tuple[int, int, int], reverse: bool):
    """Every program id, x outermost (as Triton's interpreter runs them), or all reversed."""
    def axis(n: int):
        return range(n - 1, -1, -1) if reverse else range(n)

    for x in axis(grid[0]):
        for y in axis(grid[1]):
            for z in axis(grid[2]):
                yield (x, y, z)


def _float(bits: int) -> float:
    import struct

    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def main(argv: list[str]) -> int:
    os.environ["TRITON_INTERPRET"] = "1"
    proto_in, proto_out = _private_pipes()
    import protocol  # shown beside this file by the sandbox (kernels/triton/interp.py SERVER_MODULES)

    server = Server(str(Path(argv[1]).resolve()))
    while True:
        request = protocol.read_request(proto_in)
        if request is None:
            return 0
        proto_out.write(server.serve(request))
        proto_out.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
