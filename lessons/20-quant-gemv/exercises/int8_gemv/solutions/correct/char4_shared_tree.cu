// One warp per row; when K % 4 == 0 each lane reads 4 weights as one char4 (the
// 4 lie in one group, so one scale per char4), otherwise one at a time. The 32
// lanes' sums meet in shared memory and are added as a tree, not with shuffles.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void int8_gemv(const signed char* W, const __half* scales,
                                     const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K) {
    __shared__ float partial[8][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row = blockIdx.x * 8 + warp;
    float acc = 0.0f;
    if (row < N) {
        const int groups = (K + 127) / 128;
        const signed char* w = W + (size_t)row * K;
        const __half* s = scales + (size_t)row * groups;
        if (K % 4 == 0) {
            const char4* w4 = reinterpret_cast<const char4*>(w);
            for (int c = lane; c < K / 4; c += 32) {
                char4 q = w4[c];
                int k = 4 * c;
                float d = (float)q.x * __bfloat162float(x[k]) + (float)q.y * __bfloat162float(x[k + 1]) +
                          (float)q.z * __bfloat162float(x[k + 2]) + (float)q.w * __bfloat162float(x[k + 3]);
                acc += d * __half2float(s[k / 128]);
            }
        } else {
            for (int k = lane; k < K; k += 32)
                acc += (float)w[k] * __half2float(s[k / 128]) * __bfloat162float(x[k]);
        }
    }
    partial[warp][lane] = acc;
    __syncwarp();
    for (int half = 16; half > 0; half >>= 1) {
        if (lane < half) partial[warp][lane] += partial[warp][lane + half];
        __syncwarp();
    }
    if (row < N && lane == 0) y[row] = __float2bfloat16(partial[warp][0]);
}
