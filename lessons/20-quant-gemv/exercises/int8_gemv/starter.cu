// Weight-only int8 GEMV (decode, batch 1):
//   y[n] = sum_k W[n, k] * scales[n, k / 128] * x[k]
// W: int8 [N, K] row-major; scales: fp16 [N, (K + 127) / 128]; x: bf16 [K]; y: bf16 [N].
// Launch plan (fixed by the exercise): grid = ceil_div(N, 8), block = 256:
// one warp (32 threads) per row of W, 8 rows per block.
//
// This starter is a placeholder: it forgets the scales. Sum in float, and
// multiply each weight by the scale of its group of 128.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// FILL-IN: helper functions, if you want them
// __launch_bounds__(256, 4): at most 256 threads per block, and registers for 4
// such blocks on each SM (the compiler keeps each thread to 64 registers).
extern "C" __global__ void __launch_bounds__(256, 4) int8_gemv(const signed char* W, const __half* scales,
                                     const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K) {
    // BEGIN FILL-IN
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * 8 + (threadIdx.x >> 5);
    if (row >= N) return;
    // TODO: each lane adds its share of the row's K weights (times their group's scale, times x)
    // TODO: add the 32 lanes' sums with __shfl_xor_sync; lane 0 writes y[row]
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32)
        acc += (float)W[(size_t)row * K + k] * __bfloat162float(x[k]);
    if (lane == 0) y[row] = __float2bfloat16(acc);
    // END FILL-IN
}
