"""The sandbox for the emulator's untrusted host code, installed from outside.

The emulator compiles a learner's kernel as host C++ and runs it here. Every
source check may be assumed bypassed, so containment never depends on code
linked into the learner's binary. Both the compiler and the program run
under bubblewrap, started by the judge with the limits already set:

* namespaces: new user, pid, network, IPC, UTS and mount namespaces, every
  capability dropped, uid/gid 65534, an empty environment; a read-only root
  holding only what the step needs. g++ sees the toolchain, the runtime's
  headers and objects and its work directory (no /etc, /dev, /proc or
  /home: `#include "/dev/zero"` or `.incbin "/etc/passwd"` finds nothing), a
  size-bounded tmpfs /tmp; the program sees nothing but itself.
* rlimits, set in the child before bubblewrap is exec'd (so they hold from
  the first instruction): RLIMIT_AS (memory), RLIMIT_CPU, RLIMIT_FSIZE,
  RLIMIT_NOFILE, RLIMIT_CORE, and RLIMIT_NPROC. When the judge runs as root
  the child first becomes an unprivileged uid for real, so the kernel enforces
  RLIMIT_NPROC inside the sandbox's user namespace (it never does for root):
  the judge process's own uid from a pool (`sandbox_uid`), so that count is
  this submission's tasks alone, not every sandbox's on the machine.
* the program's seccomp filter (kernels/emu/seccomp.py), which bubblewrap
  installs before it execs the program (`--seccomp FD`).

Fail closed: where bubblewrap cannot build a sandbox, `refusal()` names why
in one line and the emulator refuses to judge, unless the operator sets
KDOJO_EMU_UNSANDBOXED=1 (a trusted classroom). Then the same rlimits and
the same seccomp filter are still installed from outside, by the child
before it execs the program; only the namespaces are missing.
"""

from __future__ import annotations

import ctypes
import functools
import os
import resource
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from kernels import settings
from kernels.cgroup import set_capped, user_tasks
from kernels.emu import seccomp

NOBODY = 65534  # the uid inside every sandbox, and outside when no pool uid can be had
# Sandbox uids outside, when the judge is root: one per judge process (a job process
# judges one submission), far above any account's. RLIMIT_NPROC counts a uid's tasks
# machine-wide, so with one shared uid a sandbox's room shrank whenever others started
# after it: a busy judge's clone or thread failed for a correct kernel (#25).
UID_BASE = 0x6000_0000
UID_SLOTS = 4096
UID_LOCKS = Path("/tmp") / f"kdojo-sandbox-uids-{os.geteuid()}"
_uid_held: dict[str, int] = {}
UNSANDBOXED_ENV = "KDOJO_EMU_UNSANDBOXED"
COMPILE_MB_ENV = "KDOJO_EMU_COMPILE_MB"  # the compile step's memory (its compilers share it)
MEMORY_MB_ENV = "KDOJO_EMU_MEMORY_MB"  # the address space of a submission's two programs together
PROGRAM_TASKS = 24  # bubblewrap's two, the program and its (at most 8) worker threads, slack
COMPILER_TASKS = 32  # sh, g++, cc1plus, as, collect2, ld and bubblewrap's own
# RLIMIT_NPROC counts every task of uid 65534, the sandboxes started after this one
# included: a compiler's limit leaves room for them (nothing a submission writes makes
# g++ fork, so the room cannot be used by it), else a busy judge fails compiles with
# "vfork: Resource temporarily unavailable" (24 at once did, here). A program's limit
# stays tight: its threads are the submission's to make.
COMPILER_ROOM_TASKS = 4096
# The compiler's files: its bounded tmpfs /tmp (memory, not disk) and each file it
# writes in the work folder (the host's disk). A legitimate program is a few MB; a
# source can ask for hundreds (`.fill` in top-level asm, big initialised arrays),
# six files of them (.ii, .s, .o and the program, twice) per submission.
TMP_BYTES = 64 << 20
COMPILER_FILE_BYTES = 64 << 20
_TOOLCHAIN_DIRS = ("/usr/bin", "/usr/lib", "/usr/lib64", "/usr/libexec", "/usr/include")


def compile_memory_bytes() -> int:
    return settings.value(COMPILE_MB_ENV) << 20


def program_memory_bytes(variant: str = "fast") -> int:
    """RLIMIT_AS of one program. Two programs of a submission are alive at once and
    share KDOJO_EMU_MEMORY_MB: the fast one (worker threads, every case) or the
    profiler's (which runs after the tests, once the fast one is stopped:
    backend.EmuHandle.process) gets two thirds, the checked one (small cases, one
    thread) a third."""
    total = settings.value(MEMORY_MB_ENV) << 20
    return total // 3 if variant == "check" else total * 2 // 3


@functools.lru_cache(maxsize=1)
def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def _as_nobody_possible() -> bool:
    return os.geteuid() == 0


@dataclass(frozen=True)
class Mode:
    sandboxed: bool  # bubblewrap builds the namespaces
    as_nobody: bool  # the child becomes uid 65534 before bubblewrap (we are root)
    reason: str  # one line: what is in use, or why the emulator refuses


@functools.lru_cache(maxsize=1)
def mode() -> Mode:
    """Which sandbox this machine gives (probed once per process)."""
    path = bwrap_path()
    why = "bubblewrap (bwrap) is not installed"
    if path:
        for as_nobody in ((True, False) if _as_nobody_possible() else (False,)):
            ok, why = _probe(path, as_nobody)
            if ok:
                who = "as a pool uid per judge process" if as_nobody else f"as uid {os.geteuid()}"
                return Mode(True, as_nobody, f"bubblewrap namespaces {who}, seccomp, rlimits")
    if settings.value(UNSANDBOXED_ENV) == "1":
        return Mode(False, _as_nobody_possible(),
                    f"{UNSANDBOXED_ENV}=1: no namespaces ({why}); seccomp and rlimits only")
    return Mode(False, False, f"the emulator refuses to run submissions: {why}; install bubblewrap with "
                              f"user namespaces enabled, or set {UNSANDBOXED_ENV}=1 for a trusted classroom")


def bwrap_works() -> bool:
    return mode().sandboxed


def refusal() -> str | None:
    """None when submissions may run here, else the one line for the operator."""
    current = mode()
    if current.sandboxed or settings.value(UNSANDBOXED_ENV) == "1":
        return None
    return current.reason


def _probe(path: str, as_nobody: bool) -> tuple[bool, str]:
    argv = [path, *_base_args(), *_toolchain_binds(), "--remount-ro", "/", "--", "/usr/bin/true"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=10,
                              preexec_fn=_become_nobody if as_nobody else None)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bubblewrap did not start ({exc})"
    if done.returncode == 0:
        return True, ""
    detail = done.stderr.decode(errors="replace").strip().splitlines()
    return False, "bubblewrap cannot create namespaces here" + (f" ({detail[-1]})" if detail else "")


def _become_nobody() -> None:
    _become(NOBODY)


def _become(uid: int) -> None:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def sandbox_uid() -> int:
    """The uid this process's sandboxes run as outside their namespace when the judge is
    root: a pool uid held (an flock, released by the kernel when this process ends) for
    the life of the process, or 65534 when none can be had (the lock folder is not ours
    alone, or every slot is taken)."""
    if _uid_held.get("pid") == os.getpid():
        return _uid_held["uid"]
    uid, fd = _take_uid()
    _uid_held.update(pid=os.getpid(), uid=uid, fd=fd)
    return uid


def _take_uid() -> tuple[int, int]:
    import fcntl
    import stat

    try:
        UID_LOCKS.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(UID_LOCKS)
    except OSError:
        return NOBODY, -1
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        return NOBODY, -1  # made by someone else: its locks would mean nothing
    first = os.getpid() % UID_SLOTS
    for k in range(UID_SLOTS):
        slot = (first + k) % UID_SLOTS
        try:
            fd = os.open(UID_LOCKS / str(slot), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        uid = UID_BASE + slot
        if user_tasks(uid) == 0:  # nothing of an earlier holder still runs as it
            return uid, fd
        os.close(fd)
    return NOBODY, -1


def _base_args() -> list[str]:
    # --hostname: a new UTS namespace starts with the host's own name, which uname()
    # (allowed: library code asks for it) would tell the program.
    return ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--uid", str(NOBODY), "--gid", str(NOBODY), "--clearenv", "--hostname", "kdojo"]


@functools.lru_cache(maxsize=1)
def toolchain_dirs() -> tuple[str, ...]:
    """What the compiler's sandbox shows of /usr: where a multiarch layout says where
    the libraries are, /usr/lib/gcc, /usr/lib/<multiarch>, /usr/lib/bfd-plugins and
    /usr/libexec/gcc rather than all of /usr/lib and /usr/libexec (a host's
    /usr/lib holds other things: os-release, python3, node_modules, databases' files,
    any file an operator put there)."""
    cxx = settings.value("KDOJO_EMU_CXX") or shutil.which("g++") or "g++"
    try:
        multiarch = subprocess.run([cxx, "-print-multiarch"], capture_output=True, text=True,
                                   timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        multiarch = ""
    dirs = list(_TOOLCHAIN_DIRS)
    if multiarch and "/" not in multiarch and os.path.isdir(f"/usr/lib/{multiarch}") \
            and os.path.isdir("/usr/lib/gcc"):
        dirs.remove("/usr/lib")
        dirs += ["/usr/lib/gcc", f"/usr/lib/{multiarch}", "/usr/lib/bfd-plugins"]
    if os.path.isdir("/usr/libexec/gcc"):
        dirs.remove("/usr/libexec")
        dirs.append("/usr/libexec/gcc")
    return tuple(dirs)


def _toolchain_binds() -> list[str]:
    args: list[str] = []
    for d in toolchain_dirs():
        if os.path.isdir(d) and not os.path.islink(d):
            args += ["--ro-bind", d, d]
    for link in ("bin", "lib", "lib64", "sbin"):
        target = Path("/") / link
        if target.is_symlink():
            args += ["--symlink", os.readlink(target), f"/{link}"]
        elif target.is_dir():
            args += ["--ro-bind", str(target), f"/{link}"]
    return args


def _limits(cpu_s: int, memory_bytes: int, file_bytes: int, files: int) -> list[tuple[int, int, int]]:
    return [(resource.RLIMIT_CPU, cpu_s, cpu_s + 1), (resource.RLIMIT_AS, memory_bytes, memory_bytes),
            (resource.RLIMIT_FSIZE, file_bytes, file_bytes), (resource.RLIMIT_NOFILE, files, files),
            (resource.RLIMIT_CORE, 0, 0)]


def _child_setup(limits: list[tuple[int, int, int]], tasks: int, as_nobody: bool,
                 fprog: "_Fprog | None") -> Callable[[], None]:
    """The preexec_fn: limits, then (if root) this process's sandbox uid, then
    (unsandboxed) seccomp. The uid's tasks are counted in the child, just before it
    becomes one of them (this submission's other sandboxes may be running)."""
    uid = sandbox_uid() if as_nobody else None  # taken here: the lock belongs to this process

    def setup() -> None:
        for res, soft, hard in limits:
            set_capped(res, soft, hard)
        if uid is not None:
            nproc = user_tasks(uid) + tasks
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            _become(uid)
        if fprog is not None:
            fprog.install()

    return setup


class _Fprog:
    """A struct sock_fprog for installing the filter in a child (unsandboxed mode)."""

    def __init__(self, program: bytes) -> None:
        class SockFprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

        self._bytes = ctypes.create_string_buffer(program, len(program))
        self._prog = SockFprog(len(program) // 8, ctypes.cast(self._bytes, ctypes.c_char_p))
        self._libc = ctypes.CDLL(None, use_errno=True)

    def install(self) -> None:
        if self._libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            os._exit(95)
        if self._libc.syscall(317, 1, 0, ctypes.byref(self._prog)) != 0:  # seccomp(SET_MODE_FILTER)
            os._exit(95)


@dataclass
class Launch:
    """What Popen needs: the command, its preexec_fn, the fds to pass and to close after."""

    argv: list[str]
    preexec_fn: Callable[[], None]
    pass_fds: tuple[int, ...] = ()
    status_fd: int | None = None  # ours to read: bubblewrap's --json-status-fd (program_launch)

    def close_fds(self) -> None:
        for fd in self.pass_fds:
            try:
                os.close(fd)
            except OSError:
                pass


def work_dir(prefix: str = "kdojo-emu-") -> Path:
    """A private directory for one submission's compiler and program, usable by the
    sandbox's uid: owned by it (mode 0700) when the sandbox runs as one (sandbox_uid), with
    every ancestor we own made traversable (o+x, not readable: the job's own
    directory is 0700). Nobody else can read or swap the program in it."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    if mode().as_nobody:
        uid = sandbox_uid()
        os.chown(path, uid, uid)
        for parent in path.parents:
            try:
                st = parent.stat()
                if st.st_uid == os.geteuid() and not st.st_mode & 0o001:
                    parent.chmod((st.st_mode & 0o7777) | 0o001)
            except OSError:
                continue
    path.chmod(0o700)
    return path


def spawn(launch: Launch, **popen_kwargs) -> subprocess.Popen:
    """Popen `launch`. EAGAIN (another sandbox started between our count of uid
    65534's tasks and the exec) is retried a few times before it is raised."""
    try:
        for attempt in range(4):
            try:
                return subprocess.Popen(launch.argv, preexec_fn=launch.preexec_fn, pass_fds=launch.pass_fds,
                                        **popen_kwargs)
            except BlockingIOError:
                if attempt == 3:
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("not reached")
    finally:
        launch.close_fds()


def compile_launch(argv: list[str], work_dir: Path, read_only: list[Path], cpu_s: int,
                   memory_bytes: int, writable: bool = True) -> Launch:
    """A compiler command: it may read the toolchain and `read_only`, write `work_dir`
    (read it only, unless `writable`) and a bounded /tmp, within `memory_bytes` of
    address space per process."""
    current = mode()
    limits = _limits(cpu_s, memory_bytes, COMPILER_FILE_BYTES if writable else 0, 256)
    if not current.sandboxed:
        return Launch(argv, _child_setup(limits, COMPILER_TASKS + COMPILER_ROOM_TASKS, current.as_nobody, None))
    args = [bwrap_path() or "bwrap", *_base_args(), *_toolchain_binds(), "--size", str(TMP_BYTES),
            "--tmpfs", "/tmp"]
    for path in read_only:
        args += ["--ro-bind", str(path), str(path)]
    args += ["--bind" if writable else "--ro-bind", str(work_dir), str(work_dir), "--remount-ro", "/",
             "--chdir", str(work_dir),
             "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "TMPDIR", "/tmp", "--"]
    return Launch(args + argv, _child_setup(limits, COMPILER_TASKS + COMPILER_ROOM_TASKS, current.as_nobody, None))


def program_launch(program: Path, cpu_s: int, memory_bytes: int | None = None) -> Launch:
    """The compiled (static) program: it needs no file at all, and starts under its
    seccomp filter and limits. Unsandboxed, the child installs the filter itself."""
    current = mode()
    # Hard CPU ceiling for a whole submission: the judge moves the soft limit per case
    # (and, as root, the hard one too); without CAP_SYS_RESOURCE only the soft one moves.
    limits = _limits(cpu_s, memory_bytes or program_memory_bytes(), 0, 64)
    limits[0] = (resource.RLIMIT_CPU, cpu_s, cpu_s * 100 + 1)
    if not current.sandboxed:
        return Launch([str(program)], _child_setup(limits, PROGRAM_TASKS, current.as_nobody,
                                                   _Fprog(seccomp.program_filter())))
    read_fd, write_fd = os.pipe()
    os.write(write_fd, seccomp.program_filter())  # a few KiB: fits in the pipe
    os.close(write_fd)
    # bubblewrap writes `"exit-code"` there only once the program has run: a sandbox that could not
    # start it (its clone refused by the shared RLIMIT_NPROC of uid 65534 while other sandboxes
    # start, a mount failing) exits 1 without it, which is the machine's fault, not the learner's.
    status_r, status_w = os.pipe()
    os.set_blocking(status_r, False)
    args = [bwrap_path() or "bwrap", *_base_args(), "--setenv", "KDOJO_CPU_S", str(cpu_s),
            "--ro-bind", str(program), "/kdojo-program", "--remount-ro", "/", "--chdir", "/",
            "--seccomp", str(read_fd), "--json-status-fd", str(status_w), "--", "/kdojo-program"]
    return Launch(args, _child_setup(limits, PROGRAM_TASKS, current.as_nobody, None), (read_fd, status_w), status_r)


def sandbox_ran_program(status: bytes) -> bool:
    """Whether bubblewrap's JSON status (what its --json-status-fd received) says the program ran."""
    return b'"exit-code"' in status


def program_env(cpu_s: int) -> dict[str, str]:
    """The program's whole environment (outside bubblewrap, which clears it itself)."""
    return {"KDOJO_CPU_S": str(cpu_s), "PATH": "/usr/bin:/bin"}


def program_pid(root_pid: int) -> int | None:
    """The program's own pid: bubblewrap's grandchild when sandboxed, else `root_pid`."""
    if not mode().sandboxed:
        return root_pid
    pid = root_pid
    for _ in range(2):
        children = _children(pid)
        if len(children) != 1:
            return None
        pid = children[0]
    return pid


def _children(pid: int) -> list[int]:
    """`pid`'s children: /proc's list, or (kernels without CONFIG_PROC_CHILDREN) a scan."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        pass
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if int(Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system, all threads) a process has used, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def vm_peak_bytes(pid: int) -> int | None:
    """The highest address space a live process has had (VmPeak), from /proc."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmPeak:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def limit_cpu(pid: int, seconds: float) -> bool:
    """Give `pid` `seconds` more CPU time from now (a trusted reset between cases).
    Hard limit one second later: SIGXCPU may be caught, SIGKILL may not."""
    used = cpu_seconds(pid)
    if used is None:
        return False
    soft = int(used + seconds) + 1
    for hard in (soft + 1, None):
        try:
            current_hard = resource.prlimit(pid, resource.RLIMIT_CPU)[1]
            resource.prlimit(pid, resource.RLIMIT_CPU, (soft, hard if hard is not None else current_hard))
            return True
        except (PermissionError, ValueError):
            continue  # raising a hard limit needs CAP_SYS_RESOURCE: move the soft one only
        except ProcessLookupError:
            return False
    return False
