// Allocates (and touches) until malloc fails at the program's RLIMIT_AS, then
// uses the null pointer: the judge, reading the program's peak from /proc,
// reports memory_limit_exceeded.
extern "C" void* malloc(unsigned long n);
extern "C" void* memset(void* p, int c, unsigned long n);
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    void* p = 0;
    for (int i = 0; i < 320; ++i) {
        p = malloc(64ul << 20);
        if (!p) break;
        memset(p, 1, 64ul << 20);
    }
    if (!p) memset(p, 1, 64ul << 20);
}
