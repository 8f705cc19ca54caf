"""Compile a submission into emulator programs with the system g++.

Two programs per submission, compiled in parallel (one per core):

* `fast`  -O2, no instrumentation: runs every case (a source with `volatile`
  is instrumented for its volatile accesses' warp lockstep: _VOLATILE_STEPS);
* `check` -O1 -fsanitize=thread, with every load and store of the learner's
  code calling our memory checker instead of TSan's runtime
  (runtime/kdojo_check.cpp: bounds and data races): runs the small cases in
  adversarial (reversed) thread and block order.

A third, `profile` (the check program plus basic-block coverage), only when an
accepted attempt is profiled (compile_profile_program, #16).

The runtime's own objects are compiled once per runtime version into a cache
directory and linked statically with the learner's object, so a submission
costs one g++ run per program (~0.2-0.4 s). The compiler runs jailed
(kernels/emu/jail.py) with a wall-clock and CPU limit.
"""

from __future__ import annotations

import fcntl
import hashlib
import math
import os
import re
import selectors
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from kernels import settings
from kernels.emu import instrumented, jail, objcheck
from kernels.emu.launcher import LAUNCHER_FILE, LEARNER_FILE
from kernels.messages import Message

RUNTIME_DIR = Path(__file__).resolve().parent / "runtime"
RUNTIME_SOURCES = ("kdojo_rt.cpp", "kdojo_host.cpp", "kdojo_sandbox.cpp", "kdojo_check.cpp", "kdojo_profile.cpp")
VARIANTS = ("fast", "check")
STACK_KIB = 128  # an emulated thread's stack in the fast build (runtime/kdojo_rt.cpp: kStackBytes)
_COMMON = ["-std=gnu++17", "-g1", "-fno-strict-aliasing", "-fno-exceptions", "-fno-rtti"]
_RUNTIME_FLAGS = {"fast": ["-O3"], "check": ["-O2", "-DKDOJO_CHECK"]}
# The coverage program's runtime (kernels/coverage.py, an authoring tool): the fast one, in one
# thread, reporting the learner's basic blocks that ran.
COVER_VARIANT = "cover"
_RUNTIME_FLAGS[COVER_VARIANT] = ["-O3", "-DKDOJO_COVER"]
# -fstack-clash-protection: a frame larger than a page probes each page, so a
# thread overflowing its stack always hits its guard page (and is reported as a
# stack overflow) instead of jumping over it into other memory.
_LEARNER_FLAGS = {
    "fast": ["-O2", "-w", "-fmax-errors=50", "-fstack-clash-protection"],
    # -fsanitize=alignment: our handler (runtime/kdojo_check.cpp) reports a misaligned typed access (#12)
    "check": ["-O1", "-w", "-fmax-errors=50", "-DKDOJO_CHECK", "-fsanitize=thread", "-fsanitize=alignment", "-fstack-clash-protection"],
}
# A source with `volatile` (the warp-synchronous reduction idiom): both programs
# call warp_step before each volatile access (runtime/kdojo_check.cpp), so the
# warp's lanes take them in lockstep as on a GPU; the fast one is then
# instrumented too, its other hooks doing nothing. Every basic block calls
# warp_branch (trace-pc), so a warp in lockstep reconverges at loops' back edges.
_VOLATILE_STEPS = {
    "fast": ["-fsanitize=thread", "--param=tsan-distinguish-volatile=1",
             "--param=tsan-instrument-func-entry-exit=0", "-fsanitize-coverage=trace-pc", "-DKDOJO_VOLATILE_STEPS"],
    "check": ["--param=tsan-distinguish-volatile=1", "-fsanitize-coverage=trace-pc"],
}
# `volatile` as a type qualifier; `asm volatile(…)` (in a branch the preprocessor
# drops, or refused as needing a GPU) is no volatile access.
_VOLATILE = re.compile(r"(?<![\w$])(?<!asm )(?<!__asm__ )(?<!__asm )volatile\b")
# The profiler's program (#16), compiled only for profiled exercises: the check program's own
# preprocessed source (tu_check.ii, already checked) compiled again with -fsanitize-coverage=trace-pc,
# so that every basic block of learner code calls the profiler (runtime/kdojo_profile.cpp: warp
# execution efficiency over all executed code), and linked with the check program's runtime
# objects. A call per basic block would slow every checked run (3x for a WMMA GEMM), so the check
# program itself has no coverage.
PROFILE_VARIANT = "profile"
# -fno-tree-sra: a vector load or store (float4, uint4, ...) stays one 16-byte access, as the
# GPU's LDG.128 / STS.128 is one request, instead of four 4-byte ones of a scalarised copy.
_LEARNER_FLAGS[PROFILE_VARIANT] = [*_LEARNER_FLAGS["check"], "-fsanitize-coverage=trace-pc", "-fno-tree-sra"]
_LINK = ["-static", "-no-pie"]
_DIAG = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")


class ToolchainError(RuntimeError):
    """g++ or Boost.Context is missing, or the runtime itself does not build: our fault, not the learner's."""


@dataclass
class CompileMessage:
    file: str
    line: int
    column: int
    severity: str
    message: str


@dataclass
class Built:
    work_dir: Path
    programs: dict[str, Path]
    seconds: float
    volatile_steps: bool = False  # compiled with _VOLATILE_STEPS (the profiler's program must be too)


def gxx() -> str | None:
    """The C++ compiler: $KDOJO_EMU_CXX, else g++ on PATH."""
    return settings.value("KDOJO_EMU_CXX") or shutil.which("g++")


def toolchain_ok() -> bool:
    return gxx() is not None and Path("/usr/include/boost/context/detail/fcontext.hpp").exists()


def cache_dir() -> Path:
    """Where the runtime's objects are kept between jobs. Not under $HOME: the
    judge gives every job a fresh HOME. $KDOJO_EMU_CACHE, else a `.cache` next to
    the runtime when the install is writable, else /var/tmp/kdojo-emu-<uid>."""
    if settings.value("KDOJO_EMU_CACHE"):
        return Path(settings.value("KDOJO_EMU_CACHE"))
    beside = RUNTIME_DIR.parent / ".cache"
    if os.access(RUNTIME_DIR.parent, os.W_OK):
        return beside
    fallback = Path(f"/var/tmp/kdojo-emu-{os.getuid()}")
    fallback.mkdir(mode=0o755, exist_ok=True)  # the sandbox's uid reads the objects
    if fallback.stat().st_uid != os.getuid():
        raise ToolchainError(f"{fallback} belongs to another user; set KDOJO_EMU_CACHE")
    return fallback


def _runtime_key() -> str:
    h = hashlib.sha256()
    for path in sorted(RUNTIME_DIR.iterdir()):
        if path.suffix in (".h", ".cpp"):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    h.update(repr((_COMMON, _RUNTIME_FLAGS, _LINK)).encode())
    try:
        version = subprocess.run([gxx() or "g++", "--version"], capture_output=True, text=True).stdout
    except OSError as exc:
        raise ToolchainError(f"g++ does not run: {exc}") from None
    h.update(version.encode())
    return h.hexdigest()[:16]


def runtime_objects(variant: str) -> list[Path]:
    """The runtime's objects for `variant`, compiled on first use (trusted code, outside the jail)."""
    if not toolchain_ok():
        raise ToolchainError("the emulator needs g++ and Boost.Context (apt-get install g++ libboost-context-dev)")
    out = cache_dir() / _runtime_key() / variant
    objects = [out / (Path(src).stem + ".o") for src in RUNTIME_SOURCES]
    if all(o.exists() for o in objects):
        return objects
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for src, obj in zip(RUNTIME_SOURCES, objects):
            if obj.exists():
                continue
            tmp = obj.with_suffix(f".{os.getpid()}.tmp")
            cmd = [gxx() or "g++", *_COMMON, *_RUNTIME_FLAGS[variant], f"-I{RUNTIME_DIR}", "-c",
                   str(RUNTIME_DIR / src), "-o", str(tmp)]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                raise ToolchainError(f"the emulator runtime does not build ({src}):\n{done.stderr[-4000:]}")
            os.replace(tmp, obj)
    # The jailed compiler must be able to read them (it runs as nobody).
    for path in (out, *objects):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return objects


def parse_messages(log: str) -> list[CompileMessage]:
    messages = []
    for raw in log.splitlines():
        m = _DIAG.match(raw.strip())
        if m:
            sev = "error" if m.group("sev") == "fatal error" else m.group("sev")
            messages.append(CompileMessage(os.path.basename(m.group("file")), int(m.group("line")),
                                           int(m.group("col") or 0), sev, m.group("msg")))
    return messages


class CompilerLimit(RuntimeError):
    """g++ ran past its memory or time: the learner's compile_error, with this message."""


def compile_programs(tu_text: str, timeout_s: float, check: Callable[[str], None] | None = None,
                     kernels: tuple[str, ...] = ()) -> tuple[Built | None, list[CompileMessage], str]:
    """Compile both variants. Returns (built, [], "") or (None, messages, log) on a compile error.

    One jailed g++ run per variant (preprocess, compile, link), keeping the
    preprocessor's output (-save-temps=obj). Then `check` (if given) reads each
    preprocessed file and may raise (kernels/emu/preprocessed.py) before any of
    it runs, so what it checks is exactly what was compiled, and the objects themselves are
    checked (kernels/emu/objcheck.py: ObjectRefused; `kernels` may be defined unmangled).
    Raises CompilerLimit when g++ runs past its memory (jail.compile_memory_bytes(),
    shared by the two compilers running at once) or `timeout_s` (CPU and wall, in all)."""
    objects = {v: runtime_objects(v) for v in VARIANTS}
    work = jail.work_dir()  # the jailed compiler may run as the sandbox uid
    try:
        # The file is named after the learner's (debug info names the main file,
        # whatever #line says), so addr2line answers with "submission.cu:LINE".
        (work / LEARNER_FILE).write_text(tu_text)
        started = time.monotonic()
        deadline = started + timeout_s
        steps = {}
        for v in VARIANTS:
            # One jailed step per variant: preprocess, compile (-save-temps=obj keeps the
            # preprocessor's own output as tu_<v>.ii) and link. Compile and link separately:
            # the sanitizer flag must not reach the (static) link, whose runtime is ours.
            steps_flags = _VOLATILE_STEPS[v] if _VOLATILE.search(tu_text) else []
            compile_ = [gxx() or "g++", *_COMMON, *_LEARNER_FLAGS[v], *steps_flags, f"-I{RUNTIME_DIR}", "-save-temps=obj",
                        "-x", "c++", "-c", LEARNER_FILE, "-o", f"tu_{v}.o"]
            link = _link_argv(f"tu_{v}.o", objects[v], f"prog_{v}")
            steps[v] = ["/bin/sh", "-c", f"{shlex.join(compile_)} && {shlex.join(link)}"]
        binds = {v: _runtime_binds(objects[v]) for v in VARIANTS}
        failed, log = _run_step(steps, work, binds, timeout_s, deadline)
        if failed and _OUT_OF_TASKS.search(log):
            # The machine had no process to spare (other sandboxes): ours, not the learner's. Once more.
            time.sleep(0.5)
            failed, log = _run_step(steps, work, binds, timeout_s, deadline)
            if failed and _OUT_OF_TASKS.search(log):
                raise ToolchainError("the compiler could not start its processes (the machine has none to spare)")
        # The checks read exactly what the compiler compiled, before anything of it runs
        # (and before a compile error's log, whose cause they may name more clearly).
        for v in VARIANTS:
            preprocessed = work / f"tu_{v}.ii"
            if preprocessed.exists():
                text = _read_preprocessed(preprocessed, timeout_s)
                if check is not None:
                    check(text)
            elif not failed:
                raise ToolchainError(f"g++ left no preprocessed file for the {v} program")
        if not failed:
            _check_objects(work, tu_text, kernels)
        if failed:
            if _TOOLCHAIN_FAULT.search(log):
                # Text a learner cannot choose names a tool or library of ours as missing. The
                # learner's own text (#error, #pragma message) could say the same, so a probe
                # that no source reaches decides: if it cannot build either, the fault is ours.
                broken = _toolchain_fault_of_our_own(timeout_s)
                if broken:
                    raise ToolchainError(f"the emulator's toolchain is broken on this machine: {broken}")
            return None, parse_messages(log), log
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return Built(work, {v: work / f"prog_{v}" for v in VARIANTS}, time.monotonic() - started,
                 bool(_VOLATILE.search(tu_text))), [], ""


def _link_argv(learner_object: str, runtime: list[Path], program: str) -> list[str]:
    """The link: the runtime's objects before the learner's, so that where both hold a copy
    of an inline function or a template the runtime's is kept (kernels/emu/objcheck.py)."""
    return [gxx() or "g++", *map(str, runtime), learner_object, *_LINK, "-lboost_context", "-o", program]


def _check_objects(work: Path, tu_text: str, kernels: tuple[str, ...]) -> None:
    """The learner's objects as built (kernels/emu/objcheck.py): raises ObjectRefused."""
    try:
        library = objcheck.library_symbols(gxx() or "g++")
    except objcheck.LibrariesUnreadable as exc:
        raise ToolchainError(str(exc)) from None
    for v in VARIANTS:
        sanitized = v == "check" or bool(_VOLATILE.search(tu_text))  # -fsanitize=thread's own constructor
        objcheck.check_object(work / f"tu_{v}.o", sanitized, library, kernels)
    _check_instrumented(work / "tu_check.o", kernels)


DISASSEMBLE_S = 10.0  # objdump's CPU and wall time on the check object
_DISASSEMBLY_BYTES = 64 << 20


def _check_instrumented(obj: Path, kernels: tuple[str, ...]) -> None:
    """Every learner function of the check program carries the memory checks, or touches no
    memory (kernels/emu/instrumented.py): raises ObjectRefused. The object's code is the
    learner's to shape, so objdump runs jailed like the compiler and addr2line."""
    elf, symbols, functions = instrumented.uninstrumented(obj, kernels)
    if not functions:
        return
    tool = shutil.which("objdump")
    if tool is None:
        raise ToolchainError("the emulator needs objdump (binutils) to check the built kernel")
    argv = [tool, "-d", "-w", "--no-show-raw-insn", *(f"-j{name}" for name in instrumented.sections(functions, elf)),
            obj.name]
    launch = jail.compile_launch(argv, obj.parent, [], math.ceil(DISASSEMBLE_S), jail.compile_memory_bytes(),
                                 writable=False)
    proc = jail.spawn(launch, cwd=obj.parent, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                      stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"}, start_new_session=True)
    outs = _read_bounded({"objdump": proc}, time.monotonic() + DISASSEMBLE_S, _DISASSEMBLY_BYTES, 0)
    if outs is None or proc.returncode != 0 or outs["objdump"].endswith(b" bytes of output dropped]\n"):
        raise objcheck.ObjectRefused(Message("the compiled kernel could not be checked within its limits (too large)",
                                             "object_too_large"))
    instrumented.check_listing(elf, symbols, functions, outs["objdump"].decode("utf-8", errors="replace"))


_MAX_PREPROCESSED_BYTES = 64 << 20


def _read_preprocessed(path: Path, timeout_s: float) -> str:
    if path.stat().st_size > _MAX_PREPROCESSED_BYTES:
        megabytes = _MAX_PREPROCESSED_BYTES >> 20
        raise CompilerLimit(Message(f"the preprocessed kernel is larger than {megabytes} MB",
                                    "preprocessed_too_large", megabytes=megabytes))
    return path.read_text(errors="replace")


def _runtime_binds(objects: list[Path]) -> list[Path]:
    """What a jailed compile of a learner's program reads besides the toolchain: our headers
    and the runtime's objects it links."""
    return [RUNTIME_DIR, objects[0].parent]


def _run_step(argvs: dict[str, list[str]], work: Path, read_only: dict[str, list[Path]], timeout_s: float,
              deadline: float, running: list[subprocess.Popen] | None = None) -> tuple[bool, str]:
    """Run one command per variant at once, jailed, each able to read its `read_only` paths.
    (failed?, the first failure's log). Each process started is appended to `running` (for
    a caller that may stop them)."""
    memory = jail.compile_memory_bytes()
    procs = {}
    for v, argv in argvs.items():
        launch = jail.compile_launch(argv, work, read_only[v],
                                     max(1, math.ceil(timeout_s)), memory // len(argvs))
        procs[v] = jail.spawn(launch, cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env={"PATH": "/usr/bin:/bin", "TMPDIR": str(work)},
                              start_new_session=True)
        if running is not None:
            running.append(procs[v])
    # The log is the learner's to make as long as they like (an error per template
    # instantiation, millions of them): only its head and tail are kept.
    outs = _read_bounded(procs, deadline, _LOG_CHARS, _LOG_CHARS)
    if outs is None:
        raise CompilerLimit(_limit_message(memory, timeout_s))
    logs = {v: out.decode("utf-8", errors="replace") for v, out in outs.items()}
    failed = [v for v, p in procs.items() if p.returncode != 0]
    if any(_ran_out(procs[v].returncode, logs[v]) for v in failed):
        raise CompilerLimit(_limit_message(memory, timeout_s))
    return bool(failed), logs[failed[0]] if failed else ""


# `#pragma unroll [N]` (which GCC ignores) as GCC's own: nvcc unrolls those loops, so each unrolled
# step's load or store is an instruction of its own, and a warp's lanes that skip a step are not
# paired with their neighbours' next step (compaction's scatter: `if (kept) out[...] = v` in an
# unrolled loop). A loop whose trip count is not constant is unrolled in copies, which pairs the
# lanes' iterations as before. The count is capped: the profiler's program must stay small.
_PRAGMA_UNROLL = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+(unroll|nounroll)\b[ \t]*(\(?[ \t]*(\d+)[ \t]*\)?)?[ \t]*$", re.M)
UNROLL_DEFAULT, UNROLL_MAX = 16, 64


def gcc_unroll(preprocessed: str) -> str:
    def gcc(m: re.Match) -> str:
        if m.group(1) == "nounroll":
            return "#pragma GCC unroll 1"
        n = int(m.group(3)) if m.group(3) else UNROLL_DEFAULT
        return f"#pragma GCC unroll {max(1, min(n, UNROLL_MAX))}"
    return _PRAGMA_UNROLL.sub(gcc, preprocessed)


def compile_profile_program(built: Built, timeout_s: float, running: list[subprocess.Popen] | None = None) -> Path:
    """Compile the profiler's program (PROFILE_VARIANT) beside `built`'s, from the check program's
    preprocessed source in its work directory (what the source checks read, so they need not run
    again); its path (also added to built.programs). Raises CompilerLimit past `timeout_s`,
    ToolchainError where it does not build (the check program did: never the learner's fault)."""
    v = PROFILE_VARIANT
    if v in built.programs:
        return built.programs[v]
    objects = {v: runtime_objects("check")}
    steps_flags = _VOLATILE_STEPS["check"] if built.volatile_steps else []  # lockstep as in the check program
    source = built.work_dir / f"tu_{v}.ii"
    source.write_text(gcc_unroll((built.work_dir / "tu_check.ii").read_text()))
    compile_ = [gxx() or "g++", *_COMMON, *_LEARNER_FLAGS[v], *steps_flags, "-fpreprocessed", "-x", "c++", "-c", source.name,
                "-o", f"tu_{v}.o"]
    link = _link_argv(f"tu_{v}.o", objects[v], f"prog_{v}")
    step = {v: ["/bin/sh", "-c", f"{shlex.join(compile_)} && {shlex.join(link)}"]}
    failed, log = _run_step(step, built.work_dir, {v: _runtime_binds(objects[v])}, timeout_s,
                            time.monotonic() + timeout_s, running)
    if failed:
        raise ToolchainError(f"the profiler's program does not build:\n{log[-4000:]}")
    built.programs[v] = built.work_dir / f"prog_{v}"
    return built.programs[v]


_LOG_CHARS = 64 * 1024
# fork/vfork's EAGAIN as the driver or the shell prints it, at the start of a line (a
# diagnostic about the learner's source starts with the file's name, a quoted line with spaces)
_OUT_OF_TASKS = re.compile(r"^(?:(?:g\+\+|collect2|/bin/sh|sh)(?:: \d+)?: .*fork.*Resource temporarily unavailable"
                           r"|/bin/sh: \d+: Cannot fork)", re.M)
# What g++, collect2 and ld say when a tool or library of ours is missing (the static
# libboost_context.a, cc1plus, ld). Only a hint: _toolchain_fault_of_our_own decides.
_TOOLCHAIN_FAULT = re.compile(r"cannot find -l\S+|collect2: fatal error: cannot find '?\S+"
                              r"|fatal error: cannot execute '?\S+|error while loading shared libraries: \S+"
                              r"|bwrap: execvp \S+")
_PROBE_SOURCE = "int main() { return 0; }\n"


def _toolchain_fault_of_our_own(timeout_s: float) -> str:
    """Build a fixed program with the learner's program's compile and link options, in the
    same jail: '' if it builds, else the first line of what went wrong."""
    work = jail.work_dir("kdojo-emu-probe-")
    try:
        (work / "probe.cpp").write_text(_PROBE_SOURCE)
        argv = [gxx() or "g++", *_COMMON, "probe.cpp", *_LINK, "-lboost_context", "-o", "probe"]
        timeout_s = max(1.0, timeout_s)
        try:
            failed, log = _run_step({"probe": argv}, work, {"probe": []}, timeout_s, time.monotonic() + timeout_s)
        except CompilerLimit:
            return "the compiler did not build a one-line program within its limits"
        if not failed:
            return ""
        hint = _TOOLCHAIN_FAULT.search(log)
        return hint.group(0) if hint else (log.strip().splitlines() or ["g++ failed"])[0][:300]
    finally:
        shutil.rmtree(work, ignore_errors=True)


_OUT_OF_MEMORY = ("out of memory", "virtual memory exhausted", "Cannot allocate memory", "std::bad_alloc",
                  "memory exhausted")


def _read_bounded(procs: dict[str, subprocess.Popen], deadline: float, head: int,
                  tail: int) -> dict[str, bytes] | None:
    """Each process's stdout until it ends, keeping its first `head` and last `tail`
    bytes (a line in between says how much was dropped), then reap them. None (every
    process killed) when `deadline` passes first. Reading never stops early, so a
    chatty process is not blocked on a full pipe: only our memory is bounded."""
    kept = {name: [bytearray(), bytearray(), 0] for name in procs}  # head, tail, bytes dropped
    with selectors.DefaultSelector() as sel:
        for name, proc in procs.items():
            sel.register(proc.stdout, selectors.EVENT_READ, name)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                for proc in procs.values():
                    _kill(proc)
                return None
            for key, _ in sel.select(timeout=left):
                chunk = os.read(key.fileobj.fileno(), 1 << 16)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                first, last, _ = entry = kept[key.data]
                take = chunk[:max(0, head - len(first))]
                first += take
                last += chunk[len(take):]
                if len(last) > tail:
                    entry[2] += len(last) - tail
                    del last[:len(last) - tail]
    outs = {}
    for name, proc in procs.items():
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for other in procs.values():
                _kill(other)
            return None
        proc.stdout.close()
        first, last, dropped = kept[name]
        outs[name] = bytes(first) + (f"\n[{dropped} bytes of output dropped]\n".encode() if dropped else b"") \
            + bytes(last)
    return outs


def _ran_out(returncode: int, log: str) -> bool:
    """g++ hit our memory or CPU limit (not a compile error in the source)."""
    killed = returncode < 0 or returncode > 128  # the shell reports a signal as 128+N
    return killed or any(text in log for text in _OUT_OF_MEMORY) or "signal terminated program" in log


def _limit_message(memory: int, timeout_s: float) -> str:
    limits = f"{memory / (1 << 30):g} GB / {timeout_s:g} s"
    return Message(f"the compiler ran past its {limits}", "compiler_limit", limits=limits, how="", seconds="")


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass
    proc.wait()
    if proc.stdout is not None:  # communicate() never returned: its pipe is still open
        proc.stdout.close()


SYMBOLIZE_S = 5.0  # addr2line's CPU and wall time per look-up
SYMBOLIZE_BYTES = 256 << 20  # and its address space (our own programs need ~30 MB)
_SYMBOLIZE_OUTPUT_CHARS = 1 << 20


def symbolize(program: Path, pcs: list[int], timeout_s: float = SYMBOLIZE_S) -> dict[int, int]:
    """Map code addresses of `program` to lines of the learner's file (0 when elsewhere).

    The program is static and not PIE. Its ELF and DWARF are the learner's to shape
    (top-level asm can write any section: `.gnu_debugaltlink` naming /dev/stdin or a
    FIFO made addr2line block for good; crafted debug info can cost it memory and
    time), so addr2line runs jailed like the compiler: the toolchain and the
    program's folder read-only, no /dev or /proc, bounded memory, CPU and wall time.
    Whatever goes wrong there only costs the line numbers ({})."""
    pcs = [pc for pc in pcs if pc]
    tool = shutil.which("addr2line")
    if not pcs or not tool or timeout_s <= 0.2:
        return {}
    # A return address points after the call: look up the call instruction itself.
    # -a prints each address before its (inline) chain of frames: one run for all.
    argv = [tool, "-a", "-i", "-e", str(program), *[hex(pc - 1) for pc in pcs[:4096]]]
    launch = jail.compile_launch(argv, program.parent, [], max(1, math.ceil(min(timeout_s, SYMBOLIZE_S))),
                                 SYMBOLIZE_BYTES, writable=False)
    try:
        proc = jail.spawn(launch, cwd=program.parent, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"}, start_new_session=True)
    except OSError:
        return {}
    outs = _read_bounded({"addr2line": proc}, time.monotonic() + min(timeout_s, SYMBOLIZE_S),
                         _SYMBOLIZE_OUTPUT_CHARS, 0)
    if outs is None:
        return {}
    chains: list[list[str]] = []
    for text in outs["addr2line"].decode("utf-8", errors="replace").splitlines():
        if text.startswith("0x"):
            chains.append([])
        elif chains:
            chains[-1].append(text)
    return {pc: _learner_line(chain) for pc, chain in zip(pcs, chains)}


def _learner_line(frames: list[str]) -> int:
    for frame in frames:
        name, _, rest = frame.rpartition(":")
        if os.path.basename(name) == LEARNER_FILE:
            digits = re.match(r"\d+", rest)
            if digits:
                return int(digits.group())
    return 0


__all__ = ["Built", "CompileMessage", "CompilerLimit", "ToolchainError", "compile_profile_program", "compile_programs",
           "parse_messages", "runtime_objects",
           "symbolize", "toolchain_ok", "LAUNCHER_FILE", "LEARNER_FILE"]


def compile_coverage_program(built: Built, timeout_s: float) -> Path:
    """The coverage program (COVER_VARIANT) beside `built`'s: the fast program's preprocessed
    source compiled at -O1 (no loop versioning or vectorised copies whose blocks never run)
    with -fsanitize-coverage=trace-pc, linked with the coverage runtime. For trusted sources
    only (kernels/coverage.py): the object is not checked. Raises ToolchainError."""
    v = COVER_VARIANT
    objects = runtime_objects(v)
    steps_flags = _VOLATILE_STEPS["fast"] if built.volatile_steps else []
    source = built.work_dir / f"tu_{v}.ii"
    source.write_text((built.work_dir / "tu_fast.ii").read_text())
    compile_ = [gxx() or "g++", *_COMMON, *_LEARNER_FLAGS["fast"], "-O1", *steps_flags, "-fsanitize-coverage=trace-pc",
                "-fpreprocessed", "-x", "c++", "-c", source.name, "-o", f"tu_{v}.o"]
    link = _link_argv(f"tu_{v}.o", objects, f"prog_{v}")
    step = {v: ["/bin/sh", "-c", f"{shlex.join(compile_)} && {shlex.join(link)}"]}
    failed, log = _run_step(step, built.work_dir, {v: _runtime_binds(objects)}, timeout_s, time.monotonic() + timeout_s)
    if failed:
        raise ToolchainError(f"the coverage program does not build:\n{log[-4000:]}")
    built.programs[v] = built.work_dir / f"prog_{v}"
    return built.programs[v]
