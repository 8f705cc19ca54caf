"""The emulated program's seccomp filter, built here as raw classic BPF.

bubblewrap installs it (`--seccomp FD`) just before it execs the program, so
it holds from the program's first instruction: before glibc's start-up,
ifunc resolvers, `preinit_array`, every constructor and `main`. Nothing
linked into the learner's binary installs or can loosen it (filters only
ever add up; the strictest answer wins).

What the emulator needs, and nothing more, is allowed: reading and writing
the fds it has, memory management, futexes, signals to itself, threads
(clone with CLONE_THREAD only: never a new process), and exiting with a
status below 128 (above, it would pass for a signal through bubblewrap). A few
look-ups that library code makes fail with EPERM (opening files, ioctl,
changing rlimits, uname: the host's kernel release and build string). Anything else kills the whole process with SIGSYS, which
the judge reads from the exit status (kernels/emu/process.py), not from
anything the program writes.

`execve` stays allowed because the filter is installed before bubblewrap's
own exec of the program; inside the sandbox the only file is the program
itself and nothing can create another (no open, no memfd, RLIMIT_FSIZE 0),
so a second exec can only restart the same program under the same filter.
"""

from __future__ import annotations

import platform
import struct

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_OFF_NR, _OFF_ARCH = 0, 4


def _arg_lo(i: int) -> int:
    """Offset of the low 32 bits of argument i (little-endian)."""
    return 16 + 8 * i


_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_AND = 0x54  # BPF_ALU | BPF_AND | BPF_K
_JEQ, _JGE, _JSET = 0x15, 0x35, 0x45  # BPF_JMP | op | BPF_K
_RET = 0x06
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
EPERM, ENOSYS = 1, 38
AUDIT_ARCH_X86_64 = 0xC000003E
CLONE_THREAD = 0x00010000
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
SELF_SIGNALS = (4, 5, 6, 7, 8, 11)  # SIGILL SIGTRAP SIGABRT SIGBUS SIGFPE SIGSEGV

# x86-64 system call numbers.
X86_64 = {
    "read": 0, "write": 1, "open": 2, "close": 3, "stat": 4, "fstat": 5, "lstat": 6, "lseek": 8,
    "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13, "rt_sigprocmask": 14,
    "rt_sigreturn": 15, "ioctl": 16, "pread64": 17, "readv": 19, "writev": 20, "access": 21,
    "sched_yield": 24, "mremap": 25, "madvise": 28, "getpid": 39, "clone": 56, "execve": 59,
    "exit": 60, "wait4": 61, "uname": 63, "readlink": 89, "getrlimit": 97, "getuid": 102, "getgid": 104,
    "geteuid": 107, "getegid": 108, "sigaltstack": 131, "prctl": 157, "arch_prctl": 158,
    "setrlimit": 160, "gettid": 186, "futex": 202, "sched_getaffinity": 204, "set_tid_address": 218,
    "clock_gettime": 228, "clock_getres": 229, "exit_group": 231, "tgkill": 234, "openat": 257,
    "newfstatat": 262, "readlinkat": 267, "set_robust_list": 273, "prlimit64": 302, "getcpu": 309,
    "seccomp": 317, "getrandom": 318, "membarrier": 324, "rseq": 334, "clone3": 435,
    "close_range": 436,
}
ALLOWED = ("read", "write", "readv", "writev", "pread64", "close", "fstat", "newfstatat", "lseek",
           "mmap", "munmap", "mprotect", "madvise", "mremap", "brk", "futex",
           "rt_sigreturn", "rt_sigprocmask", "rt_sigaction", "sigaltstack", "clock_gettime",
           "clock_getres", "gettid", "getpid", "getuid", "getgid", "geteuid", "getegid", "getrandom",
           "sched_yield", "sched_getaffinity", "getcpu", "set_robust_list", "set_tid_address", "rseq",
           "arch_prctl", "membarrier", "execve", "close_range",
           # bubblewrap installs the filter in its pid-1 reaper too, which waits for the program
           "wait4",
           # only adds filters (stricter, never looser): the runtime's own layer
           "seccomp")
# uname: a UTS namespace hides the host's name but not its kernel release and build string;
# glibc's and libstdc++'s start-up run without it (the emulator's tests and every lesson's
# reference run under this filter), so it fails for all code in the sandbox.
REFUSED = ("open", "openat", "stat", "lstat", "access", "readlink", "readlinkat", "ioctl",
           "getrlimit", "setrlimit", "prlimit64", "uname")


class UnsupportedArch(RuntimeError):
    """The filter knows only x86-64 system call numbers."""


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _ret(value: int) -> bytes:
    return _op(_RET, value)


def _on(nr: int, block: list[bytes]) -> list[bytes]:
    """If the call is `nr`, run `block` (which always returns), else skip it."""
    return [_op(_JEQ, nr, 0, len(block)), *block]


def program_filter() -> bytes:
    """The filter as the bytes bubblewrap reads (an array of struct sock_filter)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        raise UnsupportedArch(f"the emulator's seccomp filter knows x86-64 only, not {platform.machine()}")
    nr = X86_64
    ops = [_op(_LD_ABS, _OFF_ARCH), _op(_JEQ, AUDIT_ARCH_X86_64, 1, 0), _ret(RET_KILL_PROCESS),
           _op(_LD_ABS, _OFF_NR),
           # x32 system calls share the architecture value: none of them.
           _op(_JGE, 0x40000000, 0, 1), _ret(RET_KILL_PROCESS)]
    for name in ALLOWED:
        ops += _on(nr[name], [_ret(RET_ALLOW)])
    for name in REFUSED:
        ops += _on(nr[name], [_ret(RET_ERRNO | EPERM)])
    # An exit status of 128 or more kills: bubblewrap reports a child killed by signal N
    # as status 128 + N, so `exit(137)` would read as a SIGKILL the judge did not send
    # (the machine's fault, re-run and then internal_error). The kernel keeps the low
    # byte of the status; the program's own exits (runtime/) are all below 128.
    for name in ("exit", "exit_group"):
        ops += _on(nr[name], [_op(_LD_ABS, _arg_lo(0)), _op(_AND, 0xFF), _op(_JGE, 128, 0, 1),
                              _ret(RET_KILL_PROCESS), _ret(RET_ALLOW)])
    # Threads only: a clone without CLONE_THREAD (a new process) kills.
    ops += _on(nr["clone"], [_op(_LD_ABS, _arg_lo(0)), _op(_JSET, CLONE_THREAD, 0, 1),
                             _ret(RET_ALLOW), _ret(RET_KILL_PROCESS)])
    # clone3 passes its flags in memory BPF cannot read: ENOSYS makes glibc use clone.
    ops += _on(nr["clone3"], [_ret(RET_ERRNO | ENOSYS)])
    # prctl: only the two options the runtime's own layer sets.
    ops += _on(nr["prctl"], [_op(_LD_ABS, _arg_lo(0)), _op(_JEQ, PR_SET_NO_NEW_PRIVS, 2, 0),
                             _op(_JEQ, PR_SET_PDEATHSIG, 1, 0), _ret(RET_ERRNO | EPERM), _ret(RET_ALLOW)])
    # Signals to itself, only those a crash raises (abort, a fault re-raised): a
    # program cannot SIGKILL itself, which the judge reads as someone else's doing.
    block = [_op(_LD_ABS, _arg_lo(2))]
    for i, sig in enumerate(SELF_SIGNALS):
        block.append(_op(_JEQ, sig, len(SELF_SIGNALS) - i, 0))
    ops += _on(nr["tgkill"], block + [_ret(RET_ERRNO | EPERM), _ret(RET_ALLOW)])
    ops.append(_ret(RET_KILL_PROCESS))
    if len(ops) > 4096:  # BPF_MAXINSNS
        raise AssertionError("seccomp filter too long")
    return b"".join(ops)
