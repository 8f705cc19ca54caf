// BUG: one-pass variance E[x^2] - mean^2 in float32. When the mean is large
// next to the spread, the two terms cancel and the rounding error of sum(x^2)
// dominates what is left.
#define MAX_THREADS 1024

__device__ float tree_sum(float* red, float v) {
    int t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) red[t] += red[t + stride];
        __syncthreads();
    }
    float total = red[0];
    __syncthreads();  // all threads have read red[0] before it is reused
    return total;
}

extern "C" __global__ void layernorm(const float* x, const float* weight, const float* bias,
                                     float* y, int rows, int cols, float eps) {
    __shared__ float red[MAX_THREADS];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
    float mean = tree_sum(red, s) / cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) q += xr[c] * xr[c];
    float var = tree_sum(red, q) / cols - mean * mean;
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * rstd * weight[c] + bias[c];
}
