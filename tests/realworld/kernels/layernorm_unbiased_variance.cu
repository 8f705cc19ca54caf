// expect: wrong_answer — the variance divides by cols - 1 (Bessel's correction) where the task wants the biased estimate
extern "C" __global__ void layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    __shared__ float red[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) s += xr[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = s;
    __syncthreads();
    s = 0.0f;
    for (int w = 0; w < blockDim.x / 32; ++w) s += red[w];
    float mean = s / cols;
    __syncthreads();
    float q = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) q += (xr[i] - mean) * (xr[i] - mean);
    for (int o = 16; o > 0; o >>= 1) q += __shfl_xor_sync(0xffffffffu, q, o);
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = q;
    __syncthreads();
    q = 0.0f;
    for (int w = 0; w < blockDim.x / 32; ++w) q += red[w];
    float rstd = rsqrtf(q / (cols - 1) + eps);
    for (int i = threadIdx.x; i < cols; i += blockDim.x)
        y[(size_t)blockIdx.x * cols + i] = (xr[i] - mean) * rstd * weight[i] + bias[i];
}
