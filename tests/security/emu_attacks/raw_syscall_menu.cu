// One raw `syscall` instruction (no libc, the runtime's own filter bypassed by
// going under it), chosen by NR and its arguments A0..A2: what the outer filter
// does with each. Processes, namespaces, io_uring, memfd, ptrace, other
// processes' memory, signals to others, sessions, personality, userfaultfd,
// alarms, mlock, …: the program is killed (SIGSYS, `rejected`); the few calls
// answered with an error leave it running to a wrong answer.
// The runtime's own (in-program) filter is never installed: syscall() replaced.
extern "C" long syscall(long n, ...) { return 0; }
#ifndef A0
#define A0 0
#endif
#ifndef A1
#define A1 0
#endif
#ifndef A2
#define A2 0
#endif
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    long ret;
    asm volatile("syscall" : "=a"(ret) : "a"((long)NR), "D"((long)A0), "S"((long)A1), "d"((long)A2)
                 : "rcx", "r11", "memory");
    out[0] = (float)ret;
}
