// Kernel Dojo CPU emulator: the in-process layer of the sandbox — an extra.
//
// The sandbox that counts is installed from outside, before the program's
// first instruction (kernels/emu/jail.py: bubblewrap's namespaces, rlimits
// and the seccomp filter of kernels/emu/seccomp.py): learner code linked into
// this binary can replace or skip anything here. This layer only tightens
// further for the usual case: once the worker threads exist it forbids
// creating more, lowers the fd and file limits, and kills the process (SIGSYS,
// read by the judge from the wait status) on system calls the outer filter
// would let through.
// Where the outer layer already refuses a call made here (setrlimit, prctl,
// setuid under the outer filter), that is not an error.
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace kdojo {
void install_fault_handler();          // kdojo_rt.cpp
void start_workers(unsigned* count);   // kdojo_rt.cpp
}

namespace {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#else
#error "the emulator's seccomp filter knows x86-64 and aarch64 only"
#endif

constexpr uid_t kNobody = 65534;

void die(const char* what) {
    char msg[160];
    snprintf(msg, sizeof msg, "kdojo-sandbox: %s failed: %s\n", what, strerror(errno));
    ssize_t ignored = write(2, msg, strlen(msg));
    (void)ignored;
    _exit(96);
}

// The outer filter answers EPERM to rlimit calls: the limits it set hold.
void limit(int resource, rlim_t value) {
    struct rlimit r = {value, value};
    struct rlimit cur;
    if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < value) r = {cur.rlim_max, cur.rlim_max};
    if (setrlimit(resource, &r) != 0 && errno != EPERM) die("setrlimit");
}

void drop_root() {
    if (getuid() != 0 && geteuid() != 0) return;
    if (setgroups(0, nullptr) != 0 && errno != EPERM) die("setgroups");
    if (setgid(kNobody) != 0) die("setgid");
    if (setuid(kNobody) != 0) die("setuid");
    if (setuid(0) == 0) die("dropping root (setuid(0) still works)");
}

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define REFUSE(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

void install_seccomp() {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        // x32 system calls share the architecture value: refuse them all.
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
        ALLOW(__NR_read), ALLOW(__NR_write), ALLOW(__NR_readv), ALLOW(__NR_writev),
        ALLOW(__NR_mmap), ALLOW(__NR_munmap), ALLOW(__NR_mprotect), ALLOW(__NR_madvise),
        ALLOW(__NR_mremap), ALLOW(__NR_brk), ALLOW(__NR_futex),
        ALLOW(__NR_exit), ALLOW(__NR_exit_group), ALLOW(__NR_rt_sigreturn),
        ALLOW(__NR_rt_sigprocmask), ALLOW(__NR_clock_gettime), ALLOW(__NR_gettid), ALLOW(__NR_getpid),
        ALLOW(__NR_fstat), ALLOW(__NR_newfstatat), ALLOW(__NR_lseek), ALLOW(__NR_getrandom),
        ALLOW(__NR_sched_yield), ALLOW(__NR_tgkill),
        // Harmless look-ups that library code makes: fail them quietly.
        REFUSE(__NR_openat), REFUSE(__NR_ioctl), REFUSE(__NR_readlinkat), REFUSE(__NR_prlimit64),
#if defined(__NR_open)
        REFUSE(__NR_open), REFUSE(__NR_readlink), REFUSE(__NR_stat), REFUSE(__NR_access),
#endif
        // The kernel kills the process with SIGSYS, which the judge reads from the wait
        // status: a handler's chosen exit code could be forged by any `_exit`.
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    };
    struct sock_fprog prog = {static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
    // TSYNC: the filter (and no_new_privs) applies to every thread, the
    // workers started before it included.
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) die("seccomp");
}

// Priority 101 is the first a program may use: this runs before any learner
// constructor (default priority) and before main.
__attribute__((constructor(101))) void kdojo_enter_sandbox() {
    // Only fds 0-2 stay open: nothing inherited can be used to reach out.
    for (int fd = 3; fd < 1024; ++fd) close(fd);
    drop_root();
    // The fast build's worker threads (kdojo_rt.cpp): created now, while
    // threads still can be (NPROC and seccomp below forbid it), before any
    // learner code. They only wait on a futex until a launch needs them.
    unsigned workers = 0;
    kdojo::start_workers(&workers);
    // No RLIMIT_CPU here: the judge sets it from outside, per case
    // (kernels/emu/process.py), so it is never summed over the cases.
    limit(RLIMIT_NPROC, 0);
    limit(RLIMIT_FSIZE, 0);
    limit(RLIMIT_NOFILE, 8);
    limit(RLIMIT_CORE, 0);
    limit(RLIMIT_AS, static_cast<rlim_t>(8) << 30);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) die("prctl(PDEATHSIG)");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("prctl(NO_NEW_PRIVS)");
    kdojo::install_fault_handler();
    install_seccomp();
}

}  // namespace
