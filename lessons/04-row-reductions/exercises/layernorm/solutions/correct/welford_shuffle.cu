// Welford's running (count, mean, M2) per thread, merged across lanes with
// shuffles (Chan et al.'s pairwise formula) and across warps through shared
// memory. One read for the statistics, one for the write; no cancellation.
struct Stats { float n, mean, m2; };

__device__ __forceinline__ Stats combine(Stats a, Stats b) {
    float n = a.n + b.n;
    if (n == 0.0f) return a;
    float delta = b.mean - a.mean;
    float wb = b.n / n;
    Stats r;
    r.n = n;
    r.mean = a.mean + delta * wb;
    r.m2 = a.m2 + b.m2 + delta * delta * a.n * wb;
    return r;
}

__device__ __forceinline__ Stats warp_combine(Stats v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        Stats o;
        o.n = __shfl_xor_sync(0xffffffffu, v.n, offset);
        o.mean = __shfl_xor_sync(0xffffffffu, v.mean, offset);
        o.m2 = __shfl_xor_sync(0xffffffffu, v.m2, offset);
        v = combine(v, o);
    }
    return v;
}

extern "C" __global__ void layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    __shared__ Stats part[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    Stats st = {0.0f, 0.0f, 0.0f};
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = xr[c];
        st.n += 1.0f;
        float delta = v - st.mean;
        st.mean += delta / st.n;
        st.m2 += delta * (v - st.mean);
    }
    st = warp_combine(st);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) part[warp] = st;
    __syncthreads();
    Stats zero = {0.0f, 0.0f, 0.0f};
    st = lane < (int)(blockDim.x / 32) ? part[lane] : zero;
    st = warp_combine(st);
    float rstd = rsqrtf(st.m2 / cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - st.mean) * rstd * weight[c] + bias[c];
}
