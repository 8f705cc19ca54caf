// BUG: the weights are read through an unsigned char pointer, so every negative
// weight becomes itself + 256 (-1 reads as 255).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void int8_gemv(const signed char* W, const __half* scales,
                                     const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * 8 + (threadIdx.x >> 5);
    if (row >= N) return;
    const int groups = (K + 127) / 128;
    const unsigned char* w = reinterpret_cast<const unsigned char*>(W) + (size_t)row * K;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32)
        acc += (float)w[k] * __half2float(scales[(size_t)row * groups + k / 128]) * __bfloat162float(x[k]);
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = __float2bfloat16(acc);
}
