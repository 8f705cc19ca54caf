// BUG: the shuffle reduction starts at offset 8 instead of 16, so lane 0 ends
// with the sum of lanes 0-15 only: half of every row's weights are lost.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void int8_gemv(const signed char* W, const __half* scales,
                                     const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * 8 + (threadIdx.x >> 5);
    if (row >= N) return;
    const int groups = (K + 127) / 128;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32)
        acc += (float)W[(size_t)row * K + k] * __half2float(scales[(size_t)row * groups + k / 128]) *
               __bfloat162float(x[k]);
    for (int o = 8; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = __float2bfloat16(acc);
}
