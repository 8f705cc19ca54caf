// expect: accepted — the row cached in a static __shared__ array for short rows, cuda::std::numeric_limits<float>::lowest(), __launch_bounds__(1024)
#include <cuda/std/limits>
#define MAX_CACHED 4096

extern "C" __global__ __launch_bounds__(1024) void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float cache[MAX_CACHED];
    __shared__ float warp_vals[32];
    const bool cached = cols <= MAX_CACHED;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float m = cuda::std::numeric_limits<float>::lowest();
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        float v = xr[i];
        if (cached) cache[i] = v;
        m = fmaxf(m, v);
    }
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(~0u, m, o));
    if (threadIdx.x % 32 == 0) warp_vals[threadIdx.x / 32] = m;
    __syncthreads();
    m = warp_vals[0];
    for (int w = 1; w < blockDim.x / 32; ++w) m = fmaxf(m, warp_vals[w]);
    __syncthreads();
    float s = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        float e = __expf((cached ? cache[i] : xr[i]) - m);
        if (cached) cache[i] = e;
        s += e;
    }
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
    if (threadIdx.x % 32 == 0) warp_vals[threadIdx.x / 32] = s;
    __syncthreads();
    s = 0.0f;
    for (int w = 0; w < blockDim.x / 32; ++w) s += warp_vals[w];
    for (int i = threadIdx.x; i < cols; i += blockDim.x)
        y[(size_t)blockIdx.x * cols + i] = (cached ? cache[i] : __expf(xr[i] - m)) / s;
}
