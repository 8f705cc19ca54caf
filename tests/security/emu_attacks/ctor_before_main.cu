// A constructor that runs before main and before the runtime's own (priority 0):
// it forks. The outer seccomp filter is already in place: the program is killed.
extern "C" int fork(void);
__attribute__((constructor(0))) static void early(void) { fork(); }
extern "C" __global__ void block_sum(const float* in, float* out, int N) { }
