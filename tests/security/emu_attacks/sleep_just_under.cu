// Sleeps just under the case's wall-clock limit in every case (futex wait with a
// timeout: no CPU), in the fast and the checked program: only a budget for the
// whole submission ends it. SLEEP_S: the exercise's run_s less a little.
extern "C" long syscall(long n, ...);
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    static int word = 0;
    struct { long s, ns; } t = {SLEEP_S, 500000000};
    syscall(202, &word, 0, 0, &t, 0, 0);
}
