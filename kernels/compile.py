"""Compile a submission with NVRTC: policy, constants, signature check, diagnostics.

The learner's source is compiled as written, followed by

    #line 1 "kdojo-signature"
    extern "C" __global__ void block_sum(const float* in, float* out, int N);

so a kernel whose parameters differ from the spec is a compile error, while
every diagnostic in the learner's own code keeps its line number. NVRTC's log
is rebuilt from the parsed diagnostics: nothing from any other file (a CUDA
header, or a file an include might have named) reaches the learner.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from kernels.targets.base import Diagnostic
from kernels.constants import read_constants
from kernels.includes import check_includes
from kernels.messages import Message
from kernels.nvrtc_child import CompilerLimit, compile_bounded
from kernels.spec import Exercise

SOURCE_NAME = "submission.cu"
SIGNATURE_FILE = "kdojo-signature"
MAX_SOURCE_BYTES = 256 * 1024
DEFAULT_ARCH = "compute_90"  # PTX-only check where no GPU says which sm_XX to build
# -default-device: a function without __host__/__device__ is device code, as nvcc
# treats what device code calls — a generic lambda (`[](auto v) {…}`, whose call
# operator NVRTC otherwise takes for a host function and refuses in JIT mode) or an
# unannotated helper; the emulator's g++ compiles both anyway (#12).
NVRTC_OPTIONS = ("-lineinfo", "-std=c++17", "-default-device")

_HEADER = re.compile(r"^(?P<file>[^\n()]+)\((?P<line>\d+)\): (?P<sev>catastrophic error|error|warning|remark)"
                     r"(?: #[\w-]+)?: (?P<msg>.*)$")
_KEEP = re.compile(r"^(\d+ (catastrophic )?errors? detected in the compilation of .*|Compilation terminated\.)$")


@dataclass
class CompileResult:
    """What a language's compile made of a submission (kernels/languages/), handed to the
    target's build as is. status: "ok" | "compile_error" | "rejected". `language`: the
    language that made it; `artifact`: that language's build where it is not NVRTC's
    `ptx`/`cubin` (Triton: its parsed manifest of cubins and launch meta-parameters)."""

    status: str
    seconds: float
    log: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    constants: dict[str, int] = field(default_factory=dict)
    ptx: bytes = b""
    cubin: bytes = b""
    limited: bool = False  # the compiler ran past its memory or time
    language: str = "cuda"  # "cuda" | "triton" (#29)
    # the language's own build, which its target reads (Triton: kernels.triton.compile.TritonBuild)
    artifact: Any = None
    toolchain: str = ""  # what compiled it, e.g. "triton 3.6.0" (the result document says it)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict:
        out = {"ok": self.ok, "seconds": round(self.seconds, 4), "log": self.log,
               "diagnostics": [d.to_dict() for d in self.diagnostics]}
        if self.toolchain:
            out["toolchain"] = self.toolchain
        return out


_CACHE: OrderedDict[tuple, CompileResult] = OrderedDict()


def compile_submission(source: str, exercise: Exercise, arch: str | None = None) -> CompileResult:
    """Policy check, then NVRTC. `arch` "sm_90" gives a CUBIN; None a PTX-only check.
    Results are memoised (a backend compiling the same source again pays nothing)."""
    started = time.perf_counter()
    if len(source.encode("utf-8", "replace")) > MAX_SOURCE_BYTES:
        kib = MAX_SOURCE_BYTES // 1024
        return CompileResult("rejected", 0.0, f"source larger than {kib} KiB", [Diagnostic(0, 0, "error", Message(
            f"the source is larger than {kib} KiB", "source_too_large", kib=kib))])
    violations = check_includes(source)
    if violations:
        diags = [Diagnostic(v.line, 1, "error", v.message) for v in violations]
        return CompileResult("rejected", time.perf_counter() - started, _render(diags), diags)
    constants, defined, const_diags = read_constants(source, exercise)
    if const_diags:
        return CompileResult("compile_error", time.perf_counter() - started, _render(const_diags),
                             const_diags, constants)
    options = [*NVRTC_OPTIONS, f"--gpu-architecture={arch or DEFAULT_ARCH}"]
    options += [f"-D{name}={value}" for name, value in constants.items() if name not in defined]
    key = (source, tuple(options), tuple(k.declaration() for k in exercise.kernels))
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    result = _nvrtc(source, exercise, options, constants, started)
    if result.limited:
        return result  # a limit depends on the machine's load: never memoised
    _CACHE[key] = result
    while len(_CACHE) > 8:
        _CACHE.popitem(last=False)
    return result


def _nvrtc(source: str, exercise: Exercise, options: list[str], constants: dict[str, int],
           started: float) -> CompileResult:
    declarations = "\n".join(k.declaration() for k in exercise.kernels)
    full = f'{source}\n#line 1 "{SIGNATURE_FILE}"\n{declarations}\n'
    try:
        out = compile_bounded(full, SOURCE_NAME, options, exercise.limits.compile_s)
    except CompilerLimit as exc:  # a compile bomb: the learner's, with the real limits and time
        diagnostics = [Diagnostic(0, 0, "error", exc.args[0] if exc.args else str(exc))]
        return CompileResult("compile_error", time.perf_counter() - started, _render(diagnostics),
                             diagnostics, constants, limited=True)
    diagnostics = parse_log(out.log, source, exercise)
    if out.ok:
        missing = [k.name for k in exercise.kernels if not _has_entry(out, k.name)]
        for name in missing:
            declaration = exercise.kernel(name).declaration()[:-1]
            diagnostics.append(Diagnostic(0, 0, "error", Message(
                f"kernel '{name}' is not defined; write {declaration} {{ … }}", "kernel_missing", kernel=name,
                declaration=declaration)))
    ok = out.ok and not any(d.severity == "error" for d in diagnostics)
    seconds = time.perf_counter() - started
    return CompileResult("ok" if ok else "compile_error", seconds, _render(diagnostics, out.log),
                         diagnostics, constants, out.ptx if ok else b"", out.cubin if ok else b"")


def _has_entry(out, name: str) -> bool:
    if out.cubin:
        return f".text.{name}\x00".encode() in out.cubin
    return re.search(rf"\.entry\s+{re.escape(name)}\s*\(".encode(), out.ptx) is not None


def parse_log(log: str, source: str, exercise: Exercise) -> list[Diagnostic]:
    """NVRTC's log → diagnostics on the learner's lines (1-based). Errors in the
    appended declarations become one message quoting the required signature."""
    diagnostics: list[Diagnostic] = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        match = _HEADER.match(line)
        if not match:
            continue
        severity = "error" if "error" in match["sev"] else match["sev"]
        if match["file"] == SOURCE_NAME:
            column = _caret_column(lines, i)
            diagnostics.append(Diagnostic(int(match["line"]), column, severity, match["msg"]))
        elif match["file"] == SIGNATURE_FILE:
            index = int(match["line"]) - 1
            kernel = exercise.kernels[min(index, len(exercise.kernels) - 1)]
            macro = _macro_in_declaration(source, kernel.declaration())
            declaration = kernel.declaration()[:-1]
            message = (Message(f"your `#define {macro}` changes the declaration the judge adds ({declaration}); "
                               "rename it", "signature_macro", macro=macro, declaration=declaration) if macro else
                       Message(f"'{kernel.name}' must be declared exactly as: {declaration}", "signature_mismatch",
                               kernel=kernel.name, declaration=declaration))
            diagnostics.append(Diagnostic(_definition_line(source, kernel.name), 1, "error", message))
        else:
            name = match["file"].rsplit("/", 1)[-1]
            diagnostics.append(Diagnostic(0, 0, severity, Message(f"in CUDA header '{name}': {match['msg']}",
                                                                  "header_error", header=name,
                                                                  detail=match["msg"])))
    return diagnostics


def _macro_in_declaration(source: str, declaration: str) -> str:
    """A name the learner #defines that also appears in the declaration the judge
    appends (`#define N 16` with a parameter `int N`): the real cause of its error."""
    words = set(re.findall(r"[A-Za-z_]\w*", declaration))
    for name in re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)", source, re.MULTILINE):
        if name in words:
            return name
    return ""


def _caret_column(lines: list[str], header_index: int) -> int:
    # NVRTC echoes the source line indented by two spaces, then a caret line
    if header_index + 2 < len(lines) and lines[header_index + 2].strip() == "^":
        return max(1, lines[header_index + 2].index("^") - 1)
    return 0


def _definition_line(source: str, kernel: str) -> int:
    for number, line in enumerate(source.splitlines(), start=1):
        if re.search(rf"\b{re.escape(kernel)}\s*\(", line):
            return number
    return 0


def _render(diagnostics: list[Diagnostic], raw_log: str = "") -> str:
    """A log made only of our parsed diagnostics and NVRTC's summary lines."""
    rendered = [f"{SOURCE_NAME}({d.line}): {d.severity}: {d.message}" if d.line
                else f"{SOURCE_NAME}: {d.severity}: {d.message}" for d in diagnostics]
    rendered += [line for line in raw_log.splitlines() if _KEEP.match(line.strip())]
    return "\n".join(rendered)
