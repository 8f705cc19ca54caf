"""The outer sandbox for the emulator's untrusted host code.

The emulator compiles a learner's kernel as host C++ and runs it on this
machine, so both the compiler and the program run jailed, in layers:

1. bubblewrap, when it works here (probed once per process): new user, pid,
   network, IPC and mount namespaces, no capabilities, uid/gid 65534, only
   the paths the step needs (read-only), a tmpfs /tmp, dies with its parent;
2. always: a fresh process group killed on the wall-clock limit, an empty
   environment, and RLIMIT_CPU / NPROC / FSIZE / NOFILE / CORE for the
   compiler (set in the child before exec);
3. inside the program itself (runtime/kdojo_sandbox.cpp): dropping root,
   its own rlimits and a seccomp filter, installed before any learner code.

Where bubblewrap cannot create namespaces (some containers), layers 2 and 3
still hold; `bwrap_works()` says which one is in use.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
from pathlib import Path

NOBODY = 65534
_SYSTEM_DIRS = ("/usr", "/etc/alternatives")


@functools.lru_cache(maxsize=1)
def bwrap_path() -> str | None:
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def bwrap_works() -> bool:
    """True when bubblewrap can build a sandbox here (it needs user or setuid namespaces)."""
    path = bwrap_path()
    if not path:
        return False
    try:
        probe = subprocess.run([path, *_base_args(), *_system_binds(), "/usr/bin/true"],
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def _base_args() -> list[str]:
    return ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--uid", str(NOBODY), "--gid", str(NOBODY), "--clearenv",
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]


def _system_binds() -> list[str]:
    args: list[str] = []
    for d in _SYSTEM_DIRS:
        if os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for link in ("bin", "lib", "lib64", "sbin"):
        target = Path("/") / link
        if target.is_symlink():
            args += ["--symlink", os.readlink(target), f"/{link}"]
        elif target.is_dir():
            args += ["--ro-bind", str(target), f"/{link}"]
    return args


def compile_command(argv: list[str], work_dir: Path, read_only: list[Path]) -> list[str]:
    """Wrap a compiler command: it may read the system toolchain and `read_only`,
    and write only `work_dir`."""
    if not bwrap_works():
        return argv
    args = [bwrap_path() or "bwrap", *_base_args(), *_system_binds()]
    for path in read_only:
        args += ["--ro-bind", str(path), str(path)]
    args += ["--bind", str(work_dir), str(work_dir), "--chdir", str(work_dir),
             "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "TMPDIR", str(work_dir), "--"]
    return args + argv


def run_command(program: Path, cpu_s: int) -> list[str]:
    """Wrap the compiled program. It is statically linked, so it needs no files at all."""
    if not bwrap_works():
        return [str(program)]
    return [bwrap_path() or "bwrap", "--unshare-all", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--uid", str(NOBODY), "--gid", str(NOBODY), "--clearenv",
            "--setenv", "KDOJO_CPU_S", str(cpu_s), "--tmpfs", "/tmp",
            "--ro-bind", str(program), "/kdojo-program", "--chdir", "/", "--", "/kdojo-program"]


def compiler_limits(cpu_s: int, file_bytes: int = 256 << 20) -> None:
    """preexec_fn for the compiler: bounded CPU, output size, and no core files."""
    for res, value in ((resource.RLIMIT_CPU, cpu_s), (resource.RLIMIT_FSIZE, file_bytes),
                       (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NOFILE, 256)):
        soft, hard = resource.getrlimit(res)
        cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(res, (cap, cap))


def program_env(cpu_s: int) -> dict[str, str]:
    """The program's whole environment (outside bubblewrap, which clears it itself)."""
    return {"KDOJO_CPU_S": str(cpu_s), "PATH": "/usr/bin:/bin"}
