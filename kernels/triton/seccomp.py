"""The seccomp filters of the Triton sandbox (kernels/triton/jail.py), raw classic BPF.

Built with the emulator's pieces (kernels/emu/seccomp.py), for a different program:
a CPython interpreter running Triton's compiler (MLIR/LLVM threads, and for the compile
step Triton's bundled `ptxas`, which Triton starts as a child process). The namespaces
are the wall around the files; this filter narrows what the kernel itself is asked.

`python_filter(spawn)` is installed from outside (bubblewrap's `--seccomp FD`, or the
child before it execs Python when unsandboxed). It allows what the interpreter, the
compiler's threads and ptxas need; a few calls that libraries try fail with EPERM or
ENOTTY (sockets, signals to others, ioctl); anything else not listed fails with EPERM, so nothing
new is ever reached by default. Without `spawn`, a new process (fork, vfork, clone
without CLONE_THREAD) kills the whole process.

`exec` cannot be refused by that filter: bubblewrap installs it before its own exec of
Python. `no_exec_filter()` is the second layer for programs that must never start
another one (the CPU interpreter's server): the sandbox's bootstrap (jail.py) installs
it in the interpreter itself, before it imports any module of the learner's. Filters
only ever add up, so nothing the learner's code does can loosen either.
"""

from __future__ import annotations

import platform

from kernels.emu.seccomp import (_LD_ABS, _OFF_ARCH, _OFF_NR, AUDIT_ARCH_X86_64, CLONE_THREAD, ENOSYS,
                                 EPERM, PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG, RET_ALLOW, RET_ERRNO,
                                 RET_KILL_PROCESS, SELF_SIGNALS, UnsupportedArch, _arg_lo, _JEQ, _JGE,
                                 _JSET, _on, _op, _ret)

ENOTTY = 25
PR_SET_NAME, PR_GET_NAME = 15, 16

# x86-64 system call numbers (asm/unistd_64.h).
X86_64 = {
    "read": 0, "write": 1, "open": 2, "close": 3, "stat": 4, "fstat": 5, "lstat": 6, "poll": 7,
    "lseek": 8, "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13,
    "rt_sigprocmask": 14, "rt_sigreturn": 15, "ioctl": 16, "pread64": 17, "pwrite64": 18, "readv": 19,
    "writev": 20, "access": 21, "pipe": 22, "select": 23, "sched_yield": 24, "mremap": 25, "msync": 26,
    "mincore": 27, "madvise": 28, "dup": 32, "dup2": 33, "nanosleep": 35, "getitimer": 36,
    "setitimer": 38, "getpid": 39, "sendfile": 40, "socket": 41, "clone": 56, "fork": 57, "vfork": 58,
    "execve": 59, "exit": 60, "wait4": 61, "kill": 62, "uname": 63, "fcntl": 72, "flock": 73,
    "fsync": 74, "fdatasync": 75, "truncate": 76, "ftruncate": 77, "getdents": 78, "getcwd": 79,
    "chdir": 80, "fchdir": 81, "rename": 82, "mkdir": 83, "rmdir": 84, "link": 86, "unlink": 87,
    "symlink": 88, "readlink": 89, "chmod": 90, "fchmod": 91, "umask": 95, "gettimeofday": 96,
    "getrlimit": 97, "sysinfo": 99, "getuid": 102, "getgid": 104, "geteuid": 107, "getegid": 108,
    "getppid": 110, "getpgrp": 111, "getgroups": 115, "getresuid": 118, "getresgid": 120,
    "getpgid": 121, "getsid": 124, "sigaltstack": 131, "statfs": 137, "fstatfs": 138,
    "sched_getparam": 143, "sched_getscheduler": 145, "prctl": 157, "arch_prctl": 158, "gettid": 186,
    "time": 201, "futex": 202, "sched_getaffinity": 204, "getdents64": 217, "set_tid_address": 218,
    "clock_gettime": 228, "clock_getres": 229, "clock_nanosleep": 230, "exit_group": 231,
    "tgkill": 234, "waitid": 247, "openat": 257, "mkdirat": 258, "newfstatat": 262, "unlinkat": 263,
    "renameat": 264, "readlinkat": 267, "fchmodat": 268, "faccessat": 269, "pselect6": 270,
    "set_robust_list": 273, "dup3": 292, "pipe2": 293, "prlimit64": 302, "getcpu": 309,
    "renameat2": 316, "seccomp": 317, "getrandom": 318, "execveat": 322, "membarrier": 324,
    "statx": 332, "rseq": 334, "clone3": 435, "close_range": 436, "faccessat2": 439,
}
# The interpreter, its threads and its files (the namespace decides which files exist).
ALLOWED = (
    "read", "write", "open", "openat", "close", "stat", "fstat", "lstat", "newfstatat", "statx",
    "poll", "select", "pselect6", "lseek", "mmap", "mprotect", "munmap", "mremap", "msync", "mincore",
    "madvise", "brk", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "pread64",
    "pwrite64", "readv", "writev", "access", "faccessat", "faccessat2", "pipe", "pipe2", "dup", "dup2",
    "dup3", "sched_yield", "nanosleep", "clock_nanosleep", "getitimer", "setitimer", "getpid",
    "getppid", "gettid", "sendfile", "fcntl", "flock", "fsync", "fdatasync", "truncate", "ftruncate",
    "getdents", "getdents64", "getcwd", "chdir", "fchdir", "rename", "renameat", "renameat2", "mkdir",
    "mkdirat", "rmdir", "link", "unlink", "unlinkat", "symlink", "readlink", "readlinkat", "chmod",
    "fchmod", "fchmodat", "umask", "gettimeofday", "time", "clock_gettime", "clock_getres",
    "getrlimit", "sysinfo", "getuid", "getgid", "geteuid", "getegid", "getresuid", "getresgid",
    "getgroups", "getpgrp", "getpgid", "getsid", "statfs", "fstatfs", "sched_getaffinity",
    "sched_getparam", "sched_getscheduler", "getcpu", "futex", "set_robust_list", "set_tid_address",
    "rseq", "arch_prctl", "membarrier", "getrandom", "close_range", "wait4", "waitid",
    # Python's uuid and platform modules (imported by Triton) ask it at import; the UTS
    # namespace names the host "kdojo"
    "uname",
    # bubblewrap's own exec of the program comes after the filter (see no_exec_filter)
    "execve",
    # only adds filters (stricter, never looser): the bootstrap's no-exec layer
    "seccomp",
)
REFUSED = ("socket", "kill")  # EPERM: no network, no signals to others
SPAWN = ("fork", "vfork", "execveat")  # a new process or program (the compile step's ptxas)


def _header() -> list[bytes]:
    if platform.machine() not in ("x86_64", "AMD64"):
        raise UnsupportedArch(f"the Triton sandbox's seccomp filter knows x86-64 only, not {platform.machine()}")
    return [_op(_LD_ABS, _OFF_ARCH), _op(_JEQ, AUDIT_ARCH_X86_64, 1, 0), _ret(RET_KILL_PROCESS),
            _op(_LD_ABS, _OFF_NR), _op(_JGE, 0x40000000, 0, 1), _ret(RET_KILL_PROCESS)]


def _clone(spawn: bool) -> list[bytes]:
    # clone3 passes its flags in memory BPF cannot read: ENOSYS makes glibc use clone.
    ops = _on(X86_64["clone3"], [_ret(RET_ERRNO | ENOSYS)])
    if spawn:
        return ops + _on(X86_64["clone"], [_ret(RET_ALLOW)])
    return ops + _on(X86_64["clone"], [_op(_LD_ABS, _arg_lo(0)), _op(_JSET, CLONE_THREAD, 0, 1),
                                       _ret(RET_ALLOW), _ret(RET_KILL_PROCESS)])


def python_filter(spawn: bool) -> bytes:
    """The outer filter as bubblewrap reads it (an array of struct sock_filter)."""
    nr = X86_64
    ops = _header()
    for name in ALLOWED:
        ops += _on(nr[name], [_ret(RET_ALLOW)])
    for name in REFUSED:
        ops += _on(nr[name], [_ret(RET_ERRNO | EPERM)])
    # isatty() and friends: "not a terminal" (there is none in the sandbox)
    ops += _on(nr["ioctl"], [_ret(RET_ERRNO | ENOTTY)])
    for name in SPAWN:
        ops += _on(nr[name], [_ret(RET_ALLOW if spawn else RET_KILL_PROCESS)])
    ops += _clone(spawn)
    # exit statuses of 128 or more would read as a signal through bubblewrap
    for name in ("exit", "exit_group"):
        ops += _on(nr[name], [_op(_LD_ABS, _arg_lo(0)), _op(0x54, 0xFF), _op(_JGE, 128, 0, 1),
                              _ret(RET_KILL_PROCESS), _ret(RET_ALLOW)])
    # prctl: thread names (LLVM's threads) and the two options a sandbox layer sets
    ops += _on(nr["prctl"], [_op(_LD_ABS, _arg_lo(0)), _op(_JEQ, PR_SET_NO_NEW_PRIVS, 4, 0),
                             _op(_JEQ, PR_SET_PDEATHSIG, 3, 0), _op(_JEQ, PR_SET_NAME, 2, 0),
                             _op(_JEQ, PR_GET_NAME, 1, 0), _ret(RET_ERRNO | EPERM), _ret(RET_ALLOW)])
    # prlimit64 on itself only (glibc's getrlimit/setrlimit; raising a hard limit needs a
    # capability the sandbox has not got)
    ops += _on(nr["prlimit64"], [_op(_LD_ABS, _arg_lo(0)), _op(_JEQ, 0, 0, 1), _ret(RET_ALLOW),
                                 _ret(RET_ERRNO | EPERM)])
    # signals to itself, only those a crash raises
    block = [_op(_LD_ABS, _arg_lo(2))]
    for i, sig in enumerate(SELF_SIGNALS):
        block.append(_op(_JEQ, sig, len(SELF_SIGNALS) - i, 0))
    ops += _on(nr["tgkill"], block + [_ret(RET_ERRNO | EPERM), _ret(RET_ALLOW)])
    ops.append(_ret(RET_ERRNO | EPERM))
    if len(ops) > 4096:  # BPF_MAXINSNS
        raise AssertionError("seccomp filter too long")
    return b"".join(ops)


def no_exec_filter() -> bytes:
    """The second layer: no other program and no other process, ever; the rest is left
    to the outer filter."""
    nr = X86_64
    ops = _header()
    for name in ("execve", "execveat", "fork", "vfork"):
        ops += _on(nr[name], [_ret(RET_KILL_PROCESS)])
    ops += _clone(False)
    ops.append(_ret(RET_ALLOW))
    return b"".join(ops)
