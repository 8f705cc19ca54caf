// expect: runtime_error — __launch_bounds__(256) promises at most 256 threads, but rows of 4097+ columns are launched with 512 or 1024
__device__ float block_reduce_sum(float v, float* scratch) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x % 32 < blockDim.x / 32 ? scratch[threadIdx.x % 32] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void __launch_bounds__(256) layernorm(const float* x, const float* weight, const float* bias,
                                                            float* y, int rows, int cols, float eps) {
    __shared__ float scratch[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) s += xr[i];
    float mean = block_reduce_sum(s, scratch) / cols;
    float q = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) q += (xr[i] - mean) * (xr[i] - mean);
    float rstd = rsqrtf(block_reduce_sum(q, scratch) / cols + eps);
    for (int i = threadIdx.x; i < cols; i += blockDim.x)
        y[(size_t)blockIdx.x * cols + i] = (xr[i] - mean) * rstd * weight[i] + bias[i];
}
