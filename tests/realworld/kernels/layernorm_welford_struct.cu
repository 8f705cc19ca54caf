// expect: accepted — Welford mean/M2 in a struct with a merge operator, merged across the warp with __shfl_xor_sync and across warps in shared memory
struct Welford {
    float mean, m2, count;
};

__device__ __forceinline__ Welford operator+(const Welford& a, const Welford& b) {
    float n = a.count + b.count;
    if (n == 0.0f) return a;
    float delta = b.mean - a.mean;
    float wb = __fdividef(b.count, n);
    return {a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.count * wb, n};
}

__device__ Welford warp_merge(Welford w) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        Welford other{__shfl_xor_sync(0xffffffffu, w.mean, o), __shfl_xor_sync(0xffffffffu, w.m2, o),
                      __shfl_xor_sync(0xffffffffu, w.count, o)};
        w = w + other;
    }
    return w;
}

extern "C" __global__ void layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    __shared__ Welford partial[32];
    __shared__ float stats[2];
    const float* row = x + (size_t)blockIdx.x * cols;
    Welford w{0.0f, 0.0f, 0.0f};
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        float v = row[i];
        w.count += 1.0f;
        float d = v - w.mean;
        w.mean += d / w.count;
        w.m2 += d * (v - w.mean);
    }
    w = warp_merge(w);
    int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    if (lane == 0) partial[wid] = w;
    __syncthreads();
    if (wid == 0) {
        Welford z{0.0f, 0.0f, 0.0f};
        w = warp_merge(lane < blockDim.x / 32 ? partial[lane] : z);
        if (lane == 0) {
            stats[0] = w.mean;
            stats[1] = rsqrtf(w.m2 / cols + eps);
        }
    }
    __syncthreads();
    float mean = stats[0], rstd = stats[1];
    for (int i = threadIdx.x; i < cols; i += blockDim.x)
        y[(size_t)blockIdx.x * cols + i] = (row[i] - mean) * rstd * weight[i] + bias[i];
}
