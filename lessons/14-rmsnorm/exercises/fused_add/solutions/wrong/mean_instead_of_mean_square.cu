// BUG: sums h instead of h * h: the row is divided by the square root of its mean,
// not of its mean square (and the mean may be near zero or negative).
#include <cuda_bf16.h>

extern "C" __global__ void fused_add_rmsnorm(const __nv_bfloat16* x, __nv_bfloat16* residual,
                                             const __nv_bfloat16* weight, __nv_bfloat16* out,
                                             int rows, int cols, float eps) {
    __shared__ float partial[1024];
    const size_t base = (size_t)blockIdx.x * cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float h = __bfloat162float(x[base + c]) + __bfloat162float(residual[base + c]);
        residual[base + c] = __float2bfloat16(h);
        q += h;
    }
    partial[threadIdx.x] = q;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    float rstd = rsqrtf(fabsf(partial[0] / cols) + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float h = __bfloat162float(residual[base + c]);
        out[base + c] = __float2bfloat16(h * rstd * __bfloat162float(weight[c]));
    }
}
