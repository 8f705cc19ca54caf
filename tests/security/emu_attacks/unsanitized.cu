// Correct, except that a helper reads past the shared array through a pointer, in a
// function compiled without the check program's instrumentation. WHICH spells it:
// 1 __attribute__((no_sanitize("thread"))); 2 __attribute__((no_sanitize_thread));
// 3 [[gnu::no_sanitize("thread")]]; 4 <:<:gnu::no_sanitize("all"):>:> (digraphs);
// 5 __attribute__((__no_sanitize_thread__)) and an inline copy;
// 6 the runtime's own KDOJO_UNCHECKED macro; 7 no_sanitize_undefined + no_sanitize spelled by token
// pasting; 8 the unchecked helper only passes the read on to a checked one (it calls: refused all the same).
#define PASTE(a, b) a##b
#if WHICH == 1
__attribute__((no_sanitize("thread"))) __device__ __noinline__ float peek(const float* p, int i) { return p[i]; }
#elif WHICH == 2
__attribute__((no_sanitize_thread)) __device__ __noinline__ float peek(const float* p, int i) { return p[i]; }
#elif WHICH == 3
[[gnu::no_sanitize("thread")]] __device__ __noinline__ float peek(const float* p, int i) { return p[i]; }
#elif WHICH == 4
<:<:gnu::no_sanitize("all"):>:> __device__ __noinline__ float peek(const float* p, int i) { return p[i]; }
#elif WHICH == 5
__attribute__((__no_sanitize_thread__)) inline float peek(const float* p, int i) { return p[i]; }
#elif WHICH == 6
KDOJO_UNCHECKED float peek(const float* p, int i) { return p[i]; }
#elif WHICH == 7
__attribute__((PASTE(no_, sanitize)("thread"), no_sanitize_undefined)) __device__ __noinline__ float peek(const float* p, int i) { return p[i]; }
#else
__device__ __noinline__ float other(const float* p, int i);
__attribute__((no_sanitize("thread"))) __device__ __noinline__ float peek(const float* p, int i) { return other(p, i); }
__device__ __noinline__ float other(const float* p, int i) { return p[i] * 0.0f; }
#endif
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = (i < N) ? in[i] : 0.0f;
    __syncthreads();
    float v = tile[threadIdx.x];
    if (__float_as_int(peek(tile, threadIdx.x + 256)) == 12345) v += 1.0f;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}
