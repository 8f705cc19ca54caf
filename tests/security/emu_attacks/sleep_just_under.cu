// Sleeps just under the case's wall-clock limit in every case (futex wait with a
// timeout: no CPU), in the fast and the checked program: only a budget for the
// whole submission ends it. SLEEP_S: the exercise's run_s less a little. SPIN=1
// spins on the clock instead (one thread: far under the case's CPU limit).
#ifndef SPIN
#define SPIN 0
#endif
extern "C" long syscall(long n, ...);
struct kd_timespec { long s, ns; };
extern "C" int clock_gettime(int, kd_timespec*);
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    if (SPIN) {
        kd_timespec start, now;
        clock_gettime(1, &start);
        do clock_gettime(1, &now);
        while ((now.s - start.s) * 1000000000L + (now.ns - start.ns) < SLEEP_S * 1000000000L + 500000000L);
        return;
    }
    static int word = 0;
    kd_timespec t = {SLEEP_S, 500000000};
    syscall(202, &word, 0, 0, &t, 0, 0);
}
