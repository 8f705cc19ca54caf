"""Compile a Triton submission (#29): checks here, Triton in the sandbox, its answer parsed.

    compile_triton(source, exercise, target, arch, cases) -> CompileResult

Here (trusted, nothing of the learner's runs): the size, UTF-8 and emptiness of the
file, Python's parser (a syntax error's line) and the imports (`triton`,
`triton.language` and its modules, `math`: a source check for a clear message; the
sandbox is the wall), and what may run at import and in a kernel (kernels/triton/policy.py:
on the CPU target the kernel runs as Python beside the buffers). Then kernels/triton/compile_child.py runs in the sandbox
(kernels/triton/jail.py) with the learner's file and the cases the judge will run:
it imports the file, checks the format's rules, calls every `launch_K` per case and
compiles each distinct (kernel, argument types, meta-parameters, num_warps,
num_stages) to a cubin (GPU target) or through Triton's front end only ("ttir-only",
the CPU target). Its answer is untrusted: every field is typed and ranged, unknown
keys are refused, a cubin's size is capped; anything malformed is the learner's
`rejected` (`triton_compile_interfered`), never internal_error. A compile that runs
past its time or memory is the learner's `compile_error` (`triton_compile_limit`).
"""

from __future__ import annotations

import ast
import base64
import binascii
import json
import math
import os
import re
import shutil
import signal
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from kernels.targets.base import Diagnostic
from kernels.compile import CompileResult
from kernels.messages import Message
from kernels.plan import env_for
from kernels.spec import SCALAR_CTYPES, Case, Exercise
from kernels import settings
from kernels.triton import jail, policy
from kernels.triton import messages as msg

SOURCE_NAME = "submission.triton.py"
MAX_SOURCE_BYTES = 128 * 1024
MAX_BINARIES = 32
MAX_CUBIN_BYTES = 4 << 20
ANSWER_BYTES = 48 << 20  # every cubin in base64, and the rest
MAX_SHARED_BYTES = 227 * 1024  # what one block may have on sm_90
MAX_SCRATCH_BYTES = 1 << 20  # Triton's global scratch per program
MAX_PTXAS_CHARS = 4000  # ptxas -v's report of one binary (compile_child.PTXAS_CHARS)
STARTED = b"kdojo-triton-compile\n"  # the child's first bytes: the sandbox did start it
CHILD = Path(__file__).with_name("compile_child.py")
WARPS = (1, 2, 4, 8, 16, 32)
MAX_GRID = (2**31 - 1, 65535, 65535)
ALLOWED_IMPORTS = ("__future__", "math", "triton", "triton.language")
TRITON_DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64", "int32": "i32",
                 "uint32": "u32", "int64": "i64", "int8": "i8", "uint8": "u8"}
SCALAR_TYPES = {"int32": "i32", "uint32": "u32", "int64": "i64", "uint64": "u64", "float32": "fp32",
                "float64": "fp64"}
ARG_TYPES = frozenset({"*" + t for t in TRITON_DTYPES.values()} | set(SCALAR_TYPES.values()))
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_KEY = re.compile(r"^b[0-9]{1,3}$")
_ARCH = re.compile(r"^sm_[0-9]{2,3}a?$")


@dataclass(frozen=True)
class TritonBinary:
    """One compiled kernel: what `launch_K` chose for some cases, and its cubin."""

    key: str  # "b0", "b1" …: the Launch.kernel of the launches that run it
    kernel: str  # the @triton.jit function
    name: str  # the cubin's entry point
    signature: tuple[str, ...]  # Triton's types of the non-constexpr arguments
    meta: tuple[tuple[str, Any], ...]
    num_warps: int
    num_stages: int
    shared: int  # dynamic shared memory bytes per block
    params: int  # the entry point's parameters: the arguments and Triton's trailing scratch pointers
    global_scratch_size: int  # bytes per program (0: a null pointer will do)
    global_scratch_align: int
    profile_scratch_size: int
    profile_scratch_align: int
    cubin: bytes  # b"" on the CPU target
    # ptxas -v's report of the cubin (registers, shared memory, stack, spills: the profiler's
    # resources, kernels/profile/run.py); untrusted text, "" where there is none
    ptxas_log: str = ""
    # per argument: compiled for values that are multiples of 16 (integers only)
    divisible: tuple[bool, ...] = ()

    @property
    def scratch_params(self) -> int:
        return self.params - len(self.signature) if self.params else 0


@dataclass(frozen=True)
class TritonLaunchPlan:
    binary: str
    grid: tuple[int, int, int]


@dataclass(frozen=True)
class TritonBuild:
    """The compile step's parsed answer: `CompileResult.artifact` of a Triton attempt."""

    triton_version: str
    target: str  # "sm_90" … or "ttir-only"
    binaries: tuple[TritonBinary, ...]
    # per case (its numeric values), the plan of each [[triton.launch]] in order
    plans: tuple[tuple[tuple[tuple[str, Any], ...], tuple[TritonLaunchPlan, ...]], ...]

    def binary(self, key: str) -> TritonBinary:
        return next(b for b in self.binaries if b.key == key)

    def entry_kernels(self) -> dict[str, str]:
        """Each cubin entry point (the name a GPU profiler sees) → its @triton.jit function."""
        return {b.name: b.kernel for b in self.binaries}

    def plan_for(self, env: dict[str, Any]) -> tuple[TritonLaunchPlan, ...]:
        """The launches of the case whose values `env` holds (KeyError: a case not compiled)."""
        for values, plan in self.plans:
            if all(name in env and env[name] == value for name, value in values):
                return plan
        raise KeyError(f"no compiled plan for the case {sorted(env.items())!r}")


class Malformed(ValueError):
    """The compile step's answer breaks the format (the learner's file interfered)."""


_CACHE: OrderedDict[tuple, CompileResult] = OrderedDict()


def default_cases(exercise: Exercise) -> tuple[Case, ...]:
    """The cases the judge runs: the tests, then the benchmark's."""
    return tuple(exercise.tests) + (tuple(exercise.benchmark.cases) if exercise.benchmark else ())


def compile_triton(source: str | bytes, exercise: Exercise, target: str = "cuda", arch: str | None = "sm_90",
                   cases: Iterable[Case | dict[str, Any]] | None = None) -> CompileResult:
    """Compile `source` for `target` ("cuda" or "gpu": a cubin for `arch`; "emu": Triton's
    front end only) and every case of `cases` (Case objects or their value dicts; default:
    the tests and the benchmark's). Results are memoised (the same source, exercise,
    target and cases)."""
    started = time.perf_counter()
    if exercise.triton is None:
        raise ValueError(f"{exercise.id} has no [triton] section")
    cases = tuple(c if isinstance(c, Case) else Case(tuple(c.items()), "")
                  for c in (default_cases(exercise) if cases is None else cases))
    mode = "ttir-only" if target in ("emu", "cpu") or arch is None else arch.replace("compute_", "sm_")
    if mode != "ttir-only" and not _ARCH.match(mode):
        raise ValueError(f"unknown arch {arch!r}")
    text, problem = _decode(source)
    if problem is not None:
        return _failed("rejected", started, [problem])
    problem = _check_source(text)
    if problem is not None:
        status = "compile_error" if problem.message.code == "triton_syntax" else "rejected"
        return _failed(status, started, [problem])
    request = _request(exercise, cases, mode)
    key = (text, exercise.id, json.dumps(request, sort_keys=True))
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    result = _run_child(text, exercise, request, started)
    if result.limited:
        return result  # a limit depends on the machine's load: never memoised
    _CACHE[key] = result
    while len(_CACHE) > 8:
        _CACHE.popitem(last=False)
    return result


def _decode(source: str | bytes) -> tuple[str, Diagnostic | None]:
    if isinstance(source, bytes):
        if len(source) > MAX_SOURCE_BYTES:
            return "", Diagnostic(0, 0, "error", msg.source_too_large(MAX_SOURCE_BYTES // 1024))
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError:
            return "", Diagnostic(0, 0, "error", msg.source_encoding())
    if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        return "", Diagnostic(0, 0, "error", msg.source_too_large(MAX_SOURCE_BYTES // 1024))
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates
        return "", Diagnostic(0, 0, "error", msg.source_encoding())
    if not source.strip():
        return "", Diagnostic(0, 0, "error", msg.source_empty())
    return source, None


def _check_source(text: str) -> Diagnostic | None:
    """Python's parser and the imports, before anything runs."""
    try:
        tree = ast.parse(text, SOURCE_NAME)
    except SyntaxError as exc:
        return Diagnostic(exc.lineno or 0, exc.offset or 0, "error", msg.syntax(str(exc.msg)[:300]))
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:  # NUL bytes, a nesting bomb
        return Diagnostic(0, 0, "error", msg.source_unparsable(type(exc).__name__))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        for name in names:
            if not _allowed_import(name):
                return Diagnostic(node.lineno, node.col_offset + 1, "error", msg.import_refused(name[:100]))
    refused = policy.check(tree)
    if refused is not None:
        if refused.where == "tuner":
            message = msg.tuner(refused.construct, refused.kernel)
        elif refused.where == "kernel":
            message = msg.kernel_code(refused.kernel, refused.construct)
        else:
            message = msg.module_code(refused.construct)
        return Diagnostic(refused.line, refused.column, "error", message)
    return None


def _allowed_import(name: str) -> bool:
    return name in ALLOWED_IMPORTS or name.startswith("triton.language.")


def _arg_types(exercise: Exercise, env: dict[str, Any]) -> list[list[str]]:
    out = []
    for launch in exercise.triton.launches:
        types = []
        for arg in launch.args:
            if arg.buffer is not None:
                types.append("*" + TRITON_DTYPES[exercise.buffer(arg.buffer).dtype])
                continue
            ctype = arg.param.ctype
            if ctype == "auto":
                types.append("fp32" if isinstance(arg.expr.evaluate(env), float) else "i32")
            else:
                types.append(SCALAR_TYPES[SCALAR_CTYPES[ctype]])
        out.append(types)
    return out


INT_TYPES = frozenset({"i32", "u32", "i64", "u64"})
DIVISOR = 16  # Triton's own launcher marks an integer argument divisible by 16 (`tt.divisibility`)


def _divisible(exercise: Exercise, env: dict[str, Any], types: list[list[str]]) -> list[list[bool]]:
    """Per launch, per argument: an integer whose value in this case is a multiple of 16.
    Triton's launcher specialises a kernel on it (masks on `offs < N` then cover whole
    vectors, so loads and stores may be 16 bytes wide); the judge compiles the same way, a
    binary per divisibility, and runs each binary only on cases where it holds."""
    out = []
    for launch, kinds in zip(exercise.triton.launches, types):
        flags = []
        for arg, kind in zip(launch.args, kinds):
            value = arg.expr.evaluate(env) if arg.buffer is None and kind in INT_TYPES else None
            flags.append(isinstance(value, int) and not isinstance(value, bool) and value % DIVISOR == 0)
        out.append(flags)
    return out


def _case_request(exercise: Exercise, case: Case, mode: str) -> dict[str, Any]:
    env = env_for(case, {})
    types = _arg_types(exercise, env)
    # the CPU target runs the kernel's Python, never a binary: its front-end compile (for the
    # GPU's compile errors) needs no second binary per divisibility
    divisible = [[False] * len(kinds) for kinds in types] if mode == "ttir-only" \
        else _divisible(exercise, env, types)
    return {"values": case_values(case), "types": types, "divisible": divisible}


def case_values(case: Case) -> dict[str, Any]:
    """What `launch_K` may ask for: the case's dims and params (JSON values)."""
    return {k: v for k, v in case.values if isinstance(v, (int, float, str, bool))}


def _request(exercise: Exercise, cases: tuple[Case, ...], mode: str) -> dict[str, Any]:
    return {"source": "submission.py", "target": mode,
            "launches": [{"kernel": launch.kernel, "args": len(launch.args),
                          "names": ", ".join(a.buffer or a.expr.source for a in launch.args)}
                         for launch in exercise.triton.launches],
            "cases": [_case_request(exercise, case, mode) for case in cases],
            "max_binaries": MAX_BINARIES, "workers": compile_workers()}


def compile_workers() -> int:
    """How many of a submission's binaries the compile step builds at once (forked
    after the learner's file is imported): KDOJO_TRITON_COMPILE_JOBS, else half the
    machine's cores, at most 8 (a GEMM's seven `tl.dot` binaries took 15 s one by one on
    a 16-core GPU machine and 5 s four at a time: bench/triton_compile.py)."""
    return max(1, int(settings.value("KDOJO_TRITON_COMPILE_JOBS") or min(8, (os.cpu_count() or 2) // 2)))


def compile_seconds(exercise: Exercise) -> int:
    """The compile step's CPU seconds: Triton's cold start and one compile take ~5 s and a
    submission may need several, so at least KDOJO_TRITON_COMPILE_S (60 by default)."""
    return int(max(settings.value("KDOJO_TRITON_COMPILE_S"), 4 * exercise.limits.compile_s))


def _run_child(text: str, exercise: Exercise, request: dict[str, Any], started: float) -> CompileResult:
    seconds = compile_seconds(exercise)
    memory = jail.compile_memory_bytes()
    work = jail.work_dir()
    try:
        (work / "submission.py").write_text(text, encoding="utf-8")
        (work / "request.json").write_text(json.dumps(request), encoding="utf-8")
        for path in (work / "submission.py", work / "request.json"):
            path.chmod(0o644)
        outcome = jail.run_once(CHILD, ["request.json"], work, cpu_s=seconds, wall_s=seconds + 15,
                                memory_bytes=memory, spawn=True, writable=False, output_cap=ANSWER_BYTES)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    toolchain = jail.runtime().toolchain
    if not outcome.stdout.startswith(STARTED):
        # the sandbox did not start our program: nothing of the learner's ran yet
        raise jail.Unavailable("the Triton compile step did not start: "
                               + outcome.stderr.decode(errors="replace").strip()[-500:])
    answer = outcome.stdout[len(STARTED):]
    if outcome.timed_out or (outcome.returncode != 0 and outcome.limited):
        problem = Diagnostic(0, 0, "error", msg.compile_limit(seconds, memory >> 20))
        return _failed("compile_error", started, [problem], limited=True, toolchain=toolchain)
    sig = outcome.signal
    if sig == signal.SIGSYS:
        return _failed("rejected", started, [Diagnostic(0, 0, "error", msg.sandbox_refused())], toolchain=toolchain)
    if outcome.returncode != 0 or not answer:
        status = outcome.returncode if outcome.returncode >= 0 else 128 - outcome.returncode
        return _failed("compile_error", started, [Diagnostic(0, 0, "error", msg.compile_exited(status))],
                       toolchain=toolchain)
    try:
        return parse_answer(answer, request, text.count("\n") + 1, started, toolchain)
    except Malformed:
        return _failed("rejected", started, [Diagnostic(0, 0, "error", msg.compile_interfered())],
                       toolchain=toolchain)


def _failed(status: str, started: float, diagnostics: list[Diagnostic], *, limited: bool = False,
            toolchain: str = "") -> CompileResult:
    return CompileResult(status, time.perf_counter() - started, render(diagnostics), diagnostics,
                         limited=limited, language="triton", toolchain=toolchain)


def render(diagnostics: list[Diagnostic]) -> str:
    return "\n".join(f"{SOURCE_NAME}:{d.line}:{d.column}: {d.severity}: {d.message}" if d.line
                     else f"{SOURCE_NAME}: {d.severity}: {d.message}" for d in diagnostics)


# -- the answer --------------------------------------------------------------------------

def _expect(ok: bool, what: str) -> None:
    if not ok:
        raise Malformed(what)


def _int(value: Any, low: int, high: int, what: str) -> int:
    _expect(type(value) is int and low <= value <= high, what)
    return value


def _str(value: Any, limit: int, what: str) -> str:
    _expect(type(value) is str and len(value) <= limit, what)
    return value


def _dict(value: Any, keys: set[str], what: str, optional: set[str] = frozenset()) -> dict:
    _expect(type(value) is dict and keys <= set(value) <= keys | optional, what)
    return value


def parse_answer(raw: bytes, request: dict[str, Any], source_lines: int, started: float = 0.0,
                 toolchain: str = "") -> CompileResult:
    """The child's JSON answer → a CompileResult. Raises Malformed for anything off."""
    _expect(len(raw) <= ANSWER_BYTES, "answer too long")
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Malformed(f"not JSON: {exc}") from None
    seconds = time.perf_counter() - started if started else 0.0
    if type(doc) is dict and set(doc) == {"error"}:
        diagnostic, status = _parse_error(doc["error"], request, source_lines)
        return CompileResult(status, seconds, render([diagnostic]), [diagnostic], language="triton",
                             toolchain=toolchain)
    build = parse_build(doc, request)
    return CompileResult("ok", seconds, "", [], language="triton", artifact=build,
                         toolchain=f"triton {build.triton_version}")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_build(doc: Any, request: dict[str, Any]) -> TritonBuild:
    doc = _dict(doc, {"triton", "target", "binaries", "cases"}, "top level")
    version = _str(doc["triton"], 40, "triton")
    _expect(re.fullmatch(r"[0-9A-Za-z.+_-]{1,40}", version) is not None, "triton version")
    target = request["target"]
    _expect(doc["target"] == target, "target")
    launches = request["launches"]
    _expect(type(doc["binaries"]) is list and 1 <= len(doc["binaries"]) <= min(MAX_BINARIES,
                                                                                request["max_binaries"]), "binaries")
    binaries = {}
    for item in doc["binaries"]:
        binary = _parse_binary(item, launches, target)
        _expect(binary.key not in binaries, "duplicate binary")
        binaries[binary.key] = binary
    _expect(type(doc["cases"]) is list and len(doc["cases"]) == len(request["cases"]), "cases")
    plans = []
    used = set()
    for case, row in zip(request["cases"], doc["cases"]):
        _expect(type(row) is list and len(row) == len(launches), "case row")
        plan = []
        for index, item in enumerate(row):
            item = _dict(item, {"binary", "grid"}, "launch")
            key = _str(item["binary"], 8, "binary key")
            _expect(key in binaries, "unknown binary")
            binary = binaries[key]
            _expect(binary.kernel == launches[index]["kernel"], "binary of another kernel")
            _expect(list(binary.signature) == case["types"][index], "binary of other argument types")
            # a binary specialised on a multiple of 16 runs only where the value is one
            _expect(list(binary.divisible) == case["divisible"][index], "binary of another divisibility")
            grid = item["grid"]
            _expect(type(grid) is list and len(grid) == 3, "grid")
            dims = tuple(_int(g, 1, limit, "grid") for g, limit in zip(grid, MAX_GRID))
            plan.append(TritonLaunchPlan(key, (dims[0], dims[1], dims[2])))
            used.add(key)
        values = tuple(sorted((k, v) for k, v in case["values"].items()
                              if isinstance(v, (int, float)) and not isinstance(v, bool)))
        plans.append((values, tuple(plan)))
    _expect(used == set(binaries), "a binary no case runs")
    return TritonBuild(version, target, tuple(binaries.values()), tuple(plans))


_BINARY_KEYS = {"key", "kernel", "name", "signature", "meta", "num_warps", "num_stages", "shared", "params",
                "global_scratch_size", "global_scratch_align", "profile_scratch_size", "profile_scratch_align",
                "cubin", "ptxas", "divisible"}


def _parse_binary(item: Any, launches: list[dict], target: str) -> TritonBinary:
    item = _dict(item, _BINARY_KEYS, "binary")
    key = _str(item["key"], 4, "key")
    _expect(_KEY.match(key) is not None, "key")
    kernel = _str(item["kernel"], 128, "kernel")
    matching = [launch for launch in launches if launch["kernel"] == kernel]
    _expect(bool(matching), "kernel")
    name = _str(item["name"], 128, "name")
    _expect(_IDENT.match(name) is not None, "name")
    signature = item["signature"]
    _expect(type(signature) is list and len(signature) == matching[0]["args"]
            and all(type(t) is str and t in ARG_TYPES for t in signature), "signature")
    meta = item["meta"]
    _expect(type(meta) is dict and len(meta) <= 64, "meta")
    for k, v in meta.items():
        _expect(_IDENT.match(k) is not None and k not in ("grid", "num_warps", "num_stages"), "meta name")
        _expect(type(v) is bool or (type(v) is int and abs(v) < 2**63)
                or (type(v) is float and math.isfinite(v)), "meta value")
    ttir = target == "ttir-only"
    num_warps = item["num_warps"]
    _expect(type(num_warps) is int and num_warps in WARPS, "num_warps")
    num_stages = _int(item["num_stages"], 1, 8, "num_stages")
    shared = _int(item["shared"], 0, 0 if ttir else MAX_SHARED_BYTES, "shared")
    nargs = len(signature)
    params = _int(item["params"], 0 if ttir else nargs, 0 if ttir else nargs + 2, "params")
    scratch = [_int(item[f], 0, 0 if ttir else MAX_SCRATCH_BYTES, f)
               for f in ("global_scratch_size", "profile_scratch_size")]
    aligns = [_int(item[f], 1, 4096, f) for f in ("global_scratch_align", "profile_scratch_align")]
    _expect(all(a & (a - 1) == 0 for a in aligns), "scratch alignment")
    _expect(params - nargs >= (1 if scratch[0] else 0) + (1 if scratch[1] else 0) or ttir, "scratch params")
    encoded = _str(item["cubin"], (MAX_CUBIN_BYTES + 2) // 3 * 4, "cubin")
    try:
        cubin = base64.b64decode(encoded.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise Malformed("cubin") from None
    _expect((cubin == b"") if ttir else (0 < len(cubin) <= MAX_CUBIN_BYTES and cubin[:4] == b"\x7fELF"), "cubin")
    ptxas = _str(item["ptxas"], 0 if ttir else MAX_PTXAS_CHARS, "ptxas")
    divisible = item["divisible"]
    _expect(type(divisible) is list and len(divisible) == nargs
            and all(type(d) is bool and (not d or t in INT_TYPES) for d, t in zip(divisible, signature)), "divisible")
    return TritonBinary(key, kernel, name, tuple(signature), tuple(sorted(meta.items())), num_warps, num_stages,
                        shared, params, scratch[0], aligns[0], scratch[1], aligns[1], cubin, ptxas,
                        tuple(divisible))


# kind → the learner's message, from the kernel's name, the error's fields (each checked
# when read) and the request
_ERRORS: dict[str, Any] = {
    "syntax": lambda name, e, r: msg.syntax(e.detail[:300]),
    "import": lambda name, e, r: msg.import_failed(e.detail),
    "missing_kernel": lambda name, e, r: msg.missing_kernel(name),
    "not_jit": lambda name, e, r: msg.not_jit(name),
    "kernel_params": lambda name, e, r: _kernel_params(name, e, r),
    "missing_launch": lambda name, e, r: msg.missing_launch(name),
    "launch_not_function": lambda name, e, r: msg.missing_launch(name),
    "launch_unknown_arg": lambda name, e, r: msg.launch_unknown_arg(name, e.short("arg")),
    "launch_raised": lambda name, e, r: msg.launch_raised(name, e.detail),
    "launch_signature": lambda name, e, r: msg.launch_raised(name, e.detail),
    "launch_not_dict": lambda name, e, r: msg.launch_not_dict(name, e.detail[:100]),
    "launch_no_grid": lambda name, e, r: msg.launch_grid(name, "nothing"),
    "launch_bad_grid": lambda name, e, r: msg.launch_grid(name, e.detail[:100]),
    "launch_num_warps": lambda name, e, r: msg.launch_num_warps(name, e.detail[:100]),
    "launch_num_stages": lambda name, e, r: msg.launch_num_stages(name, e.detail[:100]),
    "launch_unknown_key": lambda name, e, r: msg.launch_unknown_key(name, e.short("key")),
    "launch_tuned_key": lambda name, e, r: msg.launch_tuned_key(name, e.short("key")),
    "launch_bad_meta": lambda name, e, r: msg.launch_meta_value(name, e.short("key"), e.detail[:100]),
    "launch_missing_meta": lambda name, e, r: msg.launch_missing_meta(name, e.short("key")),
    "too_many_binaries": lambda name, e, r: msg.too_many_binaries(MAX_BINARIES),
    "triton": lambda name, e, r: msg.compile_error(e.detail),  # Triton's own words
    "compile": lambda name, e, r: msg.compile_error(e.detail),
    "interfered": lambda name, e, r: msg.compile_interfered(),  # triton.compile's result was not Triton's
}
_UNNAMED = ("syntax", "import", "triton", "too_many_binaries", "interfered")  # errors of no kernel in particular


class _ErrorFields:
    """The answer's "error" object, each field checked when it is read."""

    def __init__(self, error: dict) -> None:
        self.error = error
        self.detail = _str(error["message"], 2000, "message")

    def short(self, field: str) -> str:
        return _str(self.error.get(field, ""), 100, field)


def _parse_error(error: Any, request: dict[str, Any], source_lines: int) -> tuple[Diagnostic, str]:
    _expect(type(error) is dict and {"kind", "line", "column", "message"} <= set(error)
            and set(error) <= {"kind", "line", "column", "message", "name", "want", "got", "arg", "key"}, "error")
    kind = error["kind"]
    _expect(type(kind) is str and kind in _ERRORS, "error kind")
    line = _int(error["line"], 0, 10**7, "line")
    column = min(_int(error["column"], 0, 10**7, "column"), 10**4)
    name = error.get("name", "")
    _expect(type(name) is str, "name")
    _expect(kind in _UNNAMED or name in [launch["kernel"] for launch in request["launches"]], "error's kernel")
    message = _ERRORS[kind](name, _ErrorFields(error), request)
    status = "rejected" if kind == "interfered" else "compile_error"
    return Diagnostic(line if line <= source_lines else 0, column, "error", message), status


def _kernel_params(name: str, fields: _ErrorFields, request: dict[str, Any]) -> Message:
    launch = next(launch for launch in request["launches"] if launch["kernel"] == name)
    got = _int(fields.error.get("got"), 0, 10**4, "got")
    _expect(fields.error.get("want") == launch["args"], "want")
    return msg.kernel_params(name, launch["args"], got, _describe_args(request, name))


def _describe_args(request: dict[str, Any], kernel: str) -> str:
    launch = next(launch for launch in request["launches"] if launch["kernel"] == kernel)
    return str(launch.get("names", launch["args"]))


def first_message(compiled: CompileResult) -> Message | None:
    """The first error's coded message (None when the result is ok)."""
    for d in compiled.diagnostics:
        if d.severity == "error" and isinstance(d.message, Message):
            return d.message
    return None
