// expect: wrong_answer — thread 0 combines the warps' maxima into maxvals[0], but no __syncthreads() before the others read it back
__device__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float maxvals[32], sums[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    const int lane = threadIdx.x % 32, wid = threadIdx.x / 32, warps = blockDim.x / 32;
    float m = -INFINITY;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    m = warp_max(m);
    if (lane == 0) maxvals[wid] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < warps; ++w) maxvals[0] = fmaxf(maxvals[0], maxvals[w]);
    }
    const float mx = maxvals[0];   // BUG: other threads may read it before thread 0 is done
    float s = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) s += expf(xr[i] - mx);
    s = warp_sum(s);
    if (lane == 0) sums[wid] = s;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < warps; ++w) total += sums[w];
    for (int i = threadIdx.x; i < cols; i += blockDim.x) y[(size_t)blockIdx.x * cols + i] = expf(xr[i] - mx) / total;
}
