// BUG: no __syncthreads() between the levels of the tree. A thread reads
// red[t + stride] before the thread that owns it has added its level, so
// partial sums from other warps go missing.
#define NEG_INF __int_as_float(0xff800000)  // -inf; NVRTC has no <math.h>
#define MAX_THREADS 1024

__device__ float tree_reduce(float* red, float v, bool is_max) {
    int t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) red[t] = is_max ? fmaxf(red[t], red[t + stride]) : red[t] + red[t + stride];
    }
    float total = red[0];
    __syncthreads();  // everyone has read red[0] before the next reduction overwrites it
    return total;
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float red[MAX_THREADS];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = NEG_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = tree_reduce(red, m, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    s = tree_reduce(red, s, false);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
