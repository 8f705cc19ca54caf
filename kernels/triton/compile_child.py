"""The Triton compile step, run INSIDE the sandbox (kernels/triton/jail.py) (#29).

    python -I -S <bootstrap> compile_child.py request.json

Only the standard library and Triton are imported here (never `kernels`): this
process also runs the learner's file, so everything it prints is untrusted. The
trusted side (kernels/triton/compile.py) parses its answer defensively.

The request (a JSON file in the read-only work folder):
  source   the learner's file, relative to the work folder
  target   "sm_90" (…: compile to a cubin for that arch) or "ttir-only" (Triton's front
           end only: the CPU target, whose compile errors are the GPU's)
  launches [{"kernel": name, "args": n}]: each [[triton.launch]]'s kernel and how many
           non-constexpr parameters it takes
  cases    [{"values": {dim or param: value}, "types": [[arg type per launch arg] per launch],
             "divisible": [[bool per launch arg] per launch]}]
           (types as Triton writes them: "*fp32", "i32", "fp32"; `divisible`: an integer
           argument whose value in the case is a multiple of 16, compiled with Triton's
           `tt.divisibility` as its own launcher would)
  max_binaries
  workers  how many binaries may compile at once (forked children of this process)

The answer, one JSON document on the standard output this process had when it
started (the learner's prints go to stderr):
  {"triton": version, "target": …, "binaries": [{key, kernel, name, signature, divisible, meta,
   num_warps, num_stages, shared, params, global_scratch_size, global_scratch_align,
   profile_scratch_size, profile_scratch_align, cubin (base64, "" for ttir-only),
   ptxas (ptxas -v's report for the cubin, its "ptxas" lines only: the profiler's
   registers, shared memory, stack and spills; "" for ttir-only)}],
   "cases": [[{"binary": key, "grid": [x, y, z]} per launch] per case]}
  or {"error": {"kind": …, "line": n, "column": n, "message": …, "name": …}}
"""

from __future__ import annotations

import base64
import contextlib
import importlib.util
import inspect
import io
import json
import math
import os
import re
import selectors
import signal
import sys
import traceback

import triton  # before the learner's file: what it does to the module cannot change our names
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.compiler.errors import CompilationError
from triton.runtime import cache as triton_cache
from triton.runtime.autotuner import Autotuner
from triton.runtime.jit import JITFunction, get_jit_fn_file_line

# Triton names its on-disk cache by a hash of its own installation, libtriton's hundreds
# of megabytes included: ~0.3 s of every compile step's first binary. Here the cache is
# private to the run and never read (TRITON_ALWAYS_COMPILE, kernels/triton/jail.py), so
# its name needs no hash: the version stands in for it.
triton_cache.triton_key = lambda: f"triton-{triton.__version__}"

MODULE_NAME = "submission"
WARPS = (1, 2, 4, 8, 16, 32)
MAX_GRID = (2**31 - 1, 65535, 65535)
MESSAGE_CHARS = 2000
PTXAS_CHARS = 4000  # ptxas -v's report of one entry point is ~300 characters


class Refusal(Exception):
    """The learner's file breaks a rule; `fields` is the answer's "error"."""

    def __init__(self, kind: str, line: int = 0, column: int = 0, message: str = "", **extra) -> None:
        super().__init__(message)
        self.fields = {"kind": kind, "line": int(line or 0), "column": int(column or 0),
                       "message": str(message)[:MESSAGE_CHARS], **extra}


STARTED = b"kdojo-triton-compile\n"  # the answer's first bytes, written before the learner's file runs


def main() -> int:
    os.write(1, STARTED)
    with open(sys.argv[1], encoding="utf-8") as handle:
        request = json.load(handle)
    answer_fd = os.dup(1)
    os.dup2(2, 1)  # from here on, fd 1 is stderr: the learner's prints never reach the answer
    sys.stdout = sys.stderr
    try:
        answer = compile_request(request)
    except Refusal as exc:
        answer = {"error": exc.fields}
    except MemoryError:  # the address-space limit: ours to report, as the trusted side reads it
        sys.stderr.write("MemoryError\n")
        return 3
    except ChildKilled as exc:
        return end_like(exc.sig)
    with os.fdopen(answer_fd, "w", encoding="utf-8") as out:
        json.dump(answer, out)
    return 0


def compile_request(request: dict) -> dict:
    path = os.path.abspath(request["source"])
    module = import_learner(path)
    kernels = [check_kernel(module, path, item["kernel"], int(item["args"])) for item in request["launches"]]
    target = request["target"]
    jobs: dict[tuple, tuple] = {}  # each distinct binary: what compile_binary takes
    cases = []
    for case in request["cases"]:
        row = []
        for index, (fn, launcher, config) in enumerate(kernels):
            meta, grid, num_warps, num_stages = call_launcher(fn, launcher, path, case["values"], config)
            types = tuple(case["types"][index])
            divisible = tuple(bool(d) for d in case["divisible"][index])
            key = (fn.__name__, types, divisible, tuple(sorted(meta.items())), num_warps, num_stages)
            if key not in jobs:
                if len(jobs) >= int(request["max_binaries"]):
                    raise Refusal("too_many_binaries", 0, 0, str(request["max_binaries"]),
                                  name=str(request["max_binaries"]))
                jobs[key] = (fn, types, divisible, meta, num_warps, num_stages, f"b{len(jobs)}")
            row.append({"binary": jobs[key][-1], "grid": list(grid)})
        cases.append(row)
    binaries = compile_all(module, path, list(jobs.values()), target, int(request.get("workers", 1)))
    return {"triton": triton.__version__, "target": target, "binaries": binaries, "cases": cases}


def compile_all(module, path: str, jobs: list[tuple], target: str, workers: int) -> list[dict]:
    """Each job's binary, in order. With `workers` > 1 and more than one job, up to that
    many compile at once, each in a process forked from this one (the learner's file is
    imported once, here): a child sends its binary, its Refusal's fields or its
    MemoryError back on a pipe. The first job's failure in order is raised, as a serial
    compile would; a child killed by a signal raises ChildKilled (main ends this process
    the same way)."""
    if workers <= 1 or len(jobs) <= 1:
        return [compile_binary(module, path, *job, target) for job in jobs]
    answers: list = [None] * len(jobs)
    waiting = list(enumerate(jobs))
    running: dict[int, list] = {}  # read fd → [job index, pid, bytes so far]
    with selectors.DefaultSelector() as selector:
        while waiting or running:
            while waiting and len(running) < workers:
                index, job = waiting.pop(0)
                read_fd, write_fd = os.pipe()
                pid = os.fork()
                if pid == 0:  # the child: compile, answer, exit without returning
                    os.close(read_fd)
                    _compile_in_child(module, path, job, target, write_fd)
                os.close(write_fd)
                running[read_fd] = [index, pid, bytearray()]
                selector.register(read_fd, selectors.EVENT_READ)
            for key, _ in selector.select():
                chunk = os.read(key.fd, 1 << 20)
                if chunk:
                    running[key.fd][2] += chunk
                    continue
                selector.unregister(key.fd)
                os.close(key.fd)
                index, pid, data = running.pop(key.fd)
                _, status = os.waitpid(pid, 0)
                if os.WIFSIGNALED(status):
                    raise ChildKilled(os.WTERMSIG(status))
                answers[index] = json.loads(bytes(data)) if data else {"exited": os.waitstatus_to_exitcode(status)}
    binaries = []
    for answer in answers:
        if "binary" in answer:
            binaries.append(answer["binary"])
        elif "refusal" in answer:
            raise Refusal(**answer["refusal"])
        elif "memory" in answer:
            raise MemoryError
        else:
            raise Refusal("compile", 0, 0, f"the compile of a kernel ended with status {answer.get('exited')}")
    return binaries


def _compile_in_child(module, path: str, job: tuple, target: str, write_fd: int) -> None:
    try:
        try:
            answer = {"binary": compile_binary(module, path, *job, target)}
        except Refusal as exc:
            answer = {"refusal": exc.fields}
        except MemoryError:
            answer = {"memory": True}
        data = json.dumps(answer).encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view):]
    except MemoryError:
        os._exit(3)
    except BaseException:  # noqa: BLE001 — never back into the parent's loop
        os._exit(4)
    os._exit(0)


LIMIT_MARK = "kdojo: a compile process ran past its limits"  # jail.LIMIT_MARK: Outcome.limited reads it
# what a crash raises, the only signals the sandbox lets a process raise (kernels/emu/seccomp.py
# SELF_SIGNALS: this program imports nothing of the judge's)
SELF_SIGNALS = (signal.SIGILL, signal.SIGTRAP, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGSEGV)


class ChildKilled(Exception):
    """A forked compile ended by a signal: this process ends so the trusted side reads the
    same thing (a crash's signal, the sandbox's SIGSYS, or a limit)."""

    def __init__(self, sig: int) -> None:
        super().__init__(sig)
        self.sig = sig


def end_like(sig: int) -> int:
    """End this process as a child's `sig` ended it; the sandbox refuses signals to other
    processes, so the children still running end with the sandbox's pid namespace. Returns
    the exit status for a limit (SIGKILL, SIGXCPU) or any other signal."""
    if sig in SELF_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
        signal.raise_signal(sig)
    if sig == signal.SIGSYS:
        os._exit(255)  # an exit status past 127 is the sandbox's own SIGSYS (kernels/triton/seccomp.py)
    sys.stderr.write(LIMIT_MARK + f" (signal {sig})\n")
    return 3


def learner_line(exc: BaseException, path: str) -> int:
    """The line of the learner's file nearest the error: the innermost frame in it."""
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == path:
            line = frame.lineno or 0
    return line


def describe(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def import_learner(path: str):
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise Refusal("syntax", exc.lineno or 0, exc.offset or 0, exc.msg) from None
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001 — SystemExit, KeyboardInterrupt: the learner's too
        raise Refusal("import", learner_line(exc, path), 0, describe(exc)) from None
    return module


def def_line(fn) -> int:
    try:
        return int(get_jit_fn_file_line(fn)[1])
    except Exception:  # noqa: BLE001
        return 0


def check_kernel(module, path: str, name: str, nargs: int):
    """The kernel `name` of the file, its `launch_K`, and the config its `@triton.autotune`
    gives it (the first of its configs: the judge compiles and times that one), else None."""
    fn = module.__dict__.get(name)
    if fn is None:
        raise Refusal("missing_kernel", 0, 0, name, name=name)
    config = None
    if type(fn) is Autotuner:
        config = first_config(fn, name)
        fn = fn.fn
    if not isinstance(fn, JITFunction) or getattr(fn.fn, "__code__", None) is None \
            or fn.fn.__code__.co_filename != path:
        line = getattr(getattr(fn, "__code__", None), "co_firstlineno", 0)
        raise Refusal("not_jit", line, 0, name, name=name)
    plain = [p for p in fn.params if not p.is_constexpr]
    if len(plain) != nargs:
        raise Refusal("kernel_params", def_line(fn), 0, name, name=name, want=nargs, got=len(plain))
    launcher = module.__dict__.get("launch_" + name)
    if launcher is None:
        raise Refusal("missing_launch", def_line(fn), 0, name, name=name)
    if not inspect.isfunction(launcher):
        raise Refusal("launch_not_function", 0, 0, name, name=name)
    return fn, launcher, config


def first_config(tuner, name: str) -> dict:
    """`@triton.autotune`'s first config as plain values: its meta-parameters, num_warps and
    num_stages (a config of another shape is Triton's error, in Triton's words)."""
    configs = list(getattr(tuner, "configs", None) or [])
    line = def_line(tuner.fn) if isinstance(tuner.fn, JITFunction) else 0
    if not configs:
        raise Refusal("triton", line, 0, f"@triton.autotune of {name} has no configs")
    first = configs[0]
    kwargs = getattr(first, "kwargs", None)
    num_warps, num_stages = getattr(first, "num_warps", 4), getattr(first, "num_stages", 3)
    if type(kwargs) is not dict or any(type(k) is not str for k in kwargs) \
            or getattr(first, "pre_hook", None) is not None:
        raise Refusal("triton", line, 0, f"@triton.autotune of {name}: its first config is not a "
                      "triton.Config of meta-parameters")
    return {"meta": dict(kwargs), "num_warps": num_warps, "num_stages": num_stages}


def call_launcher(fn, launcher, path: str, values: dict, config: dict | None = None):
    """`launch_K`'s answer for one case: (meta-parameters, grid, num_warps, num_stages). With
    `config` (an autotuned kernel's first config) the config sets its meta-parameters, num_warps
    and num_stages, and `launch_K` may not set them too (Triton's own rule). A grid may be a
    function of the meta-parameters (`lambda META: (triton.cdiv(N, META["BLOCK"]),)`, as for
    Triton's launcher)."""
    name = fn.__name__
    line = launcher.__code__.co_firstlineno
    try:
        signature = inspect.signature(launcher)
    except (TypeError, ValueError) as exc:
        raise Refusal("launch_signature", line, 0, describe(exc), name=name) from None
    params = signature.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        kwargs = dict(values)
    else:
        kwargs = {p.name: values[p.name] for p in params if p.name in values}
        for p in params:
            if p.name not in values and p.default is p.empty and p.kind != p.VAR_POSITIONAL:
                raise Refusal("launch_unknown_arg", line, 0, p.name, name=name, arg=p.name)
    try:
        got = launcher(**kwargs)
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001
        raise Refusal("launch_raised", learner_line(exc, path) or line, 0, describe(exc), name=name) from None
    if type(got) is not dict:
        raise Refusal("launch_not_dict", line, 0, type(got).__name__, name=name)
    if "grid" not in got:
        raise Refusal("launch_no_grid", line, 0, name, name=name)
    for key in got:
        if type(key) is not str:  # before any comparison: a key's own __eq__ could pass for "grid"
            described = f"<{type(key).__name__}>"[:80]
            raise Refusal("launch_unknown_key", line, 0, described, name=name, key=described)
    tuned = dict(config["meta"]) if config else {}
    if config:
        tuned.update(num_warps=config["num_warps"], num_stages=config["num_stages"])
        for key in got:
            if key in tuned:
                raise Refusal("launch_tuned_key", line, 0, key[:80], name=name, key=key[:80])
    settings = {**tuned, **{k: v for k, v in got.items() if k != "grid"}}
    num_warps, num_stages = settings.get("num_warps", 4), settings.get("num_stages", 3)
    if type(num_warps) is not int or num_warps not in WARPS:
        raise Refusal("launch_num_warps", line, 0, repr(num_warps)[:80], name=name)
    if type(num_stages) is not int or not 1 <= num_stages <= 8:
        raise Refusal("launch_num_stages", line, 0, repr(num_stages)[:80], name=name)
    constexprs = {p.name: p for p in fn.params if p.is_constexpr}
    meta = {}
    for key, value in settings.items():  # every key a str: launch_K's checked above, the config's by first_config
        if key in ("num_warps", "num_stages"):
            continue
        if key not in constexprs:
            raise Refusal("launch_unknown_key", line, 0, key[:80], name=name, key=key[:80])
        if type(value) not in (int, float, bool) or (type(value) is float and not math.isfinite(value)) \
                or (type(value) is int and abs(value) >= 2**63):
            raise Refusal("launch_bad_meta", line, 0, repr(value)[:80], name=name, key=key)
        meta[key] = value
    for key, param in constexprs.items():
        if key not in meta and not param.has_default:
            raise Refusal("launch_missing_meta", line, 0, key, name=name, key=key)
    grid = got["grid"]
    if callable(grid):
        try:
            grid = grid({**meta, "num_warps": num_warps, "num_stages": num_stages})
        except MemoryError:
            raise
        except BaseException as exc:  # noqa: BLE001
            raise Refusal("launch_raised", learner_line(exc, path) or line, 0, describe(exc), name=name) from None
    return meta, check_grid(grid, line, name), num_warps, num_stages


def check_grid(grid, line: int, name: str) -> tuple[int, int, int]:
    if type(grid) is int:
        grid = (grid,)
    if type(grid) not in (tuple, list) or not 1 <= len(grid) <= 3 or any(type(g) is not int for g in grid):
        raise Refusal("launch_bad_grid", line, 0, repr(grid)[:80], name=name)
    dims = list(grid) + [1] * (3 - len(grid))
    if any(not 1 <= g <= limit for g, limit in zip(dims, MAX_GRID)):
        raise Refusal("launch_bad_grid", line, 0, repr(grid)[:80], name=name)
    return dims[0], dims[1], dims[2]


def compile_binary(module, path: str, fn, types: tuple, divisible: tuple, meta: dict, num_warps: int,
                   num_stages: int, key: str, target: str) -> dict:
    signature, constexprs, attrs = {}, {}, {}
    plain = iter(zip(types, divisible))
    for index, param in enumerate(fn.params):
        if param.is_constexpr:
            signature[param.name] = "constexpr"
            constexprs[param.name] = meta[param.name] if param.name in meta else param.default
        else:
            kind, multiple = next(plain)
            signature[param.name] = kind
            # the judge's buffers start 256-byte aligned; an integer that is a multiple of 16
            # in the cases this binary runs (the trusted side asks per case) is marked as
            # Triton's own launcher marks it
            if kind.startswith("*") or multiple:
                attrs[(index,)] = [["tt.divisibility", 16]]
    source = ASTSource(fn, signature, constexprs, attrs)
    options = {"num_warps": num_warps, "num_stages": num_stages, "num_ctas": 1}
    gpu = GPUTarget("cuda", 90, 32) if target == "ttir-only" else GPUTarget("cuda", arch_number(target), 32)
    entry = {"key": key, "kernel": fn.__name__, "signature": list(types), "divisible": list(divisible),
             "meta": {k: meta[k] for k in sorted(meta)}, "num_warps": num_warps, "num_stages": num_stages}
    try:
        if target == "ttir-only":
            front_end(source, gpu, options)
            return {**entry, "name": fn.__name__, "shared": 0, "params": 0, "global_scratch_size": 0,
                    "global_scratch_align": 1, "profile_scratch_size": 0, "profile_scratch_align": 1, "cubin": "",
                    "ptxas": ""}
        compiled, ptxas = compile_with_report(source, gpu, options)
    except CompilationError as exc:
        if any(isinstance(e, MemoryError) for e in chain(exc)):
            raise MemoryError from None
        raise compile_refusal(exc, module, path) from None
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001 — ptxas, an MLIR pass, a learner's monkeypatch
        raise Refusal("compile", learner_line(exc, path) or def_line(fn), 0, backend_message(exc),
                      name=fn.__name__) from None
    try:
        return {**binary_entry(entry, compiled), "ptxas": ptxas}
    except Exception:  # noqa: BLE001 — what triton.compile returned is not Triton's (a monkeypatch)
        raise Refusal("interfered", 0, 0, "") from None


def compile_with_report(source: ASTSource, target: GPUTarget, options: dict):
    """triton.compile, and what its ptxas -v said: Triton runs ptxas with -v and prints the
    report on the standard output when asked to (its `dump_ptxas_log` knob), so it is
    caught here. Only lines that start with "ptxas" are kept (a `tl.static_print` of the
    kernel's prints beside them); "" when Triton ran no ptxas."""
    knobs = triton.knobs.nvidia
    report = io.StringIO()
    saved, knobs.dump_ptxas_log = knobs.dump_ptxas_log, True
    try:
        with contextlib.redirect_stdout(report):
            compiled = triton.compile(source, target=target, options=options)
    finally:
        knobs.dump_ptxas_log = saved
    lines = [line for line in report.getvalue().splitlines() if line.startswith("ptxas")]
    return compiled, "\n".join(lines)[:PTXAS_CHARS]


def binary_entry(entry: dict, compiled) -> dict:
    md = compiled.metadata
    ptx = compiled.asm.get("ptx", "")
    entry_params = re.search(r"\.entry\s+\w+\s*\(([^)]*)\)", ptx)
    # the block is 32 × the binary's own num_warps, as Triton's launcher makes it
    return {**entry, "num_warps": int(md.num_warps), "name": md.name, "shared": int(md.shared),
            "params": len(re.findall(r"\.param\s", entry_params.group(1))) if entry_params else -1,
            "global_scratch_size": int(md.global_scratch_size), "global_scratch_align": int(md.global_scratch_align),
            "profile_scratch_size": int(getattr(md, "profile_scratch_size", 0)),
            "profile_scratch_align": int(getattr(md, "profile_scratch_align", 1)),
            "cubin": base64.b64encode(compiled.asm["cubin"]).decode("ascii")}


def arch_number(target: str) -> int:
    match = re.fullmatch(r"sm_(\d+)a?", target)
    if not match:
        raise ValueError(f"unknown target {target!r}")
    return int(match.group(1))


def front_end(source: ASTSource, target: GPUTarget, options: dict) -> None:
    """Triton's front end (the kernel's Python to TTIR) and its TTIR passes, no further."""
    from triton._C.libtriton import ir
    from triton.compiler.compiler import make_backend

    backend = make_backend(target)
    parsed = backend.parse_options(options)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    module = source.make_ir(target, parsed, backend.get_codegen_implementation(parsed), backend.get_module_map(),
                            context)
    stages: dict = {}
    backend.add_stages(stages, parsed, source.language)
    stages["ttir"](module, {})


def chain(exc: BaseException) -> list[BaseException]:
    """`exc` and its causes, outermost first (a bounded walk)."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(out) < 64:
        out.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return out


def compile_refusal(exc: CompilationError, module, path: str) -> Refusal:
    """The innermost error of a chain (a call into another @triton.jit function wraps the
    callee's error in one at the call), placed on the learner's line."""
    sources = {}
    for value in list(module.__dict__.values()):
        if isinstance(value, JITFunction):
            try:
                sources[value.src] = def_line(value)
            except Exception:  # noqa: BLE001
                continue
    line = column = 0
    message = ""
    for current in chain(exc):
        if isinstance(current, CompilationError):
            node_line = getattr(current.node, "lineno", None)
            if current.src in sources and node_line:
                line = sources[current.src] + node_line - 1
                column = (getattr(current.node, "col_offset", 0) or 0) + 1
            if current.error_message:
                message = str(current.error_message)
        elif not message:
            message = describe(current)
    return Refusal("triton", line, column, message or type(exc).__name__)


def backend_message(exc: BaseException) -> str:
    """A back-end failure's own words, without the sandbox's paths of Triton's files."""
    text = describe(exc)
    return re.sub(r"/kdojo/site/\S+", "<triton>", text)


if __name__ == "__main__":
    sys.exit(main())
