// BUG: the loop walks whole groups of 128 weights only (K / 128 of them), so the
// short last group of a row whose K is not a multiple of 128 is never added.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void int8_gemv(const signed char* W, const __half* scales,
                                     const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * 8 + (threadIdx.x >> 5);
    if (row >= N) return;
    const int groups = (K + 127) / 128;
    float acc = 0.0f;
    for (int g = 0; g < K / 128; ++g) {
        float part = 0.0f;
        for (int k = g * 128 + lane; k < g * 128 + 128; k += 32)
            part += (float)W[(size_t)row * K + k] * __bfloat162float(x[k]);
        acc += part * __half2float(scales[(size_t)row * groups + g]);
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = __float2bfloat16(acc);
}
