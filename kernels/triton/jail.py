"""The Triton sandbox: a Python program of ours, with a learner's file, under bubblewrap.

A Triton submission is Python: importing it runs the learner's code, and so do its
`launch_K` functions and Triton's compiler (which executes the kernel's Python to
trace it). All of it runs here, never in the judge's process, behind the emulator's
walls (kernels/emu/jail.py; its pieces are reused):

* namespaces: new user, pid, network, IPC, UTS and mount namespaces, every
  capability dropped, uid/gid 65534, an empty environment but for the few variables
  set here. The root is empty and read-only but for: the Python installation (its
  prefix, at its own path: the interpreter finds its libraries by it), the system's
  shared libraries, the packages the program needs (`triton`, `numpy`) each under
  /kdojo/site, our own program's files under /kdojo/lib, the work folder at
  /kdojo/work, a minimal /dev and a size-bounded tmpfs /tmp. No /etc, /home, /proc
  or host /tmp. bubblewrap runs as the judge process's sandbox uid when it is root: each folder
  shown must be reachable by it, so the folders above them that the judge owns get
  o+x (never o+r), as the emulator's work folders do.
* rlimits set in the child before bubblewrap is exec'd (address space, CPU time,
  file size, open files, no core, and as root a task count for that uid).
* seccomp (kernels/triton/seccomp.py): the outer filter from bubblewrap, and for a
  program that may start no other (`spawn=False`) a second layer that the bootstrap
  below installs before it runs our program.
* the interpreter runs with `-I -S`: no environment variables, no user or system
  site folder, no `.pth` hooks; the bootstrap puts the package folders on sys.path.

The compile step must start Triton's ptxas, so its outer filter lets it fork and exec:
a learner's fork there is bounded by the task limit (ROOM_TASKS) and ended with the
whole pid namespace at the wall time. A server (`spawn=False`) can do neither.

Fail closed: where bubblewrap cannot build the sandbox the emulator's `refusal()`
says why and nothing runs, unless KDOJO_EMU_UNSANDBOXED=1, where the same rlimits
and filters hold without the namespaces (then the interpreter and the package
folders must be readable by uid 65534 when the judge runs as root).

Two entry points: `run_once` (the compile step: it waits, with a wall-time limit and
bounded output) and `start_server` (a long-lived program with stdin/stdout pipes:
the CPU target's interpreter).
"""

from __future__ import annotations

import functools
import json
import os
import selectors
import signal
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from kernels import settings
from kernels.emu import jail as emu_jail
from kernels.triton import seccomp

try:  # the target registry's "cannot run here" (kernels/targets/ once the language seam is in)
    from kernels.targets.base import TargetUnavailable as _NotHere
except ImportError:
    from kernels.targets.base import TargetUnavailable as _NotHere

PYTHON_ENV = "KDOJO_TRITON_PYTHON"  # the interpreter that has Triton (default: the judge's own)
PACKAGES = ("triton", "numpy")  # the third-party packages a sandboxed program may import
SITE, LIB, WORK = "/kdojo/site", "/kdojo/lib", "/kdojo/work"
TMP_BYTES = 256 << 20  # Triton's cache and ptxas's files
FILE_BYTES = 64 << 20  # any one file the program writes (a cubin is well under 1 MB)
FILES = 256
# RLIMIT_NPROC room, as for the emulator's compilers: the tasks of this judge process's
# other sandboxes count too; the compiler's own are few (its threads, ptxas). Smaller than the
# emulator's room for g++: the learner's code runs in this process and may fork, so the
# room bounds a fork bomb (the wall time then kills the whole pid namespace).
TASKS = 64
ROOM_TASKS = 256
SERVER_TASKS = 32  # the interpreter's own threads (numpy may start a few); no process
# what the compile step writes when one of its forked compiles was killed at a limit
# (kernels/triton/compile_child.py LIMIT_MARK: it cannot re-raise SIGKILL or SIGXCPU on itself)
LIMIT_MARK = b"kdojo: a compile process ran past its limits"
OUTPUT_CAP = 256 * 1024  # of stdout and of stderr kept by run_once; the rest is read and dropped

_BOOT = r"""
import sys
n = int(sys.argv[1])
sys.path[:0] = sys.argv[2:2 + n]
rest = sys.argv[2 + n:]
if rest[0]:
    import ctypes
    code = bytes.fromhex(rest[0])
    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]
    libc = ctypes.CDLL(None, use_errno=True)
    prog = Prog(len(code) // 8, code)
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.syscall(317, 1, 0, ctypes.byref(prog)) != 0:
        sys.stderr.write("kdojo: the sandbox's second seccomp layer could not be installed\n")
        sys.exit(97)
    del ctypes, code, Prog, libc, prog
sys.argv = rest[1:]
del n, rest
import runpy
runpy.run_path(sys.argv[0], run_name="__main__")
"""
BOOT_FAILED = 97  # the bootstrap could not install the no-exec layer: the machine's fault


class Unavailable(_NotHere):
    """No sandbox or no Triton here; str() is one line for the operator (never the learner's)."""


@dataclass(frozen=True)
class Runtime:
    """The interpreter the sandbox runs and what it shows of its packages."""

    executable: str  # the real binary (a venv's python is a link to it)
    prefix: str  # its installation (sys.base_prefix): stdlib, lib-dynload, libpython
    packages: tuple[tuple[str, str], ...]  # (folder name under /kdojo/site, real path)
    triton_version: str | None

    @property
    def toolchain(self) -> str:
        return f"triton {self.triton_version}" if self.triton_version else "triton (not installed)"


_PROBE = r"""
import importlib.metadata, importlib.util, json, os, sys
out = {"executable": os.path.realpath(sys.executable), "prefix": os.path.realpath(sys.base_prefix),
       "packages": [], "triton": None}
for name in %r:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        continue
    where = os.path.realpath(list(spec.submodule_search_locations)[0])
    out["packages"].append([name, where])
    libs = os.path.join(os.path.dirname(where), name + ".libs")  # a wheel's vendored libraries
    if os.path.isdir(libs):
        out["packages"].append([name + ".libs", os.path.realpath(libs)])
try:
    out["triton"] = importlib.metadata.version("triton")
except importlib.metadata.PackageNotFoundError:
    pass
print(json.dumps(out))
""" % (PACKAGES,)


def python_executable() -> str:
    return settings.value(PYTHON_ENV) or sys.executable


@functools.lru_cache(maxsize=4)
def _runtime(executable: str) -> Runtime:
    try:
        done = subprocess.run([executable, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
        found = json.loads(done.stdout)
        return Runtime(str(found["executable"]), str(found["prefix"]),
                       tuple((str(n), str(p)) for n, p in found["packages"]), found["triton"])
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError) as exc:
        raise Unavailable(f"the Triton interpreter {executable} cannot be probed ({exc})") from None


def runtime() -> Runtime:
    """What `python_executable()` has (probed once per process, outside any sandbox:
    it is ours and imports nothing)."""
    return _runtime(python_executable())


def refusal() -> str | None:
    """None when Triton programs may run here, else one line for the operator."""
    why = emu_jail.refusal()
    if why:
        return why
    try:
        found = runtime()
    except Unavailable as exc:
        return str(exc)
    if found.triton_version is None:
        return f"Triton is not installed for {python_executable()} (pip install -e '.[triton]', or set {PYTHON_ENV})"
    return None


def compile_memory_bytes() -> int:
    return settings.value("KDOJO_TRITON_COMPILE_MB") << 20


def _library_dirs() -> list[str]:
    """The system's shared libraries: the multiarch folder where the layout has one."""
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    if multiarch and "/" not in multiarch and os.path.isdir(f"/usr/lib/{multiarch}"):
        dirs = [f"/usr/lib/{multiarch}"]
    else:
        dirs = ["/usr/lib"]
    return dirs + [d for d in ("/usr/lib64",) if os.path.isdir(d) and not os.path.islink(d)]


def _reachable(path: str | Path) -> None:
    """Let uid 65534 reach `path` (bubblewrap, run as it, resolves every bind's source):
    every ancestor we own gets o+x, never o+r (the emulator's work folders get the same;
    an interpreter under /root makes /root 0701: enterable, not listable)."""
    for parent in Path(path).parents:
        try:
            st = parent.stat()
            if st.st_uid == os.geteuid() and not st.st_mode & 0o001:
                parent.chmod((st.st_mode & 0o7777) | 0o001)
        except OSError:
            continue


def _seccomp_fd(blob: bytes) -> int:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, blob)  # a few KiB: fits in the pipe
    os.close(write_fd)
    return read_fd


def python_launch(script: Path, args: Sequence[str], work_dir: Path, *, cpu_s: int, memory_bytes: int,
                  spawn: bool, writable: bool = True, read_only: Sequence[Path] = (),
                  tasks: int | None = None, extra_env: dict[str, str] | None = None) -> emu_jail.Launch:
    """The command and child set-up that run `script` (ours) with `args` in the sandbox.
    The program's current folder is the work folder (its own files are named relative
    to it); `read_only` files and folders of ours are importable beside the script.
    `spawn`: it may start other programs (the compile step's ptxas). `extra_env`: more
    variables of ours (e.g. TRITON_INTERPRET=1)."""
    found = runtime()
    current = emu_jail.mode()
    # FILE_BYTES even for a read-only work folder: /tmp (a bounded tmpfs) is writable
    limits = emu_jail._limits(cpu_s, memory_bytes, FILE_BYTES, FILES)
    task_count = tasks if tasks is not None else (TASKS + ROOM_TASKS if spawn else SERVER_TASKS)
    outer = seccomp.python_filter(spawn)
    layer = "" if spawn else seccomp.no_exec_filter().hex()
    ours = [Path(script), *map(Path, read_only)]
    # TRITON_BACKENDS_IN_TREE: Triton finds its backends in its own folder (the sandbox
    # shows no package metadata, so entry points find none). TRITON_ALWAYS_COMPILE: never
    # a cache hit, and the cache is private to the run (the sandbox's own /tmp; unsandboxed,
    # the work folder), so no submission compiles with another's files.
    env = {"HOME": "/tmp", "TMPDIR": "/tmp", "TRITON_HOME": "/tmp", "TRITON_CACHE_DIR": "/tmp/triton-cache",
           "TRITON_BACKENDS_IN_TREE": "1", "TRITON_ALWAYS_COMPILE": "1", "LANG": "C.UTF-8",
           "PATH": "/usr/bin:/bin", **(extra_env or {})}
    if not current.sandboxed:
        private = str(work_dir)
        env.update(HOME=private, TMPDIR=private, TRITON_HOME=private, TRITON_CACHE_DIR=f"{private}/triton-cache")
        paths = sorted({str(Path(p).parent) for _, p in found.packages} | {str(p.resolve().parent) for p in ours})
        argv = [found.executable, "-I", "-S", "-c", _BOOT, str(len(paths)), *paths, layer,
                str(Path(script).resolve()), *args]
        setup = emu_jail._child_setup(limits, task_count, current.as_nobody, emu_jail._Fprog(outer))
        return _Launch(argv, setup, env=env, cwd=str(work_dir))
    if current.as_nobody:
        for path in [found.prefix, *_library_dirs(), *(p for _, p in found.packages), *map(str, ours), str(work_dir)]:
            _reachable(path)
    filter_fd = _seccomp_fd(outer)
    argv = [*_bwrap_args(found, ours, work_dir, writable, env), "--seccomp", str(filter_fd), "--",
            found.executable, "-I", "-S", "-c", _BOOT, "2", SITE, LIB, layer, f"{LIB}/{Path(script).name}", *args]
    return _Launch(argv, emu_jail._child_setup(limits, task_count, current.as_nobody, None), (filter_fd,),
                   env={}, cwd="/")


def _bwrap_args(found: Runtime, ours: list[Path], work_dir: Path, writable: bool, env: dict[str, str]) -> list[str]:
    """bubblewrap's options: what the sandbox shows, where, and its environment."""
    bw = [emu_jail.bwrap_path() or "bwrap", *emu_jail._base_args(), "--ro-bind", found.prefix, found.prefix]
    for d in _library_dirs():
        bw += ["--ro-bind", d, d]
    for link in ("bin", "lib", "lib64"):
        target = Path("/") / link
        if target.is_symlink():
            bw += ["--symlink", os.readlink(target), f"/{link}"]
        elif target.is_dir() and f"/{link}" not in _library_dirs():
            bw += ["--ro-bind", str(target), f"/{link}"]
    for name, path in found.packages:
        bw += ["--ro-bind", path, f"{SITE}/{name}"]
    for path in ours:
        bw += ["--ro-bind", str(path.resolve()), f"{LIB}/{path.name}"]
    bw += ["--bind" if writable else "--ro-bind", str(work_dir), WORK,
           "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/tmp", "--remount-ro", "/", "--chdir", WORK]
    for key, value in env.items():
        bw += ["--setenv", key, value]
    return bw


@dataclass
class _Launch(emu_jail.Launch):
    env: dict[str, str] | None = None
    cwd: str = "/"


def _spawn(launch: _Launch, **popen_kwargs) -> subprocess.Popen:
    return emu_jail.spawn(launch, env=launch.env, cwd=launch.cwd, start_new_session=True, **popen_kwargs)


@dataclass
class Outcome:
    """How a one-shot program ended."""

    returncode: int  # negative: killed by that signal (bubblewrap passes 128 + N on as -N)
    stdout: bytes
    stderr: bytes
    seconds: float
    timed_out: bool  # past its wall time (killed here)
    cpu_s: int
    memory_bytes: int

    @property
    def signal(self) -> int | None:
        if self.returncode < 0:
            return -self.returncode
        if self.returncode > 128 and emu_jail.mode().sandboxed:
            return self.returncode - 128
        return None

    @property
    def limited(self) -> bool:
        """It ran past its time or memory: killed by the wall clock or SIGKILL/SIGXCPU, or
        a MemoryError (the address-space limit) ended it, or the compile step says one of
        its forked compiles was (LIMIT_MARK)."""
        return self.timed_out or self.signal in (signal.SIGKILL, signal.SIGXCPU) \
            or b"MemoryError" in self.stderr[-4096:] or b"std::bad_alloc" in self.stderr[-4096:] \
            or b"LLVM ERROR: out of memory" in self.stderr[-4096:] or LIMIT_MARK in self.stderr[-4096:]


def run_once(script: Path, args: Sequence[str], work_dir: Path, *, cpu_s: int, wall_s: float,
             memory_bytes: int, spawn: bool = True, read_only: Sequence[Path] = (), writable: bool = True,
             stdin: bytes = b"", output_cap: int = OUTPUT_CAP) -> Outcome:
    """Run `script` to its end (or its limits) and return how it ended, with the first
    `output_cap` bytes of its stdout and OUTPUT_CAP of its stderr."""
    why = refusal()
    if why:
        raise Unavailable(why)
    launch = python_launch(script, args, work_dir, cpu_s=cpu_s, memory_bytes=memory_bytes, spawn=spawn,
                           writable=writable, read_only=read_only)
    started = time.monotonic()
    proc = _spawn(launch, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
                  stderr=subprocess.PIPE)
    if stdin:
        try:
            proc.stdin.write(stdin)
        except OSError:
            pass
        proc.stdin.close()
    out, err, timed_out = _collect(proc, started + wall_s, output_cap)
    return Outcome(proc.returncode, out, err, time.monotonic() - started, timed_out, cpu_s, memory_bytes)


def _collect(proc: subprocess.Popen, deadline: float, output_cap: int) -> tuple[bytes, bytes, bool]:
    kept = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    caps = {proc.stdout: output_cap, proc.stderr: OUTPUT_CAP}
    open_pipes = set(kept)
    timed_out = False
    with selectors.DefaultSelector() as sel:
        for pipe in open_pipes:
            os.set_blocking(pipe.fileno(), False)
            sel.register(pipe, selectors.EVENT_READ)
        while open_pipes:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(timeout=min(left, 0.5)):
                try:
                    chunk = os.read(key.fileobj.fileno(), 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(key.fileobj)
                    open_pipes.discard(key.fileobj)
                    continue
                buf, cap = kept[key.fileobj], caps[key.fileobj]
                if len(buf) < cap:
                    buf += chunk[:cap - len(buf)]
    if timed_out:
        kill(proc)
    try:
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        timed_out = True
        kill(proc)
        proc.wait()
    for pipe in kept:
        pipe.close()
    return bytes(kept[proc.stdout]), bytes(kept[proc.stderr]), timed_out


def kill(proc: subprocess.Popen) -> None:
    """SIGKILL the program's whole session (bubblewrap's pid namespace goes with it)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass


def start_server(script: Path, args: Sequence[str], work_dir: Path, *, cpu_s: int, memory_bytes: int,
                 spawn: bool = False, read_only: Sequence[Path] = (), writable: bool = False,
                 extra_env: dict[str, str] | None = None, stderr=subprocess.PIPE) -> subprocess.Popen:
    """Start `script` as a long-lived program speaking on its stdin/stdout pipes. By
    default it may start no other program or process (seccomp kills it if it tries) and
    may not write its work folder. Stop it with `kill(proc)`."""
    why = refusal()
    if why:
        raise Unavailable(why)
    launch = python_launch(script, args, work_dir, cpu_s=cpu_s, memory_bytes=memory_bytes, spawn=spawn,
                           writable=writable, read_only=read_only, extra_env=extra_env)
    return _spawn(launch, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)


def work_dir(prefix: str = "kdojo-triton-") -> Path:
    """A private folder for one submission, usable by the sandbox's uid (emulator's rules)."""
    return emu_jail.work_dir(prefix)
