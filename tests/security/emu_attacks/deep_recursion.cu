// Unbounded recursion in a kernel (each emulated thread has a small stack with a
// guard page), and, with WHERE=1, on the main thread's stack from a static
// constructor before main: each ends as the learner's runtime_error.
__device__ int kd_down(volatile int* p, int n) { volatile char pad[256]; pad[0] = (char)n; return kd_down(p, n + 1) + pad[0]; }
#if WHERE == 1
struct KdEarly { KdEarly() { volatile int x = 0; kd_down(&x, 0); } };
static KdEarly kd_early;
#endif
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    volatile int x = 0;
    out[0] = (float)kd_down(&x, 0);
}
