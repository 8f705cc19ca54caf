// Ignores SIGXCPU (the soft CPU limit's warning) and catches SIGSEGV with a
// handler that returns to the faulting instruction (a fault forever), then
// faults: only the hard CPU limit (SIGKILL) or the wall clock can end it.
extern "C" long syscall(long n, ...) { return 0; }  // the runtime's own filter: never installed
typedef void (*handler_t)(int);
extern "C" handler_t signal(int, handler_t);
static void again(int) { }
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    signal(24, (handler_t)1);  // SIGXCPU: SIG_IGN
    signal(11, again);
    signal(7, again);
    *(volatile int*)16 = 1;
}
