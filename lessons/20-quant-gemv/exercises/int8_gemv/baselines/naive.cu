// Naive int8 GEMV: one thread per row, a CPU's dot product in each. Neighbouring
// threads read bytes K apart, so no load coalesces, and every weight is a
// one-byte load: this is the kernel the lesson starts from.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void int8_gemv_naive(const signed char* W, const __half* scales,
                                           const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    const int groups = (K + 127) / 128;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += (float)W[(size_t)row * K + k] * __half2float(scales[(size_t)row * groups + k / 128]) *
               __bfloat162float(x[k]);
    y[row] = __float2bfloat16(acc);
}
