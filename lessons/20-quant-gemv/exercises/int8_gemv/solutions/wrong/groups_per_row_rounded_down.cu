// BUG: the number of scales per row is K / 128, rounded down. When K is not a
// multiple of 128 each row really has one more (the short last group), so from
// row 1 on every scale is taken from the wrong place: the previous row's.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void int8_gemv(const signed char* W, const __half* scales,
                                     const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * 8 + (threadIdx.x >> 5);
    if (row >= N) return;
    const int groups = K / 128;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32)
        acc += (float)W[(size_t)row * K + k] * __half2float(scales[(size_t)row * groups + k / 128]) *
               __bfloat162float(x[k]);
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = __float2bfloat16(acc);
}
