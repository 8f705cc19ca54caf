// Variant: the reference with 8 16-byte loads in flight per lane instead of 4.
// Weight-only int8 GEMV (decode, batch 1), one warp per row of W, 8 rows per block:
//   y[n] = sum_k W[n, k] * scales[n, k / 128] * x[k]      (fp32 sums, bf16 y)
// Fast path (K % 16 == 0, so every row starts on a 16-byte boundary): each lane
// loads 16 weights with one int4, four such loads in flight before any is used;
// the 16 weights lie in one group of 128, so their scale multiplies their sum
// once. x (a few KiB, read by every warp) comes through the read-only cache.
// Other K: one weight at a time, to the end of the row.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define UNROLL 8  // 16-byte loads each lane keeps in flight

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// A bf16 is the top half of a float: widening is a shift, exact.
__device__ __forceinline__ float lo_bf16(unsigned int u) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float hi_bf16(unsigned int u) { return __uint_as_float(u & 0xffff0000u); }

// The dot product of 16 int8 weights (one int4) with 16 bf16 activations (two uint4).
__device__ __forceinline__ float dot16(int4 w, uint4 xa, uint4 xb) {
    const int wv[4] = {w.x, w.y, w.z, w.w};
    const unsigned int xv[8] = {xa.x, xa.y, xa.z, xa.w, xb.x, xb.y, xb.z, xb.w};
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        // (signed char) keeps the sign of each byte: 0xff is -1, not 255
        s += (float)(signed char)(wv[j]) * lo_bf16(xv[2 * j]);
        s += (float)(signed char)(wv[j] >> 8) * hi_bf16(xv[2 * j]);
        s += (float)(signed char)(wv[j] >> 16) * lo_bf16(xv[2 * j + 1]);
        s += (float)(signed char)(wv[j] >> 24) * hi_bf16(xv[2 * j + 1]);
    }
    return s;
}

extern "C" __global__ void int8_gemv(const signed char* W, const __half* scales,
                                     const __nv_bfloat16* x, __nv_bfloat16* y, int N, int K) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * 8 + (threadIdx.x >> 5);
    if (row >= N) return;  // whole warps leave together: the shuffles below stay full
    const int groups = (K + 127) / 128;
    const signed char* w = W + (size_t)row * K;
    const __half* s = scales + (size_t)row * groups;
    float acc = 0.0f;
    if (K % 16 == 0 && (size_t)W % 16 == 0 && (size_t)x % 16 == 0) {
        const int4* w16 = reinterpret_cast<const int4*>(w);
        const uint4* x8 = reinterpret_cast<const uint4*>(x);
        const int chunks = K / 16;
        for (int base = lane; base < chunks; base += 32 * UNROLL) {
            int4 wq[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)  // issue every load before the first use
                if (base + 32 * u < chunks) wq[u] = __ldg(w16 + base + 32 * u);
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                int c = base + 32 * u;
                if (c < chunks)
                    acc += __half2float(s[c / 8]) * dot16(wq[u], __ldg(x8 + 2 * c), __ldg(x8 + 2 * c + 1));
            }
        }
    } else {
        for (int k = lane; k < K; k += 32)
            acc += (float)w[k] * __half2float(s[k / 128]) * __bfloat162float(x[k]);
    }
    acc = warp_sum(acc);
    if (lane == 0) y[row] = __float2bfloat16(acc);
}
