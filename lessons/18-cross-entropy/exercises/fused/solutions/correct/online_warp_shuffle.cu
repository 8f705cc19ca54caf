// One online pass: each thread keeps a running (max, sum of exp) and rescales
// its sum when the max grows; the pairs merge by warp shuffles, then one pair
// per warp through shared memory. A second pass writes the gradient.
#define NEG_INF __int_as_float(0xff800000)

__device__ void merge(float& m, float& s, float m2, float s2) {
    float mn = fmaxf(m, m2);
    if (mn == NEG_INF) return;
    s = s * expf(m - mn) + s2 * expf(m2 - mn);
    m = mn;
}
__device__ void warp_merge(float& m, float& s) {
    for (int o = 16; o > 0; o >>= 1)
        merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
}

extern "C" __global__ void cross_entropy(const float* logits, const int* targets, float* loss,
                                         float* grad, int rows, int vocab) {
    __shared__ float wm[32], ws[32];
    const float* xr = logits + (size_t)blockIdx.x * vocab;
    float* gr = grad + (size_t)blockIdx.x * vocab;
    float m = NEG_INF, s = 0.0f;
    for (int c = threadIdx.x; c < vocab; c += blockDim.x) merge(m, s, xr[c], 1.0f);
    warp_merge(m, s);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    if (lane == 0) { wm[warp] = m; ws[warp] = s; }
    __syncthreads();
    m = lane < warps ? wm[lane] : NEG_INF;
    s = lane < warps ? ws[lane] : 0.0f;
    warp_merge(m, s);
    float lse = m + logf(s);
    int target = targets[blockIdx.x];
    if (threadIdx.x == 0) loss[blockIdx.x] = lse - xr[target];
    for (int c = threadIdx.x; c < vocab; c += blockDim.x)
        gr[c] = (expf(xr[c] - lse) - (c == target)) / rows;
}
