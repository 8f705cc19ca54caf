// BUG: partial sum: each warp reduces its own (max, sum) with shuffles but the
// warps never combine their results, so with more than one warp per block
// every warp normalises by its own partial sum.
#define NEG_INF __int_as_float(0xff800000)  // -inf; NVRTC has no <math.h>
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    float mn = fmaxf(m, m2);
    if (mn == NEG_INF) return;
    s = s * expf(m - mn) + s2 * expf(m2 - mn);
    m = mn;
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = NEG_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) merge(m, s, xr[c], 1.0f);
    for (int offset = 16; offset > 0; offset >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
        float s2 = __shfl_xor_sync(0xffffffffu, s, offset);
        merge(m, s, m2, s2);
    }
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
