// expect: accepted — float4 rows where aligned (scalar otherwise), sum and sum of squares of (x - x[0]) in one pass, __syncthreads between reuses, __threadfence_block
__device__ __forceinline__ float2 warp_sum2(float2 v) {
    for (int o = 16; o > 0; o >>= 1) {
        v.x += __shfl_down_sync(0xffffffffu, v.x, o);
        v.y += __shfl_down_sync(0xffffffffu, v.y, o);
    }
    return v;
}

extern "C" __global__ void layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    __shared__ float2 red[32];
    __shared__ float mean_rstd[2];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    const float shift = xr[0];
    const bool vec = (cols % 4 == 0) && (((size_t)xr & 15) == 0);
    float2 acc = make_float2(0.0f, 0.0f);
    if (vec) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
            float4 v = x4[i];
            float a = v.x - shift, b = v.y - shift, c = v.z - shift, d = v.w - shift;
            acc.x += (a + b) + (c + d);
            acc.y += (a * a + b * b) + (c * c + d * d);
        }
    } else {
        for (int i = threadIdx.x; i < cols; i += blockDim.x) {
            float a = xr[i] - shift;
            acc.x += a;
            acc.y += a * a;
        }
    }
    acc = warp_sum2(acc);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float2 t = make_float2(0.0f, 0.0f);
        for (int w = 0; w < (blockDim.x + 31) / 32; ++w) { t.x += red[w].x; t.y += red[w].y; }
        float m = t.x / cols;                       // mean of the shifted values
        float var = fmaxf(t.y / cols - m * m, 0.0f);
        mean_rstd[0] = m + shift;
        mean_rstd[1] = rsqrtf(var + eps);
        __threadfence_block();
    }
    __syncthreads();
    const float mean = mean_rstd[0], rstd = mean_rstd[1];
    for (int i = threadIdx.x; i < cols; i += blockDim.x) yr[i] = (xr[i] - mean) * rstd * weight[i] + bias[i];
}
