// Online softmax: one pass keeps a running (max, sum) pair per thread and
// rescales the sum whenever the max grows; warps merge their pairs with
// shuffles, then shared memory merges the warps. A second pass writes.
#define NEG_INF __int_as_float(0xff800000)  // -inf; NVRTC has no <math.h>
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    float mn = fmaxf(m, m2);
    if (mn == NEG_INF) return;
    s = s * expf(m - mn) + s2 * expf(m2 - mn);
    m = mn;
}

__device__ __forceinline__ void warp_merge(float& m, float& s) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
        float s2 = __shfl_xor_sync(0xffffffffu, s, offset);
        merge(m, s, m2, s2);
    }
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float part_m[32], part_s[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = NEG_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) merge(m, s, xr[c], 1.0f);
    warp_merge(m, s);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) { part_m[warp] = m; part_s[warp] = s; }
    __syncthreads();
    int warps = blockDim.x / 32;
    m = lane < warps ? part_m[lane] : NEG_INF;
    s = lane < warps ? part_s[lane] : 0.0f;
    warp_merge(m, s);  // every warp merges the partials itself: no broadcast step
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
